"""paddle.* creation functions (2.x signatures): ones, zeros, full, *_like, arange, assign.

They emit the ops Paddle 2.x emits in static mode: `fill_constant` (default dtype float32) for ones/zeros/full,
`fill_any_like` named `full_like_N` for full_like/ones_like/zeros_like (with the dtype written out), and `range` for
arange (int64 by default; its output shape is known when start, end and step are numbers).
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers import creation as _creation
from ..layers.casting import cast
from ..layers.checks import check_variable
from ..layers.creation import fill_constant, shape_inputs
from ..layers.helper import LayerHelper
from ..layers.matrix import eye_op, tril_triu

__all__ = ['ones', 'zeros', 'full', 'ones_like', 'zeros_like', 'full_like', 'arange', 'assign']


def full(shape, fill_value, dtype=None, name=None) -> Variable:
    """A tensor of `shape` filled with `fill_value` (float32 unless `dtype` says otherwise)."""
    return fill_constant(shape, 'float32' if dtype is None else dtype, fill_value, name=name)


def ones(shape, dtype=None, name=None) -> Variable:
    return full(shape, 1.0, dtype, name)


def zeros(shape, dtype=None, name=None) -> Variable:
    return full(shape, 0.0, dtype, name)


def full_like(x, fill_value, dtype=None, name=None) -> Variable:
    """A tensor shaped like `x` filled with `fill_value` (`fill_any_like`; the dtype of `x` unless given)."""
    check_variable(x, 'x', 'full_like')
    dtype = x.dtype if dtype is None else to_var_type(dtype)
    helper = LayerHelper('full_like', name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op('fill_any_like', {'X': [x]}, {'Out': [out]}, {'value': float(fill_value), 'dtype': int(dtype)})
    out.stop_gradient = True
    return out


def ones_like(x, dtype=None, name=None) -> Variable:
    return full_like(x, 1.0, dtype, name)


def zeros_like(x, dtype=None, name=None) -> Variable:
    return full_like(x, 0.0, dtype, name)


def arange(start=0, end=None, step=1, dtype=None, name=None) -> Variable:
    """`range` op over [start, end) by `step` (numbers or [1] Variables); int64 unless `dtype` is given."""
    dtype = to_var_type('int64' if dtype is None else dtype)
    if end is None:
        start, end = 0, start
    out_shape = None
    if not any(isinstance(v, Variable) for v in (start, end, step)):
        out_shape = [int(math.ceil((end - start) / step))]
    args = []
    for v in (start, end, step):
        if not isinstance(v, Variable):
            v = fill_constant([1], dtype, v, force_cpu=True)
        elif v.dtype != dtype:
            v = cast(v, dtype)
        args.append(v)
    helper = LayerHelper('range', name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op('range', {'Start': [args[0]], 'End': [args[1]], 'Step': [args[2]]}, {'Out': [out]})
    out.stop_gradient = True
    if out_shape is not None:
        out.shape = out_shape
    return out


def assign(x, output=None) -> Variable:
    """paddle.assign: a Variable is copied; numpy arrays, lists and numbers become `assign_value` (float64 data is
    stored as float32, with a warning, as Paddle 2.x does)."""
    if not isinstance(x, Variable):
        x = np.array(x)
    return _creation.assign(x, output, _fp64_to_fp32=True)


# --- triangles, eye, linspace, randint (Paddle 2.4's static-mode builders) -------------------------------------------

def tril(x, diagonal=0, name=None) -> Variable:
    """`tril_triu` (lower): the output is named `tril_N`, or exactly `name`."""
    return tril_triu('tril', x, diagonal, name, arg='x')


def triu(x, diagonal=0, name=None) -> Variable:
    """`tril_triu` (upper): the output is named `triu_N`, or exactly `name`."""
    return tril_triu('triu', x, diagonal, name, arg='x')


def eye(num_rows, num_columns=None, dtype=None, name=None) -> Variable:
    """`eye` [num_rows, num_columns] (square when num_columns is None), float32 unless `dtype` says otherwise."""
    return eye_op(num_rows, num_columns, 'float32' if dtype is None else dtype, name)


def linspace(start, stop, num, dtype=None, name=None) -> Variable:
    """`linspace` with the 2.x `dtype` attribute (float32 by default): force_cpu fill_constants for number
    arguments; the output shape is [num] when num is an int."""
    dtype = to_var_type('float32' if dtype is None else dtype)
    if not isinstance(num, Variable) and (not isinstance(num, int) or isinstance(num, bool)):
        raise TypeError("The type of 'num' in linspace must be int, but received %s." % type(num))
    t_start = start if isinstance(start, Variable) else fill_constant([1], dtype, start, force_cpu=True)
    t_stop = stop if isinstance(stop, Variable) else fill_constant([1], dtype, stop, force_cpu=True)
    t_num = num if isinstance(num, Variable) else fill_constant([1], 'int32', num, force_cpu=True)
    start_dtype, stop_dtype, out_dtype = (convert_dtype(t_start.dtype), convert_dtype(t_stop.dtype),
                                          convert_dtype(dtype))
    if (('float64' in (start_dtype, stop_dtype) and out_dtype in ('float32', 'int32'))
            or ('int64' in (start_dtype, stop_dtype) and out_dtype == 'int32')):
        raise ValueError('The dtype of start/stop is %s/%s but the attr(dtype) of linspace is %s, which may cause '
                         'data type overflows. Please reset attr(dtype) of linspace.'
                         % (start_dtype, stop_dtype, out_dtype))
    helper = LayerHelper('linspace', name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op('linspace', {'Start': [t_start], 'Stop': [t_stop], 'Num': [t_num]}, {'Out': [out]},
                     {'dtype': int(dtype)})
    if isinstance(num, int):
        out.shape = [num]
    return out


def randint(low=0, high=None, shape=[1], dtype=None, name=None) -> Variable:  # noqa: B006 - Paddle's default
    """`randint` in [low, high) (high None: [0, low)), int64 unless `dtype` is int32; stop_gradient."""
    if high is None:
        if low <= 0:
            raise ValueError('If high is None, low must be greater than 0, but received low = %s.' % low)
        low, high = 0, low
    dtype = to_var_type('int64' if dtype is None else dtype)
    if low >= high:
        raise ValueError("randint's low must less then high, but received low = %s, high = %s" % (low, high))
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in randint must be ['int32', 'int64'], but received %s."
                        % convert_dtype(dtype))
    inputs, attrs = {}, {'low': low, 'high': high, 'seed': 0, 'dtype': int(dtype)}
    shape_inputs(inputs, attrs, shape, 'randint')
    helper = LayerHelper('randint', name=name)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op('randint', inputs, {'Out': [out]}, attrs)
    return out


__all__ += ['tril', 'triu', 'eye', 'linspace', 'randint']
