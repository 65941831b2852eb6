"""The SSD training-target ops of Paddle 1.8 (numerics in kernels/detection_targets.py), which ssd_loss chains
after iou_similarity and bipartite_match:

    target_assign(X [M, P, K] with a one-level LoD, MatchIndices [N, P] int32, NegIndices? [Neg, 1] int32 with a
                  one-level LoD) -> Out [N, P, K] (X's dtype), OutWeight [N, P, 1] float32; attr mismatch_value
    mine_hard_examples(ClsLoss [N, Np], LocLoss? [N, Np], MatchIndices [N, Np] int32, MatchDist [N, Np])
                  -> NegIndices [Neg, 1] int32 with a one-level LoD (one sequence per instance),
                     UpdatedMatchIndices [N, Np]; attrs neg_pos_ratio, neg_dist_threshold, sample_size, mining_type

Neither has a gradient in Paddle (their outputs are targets), so neither has one here. Out and OutWeight carry no
LoD (Paddle's InferShape shares none).
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import detection_targets as K
from ._lod import check_rows, input_name

__all__ = []

defop('target_assign', ['X', 'MatchIndices', 'NegIndices'], ['Out', 'OutWeight'], {'mismatch_value': 0},
      dispensable=['NegIndices'])


@shape_rule('target_assign')
def _target_assign_shape(ctx):
    x, mi = ctx.in_shape('X'), ctx.in_shape('MatchIndices')
    if len(x) != 3:
        raise ValueError("operator 'target_assign': Expected the rank of Input(X) is 3. But received %d." % len(x))
    if len(mi) != 2:
        raise ValueError("operator 'target_assign': The rank of Input(MatchIndices) must be 2.")
    if ctx.has_input('NegIndices'):
        neg = ctx.in_shape('NegIndices')
        if len(neg) != 2:
            raise ValueError("operator 'target_assign': The rank of Input(NegIndices) must be 2.")
        if neg[1] != 1:
            raise ValueError("operator 'target_assign': The last dimension of Out(NegIndices) must be 1.")
    ctx.set_output('Out', (mi[0], mi[1], x[2]), ctx.in_dtype('X'))
    ctx.set_output('OutWeight', (mi[0], mi[1], 1), VarType.FP32)


@lod_rule('target_assign')
def _target_assign_lod(ctx):
    ctx.read('X')
    ctx.read('NegIndices')


@kernel_rule('target_assign')
def _target_assign_kernel(spec):
    mismatch = int(spec.attr('mismatch_value') or 0)
    x_name, neg_name = input_name(spec, 'X'), input_name(spec, 'NegIndices')

    def run(x, match, neg, x_lod, neg_lod):
        if not x_lod or len(x_lod) != 1:
            raise EnforceNotMet("TargetAssignOp input(X) needs 1 level of LoD ('%s' has %d)"
                                % (x_name, len(x_lod or ())))
        check_rows(x_lod[0], x.shape[0], 'TargetAssignOp', x_name)
        neg_offsets = None
        if neg is not None:
            if not neg_lod or len(neg_lod) != 1:
                raise EnforceNotMet("TargetAssignOp input(NegIndices) needs 1 level of LoD ('%s' has %d)"
                                    % (neg_name, len(neg_lod or ())))
            neg_offsets = neg_lod[0]
            check_rows(neg_offsets, neg.shape[0], 'TargetAssignOp', neg_name)
        return K.target_assign(x, x_lod[0], match, neg, neg_offsets, mismatch)
    return run


# --- mine_hard_examples -------------------------------------------------------------------------------------------

defop('mine_hard_examples', ['ClsLoss', 'LocLoss', 'MatchIndices', 'MatchDist'], ['NegIndices', 'UpdatedMatchIndices'],
      {'neg_pos_ratio': 1.0, 'neg_dist_threshold': 0.5, 'sample_size': 0, 'mining_type': 'max_negative'},
      dispensable=['LocLoss'])


@shape_rule('mine_hard_examples')
def _mine_shape(ctx):
    for slot in ('ClsLoss', 'MatchIndices', 'MatchDist') + (('LocLoss',) if ctx.has_input('LocLoss') else ()):
        if len(ctx.in_shape(slot)) != 2:
            raise ValueError("operator 'mine_hard_examples': The shape of %s is [N, Np]." % slot)
    mining_type = ctx.attr('mining_type')
    if mining_type == 'max_negative':
        if not float(ctx.attr('neg_pos_ratio')) > 0.0:
            raise ValueError("operator 'mine_hard_examples': neg_pos_ratio must greater than zero in max_negative mode")
        threshold = float(ctx.attr('neg_dist_threshold'))
        if not threshold < 1.0:
            raise ValueError("operator 'mine_hard_examples': neg_dist_threshold must less than one in max_negative "
                             "mode")
        if not threshold > 0.0:
            raise ValueError("operator 'mine_hard_examples': neg_dist_threshold must greater than zero in "
                             "max_negative mode")
    elif mining_type == 'hard_example':
        if not int(ctx.attr('sample_size') or 0) > 0:
            raise ValueError("operator 'mine_hard_examples': sample_size must greater than zero in hard_example mode")
    else:
        raise ValueError("operator 'mine_hard_examples': mining_type must be hard_example or max_negative")
    ctx.set_output('UpdatedMatchIndices', ctx.in_shape('MatchIndices'), ctx.in_dtype('MatchIndices'))
    ctx.set_output('NegIndices', (-1, 1), VarType.INT32)


@lod_rule('mine_hard_examples')
def _mine_lod(ctx):
    ctx.compute('NegIndices', 1)


@kernel_rule('mine_hard_examples')
def _mine_kernel(spec):
    attrs = (spec.attr('mining_type'), float(spec.attr('neg_pos_ratio')), float(spec.attr('neg_dist_threshold')),
             int(spec.attr('sample_size') or 0))

    def run(cls_loss, loc_loss, match, dist):
        if cls_loss.shape != match.shape or dist.shape != match.shape:
            raise EnforceNotMet("MineHardExamplesOp: Batch size and prior box number of ClsLoss %s, MatchIndices %s "
                                "and MatchDist %s must be the same." % (list(cls_loss.shape), list(match.shape),
                                                                         list(dist.shape)))
        neg, updated, offsets = K.mine_hard_examples(cls_loss, loc_loss, match, dist, *attrs)
        return neg, updated, as_lod([offsets])
    return run
