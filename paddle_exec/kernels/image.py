"""Padding, resizing and pixel-shuffle kernels with PaddlePaddle's semantics (``pad``, ``pad2d``, ``pad3d``,
``bilinear_interp`` / ``nearest_interp`` and their ``_v2`` forms, ``pixel_shuffle``).

Design: every spatial op here is a *gather along each spatial axis*. Plain Python computes, once per call and per
axis, the source index of every output position (and, for bilinear, the two neighbours and their weights) with
Paddle's exact arithmetic; one numba kernel then walks the output. The gradient is the transposed walk: the same
indices, scatter-added. That keeps the mode-specific rules (reflect, edge, align_corners, ...) in small, readable
functions and the loops mode-free.

pad modes (``pad2d``: constant / reflect / edge; ``pad3d``: constant / reflect / replicate / circular): an output
position ``o`` of an axis of input size ``n`` with ``before`` padding reads ``i = o - before``; reflect mirrors
without repeating the edge (``-i``, ``2 * (n - 1) - i``), edge/replicate clamps, circular wraps, constant reads
nothing (index -1) and writes ``value``. Paddle requires reflect paddings to be smaller than the input size.

interpolation (Paddle 1.8 ``interpolate_op.h`` and 2.x ``interpolate_v2``, CPU), per axis, ``in`` -> ``out``:

- ``ratio = 0`` when ``out <= 1``; else ``(in - 1) / (out - 1)`` with ``align_corners``; else v1: ``in / out``,
  v2: ``1 / scale`` when a positive scale was given, else ``in / out``. ``ratio`` is a C++ float.
- bilinear: ``align_flag = align_mode == 0 and not align_corners``; the low neighbour is ``int(ratio * (k + 0.5)
  - 0.5)`` (computed in double) with align_flag, else ``int(ratio * k)`` (float), clamped at 0; the high one is
  ``min(low + 1, in - 1)``; the weight of the high one is ``max(ratio * (k + 0.5) - 0.5, 0) - low`` (float) with
  align_flag, else ``ratio * k - low``. All of it is reproduced in float32/float64 as the C++ does.
- nearest: source ``int(ratio * k + 0.5)`` with align_corners, else ``int(ratio * k)``.

pixel_shuffle: ``out[n, c, h * r + i, w * r + j] = x[n, c * r * r + i * r + j, h, w]`` (NCHW); a pure
permutation, done with one numpy transpose copy as the transpose op is.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = [
    'pad_forward', 'pad_backward', 'pad_index', 'padnd_forward', 'padnd_backward',
    'interp_axis_nearest', 'interp_axis_linear', 'interp_ratio', 'interp_forward', 'interp_backward',
    'pixel_shuffle_forward', 'pixel_shuffle_backward',
]

_jit = kernel_jit(error_model='numpy')


# ----------------------------------------------------------------------------------------------------------------
# pad (constant, any rank)

def pad_forward(x, paddings, pad_value=0.0):
    """Paddle op ``pad``: ``paddings`` = [before_0, after_0, before_1, after_1, ...] (2 * rank non-negative
    ints); the border holds ``pad_value``. A block copy, so numpy's slice assignment does it."""
    pairs = _pairs(paddings, x.ndim)
    out = np.full([d + a + b for d, (a, b) in zip(x.shape, pairs)], pad_value, dtype=x.dtype)
    out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pairs))] = x
    return out


def pad_backward(dout, paddings, x_shape):
    """Paddle op ``pad_grad``: the inner block of ``dout``."""
    pairs = _pairs(paddings, len(x_shape))
    return np.ascontiguousarray(dout[tuple(slice(a, a + d) for d, (a, _) in zip(x_shape, pairs))])


def _pairs(paddings, rank):
    p = [int(v) for v in paddings]
    if len(p) != 2 * rank:
        raise ValueError('the size of paddings should be equal to 2 * the rank of X (%d), got %d' % (2 * rank, len(p)))
    return [(p[2 * i], p[2 * i + 1]) for i in range(rank)]


# ----------------------------------------------------------------------------------------------------------------
# pad2d / pad3d: per-axis source indices, one gather kernel over [B, D, H, W]

def pad_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """Source index of each of the ``before + n + after`` output positions of one axis; -1 = the pad value."""
    i = np.arange(-before, n + after, dtype=np.int64)
    if mode == 'constant':
        return np.where((i >= 0) & (i < n), i, -1)
    if mode == 'reflect':
        if before >= n or after >= n:
            raise ValueError('reflect padding needs paddings smaller than the input size %d, got %d and %d'
                             % (n, before, after))
        i = np.abs(i)
        return np.where(i >= n, 2 * (n - 1) - i, i)
    if mode in ('edge', 'replicate'):
        return np.clip(i, 0, n - 1)
    if mode == 'circular':
        return np.mod(i, n)
    raise ValueError("pad mode must be 'constant', 'reflect', 'edge'/'replicate' or 'circular', got %r" % (mode,))


@_jit
def _gather3(x4, di, hi, wi, value):
    b_, = x4.shape[:1]
    out = np.empty((b_, di.size, hi.size, wi.size), dtype=x4.dtype)
    for b in range(b_):
        for d in range(di.size):
            sd = di[d]
            for h in range(hi.size):
                sh = hi[h]
                for w in range(wi.size):
                    sw = wi[w]
                    if sd < 0 or sh < 0 or sw < 0:
                        out[b, d, h, w] = value
                    else:
                        out[b, d, h, w] = x4[b, sd, sh, sw]
    return out


@_jit
def _scatter3(dout4, di, hi, wi, d_, h_, w_):
    b_ = dout4.shape[0]
    dx = np.zeros((b_, d_, h_, w_), dtype=dout4.dtype)
    for b in range(b_):
        for d in range(di.size):
            sd = di[d]
            for h in range(hi.size):
                sh = hi[h]
                for w in range(wi.size):
                    sw = wi[w]
                    if sd >= 0 and sh >= 0 and sw >= 0:
                        dx[b, sd, sh, sw] += dout4[b, d, h, w]
    return dx


def _channels_first(x, channel_last: bool):
    if not channel_last:
        return np.ascontiguousarray(x)
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))


def _channels_back(x, channel_last: bool):
    return np.ascontiguousarray(np.moveaxis(x, 1, -1)) if channel_last else x


def _spatial_indices(spatial, pads, mode):
    """(d, h, w) index arrays for 1 to 3 spatial dims; `pads` = [(before, after)] per spatial dim."""
    idx = [pad_index(n, a, b, mode) for n, (a, b) in zip(spatial, pads)]
    while len(idx) < 3:
        idx.insert(0, np.zeros(1, dtype=np.int64))
    return idx


def padnd_forward(x, pads, mode='constant', value=0.0, channel_last=False):
    """pad2d / pad3d: ``x`` is [N, C, *spatial] (channels last when ``channel_last``), ``pads`` one (before,
    after) pair per spatial dim, in the spatial order (d, h, w)."""
    xc = _channels_first(x, channel_last)
    spatial = xc.shape[2:]
    idx = _spatial_indices(spatial, pads, mode)
    x4 = xc.reshape((xc.shape[0] * xc.shape[1],) + (1,) * (3 - len(spatial)) + spatial)
    out = _gather3(x4, idx[0], idx[1], idx[2], x.dtype.type(value))
    out = out.reshape(xc.shape[:2] + tuple(len(i) for i in idx[3 - len(spatial):]))
    return _channels_back(out, channel_last)


def padnd_backward(dout, x_shape, pads, mode='constant', channel_last=False):
    """Gradient of :func:`padnd_forward`: the scatter-add of ``dout`` through the same indices."""
    dc = _channels_first(dout, channel_last)
    xs = tuple(x_shape)
    xc_shape = (xs[0], xs[-1]) + xs[1:-1] if channel_last else xs
    spatial = xc_shape[2:]
    idx = _spatial_indices(spatial, pads, mode)
    full = (1,) * (3 - len(spatial)) + tuple(spatial)
    d4 = dc.reshape((dc.shape[0] * dc.shape[1],) + tuple(len(i) for i in idx))
    dx = _scatter3(d4, idx[0], idx[1], idx[2], *full)
    return _channels_back(dx.reshape(xc_shape), channel_last)


# ----------------------------------------------------------------------------------------------------------------
# interpolation

def interp_ratio(in_size: int, out_size: int, align_corners: bool, scale: float = 0.0) -> np.float32:
    """Paddle's float ratio from output to input coordinates (see the module docstring); ``scale`` > 0 only for
    the v2 ops given a scale."""
    if out_size <= 1:
        return np.float32(0.0)
    if align_corners:
        return np.float32(np.float32(in_size - 1) / np.float32(out_size - 1))
    if scale > 0:
        return np.float32(1.0 / np.float64(np.float32(scale)))
    return np.float32(np.float32(in_size) / np.float32(out_size))


def interp_axis_nearest(in_size, out_size, align_corners, ratio):
    k = np.arange(out_size, dtype=np.float32)
    pos = ratio * k
    if align_corners:
        pos = pos + np.float32(0.5)
    return np.minimum(pos.astype(np.int64), in_size - 1)


def interp_axis_linear(in_size, out_size, align_corners, align_mode, ratio, dtype):
    """(low index, high index, weight of low, weight of high) per output position of one axis."""
    align_flag = align_mode == 0 and not align_corners
    k = np.arange(out_size)
    centre = np.float64(ratio) * (k + 0.5) - 0.5                      # C++: float * double -> double
    plain = ratio * k.astype(np.float32)                               # float * int -> float
    low = (centre if align_flag else plain).astype(np.int64)           # static_cast<int> truncates to zero
    low = np.maximum(low, 0)
    high = np.minimum(low + 1, in_size - 1)
    if align_flag:
        src = np.maximum(centre.astype(np.float32), np.float32(0))
        w_high = src - low.astype(np.float32)
    else:
        w_high = plain - low.astype(np.float32)
    w_low = np.float32(1) - w_high
    return low, high, w_low.astype(dtype), w_high.astype(dtype)


@_jit
def _nearest_fwd(x3, hi, wi):
    b_ = x3.shape[0]
    out = np.empty((b_, hi.size, wi.size), dtype=x3.dtype)
    for b in range(b_):
        for k in range(hi.size):
            for m in range(wi.size):
                out[b, k, m] = x3[b, hi[k], wi[m]]
    return out


@_jit
def _nearest_bwd(d3, hi, wi, h_, w_):
    b_ = d3.shape[0]
    dx = np.zeros((b_, h_, w_), dtype=d3.dtype)
    for b in range(b_):
        for k in range(hi.size):
            for m in range(wi.size):
                dx[b, hi[k], wi[m]] += d3[b, k, m]
    return dx


@_jit
def _bilinear_fwd(x3, yn, ys, ds, dn, xw, xe, de, dw):
    # ds/dn: weights of the low (north) and high (south) rows; de/dw: of the low (west) and high (east) columns
    b_ = x3.shape[0]
    out = np.empty((b_, yn.size, xw.size), dtype=x3.dtype)
    for b in range(b_):
        for k in range(yn.size):
            for m in range(xw.size):
                out[b, k, m] = (x3[b, yn[k], xw[m]] * ds[k] * de[m] + x3[b, ys[k], xw[m]] * dn[k] * de[m]
                                + x3[b, yn[k], xe[m]] * ds[k] * dw[m] + x3[b, ys[k], xe[m]] * dn[k] * dw[m])
    return out


@_jit
def _bilinear_bwd(d3, yn, ys, ds, dn, xw, xe, de, dw, h_, w_):
    b_ = d3.shape[0]
    dx = np.zeros((b_, h_, w_), dtype=d3.dtype)
    for b in range(b_):
        for k in range(yn.size):
            for m in range(xw.size):
                g = d3[b, k, m]
                dx[b, yn[k], xw[m]] += ds[k] * de[m] * g
                dx[b, ys[k], xw[m]] += dn[k] * de[m] * g
                dx[b, yn[k], xe[m]] += ds[k] * dw[m] * g
                dx[b, ys[k], xe[m]] += dn[k] * dw[m] * g
    return dx


def _interp_tables(method, in_hw, out_hw, align_corners, align_mode, scales, dtype):
    tables = []
    for n, o, s in zip(in_hw, out_hw, scales):
        ratio = interp_ratio(n, o, align_corners, s)
        if method == 'nearest':
            tables.append((interp_axis_nearest(n, o, align_corners, ratio),))
        else:
            tables.append(interp_axis_linear(n, o, align_corners, align_mode, ratio, dtype))
    return tables


def _check_method(method):
    if method not in ('bilinear', 'nearest'):
        raise NotImplementedError("interpolation method %r is not supported (bilinear and nearest are)" % (method,))


def interp_forward(x, out_hw, method='bilinear', align_corners=True, align_mode=1, scales=(0.0, 0.0),
                   channel_last=False):
    """bilinear_interp / nearest_interp (and _v2) on a 4-D ``x``; ``scales`` (h, w) > 0 only for the v2 ratio."""
    _check_method(method)
    xc = _channels_first(x, channel_last)
    n, c, h, w = xc.shape
    oh, ow = out_hw
    th, tw = _interp_tables(method, (h, w), (oh, ow), align_corners, align_mode, scales, x.dtype)
    x3 = xc.reshape(n * c, h, w)
    if method == 'nearest':
        out = _nearest_fwd(x3, th[0], tw[0])
    else:
        out = _bilinear_fwd(x3, th[0], th[1], th[2], th[3], tw[0], tw[1], tw[2], tw[3])
    return _channels_back(out.reshape(n, c, oh, ow), channel_last)


def interp_backward(dout, x_shape, method='bilinear', align_corners=True, align_mode=1, scales=(0.0, 0.0),
                    channel_last=False):
    _check_method(method)
    dc = _channels_first(dout, channel_last)
    n, c, oh, ow = dc.shape
    h, w = (x_shape[1], x_shape[2]) if channel_last else (x_shape[2], x_shape[3])
    th, tw = _interp_tables(method, (h, w), (oh, ow), align_corners, align_mode, scales, dout.dtype)
    d3 = dc.reshape(n * c, oh, ow)
    if method == 'nearest':
        dx = _nearest_bwd(d3, th[0], tw[0], h, w)
    else:
        dx = _bilinear_bwd(d3, th[0], th[1], th[2], th[3], tw[0], tw[1], tw[2], tw[3], h, w)
    return _channels_back(dx.reshape(n, c, h, w), channel_last)


# ----------------------------------------------------------------------------------------------------------------
# pixel_shuffle

def pixel_shuffle_forward(x, r: int, channel_last=False):
    xc = _channels_first(x, channel_last)
    n, c, h, w = xc.shape
    oc = c // (r * r)
    out = xc.reshape(n, oc, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, oc, h * r, w * r)
    return _channels_back(np.ascontiguousarray(out), channel_last)


def pixel_shuffle_backward(dout, r: int, channel_last=False):
    dc = _channels_first(dout, channel_last)
    n, oc, hr, wr = dc.shape
    h, w = hr // r, wr // r
    dx = dc.reshape(n, oc, h, r, w, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, oc * r * r, h, w)
    return _channels_back(np.ascontiguousarray(dx), channel_last)
