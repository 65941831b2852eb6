"""Order statistics, counting and searching of Paddle 2.x: paddle.kthvalue / mode / median / nanmedian / quantile /
nanquantile / histogram / bincount / searchsorted / bucketize / unique / unique_consecutive.

kthvalue, mode, nanmedian, histogram, bincount, searchsorted (bucketize too), unique and unique_consecutive are one
op each (ops/order.py); median and (nan)quantile are 2.6.2's compositions: median takes the kth + 1 smallest with
top_k_v2 and averages the middle two for an even count (a nan anywhere makes it nan), quantile sorts, takes the
neighbours of q (n - 1) along the axis with take_along_axis and lerps between them in float64.
"""
from __future__ import annotations

from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from ._append import append_op
from .creation import full_like
from .elementwise import lerp
from .manipulation import flatten, reshape, squeeze, stack, transpose
from .math import any, ceil, floor, isnan, logical_not, sum
from .search import sort, where

__all__ = ['kthvalue', 'mode', 'median', 'nanmedian', 'quantile', 'nanquantile', 'histogram', 'bincount',
           'searchsorted', 'bucketize', 'unique', 'unique_consecutive']


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """paddle.kthvalue: the k-th smallest along axis (-1 by default) and its index."""
    attrs = {'k': k, 'keepdim': keepdim}
    if axis is not None:
        attrs['axis'] = axis
    values, indices = append_op('kthvalue', {'X': x}, {'Out': x.dtype, 'Indices': VarType.INT64}, attrs, name=name)
    indices.stop_gradient = True
    return values, indices


def mode(x, axis=-1, keepdim=False, name=None):
    """paddle.mode: the most frequent value along axis (the smallest of equally frequent ones) and the index of
    its last occurrence."""
    values, indices = append_op('mode', {'X': x}, {'Out': x.dtype, 'Indices': VarType.INT64},
                                {'axis': axis, 'keepdim': keepdim}, name=name)
    indices.stop_gradient = True
    return values, indices


def _slice(x, axis, start, end):
    return append_op('slice', {'Input': x}, {'Out': x.dtype},
                     {'axes': [axis], 'starts': [start], 'ends': [end], 'decrease_axis': [], 'infer_flags': [1]},
                     helper_name='slice')


def median(x, axis=None, keepdim=False, name=None):
    """paddle.median: the middle value (the mean of the two middle ones for an even count); nan if any is nan."""
    if not isinstance(x, Variable):
        raise TypeError("In median, the input x should be a Tensor.")
    dims = len(x.shape)
    flat = axis is None
    if flat:
        x, axis = flatten(x), 0
    else:
        if not isinstance(axis, int) or not -dims <= axis < dims:
            raise ValueError("In median, axis should be none or an integer in range [-rank(x), rank(x)).")
        axis = axis + dims if axis < 0 else axis
    size = x.shape[axis]
    kth = size >> 1
    helper = LayerHelper('top_k_v2')
    values = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('top_k_v2', {'X': [x]}, {'Out': [values], 'Indices': [indices]},
                     {'k': kth + 1, 'axis': axis, 'largest': False, 'sorted': True})
    dtype = 'float64' if x.dtype == VarType.FP64 else 'float32'
    if size & 1 == 0:
        out = cast(_slice(values, axis, kth - 1, kth) + _slice(values, axis, kth, kth + 1), dtype) / 2.0
    else:
        out = cast(_slice(values, axis, kth, kth + 1), dtype)
    out = out + sum(cast(isnan(x), dtype) * x, axis=axis, keepdim=True)
    if flat:
        return reshape(out, [1] * dims if keepdim else [1])
    return out if keepdim else squeeze(out, [axis])


def nanmedian(x, axis=None, keepdim=False, name=None):
    """paddle.nanmedian: the median of the non-nan elements (`nanmedian`)."""
    if not isinstance(x, Variable):
        raise TypeError("In median, the input x should be a Tensor.")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        raise ValueError("Axis list should not be empty.")
    dims = len(x.shape)
    axes = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    for a in axes:
        if not isinstance(a, int) or not -dims <= a < dims:
            raise ValueError("Axis should be None, int, or a list, element should in range [-rank(x), rank(x)).")
    check_variable_and_dtype(x, 'X', ('int32', 'int64', 'float16', 'float32', 'float64'), 'nanmedian')
    out, _ = append_op('nanmedian', {'X': x}, {'Out': x.dtype, 'MedianIndex': VarType.INT64},
                       {'axis': axes, 'keepdim': keepdim}, name=name)
    return out


def _quantile(x, q, axis, keepdim, ignore_nan):
    if not isinstance(x, Variable):
        raise TypeError("input x should be a Tensor.")
    if isinstance(q, (int, float)):
        q = [q]
    elif isinstance(q, (list, tuple)):
        if len(q) <= 0:
            raise ValueError("q should not be empty")
    else:
        raise TypeError("Type of q should be int, float, list or tuple.")
    dims = len(x.shape)
    out_shape = list(x.shape)
    if axis is None:
        x, axis, out_shape = flatten(x), 0, [1] * dims
    elif isinstance(axis, list):
        src = []
        for a in axis:
            if not isinstance(a, int) or not -dims <= a < dims:
                raise ValueError("Axis should be None, int, or a list, element should in range [-rank(x), rank(x)).")
            a = a + dims if a < 0 else a
            src.append(a)
            out_shape[a] = 1
        rest = [i for i in range(dims) if i not in src]
        x = transpose(x, rest + src)
        x = flatten(x, len(rest), dims - 1) if src else flatten(x)
        axis = len(rest) if src else 0
    else:
        if not isinstance(axis, int) or not -dims <= axis < dims:
            raise ValueError("Axis should be None, int, or a list, element should in range [-rank(x), rank(x)).")
        axis = axis + dims if axis < 0 else axis
        out_shape[axis] = 1
    mask = isnan(x)
    valid = sum(logical_not(mask), axis=axis, keepdim=True, dtype='float64')
    indices = []
    for q_num in q:
        if q_num < 0 or q_num > 1:
            raise ValueError("q should be in range [0, 1]")
        index = (valid - 1.0) * float(q_num)
        if not ignore_nan:
            last = full_like(index, float(x.shape[axis] - 1))
            index = where(any(mask, axis=axis, keepdim=True), last, index)
        indices.append(index)
    ordered = sort(x, axis)
    outputs = []
    for index in indices:
        below = cast(floor(index), 'int32')
        upper = cast(ceil(index), 'int32')
        t_upper = append_op('take_along_axis', {'Input': ordered, 'Index': upper}, {'Result': x.dtype},
                            {'Axis': axis})
        t_below = append_op('take_along_axis', {'Input': ordered, 'Index': below}, {'Result': x.dtype},
                            {'Axis': axis})
        weights = index - cast(below, 'float64')
        out = lerp(cast(t_below, 'float64'), cast(t_upper, 'float64'), weights)
        out = reshape(out, out_shape) if keepdim else squeeze(out, [axis])
        outputs.append(out)
    return stack(outputs, 0) if len(q) > 1 else outputs[0]


def quantile(x, q, axis=None, keepdim=False):
    """paddle.quantile: the q-th quantiles along axis by linear interpolation (float64); nan if any is nan."""
    return _quantile(x, q, axis, keepdim, ignore_nan=False)


def nanquantile(x, q, axis=None, keepdim=False):
    """paddle.nanquantile: quantile of the non-nan elements."""
    return _quantile(x, q, axis, keepdim, ignore_nan=True)


def histogram(input, bins=100, min=0, max=0, name=None):  # noqa: A002 - Paddle's argument names
    """paddle.histogram: int64 counts in `bins` equal bins over [min, max] (the data's range when both are 0)."""
    check_variable_and_dtype(input, 'X', ('int32', 'int64', 'float32', 'float64'), 'histogram')
    return append_op('histogram', {'X': input}, {'Out': VarType.INT64}, {'bins': bins, 'min': min, 'max': max},
                     name=name)


def bincount(x, weights=None, minlength=0, name=None):
    """paddle.bincount: counts (or weight sums) of each non-negative integer of x."""
    if convert_dtype(x.dtype) not in ('int32', 'int64'):
        raise TypeError("Elements in Input(x) should all be integers")
    check_variable_and_dtype(x, 'X', ('int32', 'int64'), 'bincount')
    dtype = x.dtype
    if weights is not None:
        check_variable_and_dtype(weights, 'Weights', ('int32', 'int64', 'float32', 'float64'), 'bincount')
        dtype = weights.dtype
    return append_op('bincount', {'X': x, 'Weights': weights}, {'Out': dtype}, {'minlength': minlength}, name=name)


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """paddle.searchsorted: where values would be inserted into the sorted last axis of sorted_sequence."""
    check_variable_and_dtype(sorted_sequence, 'SortedSequence', ('float32', 'float64', 'int32', 'int64'),
                             'paddle.searchsorted')
    check_variable_and_dtype(values, 'Values', ('float32', 'float64', 'int32', 'int64'), 'paddle.searchsorted')
    return append_op('searchsorted', {'SortedSequence': sorted_sequence, 'Values': values},
                     {'Out': VarType.INT32 if out_int32 else VarType.INT64},
                     {'out_int32': out_int32, 'right': right}, name=name)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """paddle.bucketize: searchsorted of x into a 1-D sorted_sequence."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), 'paddle.tensor.math.bucketize')
    if len(sorted_sequence.shape) != 1:
        raise ValueError("sorted_sequence tensor must be 1 dimension, but got dim %d" % len(sorted_sequence.shape))
    return searchsorted(sorted_sequence, x, out_int32, right, name)


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype='int64', name=None):
    """paddle.unique: the sorted unique elements (along axis), with first indices, inverse and counts on request."""
    check_variable_and_dtype(x, 'input', ('float16', 'float32', 'float64', 'int32', 'int64'), 'unique')
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in unique must be ['int32', 'int64'], but received %s"
                        % convert_dtype(dtype))
    index_dtype = to_var_type(dtype)
    attrs = {'dtype': int(index_dtype), 'return_index': return_index, 'return_inverse': return_inverse,
             'return_counts': return_counts, 'axis': [] if axis is None else [axis], 'is_sorted': True}
    out, indices, inverse, counts = append_op(
        'unique', {'X': x}, {'Out': x.dtype, 'Indices': index_dtype, 'Index': index_dtype, 'Counts': index_dtype},
        attrs, name=name)
    for v in (out, indices, inverse, counts):
        v.stop_gradient = True
    outs = [out] + [v for v, want in ((indices, return_index), (inverse, return_inverse), (counts, return_counts))
                    if want]
    return outs[0] if len(outs) == 1 else tuple(outs)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype='int64', name=None):
    """paddle.unique_consecutive: each run of equal consecutive elements (along axis) kept once."""
    check_variable_and_dtype(x, 'input', ('float32', 'float64', 'int32', 'int64'), 'unique_consecutive')
    index_dtype = to_var_type(dtype)
    attrs = {'dtype': int(index_dtype), 'return_inverse': return_inverse, 'return_counts': return_counts,
             'axis': [] if axis is None else [axis]}
    out, inverse, counts = append_op('unique_consecutive', {'X': x},
                                     {'Out': x.dtype, 'Index': index_dtype, 'Counts': index_dtype}, attrs, name=name)
    for v in (out, inverse, counts):
        v.stop_gradient = True
    outs = [out] + [v for v, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return outs[0] if len(outs) == 1 else tuple(outs)
