"""paddle.nn.functional.pairwise_distance: the p-norm of x - y + epsilon over the last axis.

Paddle 2.6 appends one `p_norm` op; here the norm is composed of ops the library has (abs, pow / square,
reduce_sum, sqrt, reduce_max / reduce_min), which give the same numbers and gradients:
    p = 2      sqrt(sum(d^2))                    p = inf / -inf   max / min |d|
    p = 0      count of nonzero d (no gradient)  other p          sum(|d|^p)^(1/p)
"""
from __future__ import annotations

import math

from ...framework.variable import Variable
from ...layers.checks import check_type, check_variable_and_dtype
from ...tensor.creation import full
from ...tensor.manipulation import cast
from ...tensor.math import abs, add, max, min, not_equal, pow, sqrt, square, subtract, sum

__all__ = ['pairwise_distance']


def p_norm_last_axis(x, p, keepdim: bool) -> Variable:
    """The p-norm of `x` over its last axis (see the module docstring)."""
    if p == 2:
        return sqrt(sum(square(x), axis=-1, keepdim=keepdim))
    if p == math.inf:
        return max(abs(x), axis=-1, keepdim=keepdim)
    if p == -math.inf:
        return min(abs(x), axis=-1, keepdim=keepdim)
    if p == 0:
        zero = full([1], 0.0, dtype=x.dtype)
        return sum(cast(not_equal(x, zero), x.dtype), axis=-1, keepdim=keepdim)
    return pow(sum(pow(abs(x), float(p)), axis=-1, keepdim=keepdim), 1.0 / float(p))


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None) -> Variable:
    """||x - y + epsilon||_p over the last axis ([N, D] -> [N], or [N, 1] with keepdim)."""
    check_type(p, 'porder', (float, int), 'PairwiseDistance')
    check_type(epsilon, 'epsilon', (float,), 'PairwiseDistance')
    check_type(keepdim, 'keepdim', (bool,), 'PairwiseDistance')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'PairwiseDistance')
    check_variable_and_dtype(y, 'y', ['float16', 'float32', 'float64'], 'PairwiseDistance')
    sub = subtract(x, y)
    if epsilon != 0.0:
        sub = add(sub, full([1], epsilon, dtype=sub.dtype))
    return p_norm_last_axis(sub, p, keepdim)
