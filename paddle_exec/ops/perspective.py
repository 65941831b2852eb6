"""roi_perspective_transform as Paddle 1.8 defines it (numerics and gradient in kernels/perspective.py):

    roi_perspective_transform(X [N, C, H, W], ROIs [R, 8] with a one-level LoD (the quads of each image))
        -> Out [R, C, th, tw] (with the RoIs' LoD), Mask [R, 1, th, tw] int32, TransformMatrix [R, 9],
           Out2InIdx [R, C, th, tw, 4] int32, Out2InWeights [R, C, th, tw, 4]
       attrs: transformed_height (th), transformed_width (tw), spatial_scale
    roi_perspective_transform_grad(X, ROIs, Out2InIdx, Out2InWeights, Out@GRAD) -> X@GRAD

Only X has a gradient, as in Paddle.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import perspective as K
from ._lod import check_rows, input_name

__all__ = []

defop('roi_perspective_transform', ['X', 'ROIs'], ['Out', 'Mask', 'TransformMatrix', 'Out2InIdx', 'Out2InWeights'],
      {'transformed_height': 1, 'transformed_width': 1, 'spatial_scale': 1.0},
      grad=GradSpec(('X', 'ROIs', 'Out2InIdx', 'Out2InWeights', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('roi_perspective_transform')
def _shape(ctx):
    x, rois = ctx.in_shape('X'), ctx.in_shape('ROIs')
    if len(x) != 4:
        raise ValueError("operator 'roi_perspective_transform': The format of input tensor must be NCHW. But "
                         "received input dims is %d." % len(x))
    if len(rois) != 2:
        raise ValueError("operator 'roi_perspective_transform': ROIs should be a 2-D LoDTensor of shape (num_rois, "
                         "8) given as [[x0, y0, x1, y1, x2, y2, x3, y3], ...]. But received rois dims is %d"
                         % len(rois))
    if rois[1] != 8:
        raise ValueError("operator 'roi_perspective_transform': ROIs should be a 2-D LoDTensor of shape (num_rois, "
                         "8) given as [[x0, y0, x1, y1, x2, y2, x3, y3], ...]. But received %d points" % rois[1])
    th, tw = int(ctx.attr('transformed_height')), int(ctx.attr('transformed_width'))
    if th <= 0 or tw <= 0:
        raise ValueError("operator 'roi_perspective_transform': The transformed output height and width must be "
                         "greater than 0, got %d and %d" % (th, tw))
    if float(ctx.attr('spatial_scale')) <= 0:
        raise ValueError("operator 'roi_perspective_transform': The spatial scale must greater than 0, got %s"
                         % ctx.attr('spatial_scale'))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Out', (rois[0], x[1], th, tw), dtype)
    ctx.set_output('Mask', (rois[0], 1, th, tw), VarType.INT32)
    ctx.set_output('TransformMatrix', (rois[0], 9), dtype)
    ctx.set_output('Out2InIdx', (rois[0], x[1], th, tw, 4), VarType.INT32)
    ctx.set_output('Out2InWeights', (rois[0], x[1], th, tw, 4), dtype)


@lod_rule('roi_perspective_transform')
def _lod(ctx):
    ctx.read('ROIs')
    ctx.share('ROIs', 'Out')            # Paddle's Out carries the RoIs' LoD (the other outputs none)


@kernel_rule('roi_perspective_transform')
def _kernel(spec):
    th, tw = int(spec.attr('transformed_height')), int(spec.attr('transformed_width'))
    scale = float(spec.attr('spatial_scale'))
    name = input_name(spec, 'ROIs')

    def run(x, rois, rois_lod):
        if not rois_lod:
            raise EnforceNotMet("roi_perspective_transform: Input(ROIs) '%s' must be a LoDTensor (one sequence of "
                                "quads per image)" % name)
        offsets = rois_lod[-1]
        check_rows(offsets, rois.shape[0], 'ROIPerspectiveTransformOp', name)
        if offsets.shape[0] - 1 > x.shape[0]:
            raise EnforceNotMet("roi_perspective_transform: Input(ROIs) '%s' cuts %d images but Input(X) holds %d"
                                % (name, offsets.shape[0] - 1, x.shape[0]))
        return K.roi_perspective_transform(np.asarray(x), np.asarray(rois), offsets, th, tw, scale)
    return run


@kernel_rule('roi_perspective_transform_grad')
def _grad_kernel(spec):
    def run(x, rois, out_idx, out_wts, dout):
        return (K.roi_perspective_transform_grad(x.shape, x.dtype, dout, out_idx, out_wts),)
    return run
