"""fluid.contrib.layers.var_conv_2d (ops/contrib_conv.py) against what Paddle 1.8.5 computed (tests/golden/api/
var_conv_2d_pd18.json, written by record_var_conv_2d.py), a numpy reference and finite differences."""
import json
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.kernels.gradcheck import check_grad, numeric_grad

PLACE = fluid.CPUPlace()
GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden', 'api',
                      'var_conv_2d_pd18.json')
with open(GOLDEN) as _f:
    RECORDED = json.load(_f)
ROWS, COLS, CIN, COUT = [3, 2], [4, 3], 2, 3
X = np.array(RECORDED['x'], 'float32').reshape(-1, 1)
W = np.array(RECORDED['w'], 'float32')


def _lod(array, lengths):
    t = fluid.LoDTensor()
    t.set(array, PLACE)
    t.set_recursive_sequence_lengths([lengths])
    return t


def _run(x, w, stride, dtype='float32', weights=None):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        xv = fluid.data('x', [-1, 1], dtype, lod_level=1)
        xv.stop_gradient = False
        r = fluid.data('r', [-1, 1], 'float32', lod_level=1)
        c = fluid.data('c', [-1, 1], 'float32', lod_level=1)
        attr = fluid.ParamAttr(name='vw', initializer=fluid.initializer.NumpyArrayInitializer(w))
        o = fluid.contrib.layers.var_conv_2d(xv, r, c, CIN, COUT, [3, 2], stride=stride, param_attr=attr,
                                             dtype=dtype)
        loss = fluid.layers.reduce_sum(fluid.layers.square(o)) if weights is None else \
            fluid.layers.reduce_sum(o * fluid.data('wt', list(weights.shape), dtype))
        gx = fluid.gradients([loss], [xv])[0]
        fluid.backward.append_backward(loss)
    scope, exe = Scope(), fluid.Executor(PLACE)
    exe.run(startup, scope=scope)
    feed = {'x': _lod(x, [CIN * a * b for a, b in zip(ROWS, COLS)]),
            'r': _lod(np.zeros((sum(ROWS), 1), 'float32'), ROWS), 'c': _lod(np.zeros((sum(COLS), 1), 'float32'), COLS)}
    if weights is not None:
        feed['wt'] = weights
    return exe.run(main, feed=feed, fetch_list=[o, gx, 'vw@GRAD'], scope=scope, return_numpy=False)


@pytest.mark.parametrize('stride', [[1, 1], [2, 1]])
def test_var_conv_2d_matches_paddle_1_8(stride):
    want = RECORDED['cases']['s%d%d' % tuple(stride)]
    out, gx, gw = _run(X, W, stride)
    np.testing.assert_allclose(np.array(out).ravel(), want['out'], rtol=1e-5, atol=1e-6)
    assert out.recursive_sequence_lengths() == want['lod']
    np.testing.assert_allclose(np.array(gx).ravel(), want['gx'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.array(gw).ravel(), want['gw'], rtol=1e-5, atol=1e-6)


def _reference(x, w, sh, sw):
    outs, start = [], 0
    for h, wd in zip(ROWS, COLS):
        img = x[start:start + CIN * h * wd, 0].reshape(CIN, h, wd)
        start += CIN * h * wd
        padded = np.pad(img, ((0, 0), (1, 1), (1, 0)))        # kernel 3x2: one row before and after, one col before
        oh, ow = (h - 1) // sh + 1, (wd - 1) // sw + 1
        out = np.zeros((COUT, oh, ow))
        for a in range(oh):
            for b in range(ow):
                patch = padded[:, a * sh:a * sh + 3, b * sw:b * sw + 2].reshape(-1)
                out[:, a, b] = w @ patch
        outs.append(out.reshape(-1))
    return np.concatenate(outs)


def test_var_conv_2d_against_numpy_and_finite_differences():
    x, w = X.astype(np.float64), W.astype(np.float64)
    out, _, _ = _run(x, w, [2, 1], 'float64')
    np.testing.assert_allclose(np.array(out).ravel(), _reference(x, w, 2, 1), rtol=1e-12)
    weights = np.random.default_rng(0).standard_normal(np.array(out).shape)
    _, gx, gw = _run(x, w, [2, 1], 'float64', weights)

    def loss_x(xv):
        return float(np.sum(np.array(_run(xv, w, [2, 1], 'float64', weights)[0]) * weights))

    def loss_w(wv):
        return float(np.sum(np.array(_run(x, wv, [2, 1], 'float64', weights)[0]) * weights))
    check_grad(np.array(gx), numeric_grad(loss_x, [x], 0), name='var_conv_2d: d/dX')
    check_grad(np.array(gw), numeric_grad(loss_w, [w], 0), name='var_conv_2d: d/dW')
