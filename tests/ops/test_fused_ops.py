"""The fusion passes' op types through small programs: fused_batch_norm_act (Paddle's NHWC op, or batch_norm's
data_layout when the pass copies it) against a numpy reference, its gradient op against finite differences of the
program's loss; coalesce_tensor against np.concatenate, and its no-copy path."""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.ops.fused import coalesced_buffer
from tests.kernels.test_norm import ref_batch_norm_train
from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def bn_act_program(x, c, attrs, wrt=(), seed=10):
    rng = _rng(seed)
    feeds = {'x': x, 'scale': rng.uniform(0.5, 1.5, c).astype(x.dtype), 'bias': rng.standard_normal(c).astype(x.dtype),
             'mean': rng.standard_normal(c).astype(x.dtype), 'var': rng.uniform(0.5, 2.0, c).astype(x.dtype)}

    def build(block, x, scale, bias, mean, var):
        inputs = {'X': [x], 'Scale': [scale], 'Bias': [bias], 'Mean': [mean], 'Variance': [var]}
        saved = {s: [block.create_var(name='bn.' + s)] for s in ('SavedMean', 'SavedVariance', 'Y')}
        block.append_op('fused_batch_norm_act', inputs, {'MeanOut': [mean], 'VarianceOut': [var], **saved}, attrs)
        return saved['Y'][0]
    return OpProgram(build, feeds, wrt)


@pytest.mark.parametrize('shape, attrs', [((3, 4, 2, 5), {}), ((6, 5), {}),
                                          ((4, 3, 5, 2), {'data_layout': 'NCHW'})])
def test_fused_batch_norm_act_forward(shape, attrs):
    x = _rng(1).standard_normal(shape).astype(np.float32)
    layout = attrs.get('data_layout', 'NHWC')                # Paddle's op is channel-last
    c = shape[1] if layout == 'NCHW' else shape[-1]
    prog = bn_act_program(x, c, {'momentum': 0.8, 'epsilon': 1e-3, **attrs})
    f = prog.feeds
    got = prog.run(['bn.Y', 'mean', 'var', 'bn.SavedMean', 'bn.SavedVariance'])
    y, *stats = ref_batch_norm_train(x, f['scale'], f['bias'], f['mean'], f['var'], 0.8, 1e-3, layout)
    for g, r in zip(got, [np.maximum(y, 0)] + stats):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('shape, attrs', [((3, 2, 2, 4), {}), ((5, 3), {}), ((2, 3, 2, 2), {'data_layout': 'NCHW'})])
def test_fused_batch_norm_act_grad_finite_difference(shape, attrs):
    x = _rng(2).standard_normal(shape) * 2 + 0.3
    c = shape[1] if attrs.get('data_layout') == 'NCHW' else shape[-1]
    prog = bn_act_program(x, c, {'epsilon': 1e-3, **attrs}, wrt=('x', 'scale', 'bias'))
    types = [op.type for op in prog.main.global_block().ops]
    assert 'fused_batch_norm_act_grad' in types
    prog.check_grads(rtol=1e-4, atol=1e-6, eps=1e-6)


def test_fused_batch_norm_act_refuses_another_activation():
    x = _rng(3).standard_normal((4, 3)).astype(np.float32)
    prog = bn_act_program(x, 3, {'act_type': 'sigmoid'})
    with pytest.raises(ValueError, match="act_type must be 'relu'"):
        prog.run(['bn.Y'])


def coalesce_program(arrays, attrs):
    feeds = {'a%d' % i: a for i, a in enumerate(arrays)}

    def build(block, **vs):
        names = [vs['a%d' % i] for i in range(len(arrays))]
        outs = append(block, 'coalesce_tensor', {'Input': names}, {'FusedOutput': 1},
                      {'dtype': 5, 'copy_data': True, **attrs})
        block.ops[-1].outputs['Output'] = [v.name for v in names]
        return outs['FusedOutput'][0]
    return OpProgram(build, feeds)


def test_coalesce_tensor_lays_its_inputs_end_to_end():
    arrays = [_rng(4).standard_normal(s).astype(np.float32) for s in ((2, 3), (4,), (1, 2, 2))]
    prog = coalesce_program(arrays, {})
    fused, = prog.run([prog.out])
    np.testing.assert_array_equal(fused, np.concatenate([a.ravel() for a in arrays]))


def test_coalesce_tensor_set_constant():
    arrays = [np.ones((2, 2), np.float32), np.ones(3, np.float32)]
    prog = coalesce_program(arrays, {'copy_data': False, 'set_constant': True, 'constant': 2.5})
    fused, = prog.run([prog.out])
    np.testing.assert_array_equal(fused, np.full(7, 2.5, np.float32))


def test_coalesced_buffer_recognises_consecutive_views_only():
    buf = np.arange(10, dtype=np.float32)
    a, b = buf[:4].reshape(2, 2), buf[4:]
    assert coalesced_buffer([a, b]) is buf
    assert coalesced_buffer([b, a]) is None                  # not in order
    assert coalesced_buffer([a, buf[5:]]) is None            # a gap
    assert coalesced_buffer([a, buf[4:9]]) is None           # not all of the buffer
    assert coalesced_buffer([np.zeros(4, np.float32)]) is None
