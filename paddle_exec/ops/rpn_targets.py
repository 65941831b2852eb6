"""rpn_target_assign, retinanet_target_assign and generate_proposal_labels as Paddle 1.8 defines them (numerics
in kernels/rpn_targets.py):

    rpn_target_assign(Anchor [A, 4], GtBoxes [G, 4] and IsCrowd [G, 1] int32 (one-level LoD: one sequence per
                      image), ImInfo [N, 3])
        -> LocationIndex [F] int32, TargetBBox [F, 4], BBoxInsideWeight [F, 4]   (LoD: the F entries per image)
           ScoreIndex [F + B] int32, TargetLabel [F + B, 1] int32               (LoD: the F + B entries per image)
       attrs: rpn_batch_size_per_im, rpn_straddle_thresh, rpn_positive_overlap, rpn_negative_overlap,
              rpn_fg_fraction, use_random

    retinanet_target_assign(Anchor, GtBoxes, GtLabels [G, 1] int32, IsCrowd (one-level LoD each), ImInfo)
        -> the same five outputs (every foreground and background anchor, no sampling and no straddle filter;
           TargetLabel is the class of the foreground's best box), and ForegroundNumber [N, 1] int32 (LoD: one per
           image); attrs positive_overlap, negative_overlap

    generate_proposal_labels(RpnRois [R, 4], GtClasses [G, 1] int32, IsCrowd [G, 1] int32, GtBoxes [G, 4] (one-level
                             LoD each), ImInfo [N, 3])
        -> Rois [S, 4], LabelsInt32 [S, 1] int32, BboxTargets / BboxInsideWeights / BboxOutsideWeights
           [S, 4 * class_nums] (LoD: the sampled RoIs per image); attrs batch_size_per_im, fg_fraction, fg_thresh,
           bg_thresh_hi, bg_thresh_lo, bbox_reg_weights, class_nums, use_random, is_cls_agnostic, is_cascade_rcnn
           (is_cascade_rcnn: no sampling and no ground-truth rows; as measured against Paddle 1.8.5, whose source
           for it was not at hand, the first len(GtBoxes) RoIs of an image then stay at the input scale while
           the others are mapped back to the original image, which looks like a bug of its kernel and is kept)

The indices count anchors over the batch (image i's anchor k is i * A + k), so that the layer gathers the
predictions of all images flattened. No gradient (Paddle registers none). rpn_target_assign and
generate_proposal_labels are stateful: with use_random their sampling draws from a generator seeded as every
random op is (framework/random.py).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.random import op_seed
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import rpn_targets as K
from ._lod import check_rows, input_name

__all__ = []

defop('rpn_target_assign', ['Anchor', 'GtBoxes', 'IsCrowd', 'ImInfo'],
      ['LocationIndex', 'ScoreIndex', 'TargetBBox', 'TargetLabel', 'BBoxInsideWeight'],
      {'rpn_batch_size_per_im': 256, 'rpn_straddle_thresh': 0.0, 'rpn_positive_overlap': 0.7,
       'rpn_negative_overlap': 0.3, 'rpn_fg_fraction': 0.25, 'use_random': True}, stateful=True)

_LOC = ('LocationIndex', 'TargetBBox', 'BBoxInsideWeight')
_SCORE = ('ScoreIndex', 'TargetLabel')


@shape_rule('rpn_target_assign')
def _rpn_shape(ctx):
    anchor, gt, im_info = ctx.in_shape('Anchor'), ctx.in_shape('GtBoxes'), ctx.in_shape('ImInfo')
    if len(anchor) != 2:
        raise ValueError("operator 'rpn_target_assign': The rank of Input(Anchor) must be 2.")
    if len(gt) != 2:
        raise ValueError("operator 'rpn_target_assign': The rank of Input(GtBoxes) must be 2.")
    if len(im_info) != 2:
        raise ValueError("operator 'rpn_target_assign': The rank of Input(ImInfo) must be 2.")
    dtype = ctx.in_dtype('Anchor')
    ctx.set_output('LocationIndex', (-1,), VarType.INT32)
    ctx.set_output('ScoreIndex', (-1,), VarType.INT32)
    ctx.set_output('TargetLabel', (-1, 1), VarType.INT32)
    ctx.set_output('TargetBBox', (-1, anchor[1]), dtype)
    ctx.set_output('BBoxInsideWeight', (-1, anchor[1]), dtype)


@lod_rule('rpn_target_assign')
def _rpn_lod(ctx):
    ctx.read('GtBoxes')
    ctx.read('IsCrowd')
    for slot in _LOC + _SCORE:          # the kernel returns the LoDs in this order
        ctx.compute(slot, 1)


def gt_offsets(spec, op_name: str, gt, crowd, gt_lod, crowd_lod):
    """The offsets of GtBoxes and IsCrowd over the images, with Paddle's checks."""
    if not gt_lod or len(gt_lod) != 1:
        raise EnforceNotMet("%s gt_boxes needs 1 level of LoD" % op_name)
    if not crowd_lod or len(crowd_lod) != 1:
        raise EnforceNotMet("%s is_crowd needs 1 level of LoD" % op_name)
    check_rows(gt_lod[0], gt.shape[0], op_name, input_name(spec, 'GtBoxes'))
    check_rows(crowd_lod[0], crowd.shape[0], op_name, input_name(spec, 'IsCrowd'))
    return gt_lod[0], crowd_lod[0]


@kernel_rule('rpn_target_assign')
def _rpn_kernel(spec):
    batch_size, straddle = int(spec.attr('rpn_batch_size_per_im')), float(spec.attr('rpn_straddle_thresh'))
    positive, negative = float(spec.attr('rpn_positive_overlap')), float(spec.attr('rpn_negative_overlap'))
    fg_fraction, use_random = float(spec.attr('rpn_fg_fraction')), bool(spec.attr('use_random'))
    rng = np.random.default_rng(op_seed(0))

    def run(anchor, gt, crowd, im_info, gt_lod, crowd_lod):
        g_off, c_off = gt_offsets(spec, 'RpnTargetAssignOp', gt, crowd, gt_lod, crowd_lod)
        anchor = np.ascontiguousarray(anchor)
        a_num = anchor.shape[0]
        crowd = np.asarray(crowd).reshape(-1)
        parts = {slot: [] for slot in _LOC + _SCORE}
        loc_offsets, score_offsets = [0], [0]
        for i in range(g_off.shape[0] - 1):
            im_h, im_w, im_scale = (anchor.dtype.type(v) for v in np.asarray(im_info)[i, :3])
            inside = K.filter_straddle(anchor, straddle, im_h, im_w)
            boxes = gt[g_off[i]:g_off[i + 1]][crowd[c_off[i]:c_off[i + 1]] == 0].astype(anchor.dtype) * im_scale
            overlaps = K.bbox_overlaps(np.ascontiguousarray(anchor[inside]), np.ascontiguousarray(boxes))
            loc, score, labels, gt_index, weights = K.rpn_sample(overlaps, batch_size, fg_fraction, positive,
                                                                  negative, rng, use_random)
            loc_all = inside[loc]
            parts['LocationIndex'].append((loc_all + i * a_num).astype(np.int32))
            parts['ScoreIndex'].append((inside[score] + i * a_num).astype(np.int32))
            parts['TargetBBox'].append(K.box_to_delta(anchor[loc_all], boxes[gt_index]))
            parts['TargetLabel'].append(labels.reshape(-1, 1))
            parts['BBoxInsideWeight'].append(weights)
            loc_offsets.append(loc_offsets[-1] + loc.shape[0])
            score_offsets.append(score_offsets[-1] + score.shape[0])
        out = {slot: np.concatenate(v) if v else np.zeros((0,), np.int32) for slot, v in parts.items()}
        loc_lod, score_lod = as_lod([np.asarray(loc_offsets, np.int64)]), as_lod([np.asarray(score_offsets, np.int64)])
        return (out['LocationIndex'], out['ScoreIndex'], out['TargetBBox'].reshape(-1, 4), out['TargetLabel'],
                out['BBoxInsideWeight'].reshape(-1, 4), loc_lod, loc_lod, loc_lod, score_lod, score_lod)
    return run


# --- retinanet_target_assign ----------------------------------------------------------------------------------------

defop('retinanet_target_assign', ['Anchor', 'GtBoxes', 'GtLabels', 'IsCrowd', 'ImInfo'],
      ['LocationIndex', 'ScoreIndex', 'TargetBBox', 'TargetLabel', 'BBoxInsideWeight', 'ForegroundNumber'],
      {'positive_overlap': 0.5, 'negative_overlap': 0.4})


@shape_rule('retinanet_target_assign')
def _retina_shape(ctx):
    _rpn_shape(ctx)
    if len(ctx.in_shape('GtLabels')) != 2:
        raise ValueError("operator 'retinanet_target_assign': The rank of Input(GtLabels) must be 2.")
    ctx.set_output('ForegroundNumber', (-1, 1), VarType.INT32)


@lod_rule('retinanet_target_assign')
def _retina_lod(ctx):
    ctx.read('GtBoxes')
    ctx.read('GtLabels')
    ctx.read('IsCrowd')
    for slot in _LOC + _SCORE + ('ForegroundNumber',):          # the kernel returns the LoDs in this order
        ctx.compute(slot, 1)


@kernel_rule('retinanet_target_assign')
def _retina_kernel(spec):
    positive, negative = float(spec.attr('positive_overlap')), float(spec.attr('negative_overlap'))
    name = 'RetinanetTargetAssignOp'

    def run(anchor, gt, labels, crowd, im_info, gt_lod, label_lod, crowd_lod):
        g_off, c_off = gt_offsets(spec, name, gt, crowd, gt_lod, crowd_lod)
        if not label_lod or len(label_lod) != 1:
            raise EnforceNotMet("%s gt_boxes needs 1 level of LoD" % name)     # Paddle's wording for GtLabels
        l_off = label_lod[0]
        anchor = np.ascontiguousarray(anchor)
        a_num = anchor.shape[0]
        crowd, labels = np.asarray(crowd).reshape(-1), np.asarray(labels).reshape(-1)
        parts = {slot: [] for slot in _LOC + _SCORE}
        loc_offsets, score_offsets, fg_counts = [0], [0], []
        for i in range(g_off.shape[0] - 1):
            keep = crowd[c_off[i]:c_off[i + 1]] == 0
            boxes = gt[g_off[i]:g_off[i + 1]][keep].astype(anchor.dtype) * anchor.dtype.type(np.asarray(im_info)[i, 2])
            overlaps = K.bbox_overlaps(anchor, np.ascontiguousarray(boxes))
            loc, score, target, gt_index, weights, fg_count = K.retinanet_sample(
                overlaps, labels[l_off[i]:l_off[i + 1]][keep], positive, negative)
            parts['LocationIndex'].append((loc + i * a_num).astype(np.int32))
            parts['ScoreIndex'].append((score + i * a_num).astype(np.int32))
            parts['TargetBBox'].append(K.box_to_delta(anchor[loc], boxes[gt_index]))
            parts['TargetLabel'].append(target.reshape(-1, 1))
            parts['BBoxInsideWeight'].append(weights)
            fg_counts.append(fg_count)
            loc_offsets.append(loc_offsets[-1] + loc.shape[0])
            score_offsets.append(score_offsets[-1] + score.shape[0])
        out = {slot: np.concatenate(v) if v else np.zeros((0,), np.int32) for slot, v in parts.items()}
        loc_lod, score_lod = as_lod([np.asarray(loc_offsets, np.int64)]), as_lod([np.asarray(score_offsets, np.int64)])
        fg_lod = as_lod([np.arange(len(fg_counts) + 1, dtype=np.int64)])
        return (out['LocationIndex'], out['ScoreIndex'], out['TargetBBox'].reshape(-1, 4), out['TargetLabel'],
                out['BBoxInsideWeight'].reshape(-1, 4), np.asarray(fg_counts, np.int32).reshape(-1, 1),
                loc_lod, loc_lod, loc_lod, score_lod, score_lod, fg_lod)
    return run


# --- generate_proposal_labels ---------------------------------------------------------------------------------------

_LABEL_OUTS = ('Rois', 'LabelsInt32', 'BboxTargets', 'BboxInsideWeights', 'BboxOutsideWeights')

defop('generate_proposal_labels', ['RpnRois', 'GtClasses', 'IsCrowd', 'GtBoxes', 'ImInfo'], list(_LABEL_OUTS),
      {'batch_size_per_im': 256, 'fg_fraction': 0.25, 'fg_thresh': 0.25, 'bg_thresh_hi': 0.5, 'bg_thresh_lo': 0.0,
       'bbox_reg_weights': [0.1, 0.1, 0.2, 0.2], 'class_nums': 0, 'use_random': True, 'is_cls_agnostic': False,
       'is_cascade_rcnn': False}, stateful=True)


@shape_rule('generate_proposal_labels')
def _labels_shape(ctx):
    for slot in ('RpnRois', 'GtBoxes', 'ImInfo'):
        if len(ctx.in_shape(slot)) != 2:
            raise ValueError("operator 'generate_proposal_labels': The rank of Input(%s) must be 2." % slot)
    width = 4 * int(ctx.attr('class_nums') or 0)
    dtype = ctx.in_dtype('RpnRois')
    ctx.set_output('Rois', (-1, 4), dtype)
    ctx.set_output('LabelsInt32', (-1, 1), VarType.INT32)
    for slot in _LABEL_OUTS[2:]:
        ctx.set_output(slot, (-1, width), dtype)


@lod_rule('generate_proposal_labels')
def _labels_lod(ctx):
    for slot in ('RpnRois', 'GtClasses', 'IsCrowd', 'GtBoxes'):
        ctx.read(slot)
    for slot in _LABEL_OUTS:
        ctx.compute(slot, 1)


@kernel_rule('generate_proposal_labels')
def _labels_kernel(spec):
    a = {k: spec.attr(k) for k in ('batch_size_per_im', 'fg_fraction', 'fg_thresh', 'bg_thresh_hi', 'bg_thresh_lo',
                                   'bbox_reg_weights', 'class_nums', 'use_random', 'is_cls_agnostic',
                                   'is_cascade_rcnn')}
    rng = np.random.default_rng(op_seed(0))
    name = 'GenerateProposalLabelsOp'

    def run(rois, classes, crowd, gt, im_info, rois_lod, classes_lod, crowd_lod, gt_lod):
        offsets = {}
        for slot, x, lod, label in (('RpnRois', rois, rois_lod, 'rpn_rois'), ('GtClasses', classes, classes_lod,
                                    'gt_classes'), ('IsCrowd', crowd, crowd_lod, 'is_crowd'),
                                    ('GtBoxes', gt, gt_lod, 'gt_boxes')):
            if not lod or len(lod) != 1:
                raise EnforceNotMet("%s %s needs 1 level of LoD. But received level of LoD is [%d]."
                                    % (name, label, len(lod or ())))
            check_rows(lod[0], x.shape[0], name, input_name(spec, slot))
            offsets[slot] = lod[0]
        classes, crowd = np.asarray(classes).reshape(-1), np.asarray(crowd).reshape(-1)
        parts, out_offsets = [[] for _ in _LABEL_OUTS], [0]
        for i in range(offsets['RpnRois'].shape[0] - 1):
            r0, r1 = offsets['RpnRois'][i], offsets['RpnRois'][i + 1]
            if r0 == r1:                      # an image without RoIs contributes nothing
                out_offsets.append(out_offsets[-1])
                continue
            g = slice(offsets['GtBoxes'][i], offsets['GtBoxes'][i + 1])
            c = slice(offsets['GtClasses'][i], offsets['GtClasses'][i + 1])
            k = slice(offsets['IsCrowd'][i], offsets['IsCrowd'][i + 1])
            res = K.proposal_labels(np.ascontiguousarray(rois[r0:r1]), classes[c], crowd[k], gt[g],
                                    rois.dtype.type(np.asarray(im_info)[i, 2]), int(a['batch_size_per_im']),
                                    a['fg_fraction'], a['fg_thresh'], a['bg_thresh_hi'], a['bg_thresh_lo'],
                                    list(a['bbox_reg_weights']), int(a['class_nums']), rng, bool(a['use_random']),
                                    bool(a['is_cascade_rcnn']), bool(a['is_cls_agnostic']))
            for part, value in zip(parts, res):
                part.append(value)
            out_offsets.append(out_offsets[-1] + res[0].shape[0])
        width = 4 * int(a['class_nums'])
        empty = (np.zeros((0, 4), rois.dtype), np.zeros((0,), np.int32)) + (np.zeros((0, width), rois.dtype),) * 3
        outs = [np.concatenate(p) if p else e for p, e in zip(parts, empty)]
        outs[1] = outs[1].reshape(-1, 1)
        lod = as_lod([np.asarray(out_offsets, np.int64)])
        return tuple(outs) + (lod,) * len(_LABEL_OUTS)
    return run
