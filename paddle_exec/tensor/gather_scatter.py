"""Gathers and scatters of Paddle 2.x: paddle.take_along_axis / put_along_axis / index_sample / index_add /
index_fill / index_put / masked_fill / masked_select / take / scatter_nd / multiplex / shard_index /
select_scatter / diagonal_scatter / repeat_interleave.

One op each where 2.6.2 appends one (ops/gather_scatter.py, fill_diagonal_tensor for diagonal_scatter); 2.6.2's
compositions otherwise: take flattens and index_selects (negative indices wrapped, or clipped in 'clip' mode),
masked_fill is a where, index_fill moves the axis first and index_puts, scatter_nd scatter_nd_adds into zeros.
take_along_axis and put_along_axis broadcast their index (and values) as 2.6.2 does. select_scatter writes the
slice with a where over a one-hot mask of the axis (2.6.2 appends set_value, which paddle_exec has no kernel for).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import convert_dtype
from ..framework.variable import Variable
from ..layers import select as _select
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import assign, fill_constant
from ._append import append_op
from .manipulation import expand, flatten, reshape, transpose, unsqueeze
from .math import clip, less_than, logical_not, remainder
from .search import index_select, where

__all__ = ['take_along_axis', 'put_along_axis', 'index_sample', 'index_add', 'index_fill', 'index_put', 'masked_fill',
           'masked_select', 'take', 'scatter_nd', 'multiplex', 'shard_index', 'select_scatter', 'diagonal_scatter',
           'repeat_interleave']

_VALUES = ('float16', 'float32', 'float64', 'int32', 'int64', 'uint8')


def _non_negative_axis(x, axis: int) -> int:
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("'axis' should be in range [-%d, %d), but received %d" % (rank, rank, axis))
    return axis + rank if axis < 0 else axis


def _broadcast_except(arr, indices, axis):
    """2.6.2's infer_broadcast_shape: the index broadcast to arr's shape except along axis (None if it is larger)."""
    shape = []
    for i, (a, b) in enumerate(zip(arr.shape, indices.shape)):
        if i == axis:
            shape.append(b)
        elif b == 1 or a == b:
            shape.append(a)
        elif a == 1:
            return None
        else:
            shape.append(max(a, b))
    return shape


def take_along_axis(arr, indices, axis, broadcast=True):
    """paddle.take_along_axis: arr's elements at `indices` along axis (numpy's take_along_axis)."""
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _non_negative_axis(arr, axis)
    if broadcast:
        shape = _broadcast_except(arr, indices, axis) or list(indices.shape)
        indices = expand(indices, shape)
        shape = list(shape)
        shape[axis] = arr.shape[axis]
        arr = expand(arr, shape)
    check_variable_and_dtype(arr, 'x', _VALUES, 'take_along_axis')
    check_variable_and_dtype(indices, 'index', ('int32', 'int64'), 'take_along_axis')
    return append_op('take_along_axis', {'Input': arr, 'Index': indices}, {'Result': arr.dtype}, {'Axis': axis})


def put_along_axis(arr, indices, values, axis, reduce='assign', include_self=True, broadcast=True):
    """paddle.put_along_axis: arr with `values` written (or added, multiplied, averaged, maxed, mined) at `indices`
    along axis; a number value is broadcast."""
    if len(arr.shape) != len(indices.shape):
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _non_negative_axis(arr, axis)
    if not isinstance(values, Variable):
        values = fill_constant([1], arr.dtype, float(values))
    if broadcast:
        shape = _broadcast_except(arr, indices, axis)
        if shape:
            indices = expand(indices, shape)
        values = expand(values, list(indices.shape))
    check_variable_and_dtype(arr, 'x', _VALUES, 'put_along_axis')
    check_variable_and_dtype(indices, 'index', ('int32', 'int64'), 'put_along_axis')
    if not isinstance(include_self, bool):
        raise TypeError("The type of 'include_self' in put_along_axis must be bool, but received %s"
                        % type(include_self))
    return append_op('put_along_axis', {'Input': arr, 'Index': indices, 'Value': values}, {'Result': arr.dtype},
                     {'Axis': axis, 'Reduce': reduce, 'Include_self': include_self})


def index_sample(x, index):
    """paddle.index_sample: out[i, j] = x[i, index[i, j]] for 2-D x and index."""
    return _select.index_sample(x, index)


def index_add(x, index, axis, value, name=None):
    """paddle.index_add: x with value's slices added at `index` along axis."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'),
                             'paddle.tensor.manipulation.index_add')
    check_variable_and_dtype(index, 'index', ('int32', 'int64'), 'paddle.tensor.manipulation.index_add')
    check_variable_and_dtype(value, 'add_value', ('float16', 'float32', 'float64', 'int32', 'int64'),
                             'paddle.tensor.manipulation.index_add')
    return append_op('index_add', {'X': x, 'Index': index, 'AddValue': value}, {'Out': x.dtype}, {'axis': axis},
                     name=name)


def index_put(x, indices, value, accumulate=False, name=None):
    """paddle.index_put: x[indices] = value (or += with accumulate); indices is a tuple of int tensors or one bool
    mask."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64', 'bool'),
                             'paddle.tensor.manipulation.index_put')
    check_variable_and_dtype(value, 'value', ('float16', 'float32', 'float64', 'int32', 'int64', 'bool'),
                             'paddle.tensor.manipulation.index_put')
    return append_op('index_put', {'x': x, 'indices': list(indices), 'value': value}, {'out': x.dtype},
                     {'accumulate': accumulate}, name=name)


def index_fill(x, index, axis, value, name=None):
    """paddle.index_fill: x with the slices at `index` along axis set to value (axis moved first and index_put,
    as 2.6.2)."""
    if not isinstance(index, Variable) or convert_dtype(index.dtype) not in ('int32', 'int64'):
        raise ValueError("index must be a Tensor of int32 or int64")
    rank = len(x.shape)
    axis = axis + rank if axis < 0 else axis
    perm = list(range(rank))
    perm[0], perm[axis] = axis, 0
    moved = transpose(x, perm) if axis != 0 else x
    if not isinstance(value, Variable):
        value = fill_constant([1], x.dtype, float(value))
    out = index_put(moved, (index,), value)
    return transpose(out, perm, name=name) if axis != 0 else out


def masked_fill(x, mask, value, name=None):
    """paddle.masked_fill: value where mask is True, x elsewhere (a where)."""
    if not isinstance(value, Variable):
        value = fill_constant([1], x.dtype, float(value))
    return where(logical_not(mask), x, value, name=name)


def masked_select(x, mask, name=None):
    """paddle.masked_select: the elements of x where mask (broadcast) is True, as a 1-D tensor."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'),
                             'paddle.tensor.search.mask_select')
    check_variable_and_dtype(mask, 'mask', ('bool',), 'paddle.tensor.search.masked_select')
    return append_op('masked_select', {'X': x, 'Mask': mask}, {'Y': x.dtype}, name=name)


def take(x, index, mode='raise', name=None):
    """paddle.take: x's flattened elements at `index`, shaped like index ('raise': negative indices count from
    the end, 'wrap': modulo, 'clip': clamped)."""
    if mode not in ('raise', 'wrap', 'clip'):
        raise ValueError("'mode' in 'take' should be 'raise', 'wrap', 'clip', but received %s." % mode)
    check_variable_and_dtype(index, 'index', ('int32', 'int64'), 'take')
    flat_x, flat_i = flatten(x), flatten(index)
    size = flat_x.shape[-1]
    zero = fill_constant([1], flat_i.dtype, 0)
    if mode == 'raise':
        flat_i = where(less_than(flat_i, zero), flat_i + size, flat_i)
    elif mode == 'wrap':
        flat_i = remainder(flat_i, fill_constant([1], flat_i.dtype, size))
    else:
        flat_i = clip(flat_i, 0, size - 1)
    return reshape(index_select(flat_x, flat_i), list(index.shape), name=name)


def scatter_nd(index, updates, shape, name=None):
    """paddle.scatter_nd: updates summed into zeros of `shape` at `index` (scatter_nd_add into zeros)."""
    return _select.scatter_nd(index, updates, shape, name)


def multiplex(inputs, index, name=None):
    """paddle.multiplex: row i of the output is row i of inputs[index[i]]."""
    return _select.multiplex(list(inputs), index)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002 - Paddle's argument name
    """paddle.shard_index: ids of shard `shard_id` mapped into it, the others to ignore_value."""
    check_variable_and_dtype(input, 'input', ('int64', 'int32'), 'shard_index')
    if shard_id < 0 or shard_id >= nshards:
        raise ValueError('The shard_id(%d) should be in [0, %d)' % (shard_id, nshards))
    out = append_op('shard_index', {'X': input}, {'Out': input.dtype},
                    {'index_num': index_num, 'nshards': nshards, 'shard_id': shard_id, 'ignore_value': ignore_value})
    out.stop_gradient = True
    return out


def select_scatter(x, values, axis, index, name=None):
    """paddle.select_scatter: x with its `index`-th slice along axis replaced by values."""
    shape = list(x.shape)
    axis = axis + len(shape) if axis < 0 else axis
    index = index + shape[axis] if index < 0 else index
    slice_shape = shape[:axis] + shape[axis + 1:]
    if list(values.shape) != slice_shape:
        raise RuntimeError("expected values to have a size equal to the slice of x. value size = %s slice size = %s"
                           % (list(values.shape), slice_shape))
    mask_shape = [1] * len(shape)
    mask_shape[axis] = shape[axis]
    hot = np.zeros(mask_shape, bool)
    hot.reshape(-1)[index] = True
    mask = assign(hot)
    return where(mask, unsqueeze(cast(values, x.dtype), [axis]), x, name=name)


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """paddle.diagonal_scatter: x with its (offset) diagonal over axis1 / axis2 replaced by y
    (`fill_diagonal_tensor`)."""
    return append_op('fill_diagonal_tensor', {'X': x, 'Y': y}, {'Out': x.dtype},
                     {'offset': offset, 'dim1': axis1, 'dim2': axis2}, name=name)


def repeat_interleave(x, repeats, axis=None, name=None):
    """paddle.repeat_interleave: each element (slice along axis) repeated `repeats` times (an int or a tensor of
    counts); axis None flattens first."""
    if isinstance(repeats, Variable) and not repeats.shape:
        repeats = reshape(repeats, [1])
    if axis is None:
        x, axis = flatten(x), 0
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'),
                             'paddle.tensor.manipulation.repeat_interleave')
    inputs = {'X': x, 'RepeatsTensor': repeats if isinstance(repeats, Variable) else None}
    return append_op('repeat_interleave', inputs, {'Out': x.dtype},
                     {'dim': axis, 'Repeats': repeats if isinstance(repeats, int) else 0}, name=name)

