"""Numba loops of RoI pooling by areas (ops/position_sensitive.py): psroi_pool and prroi_pool, forward and backward.

Bin (i, j) of output channel c of a RoI averages input channel (c * ph + i) * pw + j over the bin's pixels, the
bins laid over the RoI as Paddle 1.8's psroi_pool_op.h lays them (rounded corners, the end corner + 1, scaled;
floor / ceil bin edges clipped to the image); an empty bin is 0.

prroi_pool (precise RoI pooling) integrates the bilinear interpolation of the image exactly over each bin and
divides by the bin's area: every pixel cell the bin touches adds its four corners' values times the integrals of
their bilinear weights over the covered part (Paddle's PrRoIPoolingMatCalculation; pixels outside the image are 0).
The backward spreads each bin's gradient with the same weights.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['psroi_pool_forward', 'psroi_pool_backward', 'prroi_pool_forward', 'prroi_pool_backward']

_jit = kernel_jit()


@_jit
def _round(v):
    """C's round: halves away from zero (Python's round goes to even)."""
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


@_jit
def _bin(rois, r, i, j, ph, pw, scale, height, width):
    start_w = _round(rois[r, 0]) * scale
    start_h = _round(rois[r, 1]) * scale
    end_w = (_round(rois[r, 2]) + 1.0) * scale
    end_h = (_round(rois[r, 3]) + 1.0) * scale
    bin_h = max(end_h - start_h, 0.1) / ph
    bin_w = max(end_w - start_w, 0.1) / pw
    h0 = min(max(int(math.floor(bin_h * i + start_h)), 0), height)
    w0 = min(max(int(math.floor(bin_w * j + start_w)), 0), width)
    h1 = min(max(int(math.ceil(bin_h * (i + 1) + start_h)), 0), height)
    w1 = min(max(int(math.ceil(bin_w * (j + 1) + start_w)), 0), width)
    return h0, h1, w0, w1


@_jit
def psroi_pool_forward(x, rois, batch_ids, out_channels, ph, pw, scale):
    height, width = x.shape[2], x.shape[3]
    out = np.zeros((rois.shape[0], out_channels, ph, pw), x.dtype)
    for r in range(rois.shape[0]):
        n = batch_ids[r]
        for i in range(ph):
            for j in range(pw):
                h0, h1, w0, w1 = _bin(rois, r, i, j, ph, pw, scale, height, width)
                if h1 <= h0 or w1 <= w0:
                    continue
                area = (h1 - h0) * (w1 - w0)
                for c in range(out_channels):
                    channel = (c * ph + i) * pw + j
                    total = 0.0
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            total += x[n, channel, h, w]
                    out[r, c, i, j] = total / area
    return out


@_jit
def psroi_pool_backward(x_shape, rois, batch_ids, dout, ph, pw, scale):
    dx = np.zeros(x_shape, dout.dtype)
    height, width = x_shape[2], x_shape[3]
    for r in range(rois.shape[0]):
        n = batch_ids[r]
        for i in range(ph):
            for j in range(pw):
                h0, h1, w0, w1 = _bin(rois, r, i, j, ph, pw, scale, height, width)
                if h1 <= h0 or w1 <= w0:
                    continue
                area = (h1 - h0) * (w1 - w0)
                for c in range(dout.shape[1]):
                    channel = (c * ph + i) * pw + j
                    g = dout[r, c, i, j] / area
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            dx[n, channel, h, w] += g
    return dx


@_jit
def _span(a, lim):
    """The integral of the linear weight (1 - t) over [a, lim]."""
    return lim - 0.5 * lim * lim - a + 0.5 * a * a


@_jit
def _prroi_bin(x, dx, n, c, r, i, j, rois, ph, pw, scale, value):
    """Forward (dx None): the bin's integral over its area; backward: `value` / area spread into dx."""
    height, width = x.shape[2], x.shape[3]
    start_w, start_h = rois[r, 0] * scale, rois[r, 1] * scale
    roi_w = max(rois[r, 2] * scale - start_w, 0.0)
    roi_h = max(rois[r, 3] * scale - start_h, 0.0)
    bin_h, bin_w = roi_h / ph, roi_w / pw
    area = max(0.0, bin_w * bin_h)
    if area <= 0.0:
        return 0.0
    win_h0, win_w0 = i * bin_h + start_h, j * bin_w + start_w
    win_h1, win_w1 = win_h0 + bin_h, win_w0 + bin_w
    total = 0.0
    for wi in range(int(math.floor(win_w0)), int(math.ceil(win_w1))):
        for hi in range(int(math.floor(win_h0)), int(math.ceil(win_h1))):
            y0, x0 = max(win_h0, float(hi)), max(win_w0, float(wi))
            y1, x1 = min(win_h1, hi + 1.0), min(win_w1, wi + 1.0)
            fx_s, fx_e = _span(x0 - wi, x1 - wi), _span(wi + 1.0 - x1, wi + 1.0 - x0)
            fy_s, fy_e = _span(y0 - hi, y1 - hi), _span(hi + 1.0 - y1, hi + 1.0 - y0)
            for dh in range(2):
                for dw in range(2):
                    hh, ww = hi + dh, wi + dw
                    if hh < 0 or ww < 0 or hh >= height or ww >= width:
                        continue
                    coeff = (fy_e if dh else fy_s) * (fx_e if dw else fx_s)
                    if dx is None:
                        total += x[n, c, hh, ww] * coeff
                    else:
                        dx[n, c, hh, ww] += value * coeff / area
    return total / area


@_jit
def prroi_pool_forward(x, rois, batch_ids, ph, pw, scale):
    out = np.zeros((rois.shape[0], x.shape[1], ph, pw), x.dtype)
    for r in range(rois.shape[0]):
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    out[r, c, i, j] = _prroi_bin(x, None, batch_ids[r], c, r, i, j, rois, ph, pw, scale, 0.0)
    return out


@_jit
def prroi_pool_backward(x, rois, batch_ids, dout, ph, pw, scale):
    dx = np.zeros(x.shape, dout.dtype)
    for r in range(rois.shape[0]):
        for c in range(x.shape[1]):
            for i in range(ph):
                for j in range(pw):
                    _prroi_bin(x, dx, batch_ids[r], c, r, i, j, rois, ph, pw, scale, dout[r, c, i, j])
    return dx
