"""Anchor targets of the two-stage and one-stage detectors, as Paddle 1.8's rpn_target_assign and
retinanet_target_assign kernels compute them (ops/rpn_targets.py), with the box helpers of Paddle's bbox_util.h;
and the second stage's RoI targets (generate_proposal_labels, `proposal_labels`).

Per image: the anchors inside the image (rpn_straddle_thresh >= 0: no corner more than that many pixels outside)
are matched against the non-crowd ground-truth boxes scaled by im_info's scale (pixel IoU, both end pixels
counted). Foreground: the anchors holding some box's best overlap (within 1e-5) and those at or above
rpn_positive_overlap, sampled down to int(rpn_fg_fraction * rpn_batch_size_per_im); background: the anchors below
rpn_negative_overlap, sampled down to the rest of the batch. Sampling is reservoir sampling when use_random (the
stream is numpy's, seeded as every random op is: Paddle seeds it from std::random_device, so no stream is
reproducible there), else the first ones in anchor order. A sampled background anchor that is also foreground
turns background, and, as Paddle's (Detectron's) code does, leaves a "fake" foreground entry: the first sampled
foreground anchor, with inside weights 0, ahead of the real ones (weights 1) in LocationIndex / TargetBBox.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['bbox_overlaps', 'box_to_delta', 'filter_straddle', 'rpn_sample', 'reservoir_sample', 'retinanet_sample',
           'proposal_labels']

_jit = kernel_jit(error_model='numpy')


@_jit
def bbox_overlaps(r, c):
    """[R, C] pixel IoU of boxes r [R, 4] and c [C, 4] (Paddle's BboxOverlaps)."""
    out = np.empty((r.shape[0], c.shape[0]), r.dtype)
    for i in range(r.shape[0]):
        ra = (r[i, 2] - r[i, 0] + 1) * (r[i, 3] - r[i, 1] + 1)
        for j in range(c.shape[0]):
            ca = (c[j, 2] - c[j, 0] + 1) * (c[j, 3] - c[j, 1] + 1)
            iw = max(min(r[i, 2], c[j, 2]) - max(r[i, 0], c[j, 0]) + 1, 0.0)
            ih = max(min(r[i, 3], c[j, 3]) - max(r[i, 1], c[j, 1]) + 1, 0.0)
            inter = iw * ih
            out[i, j] = inter / (ra + ca - inter)
    return out


def box_to_delta(ex: np.ndarray, gt: np.ndarray, weights=None, normalized: bool = False) -> np.ndarray:
    """Regression targets (dx, dy, log dw, log dh) of boxes gt against ex (Paddle's BoxToDelta)."""
    one = 0.0 if normalized else 1.0
    ex_w, ex_h = ex[:, 2] - ex[:, 0] + one, ex[:, 3] - ex[:, 1] + one
    gt_w, gt_h = gt[:, 2] - gt[:, 0] + one, gt[:, 3] - gt[:, 1] + one
    out = np.stack([((gt[:, 0] + 0.5 * gt_w) - (ex[:, 0] + 0.5 * ex_w)) / ex_w,
                    ((gt[:, 1] + 0.5 * gt_h) - (ex[:, 1] + 0.5 * ex_h)) / ex_h,
                    np.log(gt_w / ex_w), np.log(gt_h / ex_h)], axis=1).astype(ex.dtype)
    if weights is not None:
        out = (out / np.asarray(weights, out.dtype)).astype(ex.dtype)
    return out.reshape(-1, 4)


def filter_straddle(anchors: np.ndarray, straddle: float, im_h, im_w) -> np.ndarray:
    """Indices of the anchors inside the image by `straddle` pixels (all of them when straddle < 0)."""
    if straddle < 0:
        return np.arange(anchors.shape[0])
    t = np.float32(straddle)
    inside = ((anchors[:, 0] >= -t) & (anchors[:, 1] >= -t) & (anchors[:, 2] < im_w + t)
              & (anchors[:, 3] < im_h + t))
    return np.nonzero(inside)[0]


def reservoir_sample(inds: list, num: int, rng, use_random: bool) -> list:
    """At most `num` of `inds`: reservoir sampling (Paddle's swaps) or the first `num`."""
    if len(inds) <= num:
        return inds
    inds = list(inds)
    if use_random:
        for i in range(num, len(inds)):
            j = int(math.floor(rng.random() * i))
            if j < num:
                inds[j], inds[i] = inds[i], inds[j]
    return inds[:num]


def rpn_sample(overlaps: np.ndarray, batch_size: int, fg_fraction: float, positive: float, negative: float, rng,
               use_random: bool):
    """(loc index, score index, labels, gt index per loc entry, inside weights [F, 4]) within one image's anchors
    for their overlaps [A, G] with the ground truth (see the module docstring)."""
    anchor_num = overlaps.shape[0]
    anchor_max = overlaps.max(axis=1)
    argmax = overlaps.argmax(axis=1)
    gt_max = overlaps.max(axis=0)
    is_best = (np.abs(overlaps - gt_max[None, :]) < 1e-5).any(axis=1)
    fg_fake = [int(i) for i in np.nonzero(is_best | (anchor_max >= np.float32(positive)))[0]]
    fg_fake = reservoir_sample(fg_fake, int(np.float32(fg_fraction) * np.float32(batch_size)), rng, use_random)
    label = np.full(anchor_num, -1, np.int64)
    label[fg_fake] = 1
    bg = [int(i) for i in np.nonzero(anchor_max < np.float32(negative))[0]]
    bg = reservoir_sample(bg, batch_size - len(fg_fake), rng, use_random)
    loc, weights = [], []
    for i in bg:
        if label[i] == 1:
            loc.append(fg_fake[0])
            weights.append(0.0)
        label[i] = 0
    weights += [1.0] * (len(fg_fake) - len(loc))
    fg_inds = [int(i) for i in np.nonzero(label == 1)[0]]
    bg_inds = [int(i) for i in np.nonzero(label == 0)[0]]
    loc += fg_inds
    loc = np.asarray(loc, np.int64)
    labels = np.asarray([1] * len(fg_inds) + [0] * len(bg_inds), np.int32)
    inside = np.repeat(np.asarray(weights, overlaps.dtype), 4).reshape(-1, 4)
    return loc, np.asarray(fg_inds + bg_inds, np.int64), labels, argmax[loc], inside


def retinanet_sample(overlaps: np.ndarray, gt_labels: np.ndarray, positive: float, negative: float):
    """RetinaNet's labelling of one image's anchors: rpn_sample's without sampling (every foreground and background
    anchor, the zero-weight "fake" entries included, as Paddle 1.8.5 computes it), the foreground labelled with its
    best box's class; also Paddle's ForegroundNumber, the foreground before the background override, plus one.
    (loc index, score index, labels, gt index per loc entry, inside weights [F, 4], foreground count)"""
    anchor_num = overlaps.shape[0]
    loc, score, labels, gt_index, inside = rpn_sample(overlaps, 2 * anchor_num + 2, 0.5, positive, negative, None,
                                                      False)
    anchor_max = overlaps.max(axis=1)
    is_best = (np.abs(overlaps - overlaps.max(axis=0)[None, :]) < 1e-5).any(axis=1)
    fg_count = int((is_best | (anchor_max >= np.float32(positive))).sum())
    n_fg = int(labels.sum())
    labels = labels.copy()
    labels[:n_fg] = gt_labels[overlaps.argmax(axis=1)[score[:n_fg]]]
    return loc, score, labels, gt_index, inside, fg_count + 1


def proposal_labels(rois: np.ndarray, gt_classes: np.ndarray, is_crowd: np.ndarray, gt_boxes: np.ndarray,
                    im_scale, batch_size: int, fg_fraction: float, fg_thresh: float, bg_hi: float, bg_lo: float,
                    weights, class_nums: int, rng, use_random: bool, cascade: bool, cls_agnostic: bool):
    """Fast R-CNN's RoI targets of one image (Paddle 1.8's generate_proposal_labels): the ground-truth boxes then
    the RPN RoIs mapped back to the original image are labelled by their
    best overlap with the ground truth (crowd boxes never foreground): foreground at or above fg_thresh (the first
    best box within 1e-5), background in [bg_lo, bg_hi); then sampled (not in cascade) to at most
    floor(batch_size * fg_fraction) foreground and the rest of the batch background (Paddle's background
    reservoir keeps its quirk of comparing the draw with the foreground count). `cascade`: the RoIs of positive
    size alone, none sampled, the first len(gt_boxes) of them left at the input scale (Paddle 1.8.5's output).
    (rois [R, 4] rescaled, labels [R] int32, targets / inside / outside weights [R, 4 * class_nums])"""
    dtype = rois.dtype
    if cascade:
        # what Paddle 1.8.5's kernel computes in cascade mode (measured against it, see ops/rpn_targets.py): the
        # RoIs alone, of positive size, rescaled except the first len(gt_boxes) of them
        rois = rois[(rois[:, 2] - rois[:, 0] + 1 > 0) & (rois[:, 3] - rois[:, 1] + 1 > 0)]
        boxes = (rois / im_scale).astype(dtype)
        g = min(gt_boxes.shape[0], boxes.shape[0])
        boxes[:g] = rois[:g]
    else:
        boxes = np.concatenate([gt_boxes.astype(dtype), (rois / im_scale).astype(dtype)])
    overlaps = bbox_overlaps(np.ascontiguousarray(boxes), np.ascontiguousarray(gt_boxes, dtype))
    best = overlaps.max(axis=1) if overlaps.shape[1] else np.full(boxes.shape[0], -1.0, dtype)
    crowd = np.zeros(boxes.shape[0], bool)
    crowd[:is_crowd.shape[0]] = is_crowd != 0
    best = np.where(crowd, dtype.type(-1.0), best)
    fg, gt_index, bg = [], [], []
    for i in range(boxes.shape[0]):
        if best[i] >= np.float32(fg_thresh):
            fg.append(i)
            gt_index.append(int(np.nonzero(np.abs(best[i] - overlaps[i]) < 1e-5)[0][0]))
        elif np.float32(bg_lo) <= best[i] < np.float32(bg_hi):
            bg.append(i)
    if not cascade:
        fg_keep = min(int(math.floor(batch_size * np.float32(fg_fraction))), len(fg))
        if use_random and len(fg) > fg_keep:
            for i in range(fg_keep, len(fg)):
                j = int(math.floor(rng.random() * i))
                if j < fg_keep:
                    fg[j], fg[i] = fg[i], fg[j]
                    gt_index[j], gt_index[i] = gt_index[i], gt_index[j]
        fg, gt_index = fg[:fg_keep], gt_index[:fg_keep]
        bg_keep = min(batch_size - fg_keep, len(bg))
        if use_random and len(bg) > bg_keep:
            for i in range(bg_keep, len(bg)):
                j = int(math.floor(rng.random() * i))
                if j < fg_keep:                  # Paddle's condition (the foreground count), kept
                    bg[j], bg[i] = bg[i], bg[j]
        bg = bg[:bg_keep]
    sampled = boxes[fg + bg]
    labels = np.concatenate([gt_classes[gt_index], np.zeros(len(bg), np.int64)]).astype(np.int32)
    deltas = box_to_delta(sampled[:len(fg)], gt_boxes.astype(dtype)[gt_index], weights)
    width = 4 * class_nums
    targets = np.zeros((len(fg) + len(bg), width), dtype)
    inside = np.zeros_like(targets)
    for i in range(len(fg)):
        label = 1 if cls_agnostic else int(labels[i])
        if labels[i] > 0:
            targets[i, 4 * label:4 * label + 4] = deltas[i]
            inside[i, 4 * label:4 * label + 4] = 1
    return (sampled * im_scale).astype(dtype), labels, targets, inside, inside.copy()
