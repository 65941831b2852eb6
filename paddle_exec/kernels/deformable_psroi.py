"""Numba loops of deformable position-sensitive RoI pooling (ops/deformable_psroi.py), Paddle 1.8's
deformable_psroi_pooling_op.h: each bin averages sample_per_part^2 bilinear samples of one input channel (its
group cell's when position-sensitive), the bin moved by its part's offset (trans * trans_std * the RoI's size);
samples outside the image (beyond half a pixel) are skipped, the others clamped to it.

The backward spreads each bin's gradient over its samples' four pixels and gives trans the bilinear slope at each
sample times trans_std and the RoI's size, as Paddle does (the part of the bin taken from the forward's
part_width: 1.8.5's backward reads part_height there, the same whenever the part grid is square).
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['deformable_psroi_forward', 'deformable_psroi_backward']

_jit = kernel_jit()


@_jit
def _round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


@_jit
def _geometry(rois, r, i, j, ph, pw, scale, sample):
    start_w = _round(rois[r, 0]) * scale - 0.5
    start_h = _round(rois[r, 1]) * scale - 0.5
    end_w = (_round(rois[r, 2]) + 1.0) * scale - 0.5
    end_h = (_round(rois[r, 3]) + 1.0) * scale - 0.5
    roi_w = max(end_w - start_w, 0.1)
    roi_h = max(end_h - start_h, 0.1)
    bin_h, bin_w = roi_h / ph, roi_w / pw
    return start_w, start_h, roi_w, roi_h, bin_h, bin_w, bin_h / sample, bin_w / sample


@_jit
def _cell(i, j, ph, pw, part_h, part_w, group_h, group_w):
    p_h = int(math.floor(i / ph * part_h))
    p_w = int(math.floor(j / pw * part_w))
    gw = min(max(int(math.floor(j * group_w / pw)), 0), group_w - 1)
    gh = min(max(int(math.floor(i * group_h / ph)), 0), group_h - 1)
    return p_h, p_w, gh, gw


@_jit
def deformable_psroi_forward(x, rois, batch_ids, trans, no_trans, scale, output_dim, group_h, group_w, ph, pw,
                             part_h, part_w, sample, trans_std, num_classes, per_class):
    height, width = x.shape[2], x.shape[3]
    out = np.zeros((rois.shape[0], output_dim, ph, pw), x.dtype)
    count = np.zeros((rois.shape[0], output_dim, ph, pw), np.int32)
    for r in range(rois.shape[0]):
        n = batch_ids[r]
        start_w, start_h, roi_w, roi_h, bin_h, bin_w, sub_h, sub_w = _geometry(rois, r, 0, 0, ph, pw, scale, sample)
        for ctop in range(output_dim):
            cls = ctop // per_class
            for i in range(ph):
                for j in range(pw):
                    p_h, p_w, gh, gw = _cell(i, j, ph, pw, part_h, part_w, group_h, group_w)
                    tx = 0.0 if no_trans else trans[r, cls * 2, p_h, p_w] * trans_std
                    ty = 0.0 if no_trans else trans[r, cls * 2 + 1, p_h, p_w] * trans_std
                    wstart = j * bin_w + start_w + tx * roi_w
                    hstart = i * bin_h + start_h + ty * roi_h
                    c = (ctop * group_h + gh) * group_w + gw
                    total, num = 0.0, 0
                    for ih in range(sample):
                        for iw in range(sample):
                            w = wstart + iw * sub_w
                            h = hstart + ih * sub_h
                            if w < -0.5 or w > width - 0.5 or h < -0.5 or h > height - 0.5:
                                continue
                            w = min(max(w, 0.0), width - 1.0)
                            h = min(max(h, 0.0), height - 1.0)
                            x0, x1 = int(math.floor(w)), int(math.ceil(w))
                            y0, y1 = int(math.floor(h)), int(math.ceil(h))
                            dx, dy = w - x0, h - y0
                            total += ((1 - dx) * (1 - dy) * x[n, c, y0, x0] + (1 - dx) * dy * x[n, c, y1, x0]
                                      + dx * (1 - dy) * x[n, c, y0, x1] + dx * dy * x[n, c, y1, x1])
                            num += 1
                    out[r, ctop, i, j] = 0.0 if num == 0 else total / num
                    count[r, ctop, i, j] = num
    return out, count


@_jit
def deformable_psroi_backward(x, rois, batch_ids, trans, no_trans, count, dout, scale, group_h, group_w, ph, pw,
                              part_h, part_w, sample, trans_std, num_classes, per_class):
    height, width = x.shape[2], x.shape[3]
    dx_all = np.zeros(x.shape, dout.dtype)
    dtrans = np.zeros(trans.shape, dout.dtype)
    for r in range(rois.shape[0]):
        n = batch_ids[r]
        start_w, start_h, roi_w, roi_h, bin_h, bin_w, sub_h, sub_w = _geometry(rois, r, 0, 0, ph, pw, scale, sample)
        for ctop in range(dout.shape[1]):
            cls = ctop // per_class
            for i in range(ph):
                for j in range(pw):
                    if count[r, ctop, i, j] <= 0:
                        continue
                    p_h, p_w, gh, gw = _cell(i, j, ph, pw, part_h, part_w, group_h, group_w)
                    tx = 0.0 if no_trans else trans[r, cls * 2, p_h, p_w] * trans_std
                    ty = 0.0 if no_trans else trans[r, cls * 2 + 1, p_h, p_w] * trans_std
                    wstart = j * bin_w + start_w + tx * roi_w
                    hstart = i * bin_h + start_h + ty * roi_h
                    diff = dout[r, ctop, i, j] / count[r, ctop, i, j]
                    c = (ctop * group_h + gh) * group_w + gw
                    for ih in range(sample):
                        for iw in range(sample):
                            w = wstart + iw * sub_w
                            h = hstart + ih * sub_h
                            if w < -0.5 or w > width - 0.5 or h < -0.5 or h > height - 0.5:
                                continue
                            w = min(max(w, 0.0), width - 1.0)
                            h = min(max(h, 0.0), height - 1.0)
                            x0, x1 = int(math.floor(w)), int(math.ceil(w))
                            y0, y1 = int(math.floor(h)), int(math.ceil(h))
                            ddx, ddy = w - x0, h - y0
                            dx_all[n, c, y0, x0] += (1 - ddx) * (1 - ddy) * diff
                            dx_all[n, c, y1, x0] += (1 - ddx) * ddy * diff
                            dx_all[n, c, y0, x1] += ddx * (1 - ddy) * diff
                            dx_all[n, c, y1, x1] += ddx * ddy * diff
                            if no_trans:
                                continue
                            u00, u01 = x[n, c, y0, x0], x[n, c, y1, x0]
                            u10, u11 = x[n, c, y0, x1], x[n, c, y1, x1]
                            gx = (u11 * ddy + u10 * (1 - ddy) - u01 * ddy - u00 * (1 - ddy)) * trans_std * diff
                            gy = (u11 * ddx + u01 * (1 - ddx) - u10 * ddx - u00 * (1 - ddx)) * trans_std * diff
                            dtrans[r, cls * 2, p_h, p_w] += gx * roi_w
                            dtrans[r, cls * 2 + 1, p_h, p_w] += gy * roi_h
    return dx_all, dtrans
