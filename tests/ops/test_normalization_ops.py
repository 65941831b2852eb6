"""data_norm, spectral_norm, affine_channel, sync_batch_norm and inplace_abn through small programs: numpy
references written from Paddle's formulas, finite-difference gradients where the op's gradient is a derivative,
and Paddle's own formula where it is not (data_norm's statistics, spectral_norm). Real Paddle's numbers for the
same ops: tests/api/test_nn_golden.py."""
from __future__ import annotations

import numpy as np
import pytest

from tests.kernels.test_norm import ref_batch_norm_train
from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------------------------
# data_norm

def data_norm_program(x, stats, attrs, scale_w=None, bias=None, wrt=('x',)):
    feeds = {'x': x, 'size': stats[0], 'total': stats[1], 'square': stats[2]}
    if scale_w is not None:
        feeds.update(w=scale_w, b=bias)

    def build(block, x, size, total, square, **extra):
        inputs = {'X': [x], 'BatchSize': [size], 'BatchSum': [total], 'BatchSquareSum': [square]}
        if extra:
            inputs.update(scale_w=[extra['w']], bias=[extra['b']])
        return append(block, 'data_norm', inputs, {'Y': 1, 'Means': 1, 'Scales': 1}, attrs)['Y'][0]
    return OpProgram(build, feeds, wrt)


def _stats(c, seed):
    rng = _rng(seed)
    return rng.uniform(2, 5, c), rng.uniform(-1, 1, c), rng.uniform(2, 5, c)


def test_data_norm_forward_and_x_gradient():
    x = _rng(1).standard_normal((5, 4))
    size, total, square = _stats(4, 2)
    prog = data_norm_program(x, (size, total, square), {'epsilon': 1e-4})
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, (x - total / size) * np.sqrt(size / square), rtol=1e-12)
    prog.check_grads()


def test_data_norm_statistics_gradients_are_the_batch_statistics():
    x = _rng(3).standard_normal((6, 4))
    stats = _stats(4, 4)
    prog = data_norm_program(x, stats, {'epsilon': 1e-4}, wrt=('x', 'size', 'total', 'square'))
    d_size, d_sum, d_square = prog.run(['size@GRAD', 'total@GRAD', 'square@GRAD'])
    means = stats[1] / stats[0]
    np.testing.assert_allclose(d_size, np.full(4, 6.0))
    np.testing.assert_allclose(d_sum, x.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(d_square, ((x - means) ** 2).sum(axis=0) + 6 * 1e-4, rtol=1e-12)


def test_data_norm_slots_zero_the_unshown_and_average_the_shown():
    x = _rng(5).standard_normal((4, 4))
    x[1, 0] = 0.0                                   # row 1, slot 0 not shown
    x[2, 2] = 0.0                                   # row 2, slot 1 not shown
    stats = _stats(4, 6)
    prog = data_norm_program(x, stats, {'epsilon': 1e-4, 'slot_dim': 2}, wrt=('x', 'size', 'total', 'square'))
    y, d_size, d_sum, d_square = prog.run([prog.out, 'size@GRAD', 'total@GRAD', 'square@GRAD'])
    shown = np.ones_like(x, dtype=bool)
    shown[1, :2] = shown[2, 2:] = False
    means, scales = stats[1] / stats[0], np.sqrt(stats[0] / stats[2])
    np.testing.assert_allclose(y, np.where(shown, (x - means) * scales, 0.0), rtol=1e-12)
    count = shown.sum(axis=0)
    np.testing.assert_allclose(d_size, np.ones(4))
    np.testing.assert_allclose(d_sum, np.where(shown, x, 0).sum(axis=0) / count, rtol=1e-12)
    np.testing.assert_allclose(d_square, np.where(shown, (x - means) ** 2, 0).sum(axis=0) / count + count * 1e-4,
                               rtol=1e-12)
    # Paddle's dX is dY * scales everywhere, also where the slot was not shown (there Y does not depend on x)
    dx, = prog.run(['x@GRAD'])
    np.testing.assert_allclose(dx, prog.proj / prog.proj.size * scales, rtol=1e-12)


def test_data_norm_scale_and_shift_gradients():
    x = _rng(7).standard_normal((5, 3))
    w, b = _rng(8).standard_normal(3), _rng(9).standard_normal(3)
    prog = data_norm_program(x, _stats(3, 10), {'enable_scale_and_shift': True}, w, b, wrt=('x', 'w', 'b'))
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# spectral_norm

def ref_spectral(w, u, v, dim, iters, eps):
    perm = [dim] + [i for i in range(w.ndim) if i != dim]
    mat = w.transpose(perm).reshape(w.shape[dim], -1)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    sigma = u @ mat @ v
    return mat, u, v, sigma, perm


@pytest.mark.parametrize('dim,iters', [(0, 1), (1, 3), (2, 2)])
def test_spectral_norm_forward_and_paddles_gradient_formula(dim, iters):
    rng = _rng(11)
    w = rng.standard_normal((3, 4, 2))
    h = w.shape[dim]
    u, v = rng.standard_normal(h), rng.standard_normal(w.size // h)

    def build(block, w, u, v):
        return append(block, 'spectral_norm', {'Weight': [w], 'U': [u], 'V': [v]}, {'Out': 1},
                      {'dim': dim, 'power_iters': iters, 'eps': 1e-12})['Out'][0]
    prog = OpProgram(build, {'w': w, 'u': u, 'v': v}, ('w',))
    out, dw = prog.run([prog.out, 'w@GRAD'])
    mat, uu, vv, sigma, perm = ref_spectral(w, u, v, dim, iters, 1e-12)
    inverse = np.argsort(perm)
    np.testing.assert_allclose(out, (mat / sigma).reshape([w.shape[p] for p in perm]).transpose(inverse), rtol=1e-10)
    # Paddle's spectral_norm_grad is not the derivative of Out: dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma
    dout = prog.proj / prog.proj.size
    dmat = dout.transpose(perm).reshape(mat.shape)
    want = dmat * (1 - np.outer(uu, vv) * np.sum(mat / sigma)) / sigma
    np.testing.assert_allclose(dw, want.reshape([w.shape[p] for p in perm]).transpose(inverse), rtol=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# affine_channel, sync_batch_norm, inplace_abn

@pytest.mark.parametrize('layout', ['NCHW', 'NHWC'])
def test_affine_channel_forward_and_gradients(layout):
    rng = _rng(12)
    x = rng.standard_normal((2, 3, 4, 3))
    s, b = rng.standard_normal(3), rng.standard_normal(3)

    def build(block, x, s, b):
        return append(block, 'affine_channel', {'X': [x], 'Scale': [s], 'Bias': [b]}, {'Out': 1},
                      {'data_layout': layout})['Out'][0]
    prog = OpProgram(build, {'x': x, 's': s, 'b': b}, ('x', 's', 'b'))
    got, = prog.run([prog.out])
    shape = (1, 1, 1, 3) if layout == 'NHWC' else (1, 3, 1, 1)
    np.testing.assert_allclose(got, x * s.reshape(shape) + b.reshape(shape), rtol=1e-12)
    prog.check_grads()


def _bn_feeds(seed, c=3):
    rng = _rng(seed)
    return {'x': rng.standard_normal((4, c, 2, 3)), 'scale': rng.uniform(0.5, 1.5, c), 'bias': rng.standard_normal(c),
            'mean': rng.standard_normal(c), 'var': rng.uniform(0.5, 2, c)}


def _ref_bn(feeds):
    return ref_batch_norm_train(feeds['x'], feeds['scale'], feeds['bias'], feeds['mean'], feeds['var'], 0.9, 1e-5,
                                'NCHW')[0]


def _bn_build(op_type, attrs):
    def build(block, x, scale, bias, mean, var):
        return append(block, op_type, {'X': [x], 'Scale': [scale], 'Bias': [bias], 'Mean': [mean], 'Variance': [var]},
                      {'Y': 1, 'MeanOut': 1, 'VarianceOut': 1, 'SavedMean': 1, 'SavedVariance': 1}, attrs)['Y'][0]
    return build


def test_sync_batch_norm_is_batch_norm_on_one_place():
    feeds = _bn_feeds(13)
    results = []
    for op_type in ('batch_norm', 'sync_batch_norm'):
        prog = OpProgram(_bn_build(op_type, {'epsilon': 1e-5}), feeds, ('x', 'scale', 'bias'))
        results.append(prog.run([prog.out, 'x@GRAD', 'scale@GRAD', 'bias@GRAD']))
        assert op_type + '_grad' in [op.type for op in prog.main.global_block().ops]
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)
    y = _ref_bn(feeds)
    np.testing.assert_allclose(results[1][0], y, rtol=1e-10)


@pytest.mark.parametrize('act,alpha', [('identity', 1.0), ('leaky_relu', 0.1), ('elu', 1.3)])
def test_inplace_abn_is_batch_norm_then_activation_and_recovers_its_input_for_the_gradient(act, alpha):
    feeds = _bn_feeds(14)
    prog = OpProgram(_bn_build('inplace_abn', {'epsilon': 1e-5, 'activation': act, 'alpha': alpha}), feeds,
                     ('x', 'scale', 'bias'))
    got, = prog.run([prog.out])
    y = _ref_bn(feeds)
    if act == 'leaky_relu':
        y = np.where(y >= 0, y, alpha * y)
    elif act == 'elu':
        y = np.where(y >= 0, y, alpha * (np.exp(y) - 1))
    np.testing.assert_allclose(got, y, rtol=1e-10, atol=1e-12)
    prog.check_grads(rtol=1e-5, atol=1e-7)
