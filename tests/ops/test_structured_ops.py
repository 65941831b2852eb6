"""The structured losses and decoders against Paddle 1.8.5: every case of tests/ops/data/structured_cases.py
(linear_chain_crf, crf_decoding, chunk_eval, edit_distance, warpctc, ctc_greedy_decoder; LoD and padded forms) run
through paddle_exec's fluid and compared with what 1.8.5 computed (tests/ops/data/structured_ops_pd18.json, written
by record_structured_ops.py under Paddle 1.8.5): output values, shapes, dtypes, run-time LoD and compile-time
lod_level, and the gradients of sum(out * w) with respect to the inputs and the transition parameter. What 1.8.5
refused is refused here too, with its words.

The kernels' numpy references and finite-difference gradient checks are in tests/kernels/test_crf.py and
tests/kernels/test_ctc.py.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import structured_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'structured_ops_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = structured_cases.cases(fluid)


def test_every_case_was_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize('name', sorted(n for n in RECORDED if 'error' not in RECORDED[n]))
def test_case_matches_paddle_1_8(name):
    want = RECORDED[name]
    got = structured_cases.run_case(fluid, CASES, name)
    assert len(got['outputs']) == len(want['outputs'])
    for k, (g, w) in enumerate(zip(got['outputs'], want['outputs'])):
        assert g['shape'] == w['shape'], (name, k)
        assert g['dtype'] == w['dtype'], (name, k)
        assert g['lod'] == w['lod'], (name, k, 'output LoD')
        assert g['lod_level'] == w['lod_level'], (name, k, 'compile-time lod_level')
        np.testing.assert_allclose(np.array(g['value'], np.float64), np.array(w['value'], np.float64), rtol=1e-5,
                                   atol=1e-5, err_msg='%s output %d' % (name, k))
    assert sorted(got.get('grads', {})) == sorted(want.get('grads', {}))
    for var, w in want.get('grads', {}).items():
        np.testing.assert_allclose(np.array(got['grads'][var], np.float64), np.array(w, np.float64), rtol=1e-4,
                                   atol=1e-5, err_msg='%s d/d%s' % (name, var))


PADDLE_WORDS = {'crf_bad_label': 'An invalid tag label that execesses the largest tag number',
                'chunk_lod_mismatch': 'should have same LoD information',
                'edit_lod_empty_ref': 'Reference string 2 is empty'}


@pytest.mark.parametrize('name', sorted(n for n in RECORDED if 'error' in RECORDED[n]))
def test_what_paddle_refuses_is_refused(name):
    words = PADDLE_WORDS[name]
    assert words in RECORDED[name]['error']
    with pytest.raises(ValueError, match=words):
        structured_cases.run_case(fluid, CASES, name)
