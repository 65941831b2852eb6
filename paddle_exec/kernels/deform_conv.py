"""Deformable convolution (Paddle ops ``deformable_conv`` -- v2, with a modulation mask -- and
``deformable_conv_v1``), NCHW, with Paddle's CPU semantics (deformable_conv_func.h, modulated_deformable_im2col).

Each filter tap (i, j) of output position (oh, ow) samples the input at ``h = oh * sh - ph + i * dh +
offset_h``, ``w = ow * sw - pw + j * dw + offset_w``, where the offsets come from Offset [N, 2 * dg * kh * kw, Ho,
Wo] (h then w for each tap of each deformable group dg; input channel c belongs to group c // (C / dg)). The
sample is bilinear, reads 0 when (h, w) lies outside (-1, H) x (-1, W), and each corner outside the image reads 0.
v2 multiplies it by Mask [N, dg * kh * kw, Ho, Wo]. The samples form a column matrix [C * kh * kw, N * Ho * Wo]
(numba), multiplied by the filter per group with BLAS, as conv.py does for conv2d.

Gradients: dFilter = dOut . col^T; dcol = W^T . dOut is scattered back to the four corners with the bilinear
weights (dX); dOffset is dcol * mask times the derivative of the bilinear sample along h and w (Paddle's
coordinate weights); dMask is dcol times the sample.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['deform_conv_forward', 'deform_conv_backward', 'deform_conv_output_size']

_jit = kernel_jit(error_model='numpy')


def deform_conv_output_size(in_size, k, pad, stride, dilation):
    return (in_size + 2 * pad - (dilation * (k - 1) + 1)) // stride + 1


@_jit
def _sample(img, h, w):
    """Paddle's DmcnIm2colBilinear on one [H, W] plane."""
    height, width = img.shape
    h_low = int(np.floor(h))
    w_low = int(np.floor(w))
    h_high, w_high = h_low + 1, w_low + 1
    lh, lw = h - h_low, w - w_low
    hh, hw = 1.0 - lh, 1.0 - lw
    v1 = img[h_low, w_low] if h_low >= 0 and w_low >= 0 else 0.0
    v2 = img[h_low, w_high] if h_low >= 0 and w_high <= width - 1 else 0.0
    v3 = img[h_high, w_low] if h_high <= height - 1 and w_low >= 0 else 0.0
    v4 = img[h_high, w_high] if h_high <= height - 1 and w_high <= width - 1 else 0.0
    return hh * hw * v1 + hh * lw * v2 + lh * hw * v3 + lh * lw * v4


@_jit
def _im2col(x, offset, mask, kh, kw, sh, sw, ph, pw, dh, dw, dg, oh, ow, has_mask):
    n_, c_, height, width = x.shape
    L = oh * ow
    col = np.zeros((c_ * kh * kw, n_ * L), dtype=x.dtype)
    per_group = c_ // dg
    for n in range(n_):
        for c in range(c_):
            g = c // per_group
            for i in range(kh):
                for j in range(kw):
                    tap = i * kw + j
                    row = c * kh * kw + tap
                    for y in range(oh):
                        for xo in range(ow):
                            off_h = offset[n, g * 2 * kh * kw + 2 * tap, y, xo]
                            off_w = offset[n, g * 2 * kh * kw + 2 * tap + 1, y, xo]
                            h = y * sh - ph + i * dh + off_h
                            w = xo * sw - pw + j * dw + off_w
                            val = 0.0
                            if h > -1 and w > -1 and h < height and w < width:
                                val = _sample(x[n, c], h, w)
                            if has_mask:
                                val *= mask[n, g * kh * kw + tap, y, xo]
                            col[row, n * L + y * ow + xo] = val
    return col


@_jit
def _col2im_all(x, offset, mask, dcol, kh, kw, sh, sw, ph, pw, dh, dw, dg, oh, ow, has_mask):
    """(dX, dOffset, dMask) from dcol [C * kh * kw, N * L]."""
    n_, c_, height, width = x.shape
    L = oh * ow
    dx = np.zeros_like(x)
    doffset = np.zeros_like(offset)
    dmask = np.zeros_like(mask)
    per_group = c_ // dg
    for n in range(n_):
        for c in range(c_):
            g = c // per_group
            img = x[n, c]
            for i in range(kh):
                for j in range(kw):
                    tap = i * kw + j
                    row = c * kh * kw + tap
                    for y in range(oh):
                        for xo in range(ow):
                            grad = dcol[row, n * L + y * ow + xo]
                            oh_ch = g * 2 * kh * kw + 2 * tap
                            h = y * sh - ph + i * dh + offset[n, oh_ch, y, xo]
                            w = xo * sw - pw + j * dw + offset[n, oh_ch + 1, y, xo]
                            m = mask[n, g * kh * kw + tap, y, xo] if has_mask else 1.0
                            if h <= -1 or w <= -1 or h >= height or w >= width:
                                continue
                            if has_mask:
                                dmask[n, g * kh * kw + tap, y, xo] += grad * _sample(img, h, w)
                            gm = grad * m
                            h_low = int(np.floor(h))
                            w_low = int(np.floor(w))
                            lh, lw = h - h_low, w - w_low
                            # scatter to the corners (dX) and the slopes along h and w (dOffset)
                            dh_acc = 0.0
                            dw_acc = 0.0
                            for a in range(2):
                                hh = h_low + a
                                wy = lh if a == 1 else 1.0 - lh
                                sy = 1.0 if a == 1 else -1.0
                                for b in range(2):
                                    ww = w_low + b
                                    wx = lw if b == 1 else 1.0 - lw
                                    sx = 1.0 if b == 1 else -1.0
                                    if hh < 0 or ww < 0 or hh > height - 1 or ww > width - 1:
                                        continue
                                    dx[n, c, hh, ww] += gm * wy * wx
                                    v = img[hh, ww]
                                    dh_acc += sy * wx * v
                                    dw_acc += sx * wy * v
                            doffset[n, oh_ch, y, xo] += gm * dh_acc
                            doffset[n, oh_ch + 1, y, xo] += gm * dw_acc
    return dx, doffset, dmask


def _geometry(x_shape, w_shape, offset_shape, strides, paddings, dilations, groups, deformable_groups):
    n, c, h, w = x_shape
    oc, cg, kh, kw = w_shape
    if cg * groups != c or oc % groups or c % deformable_groups:
        raise ValueError('deformable_conv: input channels %d, filter %s, groups %d and deformable_groups %d do not '
                         'match' % (c, list(w_shape), groups, deformable_groups))
    sh, sw = strides
    ph, pw = paddings
    dh, dw = dilations
    oh = deform_conv_output_size(h, kh, ph, sh, dh)
    ow = deform_conv_output_size(w, kw, pw, sw, dw)
    if tuple(offset_shape) != (n, 2 * deformable_groups * kh * kw, oh, ow):
        raise ValueError('deformable_conv: Offset must be %s, got %s'
                         % ([n, 2 * deformable_groups * kh * kw, oh, ow], list(offset_shape)))
    return kh, kw, sh, sw, ph, pw, dh, dw, deformable_groups, oh, ow


def _mask_or_dummy(mask, x):
    return (np.ascontiguousarray(mask, dtype=x.dtype), True) if mask is not None else (np.zeros((1, 1, 1, 1),
                                                                                                 x.dtype), False)


def deform_conv_forward(x, offset, mask, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                        deformable_groups=1):
    """Paddle ops ``deformable_conv`` (mask given) / ``deformable_conv_v1`` (mask None): Output [N, OC, Ho, Wo]."""
    x = np.ascontiguousarray(x)
    offset = np.ascontiguousarray(offset, dtype=x.dtype)
    w = np.asarray(w, dtype=x.dtype)
    g = _geometry(x.shape, w.shape, offset.shape, strides, paddings, dilations, groups, deformable_groups)
    m, has_mask = _mask_or_dummy(mask, x)
    col = _im2col(x, offset, m, *g, has_mask)
    n, oc = x.shape[0], w.shape[0]
    k = col.shape[0] // groups
    out = np.matmul(w.reshape(groups, oc // groups, k), col.reshape(groups, k, -1))
    return np.ascontiguousarray(out.reshape(oc, n, -1).transpose(1, 0, 2)).reshape(n, oc, g[9], g[10])


def deform_conv_backward(x, offset, mask, w, dout, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                         deformable_groups=1):
    """Paddle ops ``deformable_conv_grad`` / ``deformable_conv_v1_grad``: (dInput, dOffset, dMask or None,
    dFilter)."""
    x = np.ascontiguousarray(x)
    offset = np.ascontiguousarray(offset, dtype=x.dtype)
    w = np.asarray(w, dtype=x.dtype)
    g = _geometry(x.shape, w.shape, offset.shape, strides, paddings, dilations, groups, deformable_groups)
    m, has_mask = _mask_or_dummy(mask, x)
    n, oc = x.shape[0], w.shape[0]
    col = _im2col(x, offset, m, *g, has_mask)
    k = col.shape[0] // groups
    d3 = np.ascontiguousarray(np.asarray(dout, dtype=x.dtype).reshape(n, oc, -1).transpose(1, 0, 2)).reshape(
        groups, oc // groups, -1)
    dw = np.matmul(d3, col.reshape(groups, k, -1).transpose(0, 2, 1)).reshape(w.shape)
    dcol = np.matmul(w.reshape(groups, oc // groups, k).transpose(0, 2, 1), d3).reshape(groups * k, -1)
    dx, doffset, dmask = _col2im_all(x, offset, m, np.ascontiguousarray(dcol), *g, has_mask)
    return dx, doffset, (dmask if has_mask else None), dw
