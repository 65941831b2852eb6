"""Shape manipulation with fluid 1.x signatures: reshape, transpose, squeeze / unsqueeze, flatten, concat / split,
stack / unstack, expand, reverse, flip, roll.

Each builder emits the op Paddle 1.8 emits, named the way Paddle names it: a LayerHelper of the layer type Paddle
uses (`reshape2` for reshape, `transpose` for transpose2, `unsqueeze2` for unsqueeze, ...), so outputs are
`reshape2_0.tmp_0`, intermediates such as XShape `reshape2_0.tmp_1`. Shape-like arguments may hold Variables
(creation.py's `...TensorList` rule).
"""
from __future__ import annotations

import builtins
import warnings

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .checks import check_variable, contains_var
from .creation import attr_with_holes, tensor_list
from .helper import LayerHelper, named_output


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
        if contains_var(shape):
            inputs['ShapeTensor'] = tensor_list(shape)
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
    elif contains_var(axes):
        inputs['AxesTensorList'] = tensor_list(axes)
    else:
        attrs['axes'] = [int(a) for a in axes]
    return _xshape_op(helper, 'unsqueeze2', input, attrs, inputs)


def flatten(x, axis=1, name=None) -> Variable:
    """fluid.layers.flatten: `flatten2` to 2-D, [prod(dims[:axis]), prod(dims[axis:])]."""
    check_variable(x, 'x', 'flatten')
    if not isinstance(axis, int) or axis > len(x.shape) or axis < 0:
        raise ValueError('The axis should be a int, and in range [0, rank(x)]')
    return _xshape_op(LayerHelper('flatten', name=name), 'flatten2', x, {'axis': axis})


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
        attrs['sections'] = attr_with_holes(num_or_sections)
        if contains_var(num_or_sections):
            unknown = [i for i, s in enumerate(num_or_sections) if not isinstance(s, Variable) and s == -1]
            assert len(unknown) <= 1, ("Only one value of 'num_or_section' in split can be -1. But received "
                                       "num_or_section[%d] is also -1." % (unknown[-1] if unknown else -1))
            inputs['SectionsTensorList'] = tensor_list(num_or_sections)
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
        attrs['expand_times'] = attr_with_holes(expand_times)
        if contains_var(expand_times):
            inputs['expand_times_tensor'] = tensor_list(expand_times)
    else:
        raise TypeError("The type of 'expand_times' in expand must be list, tuple or Variable, but received %s."
                        % type(expand_times))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('expand', inputs, {'Out': [out]}, attrs)
    return out


def reverse(x, axis) -> Variable:
    """fluid.layers.reverse: `reverse` along the given axes."""
    if isinstance(axis, int):
        axis = [axis]
    helper = LayerHelper('reverse')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('reverse', {'X': [x]}, {'Out': [out]}, {'axis': list(axis)})
    return out


def flip(input, dims, name=None) -> Variable:
    """fluid.layers.flip: `flip` with 1.8's attribute `dims`."""
    check_variable(input, 'X', 'flip')
    if not isinstance(dims, (list, tuple)):
        raise TypeError("The type of 'dims' in flip must be (<class 'list'>, <class 'tuple'>), but received %s. "
                        % type(dims))
    assert len(dims) > 0, 'len(dims) must be greater than 0.'
    helper = LayerHelper('flip', name=name)
    out = named_output(helper, input.dtype, name)
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
