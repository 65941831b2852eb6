"""conv3d, conv3d_transpose, pool3d, max_pool3d_with_index and unpool kernels: naive numpy references (padding with
np.pad, windows by slicing, written independently of the kernels) and finite-difference gradients. Real Paddle's
numbers for the same ops are checked in tests/api/test_nn_golden.py."""
import numpy as np
import pytest

from paddle_exec.kernels import conv3d as K
from tests.kernels.gradcheck import check_grad, numeric_grad

FLT_MAX = float(np.finfo(np.float32).max)


def _rng(seed=0):
    return np.random.default_rng(seed)


def distinct(shape, seed=0):
    """Values spaced 0.01 apart: max pooling stays differentiable under finite differences."""
    n = int(np.prod(shape))
    return (_rng(seed).permutation(n).reshape(shape) * 0.01 - n * 0.005).astype(np.float64)


def ref_conv3d(x, w, strides, pads, dilations, groups):
    """pads = (front, back, top, bottom, left, right)."""
    n, c = x.shape[:2]
    oc, cg = w.shape[:2]
    ks = w.shape[2:]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0)) + tuple((pads[2 * i], pads[2 * i + 1]) for i in range(3)))
    ext = [dilations[i] * (ks[i] - 1) + 1 for i in range(3)]
    out_sp = [(xp.shape[2 + i] - ext[i]) // strides[i] + 1 for i in range(3)]
    m = oc // groups
    out = np.zeros((n, oc) + tuple(out_sp))
    for o in range(oc):
        g = o // m
        for a in range(out_sp[0]):
            for i in range(out_sp[1]):
                for j in range(out_sp[2]):
                    z, y, xo = a * strides[0], i * strides[1], j * strides[2]
                    patch = xp[:, g * cg:(g + 1) * cg, z:z + ext[0]:dilations[0], y:y + ext[1]:dilations[1],
                               xo:xo + ext[2]:dilations[2]]
                    out[:, o, a, i, j] = np.sum(patch * w[o], axis=(1, 2, 3, 4))
    return out


def ref_conv3d_transpose(x, w, strides, pads, dilations, groups):
    """Scatter of every input element times the filter; pads cut from the full result."""
    n, c_in = x.shape[:2]
    ks = w.shape[2:]
    og = w.shape[1]
    full = [(x.shape[2 + i] - 1) * strides[i] + dilations[i] * (ks[i] - 1) + 1 for i in range(3)]
    out = np.zeros((n, og * groups) + tuple(full))
    m = c_in // groups
    for ci in range(c_in):
        g = ci // m
        for a in range(x.shape[2]):
            for i in range(x.shape[3]):
                for j in range(x.shape[4]):
                    for kz in range(ks[0]):
                        for ky in range(ks[1]):
                            for kx in range(ks[2]):
                                z = a * strides[0] + kz * dilations[0]
                                y = i * strides[1] + ky * dilations[1]
                                xo = j * strides[2] + kx * dilations[2]
                                out[:, g * og:(g + 1) * og, z, y, xo] += (x[:, ci, a, i, j][:, None]
                                                                          * w[ci, :, kz, ky, kx][None, :])
    return out[:, :, pads[0]:full[0] - pads[1], pads[2]:full[1] - pads[3], pads[4]:full[2] - pads[5]]


def ref_pool3d(x, ksize, kind, strides, pads, ceil_mode=False, exclusive=True):
    n, c = x.shape[:2]
    sp = x.shape[2:]
    out_sp = [(sp[i] - ksize[i] + pads[2 * i] + pads[2 * i + 1] + (strides[i] - 1 if ceil_mode else 0))
              // strides[i] + 1 for i in range(3)]
    out = np.zeros((n, c) + tuple(out_sp))
    for a in range(out_sp[0]):
        for i in range(out_sp[1]):
            for j in range(out_sp[2]):
                s = [a * strides[0] - pads[0], i * strides[1] - pads[2], j * strides[2] - pads[4]]
                win = x[:, :, max(s[0], 0):min(s[0] + ksize[0], sp[0]), max(s[1], 0):min(s[1] + ksize[1], sp[1]),
                        max(s[2], 0):min(s[2] + ksize[2], sp[2])].astype(np.float64)
                if kind == 'max':
                    out[:, :, a, i, j] = win.max(axis=(2, 3, 4)) if win.size else -FLT_MAX
                else:
                    size = win[0, 0].size if exclusive else int(np.prod(ksize))
                    out[:, :, a, i, j] = win.sum(axis=(2, 3, 4)) / size
    return out


def ref_adaptive_avg3d(x, out_sp):
    sp = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(out_sp))
    for idx in np.ndindex(*out_sp):
        sl = tuple(slice((o * s) // t, -((-(o + 1) * s) // t)) for o, s, t in zip(idx, sp, out_sp))
        out[(slice(None), slice(None)) + idx] = x[(slice(None), slice(None)) + sl].mean(axis=(2, 3, 4))
    return out


# ----------------------------------------------------------------------------------------------------------------
# conv3d

CONV_CASES = [
    # x shape, filter shape, strides, paddings, dilations, groups, algorithm
    ((2, 3, 5, 6, 4), (4, 3, 3, 2, 3), [1, 1, 1], [1, 0, 1], [1, 1, 1], 1, 'EXPLICIT'),
    ((1, 4, 6, 5, 7), (6, 2, 2, 3, 2), [2, 1, 2], [1, 0, 2, 1, 0, 1], [1, 2, 1], 2, 'EXPLICIT'),
    ((1, 2, 5, 5, 6), (3, 2, 3, 3, 2), [2, 2, 1], [0, 0, 0], [2, 2, 2], 1, 'SAME'),
    ((1, 2, 5, 6, 5), (3, 2, 2, 2, 3), [1, 2, 1], [3, 3, 3], [1, 1, 1], 1, 'VALID'),
]


@pytest.mark.parametrize('case', CONV_CASES)
def test_conv3d_forward_matches_reference(case):
    xs, ws, st, pads, dil, groups, algo = case
    x, w = _rng(1).standard_normal(xs), _rng(2).standard_normal(ws)
    got = K.conv3d_forward(x, w, st, pads, dil, groups, algo)
    full = K.resolve_paddings_nd(pads, algo, xs[2:], ws[2:], st)
    want = ref_conv3d(x, w, st, full, [1, 1, 1] if algo == 'SAME' else dil, groups)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv3d_ndhwc_equals_ncdhw():
    x, w = _rng(3).standard_normal((2, 3, 4, 5, 4)).astype(np.float32), _rng(4).standard_normal((2, 3, 2, 2, 2))
    want = K.conv3d_forward(x, w, 1, [1, 0, 1])
    got = K.conv3d_forward(x.transpose(0, 2, 3, 4, 1), w, 1, [1, 0, 1], data_format='NDHWC')
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 4, 1), rtol=1e-6)


@pytest.mark.parametrize('case', CONV_CASES[:3])
def test_conv3d_backward_finite_difference(case):
    xs, ws, st, pads, dil, groups, algo = case
    x, w = _rng(5).standard_normal(xs), _rng(6).standard_normal(ws)
    out = K.conv3d_forward(x, w, st, pads, dil, groups, algo)
    proj = _rng(7).standard_normal(out.shape)
    dx, dw = K.conv3d_backward(x, w, proj, st, pads, dil, groups, algo)
    loss = lambda x, w: float(np.sum(K.conv3d_forward(x, w, st, pads, dil, groups, algo) * proj))  # noqa: E731
    check_grad(dx, numeric_grad(loss, [x, w], 0), name='dx')
    check_grad(dw, numeric_grad(loss, [x, w], 1), name='dw')


def test_conv3d_bad_geometry_raises():
    with pytest.raises(ValueError, match='do not match'):
        K.conv3d_forward(np.zeros((1, 3, 4, 4, 4)), np.zeros((2, 2, 1, 1, 1)))
    with pytest.raises(ValueError, match='must be positive'):
        K.conv3d_forward(np.zeros((1, 1, 2, 4, 4)), np.zeros((1, 1, 3, 1, 1)))


# ----------------------------------------------------------------------------------------------------------------
# conv3d_transpose

T_CASES = [
    ((2, 4, 3, 2, 3), (4, 3, 2, 3, 2), [1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 1], 1),
    ((1, 4, 2, 3, 2), (4, 2, 3, 2, 2), [2, 1, 2], [1, 0, 0, 1, 1, 1], [1, 2, 1], 2),
]


@pytest.mark.parametrize('case', T_CASES)
def test_conv3d_transpose_matches_reference_and_gradients(case):
    xs, ws, st, pads, dil, groups = case
    x, w = _rng(8).standard_normal(xs), _rng(9).standard_normal(ws)
    got = K.conv3d_transpose_forward(x, w, st, pads, dil, groups)
    np.testing.assert_allclose(got, ref_conv3d_transpose(x, w, st, pads, dil, groups), rtol=1e-10, atol=1e-10)
    proj = _rng(10).standard_normal(got.shape)
    dx, dw = K.conv3d_transpose_backward(x, w, proj, st, pads, dil, groups)
    loss = lambda x, w: float(np.sum(K.conv3d_transpose_forward(x, w, st, pads, dil, groups) * proj))  # noqa: E731
    check_grad(dx, numeric_grad(loss, [x, w], 0), name='dx')
    check_grad(dw, numeric_grad(loss, [x, w], 1), name='dw')


def test_conv3d_transpose_output_size_and_padding():
    x, w = np.ones((1, 1, 3, 3, 3)), np.ones((1, 1, 3, 3, 3))
    assert K.conv3d_transpose_forward(x, w, 2).shape == (1, 1, 7, 7, 7)
    assert K.conv3d_transpose_forward(x, w, 2, output_size=[8, 7, 8]).shape == (1, 1, 8, 7, 8)
    assert K.conv3d_transpose_forward(x, w, 2, output_padding=[1, 0, 1]).shape == (1, 1, 8, 7, 8)
    with pytest.raises(ValueError, match='output_size'):
        K.conv3d_transpose_forward(x, w, 2, output_size=[9, 7, 7])


# ----------------------------------------------------------------------------------------------------------------
# pool3d

POOL_CASES = [
    # ksize, kind, strides, pads, ceil_mode, exclusive
    ([2, 2, 2], 'max', [2, 2, 2], [0, 0, 0, 0, 0, 0], False, True),
    ([3, 2, 3], 'avg', [2, 1, 2], [1, 1, 0, 0, 1, 1], False, True),
    ([3, 3, 2], 'avg', [2, 2, 2], [1, 1, 1, 1, 0, 0], True, False),
    ([2, 3, 3], 'max', [1, 2, 2], [0, 1, 1, 0, 1, 1], True, True),
]


@pytest.mark.parametrize('case', POOL_CASES)
def test_pool3d_matches_reference_and_gradients(case):
    ksize, kind, st, pads, ceil_mode, exclusive = case
    x = distinct((2, 2, 5, 6, 5), seed=3)
    out = K.pool3d_forward(x, ksize, kind, st, pads, ceil_mode=ceil_mode, exclusive=exclusive)
    np.testing.assert_allclose(out, ref_pool3d(x, ksize, kind, st, pads, ceil_mode, exclusive), rtol=1e-12)
    proj = _rng(11).standard_normal(out.shape)
    dx = K.pool3d_backward(x, out, proj, ksize, kind, st, pads, ceil_mode=ceil_mode, exclusive=exclusive)
    loss = lambda x: float(np.sum(K.pool3d_forward(x, ksize, kind, st, pads, ceil_mode=ceil_mode,  # noqa: E731
                                                   exclusive=exclusive) * proj))
    check_grad(dx, numeric_grad(loss, [x], 0, eps=1e-4), rtol=1e-4, atol=1e-6)


def test_pool3d_global_adaptive_and_ndhwc():
    x = _rng(12).standard_normal((2, 3, 4, 5, 6))
    np.testing.assert_allclose(K.pool3d_forward(x, 1, 'avg', global_pooling=True)[..., 0, 0, 0],
                               x.mean(axis=(2, 3, 4)))
    got = K.pool3d_forward(x, [2, 3, 4], 'avg', adaptive=True)
    np.testing.assert_allclose(got, ref_adaptive_avg3d(x, [2, 3, 4]), rtol=1e-12)
    nd = K.pool3d_forward(x.transpose(0, 2, 3, 4, 1), 2, 'max', 2, data_format='NDHWC')
    np.testing.assert_allclose(nd, K.pool3d_forward(x, 2, 'max', 2).transpose(0, 2, 3, 4, 1))
    proj = _rng(13).standard_normal(got.shape)
    dx = K.pool3d_backward(x, got, proj, [2, 3, 4], 'avg', adaptive=True)
    loss = lambda x: float(np.sum(K.pool3d_forward(x, [2, 3, 4], 'avg', adaptive=True) * proj))  # noqa: E731
    check_grad(dx, numeric_grad(loss, [x], 0))


def test_max_pool3d_with_index_mask_and_gradient():
    x = distinct((1, 2, 4, 4, 5), seed=4)
    out, mask = K.max_pool3d_with_index_forward(x, [2, 2, 2], [2, 2, 2], [0, 0, 1])
    flat = x.reshape(1, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.reshape(1, 2, -1), 2).reshape(out.shape), out)
    np.testing.assert_allclose(out, ref_pool3d(x, [2, 2, 2], 'max', [2, 2, 2], [0, 0, 0, 0, 1, 1]))
    adaptive, amask = K.max_pool3d_with_index_forward(x, [3, 2, 2], adaptive=True)
    assert adaptive.shape == (1, 2, 3, 2, 2) and amask.dtype == np.int32
    proj = _rng(14).standard_normal(out.shape)
    dx = K.max_pool3d_with_index_backward(proj, mask, x.shape)
    loss = lambda x: float(np.sum(K.max_pool3d_with_index_forward(x, [2, 2, 2], [2, 2, 2],  # noqa: E731
                                                                  [0, 0, 1])[0] * proj))
    check_grad(dx, numeric_grad(loss, [x], 0, eps=1e-4), rtol=1e-4, atol=1e-6)


# ----------------------------------------------------------------------------------------------------------------
# unpool

def test_unpool_inverts_max_pool_with_index_and_gradient():
    x = distinct((2, 3, 4, 6), seed=5)
    from paddle_exec.kernels import conv as K2
    out, mask = K2.max_pool2d_with_index_forward(x, [2, 2], [2, 2])
    up = K.unpool_forward(out, mask, (4, 6))
    want = np.zeros_like(x)
    for n, c, i in np.ndindex(2, 3, out[0, 0].size):
        want[n, c].reshape(-1)[mask[n, c].reshape(-1)[i]] = out[n, c].reshape(-1)[i]
    np.testing.assert_array_equal(up, want)
    proj = _rng(15).standard_normal(up.shape)
    dx = K.unpool_backward(proj, mask, out.shape)
    loss = lambda v: float(np.sum(K.unpool_forward(v, mask, (4, 6)) * proj))  # noqa: E731
    check_grad(dx, numeric_grad(loss, [out], 0))
    with pytest.raises(IndexError):
        K.unpool_forward(out, mask + 100, (4, 6))
