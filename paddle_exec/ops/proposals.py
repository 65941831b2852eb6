"""generate_proposals as Paddle 1.8 defines it (numerics in kernels/proposals.py):

    generate_proposals(Scores [N, A, H, W], BboxDeltas [N, 4A, H, W], ImInfo [N, 3], Anchors [H, W, A, 4],
                       Variances [H, W, A, 4])
        -> RpnRois [R, 4], RpnRoiProbs [R, 1] (both with a one-level LoD: one sequence of proposals per image),
           RpnRoisLod [N] (dispensable): what Paddle 1.8.5's kernel writes there, the LoD's offsets after the
           first (cumulative counts), as int64 although the layer declares int32
       attrs: pre_nms_topN, post_nms_topN, nms_thresh, min_size, eta

No gradient (Paddle registers none).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import proposals as K

__all__ = []

defop('generate_proposals', ['Scores', 'BboxDeltas', 'ImInfo', 'Anchors', 'Variances'],
      ['RpnRois', 'RpnRoiProbs', 'RpnRoisLod'],
      {'pre_nms_topN': 6000, 'post_nms_topN': 1000, 'nms_thresh': 0.5, 'min_size': 0.1, 'eta': 1.0},
      dispensable=['RpnRoisLod'])


@shape_rule('generate_proposals')
def _proposals_shape(ctx):
    scores, deltas = ctx.in_shape('Scores'), ctx.in_shape('BboxDeltas')
    if len(scores) != 4 or len(deltas) != 4:
        raise ValueError("operator 'generate_proposals': Input(Scores) and Input(BboxDeltas) must be 4-D tensors "
                         "[N, A, H, W] and [N, 4A, H, W], got %s and %s" % (list(scores), list(deltas)))
    ctx.set_output('RpnRois', (-1, 4), ctx.in_dtype('BboxDeltas'))
    ctx.set_output('RpnRoiProbs', (-1, 1), ctx.in_dtype('Scores'))
    if ctx.has_output('RpnRoisLod'):
        ctx.set_output('RpnRoisLod', (-1,), VarType.INT64)


@lod_rule('generate_proposals')
def _proposals_lod(ctx):
    ctx.compute('RpnRois', 1)
    ctx.compute('RpnRoiProbs', 1)


@kernel_rule('generate_proposals')
def _proposals_kernel(spec):
    attrs = (int(spec.attr('pre_nms_topN')), int(spec.attr('post_nms_topN')), float(spec.attr('nms_thresh')),
             float(spec.attr('min_size')), float(spec.attr('eta')))
    want_counts = spec.has_output('RpnRoisLod')

    def run(scores, deltas, im_info, anchors, variances):
        rois, probs, counts = K.generate_proposals(scores, deltas, np.asarray(im_info), anchors, variances, *attrs)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        lod = as_lod([offsets])
        return rois.astype(deltas.dtype, copy=False), probs, (offsets[1:].copy() if want_counts else None), lod, lod
    return run
