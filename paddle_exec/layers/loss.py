"""Loss layers (fluid 1.x signatures): square_error_cost, cross_entropy, softmax_with_cross_entropy,
sigmoid_cross_entropy_with_logits, log_loss, huber_loss, mse_loss; and `bce`, the `bce_loss` op builder used by
paddle.nn.functional.binary_cross_entropy.

As in Paddle 1.8.5: `cross_entropy` with hard labels is the `cross_entropy2` op (its temporaries Y, XShape,
MatchX are `cross_entropy2_N.tmp_0..2`), with soft labels the `cross_entropy` op.
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['square_error_cost', 'cross_entropy', 'softmax_with_cross_entropy', 'sigmoid_cross_entropy_with_logits',
           'log_loss', 'huber_loss', 'mse_loss']

kIgnoreIndex = -100
_FLOATS = ['float16', 'float32', 'float64']


def square_error_cost(input, label):
    """(input - label)^2 as Paddle builds it: elementwise_sub then square."""
    helper = LayerHelper('square_error_cost')
    minus = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('elementwise_sub', {'X': [input], 'Y': [label]}, {'Out': [minus]})
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('square', {'X': [minus]}, {'Out': [out]})
    return out


def cross_entropy(input, label, soft_label=False, ignore_index=kIgnoreIndex):
    """fluid.layers.cross_entropy on probabilities (last axis): hard labels -> `cross_entropy2`, soft labels ->
    `cross_entropy`. Returns the loss of shape [..., 1]."""
    if not soft_label:
        return cross_entropy2(input, label, ignore_index)
    check_variable_and_dtype(input, 'input', _FLOATS, 'cross_entropy')
    helper = LayerHelper('cross_entropy')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('cross_entropy', {'X': [input], 'Label': [label]}, {'Y': [out]},
                     {'soft_label': True, 'ignore_index': int(ignore_index)})
    return out


def cross_entropy2(input, label, ignore_index=kIgnoreIndex):
    check_variable_and_dtype(input, 'input', _FLOATS, 'cross_entropy2')
    helper = LayerHelper('cross_entropy2')
    out = helper.create_variable_for_type_inference(input.dtype)
    xshape = helper.create_variable_for_type_inference(input.dtype)
    match_x = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('cross_entropy2', {'X': [input], 'Label': [label]},
                     {'Y': [out], 'MatchX': [match_x], 'XShape': [xshape]}, {'ignore_index': int(ignore_index)})
    return out


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=kIgnoreIndex, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """fluid.layers.softmax_with_cross_entropy: one op with outputs Softmax and Loss (Loss has 1 at `axis`)."""
    loss, softmax = softmax_with_cross_entropy_op(logits, label, soft_label, ignore_index, numeric_stable_mode, axis)
    return (loss, softmax) if return_softmax else loss


def softmax_with_cross_entropy_op(logits, label, soft_label, ignore_index, numeric_stable_mode, axis,
                                  use_softmax=None):
    """Appends `softmax_with_cross_entropy`; returns (loss, softmax). `use_softmax` (2.x) is set when given."""
    helper = LayerHelper('softmax_with_cross_entropy')
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    attrs = {'soft_label': bool(soft_label), 'ignore_index': int(ignore_index),
             'numeric_stable_mode': bool(numeric_stable_mode), 'axis': int(axis)}
    if use_softmax is not None:
        attrs['use_softmax'] = bool(use_softmax)
    helper.append_op('softmax_with_cross_entropy', {'Logits': [logits], 'Label': [label]},
                     {'Softmax': [softmax], 'Loss': [loss]}, attrs)
    return loss, softmax


def sigmoid_cross_entropy_with_logits(x, label, ignore_index=kIgnoreIndex, name=None, normalize=False):
    """fluid.layers.sigmoid_cross_entropy_with_logits: elementwise, one op."""
    check_variable_and_dtype(x, 'input', _FLOATS, 'sigmoid_cross_entropy_with_logits')
    helper = LayerHelper('sigmoid_cross_entropy_with_logits', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('sigmoid_cross_entropy_with_logits', {'X': [x], 'Label': [label]}, {'Out': [out]},
                     {'ignore_index': int(ignore_index), 'normalize': bool(normalize)})
    return out


def bce(input, label, name=None):
    """The `bce_loss` op (elementwise binary cross entropy on probabilities), as F.binary_cross_entropy builds it
    under the helper name `binary_cross_entropy`."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'binary_cross_entropy')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'binary_cross_entropy')
    helper = LayerHelper('binary_cross_entropy', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('bce_loss', {'X': [input], 'Label': [label]}, {'Out': [out]})
    return out


def log_loss(input, label, epsilon=1e-4, name=None):
    """fluid.layers.log_loss: `-label * log(input + eps) - (1 - label) * log(1 - input + eps)`."""
    check_variable_and_dtype(input, 'input', ['float32'], 'log_loss')
    check_variable_and_dtype(label, 'label', ['float32'], 'log_loss')
    helper = LayerHelper('log_loss', name=name)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('log_loss', {'Predicted': [input], 'Labels': [label]}, {'Loss': [loss]},
                     {'epsilon': float(epsilon)})
    return loss


def huber_loss(input, label, delta):
    """fluid.layers.huber_loss: returns Out; Residual (label - input) is a second output kept for the gradient."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'huber_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'huber_loss')
    helper = LayerHelper('huber_loss')
    residual = helper.create_variable_for_type_inference(input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('huber_loss', {'X': [input], 'Y': [label]}, {'Out': [out], 'Residual': [residual]},
                     {'delta': float(delta)})
    return out


def mse_loss(input, label):
    """fluid.layers.mse_loss: reduce_mean(square_error_cost(input, label)) over every element."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'mse_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'mse_loss')
    cost = square_error_cost(input, label)
    helper = LayerHelper('reduce_mean')
    out = helper.create_variable_for_type_inference(cost.dtype)
    helper.append_op('reduce_mean', {'X': [cost]}, {'Out': [out]}, {'dim': [0], 'keep_dim': False,
                                                                     'reduce_all': True})
    return out


# ---------------------------------------------------------------------------------------------------------------
# smooth_l1, kldiv_loss, label_smooth (Paddle 1.8.5)

__all__ += ['smooth_l1', 'kldiv_loss', 'label_smooth']


def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """fluid.layers.smooth_l1: one `smooth_l1_loss` op; returns Out ([N, 1], each row's summed loss), Diff is a
    temporary kept for the gradient. sigma None means 1.0."""
    check_variable_and_dtype(x, 'X', ['float32', 'float64'], 'smooth_l1_loss')
    check_variable_and_dtype(y, 'Y', ['float32', 'float64'], 'smooth_l1_loss')
    helper = LayerHelper('smooth_l1_loss')
    diff = helper.create_variable_for_type_inference(x.dtype)
    loss = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x], 'Y': [y]}
    if inside_weight is not None:
        inputs['InsideWeight'] = [inside_weight]
    if outside_weight is not None:
        inputs['OutsideWeight'] = [outside_weight]
    helper.append_op('smooth_l1_loss', inputs, {'Diff': [diff], 'Out': [loss]},
                     {'sigma': float(sigma) if sigma is not None else 1.0})
    return loss


def kldiv_loss(x, target, reduction='mean', name=None):
    """fluid.layers.kldiv_loss: one `kldiv_loss` op with the reduction as its attribute ('none' keeps the shape,
    'mean' / 'sum' / 'batchmean' give [1])."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'kldiv_loss')
    check_variable_and_dtype(target, 'target', ['float32', 'float64'], 'kldiv_loss')
    if not isinstance(reduction, str):
        raise TypeError("The type of 'reduction' in kldiv_loss must be %s, but received %s. "
                        % (str, type(reduction)))
    return kldiv_loss_op(x, target, reduction, LayerHelper('kldiv_loss', name=name))


def kldiv_loss_op(x, target, reduction: str, helper: LayerHelper):
    loss = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('kldiv_loss', {'X': [x], 'Target': [target]}, {'Loss': [loss]}, {'reduction': reduction})
    return loss


def label_smooth(label, prior_dist=None, epsilon=0.1, dtype='float32', name=None):
    """fluid.layers.label_smooth: `(1 - epsilon) * label + epsilon * prior` (uniform 1 / K without prior_dist).
    As in Paddle, the label is marked stop_gradient and the output takes `dtype`."""
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'label_smooth')
    return label_smooth_op(label, prior_dist, epsilon, dtype, name)


def label_smooth_op(label, prior_dist, epsilon, dtype, name=None):
    """Appends `label_smooth` (fluid.layers.label_smooth and F.label_smooth)."""
    if epsilon > 1. or epsilon < 0.:
        raise ValueError('The value of epsilon must be between 0 and 1.')
    helper = LayerHelper('label_smooth', name=name)
    label.stop_gradient = True
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    inputs = {'X': [label]}
    if prior_dist is not None:
        inputs['PriorDist'] = [prior_dist]
    helper.append_op('label_smooth', inputs, {'Out': [out]}, {'epsilon': float(epsilon)})
    return out
