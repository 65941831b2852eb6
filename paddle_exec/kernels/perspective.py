"""roi_perspective_transform as Paddle 1.8's CPU kernel computes it (ops/perspective.py), and its gradient.

Each RoI is a quadrilateral (x0, y0, ..., x3, y3) scaled by spatial_scale. Its perspective matrix maps the output
grid (transformed_height rows; a width estimated from the quad's side lengths, at most transformed_width) onto the
quad; each output pixel whose source point lies in the quad (Paddle's in_quad, with its 1e-4 tolerances) and
inside the feature map samples it bilinearly (Mask 1), the others are 0 (Mask 0). The arithmetic rounds to float32
where Paddle's float kernel stores a float, so the masks agree at the quad's edges (a float64 input is computed in
float32 too, and its results returned as float64).

The gradient scatters each output gradient to the four pixels it was sampled from with the sampling weights,
which is what Paddle's grad kernel gathers pixel by pixel (get_feature_gradient). Out2InIdx / Out2InWeights (the
outputs Paddle's GPU kernel fills) hold those four flat input indices (-1 when unsampled) and weights.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['roi_perspective_transform', 'roi_perspective_transform_grad']

_jit = kernel_jit(error_model='numpy')
F = np.float32


@_jit
def _gte(a, b):
    return a > b or abs(a - b) < 1e-4


@_jit
def _lte(a, b):
    return a < b or abs(a - b) < 1e-4


@_jit
def _gt(a, b):
    return (a - b) > 1e-4


@_jit
def _in_quad(x, y, qx, qy):
    for i in range(4):
        xs, ys, xe, ye = qx[i], qy[i], qx[(i + 1) % 4], qy[(i + 1) % 4]
        if abs(ys - ye) < 1e-4:
            if abs(y - ys) < 1e-4 and abs(y - ye) < 1e-4 and _gte(x, min(xs, xe)) and _lte(x, max(xs, xe)):
                return True
        else:
            ix = F((y - ys) * (xe - xs) / (ye - ys) + xs)
            if abs(ix - x) < 1e-4 and _gte(y, min(ys, ye)) and _lte(y, max(ys, ye)):
                return True
    n_cross = 0
    for i in range(4):
        xs, ys, xe, ye = qx[i], qy[i], qx[(i + 1) % 4], qy[(i + 1) % 4]
        if abs(ys - ye) < 1e-4:
            continue
        if _lte(y, min(ys, ye)) or _gt(y, max(ys, ye)):
            continue
        ix = F((y - ys) * (xe - xs) / (ye - ys) + xs)
        if abs(ix - x) < 1e-4:
            return True
        if _gt(ix, x):
            n_cross += 1
    return n_cross % 2 == 1


@_jit
def _matrix(tw, th, qx, qy, m):
    x0, x1, x2, x3 = qx[0], qx[1], qx[2], qx[3]
    y0, y1, y2, y3 = qy[0], qy[1], qy[2], qy[3]
    len1 = F(math.sqrt(F((x0 - x1) * (x0 - x1) + (y0 - y1) * (y0 - y1))))
    len2 = F(math.sqrt(F((x1 - x2) * (x1 - x2) + (y1 - y2) * (y1 - y2))))
    len3 = F(math.sqrt(F((x2 - x3) * (x2 - x3) + (y2 - y3) * (y2 - y3))))
    len4 = F(math.sqrt(F((x3 - x0) * (x3 - x0) + (y3 - y0) * (y3 - y0))))
    est_h = F((len2 + len4) / 2.0)
    est_w = F((len1 + len3) / 2.0)
    nh = max(2, th)
    v = F(est_w * F(nh - 1) / est_h)
    r = math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)       # std::round: halves away from zero
    nw = max(2, min(int(r) + 1, tw))
    dx1, dx2, dx3 = F(x1 - x2), F(x3 - x2), F(x0 - x1 + x2 - x3)
    dy1, dy2, dy3 = F(y1 - y2), F(y3 - y2), F(y0 - y1 + y2 - y3)
    den = np.float64(F(dx1 * dy2 - dx2 * dy1)) + 1e-5
    m[6] = F(np.float64(F(dx3 * dy2 - dx2 * dy3)) / den / (nw - 1))
    m[7] = F(np.float64(F(dx1 * dy3 - dx3 * dy1)) / den / (nh - 1))
    m[8] = F(1.0)
    m[3] = F((y1 - y0 + m[6] * F(nw - 1) * y1) / F(nw - 1))
    m[4] = F((y3 - y0 + m[7] * F(nh - 1) * y3) / F(nh - 1))
    m[5] = y0
    m[0] = F((x1 - x0 + m[6] * F(nw - 1) * x1) / F(nw - 1))
    m[1] = F((x3 - x0 + m[7] * F(nh - 1) * x3) / F(nh - 1))
    m[2] = x0


@_jit
def _sample_points(height, width, in_w, in_h, idx, wts):
    """The four (flat pixel index, weight) pairs of a bilinear sample inside the map (Paddle's clamping)."""
    if _gte(F(0.0), in_w):
        in_w = F(0.0)
    if _gte(F(0.0), in_h):
        in_h = F(0.0)
    wf = int(math.floor(in_w))
    hf = int(math.floor(in_h))
    if _gte(F(wf), F(width - 1)):
        wc = wf = width - 1
        in_w = F(wf)
    else:
        wc = wf + 1
    if _gte(F(hf), F(height - 1)):
        hc = hf = height - 1
        in_h = F(hf)
    else:
        hc = hf + 1
    w_floor = F(in_w - F(wf))
    h_floor = F(in_h - F(hf))
    w_ceil = F(F(1.0) - w_floor)
    h_ceil = F(F(1.0) - h_floor)
    idx[0], wts[0] = hf * width + wf, F(w_ceil * h_ceil)
    idx[1], wts[1] = hc * width + wf, F(w_ceil * h_floor)
    idx[2], wts[2] = hc * width + wc, F(w_floor * h_floor)
    idx[3], wts[3] = hf * width + wc, F(w_floor * h_ceil)


@_jit
def _forward(x, rois, roi_image, th, tw, scale, out, mask, matrices, out_idx, out_wts):
    _, channels, height, width = x.shape
    qx = np.empty(4, np.float32)
    qy = np.empty(4, np.float32)
    m = np.empty(9, np.float32)
    idx = np.empty(4, np.int64)
    wts = np.empty(4, np.float32)
    for n in range(rois.shape[0]):
        for k in range(4):
            qx[k] = F(rois[n, 2 * k] * scale)
            qy[k] = F(rois[n, 2 * k + 1] * scale)
        _matrix(tw, th, qx, qy, m)
        matrices[n, :] = m
        img = roi_image[n]
        for oh in range(th):
            for ow in range(tw):
                u = F(F(m[0] * F(ow)) + F(m[1] * F(oh)) + m[2])
                v = F(F(m[3] * F(ow)) + F(m[4] * F(oh)) + m[5])
                w = F(F(m[6] * F(ow)) + F(m[7] * F(oh)) + m[8])
                in_w, in_h = F(u / w), F(v / w)
                ok = _in_quad(in_w, in_h, qx, qy) and not (
                    _gte(F(-0.5), in_w) or _gte(in_w, F(width - 0.5)) or _gte(F(-0.5), in_h)
                    or _gte(in_h, F(height - 0.5)))
                mask[n, 0, oh, ow] = 1 if ok else 0
                if ok:
                    _sample_points(height, width, in_w, in_h, idx, wts)
                for c in range(channels):
                    if ok:
                        val = F(0.0)
                        for k in range(4):
                            val = F(val + F(wts[k] * x[img, c, idx[k] // width, idx[k] % width]))
                            out_idx[n, c, oh, ow, k] = (img * channels + c) * height * width + idx[k]
                            out_wts[n, c, oh, ow, k] = wts[k]
                        out[n, c, oh, ow] = val
                    else:
                        out[n, c, oh, ow] = 0.0
                        for k in range(4):
                            out_idx[n, c, oh, ow, k] = -1
                            out_wts[n, c, oh, ow, k] = 0.0


def roi_perspective_transform(x, rois, offsets, transformed_height: int, transformed_width: int,
                              spatial_scale: float):
    """(Out [R, C, th, tw], Mask [R, 1, th, tw] int32, TransformMatrix [R, 9], Out2InIdx [R, C, th, tw, 4] int32,
    Out2InWeights [R, C, th, tw, 4]) for x [N, C, H, W] and the quads rois [R, 8] cut by image by offsets."""
    r, c = rois.shape[0], x.shape[1]
    th, tw = int(transformed_height), int(transformed_width)
    roi_image = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets)).astype(np.int64)
    out = np.empty((r, c, th, tw), np.float32)
    mask = np.empty((r, 1, th, tw), np.int32)
    matrices = np.empty((r, 9), np.float32)
    out_idx = np.empty((r, c, th, tw, 4), np.int32)
    out_wts = np.empty((r, c, th, tw, 4), np.float32)
    if r:
        _forward(np.ascontiguousarray(x, np.float32), np.ascontiguousarray(rois, np.float32), roi_image, th, tw,
                 F(spatial_scale), out, mask, matrices, out_idx, out_wts)
    dtype = x.dtype
    return out.astype(dtype, copy=False), mask, matrices.astype(dtype, copy=False), out_idx, \
        out_wts.astype(dtype, copy=False)


@_jit
def _backward(dout, out_idx, out_wts, dx_flat):
    r, c, th, tw, _ = out_idx.shape
    for n in range(r):
        for ch in range(c):
            for oh in range(th):
                for ow in range(tw):
                    g = dout[n, ch, oh, ow]
                    for k in range(4):
                        i = out_idx[n, ch, oh, ow, k]
                        if i >= 0:
                            dx_flat[i] += g * out_wts[n, ch, oh, ow, k]


def roi_perspective_transform_grad(x_shape, dtype, dout, out_idx, out_wts) -> np.ndarray:
    """X@GRAD: each output gradient scattered to its four source pixels with the sampling weights."""
    dx = np.zeros(int(np.prod(x_shape)), np.float64)
    _backward(np.ascontiguousarray(dout, np.float64), np.ascontiguousarray(out_idx, np.int32),
              np.ascontiguousarray(out_wts, np.float64), dx)
    return dx.reshape(x_shape).astype(dtype)
