"""Non-maximum suppression kernels, as Paddle's CPU kernels compute them: greedy per-class NMS (multiclass_nms,
multiclass_nms2: `nms_fast` with an adaptive threshold) and Matrix NMS (matrix_nms, SOLOv2's parallel soft
suppression: each box's score decays by its overlap with the higher-scoring boxes of its class, linearly or with a
Gaussian). The per-class loops are numba; boxes are [xmin, ymin, xmax, ymax], pixel boxes (normalized=False)
count both end pixels.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['nms_fast', 'multiclass_nms', 'matrix_nms']

_jit = kernel_jit(error_model='numpy')


@_jit
def _jaccard(b1, b2, normalized):
    if b2[0] > b1[2] or b2[2] < b1[0] or b2[1] > b1[3] or b2[3] < b1[1]:
        return 0.0
    off = 0.0 if normalized else 1.0
    iw = min(b1[2], b2[2]) - max(b1[0], b2[0]) + off
    ih = min(b1[3], b2[3]) - max(b1[1], b2[1]) + off
    inter = iw * ih
    if b1[2] < b1[0] or b1[3] < b1[1]:
        a1 = 0.0
    else:
        a1 = (b1[2] - b1[0] + off) * (b1[3] - b1[1] + off)
    if b2[2] < b2[0] or b2[3] < b2[1]:
        a2 = 0.0
    else:
        a2 = (b2[2] - b2[0] + off) * (b2[3] - b2[1] + off)
    return inter / (a1 + a2 - inter)


@_jit
def nms_fast(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized):
    """Indices kept by greedy NMS over the boxes scoring above score_threshold, best first (Paddle's NMSFast:
    a stable sort by descending score, the first top_k, an adaptive threshold shrunk by eta)."""
    cand = np.where(scores > score_threshold)[0]
    order = cand[np.argsort(-scores[cand], kind='mergesort')]
    if top_k > -1 and top_k < order.shape[0]:
        order = order[:top_k]
    selected = np.empty(order.shape[0], dtype=np.int64)
    n_sel = 0
    threshold = nms_threshold
    for t in range(order.shape[0]):
        idx = order[t]
        keep = True
        for s in range(n_sel):
            if _jaccard(boxes[idx], boxes[selected[s]], normalized) > threshold:
                keep = False
                break
        if keep:
            selected[n_sel] = idx
            n_sel += 1
            if eta < 1.0 and threshold > 0.5:
                threshold *= eta
    return selected[:n_sel]


def multiclass_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold, normalized, nms_eta,
                   background_label) -> tuple[np.ndarray, list[int], np.ndarray]:
    """(rows [label, score, xmin, ymin, xmax, ymax] of every image one after the other, LoD offsets, indices of the
    kept boxes in the flattened [N*M] boxes) for bboxes [N, M, 4] and scores [N, C, M]. With no detection in any
    image: [[-1]] and offsets [0, 1], as Paddle."""
    rows, offsets, kept_index = [], [0], []
    n_boxes = bboxes.shape[1]
    for n in range(bboxes.shape[0]):
        boxes = np.ascontiguousarray(bboxes[n])
        per_class = {}
        total = 0
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            kept = nms_fast(boxes, np.ascontiguousarray(scores[n, c]), float(score_threshold),
                            float(nms_threshold), float(nms_eta), int(nms_top_k), bool(normalized))
            per_class[c] = kept
            total += kept.shape[0]
        if keep_top_k > -1 and total > keep_top_k:
            pairs = [(float(scores[n, c, i]), c, int(i)) for c in sorted(per_class) for i in per_class[c]]
            order = sorted(range(len(pairs)), key=lambda k: -pairs[k][0])[:keep_top_k]   # stable: ties keep order
            kept_by_class = {}
            for k in order:
                kept_by_class.setdefault(pairs[k][1], []).append(pairs[k][2])
            per_class = {c: np.asarray(v, dtype=np.int64) for c, v in kept_by_class.items()}
        for c in sorted(per_class):
            for i in per_class[c]:
                rows.append([c, scores[n, c, i], *boxes[i]])
                kept_index.append(n * n_boxes + int(i))
        offsets.append(len(rows))
    if not rows:
        return np.full((1, 1), -1, dtype=bboxes.dtype), [0, 1], np.zeros((0, 1), dtype=np.int32)
    return (np.asarray(rows, dtype=bboxes.dtype), offsets,
            np.asarray(kept_index, dtype=np.int32).reshape(-1, 1))


@_jit
def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, top_k, normalized, gaussian, sigma):
    """(indices, decayed scores) kept in one class by Matrix NMS, best first."""
    cand = np.where(scores > score_threshold)[0]
    order = cand[np.argsort(-scores[cand], kind='mergesort')]
    if top_k > -1 and order.shape[0] > top_k:
        order = order[:top_k]
    n = order.shape[0]
    kept = np.empty(n, dtype=np.int64)
    decayed = np.empty(n, dtype=np.float64)
    n_kept = 0
    if n == 0:
        return kept[:0], decayed[:0]
    iou = np.zeros((n, n))
    iou_max = np.zeros(n)
    for i in range(1, n):
        m = 0.0
        for j in range(i):
            v = _jaccard(boxes[order[i]], boxes[order[j]], normalized)
            iou[i, j] = v
            m = max(m, v)
        iou_max[i] = m
    if scores[order[0]] > post_threshold:
        kept[0] = order[0]
        decayed[0] = scores[order[0]]
        n_kept = 1
    for i in range(1, n):
        min_decay = 1.0
        for j in range(i):
            if gaussian:
                decay = np.exp((iou_max[j] * iou_max[j] - iou[i, j] * iou[i, j]) * sigma)
            else:
                decay = (1.0 - iou[i, j]) / (1.0 - iou_max[j])
            min_decay = min(min_decay, decay)
        ds = min_decay * scores[order[i]]
        if ds <= post_threshold:
            continue
        kept[n_kept] = order[i]
        decayed[n_kept] = ds
        n_kept += 1
    return kept[:n_kept], decayed[:n_kept]


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian,
               gaussian_sigma, background_label, normalized) -> tuple[np.ndarray, list[int], np.ndarray]:
    """(rows [label, decayed score, box] sorted by decayed score within each image, LoD offsets, indices into the
    flattened boxes) for bboxes [N, M, 4] and scores [N, C, M]."""
    rows, offsets, kept_index = [], [0], []
    n_boxes = bboxes.shape[1]
    for n in range(bboxes.shape[0]):
        boxes = np.ascontiguousarray(bboxes[n])
        found = []                       # (decayed score, class, box index), classes in order
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            idx, ds = _matrix_nms_class(boxes, np.ascontiguousarray(scores[n, c]), float(score_threshold),
                                        float(post_threshold), int(nms_top_k), bool(normalized),
                                        bool(use_gaussian), float(gaussian_sigma))
            found += [(float(d), c, int(i)) for i, d in zip(idx, ds)]
        order = sorted(range(len(found)), key=lambda k: -found[k][0])
        if keep_top_k > -1:
            order = order[:keep_top_k]
        for k in order:
            score, c, i = found[k]
            rows.append([c, score, *boxes[i]])
            kept_index.append(n * n_boxes + i)
        offsets.append(len(rows))
    return (np.asarray(rows, dtype=bboxes.dtype).reshape(-1, 6), offsets,
            np.asarray(kept_index, dtype=np.int32).reshape(-1, 1))
