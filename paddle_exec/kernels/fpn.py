"""FPN's RoI routing as Paddle 1.8 computes it (ops/fpn.py): distribute_fpn_proposals sends each RoI to the level
floor(log2(sqrt(area) / refer_scale) + refer_level) clamped to [min_level, max_level] (pixel area, both end pixels
counted; 0 for an inverted box), keeping the images' order within each level; collect_fpn_proposals keeps the
post_nms_top_n best-scoring RoIs of all levels (a stable sort on descending scores) and regroups them by image.
"""
from __future__ import annotations

import numpy as np

__all__ = ['distribute_fpn_proposals', 'collect_fpn_proposals']


def distribute_fpn_proposals(rois: np.ndarray, offsets: np.ndarray, min_level: int, max_level: int,
                             refer_level: int, refer_scale: int):
    """(per level: rois [Ri, 4] and their offsets over the images; restore index [R] int32: where each input RoI
    went in the levels' concatenation)."""
    dtype = rois.dtype
    w, h = rois[:, 2] - rois[:, 0], rois[:, 3] - rois[:, 1]
    area = np.where((w < 0) | (h < 0), dtype.type(0), (w + dtype.type(1)) * (h + dtype.type(1))).astype(dtype)
    scale = np.sqrt(area).astype(dtype)
    level = np.floor(np.log2(scale / dtype.type(refer_scale)) + dtype.type(refer_level)).astype(np.int64)
    level = np.clip(level, min_level, max_level)
    n_img = offsets.shape[0] - 1
    image = np.repeat(np.arange(n_img), np.diff(offsets))
    outs, order = [], []
    for lv in range(min_level, max_level + 1):
        picked = np.nonzero(level == lv)[0]               # in input order: image by image
        counts = np.bincount(image[picked], minlength=n_img)
        outs.append((rois[picked], np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)))
        order.append(picked)
    shuffled = np.concatenate(order) if order else np.zeros(0, np.int64)
    restore = np.empty(rois.shape[0], np.int32)
    restore[shuffled] = np.arange(shuffled.shape[0], dtype=np.int32)
    return outs, restore


def collect_fpn_proposals(rois: list, scores: list, score_offsets: list, post_nms_top_n: int):
    """(rois [K, 4], LoD offsets) of the best post_nms_top_n RoIs over the levels, grouped by image. The offsets
    follow Paddle's kernel: a boundary wherever the image changes between consecutive kept RoIs (an image with
    none kept adds no sequence)."""
    entries = []                                       # (score, image, index, level) in level order
    for lv, (s, offs) in enumerate(zip(scores, score_offsets)):
        s = np.asarray(s).reshape(-1)
        image = 0
        for j in range(s.shape[0]):
            if j >= offs[image + 1]:
                image += 1
            entries.append((s[j], image, j, lv))
    top = min(post_nms_top_n, len(entries))
    kept = sorted(entries, key=lambda e: -e[0])[:top]      # Python's sort is stable
    kept = sorted(kept, key=lambda e: e[1])
    out = np.empty((top, 4), rois[0].dtype if rois else np.float32)
    offsets, current = [0], 0
    for i, (_, image, j, lv) in enumerate(kept):
        out[i] = rois[lv][j]
        if image != current:
            current = image
            offsets.append(i)
    offsets.append(top)
    return out, offsets
