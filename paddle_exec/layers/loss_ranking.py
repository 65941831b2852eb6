"""Ranking and metric-learning loss layers (fluid 1.x signatures): rank_loss, margin_rank_loss, bpr_loss and
npair_loss, built as Paddle 1.8.5 builds them (one op each, npair_loss from ordinary layers).

    cost = fluid.layers.rank_loss(label, left, right)                 # RankNet, [N, 1]
    cost = fluid.layers.margin_rank_loss(label, left, right, margin=0.1)
"""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper
from .loss import softmax_with_cross_entropy
from .manipulation import expand, reshape, transpose
from .math import elementwise_div, elementwise_mul, equal, matmul, reduce_mean, reduce_sum, unary

__all__ = ['rank_loss', 'margin_rank_loss', 'bpr_loss', 'npair_loss']


def rank_loss(label, left, right, name=None) -> Variable:
    """RankNet: log(1 + exp(left - right)) - label * (left - right), all [N, 1] float32."""
    check_variable_and_dtype(label, 'label', ['float32'], 'rank_loss')
    check_variable_and_dtype(left, 'left', ['float32'], 'rank_loss')
    check_variable_and_dtype(right, 'right', ['float32'], 'rank_loss')
    helper = LayerHelper('rank_loss', name=name)
    out = helper.create_variable_for_type_inference('float32')
    helper.append_op('rank_loss', {'Label': [label], 'Left': [left], 'Right': [right]}, {'Out': [out]})
    return out


def margin_rank_loss(label, left, right, margin=0.1, name=None) -> Variable:
    """max(0, -label * (left - right) + margin); the op also writes `Activated` (which pairs are inside the
    margin) for its gradient. As Paddle 1.8 does, the dtype checks look at `label` three times."""
    for arg in ('label', 'left', 'right'):
        check_variable_and_dtype(label, arg, ['float32'], 'margin_rank_loss')
    helper = LayerHelper('margin_rank_loss', name=name)
    out = helper.create_variable_for_type_inference(left.dtype)
    act = helper.create_variable_for_type_inference(left.dtype)
    helper.append_op('margin_rank_loss', {'Label': [label], 'X1': [left], 'X2': [right]},
                     {'Out': [out], 'Activated': [act]}, {'margin': float(margin)})
    return out


def bpr_loss(input, label, name=None) -> Variable:
    """Bayesian personalised ranking over a [N, D] score matrix and [N, 1] positive classes."""
    helper = LayerHelper('bpr_loss', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'bpr_loss')
    helper.append_op('bpr_loss', {'X': [input], 'Label': [label]}, {'Y': [out]})
    return out


def npair_loss(anchor, positive, labels, l2_reg=0.002) -> Variable:
    """N-pair loss (Sohn 2016): an L2 term on the embeddings plus the soft-label cross entropy of the
    anchor-positive similarity matrix, where rows with equal labels share the target mass."""
    check_variable_and_dtype(anchor, 'anchor', ['float32', 'float64'], 'npair_loss')
    check_variable_and_dtype(positive, 'positive', ['float32', 'float64'], 'positive')
    check_variable_and_dtype(labels, 'labels', ['float32', 'float64', 'int64'], 'labels')
    beta = 0.25
    batch_size = labels.shape[0]
    labels = reshape(labels, shape=[batch_size, 1], inplace=True)
    labels = expand(labels, expand_times=[1, batch_size])
    labels = equal(labels, transpose(labels, perm=[1, 0])).astype('float32')
    labels = elementwise_div(labels, reduce_sum(labels, dim=1, keep_dim=True))
    l2loss = reduce_mean(reduce_sum(unary('square', anchor), 1)) + \
        reduce_mean(reduce_sum(unary('square', positive), 1))
    l2loss = l2loss * beta * l2_reg
    similarity = matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = softmax_with_cross_entropy(logits=similarity, label=labels, soft_label=True)
    cross_entropy = reduce_sum(elementwise_mul(labels, softmax_ce), 0)
    return l2loss + reduce_mean(cross_entropy)
