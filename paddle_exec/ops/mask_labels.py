"""generate_mask_labels as Paddle 1.8 defines it (numerics in kernels/mask_labels.py):

    generate_mask_labels(ImInfo [N, 3], GtClasses [G, 1] int32, IsCrowd [G, 1] int32 (one-level LoD each),
                         GtSegms [S, 2] (a three-level LoD: objects per image, polygons per object, points per
                         polygon), Rois [R, 4], LabelsInt32 [R, 1] int32 (one-level LoD each))
        -> MaskRois [F, 4], RoiHasMaskInt32 [F, 1] int32, MaskInt32 [F, num_classes * resolution**2] int32
           (LoD: the masked RoIs per image); attrs num_classes, resolution

No gradient (Paddle registers none).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import mask_labels as K
from ._lod import check_rows, input_name

__all__ = []

_OUTS = ('MaskRois', 'RoiHasMaskInt32', 'MaskInt32')

defop('generate_mask_labels', ['ImInfo', 'GtClasses', 'IsCrowd', 'GtSegms', 'Rois', 'LabelsInt32'], list(_OUTS),
      {'num_classes': 0, 'resolution': 0})


@shape_rule('generate_mask_labels')
def _mask_shape(ctx):
    if len(ctx.in_shape('ImInfo')) != 2:
        raise ValueError("operator 'generate_mask_labels': The rank of Input(ImInfo) must be 2.")
    segms = ctx.in_shape('GtSegms')
    if len(segms) != 2:
        raise ValueError("operator 'generate_mask_labels': The rank of Input(GtSegms) must be 2.")
    if segms[1] != 2:
        raise ValueError("operator 'generate_mask_labels': The second dim of Input(GtSegms) must be 2.")
    res = int(ctx.attr('resolution'))
    ctx.set_output('MaskRois', (-1, 4), ctx.in_dtype('Rois'))
    ctx.set_output('RoiHasMaskInt32', (-1, 1), VarType.INT32)
    ctx.set_output('MaskInt32', (-1, int(ctx.attr('num_classes')) * res * res), VarType.INT32)


@lod_rule('generate_mask_labels')
def _mask_lod(ctx):
    for slot in ('GtClasses', 'IsCrowd', 'GtSegms', 'Rois', 'LabelsInt32'):
        ctx.read(slot)
    for slot in _OUTS:
        ctx.compute(slot, 1)


def _one_level(spec, slot, x, lod, label):
    if not lod or len(lod) != 1:
        raise EnforceNotMet("GenerateMaskLabelsOp %s needs 1 level of LoD" % label)
    check_rows(lod[0], x.shape[0], 'GenerateMaskLabelsOp', input_name(spec, slot))
    return lod[0]


@kernel_rule('generate_mask_labels')
def _mask_kernel(spec):
    num_classes, resolution = int(spec.attr('num_classes')), int(spec.attr('resolution'))

    def run(im_info, classes, crowd, segms, rois, labels, classes_lod, crowd_lod, segms_lod, rois_lod, labels_lod):
        c_off = _one_level(spec, 'GtClasses', classes, classes_lod, 'gt_classes')
        k_off = _one_level(spec, 'IsCrowd', crowd, crowd_lod, 'is_crowd')
        r_off = _one_level(spec, 'Rois', rois, rois_lod, 'rois')
        l_off = _one_level(spec, 'LabelsInt32', labels, labels_lod, 'label_int32')
        if not segms_lod or len(segms_lod) != 3:
            raise EnforceNotMet("GenerateMaskLabelsOp: Input(GtSegms) needs 3 levels of LoD (objects, polygons, "
                                "points), got %d" % len(segms_lod or ()))
        objects_of, polys_of, points_of = segms_lod
        if objects_of.shape[0] != c_off.shape[0]:
            raise EnforceNotMet("GenerateMaskLabelsOp: Input(GtSegms) holds %d images but Input(GtClasses) %d"
                                % (objects_of.shape[0] - 1, c_off.shape[0] - 1))
        segms = np.asarray(segms, np.float32)
        classes, crowd, labels = (np.asarray(a).reshape(-1) for a in (classes, crowd, labels))
        parts, out_offsets = [[], [], []], [0]
        for i in range(c_off.shape[0] - 1):
            if r_off[i] == r_off[i + 1]:
                out_offsets.append(out_offsets[-1])
                continue
            objects = []
            for o in range(objects_of[i], objects_of[i + 1]):
                objects.append([segms[points_of[p]:points_of[p + 1]] for p in range(polys_of[o], polys_of[o + 1])])
            res = K.mask_targets_one_image(objects, classes[c_off[i]:c_off[i + 1]], crowd[k_off[i]:k_off[i + 1]],
                                           np.ascontiguousarray(rois[r_off[i]:r_off[i + 1]]),
                                           labels[l_off[i]:l_off[i + 1]], rois.dtype.type(np.asarray(im_info)[i, 2]),
                                           num_classes, resolution)
            for part, value in zip(parts, res):
                part.append(value)
            out_offsets.append(out_offsets[-1] + res[0].shape[0])
        width = num_classes * resolution * resolution
        empty = (np.zeros((0, 4), rois.dtype), np.zeros((0, 1), np.int32), np.zeros((0, width), np.int32))
        outs = tuple(np.concatenate(p) if p else e for p, e in zip(parts, empty))
        lod = as_lod([np.asarray(out_offsets, np.int64)])
        return outs + (lod, lod, lod)
    return run
