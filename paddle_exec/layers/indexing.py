"""Indexing and search with fluid 1.x signatures: slice / strided_slice, gather / gather_nd, scatter /
scatter_nd_add, index_select, where (and paddle.where's `select`), argmax / argmin / argsort.

starts / ends / strides may be Variables or lists holding Variables (creation.py's `...TensorList` rule, with
`infer_flags` -1 in their places). `Variable.__getitem__` (framework/variable_ops.py) builds its slices itself.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from . import math as math_layers
from .casting import cast
from .checks import check_variable, check_variable_and_dtype, contains_var
from .creation import attr_with_holes, tensor_list
from .helper import LayerHelper


def _list_or_tensor(inputs, attrs, values, key, infer_flags, whole_slot, list_slot):
    """starts/ends/strides given as a Variable, a list with Variables, or ints (Paddle's slice builders)."""
    if isinstance(values, Variable):
        values.stop_gradient = True
        inputs[whole_slot] = [values]
        infer_flags[:] = [-1] * len(infer_flags)
        return
    values = list(values)
    attrs[key] = attr_with_holes(values)
    if contains_var(values):
        inputs[list_slot] = tensor_list(values)
        for i, v in enumerate(values):
            if isinstance(v, Variable):
                infer_flags[i] = -1


def slice(input, axes, starts, ends) -> Variable:
    """fluid.layers.slice: `slice` of `input` on `axes` from `starts` to `ends` (ints or Variables)."""
    if not isinstance(starts, (list, tuple, Variable)):
        raise ValueError('Input starts must be an Variable, python list or tuple.')
    if not isinstance(ends, (list, tuple, Variable)):
        raise ValueError('Input ends must be an Variable, python list or tuple.')
    helper = LayerHelper('slice')
    inputs, attrs = {'Input': [input]}, {'axes': list(axes)}
    infer_flags = [1] * len(axes)
    _list_or_tensor(inputs, attrs, starts, 'starts', infer_flags, 'StartsTensor', 'StartsTensorList')
    _list_or_tensor(inputs, attrs, ends, 'ends', infer_flags, 'EndsTensor', 'EndsTensorList')
    attrs['infer_flags'] = infer_flags
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('slice', inputs, {'Out': [out]}, attrs)
    return out


def strided_slice(input, axes, starts, ends, strides) -> Variable:
    """fluid.layers.strided_slice: `strided_slice` with per-axis `strides` (negative runs backwards)."""
    helper = LayerHelper('strided_slice')
    inputs, attrs = {'Input': [input]}, {'axes': list(axes)}
    infer_flags = [1] * len(axes)
    _list_or_tensor(inputs, attrs, starts, 'starts', infer_flags, 'StartsTensor', 'StartsTensorList')
    _list_or_tensor(inputs, attrs, ends, 'ends', infer_flags, 'EndsTensor', 'EndsTensorList')
    _list_or_tensor(inputs, attrs, strides, 'strides', infer_flags, 'StridesTensor', 'StridesTensorList')
    attrs['infer_flags'] = infer_flags
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('strided_slice', inputs, {'Out': [out]}, attrs)
    return out


def gather(input, index, overwrite=True) -> Variable:
    """fluid.layers.gather: rows of `input` at `index`; the gradient scatters back (duplicates: the last row
    written with `overwrite`, else summed)."""
    helper = LayerHelper('gather')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('gather', {'X': [input], 'Index': [index]}, {'Out': [out]}, {'overwrite': overwrite})
    return out


def gather_nd(input, index, name=None) -> Variable:
    """fluid.layers.gather_nd: `gather_nd`, Out = input[index[..., :k]] (k = index.shape[-1])."""
    helper = LayerHelper('gather_nd', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('gather_nd', {'X': [input], 'Index': [index]}, {'Out': [out]})
    return out


def scatter(input, index, updates, name=None, overwrite=True) -> Variable:
    """fluid.layers.scatter: `scatter` of the rows `updates` into a copy of `input` at `index` (duplicates: the last
    wins with overwrite, else they are summed after the indexed rows are zeroed)."""
    helper = LayerHelper('scatter', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('scatter', {'X': [input], 'Ids': [index], 'Updates': [updates]}, {'Out': [out]},
                     {'overwrite': overwrite})
    return out


def scatter_nd_add(ref, index, updates, name=None) -> Variable:
    """fluid.layers.scatter_nd_add: `scatter_nd_add`, `updates` added into a copy of `ref` at `index`."""
    if ref.dtype != updates.dtype:
        raise ValueError('ref and updates must have same data type.')
    helper = LayerHelper('scatter_nd_add', name=name)
    out = helper.create_variable_for_type_inference(ref.dtype)
    helper.append_op('scatter_nd_add', {'X': [ref], 'Index': [index], 'Updates': [updates]}, {'Out': [out]})
    return out


def index_select(input, index, dim=0) -> Variable:
    """fluid.layers.index_select: `index_select` of the slices `index` along `dim`."""
    check_variable_and_dtype(input, 'x', ['float32', 'float64', 'int32', 'int64'], 'paddle.tensor.search.index_select')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'paddle.tensor.search.index_select')
    helper = LayerHelper('index_select')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('index_select', {'X': [input], 'Index': [index]}, {'Out': [out]}, {'dim': dim})
    return out


def _arg(op_type, x, axis):
    check_variable(x, 'x', op_type.replace('_', ''))
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]}, {'axis': axis})
    out.stop_gradient = True
    return out


def argmax(x, axis=0) -> Variable:
    """fluid.layers.argmax: int64 indices of the maxima along `axis` (the first one on ties)."""
    return _arg('arg_max', x, axis)


def argmin(x, axis=0) -> Variable:
    return _arg('arg_min', x, axis)


def argsort(input, axis=-1, descending=False, name=None) -> tuple:
    """fluid.layers.argsort: (sorted values, int64 indices), a stable sort along `axis`."""
    helper = LayerHelper('argsort', name=name)
    out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    ids = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op('argsort', {'X': [input]}, {'Out': [out], 'Indices': [ids]},
                     {'axis': axis, 'descending': descending})
    return out, ids


def where(condition, x=None, y=None, name=None) -> Variable:
    """fluid.layers.where(condition): the int64 coordinates of true elements (`where_index`, as in 1.8). With `x`
    and `y` it is paddle.where: elements of x where condition holds, else of y."""
    if x is None and y is None:
        helper = LayerHelper('where_index')
        out = helper.create_variable_for_type_inference(VarType.INT64)
        helper.append_op('where_index', {'Condition': [condition]}, {'Out': [out]})
        return out
    if x is None or y is None:
        raise ValueError('either both or neither of x and y should be given')
    return select(condition, x, y, name)


def select(condition, x, y, name=None) -> Variable:
    """paddle.where(condition, x, y): one `where` op when the three shapes agree; otherwise Paddle 2.x's broadcast
    form x * cast(c) + y * (1 - cast(c)) with elementwise ops."""
    check_variable(condition, 'condition', 'where')
    check_variable(x, 'x', 'where')
    check_variable(y, 'y', 'where')
    if list(x.shape) == list(y.shape) == list(condition.shape):
        helper = LayerHelper('where', name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op('where', {'Condition': [condition], 'X': [x], 'Y': [y]}, {'Out': [out]})
        return out
    cond = cast(condition, x.dtype)
    not_cond = math_layers.scale(cond, scale=-1.0, bias=1.0)
    return math_layers.elementwise_add(math_layers.elementwise_mul(x, cond), math_layers.elementwise_mul(y, not_cond))
