"""Detection mAP as Paddle 1.8's detection_map CPU kernel computes it.

Per image (sequence i of the ground truth and of the detections): ground-truth rows [label, (difficult,) xmin, ymin,
xmax, ymax], detection rows [label, score, xmin, ymin, xmax, ymax]. `match_detections` walks the images, and within
an image the detection labels in ascending order, and emits one (label, score, true positive?) record per detection,
in the order Paddle pushes them into its per-class lists:
  - a label without ground truth in the image: every detection is a false positive, in input order;
  - otherwise the detections sorted by score (descending, stable), each clipped to [0, 1] and matched to the
    ground-truth box of its label with the largest Jaccard overlap (the first on ties); above `overlap_threshold`
    it is a true positive unless that box is taken already (then false); a difficult box with
    evaluate_difficult off leaves the detection uncounted; below the threshold a false positive.
`positive_counts` counts each class's ground-truth boxes (difficult ones only with evaluate_difficult).

`average_precision` is CalcMAP: per class with a positive count, its true- and false-positive records (the
accumulated state first) each stably sorted by score and summed cumulatively, precision and recall, and
'integral' (sum of precision times recall steps, float32 as Paddle) or '11point' (VOC2007) AP; mAP is their mean.
As Paddle, a class is skipped when its positive *count* equals `background_label` (Paddle compares the count, not
the label), and a class with positives but no detections counts with AP 0.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['match_detections', 'positive_counts', 'average_precision']

_jit = kernel_jit(error_model='numpy')


@_jit
def _jaccard(a0, a1, a2, a3, b0, b1, b2, b3):
    if b0 > a2 or b2 < a0 or b1 > a3 or b3 < a1:
        return a0 * 0
    iw = min(a2, b2) - max(a0, b0)
    ih = min(a3, b3) - max(a1, b1)
    inter = iw * ih
    return inter / ((a2 - a0) * (a3 - a1) + (b2 - b0) * (b3 - b1) - inter)


@_jit
def match_detections(gt, gt_offsets, has_difficult, det, det_offsets, evaluate_difficult, threshold, out_label,
                     out_score, out_tp):
    """Fills the records (see the module docstring); returns how many."""
    n = 0
    box = 2 if has_difficult else 1
    one, zero = det[0, 0] * 0 + 1, det[0, 0] * 0
    for img in range(gt_offsets.shape[0] - 1):
        g0, g1 = gt_offsets[img], gt_offsets[img + 1]
        d0, d1 = det_offsets[img], det_offsets[img + 1]
        labels = np.unique(det[d0:d1, 0].astype(np.int64))
        for label in labels:
            rows = np.empty(d1 - d0, np.int64)
            m = 0
            for i in range(d0, d1):
                if np.int64(det[i, 0]) == label:
                    rows[m] = i
                    m += 1
            rows = rows[:m]
            gts = np.empty(g1 - g0, np.int64)
            k = 0
            for j in range(g0, g1):
                if np.int64(gt[j, 0]) == label:
                    gts[k] = j
                    k += 1
            if k == 0:
                for i in rows:
                    out_label[n], out_score[n], out_tp[n] = label, det[i, 1], 0
                    n += 1
                continue
            gts = gts[:k]
            rows = rows[np.argsort(-det[rows, 1], kind='mergesort')]
            visited = np.zeros(k, np.bool_)
            for i in rows:
                x0 = max(min(det[i, 2], one), zero)
                y0 = max(min(det[i, 3], one), zero)
                x1 = max(min(det[i, 4], one), zero)
                y1 = max(min(det[i, 5], one), zero)
                best, best_j = -one, 0
                for jj in range(k):
                    g = gts[jj]
                    overlap = _jaccard(x0, y0, x1, y1, gt[g, box], gt[g, box + 1], gt[g, box + 2], gt[g, box + 3])
                    if overlap > best:
                        best, best_j = overlap, jj
                if best > threshold:
                    difficult = has_difficult and abs(gt[gts[best_j], 1]) >= 1e-6
                    if evaluate_difficult or not difficult:
                        out_label[n], out_score[n] = label, det[i, 1]
                        out_tp[n] = 0 if visited[best_j] else 1
                        visited[best_j] = True
                        n += 1
                else:
                    out_label[n], out_score[n], out_tp[n] = label, det[i, 1], 0
                    n += 1
    return n


def positive_counts(gt: np.ndarray, has_difficult: bool, evaluate_difficult: bool) -> dict:
    """class -> number of ground-truth boxes counted (classes with none are absent, as in Paddle's map)."""
    labels = gt[:, 0].astype(np.int64)
    if has_difficult and not evaluate_difficult:
        labels = labels[np.abs(gt[:, 1]) < 1e-6]
    classes, counts = np.unique(labels, return_counts=True)
    return {int(c): int(n) for c, n in zip(classes, counts)}


def _accumulate(scores: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Paddle's GetAccumulation: the flags stably sorted by descending score, summed cumulatively."""
    return np.cumsum(flags[np.argsort(-scores, kind='stable')].astype(np.int64))


def average_precision(pos_count: dict, true_pos: dict, false_pos: dict, ap_type: str,
                      background_label: int) -> np.float32:
    """mAP over the classes of `pos_count`; true_pos / false_pos: class -> (scores, flags) in push order."""
    f32 = np.float32
    total, count = f32(0), 0
    for label in sorted(pos_count):
        num_pos = pos_count[label]
        if num_pos == background_label:
            continue
        if label not in true_pos:
            count += 1
            continue
        tp_sum, fp_sum = _accumulate(*true_pos[label]), _accumulate(*false_pos[label])
        precision = tp_sum.astype(f32) / (tp_sum + fp_sum).astype(f32)
        recall = tp_sum.astype(f32) / f32(num_pos)
        if ap_type == '11point':
            max_precisions = np.zeros(11, f32)
            start = len(tp_sum) - 1
            for j in range(10, -1, -1):
                for i in range(start, -1, -1):
                    if recall[i] < j / 10.:
                        start = i
                        if j > 0:
                            max_precisions[j - 1] = max_precisions[j]
                        break
                    if max_precisions[j] < precision[i]:
                        max_precisions[j] = precision[i]
            for j in range(10, -1, -1):
                total += max_precisions[j] / f32(11)
        elif ap_type == 'integral':
            ap, prev = f32(0), f32(0)
            for p, r in zip(precision, recall):
                if abs(r - prev) > 1e-6:
                    ap += p * abs(r - prev)
                prev = r
            total += ap
        else:
            raise ValueError('Unkown ap version %s. Now only supports integral and l1point.' % ap_type)
        count += 1
    return total / f32(count) if count else total
