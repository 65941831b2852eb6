"""YOLOv3's loss as Paddle 1.8's yolov3_loss kernel computes it, and its gradient (ops/yolov3_loss.py).

X [N, M*(5+C), H, W] holds, per image and per masked anchor m, the channels tx, ty, tw, th, objectness and C class
logits. GTBox [N, B, 4] are (cx, cy, w, h) relative to the image; a box of width or height <= 1e-6 is padding.

Per image:
1. every predicted box (decoded as yolo_box does, with scale_x_y) whose best IoU with a ground-truth box exceeds
   ignore_thresh gets ObjectnessMask -1 (its objectness is not trained);
2. every ground-truth box picks the anchor (of all anchors) whose shape overlaps it best; when that anchor is in
   anchor_mask (GTMatchMask = its mask index, else -1) the cell (gi, gj) holding the box's centre is a positive:
   sigmoid cross-entropy on tx, ty and L1 on tw, th, weighted by (2 - w*h) * score, sigmoid cross-entropy on the
   class logits (label smoothing: 1 - s / s with s = min(1/C, 1/40)), and ObjectnessMask = score;
3. objectness: sigmoid cross-entropy against 1 weighted by the mask where it is > 1e-5, against 0 where it is 0.

The gradient follows Paddle's grad kernel: it *assigns* (does not add) each positive's location and class
gradients, so when two ground-truth boxes of one image land on the same cell and anchor only the last one's
gradient survives, while the loss counts both (Paddle's behaviour, kept). GTScore defaults to ones.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['yolov3_loss', 'yolov3_loss_grad']

_jit = kernel_jit(error_model='numpy')


@_jit
def _sce(x, label):
    return (x if x > 0 else 0.0) - x * label + math.log(1.0 + math.exp(-abs(x)))


@_jit
def _sce_grad(x, label):
    return 1.0 / (1.0 + math.exp(-x)) - label


@_jit
def _overlap(c1, w1, c2, w2):
    left = max(c1 - w1 / 2.0, c2 - w2 / 2.0)
    right = min(c1 + w1 / 2.0, c2 + w2 / 2.0)
    return right - left


@_jit
def _iou(x1, y1, w1, h1, x2, y2, w2, h2):
    w = _overlap(x1, w1, x2, w2)
    h = _overlap(y1, h1, y2, h2)
    inter = 0.0 if (w < 0 or h < 0) else w * h
    return inter / (w1 * h1 + w2 * h2 - inter)


@_jit
def _best_anchor(gw, gh, anchors, input_size):
    best_iou, best_n = 0.0, 0
    for a in range(anchors.shape[0] // 2):
        iou = np.float32(_iou(0.0, 0.0, anchors[2 * a] / np.float32(input_size),
                              anchors[2 * a + 1] / np.float32(input_size), 0.0, 0.0, gw, gh))
        if iou > best_iou:
            best_iou, best_n = iou, a
    return best_n


@_jit
def _forward(x, gt_box, gt_label, gt_score, anchors, mask, class_num, ignore_thresh, downsample, pos, neg,
             scale, bias, loss, obj_mask, match_mask):
    n, _, h, w = x.shape
    b = gt_box.shape[1]
    mask_num = mask.shape[0]
    input_size = downsample * h
    for i in range(n):
        for j in range(mask_num):
            a = mask[j]
            base = j * (5 + class_num)
            for k in range(h):
                for l in range(w):
                    px = (l + 1.0 / (1.0 + math.exp(-x[i, base, k, l])) * scale + bias) / h
                    py = (k + 1.0 / (1.0 + math.exp(-x[i, base + 1, k, l])) * scale + bias) / h
                    pw = math.exp(x[i, base + 2, k, l]) * anchors[2 * a] / input_size
                    ph = math.exp(x[i, base + 3, k, l]) * anchors[2 * a + 1] / input_size
                    best = 0.0
                    for t in range(b):
                        if gt_box[i, t, 2] < 1e-6 or gt_box[i, t, 3] < 1e-6:
                            continue
                        iou = _iou(px, py, pw, ph, gt_box[i, t, 0], gt_box[i, t, 1], gt_box[i, t, 2], gt_box[i, t, 3])
                        if iou > best:
                            best = iou
                    if best > ignore_thresh:
                        obj_mask[i, j, k, l] = -1.0
        for t in range(b):
            gx, gy, gw, gh = gt_box[i, t, 0], gt_box[i, t, 1], gt_box[i, t, 2], gt_box[i, t, 3]
            if gw < 1e-6 or gh < 1e-6:
                match_mask[i, t] = -1
                continue
            gi, gj = int(gx * w), int(gy * h)
            best_n = _best_anchor(gw, gh, anchors, input_size)
            m = -1
            for q in range(mask_num):
                if mask[q] == best_n:
                    m = q
                    break
            match_mask[i, t] = m
            if m < 0:
                continue
            score = gt_score[i, t]
            base = m * (5 + class_num)
            tx, ty = gx * h - gi, gy * h - gj
            tw = math.log(gw * input_size / anchors[2 * best_n])
            th = math.log(gh * input_size / anchors[2 * best_n + 1])
            sc = (2.0 - gw * gh) * score
            loss[i] += _sce(x[i, base, gj, gi], tx) * sc
            loss[i] += _sce(x[i, base + 1, gj, gi], ty) * sc
            loss[i] += abs(tw - x[i, base + 2, gj, gi]) * sc
            loss[i] += abs(th - x[i, base + 3, gj, gi]) * sc
            obj_mask[i, m, gj, gi] = score
            label = gt_label[i, t]
            for c in range(class_num):
                loss[i] += _sce(x[i, base + 5 + c, gj, gi], pos if c == label else neg) * score
        for j in range(mask_num):
            base = j * (5 + class_num)
            for k in range(h):
                for l in range(w):
                    obj = obj_mask[i, j, k, l]
                    if obj > 1e-5:
                        loss[i] += _sce(x[i, base + 4, k, l], 1.0) * obj
                    elif obj > -0.5:
                        loss[i] += _sce(x[i, base + 4, k, l], 0.0)


@_jit
def _backward(x, gt_box, gt_label, gt_score, anchors, mask, class_num, downsample, pos, neg, dloss, obj_mask,
              match_mask, dx):
    n, _, h, w = x.shape
    b = gt_box.shape[1]
    mask_num = mask.shape[0]
    input_size = downsample * h
    for i in range(n):
        for t in range(b):
            m = match_mask[i, t]
            if m < 0:
                continue
            gx, gy, gw, gh = gt_box[i, t, 0], gt_box[i, t, 1], gt_box[i, t, 2], gt_box[i, t, 3]
            gi, gj = int(gx * w), int(gy * h)
            a = mask[m]
            base = m * (5 + class_num)
            score = gt_score[i, t]
            tx, ty = gx * h - gi, gy * h - gj
            tw = math.log(gw * input_size / anchors[2 * a])
            th = math.log(gh * input_size / anchors[2 * a + 1])
            sc = (2.0 - gw * gh) * score
            g = dloss[i]
            dx[i, base, gj, gi] = _sce_grad(x[i, base, gj, gi], tx) * sc * g
            dx[i, base + 1, gj, gi] = _sce_grad(x[i, base + 1, gj, gi], ty) * sc * g
            dx[i, base + 2, gj, gi] = (1.0 if x[i, base + 2, gj, gi] > tw else -1.0) * sc * g
            dx[i, base + 3, gj, gi] = (1.0 if x[i, base + 3, gj, gi] > th else -1.0) * sc * g
            label = gt_label[i, t]
            for c in range(class_num):
                dx[i, base + 5 + c, gj, gi] = _sce_grad(x[i, base + 5 + c, gj, gi], pos if c == label else neg) \
                    * score * g
        for j in range(mask_num):
            base = j * (5 + class_num)
            for k in range(h):
                for l in range(w):
                    obj = obj_mask[i, j, k, l]
                    if obj > 1e-5:
                        dx[i, base + 4, k, l] = _sce_grad(x[i, base + 4, k, l], 1.0) * obj * dloss[i]
                    elif obj > -0.5:
                        dx[i, base + 4, k, l] = _sce_grad(x[i, base + 4, k, l], 0.0) * dloss[i]


def _label_targets(class_num: int, use_label_smooth: bool, dtype) -> tuple:
    if not use_label_smooth:
        return dtype.type(1.0), dtype.type(0.0)
    smooth = min(1.0 / dtype.type(class_num), 1.0 / 40)
    return dtype.type(1.0 - smooth), dtype.type(smooth)


def _score(gt_score, gt_box, dtype):
    if gt_score is None:
        return np.ones(gt_box.shape[:2], dtype)
    return np.ascontiguousarray(gt_score, dtype)


def yolov3_loss(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num: int, ignore_thresh: float,
                downsample_ratio: int, use_label_smooth: bool, scale_x_y: float):
    """(Loss [N], ObjectnessMask [N, M, H, W] of x's dtype, GTMatchMask [N, B] int32)."""
    n, _, h, w = x.shape
    dtype = x.dtype
    pos, neg = _label_targets(class_num, use_label_smooth, dtype)
    loss = np.zeros(n, dtype)
    obj_mask = np.zeros((n, len(anchor_mask), h, w), dtype)
    match_mask = np.zeros(gt_box.shape[:2], np.int32)
    scale = np.float32(scale_x_y)
    _forward(np.ascontiguousarray(x), np.ascontiguousarray(gt_box, dtype), np.ascontiguousarray(gt_label, np.int32),
             _score(gt_score, gt_box, dtype), np.asarray(anchors, np.int64), np.asarray(anchor_mask, np.int64),
             int(class_num), float(np.float32(ignore_thresh)), int(downsample_ratio), pos, neg, float(scale),
             float(np.float32(-0.5) * (scale - np.float32(1.0))), loss, obj_mask, match_mask)
    return loss, obj_mask, match_mask


def yolov3_loss_grad(x, gt_box, gt_label, gt_score, dloss, obj_mask, match_mask, anchors, anchor_mask,
                     class_num: int, downsample_ratio: int, use_label_smooth: bool):
    """X@GRAD [N, C, H, W] (see the module docstring for Paddle's assignment of the positives' gradients)."""
    dtype = x.dtype
    pos, neg = _label_targets(class_num, use_label_smooth, dtype)
    dx = np.zeros(x.shape, dtype)
    _backward(np.ascontiguousarray(x), np.ascontiguousarray(gt_box, dtype), np.ascontiguousarray(gt_label, np.int32),
              _score(gt_score, gt_box, dtype), np.asarray(anchors, np.int64), np.asarray(anchor_mask, np.int64),
              int(class_num), int(downsample_ratio), pos, neg, np.ascontiguousarray(dloss, dtype).reshape(-1),
              np.ascontiguousarray(obj_mask, dtype), np.ascontiguousarray(match_mask, np.int32), dx)
    return dx
