"""Numba loops of position-sensitive RoI pooling (ops/position_sensitive.py): psroi_pool forward and backward.

Bin (i, j) of output channel c of a RoI averages input channel (c * ph + i) * pw + j over the bin's pixels, the
bins laid over the RoI as Paddle 1.8's psroi_pool_op.h lays them (rounded corners, the end corner + 1, scaled;
floor / ceil bin edges clipped to the image); an empty bin is 0.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['psroi_pool_forward', 'psroi_pool_backward']

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
