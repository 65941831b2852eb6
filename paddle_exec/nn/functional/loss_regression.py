"""Elementwise losses of paddle.nn.functional (Paddle 2.x signatures), built from tensor ops the way Paddle 2.6's
static mode builds them: l1_loss, soft_margin_loss, hinge_embedding_loss, multi_label_soft_margin_loss,
poisson_nll_loss, gaussian_nll_loss.

`reduction` is 'none' (the elementwise loss), 'mean' or 'sum' (paddle.mean / paddle.sum of it). Paddle 2.6's
gaussian_nll_loss also appends an `assert` op checking variance > 0 at run time; paddle_exec has no assert op
(variance is clipped to `epsilon` as in Paddle, so a non-positive variance gives a finite loss instead of an
error).

    loss = F.l1_loss(pred, label, reduction='sum')
"""
from __future__ import annotations

import math

from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ...tensor.creation import full as full_tensor
from ...tensor.creation import zeros_like
from ...tensor.manipulation import cast, unsqueeze
from ...tensor.math import abs, clip, equal, exp, greater_than, log, mean, multiply, square, subtract, sum
from ...tensor.search import where
from .activation import log_sigmoid, relu
from .loss import _check_reduction

__all__ = ['l1_loss', 'soft_margin_loss', 'hinge_embedding_loss', 'multi_label_soft_margin_loss',
           'poisson_nll_loss', 'gaussian_nll_loss']


def _reduced(loss, reduction: str, name=None):
    if reduction == 'mean':
        return mean(loss, name=name)
    if reduction == 'sum':
        return sum(loss, name=name)
    return loss


def l1_loss(input, label, reduction='mean', name=None) -> Variable:
    """|input - label|, reduced."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in L1Loss should be 'sum', 'mean' or 'none', but received %s, "
                         "which is not allowed." % reduction)
    for arg, v in (('input', input), ('label', label)):
        check_variable_and_dtype(v, arg, ['float32', 'float64', 'int32', 'int64', 'float16'], 'l1_loss')
    if reduction == 'none':
        return abs(subtract(input, label, name=name))
    return _reduced(abs(subtract(input, label)), reduction, name)


def soft_margin_loss(input, label, reduction='mean', name=None) -> Variable:
    """log(1 + exp(-label * input)) for labels in {1, -1}."""
    _check_reduction(reduction, 'soft_margin_loss')
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'soft_margin_loss')
    check_variable_and_dtype(label, 'label', ['int32', 'int64', 'float32', 'float64'], 'soft_margin_loss')
    if tuple(input.shape) != tuple(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    label = cast(label, input.dtype)
    out = log(1 + exp(multiply(-label, input)))
    return _reduced(out, reduction, name)


def hinge_embedding_loss(input, label, margin=1.0, reduction='mean', name=None) -> Variable:
    """input where label is 1, max(0, margin - input) where it is -1."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("'reduction' in 'hinge_embedding_loss' should be 'sum', 'mean' or 'none', but received "
                         "%s." % reduction)
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'hinge_embedding_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'hinge_embedding_loss')
    zero = full_tensor([1], 0.0, dtype=input.dtype)
    one, minus_one = full_tensor([1], 1.0, dtype=label.dtype), full_tensor([1], -1.0, dtype=label.dtype)
    loss = where(equal(label, one), input, zero) + where(equal(label, minus_one), relu(margin - input), zero)
    return _reduced(loss, reduction, name)


def multi_label_soft_margin_loss(input, label, weight=None, reduction='mean', name=None) -> Variable:
    """-(label * log_sigmoid(x) + (1 - label) * log_sigmoid(-x)), times `weight`, averaged over the classes
    (one value per sample), then reduced."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("'reduction' in 'multi_label_soft_margin_loss' should be 'sum', 'mean' or 'none', but "
                         "received %s." % reduction)
    if tuple(input.shape) != tuple(label.shape):
        raise ValueError('The input and label should have same dimension,but received %s!=%s'
                         % (list(input.shape), list(label.shape)))
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'multilabel_soft_margin_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'multilabel_soft_margin_loss')
    loss = -(multiply(label, log_sigmoid(input)) + multiply(1 - label, log_sigmoid(-input)))
    if weight is not None:
        check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'multilabel_soft_margin_loss')
        loss = multiply(loss, weight)
    loss = mean(loss, axis=-1)
    return _reduced(loss, reduction) if reduction != 'none' else loss


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction='mean',
                     name=None) -> Variable:
    """exp(input) - label * input (log_input), or input - label * log(input + epsilon); with `full` the Stirling
    term label * log(label) - label + log(2 pi label) / 2 is added where label > 1."""
    if epsilon <= 0:
        raise ValueError('The value of `epsilon` in poisson_nll_loss should be positve, but received %f, which is '
                         'not allowed' % epsilon)
    _check_reduction(reduction, 'poisson_nll_loss')
    check_variable_and_dtype(input, 'input', ['float16', 'uint16', 'float32', 'float64'], 'poisson_nll_loss')
    check_variable_and_dtype(label, 'label', ['float16', 'uint16', 'float32', 'float64'], 'poisson_nll_loss')
    if tuple(input.shape) != tuple(label.shape):
        raise ValueError("input's shape must equal to label's shape")
    label = cast(label, input.dtype)
    if log_input:
        loss = exp(input) - multiply(label, input)
    else:
        loss = input - multiply(label, log(input + epsilon))
    if full:
        stirling = multiply(label, log(label)) - label + 0.5 * log(2 * math.pi * label)
        one = full_tensor([1], 1.0, dtype=label.dtype)
        loss = loss + where(greater_than(label, one), stirling, zeros_like(stirling))
    return _reduced(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction='mean', name=None) -> Variable:
    """(log(var) + (input - label)^2 / var) / 2 (+ log(2 pi) / 2 with `full`), var clipped below at epsilon;
    `variance` may lack the last dimension or have 1 there (one variance per sample)."""
    if tuple(variance.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(variance.shape):
            variance = unsqueeze(variance, -1)
        elif tuple(input.shape[:-1]) == tuple(variance.shape[:-1]) and variance.shape[-1] == 1:
            pass
        else:
            raise ValueError('variance is of incorrect shape')
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError(reduction + ' is not valid')
    for arg, v in (('Input', input), ('Label', label), ('Variance', variance)):
        check_variable_and_dtype(v, arg, ['float32', 'float64'], 'gaussian_nll_loss')
    # Paddle clamps under paddle.no_grad(), which does nothing in static mode: the gradient reaches the variance
    variance = clip(variance, min=epsilon)
    loss = 0.5 * (log(variance) + square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduced(loss, reduction, name)
