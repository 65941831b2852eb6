"""FPN's RoI routing ops as Paddle 1.8 defines them (numerics in kernels/fpn.py):

    distribute_fpn_proposals(FpnRois [R, 4] with a one-level LoD)
        -> MultiFpnRois (one [Ri, 4] per level min_level .. max_level, each with a per-image LoD),
           RestoreIndex [R, 1] int32; attrs min_level, max_level, refer_level, refer_scale
    collect_fpn_proposals(MultiLevelRois, MultiLevelScores (one per level, one-level LoD each))
        -> FpnRois [K, 4] with a per-image LoD; attr post_nms_topN

Neither has a gradient (Paddle registers none).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import fpn as K
from ._lod import check_rows, input_name

__all__ = []

defop('distribute_fpn_proposals', ['FpnRois'], ['MultiFpnRois', 'RestoreIndex'],
      {'min_level': 0, 'max_level': 0, 'refer_level': 0, 'refer_scale': 0}, duplicable=['MultiFpnRois'])


@shape_rule('distribute_fpn_proposals')
def _distribute_shape(ctx):
    if len(ctx.in_shape('FpnRois')) != 2:
        raise ValueError("operator 'distribute_fpn_proposals': The rank of Input(FpnRois) must be 2.")
    n = len(ctx.op.outputs.get('MultiFpnRois') or [])
    for i in range(n):
        ctx.set_output('MultiFpnRois', (-1, 4), ctx.in_dtype('FpnRois'), i=i)
    ctx.set_output('RestoreIndex', (-1, 1), VarType.INT32)


@lod_rule('distribute_fpn_proposals')
def _distribute_lod(ctx):
    ctx.read('FpnRois')
    ctx.compute('MultiFpnRois', 1)


@kernel_rule('distribute_fpn_proposals')
def _distribute_kernel(spec):
    a = [int(spec.attr(k)) for k in ('min_level', 'max_level', 'refer_level', 'refer_scale')]
    name = input_name(spec, 'FpnRois')

    def run(rois, rois_lod):
        if not rois_lod or len(rois_lod) != 1:
            raise EnforceNotMet("DistributeFpnProposalsOp need 1 level of LoD ('%s' has %d)"
                                % (name, len(rois_lod or ())))
        check_rows(rois_lod[0], rois.shape[0], 'DistributeFpnProposalsOp', name)
        levels, restore = K.distribute_fpn_proposals(np.asarray(rois), rois_lod[0], *a)
        return [r for r, _ in levels], restore.reshape(-1, 1), [as_lod([o]) for _, o in levels]
    return run


defop('collect_fpn_proposals', ['MultiLevelRois', 'MultiLevelScores'], ['FpnRois'], {'post_nms_topN': 100},
      duplicable=['MultiLevelRois', 'MultiLevelScores'])


@shape_rule('collect_fpn_proposals')
def _collect_shape(ctx):
    n_rois, n_scores = len(ctx.input_vars('MultiLevelRois')), len(ctx.input_vars('MultiLevelScores'))
    if n_rois != n_scores:
        raise ValueError("operator 'collect_fpn_proposals': The number of RoIs and Scores should be the same. But "
                         "received number of RoIs is %d, number of Scores is %d" % (n_rois, n_scores))
    ctx.set_output('FpnRois', (-1, 4), ctx.in_dtype('MultiLevelRois'))


@lod_rule('collect_fpn_proposals')
def _collect_lod(ctx):
    ctx.read('MultiLevelRois')
    ctx.read('MultiLevelScores')
    ctx.compute('FpnRois', 1)


@kernel_rule('collect_fpn_proposals')
def _collect_kernel(spec):
    top = int(spec.attr('post_nms_topN'))

    def run(rois, scores, rois_lods, score_lods):
        if top < 0:
            raise EnforceNotMet("The parameter post_nms_topN must be a positive integer. But received "
                                "post_nms_topN = %d" % top)
        offsets = []
        for i, (s, lod) in enumerate(zip(scores, score_lods)):
            if not lod:
                raise EnforceNotMet("CollectFpnProposalsOp: Input(MultiLevelScores) '%s' needs its LoD"
                                    % input_name(spec, 'MultiLevelScores', i))
            check_rows(lod[-1], s.shape[0], 'CollectFpnProposalsOp', input_name(spec, 'MultiLevelScores', i))
            offsets.append(lod[-1])
        out, out_offsets = K.collect_fpn_proposals([np.asarray(r) for r in rois], scores, offsets, top)
        return out, as_lod([np.asarray(out_offsets, np.int64)])
    return run
