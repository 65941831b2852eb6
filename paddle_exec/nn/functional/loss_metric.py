"""Ranking and metric-learning losses of paddle.nn.functional (Paddle 2.x signatures), built from tensor ops the
way Paddle 2.6's static mode builds them: margin_ranking_loss, cosine_embedding_loss, triplet_margin_loss,
triplet_margin_with_distance_loss, multi_margin_loss, npair_loss.

Differences from Paddle 2.6 kept small and deliberate:
- multi_margin_loss picks x[label] with a one-hot product instead of paddle.index_sample (same numbers and
  gradient);
- triplet_margin_with_distance_loss cannot check `distance > 0` while building a static program (Paddle 2.6's
  check calls bool() on a Variable); it is left out.
"""
from __future__ import annotations

from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper
from ...layers.loss import softmax_with_cross_entropy
from ...tensor.creation import full, zeros_like
from ...tensor.manipulation import cast, gather, reshape, tile, transpose
from ...tensor.math import add, clip, equal, matmul, mean, minimum, multiply, pow, scale, sqrt, square, subtract, sum
from ...tensor.search import where
from .activation import relu
from .distance import pairwise_distance
from .input import one_hot

__all__ = ['margin_ranking_loss', 'cosine_embedding_loss', 'triplet_margin_loss',
           'triplet_margin_with_distance_loss', 'multi_margin_loss', 'npair_loss']


def _reduced(loss, reduction: str, name=None):
    if reduction == 'mean':
        return mean(loss, name=name)
    if reduction == 'sum':
        return sum(loss, name=name)
    return loss


def _check_reduction(reduction, api: str):
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("'reduction' in '%s' should be 'sum', 'mean' or 'none', but received %s." % (api, reduction))


def margin_ranking_loss(input, other, label, margin=0.0, reduction='mean', name=None) -> Variable:
    """relu(-label * (input - other) + margin), reduced (Paddle's ops: `relu`, then `reduce_sum` / `mean`)."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in MarginRankingLoss should be 'sum', 'mean' or 'none', but "
                         "received %s, which is not allowed." % reduction)
    helper = LayerHelper('margin_ranking_loss', name=name)
    for arg, v in (('input', input), ('other', other), ('label', label)):
        check_variable_and_dtype(v, arg, ['float32', 'float64'], 'margin_rank_loss')
    out = multiply(scale(label, -1.0), subtract(input, other))
    if margin != 0.0:
        out = add(out, full([1], margin, dtype=out.dtype))
    result = helper.create_variable_for_type_inference(input.dtype)
    if reduction == 'none':
        helper.append_op('relu', {'X': [out]}, {'Out': [result]})
    elif reduction == 'sum':
        helper.append_op('reduce_sum', {'X': [relu(out)]}, {'Out': [result]},
                         {'dim': [0], 'keep_dim': False, 'reduce_all': True})
    else:
        helper.append_op('mean', {'X': [relu(out)]}, {'Out': [result]})
    return result


def cosine_embedding_loss(input1, input2, label, margin=0, reduction='mean', name=None) -> Variable:
    """1 - cos(x1, x2) for label 1, max(0, cos(x1, x2) - margin) for label -1 (cosine over the last axis)."""
    if len(label.shape) != 1:
        raise ValueError('1D target tensor expected, multi-target not supported')
    if tuple(input1.shape) != tuple(input2.shape):
        raise ValueError('the shape of input tensor 1 should be equal to input tensor 2, but found inputs with '
                         'different sizes')
    if len(input1.shape) > 2:
        raise ValueError('1D target tensor expects 1D or 2D input tensors, but found inputs with different sizes')
    check_variable_and_dtype(input1, 'input1', ['float32', 'float64'], 'cosine_embedding_loss')
    check_variable_and_dtype(label, 'label', ['int32', 'int64', 'float32', 'float64'], 'cosine_embedding_loss')
    prod_sum = sum(multiply(input1, input2), axis=-1)
    mag_square1 = sum(square(input1), axis=-1) + 10e-12
    mag_square2 = sum(square(input2), axis=-1) + 10e-12
    cos = prod_sum / sqrt(multiply(mag_square1, mag_square2))
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = clip(cos - margin, min=0)
    out_pos = where(equal(label, full([1], 1, dtype=label.dtype)), pos, zeros)
    out_neg = where(equal(label, full([1], -1, dtype=label.dtype)), neg, zeros)
    return _reduced(out_pos + out_neg, reduction, name)


def _triplet(input, positive, negative, distance, margin, swap, reduction, name, api):
    _check_reduction(reduction, api)
    if margin < 0:
        raise ValueError('The margin between positive samples and negative samples should be greater than 0.')
    for arg, v in (('input', input), ('positive', positive), ('negative', negative)):
        check_variable_and_dtype(v, arg, ['float32', 'float64'], api)
    if not tuple(input.shape) == tuple(positive.shape) == tuple(negative.shape):
        raise ValueError("input's shape must equal to positive's shape and  negative's shape")
    positive_dist = distance(input, positive)
    negative_dist = distance(input, negative)
    if swap:
        negative_dist = minimum(negative_dist, distance(positive, negative))
    loss = clip(positive_dist - negative_dist + margin, min=0.0)
    return _reduced(loss, reduction, name)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction='mean',
                        name=None) -> Variable:
    """max(d(a, p) - d(a, n) + margin, 0) with the pairwise p-norm distance (`swap`: d(a, n) is the smaller of
    d(a, n) and d(p, n))."""
    return _triplet(input, positive, negative,
                    lambda x, y: pairwise_distance(x, y, p=p, epsilon=float(epsilon)), margin, swap, reduction,
                    name, 'triplet_margin_loss')


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0, swap=False,
                                      reduction='mean', name=None) -> Variable:
    """triplet_margin_loss with any `distance_function(x, y)` (default: the Euclidean pairwise distance)."""
    distance = distance_function if distance_function is not None else \
        (lambda x, y: pairwise_distance(x, y, p=2))
    return _triplet(input, positive, negative, distance, margin, swap, reduction, name,
                    'triplet_margin_with_distance_loss')


def multi_margin_loss(input, label, p: int = 1, margin: float = 1.0, weight=None, reduction='mean',
                      name=None) -> Variable:
    """mean_j(max(0, w[y] * (margin - x[y] + x[j]))^p) - w[y] * margin^p / C per sample (the j = y term, margin^p,
    is subtracted again), reduced."""
    _check_reduction(reduction, 'multi_margin_loss')
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'multi_margin_loss')
    check_variable_and_dtype(label, 'label', ['int32', 'int64'], 'multi_margin_loss')
    if input.shape[0] != label.shape[0]:
        raise ValueError("The label's shape[0] should be equal to input's shape[0], but received input's shape[0] "
                         "{} and label's shape[0]:{}. ".format(input.shape[0], label.shape[0]))
    num_classes = input.shape[1]
    label = reshape(label, (-1, 1))
    picked = sum(multiply(input, cast(one_hot(reshape(label, (-1,)), num_classes), input.dtype)), axis=1,
                 keepdim=True)
    if weight is not None:
        check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'multi_margin_loss')
        if input.shape[1] != weight.shape[0]:
            raise ValueError("The weight's shape[0] should be equal to input's shape[1]but received weight's "
                             "shape[0]: {} and input's shape[1]: {}".format(weight.shape[0], input.shape[1]))
        weight = reshape(gather(weight, label, axis=0), (-1, 1))
        loss = mean(pow(clip(multiply(weight, margin - picked + input), min=0.0), p), axis=1) - \
            multiply(weight, full([1], margin ** p / num_classes, dtype=input.dtype))
    else:
        loss = mean(pow(clip(margin - picked + input, min=0.0), p), axis=1) - margin ** p / num_classes
    return _reduced(loss, reduction, name)


def npair_loss(anchor, positive, labels, l2_reg=0.002) -> Variable:
    """N-pair loss, as Paddle 2.6 builds it (fluid's npair_loss with paddle.reshape / tile instead of the in-place
    reshape and expand, so the labels variable keeps its shape)."""
    if 0 in anchor.shape:
        raise ValueError('The dims of anchor should be greater than 0.')
    if 0 in positive.shape:
        raise ValueError('The dims of positive should be greater than 0.')
    check_variable_and_dtype(anchor, 'anchor', ['float32', 'float64'], 'npair_loss')
    check_variable_and_dtype(positive, 'positive', ['float32', 'float64'], 'positive')
    check_variable_and_dtype(labels, 'labels', ['float32', 'float64', 'int64'], 'labels')
    beta = 0.25
    batch_size = labels.shape[0]
    labels = tile(reshape(labels, shape=[batch_size, 1]), repeat_times=[1, batch_size])
    labels = equal(labels, transpose(labels, perm=[1, 0])).astype('float32')
    labels = labels / sum(labels, axis=1, keepdim=True)
    l2loss = mean(sum(square(anchor), 1)) + mean(sum(square(positive), 1))
    l2loss = l2loss * beta * l2_reg
    similarity = matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = softmax_with_cross_entropy(logits=similarity, label=labels, soft_label=True)
    cross_entropy = sum(multiply(labels, softmax_ce), 0)
    return l2loss + mean(cross_entropy)
