"""fluid.layers.im2sequence (ops/im2sequence.py) against what Paddle 1.8.5 computed (tests/golden/api/
im2sequence_pd18.json, written by record_im2sequence.py), a numpy reference and finite differences."""
import json
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.kernels.gradcheck import check_grad, numeric_grad

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden', 'api',
                      'im2sequence_pd18.json')
with open(GOLDEN) as _f:
    RECORDED = json.load(_f)
X = np.random.RandomState(4).rand(2, 2, 5, 6).astype('float32')
REAL = np.array([[5, 6], [3, 4]], 'float32')
CASES = {'sym': dict(filter_size=[2, 3], stride=[2, 1], padding=[1, 1]),
         'plain': dict(filter_size=[2, 3], stride=[2, 1], padding=[1, 0, 0, 1]),
         'real': dict(filter_size=2, stride=1, padding=0, out_stride=2),
         'grad': dict(filter_size=2, stride=1, padding=0)}


def _run(x, kw, real=None, grad=False):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        xv = fluid.data('x', list(x.shape), str(x.dtype))
        xv.stop_gradient = False
        y = fluid.data('y', [x.shape[0], 2], 'float32') if real is not None else None
        out = fluid.layers.im2sequence(xv, input_image_size=y, **kw)
        fetch = [out]
        if grad:
            fetch.append(fluid.gradients([fluid.layers.reduce_sum(fluid.layers.square(out))], [xv])[0])
    feed = {'x': x} if real is None else {'x': x, 'y': real}
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=Scope(), return_numpy=False)


@pytest.mark.parametrize('name', sorted(CASES))
def test_im2sequence_matches_paddle_1_8(name):
    want = RECORDED[name]
    got = _run(X, CASES[name], REAL if name == 'real' else None, grad=name == 'grad')
    np.testing.assert_allclose(np.array(got[0]), want['out'], rtol=1e-6)
    assert got[0].recursive_sequence_lengths() == want['lod']
    if name == 'grad':
        np.testing.assert_allclose(np.array(got[1]), want['grad'], rtol=1e-5)


def _reference(x, kh, kw, sh, sw, up, left, down, right):
    n, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (up, down), (left, right)))
    oh, ow = (h + up + down - kh) // sh + 1, (w + left + right - kw) // sw + 1
    rows = [padded[i, :, a * sh:a * sh + kh, b * sw:b * sw + kw].reshape(-1)
            for i in range(n) for a in range(oh) for b in range(ow)]
    return np.stack(rows)


def _run_op(x, attrs, grad=False):
    """The im2sequence op itself in float64 (the layer takes float32 only, as 1.8's does)."""
    main = Program()
    with program_guard(main, Program()), unique_name.guard():
        block = main.global_block()
        xv = fluid.data('x', list(x.shape), 'float64')
        xv.stop_gradient = False
        out = block.create_var(name='out', dtype='float64', lod_level=1)
        block.append_op('im2sequence', {'X': [xv]}, {'Out': [out]}, attrs)
        fetch = [out]
        if grad:
            fetch.append(fluid.gradients([fluid.layers.reduce_sum(fluid.layers.square(out))], [xv])[0])
    return fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': x}, fetch_list=fetch, scope=Scope(),
                                                return_numpy=False)


def test_im2sequence_against_numpy_and_finite_differences():
    x = X.astype(np.float64)[:, :, :4, :5]
    attrs = {'kernels': [2, 3], 'strides': [2, 1], 'paddings': [1, 0, 0, 1]}
    got = _run_op(x, attrs, grad=True)
    np.testing.assert_allclose(np.array(got[0]), _reference(x, 2, 3, 2, 1, 1, 0, 0, 1), rtol=1e-12)

    def loss(xv):
        return float(np.sum(np.array(_run_op(xv, attrs)[0]) ** 2))
    check_grad(np.array(got[1]), numeric_grad(loss, [x], 0), name='im2sequence: d/dX')
