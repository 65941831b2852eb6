"""Tensor layers with fluid 1.x signatures: creation (fill_constant, zeros, ones, assign, create_parameter, ...) and
manipulation (reshape, transpose, concat, split, squeeze, slice, gather, cast, argmax, where, ...).

Each builder emits the op Paddle 1.8 emits, named the way Paddle names it: a LayerHelper of the layer type Paddle
uses (`reshape2` for reshape, `transpose` for transpose2, `unsqueeze2` for unsqueeze, `arg_max` for argmax, ...), so
outputs are `reshape2_0.tmp_0`, intermediates such as XShape `reshape2_0.tmp_1`. Attribute values that may be
runtime tensors (shape, starts, ends, expand_times, axes) follow Paddle's rule: a whole Variable goes to the
`...Tensor` input, a list mixing ints and Variables goes to the `...TensorList` input (ints turned into int32
`fill_constant`s) and the attribute keeps -1 in the Variables' places.

`getitem` implements `Variable.__getitem__` (attached in math_patch): ints and slices become one `slice` op with
`decrease_axis` (a step other than 1 a `strided_slice`, `[::-1]` a `reverse`), named `<var>_slice_N`, as in 1.8.
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from ..framework import unique_name
from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from ..initializer import ConstantInitializer, Initializer
from ..param_attr import ParamAttr
from .helper import LayerHelper

__all__ = ['create_tensor', 'create_parameter', 'create_global_var', 'cast', 'concat', 'assign', 'fill_constant',
           'fill_constant_batch_size_like', 'argmin', 'argmax', 'argsort', 'ones', 'zeros', 'reverse', 'range',
           'zeros_like', 'ones_like', 'reshape', 'split', 'squeeze', 'unsqueeze', 'flatten', 'stack', 'unstack',
           'slice', 'strided_slice', 'expand', 'gather', 'shape', 'transpose', 'where']

_INT_TYPES = (int, np.integer)


# --- shared helpers --------------------------------------------------------------------------------------------------

def check_variable(value, name: str, op_name: str) -> None:
    """Paddle's check_type wording for an argument that must be a Variable."""
    if not isinstance(value, Variable):
        raise TypeError("The type of '%s' in %s must be <class 'paddle.fluid.framework.Variable'>, but received %s. "
                        % (name, op_name, type(value)))


def _contains_var(values) -> bool:
    return any(isinstance(v, Variable) for v in values)


def _int32_constant(value: int) -> Variable:
    return fill_constant([1], 'int32', value, force_cpu=True)


def _tensor_list(values) -> list[Variable]:
    """A list of ints and Variables as [1]-shaped int32 Variables (the `...TensorList` inputs)."""
    out = []
    for v in values:
        if isinstance(v, Variable):
            v.stop_gradient = True
            out.append(v)
        else:
            out.append(_int32_constant(int(v)))
    return out


def _attr_with_holes(values, hole: int = -1) -> list[int]:
    return [hole if isinstance(v, Variable) else int(v) for v in values]


def _str_value(dtype, value) -> str:
    return str(int(value)) if convert_dtype(dtype) in ('int64', 'int32') else str(float(value))


def _shape_inputs(inputs: dict, attrs: dict, shape, op_type: str) -> None:
    """Paddle's `_get_shape_tensor_inputs`: a shape given as a Variable or a list containing Variables."""
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        inputs['ShapeTensor'] = [shape if shape.dtype == VarType.INT32 else cast(shape, 'int32')]
        return
    if not isinstance(shape, (list, tuple)):
        raise TypeError("The type of 'shape' in %s must be list, tuple or Variable, but received %s."
                        % (op_type, type(shape)))
    attrs['shape'] = _attr_with_holes(shape)
    if _contains_var(shape):
        inputs['ShapeTensorList'] = [
            (v if v.dtype == VarType.INT32 else cast(v, 'int32')) if isinstance(v, Variable) else _int32_constant(v)
            for v in shape]
        for v in inputs['ShapeTensorList']:
            v.stop_gradient = True


# =================================================================================================================
# creation
# =================================================================================================================

def create_tensor(dtype, name=None, persistable=False) -> Variable:
    """A Variable with no producer, to be filled later (e.g. by `assign(x, output=t)`)."""
    helper = LayerHelper('create_tensor', name=name)
    return helper.create_variable(name=helper.name, dtype=to_var_type(dtype), persistable=persistable)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """fluid.layers.create_parameter: a trainable parameter `create_parameter_N.w_0` (or `attr.name`/`name`)."""
    if not isinstance(shape, (list, tuple, np.ndarray)):
        raise TypeError("The type of 'shape' in create_parameter must be list, tuple or numpy.ndarray, but received "
                        "%s." % type(shape))
    for item in shape:
        if not isinstance(item, _INT_TYPES):
            raise TypeError("The type of 'item of shape' in create_parameter must be int, but received %s."
                            % type(item))
    if attr is not None and not isinstance(attr, ParamAttr):
        raise TypeError("The type of 'attr' in create_parameter must be ParamAttr or None, but received %s."
                        % type(attr))
    if default_initializer is not None and not isinstance(default_initializer, Initializer):
        raise TypeError("The type of 'default_initializer' in create_parameter must be Initializer or None, but "
                        "received %s." % type(default_initializer))
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
    _shape_inputs(inputs, attrs, shape, 'fill_constant')
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
    if isinstance(shape, (list, tuple)) and not _contains_var(shape) and int(np.prod(shape)) <= 0:
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


def shape(input) -> Variable:
    """The runtime shape of `input` as an int32 tensor."""
    check_variable(input, 'input', 'shape')
    helper = LayerHelper('shape')
    out = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('shape', {'Input': [input]}, {'Out': [out]})
    return out


# =================================================================================================================
# reshaping
# =================================================================================================================

def _check_reshape_attr(shape, x) -> list[int]:
    attr, unk = [], -1
    for i, d in enumerate(shape):
        if isinstance(d, Variable):
            attr.append(-1)
            continue
        d = int(d)
        attr.append(d)
        if d == -1:
            assert unk == -1, ("Only one dimension value of 'shape' in reshape can be -1. But received shape[%d] is "
                               "also -1." % i)
            unk = i
        elif d == 0:
            assert i < len(x.shape), ("The index of 0 in `shape` must be less than the input tensor X's dimensions. "
                                      "But received shape[%d] = 0, X's dimensions = %d." % (i, len(x.shape)))
        else:
            assert d > 0, ("Each dimension value of 'shape' in reshape must not be negative except one unknown "
                           "dimension. But received shape[%d] = %s." % (i, d))
    return attr


def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None) -> Variable:
    """fluid.layers.reshape: `reshape2` (Out, XShape). `shape` may hold 0 (copy the dim) and one -1 (infer), and
    Variables; `actual_shape` (a Variable) overrides it at run time; `inplace` writes the result into `x`."""
    check_variable(x, 'x', 'reshape')
    helper = LayerHelper('reshape2', name=name, act=act)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        inputs['Shape'] = [shape]
    elif isinstance(shape, (list, tuple)):
        assert len(shape) > 0, "The size of 'shape' in reshape can't be zero, but received %s." % len(shape)
        attrs['shape'] = _check_reshape_attr(shape, x)
        if _contains_var(shape):
            inputs['ShapeTensor'] = _tensor_list(shape)
        elif isinstance(actual_shape, Variable):
            actual_shape.stop_gradient = True
            inputs['Shape'] = [actual_shape]
    else:
        raise TypeError("The type of 'shape' in reshape must be list, tuple or Variable, but received %s."
                        % type(shape))
    out = x if inplace else helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('reshape2', inputs, {'Out': [out], 'XShape': [x_shape]}, attrs)
    return helper.append_activation(out)


def _xshape_op(helper, op_type, x, attrs, inputs=None):
    out = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs or {'X': [x]}, {'Out': [out], 'XShape': [x_shape]}, attrs)
    return out


def transpose(x, perm, name=None) -> Variable:
    """fluid.layers.transpose: `transpose2` with `axis = perm`."""
    check_variable(x, 'x', 'transpose')
    if not isinstance(perm, (list, tuple)):
        raise TypeError("The type of 'perm' in transpose must be list, but received %s. " % type(perm))
    perm = list(perm)
    if len(perm) != len(x.shape):
        raise ValueError('Input(perm) is the permutation of dimensions of Input(x), its length should be equal to '
                         'dimensions of Input(x), but received dimension of Input(x) is %s, the length of '
                         'Input(perm) is %s.' % (len(x.shape), len(perm)))
    for idx, dim in enumerate(perm):
        if dim >= len(x.shape):
            raise ValueError("Each element in Input(perm) should be less than Input(x)'s dimension, but %d-th element "
                             "in Input(perm) is %d which exceeds Input(x)'s dimension %d."
                             % (idx, perm[idx], len(x.shape)))
    # use_mkldnn / use_quantizer set as 1.8's checker sets them: 1.8 rejects a saved transpose2_grad without them
    return _xshape_op(LayerHelper('transpose', name=name), 'transpose2', x,
                      {'axis': perm, 'use_mkldnn': False, 'use_quantizer': False})


def squeeze(input, axes, name=None) -> Variable:
    """fluid.layers.squeeze: `squeeze2` removing the size-1 dims listed in `axes` (all size-1 dims if empty)."""
    check_variable(input, 'input', 'squeeze')
    if not isinstance(axes, list):
        raise TypeError("The type of 'axes' in squeeze must be <class 'list'>, but received %s. " % type(axes))
    return _xshape_op(LayerHelper('squeeze', name=name), 'squeeze2', input, {'axes': list(axes)})


def unsqueeze(input, axes, name=None) -> Variable:
    """fluid.layers.unsqueeze: `unsqueeze2` inserting size-1 dims at `axes` (an int, a list, or Variables)."""
    if not isinstance(axes, (int, list, tuple, Variable)):
        raise TypeError("The type of 'axes' in unsqueeze must be int, list, tuple or Variable, but received %s."
                        % type(axes))
    helper = LayerHelper('unsqueeze2', name=name)
    inputs, attrs = {'X': [input]}, {}
    if isinstance(axes, int):
        axes = [axes]
    if isinstance(axes, Variable):
        axes.stop_gradient = True
        inputs['AxesTensor'] = [axes]
    elif _contains_var(axes):
        inputs['AxesTensorList'] = _tensor_list(axes)
    else:
        attrs['axes'] = [int(a) for a in axes]
    return _xshape_op(helper, 'unsqueeze2', input, attrs, inputs)


def flatten(x, axis=1, name=None) -> Variable:
    """fluid.layers.flatten: `flatten2` to 2-D, [prod(dims[:axis]), prod(dims[axis:])]."""
    check_variable(x, 'x', 'flatten')
    if not isinstance(axis, int) or axis > len(x.shape) or axis < 0:
        raise ValueError('The axis should be a int, and in range [0, rank(x)]')
    return _xshape_op(LayerHelper('flatten', name=name), 'flatten2', x, {'axis': axis})


# =================================================================================================================
# joining and splitting
# =================================================================================================================

def concat(input, axis=0, name=None) -> Variable:
    """fluid.layers.concat: `concat` along `axis` (an int or an int Variable -> AxisTensor)."""
    if isinstance(input, Variable):
        warnings.warn('The type of input in concat should be list, but received %s.' % type(input))
        input = [input]
    input = list(input)
    for i, v in enumerate(input):
        check_variable(v, 'input[%d]' % i, 'concat')
    if not isinstance(axis, (int, Variable)):
        raise TypeError("The type of 'axis' in concat must be (<class 'int'>, <class "
                        "'paddle.fluid.framework.Variable'>), but received %s. " % type(axis))
    helper = LayerHelper('concat', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    inputs, attrs = {'X': input}, {'use_mkldnn': False, 'use_quantizer': False}     # as for transpose2
    if isinstance(axis, Variable):
        axis.stop_gradient = True
        inputs['AxisTensor'] = [axis]
    else:
        attrs['axis'] = axis
    helper.append_op('concat', inputs, {'Out': [out]}, attrs)
    return out


def split(input, num_or_sections, dim=-1, name=None) -> list:
    """fluid.layers.split: `split` into `num_or_sections` equal parts, or parts of the given sizes (one may be -1;
    entries may be Variables)."""
    if not isinstance(num_or_sections, (int, list, tuple)):
        raise TypeError("The type of 'num_or_sections' in split must be int, list or tuple, but received %s."
                        % type(num_or_sections))
    if not isinstance(dim, (int, Variable)):
        raise TypeError("The type of 'dim' in split must be int or Variable, but received %s." % type(dim))
    helper = LayerHelper('split', input=input, name=name)
    input_shape = input.shape
    inputs = {'X': [input]}
    attrs = {'num': num_or_sections if isinstance(num_or_sections, int) else 0}
    if isinstance(dim, Variable):
        dim.stop_gradient = True
        inputs['AxisTensor'] = [dim]
    else:
        assert len(input_shape) + dim >= 0, '(rank(x) + axis) must >= 0'
        dim = len(input_shape) + dim if dim < 0 else dim
        attrs['axis'] = dim
    if isinstance(num_or_sections, int):
        assert num_or_sections > 1, 'num_or_sections must be more than 1.'
        if isinstance(dim, int) and input_shape[dim] > 0:
            assert input_shape[dim] % num_or_sections == 0, (
                "The input's size along the split dimension must be evenly divisible by Attr(num_or_sections). But "
                "%d is not evenly divisible by %d. " % (num_or_sections, input_shape[dim]))
        num = num_or_sections
    else:
        if isinstance(dim, int) and input_shape[dim] > 0:
            assert len(num_or_sections) <= input_shape[dim], \
                'len(num_or_sections) must not be more than input.shape[dim].'
        num = len(num_or_sections)
        attrs['sections'] = _attr_with_holes(num_or_sections)
        if _contains_var(num_or_sections):
            unknown = [i for i, s in enumerate(num_or_sections) if not isinstance(s, Variable) and s == -1]
            assert len(unknown) <= 1, ("Only one value of 'num_or_section' in split can be -1. But received "
                                       "num_or_section[%d] is also -1." % (unknown[-1] if unknown else -1))
            inputs['SectionsTensorList'] = _tensor_list(num_or_sections)
    outs = [helper.create_variable_for_type_inference(helper.input_dtype()) for _ in builtins.range(num)]
    helper.append_op('split', inputs, {'Out': outs}, attrs)
    return outs


def stack(x, axis=0, name=None) -> Variable:
    """fluid.layers.stack: `stack` of same-shaped tensors along a new `axis`."""
    axis = 0 if axis is None else axis
    if not isinstance(x, (list, tuple)):
        x = [x]
    helper = LayerHelper('stack', name=name)
    out = helper.create_variable_for_type_inference(x[0].dtype)
    helper.append_op('stack', {'X': list(x)}, {'Y': [out]}, {'axis': axis})
    return out


def unstack(x, axis=0, num=None) -> list:
    """fluid.layers.unstack: `unstack` into x.shape[axis] tensors (`num` when the dim is unknown)."""
    helper = LayerHelper('unstack')
    if num is None:
        if axis is None or x.shape[axis] <= 0:
            raise ValueError('unknown unstack number')
        num = x.shape[axis]
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in builtins.range(num)]
    helper.append_op('unstack', {'X': [x]}, {'Y': outs}, {'axis': axis, 'num': num})
    return outs


# =================================================================================================================
# slicing
# =================================================================================================================

def _list_or_tensor(inputs, attrs, values, key, infer_flags, whole_slot, list_slot):
    """starts/ends/strides given as a Variable, a list with Variables, or ints (Paddle's slice builders)."""
    if isinstance(values, Variable):
        values.stop_gradient = True
        inputs[whole_slot] = [values]
        infer_flags[:] = [-1] * len(infer_flags)
        return
    values = list(values)
    attrs[key] = _attr_with_holes(values)
    if _contains_var(values):
        inputs[list_slot] = _tensor_list(values)
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


def reverse(x, axis) -> Variable:
    """fluid.layers.reverse: `reverse` along the given axes."""
    if isinstance(axis, int):
        axis = [axis]
    helper = LayerHelper('reverse')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('reverse', {'X': [x]}, {'Out': [out]}, {'axis': list(axis)})
    return out


def expand(x, expand_times, name=None) -> Variable:
    """fluid.layers.expand: `expand` (np.tile) with one repeat count per dim (ints, Variables, or a Variable)."""
    check_variable(x, 'x', 'expand')
    if x.dtype == VarType.BOOL and x.stop_gradient:
        raise ValueError('expand op bool date type must set the stop_gradient to be False')
    helper = LayerHelper('expand', name=name)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(expand_times, Variable):
        expand_times.stop_gradient = True
        inputs['ExpandTimes'] = [expand_times]
    elif isinstance(expand_times, (list, tuple)):
        for t in expand_times:
            assert isinstance(t, Variable) or t > 0, 'Each element given in expand_times must not be negative.'
        attrs['expand_times'] = _attr_with_holes(expand_times)
        if _contains_var(expand_times):
            inputs['expand_times_tensor'] = _tensor_list(expand_times)
    else:
        raise TypeError("The type of 'expand_times' in expand must be list, tuple or Variable, but received %s."
                        % type(expand_times))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('expand', inputs, {'Out': [out]}, attrs)
    return out


def getitem(var: Variable, item) -> Variable:
    """`var[item]` as Paddle 1.8 builds it: one `slice` op for ints and step-1 slices (ints in `decrease_axis`;
    an index -1 ends at 10000000), a `strided_slice` when some step is not 1, then a `reverse` for `[::-1]` axes.
    Ellipsis expands to full slices and None inserts a dim (unsqueeze2) as in Paddle 2.x."""
    if not isinstance(item, tuple):
        item = (item,)
    item, new_axes = _expand_ellipsis(var, item)
    block = var.block.program.current_block()
    decrease, axes, starts, ends, steps, reverse_axes = [], [], [], [], [], []
    for dim, it in enumerate(item):
        if isinstance(it, builtins.slice):
            start, stop, step = it.start, it.stop, it.step
            if start is None and stop is None and step is None:
                continue
            step = 1 if step is None else step
            if start is None and stop is None and step == -1:
                reverse_axes.append(dim)
                continue
            if step < 0:
                # an end of -1 with a negative stride runs through index 0 (strided_slice's rule)
                start = -1 if start is None else start
                stop = -1 if stop is None else stop
            else:
                start = 0 if start is None else start
                stop = 10000000 if stop is None else stop
            axes.append(dim)
            starts.append(start)
            ends.append(stop)
            steps.append(step)
        elif isinstance(it, Variable) or isinstance(it, _INT_TYPES) and not isinstance(it, bool):
            size = var.shape[dim]
            if not isinstance(it, Variable) and size >= 0 and not -size <= it < size:
                # Python iterates (and unpacks `a, b = var`) by indexing until IndexError, as in Paddle 2.x
                raise IndexError('slice_item %d at dim %d should be >= 0 and < x.shape[%d]: %d'
                                 % (it, dim, dim, size))
            decrease.append(dim)
            axes.append(dim)
            starts.append(it if isinstance(it, Variable) else int(it))
            steps.append(1)
            if isinstance(it, Variable):
                one = _block_fill(block, 1)
                end = block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype='int32')
                block.append_op('elementwise_add', {'X': [it], 'Y': [one]}, {'Out': [end]}, {'axis': -1})
                ends.append(end)
            else:
                ends.append(int(it) + 1 if it != -1 else 10000000)
        else:
            raise IndexError('Valid index accept int, slice, Ellipsis, None or Variable, but received %r' % (it,))
    out = var
    if axes:
        strided = any(s != 1 for s in steps)
        inputs, attrs = {'Input': [var]}, {'axes': axes, 'decrease_axis': decrease}
        flags = [1] * len(axes)
        for key, values, slot in (('starts', starts, 'StartsTensorList'), ('ends', ends, 'EndsTensorList'),
                                  ('strides', steps, 'StridesTensorList')):
            if key == 'strides' and not strided:
                continue
            attrs[key] = _attr_with_holes(values)
            if _contains_var(values):
                inputs[slot] = [v if isinstance(v, Variable) else _block_fill(block, v) for v in values]
                for k, v in enumerate(values):
                    if isinstance(v, Variable):
                        v.stop_gradient = True
                        flags[k] = -1
        attrs['infer_flags'] = flags
        suffix = '_strided_slice' if strided else '_slice'
        out = block.create_var(name=unique_name.generate_with_ignorable_key(var.name + suffix), dtype=var.dtype)
        block.append_op('strided_slice' if strided else 'slice', inputs, {'Out': [out]}, attrs)
    if reverse_axes:
        rev = block.create_var(name=unique_name.generate_with_ignorable_key(var.name + '_slice_reverse'),
                               dtype=var.dtype)
        # the axes of the sliced result: int-indexed dims before an axis are gone (Paddle 1.8 used the input's)
        axis = [a - sum(1 for d in decrease if d < a) for a in reverse_axes]
        block.append_op('reverse', {'X': [out]}, {'Out': [rev]}, {'axis': axis})
        out = rev
    if new_axes:
        out = unsqueeze(out, new_axes)
    return out


def _expand_ellipsis(var, item):
    """Replaces Ellipsis by full slices and drops None entries; returns the remaining index and the output
    positions of the dims the Nones insert."""
    if sum(1 for it in item if it is Ellipsis) > 1:
        raise IndexError('An index can only have a single ellipsis')
    n_real = sum(1 for it in item if it is not None and it is not Ellipsis)
    expanded = []
    for it in item:
        if it is Ellipsis:
            expanded.extend([builtins.slice(None)] * max(len(var.shape) - n_real, 0))
        else:
            expanded.append(it)
    real, new_axes, out_pos = [], [], 0
    for it in expanded:
        if it is None:
            new_axes.append(out_pos)
            out_pos += 1
        else:
            real.append(it)
            out_pos += 1 if isinstance(it, builtins.slice) else 0
    if len(real) > len(var.shape):
        raise IndexError('too many indices (%d) for Variable %r of rank %d' % (len(real), var.name, len(var.shape)))
    return tuple(real), new_axes


def _block_fill(block, value) -> Variable:
    out = block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype='int32')
    block.append_op('fill_constant', {}, {'Out': [out]},
                    {'shape': [1], 'dtype': int(VarType.INT32), 'value': float(value), 'force_cpu': True})
    out.stop_gradient = True
    return out


# =================================================================================================================
# types and search
# =================================================================================================================

def cast(x, dtype) -> Variable:
    """fluid.layers.cast: `cast` to `dtype`; its gradient casts back."""
    check_variable(x, 'x', 'cast')
    helper = LayerHelper('cast')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('cast', {'X': [x]}, {'Out': [out]}, {'in_dtype': int(x.dtype), 'out_dtype': int(out.dtype)})
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


def gather(input, index, overwrite=True) -> Variable:
    """fluid.layers.gather: rows of `input` at `index`; the gradient scatters back (duplicates: the last row
    written with `overwrite`, else summed)."""
    helper = LayerHelper('gather')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('gather', {'X': [input], 'Index': [index]}, {'Out': [out]}, {'overwrite': overwrite})
    return out


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
    from . import math as math_layers
    cond = cast(condition, x.dtype)
    not_cond = math_layers.scale(cond, scale=-1.0, bias=1.0)
    return math_layers.elementwise_add(math_layers.elementwise_mul(x, cond), math_layers.elementwise_mul(y, not_cond))


# =================================================================================================================
# indexing, creation and math builders with Paddle 1.8's fluid.layers signatures (ops: ops/indexing.py,
# ops/creation.py, ops/activation.py, ops/reduce.py). Each appends what 1.8.5 appends, names included:
#   tril / triu        `tril_triu` whose output is the helper's own name (`tril_0`), as 1.8's LayerHelper names it
#   roll(dims=None)    reshape2 to [-1, 1], `roll` on dim 0, reshape2 back in place (1.8's sequence)
#   cumsum             attrs axis (-1 when None), exclusive, reverse (no flatten in 1.8)
#   eye(batch_shape)   `eye`, then one `stack` per batch dim (innermost first)
#   linspace / range   fill_constant for number arguments; linspace without a dtype attribute (1.8's algorithm)
#   uniform_random     no dtype attribute (1.8 passes none, so the op's float32 default wins whatever dtype says)
#   logsumexp          exp, reduce_sum, log (1.8 had no logsumexp op)
#   has_nan / has_inf  `isnan` / `isinf` reducing the whole tensor to one bool; isfinite likewise
#   rank               `assign_value` of the static rank (an int32 tensor of shape [])
# =================================================================================================================

def _named_output(helper, dtype, name=None) -> Variable:
    """The output Variable: a temporary, or exactly `name` when given (Paddle's create_variable branch)."""
    if name is None:
        return helper.create_variable_for_type_inference(dtype)
    return helper.create_variable(name=name, dtype=dtype, persistable=False)


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
    from .nn import check_variable_and_dtype
    check_variable_and_dtype(input, 'x', ['float32', 'float64', 'int32', 'int64'], 'paddle.tensor.search.index_select')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'paddle.tensor.search.index_select')
    helper = LayerHelper('index_select')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('index_select', {'X': [input], 'Index': [index]}, {'Out': [out]}, {'dim': dim})
    return out


def flip(input, dims, name=None) -> Variable:
    """fluid.layers.flip: `flip` with 1.8's attribute `dims`."""
    check_variable(input, 'X', 'flip')
    if not isinstance(dims, (list, tuple)):
        raise TypeError("The type of 'dims' in flip must be (<class 'list'>, <class 'tuple'>), but received %s. "
                        % type(dims))
    assert len(dims) > 0, 'len(dims) must be greater than 0.'
    helper = LayerHelper('flip', name=name)
    out = _named_output(helper, input.dtype, name)
    helper.append_op('flip', {'X': [input]}, {'Out': [out]}, {'dims': list(dims)})
    return out


def roll(input, shifts, dims=None) -> Variable:
    """fluid.layers.roll: `roll` with attrs shifts / dims; without dims the tensor is reshaped to [-1, 1], rolled on
    dim 0 and reshaped back in place, as 1.8 does."""
    helper = LayerHelper('roll')
    origin_shape = list(input.shape)
    shifts = [shifts] if isinstance(shifts, int) else list(shifts)
    dims = [dims] if isinstance(dims, int) else dims
    if dims is None:
        input = reshape(input, shape=[-1, 1])
        dims = [0]
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('roll', {'X': [input]}, {'Out': [out]}, {'dims': list(dims), 'shifts': shifts})
    return reshape(out, shape=origin_shape, inplace=True)


def tril_triu(op_type: str, x, diagonal, name, arg: str = 'input') -> Variable:
    """`tril_triu` (lower for tril): the output is named after the helper (`tril_0`) or exactly `name`."""
    from .nn import check_variable_and_dtype
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], op_type)
    if len(x.shape) < 2:
        raise ValueError('%s shape in %s must be at least 2-D' % (arg, op_type))
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError('diagonal in %s must be a python Int' % op_type)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable(name=helper.name, dtype=x.dtype, persistable=False)
    helper.append_op('tril_triu', {'X': [x]}, {'Out': [out]}, {'diagonal': diagonal, 'lower': op_type == 'tril'})
    return out


def tril(input, diagonal=0, name=None) -> Variable:
    """fluid.layers.tril: the lower triangle (j - i <= diagonal) of the last two dims."""
    return tril_triu('tril', input, diagonal, name)


def triu(input, diagonal=0, name=None) -> Variable:
    """fluid.layers.triu: the upper triangle (j - i >= diagonal) of the last two dims."""
    return tril_triu('triu', input, diagonal, name)


def cumsum(x, axis=None, exclusive=None, reverse=None) -> Variable:
    """fluid.layers.cumsum: `cumsum` along `axis` (-1 when None)."""
    helper = LayerHelper('cumsum')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('cumsum', {'X': [x]}, {'Out': [out]},
                     {'axis': -1 if axis is None else axis, 'exclusive': bool(exclusive), 'reverse': bool(reverse)})
    return out


def arange(start, end, step=1, dtype=None, name=None) -> Variable:
    """fluid.layers.arange (1.8): `range`, float32 unless `dtype` is given."""
    return range(start, end, step, 'float32' if dtype is None else dtype)


def eye_op(num_rows, num_columns, dtype, name=None) -> Variable:
    """The `eye` op (stop_gradient), with Paddle's argument checks."""
    if not isinstance(num_rows, int) or num_rows < 0:
        raise TypeError('num_rows should be a non-negative int')
    if num_columns is not None:
        if not isinstance(num_columns, int) or num_columns < 0:
            raise TypeError('num_columns should be a non-negative int')
    else:
        num_columns = num_rows
    helper = LayerHelper('eye', name=name)
    out = helper.create_variable_for_type_inference(to_var_type(dtype), stop_gradient=True)
    helper.append_op('eye', {}, {'Out': [out]},
                     {'num_rows': num_rows, 'num_columns': num_columns, 'dtype': int(to_var_type(dtype))})
    return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype='float32') -> Variable:
    """fluid.layers.eye: an identity [num_rows, num_columns], stacked over `batch_shape` (one `stack` per dim)."""
    out = eye_op(num_rows, num_columns, dtype)
    if batch_shape is not None:
        if not isinstance(batch_shape, list):
            raise TypeError('batch_shape should be a list')
        for batch_val in reversed(batch_shape):
            if batch_val <= 0:
                raise TypeError('batch_shape should be a positive int list')
            out = stack([out] * batch_val, axis=0)
    return out


def linspace(start, stop, num, dtype) -> Variable:
    """fluid.layers.linspace: `linspace` of `num` values from start to stop (1.8: values accumulated in dtype)."""
    helper = LayerHelper('linspace')
    start = start if isinstance(start, Variable) else fill_constant([1], dtype, start)
    stop = stop if isinstance(stop, Variable) else fill_constant([1], dtype, stop)
    num = num if isinstance(num, Variable) else fill_constant([1], 'int32', num)
    out = helper.create_variable_for_type_inference(start.dtype)
    helper.append_op('linspace', {'Start': [start], 'Stop': [stop], 'Num': [num]}, {'Out': [out]})
    return out


def randint(low, high=None, shape=None, out=None, dtype=None, device=None, stop_gradient=False, seed=0,
            name=None) -> Variable:
    """fluid.layers.randint (1.8): integers uniform in [low, high) (high None: [0, low)), int64 by default."""
    dtype = 'int64' if dtype is None else dtype
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in randint must be ['int32', 'int64'], but received %s."
                        % convert_dtype(dtype))
    shape = [1] if shape is None else shape
    inputs, attrs = {}, {}
    _shape_inputs(inputs, attrs, shape, 'randint')
    if high is None:
        low, high = 0, low
    if low >= high:
        raise ValueError("randint's low must less then high, but received low = %s, high = %s" % (low, high))
    attrs.update(low=low, high=high, seed=seed)
    helper = LayerHelper('randint', name=name)
    if out is None:
        out = _named_output(helper, to_var_type(dtype), name)
    attrs['dtype'] = int(out.dtype)
    out.stop_gradient = stop_gradient
    helper.append_op('randint', inputs, {'Out': [out]}, attrs)
    return out


def uniform_random(shape, dtype='float32', min=-1.0, max=1.0, seed=0) -> Variable:  # noqa: A002 - Paddle's names
    """fluid.layers.uniform_random: `uniform_random` in [min, max). 1.8 sets no dtype attribute, so the op's
    float32 default is what runs (and types the output) even for dtype='float64'."""
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'dtype' in uniform_random/rand must be ('float32', 'float64'), but "
                        'received %s.' % convert_dtype(dtype))
    inputs, attrs = {}, {'seed': seed, 'min': float(min), 'max': float(max)}
    _shape_inputs(inputs, attrs, shape, 'uniform_random/rand')
    helper = LayerHelper('uniform_random')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('uniform_random', inputs, {'Out': [out]}, attrs)
    return out


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype='float32') -> Variable:
    """fluid.layers.gaussian_random: `gaussian_random` with attrs mean, std, seed, dtype."""
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'dtype' in gaussian_random/randn must be ['float32', 'float64'], but "
                        'received %s.' % convert_dtype(dtype))
    inputs = {}
    attrs = {'mean': float(mean), 'std': float(std), 'seed': seed, 'dtype': int(to_var_type(dtype)),
             'use_mkldnn': False}
    _shape_inputs(inputs, attrs, shape, 'gaussian_random/randn')
    helper = LayerHelper('gaussian_random')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('gaussian_random', inputs, {'Out': [out]}, attrs)
    return out


def log1p(x, out=None, name=None) -> Variable:
    """fluid.layers.log1p: `log1p`, log(1 + x)."""
    from .nn import check_variable_and_dtype
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'log1p')
    helper = LayerHelper('log1p', name=name)
    if out is None:
        out = _named_output(helper, x.dtype, name)
    helper.append_op('log1p', {'X': [x]}, {'Out': [out]})
    return out


def erf(x) -> Variable:
    """fluid.layers.erf: the `erf` op."""
    from .activation import activation
    return activation('erf', x)


def logsumexp(x, dim=None, keepdim=False, out=None, name=None) -> Variable:
    """fluid.layers.logsumexp (1.8): exp, reduce_sum and log ops (no logsumexp op in 1.8)."""
    from . import activation as act
    from .math import reduce_sum
    sum_out = reduce_sum(act.exp(x), dim, keepdim)
    if out is not None:
        LayerHelper('logsumexp').append_op('log', {'X': [sum_out]}, {'Out': [out]})
        return out
    return act.log(sum_out, name)


def dot(x, y, name=None) -> Variable:
    """fluid.layers.dot: `dot`, the sum of x * y over the last axis, kept as 1 ([N, 1] or [1])."""
    from .nn import check_variable_and_dtype
    for arg, v in (('x', x), ('y', y)):
        check_variable_and_dtype(v, arg, ['float32', 'float64', 'int32', 'int64'], 'dot')
    helper = LayerHelper('dot', name=name)
    out = _named_output(helper, x.dtype, name)
    helper.append_op('dot', {'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def bmm(x, y, name=None) -> Variable:
    """fluid.layers.bmm: `bmm` of [B, M, K] and [B, K, N]."""
    x_shape, y_shape = list(x.shape), list(y.shape)
    if not len(x_shape) == len(y_shape) == 3:
        raise ValueError("x and y should be 3-dimensional. But received x's dimention: %s, y's dimention: %s"
                         % (x_shape, y_shape))
    if x_shape[2] != y_shape[1]:
        raise ValueError("x's width must be equal with y's height. But received x's shape: %s, y's shape: %s"
                         % (x_shape, y_shape))
    helper = LayerHelper('bmm', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('bmm', {'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def reduce_all(input, dim=None, keep_dim=False, name=None) -> Variable:
    """fluid.layers.reduce_all: `reduce_all` (dim [0] and reduce_all=True when dim is None or [])."""
    from .math import reduce_op
    return reduce_op('reduce_all', input, dim, keep_dim, name)


def reduce_any(input, dim=None, keep_dim=False, name=None) -> Variable:
    """fluid.layers.reduce_any: `reduce_any`, attributes as reduce_all."""
    from .math import reduce_op
    return reduce_op('reduce_any', input, dim, keep_dim, name)


def isfinite(x) -> Variable:
    """fluid.layers.isfinite: a bool [1], whether every element of x is finite (`isfinite`)."""
    from .nn import check_variable_and_dtype
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], 'isfinite')
    helper = LayerHelper('isfinite')
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op('isfinite', {'X': [x]}, {'Out': [out]})
    return out


def _overflow(op_type: str, x) -> Variable:
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]})
    return out


def has_nan(x) -> Variable:
    """fluid.layers.has_nan: a bool [1], whether x holds a nan (`isnan`)."""
    return _overflow('isnan', x)


def has_inf(x) -> Variable:
    """fluid.layers.has_inf: a bool [1], whether x holds an inf (`isinf`)."""
    return _overflow('isinf', x)


def size(input) -> Variable:
    """fluid.layers.size: the element count, an int64 [1] tensor (the `size` op)."""
    check_variable(input, 'input', 'size')
    helper = LayerHelper('size')
    out = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('size', {'Input': [input]}, {'Out': [out]})
    return out


def rank(input) -> Variable:
    """fluid.layers.rank: the static rank of `input` as an int32 tensor of shape [] (`assign_value`)."""
    check_variable(input, 'input', 'rank')
    return assign(np.array(len(input.shape), 'int32'))


def is_empty(x, cond=None) -> Variable:
    """fluid.layers.is_empty: a bool [1], whether x has no elements at run time (`is_empty`)."""
    check_variable(x, 'x', 'is_empty')
    helper = LayerHelper('is_empty')
    if cond is None:
        cond = helper.create_variable_for_type_inference(VarType.BOOL, stop_gradient=True)
    elif len(cond.shape) != 1 or cond.shape[0] != 1:
        raise TypeError('cond of is_empty must be a bool Variable of shape [1], but received shape %s'
                        % list(cond.shape))
    helper.append_op('is_empty', {'X': [x]}, {'Out': [cond]})
    return cond


__all__ += ['gather_nd', 'scatter', 'scatter_nd_add', 'index_select', 'flip', 'roll', 'tril', 'triu', 'cumsum',
            'arange', 'eye', 'linspace', 'randint', 'uniform_random', 'gaussian_random', 'log1p', 'erf', 'logsumexp',
            'dot', 'bmm', 'reduce_all', 'reduce_any', 'isfinite', 'has_nan', 'has_inf', 'size', 'rank', 'is_empty']
