"""paddle.nn.functional.pairwise_distance: the p-norm of x - y (+ epsilon) along the last axis.

Paddle 2.6 takes the norm with its `p_norm` op; here it is built from abs, pow and reduce_sum / reduce_max (the
same numbers to float rounding, differentiable through each op). p = inf is the largest absolute difference, p = 0
the number of nonzero differences.
"""
from __future__ import annotations

from ...layers import activation as _activation
from ...layers import math as _math
from ...layers.casting import cast
from ...layers.checks import check_type, check_variable_and_dtype
from ...layers.creation import fill_constant

__all__ = ['pairwise_distance']


def p_norm_last_axis(x, p, keepdim: bool):
    """||x||_p along the last axis, from elementwise ops."""
    magnitude = _activation.abs(x)
    if p == float('inf'):
        return _math.reduce_max(magnitude, dim=[-1], keep_dim=keepdim)
    if p == float('-inf'):
        return _math.reduce_min(magnitude, dim=[-1], keep_dim=keepdim)
    if p == 0:
        nonzero = cast(_math.not_equal(magnitude, fill_constant([1], x.dtype, 0.0)), x.dtype)
        return _math.reduce_sum(nonzero, dim=[-1], keep_dim=keepdim)
    if p == 1:
        return _math.reduce_sum(magnitude, dim=[-1], keep_dim=keepdim)
    powered = _activation.pow(magnitude, float(p))
    return _activation.pow(_math.reduce_sum(powered, dim=[-1], keep_dim=keepdim), 1.0 / float(p))


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """F.pairwise_distance: ||x - y + epsilon||_p along the last axis (x and y broadcast)."""
    check_type(p, 'porder', (float, int), 'PairwiseDistance')
    check_type(epsilon, 'epsilon', float, 'PairwiseDistance')
    check_type(keepdim, 'keepdim', bool, 'PairwiseDistance')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'PairwiseDistance')
    check_variable_and_dtype(y, 'y', ['float16', 'float32', 'float64'], 'PairwiseDistance')
    sub = _math.elementwise_sub(x, y)
    if epsilon != 0.0:
        sub = _math.elementwise_add(sub, fill_constant([1], sub.dtype, epsilon))
    return p_norm_last_axis(sub, p, keepdim)
