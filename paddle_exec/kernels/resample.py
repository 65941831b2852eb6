"""Separable resampling: Paddle's linear / trilinear / bicubic / nearest interpolation along any of 1 to 3 spatial
axes (``linear_interp``, ``trilinear_interp``, ``bicubic_interp``, 3-D and 5-D ``nearest_interp`` and their ``_v2``
forms). The 4-D bilinear and nearest ops keep their own kernels (image.py); the per-axis rules are shared.

Design: each of these interpolations is a product of one-axis filters, so the output is computed one spatial axis
at a time, innermost (W) first, as Paddle's bicubic kernel nests its loops: for each axis plain Python builds a
table of `taps` source indices and weights per output position (nearest: 1 tap, linear: 2, cubic: 4) with
Paddle's arithmetic, and one numba loop applies it to the array viewed as [outer, n_in, inner]. The gradient is
the transposed walk (scatter-add with the same tables), axis by axis in reverse order.

Per-axis rules (Paddle's CPU kernels, 1.8 interpolate_op.h and 2.x interpolate_kernel.cc):
- the ratio is in image.py's `interp_ratio` (align_corners: (in - 1) / (out - 1); v2 with a scale: 1 / scale;
  else in / out; 0 when out <= 1);
- linear: image.py's `interp_axis_linear` (align_mode 0 without align_corners samples at pixel centres);
- nearest: `int(ratio * k + 0.5)` with align_corners, else `int(ratio * k)`;
- cubic (A = -0.75): source ``s = ratio * k`` (align_corners) or ``ratio * (k + 0.5) - 0.5``, ``i = floor(s)``,
  ``t = s - i``; taps ``i - 1 .. i + 2`` clamped to [0, in - 1] with weights ``conv2(t + 1), conv1(t), conv1(1 -
  t), conv2(2 - t)``, ``conv1(x) = ((A + 2) x - (A + 3)) x^2 + 1``, ``conv2(x) = ((A x - 5A) x + 8A) x - 4A``.
  bicubic ignores align_mode.
"""
from __future__ import annotations

import numpy as np

from .image import interp_axis_linear, interp_axis_nearest, interp_ratio
from .jit import kernel_jit

__all__ = ['axis_table', 'resample_forward', 'resample_backward']

_jit = kernel_jit(error_model='numpy')

_A = -0.75


@_jit
def _apply_axis(x3, idx, wts):
    outer, _, inner = x3.shape
    n_out, taps = idx.shape
    out = np.zeros((outer, n_out, inner), dtype=x3.dtype)
    for a in range(outer):
        for o in range(n_out):
            for t in range(taps):
                src = idx[o, t]
                w = wts[o, t]
                for b in range(inner):
                    out[a, o, b] += w * x3[a, src, b]
    return out


@_jit
def _apply_axis_t(d3, idx, wts, n_in):
    outer, n_out, inner = d3.shape
    taps = idx.shape[1]
    dx = np.zeros((outer, n_in, inner), dtype=d3.dtype)
    for a in range(outer):
        for o in range(n_out):
            for t in range(taps):
                src = idx[o, t]
                w = wts[o, t]
                for b in range(inner):
                    dx[a, src, b] += w * d3[a, o, b]
    return dx


def _cubic_table(in_size, out_size, align_corners, ratio, dtype):
    k = np.arange(out_size)
    if align_corners:
        src = (ratio * k.astype(np.float32)).astype(dtype)
    else:
        src = (np.float64(ratio) * (k + 0.5) - 0.5).astype(dtype)
    base = np.floor(src).astype(np.int64)
    t = (src - base.astype(dtype)).astype(dtype)
    a = dtype.type(_A)
    one = dtype.type(1.0)

    def conv1(v):
        return ((a + 2) * v - (a + 3)) * v * v + 1

    def conv2(v):
        return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a
    wts = np.stack([conv2(t + one), conv1(t), conv1(one - t), conv2((one - t) + one)], axis=1).astype(dtype)
    idx = np.clip(base[:, None] + np.arange(-1, 3)[None, :], 0, in_size - 1)
    return idx, wts


def axis_table(method, in_size, out_size, align_corners, align_mode, scale, dtype):
    """(indices [out, taps] int64, weights [out, taps]) of one axis for `method` ('nearest', 'linear' -- also the
    per-axis filter of bilinear / trilinear -- or 'cubic')."""
    dtype = np.dtype(dtype)
    ratio = interp_ratio(in_size, out_size, align_corners, scale)
    if method == 'nearest':
        idx = interp_axis_nearest(in_size, out_size, align_corners, ratio)[:, None]
        return idx, np.ones(idx.shape, dtype=dtype)
    if method == 'linear':
        low, high, w_low, w_high = interp_axis_linear(in_size, out_size, align_corners, align_mode, ratio, dtype)
        return np.stack([low, high], axis=1), np.stack([w_low, w_high], axis=1).astype(dtype)
    if method == 'cubic':
        return _cubic_table(in_size, out_size, align_corners, ratio, dtype)
    raise ValueError("resampling method must be 'nearest', 'linear' or 'cubic', got %r" % (method,))


def _channels_first(x, channel_last):
    return np.ascontiguousarray(np.moveaxis(x, -1, 1) if channel_last else x)


def _channels_back(x, channel_last):
    return np.ascontiguousarray(np.moveaxis(x, 1, -1)) if channel_last else x


def _tables(method, spatial_in, spatial_out, align_corners, align_mode, scales, dtype):
    return [axis_table(method, n, o, align_corners, align_mode, s, dtype)
            for n, o, s in zip(spatial_in, spatial_out, scales)]


def resample_forward(x, out_size, method, align_corners=False, align_mode=1, scales=None, channel_last=False):
    """`x` [N, C, *spatial] (or channels last) resampled to `out_size` (one size per spatial axis); `scales` (one
    per axis, > 0 only for the v2 ratio)."""
    xc = _channels_first(np.asarray(x), channel_last)
    spatial = xc.shape[2:]
    scales = scales if scales is not None else (0.0,) * len(spatial)
    tables = _tables(method, spatial, out_size, align_corners, align_mode, scales, xc.dtype)
    cur = xc
    for axis in reversed(range(len(spatial))):
        shape = cur.shape
        outer = int(np.prod(shape[:2 + axis]))
        idx, wts = tables[axis]
        cur = _apply_axis(cur.reshape(outer, shape[2 + axis], -1), idx, wts).reshape(
            shape[:2 + axis] + (idx.shape[0],) + shape[3 + axis:])
    return _channels_back(cur, channel_last)


def resample_backward(dout, x_shape, method, align_corners=False, align_mode=1, scales=None, channel_last=False):
    """The gradient of :func:`resample_forward` with respect to its input of shape `x_shape`."""
    dc = _channels_first(np.asarray(dout), channel_last)
    x_shape = tuple(int(v) for v in x_shape)
    spatial = (x_shape[1:-1] if channel_last else x_shape[2:])
    scales = scales if scales is not None else (0.0,) * len(spatial)
    tables = _tables(method, spatial, dc.shape[2:], align_corners, align_mode, scales, dc.dtype)
    cur = dc
    for axis in range(len(spatial)):
        shape = cur.shape
        outer = int(np.prod(shape[:2 + axis]))
        idx, wts = tables[axis]
        cur = _apply_axis_t(cur.reshape(outer, shape[2 + axis], -1), idx, wts, spatial[axis]).reshape(
            shape[:2 + axis] + (spatial[axis],) + shape[3 + axis:])
    return _channels_back(cur, channel_last)
