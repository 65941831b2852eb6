"""Reductions and scans of Paddle 2.x: paddle.amax / amin, nansum / nanmean, count_nonzero, cumprod, cummax /
cummin, logcumsumexp, trapezoid / cumulative_trapezoid, diff, nan_to_num, multigammaln, renorm.

One op each where 2.6.2 appends one (reduce_amax / reduce_amin, cumprod, cummax / cummin, logcumsumexp, renorm);
2.6.2's compositions for the others: nansum is where(isnan, 0, x) + sum, nanmean divides by the count of
non-nans, count_nonzero casts to bool then int64 and sums, trapezoid / cumulative_trapezoid add neighbours and
scale (by dx, or the differences of x), diff subtracts two slices (logical_xor for bool), nan_to_num is three
wheres, multigammaln sums lgamma over a shifted range.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ._append import append_op
from .creation import arange, full_like, zeros_like
from .manipulation import concat, flatten, unsqueeze
from .math import _axis_list, cumsum, divide, equal, isnan, logical_not, logical_xor, sum
from .ops import lgamma
from .search import where

__all__ = ['amax', 'amin', 'nansum', 'nanmean', 'count_nonzero', 'cumprod', 'cummax', 'cummin', 'logcumsumexp',
           'trapezoid', 'cumulative_trapezoid', 'diff', 'nan_to_num', 'multigammaln', 'renorm']


def _reduce_axis(axis, x):
    """2.6.2's _get_reduce_axis: (reduce_all, dims)."""
    axis = _axis_list(axis)
    if axis is None or len(axis) == 0 or len(axis) == len(x.shape):
        return True, axis or []
    return False, axis


def _extreme(op_type: str, api: str, x, axis, keepdim, name):
    reduce_all, dims = _reduce_axis(axis, x)
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), api)
    return append_op(op_type, {'X': x}, {'Out': x.dtype}, {'dim': dims, 'keep_dim': keepdim, 'reduce_all': reduce_all},
                     name=name, helper_name=api)


def amax(x, axis=None, keepdim=False, name=None):
    """paddle.amax: the maximum; its gradient is shared evenly among equal maxima (reduce_amax)."""
    return _extreme('reduce_amax', 'amax', x, axis, keepdim, name)


def amin(x, axis=None, keepdim=False, name=None):
    return _extreme('reduce_amin', 'amin', x, axis, keepdim, name)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """paddle.nansum: the sum with nans counted as 0."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'nansum')
    return sum(where(isnan(x), zeros_like(x), x), axis, dtype, keepdim, name)


def nanmean(x, axis=None, keepdim=False, name=None):
    """paddle.nanmean: the mean of the non-nan elements."""
    axis = [axis] if isinstance(axis, int) else axis
    check_variable_and_dtype(x, 'x/input', ('float16', 'float32', 'float64'), 'nanmean')
    count = sum(logical_not(isnan(x)), axis=axis, keepdim=keepdim)
    return divide(nansum(x, axis=axis, keepdim=keepdim, name=name), cast(count, x.dtype))


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """paddle.count_nonzero: int64 counts of the non-zero elements."""
    axis = [axis] if isinstance(axis, int) else axis
    return sum(cast(cast(x, 'bool'), 'int64'), axis=axis, keepdim=keepdim, name=name)


def cumprod(x, dim=None, dtype=None, name=None):
    """paddle.cumprod: the running product along dim (`cumprod`)."""
    if dtype is not None and to_var_type(dtype) != x.dtype:
        x = cast(x, dtype)
    check_variable_and_dtype(x, 'x', ('complex64', 'complex128', 'float16', 'float32', 'float64', 'int32', 'int64'),
                             'cumprod')
    if not isinstance(dim, int):
        raise TypeError("The type of 'dim' in cumprod must be <class 'int'>, but received %s. " % type(dim))
    return append_op('cumprod', {'X': x}, {'Out': x.dtype}, {'dim': dim}, name=name)


def _cum_extreme(op_type: str, x, axis, dtype, name):
    if axis is None:
        axis = -1
        x = flatten(x, 0, len(x.shape) - 1)
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in %s must be ['int32', 'int64'], but received %s."
                        % (op_type, convert_dtype(dtype)))
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), op_type)
    out, indices = append_op(op_type, {'x': x}, {'out': x.dtype, 'indices': VarType.INT64},
                             {'axis': axis, 'dtype': int(to_var_type(dtype))}, name=name)
    return out, indices


def cummax(x, axis=None, dtype='int64', name=None):
    """paddle.cummax: the running maximum and where it came from (the latest of equal maxima)."""
    return _cum_extreme('cummax', x, axis, dtype, name)


def cummin(x, axis=None, dtype='int64', name=None):
    return _cum_extreme('cummin', x, axis, dtype, name)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """paddle.logcumsumexp: log(cumsum(exp(x))) without overflow; axis None flattens."""
    if dtype is not None and to_var_type(dtype) != x.dtype:
        x = cast(x, dtype)
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64'), 'logcumsumexp')
    attrs = {'axis': -1 if axis is None else axis, 'flatten': axis is None}
    return append_op('logcumsumexp', {'X': x}, {'Out': x.dtype}, attrs, name=name)


def _neighbours(y, axis):
    """(y[1:], y[:-1]) along axis (2.6.2 gathers the same two index ranges)."""
    n = y.shape[axis]
    return _slice(y, axis, 1, n), _slice(y, axis, 0, n - 1)


def _slice(x, axis, start, end):
    return append_op('slice', {'Input': x}, {'Out': x.dtype},
                     {'axes': [axis], 'starts': [start], 'ends': [end], 'decrease_axis': [], 'infer_flags': [1]},
                     helper_name='slice')


def _trapezoid_terms(y, x, dx, axis):
    if x is not None and dx is not None:
        raise ValueError("Not permitted to specify both x and dx input args.")
    if y.dtype not in (VarType.FP16, VarType.FP32, VarType.FP64):
        raise TypeError("The data type of input must be Tensor, and dtype should be one of ['paddle.float16', "
                        "'paddle.float32', 'paddle.float64'], but got %s" % convert_dtype(y.dtype))
    axis = axis + len(y.shape) if axis < 0 else axis
    hi, lo = _neighbours(y, axis)
    pair = hi + lo
    if x is None:
        step = 1.0 if dx is None else dx
        if isinstance(step, Variable):
            return pair * step, axis
        return pair * float(step), axis
    if len(x.shape) == 1:
        xd = _slice(x, 0, 1, x.shape[0]) - _slice(x, 0, 0, x.shape[0] - 1)
        shape = [1] * len(y.shape)
        shape[axis] = xd.shape[0]
        xd = append_op('reshape2', {'X': xd}, {'Out': x.dtype, 'XShape': x.dtype}, {'shape': shape},
                       helper_name='reshape2')[0]
    else:
        xd = _slice(x, axis, 1, x.shape[axis]) - _slice(x, axis, 0, x.shape[axis] - 1)
    return pair * xd, axis


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """paddle.trapezoid: the trapezoidal rule along axis, with sample points x or spacing dx (default 1)."""
    terms, axis = _trapezoid_terms(y, x, dx, axis)
    return sum(terms, axis=axis) * 0.5


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """paddle.cumulative_trapezoid: the running trapezoidal integral along axis."""
    terms, axis = _trapezoid_terms(y, x, dx, axis)
    return cumsum(terms, axis=axis) * 0.5


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """paddle.diff: the n-th forward difference along axis (xor of neighbours for bool)."""
    if n < 1:
        raise ValueError("Diff expects input to be at least one-dimensional but got %d" % n)
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'bool', 'int32', 'int64'), 'diff')
    axis = axis + len(x.shape) if axis < 0 else axis
    parts = [v for v in (prepend, x, append) if v is not None]
    out = concat(parts, axis) if len(parts) > 1 else x
    for _ in range(n):
        length = out.shape[axis]
        front, back = _slice(out, axis, 0, length - 1), _slice(out, axis, 1, length)
        out = logical_xor(back, front) if out.dtype == VarType.BOOL else back - front
    return out


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """paddle.nan_to_num: nan -> `nan`, +inf -> posinf (the dtype's max), -inf -> neginf (the dtype's min)."""
    if x.dtype not in (VarType.FP32, VarType.FP64):
        raise AssertionError('nan_to_num takes float32 or float64 tensors')
    info = np.finfo(np.float32 if x.dtype == VarType.FP32 else np.float64)
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = where(isnan(x), full_like(x, nan), x)
    out = where(equal(out, full_like(x, math.inf)), full_like(x, posinf), out)
    return where(equal(out, full_like(x, -math.inf)), full_like(x, neginf), out)


def multigammaln(x, p, name=None):
    """paddle.multigammaln: log of the multivariate gamma function of order p."""
    if p < 1:
        raise AssertionError("The p must be greater than or equal to 1, But received p is %s.\n" % p)
    c = 0.25 * p * (p - 1) * math.log(math.pi)
    b = arange(1 - p, 1, 1, dtype=convert_dtype(x.dtype)) * 0.5
    return sum(lgamma(unsqueeze(x, [-1]) + b), axis=-1) + c


def renorm(x, p, axis, max_norm):
    """paddle.renorm: each slice along axis rescaled so its p-norm is at most max_norm (`renorm`)."""
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("the axis:%d should be less less than the dimension size %d" % (axis, rank))
    axis = axis + rank if axis < 0 else axis
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'renorm')
    return append_op('renorm', {'X': x}, {'Out': x.dtype}, {'p': float(p), 'axis': axis,
                                                             'max_norm': float(max_norm)})

