"""Statistics of the paddle namespace (2.x signatures): paddle.numel, paddle.var, paddle.std.

Built from ordinary ops as Paddle 2.4 builds them, so gradients need nothing new:
    numel(x)                      `size`: the element count, int64 [1]
    var(x, axis, unbiased)        u = mean(x, axis, keepdim=True); s = sum((x - u) ** 2, axis, keepdim);
                                  n = numel(x) / numel(s) (an int64 division, exact), cast to x's dtype; unbiased:
                                  n = where(n > 1, n - 1, 1); s / n
    std(...)                      sqrt(var(...))
The divisor is computed in the graph, so a batch dimension unknown when the program is built (-1) is counted at
run time.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from . import creation, manipulation, search
from . import math as _tmath

__all__ = ['numel', 'var', 'std']


def numel(x, name=None):
    """The number of elements of x, an int64 [1] tensor (`size` op)."""
    helper = LayerHelper('numel', name=name)
    out = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op('size', {'Input': [x]}, {'Out': [out]}, {})
    return out


def var(x, axis=None, unbiased: bool = True, keepdim: bool = False, name=None):
    """Variance of x over `axis` (None: all elements); unbiased divides by N - 1 (by 1 when N == 1)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'var')
    u = _tmath.mean(x, axis, True, name)
    out = _tmath.sum(_tmath.pow(_tmath.subtract(x, u), 2.0), axis, keepdim=keepdim, name=name)
    n = _tmath.divide(manipulation.cast(numel(x), 'int64'), manipulation.cast(numel(out), 'int64'))
    n = manipulation.cast(n, x.dtype)
    if unbiased:
        one = creation.ones([1], x.dtype)
        n = search.where(_tmath.greater_than(n, one), _tmath.scale(n, 1.0, -1.0), one)
    return _tmath.divide(out, n)


def std(x, axis=None, unbiased: bool = True, keepdim: bool = False, name=None):
    """Standard deviation: sqrt(var(x, axis, unbiased, keepdim))."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'std')
    return _tmath.sqrt(var(x, axis, unbiased, keepdim, name))
