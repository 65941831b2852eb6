"""Detection kernels: box overlap and coding, prior / anchor generation, YOLO box decoding, RoI align and RoI
pooling, bipartite matching, focal loss (the NMS family is kernels/nms.py), as Paddle 1.8's CPU kernels compute
them (the op descriptions in ops/detection.py).

Boxes are [xmin, ymin, xmax, ymax]. `normalized` boxes are in [0, 1]; pixel boxes (normalized=False) count both
end pixels, so their width is xmax - xmin + 1. The loops that carry a step's time (IoU matrices, NMS, RoI
align / pool and their gradients, YOLO decoding) are numba; the generators of fixed boxes run once per shape and
are numba too so they stay cheap for big feature maps.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['iou_similarity', 'box_encode_center_size', 'box_decode_center_size', 'prior_box', 'density_prior_box',
           'anchor_generator', 'yolo_box', 'box_clip', 'polygon_box_transform',
           'roi_batch_ids', 'roi_align_forward', 'roi_align_backward', 'roi_pool_forward', 'roi_pool_backward',
           'expand_aspect_ratios', 'bipartite_match',
           'box_decoder_and_assign']

_jit = kernel_jit(error_model='numpy')


# --- overlap --------------------------------------------------------------------------------------------------

@_jit
def _iou_matrix(x, y, norm_offset, out):
    for i in range(x.shape[0]):
        area1 = (x[i, 2] - x[i, 0] + norm_offset) * (x[i, 3] - x[i, 1] + norm_offset)
        for j in range(y.shape[0]):
            area2 = (y[j, 2] - y[j, 0] + norm_offset) * (y[j, 3] - y[j, 1] + norm_offset)
            iw = min(x[i, 2], y[j, 2]) - max(x[i, 0], y[j, 0]) + norm_offset
            ih = min(x[i, 3], y[j, 3]) - max(x[i, 1], y[j, 1]) + norm_offset
            inter = max(iw, 0.0) * max(ih, 0.0)
            out[i, j] = inter / (area1 + area2 - inter)


def iou_similarity(x: np.ndarray, y: np.ndarray, normalized: bool = True) -> np.ndarray:
    """[N, M] IoU of every box of x [N, 4] with every box of y [M, 4]."""
    out = np.empty((x.shape[0], y.shape[0]), dtype=x.dtype)
    _iou_matrix(np.ascontiguousarray(x), np.ascontiguousarray(y), x.dtype.type(0 if normalized else 1), out)
    return out


# --- box coder ------------------------------------------------------------------------------------------------

@_jit
def _encode(target, prior, var, norm_offset, out):
    for j in range(prior.shape[0]):
        pw = prior[j, 2] - prior[j, 0] + norm_offset
        ph = prior[j, 3] - prior[j, 1] + norm_offset
        pcx = prior[j, 0] + pw / 2
        pcy = prior[j, 1] + ph / 2
        for i in range(target.shape[0]):
            tcx = (target[i, 2] + target[i, 0]) / 2
            tcy = (target[i, 3] + target[i, 1]) / 2
            tw = target[i, 2] - target[i, 0] + norm_offset
            th = target[i, 3] - target[i, 1] + norm_offset
            out[i, j, 0] = (tcx - pcx) / pw / var[j, 0]
            out[i, j, 1] = (tcy - pcy) / ph / var[j, 1]
            out[i, j, 2] = math.log(abs(tw / pw)) / var[j, 2]
            out[i, j, 3] = math.log(abs(th / ph)) / var[j, 3]


def _prior_variances(prior: np.ndarray, prior_var, variance) -> np.ndarray:
    if prior_var is not None:
        return np.ascontiguousarray(prior_var, dtype=prior.dtype)
    values = variance if variance else [1.0, 1.0, 1.0, 1.0]
    return np.tile(np.asarray(values, dtype=prior.dtype), (prior.shape[0], 1))


def box_encode_center_size(target, prior, prior_var=None, variance=(), normalized=True) -> np.ndarray:
    """[N, M, 4] offsets of each target box [N, 4] from each prior box [M, 4], divided by the variances (the
    PriorBoxVar rows, else the `variance` attribute, else 1)."""
    out = np.empty((target.shape[0], prior.shape[0], 4), dtype=target.dtype)
    _encode(np.ascontiguousarray(target), np.ascontiguousarray(prior, dtype=target.dtype),
            _prior_variances(prior.astype(target.dtype), prior_var, variance),
            target.dtype.type(0 if normalized else 1), out)
    return out


@_jit
def _decode(target, prior, var, axis, norm_offset, out):
    for i in range(target.shape[0]):
        for j in range(target.shape[1]):
            p = j if axis == 0 else i
            pw = prior[p, 2] - prior[p, 0] + norm_offset
            ph = prior[p, 3] - prior[p, 1] + norm_offset
            pcx = prior[p, 0] + pw / 2
            pcy = prior[p, 1] + ph / 2
            cx = var[p, 0] * target[i, j, 0] * pw + pcx
            cy = var[p, 1] * target[i, j, 1] * ph + pcy
            w = math.exp(var[p, 2] * target[i, j, 2]) * pw
            h = math.exp(var[p, 3] * target[i, j, 3]) * ph
            out[i, j, 0] = cx - w / 2
            out[i, j, 1] = cy - h / 2
            out[i, j, 2] = cx + w / 2 - norm_offset
            out[i, j, 3] = cy + h / 2 - norm_offset


def box_decode_center_size(target, prior, prior_var=None, variance=(), normalized=True, axis=0) -> np.ndarray:
    """Boxes [N, M, 4] from offsets target [N, M, 4]: prior box j for column j (axis 0) or row i (axis 1)."""
    out = np.empty(target.shape, dtype=target.dtype)
    _decode(np.ascontiguousarray(target), np.ascontiguousarray(prior, dtype=target.dtype),
            _prior_variances(prior.astype(target.dtype), prior_var, variance), int(axis),
            target.dtype.type(0 if normalized else 1), out)
    return out


# --- priors and anchors ---------------------------------------------------------------------------------------

def expand_aspect_ratios(aspect_ratios, flip: bool) -> list[float]:
    """1.0 first, then each ratio not already present (within 1e-6), and its inverse when flip."""
    out = [1.0]
    for ar in aspect_ratios:
        if any(abs(ar - e) < 1e-6 for e in out):
            continue
        out.append(float(ar))
        if flip:
            out.append(1.0 / ar)
    return out


@_jit
def _prior_boxes(fh, fw, img_h, img_w, step_h, step_w, offset, min_sizes, max_sizes, ars, mm_order, out):
    for h in range(fh):
        for w in range(fw):
            cx = (w + offset) * step_w
            cy = (h + offset) * step_h
            idx = 0
            for s in range(min_sizes.shape[0]):
                min_size = min_sizes[s]
                if mm_order:
                    bw = min_size / 2.0
                    bh = bw
                    out[h, w, idx, 0] = (cx - bw) / img_w
                    out[h, w, idx, 1] = (cy - bh) / img_h
                    out[h, w, idx, 2] = (cx + bw) / img_w
                    out[h, w, idx, 3] = (cy + bh) / img_h
                    idx += 1
                    if max_sizes.shape[0] > 0:
                        bw = math.sqrt(min_size * max_sizes[s]) / 2.0
                        bh = bw
                        out[h, w, idx, 0] = (cx - bw) / img_w
                        out[h, w, idx, 1] = (cy - bh) / img_h
                        out[h, w, idx, 2] = (cx + bw) / img_w
                        out[h, w, idx, 3] = (cy + bh) / img_h
                        idx += 1
                    for r in range(ars.shape[0]):
                        ar = ars[r]
                        if abs(ar - 1.0) < 1e-6:
                            continue
                        bw = min_size * math.sqrt(ar) / 2.0
                        bh = min_size / math.sqrt(ar) / 2.0
                        out[h, w, idx, 0] = (cx - bw) / img_w
                        out[h, w, idx, 1] = (cy - bh) / img_h
                        out[h, w, idx, 2] = (cx + bw) / img_w
                        out[h, w, idx, 3] = (cy + bh) / img_h
                        idx += 1
                else:
                    for r in range(ars.shape[0]):
                        ar = ars[r]
                        bw = min_size * math.sqrt(ar) / 2.0
                        bh = min_size / math.sqrt(ar) / 2.0
                        out[h, w, idx, 0] = (cx - bw) / img_w
                        out[h, w, idx, 1] = (cy - bh) / img_h
                        out[h, w, idx, 2] = (cx + bw) / img_w
                        out[h, w, idx, 3] = (cy + bh) / img_h
                        idx += 1
                    if max_sizes.shape[0] > 0:
                        bw = math.sqrt(min_size * max_sizes[s]) / 2.0
                        bh = bw
                        out[h, w, idx, 0] = (cx - bw) / img_w
                        out[h, w, idx, 1] = (cy - bh) / img_h
                        out[h, w, idx, 2] = (cx + bw) / img_w
                        out[h, w, idx, 3] = (cy + bh) / img_h
                        idx += 1


def _steps(feature_hw, image_hw, steps) -> tuple[float, float]:
    if steps[0] == 0 or steps[1] == 0:
        return image_hw[1] / feature_hw[1], image_hw[0] / feature_hw[0]
    return float(steps[0]), float(steps[1])


def prior_box(feature_hw, image_hw, min_sizes, max_sizes, aspect_ratios, variances, flip, clip, steps, offset,
              min_max_aspect_ratios_order) -> tuple[np.ndarray, np.ndarray]:
    """(boxes, variances), each [H, W, num_priors, 4] float32, for a feature map of feature_hw on an image of
    image_hw."""
    ars = np.asarray(expand_aspect_ratios(aspect_ratios, flip), dtype=np.float32)
    mins = np.asarray(min_sizes, dtype=np.float32)
    maxs = np.asarray(max_sizes or [], dtype=np.float32)
    num_priors = len(ars) * len(mins) + len(maxs)
    step_w, step_h = _steps(feature_hw, image_hw, steps)
    out = np.zeros((feature_hw[0], feature_hw[1], num_priors, 4), dtype=np.float32)
    _prior_boxes(feature_hw[0], feature_hw[1], np.float32(image_hw[0]), np.float32(image_hw[1]),
                 np.float32(step_h), np.float32(step_w), np.float32(offset), mins, maxs, ars,
                 bool(min_max_aspect_ratios_order), out)
    if clip:
        np.clip(out, 0.0, 1.0, out=out)
    var = np.broadcast_to(np.asarray(variances, dtype=np.float32), out.shape).copy()
    return out, var


def density_prior_box(feature_hw, image_hw, densities, fixed_sizes, fixed_ratios, variances, clip, steps,
                      offset) -> tuple[np.ndarray, np.ndarray]:
    """(boxes, variances) [H, W, num_priors, 4]: for each fixed size, density x density shifted boxes per ratio."""
    step_w, step_h = _steps(feature_hw, image_hw, steps)
    step_average = int((step_w + step_h) * 0.5)
    num_priors = sum(len(fixed_ratios) * d * d for d in densities)
    img_h, img_w = float(image_hw[0]), float(image_hw[1])
    out = np.zeros((feature_hw[0], feature_hw[1], num_priors, 4), dtype=np.float32)
    for h in range(feature_hw[0]):
        for w in range(feature_hw[1]):
            cx, cy = (w + offset) * step_w, (h + offset) * step_h
            idx = 0
            for size, density in zip(fixed_sizes, densities):
                shift = int(step_average / density)
                for ratio in fixed_ratios:
                    bw, bh = size * math.sqrt(ratio), size / math.sqrt(ratio)
                    dcx = cx - step_average / 2.0 + shift / 2.0
                    dcy = cy - step_average / 2.0 + shift / 2.0
                    for di in range(density):
                        for dj in range(density):
                            x, y = dcx + dj * shift, dcy + di * shift
                            out[h, w, idx] = [max((x - bw / 2.0) / img_w, 0.0), max((y - bh / 2.0) / img_h, 0.0),
                                              min((x + bw / 2.0) / img_w, 1.0), min((y + bh / 2.0) / img_h, 1.0)]
                            idx += 1
    if clip:
        np.clip(out, 0.0, 1.0, out=out)
    var = np.broadcast_to(np.asarray(variances, dtype=np.float32), out.shape).copy()
    return out, var


def anchor_generator(feature_hw, anchor_sizes, aspect_ratios, variances, stride, offset) -> tuple:
    """(anchors, variances) [H, W, len(ratios) * len(sizes), 4] in pixels, ratios outer and sizes inner."""
    stride_w, stride_h = float(stride[0]), float(stride[1])
    num = len(aspect_ratios) * len(anchor_sizes)
    out = np.zeros((feature_hw[0], feature_hw[1], num, 4), dtype=np.float32)
    area = stride_w * stride_h
    shapes = []
    for r in aspect_ratios:
        base_w = round(math.sqrt(area / r))
        base_h = round(base_w * r)
        for s in anchor_sizes:
            shapes.append((s / stride_w * base_w, s / stride_h * base_h))
    for h in range(feature_hw[0]):
        for w in range(feature_hw[1]):
            x_ctr = w * stride_w + offset * (stride_w - 1)
            y_ctr = h * stride_h + offset * (stride_h - 1)
            for idx, (aw, ah) in enumerate(shapes):
                out[h, w, idx] = [x_ctr - 0.5 * (aw - 1), y_ctr - 0.5 * (ah - 1),
                                  x_ctr + 0.5 * (aw - 1), y_ctr + 0.5 * (ah - 1)]
    var = np.broadcast_to(np.asarray(variances, dtype=np.float32), out.shape).copy()
    return out, var


# --- YOLO -----------------------------------------------------------------------------------------------------

@_jit
def _sigmoid(v):
    return 1.0 / (1.0 + math.exp(-v))


@_jit
def _yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample, clip, scale, boxes, scores):
    n, _, h, w = x.shape
    an_num = anchors.shape[0] // 2
    bias = -0.5 * (scale - 1.0)
    # Paddle 1.8 scales both axes by the grid height (grid_size = h, input_size = downsample * h)
    grid = h
    input_size = downsample * h
    for i in range(n):
        img_h = img_size[i, 0]
        img_w = img_size[i, 1]
        for j in range(an_num):
            base = j * (5 + class_num)
            for k in range(h):
                for m in range(w):
                    conf = _sigmoid(x[i, base + 4, k, m])
                    if conf < conf_thresh:
                        continue
                    bx = (m + _sigmoid(x[i, base, k, m]) * scale + bias) * img_w / grid
                    by = (k + _sigmoid(x[i, base + 1, k, m]) * scale + bias) * img_h / grid
                    bw = math.exp(x[i, base + 2, k, m]) * anchors[2 * j] * img_w / input_size
                    bh = math.exp(x[i, base + 3, k, m]) * anchors[2 * j + 1] * img_h / input_size
                    b = j * h * w + k * w + m
                    x0 = bx - bw / 2
                    y0 = by - bh / 2
                    x1 = bx + bw / 2
                    y1 = by + bh / 2
                    if clip:
                        x0 = max(x0, 0.0)
                        y0 = max(y0, 0.0)
                        x1 = min(x1, img_w - 1.0)
                        y1 = min(y1, img_h - 1.0)
                    boxes[i, b, 0] = x0
                    boxes[i, b, 1] = y0
                    boxes[i, b, 2] = x1
                    boxes[i, b, 3] = y1
                    for c in range(class_num):
                        scores[i, b, c] = conf * _sigmoid(x[i, base + 5 + c, k, m])


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox, scale_x_y=1.0):
    """(boxes [N, A*H*W, 4], scores [N, A*H*W, class_num]) from a YOLOv3 head x [N, A*(5+C), H, W]; boxes whose
    objectness is under conf_thresh stay 0. As in Paddle 1.8, both axes are scaled by the grid height (the head
    is assumed square)."""
    n, _, h, w = x.shape
    box_num = (len(anchors) // 2) * h * w
    boxes = np.zeros((n, box_num, 4), dtype=x.dtype)
    scores = np.zeros((n, box_num, class_num), dtype=x.dtype)
    _yolo_box(np.ascontiguousarray(x), np.ascontiguousarray(img_size).astype(np.float64),
              np.asarray(anchors, dtype=np.float64), int(class_num), float(conf_thresh), int(downsample_ratio),
              bool(clip_bbox), float(scale_x_y), boxes, scores)
    return boxes, scores


def box_clip(boxes: np.ndarray, im_info: np.ndarray) -> np.ndarray:
    """Boxes [N, ..., 4] clipped to image n's [0, round(w / scale) - 1] x [0, round(h / scale) - 1]
    (im_info rows: height, width, scale); a 2-D [M, 4] input uses row 0."""
    out = np.array(boxes, copy=True)
    view = out[None] if out.ndim == 2 else out
    for n in range(view.shape[0]):
        h, w, scale = (float(v) for v in im_info[n][:3])
        im_w, im_h = np.round(w / scale), np.round(h / scale)
        view[n, ..., 0::2] = np.clip(view[n, ..., 0::2], 0, im_w - 1)
        view[n, ..., 1::2] = np.clip(view[n, ..., 1::2], 0, im_h - 1)
    return out


def polygon_box_transform(x: np.ndarray) -> np.ndarray:
    """Geometry channels [N, C, H, W] to absolute quadrilateral coordinates: 4 * column - x on even channels,
    4 * row - x on odd ones."""
    _, c, h, w = x.shape
    cols = (np.arange(w, dtype=x.dtype) * 4)[None, None, None, :]
    rows = (np.arange(h, dtype=x.dtype) * 4)[None, None, :, None]
    even = (np.arange(c) % 2 == 0)[None, :, None, None]
    return np.where(even, cols - x, rows - x).astype(x.dtype)


# --- RoI align / pool -----------------------------------------------------------------------------------------

def roi_batch_ids(num_rois: int, batch: int, lod=None) -> np.ndarray:
    """The image of each RoI: from LoD offsets [0, n0, n0 + n1, ...] or per-image counts; all image 0 when the
    batch has one image and no LoD is given."""
    if lod is None:
        if batch != 1:
            raise ValueError('RoIs of a batch of %d images need their LoD (rois_lod / RoisNum) to say which image '
                             'each belongs to' % batch)
        return np.zeros(num_rois, dtype=np.int64)
    lod = np.asarray(lod, dtype=np.int64).reshape(-1)
    if lod.size == batch and (lod.size == 0 or lod[0] != 0 or lod.sum() == num_rois):   # counts per image
        lod = np.concatenate([[0], np.cumsum(lod)])
    if lod.size != batch + 1 or lod[-1] != num_rois:
        raise ValueError('The RoIs LoD %s does not match %d RoIs over a batch of %d images'
                         % (lod.tolist(), num_rois, batch))
    ids = np.empty(num_rois, dtype=np.int64)
    for n in range(batch):
        ids[lod[n]:lod[n + 1]] = n
    return ids


@_jit
def _bilinear_point(y, x, height, width):
    """(y_low, x_low, y_high, x_high, w1..w4); weights all 0 outside [-1, size]."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return 0, 0, 0, 0, 0.0, 0.0, 0.0, 0.0
    if y <= 0:
        y = 0.0
    if x <= 0:
        x = 0.0
    y_low = int(y)
    x_low = int(x)
    if y_low >= height - 1:
        y_high = y_low = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_high = x_low = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly = y - y_low
    lx = x - x_low
    hy = 1.0 - ly
    hx = 1.0 - lx
    return y_low, x_low, y_high, x_high, hy * hx, hy * lx, ly * hx, ly * lx


@_jit
def _roi_align(x, rois, batch_ids, scale, ph_n, pw_n, sampling, out, dx, dout, backward):
    height = x.shape[2]
    width = x.shape[3]
    for r in range(rois.shape[0]):
        b = batch_ids[r]
        x0 = rois[r, 0] * scale
        y0 = rois[r, 1] * scale
        roi_w = max(rois[r, 2] * scale - x0, 1.0)
        roi_h = max(rois[r, 3] * scale - y0, 1.0)
        bin_h = roi_h / ph_n
        bin_w = roi_w / pw_n
        grid_h = sampling if sampling > 0 else int(math.ceil(roi_h / ph_n))
        grid_w = sampling if sampling > 0 else int(math.ceil(roi_w / pw_n))
        count = grid_h * grid_w
        for c in range(x.shape[1]):
            for ph in range(ph_n):
                for pw in range(pw_n):
                    acc = 0.0
                    g = dout[r, c, ph, pw] / count if backward else 0.0
                    for iy in range(grid_h):
                        yy = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                        for ix in range(grid_w):
                            xx = x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                            yl, xl, yh, xh, w1, w2, w3, w4 = _bilinear_point(yy, xx, height, width)
                            if backward:
                                if w1 == 0.0 and w2 == 0.0 and w3 == 0.0 and w4 == 0.0:
                                    continue
                                dx[b, c, yl, xl] += g * w1
                                dx[b, c, yl, xh] += g * w2
                                dx[b, c, yh, xl] += g * w3
                                dx[b, c, yh, xh] += g * w4
                            else:
                                acc += (w1 * x[b, c, yl, xl] + w2 * x[b, c, yl, xh] + w3 * x[b, c, yh, xl]
                                        + w4 * x[b, c, yh, xh])
                    if not backward:
                        out[r, c, ph, pw] = acc / count


def roi_align_forward(x, rois, batch_ids, pooled_h, pooled_w, spatial_scale, sampling_ratio) -> np.ndarray:
    """[R, C, pooled_h, pooled_w]: each bin the mean of its bilinear samples (sampling_ratio per side, or
    ceil(roi size / bins))."""
    x = np.ascontiguousarray(x)
    out = np.zeros((rois.shape[0], x.shape[1], pooled_h, pooled_w), dtype=x.dtype)
    _roi_align(x, np.ascontiguousarray(rois, dtype=np.float64), batch_ids, float(spatial_scale), int(pooled_h),
               int(pooled_w), int(sampling_ratio), out, out[:0], out, False)
    return out


def roi_align_backward(x_shape, dtype, rois, batch_ids, dout, pooled_h, pooled_w, spatial_scale,
                       sampling_ratio) -> np.ndarray:
    dx = np.zeros(x_shape, dtype=dtype)
    _roi_align(dx, np.ascontiguousarray(rois, dtype=np.float64), batch_ids, float(spatial_scale), int(pooled_h),
               int(pooled_w), int(sampling_ratio), dx[:0], dx, np.ascontiguousarray(dout, dtype=dtype), True)
    return dx


@_jit
def _round_half_away(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


@_jit
def _roi_pool(x, rois, batch_ids, scale, ph_n, pw_n, out, argmax):
    height = x.shape[2]
    width = x.shape[3]
    for r in range(rois.shape[0]):
        b = batch_ids[r]
        sw = int(_round_half_away(rois[r, 0] * scale))
        sh = int(_round_half_away(rois[r, 1] * scale))
        ew = int(_round_half_away(rois[r, 2] * scale))
        eh = int(_round_half_away(rois[r, 3] * scale))
        roi_h = max(eh - sh + 1, 1)
        roi_w = max(ew - sw + 1, 1)
        bin_h = roi_h / ph_n
        bin_w = roi_w / pw_n
        for c in range(x.shape[1]):
            for ph in range(ph_n):
                hs = min(max(int(math.floor(ph * bin_h)) + sh, 0), height)
                he = min(max(int(math.ceil((ph + 1) * bin_h)) + sh, 0), height)
                for pw in range(pw_n):
                    ws = min(max(int(math.floor(pw * bin_w)) + sw, 0), width)
                    we = min(max(int(math.ceil((pw + 1) * bin_w)) + sw, 0), width)
                    if he <= hs or we <= ws:
                        out[r, c, ph, pw] = 0.0
                        argmax[r, c, ph, pw] = -1
                        continue
                    best = -3.4028234663852886e38
                    arg = -1
                    for hh in range(hs, he):
                        for ww in range(ws, we):
                            if x[b, c, hh, ww] > best:
                                best = x[b, c, hh, ww]
                                arg = hh * width + ww
                    out[r, c, ph, pw] = best
                    argmax[r, c, ph, pw] = arg


def roi_pool_forward(x, rois, batch_ids, pooled_h, pooled_w, spatial_scale) -> tuple[np.ndarray, np.ndarray]:
    """(Out [R, C, ph, pw], Argmax int64): the max of each bin of the rounded RoI (an empty bin gives 0, -1)."""
    x = np.ascontiguousarray(x)
    out = np.empty((rois.shape[0], x.shape[1], pooled_h, pooled_w), dtype=x.dtype)
    argmax = np.empty(out.shape, dtype=np.int64)
    _roi_pool(x, np.ascontiguousarray(rois, dtype=np.float64), batch_ids, float(spatial_scale), int(pooled_h),
              int(pooled_w), out, argmax)
    return out, argmax


@_jit
def _roi_pool_grad(batch_ids, argmax, dout, dx):
    width = dx.shape[3]
    for r in range(argmax.shape[0]):
        b = batch_ids[r]
        for c in range(argmax.shape[1]):
            for ph in range(argmax.shape[2]):
                for pw in range(argmax.shape[3]):
                    a = argmax[r, c, ph, pw]
                    if a >= 0:
                        dx[b, c, a // width, a % width] += dout[r, c, ph, pw]


def roi_pool_backward(x_shape, dtype, batch_ids, argmax, dout) -> np.ndarray:
    dx = np.zeros(x_shape, dtype=dtype)
    _roi_pool_grad(batch_ids, argmax, np.ascontiguousarray(dout, dtype=dtype), dx)
    return dx


# --- matching, focal loss, box decoder and assign --------------------------------------------------------------

@_jit
def _bipartite_match(dist, match_type_argmax, threshold, indices, out_dist):
    eps = 1e-6
    row, col = dist.shape
    in_pool = np.ones(row, dtype=np.bool_)
    remaining = row
    while remaining > 0:
        max_idx = -1
        max_row = -1
        max_dist = -1.0
        for j in range(col):
            if indices[j] != -1:
                continue
            for m in range(row):
                if not in_pool[m] or dist[m, j] < eps:
                    continue
                if dist[m, j] > max_dist:
                    max_idx = j
                    max_row = m
                    max_dist = dist[m, j]
        if max_idx == -1:
            break
        indices[max_idx] = max_row
        out_dist[max_idx] = max_dist
        in_pool[max_row] = False
        remaining -= 1
    if match_type_argmax:
        for j in range(col):
            if indices[j] != -1:
                continue
            max_row = -1
            max_dist = -1.0
            for i in range(row):
                d = dist[i, j]
                if d < eps:
                    continue
                if d >= threshold and d > max_dist:
                    max_row = i
                    max_dist = d
            if max_row != -1:
                indices[j] = max_row
                out_dist[j] = max_dist


def bipartite_match(dist: np.ndarray, match_type: str, dist_threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """(ColToRowMatchIndices [1, M] int32, ColToRowMatchDist [1, M]) of a [N, M] distance matrix: greedy
    bipartite matching of the largest distances, then ('per_prediction') each unmatched column to its best row at
    or above dist_threshold."""
    indices = np.full(dist.shape[1], -1, dtype=np.int32)
    out = np.zeros(dist.shape[1], dtype=dist.dtype)
    _bipartite_match(np.ascontiguousarray(dist), match_type == 'per_prediction', float(dist_threshold), indices, out)
    return indices[None], out[None]


def box_decoder_and_assign(prior, prior_var, target, score, box_clip) -> tuple[np.ndarray, np.ndarray]:
    """(DecodeBox [R, C*4], OutputAssignBox [R, 4]): each class's box decoded from pixel prior boxes (log sizes
    clipped at box_clip), and the box of the best-scoring non-background class (the prior when none wins)."""
    r, c = score.shape
    pw = prior[:, 2] - prior[:, 0] + 1
    ph = prior[:, 3] - prior[:, 1] + 1
    pcx, pcy = prior[:, 0] + pw / 2, prior[:, 1] + ph / 2
    t = target.reshape(r, c, 4)
    var = np.asarray(prior_var, dtype=target.dtype).reshape(-1)
    dw = np.minimum(var[2] * t[..., 2], box_clip)
    dh = np.minimum(var[3] * t[..., 3], box_clip)
    cx = var[0] * t[..., 0] * pw[:, None] + pcx[:, None]
    cy = var[1] * t[..., 1] * ph[:, None] + pcy[:, None]
    w, h = np.exp(dw) * pw[:, None], np.exp(dh) * ph[:, None]
    decoded = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1], axis=-1).astype(target.dtype)
    assign = np.array(prior, dtype=target.dtype, copy=True)
    for i in range(r):
        best, best_j = -1.0, -1
        for j in range(1, c):
            if score[i, j] > best:
                best, best_j = score[i, j], j
        if best_j > 0:
            assign[i] = decoded[i, best_j]
    return decoded.reshape(r, c * 4), assign
