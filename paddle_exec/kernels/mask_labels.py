"""Mask R-CNN's mask targets as Paddle 1.8's generate_mask_labels computes them (ops/mask_labels.py), with its
polygon rasteriser (Paddle's mask_util.cc, the COCO API's rleFrPoly: the polygon is upsampled 5x, its edges walked,
the y-boundary crossings downsampled to pixel columns and run-length encoded, then decoded column-major).

Per image: the ground-truth objects of a foreground class that are not crowd keep their polygons; each foreground
RoI (label > 0) takes the object whose polygons' bounding box (Paddle's Poly2Boxes, whose maxima start at FLT_MIN)
overlaps it most (pixel IoU; the first object when none overlaps), and its mask is that object's polygons
rasterised in the RoI's frame at resolution x resolution (united when several). The mask targets are -1 except in
the RoI's class block. An image without foreground RoIs gives one row: Paddle's first RoI (whatever its label:
its kernel reads row 0) with class 0 and an all -1 target, and the index of the first background RoI.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit
from .rpn_targets import bbox_overlaps

__all__ = ['poly_to_mask', 'mask_targets_one_image']

_jit = kernel_jit(error_model='numpy')

FLT_MIN = np.float32(1.1754943508222875e-38)


@_jit
def poly_to_mask(xy, h, w):
    """uint8 mask [h, w] of the polygon xy [k, 2] (float32 coordinates in the mask's pixel frame)."""
    k = xy.shape[0]
    scale = 5.0
    x = np.empty(k + 1, np.int64)
    y = np.empty(k + 1, np.int64)
    for j in range(k):
        x[j] = int(scale * np.float64(xy[j, 0]) + 0.5)
        y[j] = int(scale * np.float64(xy[j, 1]) + 0.5)
    x[k] = x[0]
    y[k] = y[0]
    m = 0
    for j in range(k):
        m += max(abs(x[j] - x[j + 1]), abs(y[j] - y[j + 1])) + 1
    u = np.empty(m, np.int64)
    v = np.empty(m, np.int64)
    m = 0
    for j in range(k):
        xs, xe, ys, ye = x[j], x[j + 1], y[j], y[j + 1]
        dx = abs(xe - xs)
        dy = abs(ys - ye)
        flip = (dx >= dy and xs > xe) or (dx < dy and ys > ye)
        if flip:
            xs, xe = xe, xs
            ys, ye = ye, ys
        if dx >= dy:
            s = (ye - ys) / dx if dx != 0 else 0.0
            for d in range(dx + 1):
                t = dx - d if flip else d
                u[m] = t + xs
                v[m] = int(ys + s * t + 0.5)
                m += 1
        else:
            s = (xe - xs) / dy
            for d in range(dy + 1):
                t = dy - d if flip else d
                v[m] = t + ys
                u[m] = int(xs + s * t + 0.5)
                m += 1
    bx = np.empty(m, np.int64)
    by = np.empty(m, np.int64)
    n = 0
    for j in range(1, m):
        if u[j] != u[j - 1]:
            xd = np.float64(u[j] if u[j] < u[j - 1] else u[j] - 1)
            xd = (xd + 0.5) / scale - 0.5
            if np.floor(xd) != xd or xd < 0 or xd > w - 1:
                continue
            yd = np.float64(v[j] if v[j] < v[j - 1] else v[j - 1])
            yd = (yd + 0.5) / scale - 0.5
            if yd < 0:
                yd = 0.0
            elif yd > h:
                yd = np.float64(h)
            yd = np.ceil(yd)
            bx[n] = int(xd)
            by[n] = int(yd)
            n += 1
    a = np.empty(n + 1, np.int64)
    for j in range(n):
        a[j] = bx[j] * h + by[j]
    a[n] = h * w
    a = np.sort(a)
    p = 0
    for j in range(n + 1):
        t = a[j]
        a[j] -= p
        p = t
    b = np.empty(n + 1, np.int64)
    j = 0
    mm = 0
    b[mm] = a[j]
    mm += 1
    j += 1
    while j < n + 1:
        if a[j] > 0:
            b[mm] = a[j]
            mm += 1
            j += 1
        else:
            j += 1
            if j < n + 1:
                b[mm - 1] += a[j]
                j += 1
    flat = np.zeros(h * w, np.uint8)        # column-major, as the RLE runs
    pos = 0
    val = 0
    for r in range(mm):
        for _ in range(b[r]):
            if pos < h * w:
                flat[pos] = val
            pos += 1
        val = 1 - val
    out = np.empty((h, w), np.uint8)
    for ii in range(h):
        for jj in range(w):
            out[ii, jj] = flat[jj * h + ii]
    return out


def polys_mask_in_box(polygons: list, box: np.ndarray, resolution: int) -> np.ndarray:
    """The union of the polygons rasterised in the frame of box (Paddle's Polys2MaskWrtBox)."""
    w = max(np.float32(box[2] - box[0]), np.float32(1.0))
    h = max(np.float32(box[3] - box[1]), np.float32(1.0))
    res = np.float32(resolution)
    mask = np.zeros((resolution, resolution), np.uint8)
    for poly in polygons:
        p = np.empty((poly.shape[0], 2), np.float32)
        p[:, 0] = (poly[:, 0] - box[0]) * res / w
        p[:, 1] = (poly[:, 1] - box[1]) * res / h
        mask |= poly_to_mask(p, resolution, resolution)
    return mask


def _poly_boxes(objects: list, dtype) -> np.ndarray:
    boxes = np.empty((len(objects), 4), dtype)
    for i, polys in enumerate(objects):
        x0 = y0 = np.float32(np.finfo(np.float32).max)
        x1 = y1 = FLT_MIN
        for poly in polys:
            x0, x1 = min(x0, poly[:, 0].min()), max(x1, poly[:, 0].max())
            y0, y1 = min(y0, poly[:, 1].min()), max(y1, poly[:, 1].max())
        boxes[i] = (x0, y0, x1, y1)
    return boxes


def mask_targets_one_image(objects: list, gt_classes, is_crowd, rois, labels, im_scale, num_classes: int,
                           resolution: int):
    """(mask rois [F, 4], roi has mask [F, 1] int32, mask targets [F, num_classes * resolution**2] int32) of one
    image; `objects` is each ground-truth object's list of polygons ([k, 2] float32 arrays)."""
    dtype = rois.dtype
    keep = [i for i in range(gt_classes.shape[0]) if gt_classes[i] > 0 and is_crowd[i] == 0]
    polys = [objects[i] for i in keep]
    fg = [i for i in range(rois.shape[0]) if labels[i] > 0]
    area = resolution * resolution
    if fg:
        rois_fg = (rois[fg] / im_scale).astype(dtype)
        boxes = _poly_boxes(polys, dtype)
        overlaps = bbox_overlaps(np.ascontiguousarray(rois_fg), boxes) if polys else np.zeros((len(fg), 0), dtype)
        targets = np.full((len(fg), num_classes * area), -1, np.int32)
        for i in range(len(fg)):
            best, obj = FLT_MIN, 0
            for j in range(overlaps.shape[1]):
                if overlaps[i, j] > best:
                    best, obj = overlaps[i, j], j
            cls = int(labels[fg[i]])
            mask = polys_mask_in_box(polys[obj], rois_fg[i], resolution)
            targets[i, cls * area:(cls + 1) * area] = mask.reshape(-1)
        has_mask = np.asarray(fg, np.int32)
    else:
        bg = [i for i in range(rois.shape[0]) if labels[i] == 0][:1]
        rois_fg = (rois[:1] / im_scale).astype(dtype)       # Paddle's kernel reads row 0, not the background's
        targets = np.full((1, num_classes * area), -1, np.int32)
        has_mask = np.asarray(bg, np.int32)
    return (rois_fg * im_scale).astype(dtype), has_mask.reshape(-1, 1), targets
