"""fluid.contrib.layers.var_conv_2d (ops/contrib_conv.py) against what Paddle 1.8.5 computed (tests/golden/api/
var_conv_2d_pd18.json, written by record_var_conv_2d.py), a numpy reference and finite differences."""
import json
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from paddle_exec.ops.contrib_conv import _tree_weights
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


# --- tree_conv ----------------------------------------------------------------------------------------------------

with open(os.path.join(os.path.dirname(GOLDEN), 'tree_conv_pd18.json')) as _f:
    TREE = json.load(_f)
FEAT = np.array(TREE['feat'], 'float32')
EDGES = np.array(TREE['edges'], 'int32')
TW = np.array(TREE['w'], 'float32')


def _tree_run(feat, w, depth, weights=None, act=None, bias_attr=False, edges=EDGES):
    dtype = str(feat.dtype)
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', list(feat.shape), dtype)
        x.stop_gradient = False
        e = fluid.data('e', list(edges.shape), 'int32')
        attr = fluid.ParamAttr(name='tw', initializer=fluid.initializer.NumpyArrayInitializer(w))
        o = fluid.contrib.layers.tree_conv(x, e, 5, num_filters=2, max_depth=depth, act=act, bias_attr=bias_attr,
                                           param_attr=attr)
        loss = fluid.layers.reduce_sum(fluid.layers.square(o)) if weights is None else \
            fluid.layers.reduce_sum(o * fluid.data('wt', list(weights.shape), dtype))
        gx = fluid.gradients([loss], [x])[0]
        fluid.backward.append_backward(loss)
    scope, exe = Scope(), fluid.Executor(PLACE)
    exe.run(startup, scope=scope)
    feed = {'x': feat, 'e': edges} if weights is None else {'x': feat, 'e': edges, 'wt': weights}
    return exe.run(main, feed=feed, fetch_list=[o, gx, 'tw@GRAD'], scope=scope)


@pytest.mark.parametrize('depth', [2, 3])
def test_tree_conv_matches_paddle_1_8(depth):
    """The output and the filter's gradient are Paddle 1.8.5's. Its NodesVector gradient is not the derivative of
    its output: its kernel lays the patch gradient out as (output, eta) and multiplies it with the filter laid out
    as (eta, output), which this test reproduces from the recorded numbers; paddle_exec gives the derivative (the
    finite-difference test below)."""
    want = TREE['cases']['d%d' % depth]
    out, gx, gw = _tree_run(FEAT, TW, depth)
    np.testing.assert_allclose(out, want['out'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gw, want['gw'], rtol=1e-5, atol=1e-5)
    paddle_gx = []
    for b in range(2):
        _, a = _tree_weights(EDGES[b], depth, 6, np.float64)
        mislaid = np.einsum('ukn,ui->nik', a, 2 * np.array(want['out'])[b].reshape(6, -1)).reshape(6, 30)
        paddle_gx.append(mislaid @ TW.astype(np.float64).reshape(4, 30).T)
    np.testing.assert_allclose(paddle_gx, want['gx'], rtol=1e-4, atol=1e-4)
    assert not np.allclose(gx, want['gx'], atol=1e-3)


def test_tree_conv_against_a_hand_computed_patch_and_finite_differences():
    feat, w = FEAT.astype(np.float64), TW.astype(np.float64)
    small = EDGES.copy()
    small[1, 3:] = 0                                      # tree 2 cut to 4 nodes
    out, _, _ = _tree_run(feat, w, 2, edges=small)
    # tree 2, node 1 at max_depth 2: itself (eta_t 1) and its children 2 and 4 (depth 1: eta_t 1/2; eta_l 0 and
    # 1/2 * 1 for the first and second of two siblings; eta_r = 1/2 * (1 - eta_l))
    f = feat[1]
    patch = np.stack([0.5 * f[3], 0.5 * (1 - 0) * f[1] + 0.5 * (1 - 0.5) * f[3], f[0] + 0.5 * f[1] + 0.5 * f[3]], 1)
    np.testing.assert_allclose(out[1, 0], (patch.reshape(-1) @ w.reshape(12, 10)).reshape(5, 2), rtol=1e-12)
    np.testing.assert_array_equal(out[1, 4:], 0)          # tree 2 has 4 nodes: rows 5 and 6 stay 0
    weights = np.random.default_rng(1).standard_normal(out.shape)
    _, gx, gw = _tree_run(feat, w, 3, weights)
    check_grad(gx, numeric_grad(lambda v: float(np.sum(_tree_run(v, w, 3, weights)[0] * weights)), [feat], 0),
               name='tree_conv: d/dNodesVector')
    check_grad(gw, numeric_grad(lambda v: float(np.sum(_tree_run(feat, v, 3, weights)[0] * weights)), [w], 0),
               name='tree_conv: d/dFilter')


def test_tree_conv_adds_a_bias_and_tanh_by_default():
    out, _, _ = _tree_run(FEAT, TW, 2, act='tanh', bias_attr=None)
    np.testing.assert_allclose(out, np.tanh(TREE['cases']['d2']['out']), rtol=1e-5, atol=1e-6)   # the bias starts 0
