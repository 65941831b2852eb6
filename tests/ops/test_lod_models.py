"""Small LoD training programs against Paddle 1.8.5, in the golden-case format (tests/golden/run_case.py): those of
tests/ops/data/models/ (recorded with `run_case.py CASE --backend paddle --record CASE.npz` under Paddle 1.8.5).

lod_attention_fc_exe   the golden lod_gru_attention_exe with its GRUs replaced by fc + tanh: the sequence ops it
                       trains through are checked before dynamic_gru exists
lod_sentiment_pe       the golden lod_sentiment_exe on the ParallelExecutor over 2 places (sparse embedding
                       gradients, sequence_conv_pool, Adagrad, sequences split between the places)
lod_crf_fc_exe         the golden lod_crf_exe with its dynamic_lstm replaced by fc + tanh: linear_chain_crf trained
                       through, crf_decoding sharing its transition parameter (a LoD fetch), chunk_eval and
                       edit_distance of the decoded tags
lod_crf_fc_pe          the same on the ParallelExecutor over 2 places
lod_detection_map_exe  fluid.metrics.DetectionMAP and fluid.evaluator.DetectionMAP over 4 batches: batch and
                       accumulated mAP, the accumulated states and their per-class LoD
"""
import glob
import importlib.util
import os

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, 'data', 'models')
_spec = importlib.util.spec_from_file_location('run_case', os.path.join(HERE, '..', 'golden', 'run_case.py'))
run_case = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run_case)

CASES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(MODELS, '*.py')))


@pytest.mark.parametrize('name', CASES)
def test_lod_model_matches_paddle_1_8(name, case_cpu_num):
    case = run_case.load_case(os.path.join(MODELS, name + '.py'))
    case_cpu_num(case)
    import paddle_exec
    from paddle_exec.framework import unique_name
    with unique_name.guard():
        got = run_case.run(case, paddle_exec)
    want = dict(np.load(os.path.join(MODELS, name + '.npz')))
    bad = run_case.compare(got, want)
    assert not bad, '\n'.join(bad)
