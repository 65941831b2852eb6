"""affine_grid, grid_sampler, unfold, fold, pixel_unshuffle, channel_shuffle, shuffle_channel, space_to_depth and
temporal_shift through small programs: numpy references written element by element from Paddle's formulas (the
kernels use reshapes and vectorised loops), and finite-difference gradients (shuffle_channel: Paddle's formula).
Real Paddle's numbers: tests/api/test_nn_golden.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def one_op(op_type, feeds, inputs, attrs, out_slot='Out', wrt=('x',)):
    def build(block, **vs):
        return append(block, op_type, {s: [vs[n]] for s, n in inputs.items()}, {out_slot: 1}, attrs)[out_slot][0]
    return OpProgram(build, feeds, wrt)


# ---------------------------------------------------------------------------------------------------------------
# affine_grid, grid_sampler

def ref_affine_grid(theta, h, w, align_corners):
    def lin(n):
        v = np.linspace(-1, 1, n)
        return v if align_corners else v * (n - 1) / n
    out = np.zeros((theta.shape[0], h, w, 2))
    for n in range(theta.shape[0]):
        for i, y in enumerate(lin(h)):
            for j, x in enumerate(lin(w)):
                out[n, i, j] = theta[n] @ np.array([x, y, 1.0])
    return out


@pytest.mark.parametrize('align_corners', [True, False])
def test_affine_grid_forward_and_theta_gradient(align_corners):
    theta = _rng(1).standard_normal((2, 2, 3))
    prog = one_op('affine_grid', {'x': theta}, {'Theta': 'x'},
                  {'output_shape': [2, 1, 3, 4], 'align_corners': align_corners}, 'Output')
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_affine_grid(theta, 3, 4, align_corners), rtol=1e-12)
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads()


def ref_grid_sample_bilinear_zeros(x, grid, align_corners):
    n_, c_, h_, w_ = x.shape
    out = np.zeros((n_, c_) + grid.shape[1:3])
    for n, i, j in np.ndindex(n_, *grid.shape[1:3]):
        gx, gy = grid[n, i, j]
        if align_corners:
            px, py = (gx + 1) / 2 * (w_ - 1), (gy + 1) / 2 * (h_ - 1)
        else:
            px, py = ((gx + 1) * w_ - 1) / 2, ((gy + 1) * h_ - 1) / 2
        x0, y0 = math.floor(px), math.floor(py)
        for yy, wy in ((y0, 1 - (py - y0)), (y0 + 1, py - y0)):
            for xx, wx in ((x0, 1 - (px - x0)), (x0 + 1, px - x0)):
                if 0 <= yy < h_ and 0 <= xx < w_:
                    out[n, :, i, j] += x[n, :, yy, xx] * wy * wx
    return out


@pytest.mark.parametrize('align_corners', [True, False])
def test_grid_sampler_bilinear_zeros_forward_and_gradients(align_corners):
    rng = _rng(2)
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.2, 1.2, (2, 3, 4, 2))             # some points fall outside
    prog = one_op('grid_sampler', {'x': x, 'g': grid}, {'X': 'x', 'Grid': 'g'},
                  {'align_corners': align_corners}, 'Output', wrt=('x', 'g'))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_grid_sample_bilinear_zeros(x, grid, align_corners), rtol=1e-12)
    prog.check_grads(rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('padding', ['border', 'reflection'])
def test_grid_sampler_border_and_reflection_padding(padding):
    rng = _rng(3)
    x = rng.standard_normal((1, 2, 4, 5))
    grid = rng.uniform(-1.6, 1.6, (1, 3, 3, 2))
    prog = one_op('grid_sampler', {'x': x, 'g': grid}, {'X': 'x', 'Grid': 'g'},
                  {'align_corners': True, 'padding_mode': padding}, 'Output', wrt=('x', 'g'))
    got, = prog.run([prog.out])
    # the same samples taken at coordinates first clipped / reflected into the image
    sizes = np.array([5, 4])
    pix = (grid + 1) / 2 * (sizes - 1)
    if padding == 'reflection':
        span = sizes - 1
        pix = np.abs(pix)
        flips = np.floor(pix / span)
        extra = np.mod(pix, span)
        pix = np.where(flips % 2 == 0, extra, span - extra)
    pix = np.clip(pix, 0, sizes - 1)
    want = ref_grid_sample_bilinear_zeros(x, pix / (sizes - 1) * 2 - 1, True)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    prog.check_grads(rtol=1e-5, atol=1e-7)


def test_grid_sampler_nearest_reads_the_nearest_pixel_and_has_no_grid_gradient():
    rng = _rng(4)
    x = rng.standard_normal((1, 2, 4, 5))
    grid = rng.uniform(-0.9, 0.9, (1, 2, 3, 2))
    prog = one_op('grid_sampler', {'x': x, 'g': grid}, {'X': 'x', 'Grid': 'g'},
                  {'mode': 'nearest'}, 'Output', wrt=('x', 'g'))
    got, dgrid = prog.run([prog.out, 'g@GRAD'])
    px = np.rint((grid[..., 0] + 1) / 2 * 4).astype(int)
    py = np.rint((grid[..., 1] + 1) / 2 * 3).astype(int)
    np.testing.assert_array_equal(got, x[0][:, py[0], px[0]][None])
    np.testing.assert_array_equal(dgrid, np.zeros_like(grid))
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# unfold / fold

def ref_unfold(x, k, s, p, d):
    """p = [top, left, bottom, right]."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
    oh = (h + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) // s[0] + 1
    ow = (w + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) // s[1] + 1
    out = np.zeros((n, c * k[0] * k[1], oh * ow))
    for ci, i, j, y, xo in np.ndindex(c, k[0], k[1], oh, ow):
        out[:, (ci * k[0] + i) * k[1] + j, y * ow + xo] = xp[:, ci, y * s[0] + i * d[0], xo * s[1] + j * d[1]]
    return out


def test_unfold_forward_gradients_and_fold_as_its_adjoint():
    x = _rng(5).standard_normal((2, 2, 5, 6))
    attrs = {'kernel_sizes': [2, 3], 'strides': [2, 1], 'paddings': [1, 0, 0, 2], 'dilations': [1, 2]}
    prog = one_op('unfold', {'x': x}, {'X': 'x'}, attrs, 'Y')
    cols, = prog.run([prog.out])
    np.testing.assert_allclose(cols, ref_unfold(x, [2, 3], [2, 1], [1, 0, 0, 2], [1, 2]), rtol=1e-12)
    assert tuple(prog.out.shape) == cols.shape
    prog.check_grads()
    y = _rng(6).standard_normal(cols.shape)
    fold = one_op('fold', {'x': y}, {'X': 'x'}, {**attrs, 'output_sizes': [5, 6]}, 'Y')
    folded, = fold.run([fold.out])
    # <unfold(x), y> == <x, fold(y)>
    np.testing.assert_allclose(np.sum(cols * y), np.sum(x * folded), rtol=1e-10)
    fold.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# permutations

def test_pixel_unshuffle_forward_and_gradient():
    x = _rng(7).standard_normal((2, 3, 4, 6))
    prog = one_op('pixel_unshuffle', {'x': x}, {'X': 'x'}, {'downscale_factor': 2})
    got, = prog.run([prog.out])
    want = np.zeros((2, 12, 2, 3))
    for n, c, i, j, h, w in np.ndindex(2, 3, 2, 2, 2, 3):
        want[n, c * 4 + i * 2 + j, h, w] = x[n, c, h * 2 + i, w * 2 + j]
    np.testing.assert_array_equal(got, want)
    prog.check_grads()


def test_channel_shuffle_forward_and_gradient_and_shuffle_channels_paddle_gradient():
    x = _rng(8).standard_normal((2, 6, 2, 3))
    want = np.zeros_like(x)
    for c in range(6):                                   # out[j * g + i] = x[i * (C / g) + j], g = 3
        i, j = divmod(c, 2)
        want[:, j * 3 + i] = x[:, c]
    prog = one_op('channel_shuffle', {'x': x}, {'X': 'x'}, {'groups': 3})
    np.testing.assert_array_equal(prog.run([prog.out])[0], want)
    prog.check_grads()
    legacy = one_op('shuffle_channel', {'x': x}, {'X': 'x'}, {'group': 3})
    out, dx = legacy.run([legacy.out, 'x@GRAD'])
    np.testing.assert_array_equal(out, want)
    # Paddle 1.8's shuffle_channel_grad applies the forward permutation to the output gradient
    dout = legacy.proj / legacy.proj.size
    shuffled = np.zeros_like(dout)
    for c in range(6):
        i, j = divmod(c, 2)
        shuffled[:, j * 3 + i] = dout[:, c]
    np.testing.assert_allclose(dx, shuffled, rtol=1e-12)


def test_space_to_depth_is_paddles_reorg():
    x = _rng(9).standard_normal((2, 8, 4, 6))
    prog = one_op('space_to_depth', {'x': x}, {'X': 'x'}, {'blocksize': 2})
    got, = prog.run([prog.out])
    b, c, h, w, bs = 2, 8, 4, 6, 2
    flat_out = np.zeros(x.size)
    out_c = c // (bs * bs)
    for idx in range(x.size):
        n, k, j, i = np.unravel_index(idx, x.shape)
        c2, offset = k % out_c, k // out_c
        w2, h2 = i * bs + offset % bs, j * bs + offset // bs
        flat_out[w2 + w * bs * (h2 + h * bs * (c2 + out_c * n))] = x.reshape(-1)[idx]
    np.testing.assert_array_equal(got, flat_out.reshape(b, c * bs * bs, h // bs, w // bs))
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads()


@pytest.mark.parametrize('ratio,layout', [(0.25, 'NCHW'), (0.2, 'NHWC')])
def test_temporal_shift_forward_and_gradient(ratio, layout):
    x = _rng(10).standard_normal((6, 8, 2, 3))
    xc = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if layout == 'NHWC' else x
    prog = one_op('temporal_shift', {'x': xc}, {'X': 'x'}, {'seg_num': 3, 'shift_ratio': ratio, 'data_format': layout})
    got, = prog.run([prog.out])
    if layout == 'NHWC':
        got = got.transpose(0, 3, 1, 2)
    c1, c2 = int(8 * ratio), int(16 * ratio)
    want = np.zeros_like(x)
    for i in range(6):
        t = i % 3
        for c in range(8):
            src = t - 1 if c < c1 else t + 1 if c < c2 else t
            if 0 <= src < 3:
                want[i, c] = x[i - t + src, c]
    np.testing.assert_array_equal(got, want)
    prog.check_grads()
