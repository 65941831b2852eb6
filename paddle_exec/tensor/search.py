"""paddle.* search functions (2.x signatures): argmax, argmin, argsort, sort, where, nonzero.

argmax/argmin emit `arg_max`/`arg_min` named `argmax_N`/`argmin_N`, with `flatten` when `axis` is None;
paddle.where(cond, x, y) is the `where` op (broadcast shapes go through elementwise ops, as in Paddle 2.x);
paddle.where(cond) and nonzero are `where_index`.
"""
from __future__ import annotations

from ..framework.dtype import VarType, to_var_type
from ..framework.variable import Variable
from ..layers import indexing as _indexing
from ..layers.checks import check_variable, check_variable_and_dtype
from ..layers.helper import LayerHelper

__all__ = ['argmax', 'argmin', 'argsort', 'sort', 'where', 'nonzero']


def _arg(op_type, helper_name, x, axis, keepdim, dtype, name):
    if axis is not None and not isinstance(axis, int):
        raise TypeError("The type of 'axis'  must be int or None in %s, but received %s." % (helper_name, type(axis)))
    if dtype is None:
        raise ValueError("the value of 'dtype' in %s could not be None, but received None" % helper_name)
    var_dtype = to_var_type(dtype)
    if var_dtype not in (VarType.INT32, VarType.INT64):
        raise TypeError("The data type of 'dtype' in %s must be int32 or int64, but received %s."
                        % (helper_name, dtype))
    check_variable(x, 'x', 'paddle.' + helper_name)
    flatten = axis is None
    helper = LayerHelper(helper_name, name=name)
    out = helper.create_variable_for_type_inference(var_dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]},
                     {'keepdims': keepdim, 'axis': 0 if flatten else axis, 'flatten': flatten,
                      'dtype': int(var_dtype)})
    out.stop_gradient = True
    return out


def argmax(x, axis=None, keepdim=False, dtype='int64', name=None) -> Variable:
    """Indices of the maxima along `axis` (of the flattened tensor when None); the first one on ties."""
    return _arg('arg_max', 'argmax', x, axis, keepdim, dtype, name)


def argmin(x, axis=None, keepdim=False, dtype='int64', name=None) -> Variable:
    return _arg('arg_min', 'argmin', x, axis, keepdim, dtype, name)


def _argsort(helper_name, x, axis, descending, name, values_stop_gradient):
    helper = LayerHelper(helper_name, name=name)
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=values_stop_gradient)
    ids = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op('argsort', {'X': [x]}, {'Out': [out], 'Indices': [ids]},
                     {'axis': axis, 'descending': descending})
    return out, ids


def argsort(x, axis=-1, descending=False, name=None) -> Variable:
    """The int64 indices that sort `x` along `axis` (stable)."""
    return _argsort('argsort', x, axis, descending, name, True)[1]


def sort(x, axis=-1, descending=False, name=None) -> Variable:
    """`x` sorted along `axis` (the values of `argsort`; differentiable)."""
    return _argsort('sort', x, axis, descending, name, False)[0]


def where(condition, x=None, y=None, name=None):
    """Elements of `x` where `condition` holds, else of `y`; with neither x nor y, nonzero(condition, True)."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError('either both or neither of x and y should be given')
    return _indexing.select(condition, x, y, name)


def nonzero(x, as_tuple=False):
    """The int64 coordinates [z, rank] of the non-zero elements (`where_index`); as_tuple: one [z, 1] per dim."""
    out = _indexing.where(x)
    if not as_tuple:
        return out
    rank = len(x.shape)
    if rank == 1:
        return (out,)
    return tuple(_indexing.slice(out, axes=[1], starts=[i], ends=[i + 1]) for i in range(rank))



def index_select(x, index, axis=0, name=None) -> Variable:
    """`index_select` of the slices `index` (int32/int64, 1-D) along `axis` (attribute `dim`)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], 'paddle.tensor.search.index_select')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'paddle.tensor.search.index_select')
    helper = LayerHelper('index_select', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('index_select', {'X': [x], 'Index': [index]}, {'Out': [out]}, {'dim': axis})
    return out


__all__ += ['index_select']
