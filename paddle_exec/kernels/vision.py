"""Vision kernels with PaddlePaddle's semantics: affine_grid, grid_sampler, unfold / fold, pixel_unshuffle,
channel_shuffle / shuffle_channel, space_to_depth and temporal_shift (checked against paddlepaddle 1.8.5 and
2.6.2).

Permutations (pixel_unshuffle, channel_shuffle, space_to_depth, temporal_shift) are numpy reshapes, transposes and
slices; their gradients are the inverse permutations. unfold / fold are conv.py's im2col / col2im. affine_grid is
one matmul. grid_sampler is a numba loop:

- affine_grid: base grid over the output [H, W] of (x, y, 1) with x, y = linspace(-1, 1, n) (align_corners) or
  linspace(-1, 1, n) * (n - 1) / n; ``Output[n, h, w] = base[h, w] @ Theta[n]^T`` ([N, H, W, 2]).
- grid_sampler (2-D): grid (x, y) in [-1, 1] maps to pixel ``(g + 1) / 2 * (size - 1)`` (align_corners) or
  ``((g + 1) * size - 1) / 2``; padding 'zeros' (corners outside read 0), 'border' (coordinates clipped to [0,
  size - 1]) or 'reflection' (reflected about the borders -- the pixel centres without align_corners -- then
  clipped); 'bilinear' mixes the four neighbours, 'nearest' takes the one at ``nearbyint`` (half to even). The grid
  gradient is the derivative of the bilinear mix (zero for nearest), times the clip / reflection slope.
- unfold: x [N, C, H, W] -> [N, C * kh * kw, L] with paddings [top, left, bottom, right] (Paddle's order); fold
  is its adjoint, summing overlaps.
- space_to_depth (Paddle's reorg): with b = blocksize and C' = C / b^2, input channel k = (oh * b + ow) * C' +
  c2 and position (j, i) go to element (c2, j * b + oh, i * b + ow) of a [B, C', H * b, W * b] buffer that the
  op's output [B, C * b^2, H / b, W / b] reinterprets (Paddle's kernel, reproduced as is).
- temporal_shift: x [N * T, C, H, W]; channels below int(C * ratio) read frame t - 1, those below
  int(2 * C * ratio) frame t + 1, the rest frame t; frames outside [0, T) read zeros.
"""
from __future__ import annotations

import numpy as np

from .conv import _col2im, _im2col
from .jit import kernel_jit

__all__ = ['affine_grid_forward', 'affine_grid_backward', 'grid_sample_forward', 'grid_sample_backward',
           'unfold_forward', 'unfold_backward', 'pixel_unshuffle_forward', 'pixel_unshuffle_backward',
           'channel_shuffle_forward', 'channel_shuffle_backward', 'space_to_depth_forward',
           'space_to_depth_backward', 'temporal_shift_forward', 'temporal_shift_backward', 'unfold_output_size']

_jit = kernel_jit(error_model='numpy')


# ----------------------------------------------------------------------------------------------------------------
# affine_grid

def _linspace(n, align_corners, dtype):
    if n <= 1:
        return np.zeros(max(n, 1), dtype=dtype) if n == 1 else np.zeros(0, dtype=dtype)
    v = np.linspace(-1.0, 1.0, n)
    if not align_corners:
        v = v * (n - 1) / n
    return v.astype(dtype)


def _base_grid(h, w, align_corners, dtype):
    base = np.ones((h, w, 3), dtype=dtype)
    base[:, :, 0] = _linspace(w, align_corners, dtype)[None, :]
    base[:, :, 1] = _linspace(h, align_corners, dtype)[:, None]
    return base


def affine_grid_forward(theta, out_hw, align_corners=True):
    """Paddle op ``affine_grid`` (Theta [N, 2, 3] -> Output [N, H, W, 2])."""
    h, w = int(out_hw[0]), int(out_hw[1])
    base = _base_grid(h, w, align_corners, theta.dtype).reshape(1, h * w, 3)
    return np.matmul(base, np.transpose(theta, (0, 2, 1))).reshape(theta.shape[0], h, w, 2).astype(theta.dtype)


def affine_grid_backward(dout, out_hw, align_corners=True):
    """Paddle op ``affine_grid_grad``: dTheta [N, 2, 3]."""
    h, w = int(out_hw[0]), int(out_hw[1])
    base = _base_grid(h, w, align_corners, dout.dtype).reshape(h * w, 3)
    d = dout.reshape(dout.shape[0], h * w, 2)
    return np.matmul(np.transpose(d, (0, 2, 1)), base[None]).astype(dout.dtype)


# ----------------------------------------------------------------------------------------------------------------
# grid_sampler

@_jit
def _unnormalize(g, size, align_corners):
    if align_corners:
        return (g + 1.0) / 2.0 * (size - 1), (size - 1) / 2.0
    return ((g + 1.0) * size - 1.0) / 2.0, size / 2.0


@_jit
def _reflect(v, lo2, hi2):
    """Reflects v into [lo2 / 2, hi2 / 2]; returns (value, slope)."""
    if lo2 == hi2:
        return 0.0, 0.0
    lo = lo2 / 2.0
    span = (hi2 - lo2) / 2.0
    slope = 1.0
    if v < lo:
        v = lo + (lo - v)
        slope = -1.0
    extra = (v - lo) % span
    flips = int(np.floor((v - lo) / span))
    if flips % 2 == 0:
        return lo + extra, slope
    return span + lo - extra, -slope


@_jit
def _source(g, size, align_corners, padding):
    """Pixel coordinate of normalised g, and d coordinate / d g. padding: 0 zeros, 1 border, 2 reflection."""
    v, scale = _unnormalize(g, size, align_corners)
    slope = 1.0
    if padding == 2:
        if align_corners:
            v, slope = _reflect(v, 0.0, 2.0 * (size - 1))
        else:
            v, slope = _reflect(v, -1.0, 2.0 * size - 1.0)
    if padding >= 1:
        # Paddle's clip_coordinates_set_grad: the slope is 0 on and beyond the borders
        if v <= 0.0:
            v, slope = 0.0, 0.0
        elif v >= size - 1:
            v, slope = float(size - 1), 0.0
    return v, scale * slope


@_jit
def _grid_fwd(x, grid, align_corners, padding, nearest):
    n_, c_, h_, w_ = x.shape
    oh, ow = grid.shape[1], grid.shape[2]
    out = np.zeros((n_, c_, oh, ow), dtype=x.dtype)
    for n in range(n_):
        for i in range(oh):
            for j in range(ow):
                xs, _ = _source(grid[n, i, j, 0], w_, align_corners, padding)
                ys, _ = _source(grid[n, i, j, 1], h_, align_corners, padding)
                if nearest:
                    xi, yi = int(np.rint(xs)), int(np.rint(ys))
                    if 0 <= xi < w_ and 0 <= yi < h_:
                        for c in range(c_):
                            out[n, c, i, j] = x[n, c, yi, xi]
                    continue
                x0, y0 = int(np.floor(xs)), int(np.floor(ys))
                dx, dy = xs - x0, ys - y0
                for c in range(c_):
                    acc = 0.0
                    for a in range(2):
                        yy = y0 + a
                        if yy < 0 or yy >= h_:
                            continue
                        wy = dy if a == 1 else 1.0 - dy
                        for b in range(2):
                            xx = x0 + b
                            if xx < 0 or xx >= w_:
                                continue
                            wx = dx if b == 1 else 1.0 - dx
                            acc += x[n, c, yy, xx] * wy * wx
                    out[n, c, i, j] = acc
    return out


@_jit
def _grid_bwd(x, grid, dout, align_corners, padding, nearest):
    n_, c_, h_, w_ = x.shape
    oh, ow = grid.shape[1], grid.shape[2]
    dx_ = np.zeros_like(x)
    dgrid = np.zeros_like(grid)
    for n in range(n_):
        for i in range(oh):
            for j in range(ow):
                xs, sx = _source(grid[n, i, j, 0], w_, align_corners, padding)
                ys, sy = _source(grid[n, i, j, 1], h_, align_corners, padding)
                if nearest:
                    xi, yi = int(np.rint(xs)), int(np.rint(ys))
                    if 0 <= xi < w_ and 0 <= yi < h_:
                        for c in range(c_):
                            dx_[n, c, yi, xi] += dout[n, c, i, j]
                    continue
                x0, y0 = int(np.floor(xs)), int(np.floor(ys))
                fx, fy = xs - x0, ys - y0
                gx = 0.0
                gy = 0.0
                for c in range(c_):
                    g = dout[n, c, i, j]
                    for a in range(2):
                        yy = y0 + a
                        if yy < 0 or yy >= h_:
                            continue
                        wy = fy if a == 1 else 1.0 - fy
                        sgn_y = 1.0 if a == 1 else -1.0
                        for b in range(2):
                            xx = x0 + b
                            if xx < 0 or xx >= w_:
                                continue
                            wx = fx if b == 1 else 1.0 - fx
                            sgn_x = 1.0 if b == 1 else -1.0
                            v = x[n, c, yy, xx]
                            dx_[n, c, yy, xx] += g * wy * wx
                            gx += g * v * wy * sgn_x
                            gy += g * v * wx * sgn_y
                dgrid[n, i, j, 0] = gx * sx
                dgrid[n, i, j, 1] = gy * sy
    return dx_, dgrid


_PADDINGS = {'zeros': 0, 'border': 1, 'reflection': 2}


def _grid_args(mode, padding_mode):
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("grid_sampler: mode must be 'bilinear' or 'nearest', got %r" % (mode,))
    if padding_mode not in _PADDINGS:
        raise ValueError("grid_sampler: padding_mode must be 'zeros', 'border' or 'reflection', got %r"
                         % (padding_mode,))
    return _PADDINGS[padding_mode], mode == 'nearest'


def grid_sample_forward(x, grid, mode='bilinear', padding_mode='zeros', align_corners=True):
    """Paddle op ``grid_sampler`` on a 4-D x [N, C, H, W] and grid [N, Ho, Wo, 2] -> [N, C, Ho, Wo]."""
    padding, nearest = _grid_args(mode, padding_mode)
    return _grid_fwd(np.ascontiguousarray(x), np.ascontiguousarray(grid, dtype=x.dtype), bool(align_corners),
                     padding, nearest)


def grid_sample_backward(x, grid, dout, mode='bilinear', padding_mode='zeros', align_corners=True):
    """Paddle op ``grid_sampler_grad``: (dX, dGrid)."""
    padding, nearest = _grid_args(mode, padding_mode)
    return _grid_bwd(np.ascontiguousarray(x), np.ascontiguousarray(grid, dtype=x.dtype),
                     np.ascontiguousarray(dout, dtype=x.dtype), bool(align_corners), padding, nearest)


# ----------------------------------------------------------------------------------------------------------------
# unfold / fold

def unfold_output_size(in_size, k, pad_a, pad_b, stride, dilation):
    return (in_size + pad_a + pad_b - (dilation * (k - 1) + 1)) // stride + 1


def _unfold_geometry(hw, kernel_sizes, strides, paddings, dilations):
    kh, kw = kernel_sizes
    sh, sw = strides
    pt, pl, pb, pr = paddings
    dh, dw = dilations
    oh = unfold_output_size(hw[0], kh, pt, pb, sh, dh)
    ow = unfold_output_size(hw[1], kw, pl, pr, sw, dw)
    if oh <= 0 or ow <= 0:
        raise ValueError('unfold: the sliding blocks are empty (output %d x %d) for input %s, kernel %s, paddings '
                         '%s, strides %s, dilations %s' % (oh, ow, list(hw), list(kernel_sizes), list(paddings),
                                                          list(strides), list(dilations)))
    return (kh, kw, sh, sw, pt, pl, dh, dw, oh, ow)


def unfold_forward(x, kernel_sizes, strides, paddings, dilations):
    """Paddle op ``unfold`` (X [N, C, H, W] -> Y [N, C * kh * kw, L])."""
    x = np.ascontiguousarray(x)
    n = x.shape[0]
    g = _unfold_geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
    col = _im2col(x, *g)                                     # [C*kh*kw, N*L]
    return np.ascontiguousarray(col.reshape(col.shape[0], n, -1).transpose(1, 0, 2))


def unfold_backward(dy, x_shape, kernel_sizes, strides, paddings, dilations):
    """The adjoint of unfold (and Paddle's ``fold`` forward): [N, C * kh * kw, L] -> [N, C, H, W], overlaps
    summed."""
    n, c, h, w = (int(v) for v in x_shape)
    g = _unfold_geometry((h, w), kernel_sizes, strides, paddings, dilations)
    dy = np.ascontiguousarray(dy)
    col = np.ascontiguousarray(dy.transpose(1, 0, 2)).reshape(dy.shape[1], -1)
    return _col2im(col, n, c, h, w, *g)


# ----------------------------------------------------------------------------------------------------------------
# permutations

def _nchw(x, channel_last):
    return np.moveaxis(x, -1, 1) if channel_last else x


def _back(x, channel_last):
    return np.ascontiguousarray(np.moveaxis(x, 1, -1) if channel_last else x)


def pixel_unshuffle_forward(x, r: int, channel_last=False):
    """out[n, c * r * r + i * r + j, h, w] = x[n, c, h * r + i, w * r + j]."""
    xc = _nchw(x, channel_last)
    n, c, h, w = xc.shape
    out = xc.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r)
    return _back(out, channel_last)


def pixel_unshuffle_backward(dout, r: int, channel_last=False):
    dc = _nchw(dout, channel_last)
    n, crr, h, w = dc.shape
    c = crr // (r * r)
    dx = dc.reshape(n, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h * r, w * r)
    return _back(dx, channel_last)


def channel_shuffle_forward(x, groups: int, channel_last=False):
    """[N, C, ...] viewed as [N, g, C / g, ...], the two channel axes swapped."""
    xc = _nchw(x, channel_last)
    n, c = xc.shape[:2]
    rest = xc.shape[2:]
    out = xc.reshape((n, groups, c // groups) + rest).swapaxes(1, 2).reshape(xc.shape)
    return _back(out, channel_last)


def channel_shuffle_backward(dout, groups: int, channel_last=False):
    dc = _nchw(dout, channel_last)
    n, c = dc.shape[:2]
    rest = dc.shape[2:]
    dx = dc.reshape((n, c // groups, groups) + rest).swapaxes(1, 2).reshape(dc.shape)
    return _back(dx, channel_last)


def space_to_depth_forward(x, b: int):
    """Paddle op ``space_to_depth`` (see the module docstring)."""
    n, c, h, w = x.shape
    c2 = c // (b * b)
    big = x.reshape(n, b, b, c2, h, w).transpose(0, 3, 4, 1, 5, 2)          # [n, c2, j, oh, i, ow]
    return np.ascontiguousarray(big).reshape(n, c * b * b, h // b, w // b)


def space_to_depth_backward(dout, x_shape, b: int):
    n, c, h, w = (int(v) for v in x_shape)
    c2 = c // (b * b)
    big = np.ascontiguousarray(dout).reshape(n, c2, h, b, w, b)             # [n, c2, j, oh, i, ow]
    return np.ascontiguousarray(big.transpose(0, 3, 5, 1, 2, 4)).reshape(n, c, h, w)


def _shift_plan(c, ratio):
    c1 = int(c * ratio)
    c2 = int(c * 2 * ratio)
    return c1, c2


def temporal_shift_forward(x, seg_num: int, shift_ratio: float, channel_last=False):
    """Paddle op ``temporal_shift`` (see the module docstring)."""
    xc = _nchw(x, channel_last)
    nt, c, h, w = xc.shape
    x5 = xc.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = _shift_plan(c, shift_ratio)
    out = np.zeros_like(x5)
    out[:, 1:, :c1] = x5[:, :-1, :c1]
    out[:, :-1, c1:c2] = x5[:, 1:, c1:c2]
    out[:, :, c2:] = x5[:, :, c2:]
    return _back(out.reshape(nt, c, h, w), channel_last)


def temporal_shift_backward(dout, seg_num: int, shift_ratio: float, channel_last=False):
    dc = _nchw(dout, channel_last)
    nt, c, h, w = dc.shape
    d5 = dc.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = _shift_plan(c, shift_ratio)
    dx = np.zeros_like(d5)
    dx[:, :-1, :c1] = d5[:, 1:, :c1]
    dx[:, 1:, c1:c2] = d5[:, :-1, c1:c2]
    dx[:, :, c2:] = d5[:, :, c2:]
    return _back(dx.reshape(nt, c, h, w), channel_last)
