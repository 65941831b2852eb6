"""deformable_psroi_pooling (fluid 1.8's layers.nn.deformable_roi_pooling; kernels/deformable_psroi.py holds the
loops).

    deformable_psroi_pooling  Input [N, C, H, W], ROIs [R, 4] (LoD: the RoIs of each image), Trans [R, 2 * classes,
                  part_h, part_w] (per part, the x and y offsets in units of trans_std * the RoI's size) -> Output
                  [R, output_dim, ph, pw], TopCount [R, output_dim, ph, pw] (int: the samples each bin averaged);
                  attrs no_trans, spatial_scale, output_dim, group_size, pooled_height, pooled_width, part_size,
                  sample_per_part, trans_std. Grad: Input and Trans.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import deformable_psroi as KD
from ._lod import input_name, last_level

__all__: list[str] = []

_ATTRS = {'no_trans': False, 'spatial_scale': 1.0, 'output_dim': 1, 'group_size': [1, 1], 'pooled_height': 1,
          'pooled_width': 1, 'part_size': [1, 1], 'sample_per_part': 1, 'trans_std': 0.1}

defop('deformable_psroi_pooling', ['Input', 'ROIs', 'Trans'], ['Output', 'TopCount'], dict(_ATTRS),
      grad=GradSpec(('Input', 'ROIs', 'Trans', 'TopCount', 'Output@GRAD'), ('Input@GRAD', 'Trans@GRAD')))


@shape_rule('deformable_psroi_pooling')
def _dpsroi_shape(ctx):
    x, rois = ctx.in_shape('Input'), ctx.in_shape('ROIs')
    if len(x) != 4:
        raise ValueError("operator 'deformable_psroi_pooling': Input must be 4-D NCHW, got %s" % list(x))
    if len(rois) != 2 or (rois[1] >= 0 and rois[1] != 4):
        raise ValueError("operator 'deformable_psroi_pooling': ROIs must be [num_rois, 4], got %s" % list(rois))
    out_dim = int(ctx.attr('output_dim'))
    gh, gw = [int(g) for g in ctx.attr('group_size')]
    ph, pw = int(ctx.attr('pooled_height')), int(ctx.attr('pooled_width'))
    if min(out_dim, gh, gw, ph, pw, int(ctx.attr('sample_per_part'))) <= 0:
        raise ValueError("operator 'deformable_psroi_pooling': output_dim, group_size, pooled sizes and "
                         "sample_per_part must be positive")
    if x[1] >= 0 and x[1] < out_dim * gh * gw:
        raise ValueError("operator 'deformable_psroi_pooling': the channels of Input (%d) must be at least "
                         "output_dim * group_height * group_width = %d" % (x[1], out_dim * gh * gw))
    shape = (rois[0], out_dim, ph, pw)
    ctx.set_output('Output', shape, ctx.in_dtype('Input'))
    ctx.set_output('TopCount', shape, VarType.INT32)


@lod_rule('deformable_psroi_pooling')
def _dpsroi_lod(ctx):
    ctx.read('ROIs')


def _args(spec, x, rois, trans, rois_lod):
    offsets = last_level(rois_lod, rois, 'DeformablePSROIPoolOp', input_name(spec, 'ROIs'), 'ROIs')
    if len(offsets) - 1 != x.shape[0]:
        raise ValueError("operator 'deformable_psroi_pooling': The rois_batch_size must equal to batch_size of img.")
    ids = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)).astype(np.int64)
    no_trans = bool(spec.attr('no_trans'))
    out_dim = int(spec.attr('output_dim'))
    num_classes = 1 if no_trans else trans.shape[1] // 2
    per_class = out_dim if no_trans else out_dim // num_classes
    if per_class < 1:
        raise ValueError("operator 'deformable_psroi_pooling': channels_each must greater than 1")
    gh, gw = [int(g) for g in spec.attr('group_size')]
    part_h, part_w = [int(p) for p in spec.attr('part_size')]
    trans = np.zeros((rois.shape[0], 2, part_h, part_w), x.dtype) if no_trans else np.ascontiguousarray(trans)
    return ids, trans, no_trans, out_dim, gh, gw, part_h, part_w, num_classes, per_class


@kernel_rule('deformable_psroi_pooling')
def _dpsroi_kernel(spec):
    ph, pw = int(spec.attr('pooled_height')), int(spec.attr('pooled_width'))
    scale, sample, std = float(spec.attr('spatial_scale')), int(spec.attr('sample_per_part')), \
        float(spec.attr('trans_std'))

    def run(x, rois, trans, rois_lod):
        ids, trans, no_trans, out_dim, gh, gw, part_h, part_w, classes, per_class = _args(spec, x, rois, trans,
                                                                                           rois_lod)
        return KD.deformable_psroi_forward(np.ascontiguousarray(x), rois.astype(np.float64), ids, trans, no_trans,
                                           scale, out_dim, gh, gw, ph, pw, part_h, part_w, sample, std, classes,
                                           per_class)
    return run


@shape_rule('deformable_psroi_pooling_grad')
def _dpsroi_grad_shape(ctx):
    for slot in ('Input', 'Trans'):
        if ctx.has_output(slot + '@GRAD'):
            ctx.set_output(slot + '@GRAD', ctx.in_shape(slot), ctx.in_dtype(slot))


@lod_rule('deformable_psroi_pooling_grad')
def _dpsroi_grad_lod(ctx):
    ctx.read('ROIs')


@kernel_rule('deformable_psroi_pooling_grad')
def _dpsroi_grad_kernel(spec):
    ph, pw = int(spec.attr('pooled_height')), int(spec.attr('pooled_width'))
    scale, sample, std = float(spec.attr('spatial_scale')), int(spec.attr('sample_per_part')), \
        float(spec.attr('trans_std'))

    def run(x, rois, trans, count, dout, rois_lod):
        original = trans
        ids, trans, no_trans, _, gh, gw, part_h, part_w, classes, per_class = _args(spec, x, rois, trans, rois_lod)
        dx, dtrans = KD.deformable_psroi_backward(np.ascontiguousarray(x), rois.astype(np.float64), ids, trans,
                                                  no_trans, count, np.ascontiguousarray(dout), scale, gh, gw, ph,
                                                  pw, part_h, part_w, sample, std, classes, per_class)
        return dx, (np.zeros_like(original) if no_trans else dtrans)
    return run
