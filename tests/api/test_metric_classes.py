"""paddle.metric's classes beyond the numbers recorded from Paddle 2.6.2 (tests/golden/api/static_metrics.npz):
the abstract base, names, the input checks; fluid.evaluator's programs (persistable states summed every run) and
their reset / eval programs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name


def test_metric_is_abstract_and_names_follow_paddle():
    with pytest.raises(TypeError):
        paddle.metric.Metric()
    assert paddle.metric.Accuracy(topk=(1, 5)).name() == ['acc_top1', 'acc_top5']
    assert paddle.metric.Accuracy(name='a').name() == ['a']
    assert paddle.metric.Precision().name() == 'precision' and paddle.metric.Recall().name() == 'recall'
    assert paddle.metric.Auc().name() == 'auc'


def test_host_metrics_take_numpy_arrays():
    with pytest.raises(ValueError, match="'preds' must be a numpy ndarray"):
        paddle.metric.Precision().update([0.9], np.array([1]))
    with pytest.raises(ValueError, match="'labels' must be a numpy ndarray"):
        paddle.metric.Auc().update(np.array([[0.1, 0.9]]), [1])
    recall = paddle.metric.Recall()
    recall.update(np.array([0.9, 0.2, 0.7]), np.array([1, 1, 0]))
    assert recall.accumulate() == 0.5
    recall.reset()
    assert recall.accumulate() == 0.0


def test_accuracy_compute_builds_ops_and_reshapes_labels():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()), unique_name.guard():
        pred = paddle.static.data('pred', [-1, 4], 'float32')
        label = paddle.static.data('label', [-1], 'int64')
        correct = paddle.metric.Accuracy(topk=(2,)).compute(pred, label)
    types = [op.type for op in main.global_block().ops]
    assert types[0] == 'argsort' and 'slice' in types and 'equal' in types and types[-1] == 'cast'
    exe = paddle.static.Executor(paddle.CPUPlace())
    got, = exe.run(main, feed={'pred': np.array([[0.1, 0.5, 0.3, 0.2], [0.9, 0.05, 0.03, 0.02]], 'float32'),
                               'label': np.array([2, 3], 'int64')}, fetch_list=[correct])
    assert got.tolist() == [[0.0, 1.0], [0.0, 0.0]]


def _evaluator_program(make):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        evaluator = make()
    assert any('deprecated' in str(w.message) for w in caught)
    return main, startup, evaluator


def test_chunk_evaluator_program_reset_and_eval():
    def make():
        inf = fluid.layers.data('inf', shape=[1], dtype='int64', lod_level=1)
        lab = fluid.layers.data('lab', shape=[1], dtype='int64', lod_level=1)
        return fluid.evaluator.ChunkEvaluator(inf, lab, chunk_scheme='IOB', num_chunk_types=2)
    main, startup, ev = _evaluator_program(make)
    names = [s.name for s in ev.states]
    # paddlepaddle 1.8.5's names: unique_name.generate of the helper's own name, then the state
    assert names == ['chunk_eval_0_0_num_infer_chunks', 'chunk_eval_0_1_num_label_chunks',
                     'chunk_eval_0_2_num_correct_chunks']
    assert all(main.global_block().var(n).persistable for n in names)
    sums = [op for op in main.global_block().ops if op.type == 'sum']
    assert [op.outputs['Out'][0] for op in sums] == names
    assert len(ev.metrics) == 3
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        ev.reset(exe)
        assert [int(np.array(scope.find_var(n).get_tensor())[0]) for n in names] == [0, 0, 0]
        for name, value in zip(names, (4, 5, 3)):
            scope.find_var(name).get_tensor().set(np.array([value], 'int64'), fluid.CPUPlace())
        precision, recall, f1 = ev.eval(exe)
    np.testing.assert_allclose([precision[0], recall[0], f1[0]], [0.75, 0.6, 2 * 0.75 * 0.6 / 1.35], rtol=1e-6)


def test_edit_distance_evaluator_eval_averages():
    def make():
        hyp = fluid.layers.data('hyp', shape=[1], dtype='int64', lod_level=1)
        ref = fluid.layers.data('ref', shape=[1], dtype='int64', lod_level=1)
        return fluid.evaluator.EditDistance(hyp, ref)
    main, startup, ev = _evaluator_program(make)
    assert [s.name for s in ev.states] == ['edit_distance_0_0_total_distance', 'edit_distance_0_1_seq_num',
                                           'edit_distance_0_2_instance_error']
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        ev.reset(exe)
        for state, value in zip(ev.states, (np.array([3.0], 'float32'), np.array([4], 'int64'),
                                            np.array([1], 'int64'))):
            scope.find_var(state.name).get_tensor().set(value, fluid.CPUPlace())
        avg_distance, avg_error = ev.eval(exe)
    np.testing.assert_allclose([avg_distance[0], avg_error[0]], [0.75, 0.25])
