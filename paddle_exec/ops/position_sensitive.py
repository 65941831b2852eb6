"""RoI pooling by areas of fluid 1.8's layers.nn: position-sensitive (psroi_pool) and precise (prroi_pool)
(kernels/position_sensitive.py holds the loops).

    psroi_pool    X [N, output_channels * ph * pw, H, W], ROIs [R, 4] (x1, y1, x2, y2; LoD: the RoIs of each image)
                  -> Out [R, output_channels, ph, pw]; attrs output_channels, spatial_scale, pooled_height,
                  pooled_width. Grad: each bin's gradient spread evenly over its pixels.
    prroi_pool    X [N, C, H, W], ROIs [R, 4] (LoD, or BatchRoINums int64 [N]: each image's RoI count) -> Out
                  [R, C, ph, pw]: the exact integral of X's bilinear interpolation over each bin, over the bin's
                  area (corners scaled, not rounded); attrs spatial_scale, pooled_height, pooled_width. Grad: X,
                  the derivative. Paddle 1.8.5's CPU backward is not one (it assigns where bins overlap instead of
                  adding, zeroes a pixel per bin and writes RoI partials into X's gradient), and its ROIs gradient
                  reads uninitialised memory; here ROIs get no gradient.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, _grad_shape_rule, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import position_sensitive as KP
from ._lod import input_name, last_level

__all__: list[str] = []

_ATTRS = {'output_channels': 1, 'spatial_scale': 1.0, 'pooled_height': 1, 'pooled_width': 1}

defop('psroi_pool', ['X', 'ROIs'], ['Out'], dict(_ATTRS), grad=GradSpec(('X', 'ROIs', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('psroi_pool')
def _psroi_pool_shape(ctx):
    x, rois = ctx.in_shape('X'), ctx.in_shape('ROIs')
    if len(x) != 4:
        raise ValueError("operator 'psroi_pool': The format of input tensor is NCHW, got %s" % list(x))
    if len(rois) != 2 or (rois[1] >= 0 and rois[1] != 4):
        raise ValueError("operator 'psroi_pool': ROIs should be a 2-D LoDTensor of shape (num_rois, 4) given as "
                         "[(x1, y1, x2, y2), ...], got %s" % list(rois))
    ph, pw = int(ctx.attr('pooled_height')), int(ctx.attr('pooled_width'))
    channels = int(ctx.attr('output_channels'))
    if ph <= 0 or pw <= 0 or channels <= 0 or float(ctx.attr('spatial_scale')) <= 0:
        raise ValueError("operator 'psroi_pool': pooled_height, pooled_width, output_channels and spatial_scale "
                         "must be greater than 0")
    if x[1] >= 0 and x[1] != channels * ph * pw:
        raise ValueError("operator 'psroi_pool': the channel of input X should equal the product of "
                         "output_channels x pooled_height x pooled_width, got %d != %d x %d x %d"
                         % (x[1], channels, ph, pw))
    ctx.set_output('Out', (rois[0], channels, ph, pw), ctx.in_dtype('X'))


@lod_rule('psroi_pool')
def _psroi_pool_lod(ctx):
    ctx.read('ROIs')


def _batch_ids(spec, x, rois, rois_lod) -> np.ndarray:
    offsets = last_level(rois_lod, rois, 'PSROIPoolOp', input_name(spec, 'ROIs'), 'ROIs')
    if len(offsets) - 1 != x.shape[0]:
        raise ValueError("operator 'psroi_pool': The rois_batch_size (%d) and input(X) batch_size (%d) must be the "
                         "same." % (len(offsets) - 1, x.shape[0]))
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)).astype(np.int64)


def _attrs(spec):
    return (int(spec.attr('output_channels')), int(spec.attr('pooled_height')), int(spec.attr('pooled_width')),
            float(spec.attr('spatial_scale')))


@kernel_rule('psroi_pool')
def _psroi_pool_kernel(spec):
    channels, ph, pw, scale = _attrs(spec)

    def run(x, rois, rois_lod):
        ids = _batch_ids(spec, x, rois, rois_lod)
        return (KP.psroi_pool_forward(np.ascontiguousarray(x), rois.astype(np.float64), ids, channels, ph, pw,
                                      scale),)
    return run


shape_rule('psroi_pool_grad')(_grad_shape_rule)


@lod_rule('psroi_pool_grad')
def _psroi_pool_grad_lod(ctx):
    ctx.read('ROIs')


@kernel_rule('psroi_pool_grad')
def _psroi_pool_grad_kernel(spec):
    _, ph, pw, scale = _attrs(spec)

    def run(x, rois, dout, rois_lod):
        ids = _batch_ids(spec, x, rois, rois_lod)
        return (KP.psroi_pool_backward(x.shape, rois.astype(np.float64), ids, np.ascontiguousarray(dout), ph, pw,
                                       scale),)
    return run


# --- prroi_pool ---------------------------------------------------------------------------------------------------

_PR_ATTRS = {'spatial_scale': 1.0, 'pooled_height': 1, 'pooled_width': 1}

defop('prroi_pool', ['X', 'ROIs', 'BatchRoINums'], ['Out'], dict(_PR_ATTRS), dispensable=['BatchRoINums'],
      grad=GradSpec(('X', 'ROIs', 'BatchRoINums', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('prroi_pool')
def _prroi_pool_shape(ctx):
    x, rois = ctx.in_shape('X'), ctx.in_shape('ROIs')
    if len(x) != 4:
        raise ValueError("operator 'prroi_pool': The format of input tensor is NCHW, got %s" % list(x))
    if len(rois) != 2 or (rois[1] >= 0 and rois[1] != 4):
        raise ValueError("operator 'prroi_pool': ROIs should be a 2-D LoDTensor of shape (num_rois, 4) given as "
                         "[(x1, y1, x2, y2), ...], got %s" % list(rois))
    ph, pw = int(ctx.attr('pooled_height')), int(ctx.attr('pooled_width'))
    if ph <= 0 or pw <= 0 or float(ctx.attr('spatial_scale')) <= 0:
        raise ValueError("operator 'prroi_pool': pooled_height, pooled_width and spatial_scale must be greater "
                         "than 0")
    ctx.set_output('Out', (rois[0], x[1], ph, pw), ctx.in_dtype('X'))


@lod_rule('prroi_pool')
def _prroi_pool_lod(ctx):
    ctx.read('ROIs')


def _pr_batch_ids(spec, x, rois, nums, rois_lod) -> np.ndarray:
    if nums is not None:
        counts = np.asarray(nums).reshape(-1).astype(np.int64)
        if counts.sum() != rois.shape[0]:
            raise ValueError("operator 'prroi_pool': BatchRoINums %s does not add up to the %d RoIs"
                             % (counts.tolist(), rois.shape[0]))
        return np.repeat(np.arange(len(counts)), counts).astype(np.int64)
    offsets = last_level(rois_lod, rois, 'PRROIPoolOp', input_name(spec, 'ROIs'), 'ROIs')
    if len(offsets) - 1 != x.shape[0]:
        raise ValueError("operator 'prroi_pool': the rois_batch_size and input(X) batch_size should be the same.")
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)).astype(np.int64)


def _pr_attrs(spec):
    return int(spec.attr('pooled_height')), int(spec.attr('pooled_width')), float(spec.attr('spatial_scale'))


@kernel_rule('prroi_pool')
def _prroi_pool_kernel(spec):
    ph, pw, scale = _pr_attrs(spec)

    def run(x, rois, nums, rois_lod):
        ids = _pr_batch_ids(spec, x, rois, nums, rois_lod)
        return (KP.prroi_pool_forward(np.ascontiguousarray(x), rois.astype(np.float64), ids, ph, pw, scale),)
    return run


shape_rule('prroi_pool_grad')(_grad_shape_rule)


@lod_rule('prroi_pool_grad')
def _prroi_pool_grad_lod(ctx):
    ctx.read('ROIs')


@kernel_rule('prroi_pool_grad')
def _prroi_pool_grad_kernel(spec):
    ph, pw, scale = _pr_attrs(spec)

    def run(x, rois, nums, dout, rois_lod):
        ids = _pr_batch_ids(spec, x, rois, nums, rois_lod)
        return (KP.prroi_pool_backward(np.ascontiguousarray(x), rois.astype(np.float64), ids,
                                       np.ascontiguousarray(dout), ph, pw, scale),)
    return run
