"""Faster R-CNN's region proposals as Paddle 1.8's generate_proposals kernel computes them (ops/proposals.py).

Per image: the scores [A, H, W] and deltas [4A, H, W] are laid out as the anchors are ([H, W, A]); the
pre_nms_top_n best-scoring anchors (all when <= 0) are decoded against their anchors and variances (pixel boxes
that count both end pixels, log-sizes clipped at log(1000/16)), clipped to the image (im_info: height, width,
scale), filtered (width and height at the original scale >= max(min_size, 1), centre inside the image), then
greedy NMS (pixel IoU, adaptive threshold with eta; among equal scores the later box is visited first, as
Paddle's ascending stable sort popped from the back) keeps at most post_nms_top_n (all when <= 0). With
nms_thresh <= 0 the filtered boxes are returned in score order without NMS.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['generate_proposals']

_jit = kernel_jit(error_model='numpy')

BBOX_CLIP = math.log(1000.0 / 16.0)


@_jit
def _decode_clip_filter(anchors, variances, deltas, im_h, im_w, im_scale, min_size, out, keep):
    """Decodes each selected anchor into `out`, clips it to the image and marks the boxes the filter keeps;
    returns how many it keeps."""
    n_keep = 0
    for i in range(anchors.shape[0]):
        aw = anchors[i, 2] - anchors[i, 0] + 1.0
        ah = anchors[i, 3] - anchors[i, 1] + 1.0
        acx = anchors[i, 0] + 0.5 * aw
        acy = anchors[i, 1] + 0.5 * ah
        cx = variances[i, 0] * deltas[i, 0] * aw + acx
        cy = variances[i, 1] * deltas[i, 1] * ah + acy
        w = math.exp(min(variances[i, 2] * deltas[i, 2], BBOX_CLIP)) * aw
        h = math.exp(min(variances[i, 3] * deltas[i, 3], BBOX_CLIP)) * ah
        out[i, 0] = max(min(cx - w / 2, im_w - 1), 0.0)
        out[i, 1] = max(min(cy - h / 2, im_h - 1), 0.0)
        out[i, 2] = max(min(cx + w / 2 - 1, im_w - 1), 0.0)
        out[i, 3] = max(min(cy + h / 2 - 1, im_h - 1), 0.0)
        ws = out[i, 2] - out[i, 0] + 1
        hs = out[i, 3] - out[i, 1] + 1
        ws_origin = (out[i, 2] - out[i, 0]) / im_scale + 1
        hs_origin = (out[i, 3] - out[i, 1]) / im_scale + 1
        x_ctr = out[i, 0] + ws / 2
        y_ctr = out[i, 1] + hs / 2
        if ws_origin >= min_size and hs_origin >= min_size and x_ctr <= im_w and y_ctr <= im_h:
            keep[n_keep] = i
            n_keep += 1
    return n_keep


@_jit
def _pixel_iou(a, b):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
    inter = iw * ih
    area_a = 0.0 if (a[2] < a[0] or a[3] < a[1]) else (a[2] - a[0] + 1) * (a[3] - a[1] + 1)
    area_b = 0.0 if (b[2] < b[0] or b[3] < b[1]) else (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
    return inter / (area_a + area_b - inter)


@_jit
def _nms(boxes, order, threshold, eta, selected):
    n_sel = 0
    for t in range(order.shape[0]):
        idx = order[t]
        keep = True
        for s in range(n_sel):
            if _pixel_iou(boxes[idx], boxes[selected[s]]) > threshold:
                keep = False
                break
        if keep:
            selected[n_sel] = idx
            n_sel += 1
            if eta < 1.0 and threshold > 0.5:
                threshold *= eta
    return n_sel


def _one_image(scores, deltas, im_info, anchors, variances, pre_nms_top_n, post_nms_top_n, nms_thresh, min_size,
               eta):
    order = np.argsort(-scores, kind='mergesort')
    if 0 < pre_nms_top_n < scores.shape[0]:
        order = order[:pre_nms_top_n]
    dtype = scores.dtype
    boxes = np.empty((order.shape[0], 4), dtype)
    keep = np.empty(order.shape[0], np.int64)
    n_keep = _decode_clip_filter(np.ascontiguousarray(anchors[order]), np.ascontiguousarray(variances[order]),
                                 np.ascontiguousarray(deltas[order]), dtype.type(im_info[0]), dtype.type(im_info[1]),
                                 dtype.type(im_info[2]), dtype.type(max(np.float32(min_size), np.float32(1.0))),
                                 boxes, keep)
    boxes, kept_scores = boxes[keep[:n_keep]], scores[order][keep[:n_keep]]
    if nms_thresh <= 0:
        return boxes, kept_scores
    nms_order = np.argsort(kept_scores, kind='mergesort')[::-1].copy()    # Paddle's ascending stable sort, popped
    selected = np.empty(nms_order.shape[0], np.int64)
    n_sel = _nms(np.ascontiguousarray(boxes), nms_order, float(dtype.type(nms_thresh)), float(np.float32(eta)),
                 selected)
    if 0 < post_nms_top_n < n_sel:
        n_sel = post_nms_top_n
    return boxes[selected[:n_sel]], kept_scores[selected[:n_sel]]


def generate_proposals(scores, bbox_deltas, im_info, anchors, variances, pre_nms_top_n: int, post_nms_top_n: int,
                       nms_thresh: float, min_size: float, eta: float):
    """(RpnRois [R, 4], RpnRoiProbs [R, 1], the proposals per image [N] int32) for scores [N, A, H, W],
    bbox_deltas [N, 4A, H, W], im_info [N, 3], anchors and variances [H, W, A, 4]."""
    n = scores.shape[0]
    anchors = np.ascontiguousarray(anchors, scores.dtype).reshape(-1, 4)
    variances = np.ascontiguousarray(variances, scores.dtype).reshape(-1, 4)
    rois, probs, counts = [], [], np.zeros(n, np.int32)
    for i in range(n):
        s = np.ascontiguousarray(scores[i].transpose(1, 2, 0)).reshape(-1)
        d = np.ascontiguousarray(bbox_deltas[i].transpose(1, 2, 0), scores.dtype).reshape(-1, 4)
        boxes, kept = _one_image(s, d, im_info[i], anchors, variances, pre_nms_top_n, post_nms_top_n, nms_thresh,
                                 min_size, eta)
        rois.append(boxes)
        probs.append(kept)
        counts[i] = boxes.shape[0]
    return (np.concatenate(rois).reshape(-1, 4), np.concatenate(probs).reshape(-1, 1).astype(scores.dtype),
            counts)
