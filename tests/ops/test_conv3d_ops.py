"""conv3d, conv3d_transpose, pool3d, max_pool3d_with_index, unpool and unpool3d through small programs: forward
values against the numpy references of tests/kernels/test_conv3d.py, compile-time shapes against the run, every
grad op against central finite differences of the program's loss (`OpProgram.check_grads`, float64). Real
Paddle's numbers for the same ops: tests/api/test_nn_golden.py."""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.framework import Program, program_guard
from paddle_exec.layers.io import data_v2
from tests.kernels.test_conv3d import distinct, ref_adaptive_avg3d, ref_conv3d, ref_conv3d_transpose, ref_pool3d
from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def program(op_type, feeds: dict, inputs: dict, attrs: dict, out_slot: str, wrt=(), extra_outputs=()):
    """One `op_type` op over fed variables; `inputs` maps slot -> feed name."""
    def build(block, **vs):
        outs = {out_slot: 1, **{s: 1 for s in extra_outputs}}
        made = append(block, op_type, {slot: [vs[n]] for slot, n in inputs.items()}, outs, attrs)
        return made[out_slot][0]
    return OpProgram(build, feeds, wrt)


def test_conv3d_op_forward_shape_and_gradients():
    x, w = _rng(1).standard_normal((2, 4, 4, 5, 3)), _rng(2).standard_normal((6, 2, 2, 3, 2))
    attrs = {'strides': [1, 2, 1], 'paddings': [1, 0, 0, 1, 1, 0], 'dilations': [1, 1, 2], 'groups': 2}
    prog = program('conv3d', {'x': x, 'w': w}, {'Input': 'x', 'Filter': 'w'}, attrs, 'Output', wrt=('x', 'w'))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_conv3d(x, w, [1, 2, 1], [1, 0, 0, 1, 1, 0], [1, 1, 2], 2), rtol=1e-10)
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads()


def test_conv3d_op_channels_last_and_same_padding():
    x, w = _rng(3).standard_normal((1, 5, 4, 5, 2)), _rng(4).standard_normal((3, 2, 3, 2, 3))
    attrs = {'strides': [2, 1, 2], 'padding_algorithm': 'SAME', 'data_format': 'NDHWC'}
    prog = program('conv3d', {'x': x, 'w': w}, {'Input': 'x', 'Filter': 'w'}, attrs, 'Output', wrt=('x', 'w'))
    got, = prog.run([prog.out])
    xc = x.transpose(0, 4, 1, 2, 3)
    from paddle_exec.kernels.conv3d import resolve_paddings_nd
    pads = resolve_paddings_nd(0, 'SAME', xc.shape[2:], w.shape[2:], [2, 1, 2])
    np.testing.assert_allclose(got, ref_conv3d(xc, w, [2, 1, 2], pads, [1, 1, 1], 1).transpose(0, 2, 3, 4, 1),
                               rtol=1e-10)
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads()


def test_conv3d_transpose_op_with_fluid_layout_names_and_output_size():
    x, w = _rng(5).standard_normal((1, 2, 2, 3, 2)), _rng(6).standard_normal((2, 3, 2, 2, 3))
    # fluid 1.8 hands the op 'NCHW' for NCDHW
    attrs = {'strides': [2, 1, 2], 'paddings': [1, 0, 0], 'data_format': 'NCHW', 'output_size': [3, 4, 6]}
    prog = program('conv3d_transpose', {'x': x, 'w': w}, {'Input': 'x', 'Filter': 'w'}, attrs, 'Output',
                   wrt=('x', 'w'))
    got, = prog.run([prog.out])
    assert got.shape == (1, 3, 3, 4, 6) and tuple(prog.out.shape) == got.shape
    want = ref_conv3d_transpose(x, w, [2, 1, 2], [1, 1, 0, 0, 0, 0], [1, 1, 1], 1)
    np.testing.assert_allclose(got[:, :, :want.shape[2], :, :want.shape[4]], want, rtol=1e-10)
    prog.check_grads()


@pytest.mark.parametrize('attrs', [
    {'pooling_type': 'max', 'ksize': [2, 2, 2], 'strides': [2, 2, 2]},
    {'pooling_type': 'avg', 'ksize': [3, 2, 3], 'strides': [2, 1, 2], 'paddings': [1, 0, 1], 'exclusive': False},
    {'pooling_type': 'avg', 'ksize': [2, 3, 2], 'adaptive': True},
    {'pooling_type': 'max', 'ksize': [3, 3, 3], 'strides': [2, 2, 2], 'paddings': [1, 1, 1], 'ceil_mode': True},
])
def test_pool3d_op_forward_and_gradients(attrs):
    x = distinct((2, 2, 5, 4, 6), seed=7)
    prog = program('pool3d', {'x': x}, {'X': 'x'}, attrs, 'Out', wrt=('x',))
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == got.shape
    if attrs.get('adaptive'):
        want = ref_adaptive_avg3d(x, attrs['ksize'])
    else:
        pads = attrs.get('paddings', [0, 0, 0])
        want = ref_pool3d(x, attrs['ksize'], attrs['pooling_type'], attrs['strides'],
                          [p for v in pads for p in (v, v)], attrs.get('ceil_mode', False),
                          attrs.get('exclusive', True))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    prog.check_grads(rtol=1e-4, atol=1e-6, eps=1e-4)


def test_max_pool3d_with_index_and_unpool3d_round_trip_with_gradients():
    x = distinct((1, 2, 4, 4, 6), seed=8)

    def build(block, x):
        pooled = append(block, 'max_pool3d_with_index', {'X': [x]}, {'Out': 1, 'Mask': 1},
                        {'ksize': [2, 2, 2], 'strides': [2, 2, 2]})
        return append(block, 'unpool3d', {'X': pooled['Out'], 'Indices': pooled['Mask']}, {'Out': 1},
                      {'ksize': [2, 2, 2], 'strides': [2, 2, 2], 'output_size': [4, 4, 6]})['Out'][0]
    prog = OpProgram(build, {'x': x}, ('x',))
    got, = prog.run([prog.out])
    pooled = ref_pool3d(x, [2, 2, 2], 'max', [2, 2, 2], [0] * 6)
    # every window's maximum comes back at its own place, zeros elsewhere
    expanded = pooled.repeat(2, 2).repeat(2, 3).repeat(2, 4)
    np.testing.assert_array_equal(got, np.where(x == expanded, x, 0.0))
    prog.check_grads(rtol=1e-4, atol=1e-6, eps=1e-4)


def test_unpool_default_output_size_and_index_check():
    main = Program()
    with program_guard(main, Program()):
        x = data_v2('x', [2, 3, 4, 5], 'float32')
        idx = data_v2('idx', [2, 3, 4, 5], 'int32')
        out = append(main.global_block(), 'unpool', {'X': [x], 'Indices': [idx]}, {'Out': 1},
                     {'ksize': [2, 2], 'strides': [2, 2], 'paddings': [0, 0], 'output_size': [0, 0]})['Out'][0]
        assert out.shape == (2, 3, 8, 10)
        bad = data_v2('bad', [2, 3, 4, 4], 'int32')
        with pytest.raises(ValueError, match='Indices'):
            append(main.global_block(), 'unpool', {'X': [x], 'Indices': [bad]}, {'Out': 1}, {'ksize': [2, 2]})


def test_conv3d_shape_errors_name_the_op():
    main = Program()
    with program_guard(main, Program()):
        x = data_v2('x', [1, 3, 4, 4, 4], 'float32')
        w = data_v2('w', [2, 2, 1, 1, 1], 'float32')
        with pytest.raises(ValueError, match="conv3d.*input channels"):
            append(main.global_block(), 'conv3d', {'Input': [x], 'Filter': [w]}, {'Output': 1})
        flat = data_v2('flat', [1, 3, 4, 4], 'float32')
        with pytest.raises(ValueError, match="pool3d.*5-D"):
            append(main.global_block(), 'pool3d', {'X': [flat]}, {'Out': 1}, {'ksize': [1, 1, 1]})
