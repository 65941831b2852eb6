"""Tensor creation with fluid 1.x signatures: fill_constant (and its batch-size-like form), zeros / ones and their
`_like`s, assign, create_tensor / create_parameter / create_global_var, range / arange, linspace.

Each builder emits the op Paddle 1.8 emits, named the way Paddle names it (a LayerHelper of Paddle's layer type).

The runtime-tensor arguments live here too, since they are made of `fill_constant`s: attribute values that may be
Variables (shape, starts, ends, expand_times, axes) follow Paddle's rule: a whole Variable goes to the `...Tensor`
input, a list mixing ints and Variables goes to the `...TensorList` input (ints turned into int32
`fill_constant`s) and the attribute keeps -1 in the Variables' places (`shape_inputs`, `tensor_list`,
`attr_with_holes`).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from ..initializer import ConstantInitializer, Initializer
from ..param_attr import ParamAttr
from .casting import cast
from .checks import check_variable, contains_var
from .helper import LayerHelper

_INT_TYPES = (int, np.integer)


# --- runtime-tensor arguments ---------------------------------------------------------------------------------------

def int32_constant(value: int) -> Variable:
    return fill_constant([1], 'int32', value, force_cpu=True)


def tensor_list(values) -> list[Variable]:
    """A list of ints and Variables as [1]-shaped int32 Variables (the `...TensorList` inputs)."""
    out = []
    for v in values:
        if isinstance(v, Variable):
            v.stop_gradient = True
            out.append(v)
        else:
            out.append(int32_constant(int(v)))
    return out


def attr_with_holes(values, hole: int = -1) -> list[int]:
    return [hole if isinstance(v, Variable) else int(v) for v in values]


def _str_value(dtype, value) -> str:
    return str(int(value)) if convert_dtype(dtype) in ('int64', 'int32') else str(float(value))


def shape_inputs(inputs: dict, attrs: dict, shape, op_type: str) -> None:
    """Paddle's `_get_shape_tensor_inputs`: a shape given as a Variable or a list containing Variables."""
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        inputs['ShapeTensor'] = [shape if shape.dtype == VarType.INT32 else cast(shape, 'int32')]
        return
    if not isinstance(shape, (list, tuple)):
        raise TypeError("The type of 'shape' in %s must be list, tuple or Variable, but received %s."
                        % (op_type, type(shape)))
    attrs['shape'] = attr_with_holes(shape)
    if contains_var(shape):
        inputs['ShapeTensorList'] = [
            (v if v.dtype == VarType.INT32 else cast(v, 'int32')) if isinstance(v, Variable) else int32_constant(v)
            for v in shape]
        for v in inputs['ShapeTensorList']:
            v.stop_gradient = True


# --- creation -------------------------------------------------------------------------------------------------------

def create_tensor(dtype, name=None, persistable=False) -> Variable:
    """A Variable with no producer, to be filled later (e.g. by `assign(x, output=t)`)."""
    helper = LayerHelper('create_tensor', name=name)
    return helper.create_variable(name=helper.name, dtype=to_var_type(dtype), persistable=persistable)


_PARAM_DTYPES = ('bool', 'float16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8')


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """A trainable parameter of `shape` (fluid.layers.create_parameter / paddle.static.create_parameter): named
    `name`, else by `attr`, else `create_parameter_N.w_0`; initialised in the startup program by
    `default_initializer`, else Xavier (weights) or zeros (`is_bias`)."""
    if not isinstance(shape, (list, tuple, np.ndarray)):
        raise TypeError("The type of 'shape' in create_parameter must be list, tuple or numpy.ndarray, but received "
                        "%s" % type(shape).__name__)
    for d in shape:
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError("The type of 'item of shape' in create_parameter must be int, but received %s"
                            % type(d).__name__)
    if convert_dtype(dtype) not in _PARAM_DTYPES:
        raise TypeError("The data type of 'dtype' in create_parameter must be one of %s, but received %s"
                        % (list(_PARAM_DTYPES), convert_dtype(dtype)))
    if attr is not None and not isinstance(attr, ParamAttr):
        raise TypeError("The type of 'attr' in create_parameter must be ParamAttr or None, but received %s"
                        % type(attr).__name__)
    if default_initializer is not None and not isinstance(default_initializer, Initializer):
        raise TypeError("The type of 'default_initializer' in create_parameter must be Initializer or None, but "
                        "received %s" % type(default_initializer).__name__)
    helper = LayerHelper('create_parameter', name=name)
    if attr is None:
        attr = ParamAttr(name=name)
    return helper.create_parameter(attr, [int(d) for d in shape], to_var_type(dtype), is_bias, default_initializer)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None) -> Variable:
    """A global variable of `shape` filled with `value` by the startup program (named `_generated_var_N` when no
    name is given, as in Paddle)."""
    for item in shape:
        if not isinstance(item, _INT_TYPES):
            raise TypeError("The type of 'item of shape' in create_global_var must be int, but received %s."
                            % type(item))
    helper = LayerHelper('global_var', name=name)
    var = helper.create_global_variable(name=name, dtype=to_var_type(dtype), shape=[int(d) for d in shape],
                                        persistable=persistable, stop_gradient=True)
    helper.set_variable_initializer(var, ConstantInitializer(float(value), force_cpu=force_cpu))
    return var


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None) -> Variable:
    """A tensor of `shape` (ints, Variables, or a Variable) filled with `value` (a number or a [1] Variable)."""
    helper = LayerHelper('fill_constant', name=name)
    inputs, attrs = {}, {'force_cpu': force_cpu}
    if isinstance(value, Variable):
        inputs['ValueTensor'] = [value]
    else:
        attrs['value'] = float(value)
        attrs['str_value'] = _str_value(dtype, value)
    shape_inputs(inputs, attrs, shape, 'fill_constant')
    if out is None:
        out = helper.create_variable_for_type_inference(to_var_type(dtype))
    attrs['dtype'] = int(out.dtype)
    helper.append_op('fill_constant', inputs, {'Out': [out]}, attrs)
    out.stop_gradient = True
    return out


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0, output_dim_idx=0, force_cpu=False):
    """A tensor of `shape` whose dim `output_dim_idx` is the runtime dim `input_dim_idx` of `input`."""
    helper = LayerHelper('fill_constant_batch_size_like')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('fill_constant_batch_size_like', {'Input': [input]}, {'Out': [out]},
                     {'shape': [int(d) for d in shape], 'dtype': int(out.dtype), 'value': float(value),
                      'str_value': _str_value(dtype, value), 'input_dim_idx': input_dim_idx,
                      'output_dim_idx': output_dim_idx, 'force_cpu': force_cpu})
    out.stop_gradient = True
    return out


def zeros(shape, dtype, force_cpu=False, name=None) -> Variable:
    return fill_constant(shape, dtype, 0.0, force_cpu=force_cpu, name=name)


def ones(shape, dtype, force_cpu=False, name=None) -> Variable:
    if isinstance(shape, (list, tuple)) and not contains_var(shape) and int(np.prod(shape)) <= 0:
        raise AssertionError('The shape is invalid: %s.' % str(list(shape)))
    return fill_constant(shape, dtype, 1.0, force_cpu=force_cpu, name=name)


def zeros_like(x, out=None) -> Variable:
    """fluid.layers.zeros_like: the `fill_zeros_like` op."""
    check_variable(x, 'x', 'zeros_like')
    helper = LayerHelper('zeros_like')
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('fill_zeros_like', {'X': [x]}, {'Out': [out]})
    out.stop_gradient = True
    return out


def ones_like(x, out=None) -> Variable:
    """fluid.layers.ones_like: the `fill_any_like` op with value 1."""
    check_variable(x, 'x', 'ones_like')
    helper = LayerHelper('ones_like')
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('fill_any_like', {'X': [x]}, {'Out': [out]}, {'value': 1.0})
    return out


_ASSIGN_VALUE_ATTR = {VarType.BOOL: 'bool_values', VarType.FP32: 'fp32_values', VarType.INT32: 'int32_values',
                      VarType.INT64: 'int64_values'}


def assign(input, output=None, _fp64_to_fp32: bool = False) -> Variable:
    """fluid.layers.assign: a Variable is copied by `assign`, a numpy array becomes an `assign_value` op (bool,
    float32, int32 or int64, at most 1024 * 1024 elements)."""
    helper = LayerHelper('assign')
    if isinstance(input, Variable):
        if output is None:
            output = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op('assign', {'X': [input]}, {'Out': [output]})
        return output
    if not isinstance(input, np.ndarray):
        raise TypeError("The type of 'input' in assign must be (<class 'paddle.fluid.framework.Variable'>, <class "
                        "'numpy.ndarray'>), but received %s. " % type(input))
    dtype = to_var_type(input.dtype)
    if dtype == VarType.FP64 and _fp64_to_fp32:
        warnings.warn('paddle.assign doesn\'t support float64 input now due to current platform protobuf data '
                      'limitation, we convert it to float32')
        input, dtype = input.astype(np.float32), VarType.FP32
    if dtype not in _ASSIGN_VALUE_ATTR:
        raise TypeError("When the type of 'input' in assign is numpy.ndarray, the data type of 'input' must be bool, "
                        "float32, int32 or int64, but received %s." % convert_dtype(dtype))
    if input.size > 1024 * 1024:
        raise ValueError("The size of input is too big. Please consider saving it to file and 'load_op' to load it")
    values = [bool(v) if dtype == VarType.BOOL else (float(v) if dtype == VarType.FP32 else int(v))
              for v in input.flat]
    if output is None:
        output = helper.create_variable_for_type_inference(dtype)
    helper.append_op('assign_value', {}, {'Out': [output]},
                     {'dtype': int(dtype), 'shape': list(input.shape), _ASSIGN_VALUE_ATTR[dtype]: values})
    return output


def range(start, end, step, dtype, name=None) -> Variable:
    """fluid.layers.range: `fill_constant`s for number arguments, then the `range` op (stop_gradient)."""
    dtype = convert_dtype(dtype)
    args = []
    for v in (start, end, step):
        if not isinstance(v, Variable):
            v = fill_constant([1], dtype, v)
        elif convert_dtype(v.dtype) != dtype:
            v = cast(v, dtype)
        args.append(v)
    helper = LayerHelper('range', name=name)
    out = helper.create_variable_for_type_inference(args[0].dtype)
    helper.append_op('range', {'Start': [args[0]], 'End': [args[1]], 'Step': [args[2]]}, {'Out': [out]})
    out.stop_gradient = True
    return out


def arange(start, end, step=1, dtype=None, name=None) -> Variable:
    """fluid.layers.arange (1.8): `range`, float32 unless `dtype` is given."""
    return range(start, end, step, 'float32' if dtype is None else dtype)


def linspace(start, stop, num, dtype) -> Variable:
    """fluid.layers.linspace: `linspace` of `num` values from start to stop (1.8: values accumulated in dtype)."""
    helper = LayerHelper('linspace')
    start = start if isinstance(start, Variable) else fill_constant([1], dtype, start)
    stop = stop if isinstance(stop, Variable) else fill_constant([1], dtype, stop)
    num = num if isinstance(num, Variable) else fill_constant([1], 'int32', num)
    out = helper.create_variable_for_type_inference(start.dtype)
    helper.append_op('linspace', {'Start': [start], 'Stop': [stop], 'Num': [num]}, {'Out': [out]})
    return out
