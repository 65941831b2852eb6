"""paddle.* manipulation functions (2.x signatures) over the shared tensor layers.

The 2.x differences from fluid.layers: `split` defaults to axis 0, `squeeze` takes `axis` (None: every size-1
dim), `flatten` merges start_axis..stop_axis (`flatten_contiguous_range`), `gather` takes an `axis` and sums the
gradient of duplicated indices (`overwrite=False`), `expand` takes a target shape (`expand_v2`), `tile` takes
repeat counts, and `cast` keeps the input's stop_gradient.
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from ..framework.variable import Variable
from ..layers import attribute as _attribute
from ..layers import indexing as _indexing
from ..layers import manipulation as _manipulation
from ..layers.checks import check_variable
from ..layers.creation import tensor_list
from ..layers.helper import LayerHelper

__all__ = ['concat', 'split', 'chunk', 'reshape', 'transpose', 'squeeze', 'unsqueeze', 'flatten', 'stack', 'unstack',
           'gather', 'cast', 'slice', 'strided_slice', 'expand', 'tile', 'flip', 'shape']

shape = _attribute.shape
slice = _indexing.slice
unstack = _manipulation.unstack


def concat(x, axis=0, name=None) -> Variable:
    """`concat` of the tensors in `x` along `axis` (an int or an int Variable)."""
    if not isinstance(x, Variable):
        dtypes = {v.dtype for v in x}
        if len(dtypes) > 1:
            raise TypeError('All the Tensors in the input must have the same data type.')
    return _manipulation.concat(x, axis=axis, name=name)


def split(x, num_or_sections, axis=0, name=None) -> list:
    """`split` into `num_or_sections` equal parts or parts of the given sizes (one may be -1) along `axis`."""
    return _manipulation.split(x, num_or_sections, dim=axis, name=name)


def chunk(x, chunks, axis=0, name=None) -> list:
    if not isinstance(chunks, int):
        raise TypeError("The type of 'chunks' in chunk must be int, but received %s." % type(chunks))
    return split(x, chunks, axis, name)


def reshape(x, shape, name=None) -> Variable:
    """`reshape2`: 0 copies a dim, one -1 is inferred; `shape` may hold or be Variables."""
    return _manipulation.reshape(x, shape, name=name)


def transpose(x, perm, name=None) -> Variable:
    return _manipulation.transpose(x, list(perm), name=name)


def squeeze(x, axis=None, name=None) -> Variable:
    """`squeeze2` of the size-1 dims in `axis` (an int, a list, or None for all of them)."""
    if axis is None:
        axis = []
    elif isinstance(axis, int):
        axis = [axis]
    return _manipulation.squeeze(x, list(axis), name=name)


def unsqueeze(x, axis, name=None) -> Variable:
    return _manipulation.unsqueeze(x, axis, name=name)


def flatten(x, start_axis=0, stop_axis=-1, name=None) -> Variable:
    """`flatten_contiguous_range`: dims start_axis..stop_axis merged into one."""
    check_variable(x, 'x', 'flatten')
    rank = len(x.shape)
    if not isinstance(start_axis, int) or start_axis > rank - 1 or start_axis < -rank:
        raise ValueError('The start_axis should be a int, and in range [-rank(x), rank(x))')
    if not isinstance(stop_axis, int) or stop_axis > rank - 1 or stop_axis < -rank:
        raise ValueError('The stop_axis should be a int, and in range [-rank(x), rank(x))')
    start_axis = start_axis + rank if start_axis < 0 else start_axis
    stop_axis = stop_axis + rank if stop_axis < 0 else stop_axis
    if start_axis > stop_axis:
        raise ValueError('The stop_axis should be larger than stat_axis')
    helper = LayerHelper('flatten', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    x_shape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('flatten_contiguous_range', {'X': [x]}, {'Out': [out], 'XShape': [x_shape]},
                     {'start_axis': start_axis, 'stop_axis': stop_axis})
    return out


def stack(x, axis=0, name=None) -> Variable:
    return _manipulation.stack(x, axis=axis, name=name)


def gather(x, index, axis=None, name=None) -> Variable:
    """`gather` of `x` at `index` along `axis` (an int or an int Variable; default 0). Duplicated indices sum their
    gradients (Paddle 2.x passes overwrite=False)."""
    axis = 0 if axis is None else axis
    helper = LayerHelper('gather', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x], 'Index': [index]}
    if isinstance(axis, Variable):
        inputs['Axis'] = [axis]
        attrs = {'overwrite': False}
    else:
        attrs = {'axis': axis, 'overwrite': False}
    helper.append_op('gather', inputs, {'Out': [out]}, attrs)
    return out


def cast(x, dtype) -> Variable:
    """`cast` to `dtype`; the output keeps the input's stop_gradient (Paddle 2.x)."""
    check_variable(x, 'x', 'cast')
    helper = LayerHelper('cast')
    out = helper.create_variable_for_type_inference(to_var_type(dtype), stop_gradient=x.stop_gradient)
    helper.append_op('cast', {'X': [x]}, {'Out': [out]}, {'in_dtype': int(x.dtype), 'out_dtype': int(out.dtype)})
    return out


def strided_slice(x, axes, starts, ends, strides, name=None) -> Variable:
    return _indexing.strided_slice(x, axes, starts, ends, strides)


def _shape_like_input(inputs, attrs, values, attr_name, whole_slot, list_slot, hole):
    if isinstance(values, Variable):
        values.stop_gradient = True
        inputs[whole_slot] = [values]
        return
    values = list(values)
    attrs[attr_name] = [hole if isinstance(v, Variable) else int(v) for v in values]
    if any(isinstance(v, Variable) for v in values):
        inputs[list_slot] = tensor_list(values)


def expand(x, shape, name=None) -> Variable:
    """`expand_v2`: broadcast `x` to `shape` (-1 keeps a dim of x; entries may be Variables)."""
    check_variable(x, 'x', 'expand')
    if isinstance(shape, (list, tuple)):
        for s in shape:
            if not isinstance(s, Variable):
                assert s > 0 or s == -1, 'All elements in shape of expand must be positive or -1.'
    helper = LayerHelper('expand', name=name)
    inputs, attrs = {'X': [x]}, {}
    _shape_like_input(inputs, attrs, shape, 'shape', 'Shape', 'expand_shapes_tensor', -2)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('expand_v2', inputs, {'Out': [out]}, attrs)
    return out


def tile(x, repeat_times, name=None) -> Variable:
    """`tile`: repeat `x` `repeat_times[i]` times along dim i (counts left-padded with 1, or x's dims)."""
    check_variable(x, 'x', 'tile')
    helper = LayerHelper('tile', name=name)
    inputs, attrs = {'X': [x]}, {}
    _shape_like_input(inputs, attrs, repeat_times, 'repeat_times', 'RepeatTimes', 'repeat_times_tensor', -1)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('tile', inputs, {'Out': [out]}, attrs)
    return out


def flip(x, axis, name=None) -> Variable:
    """`flip` along `axis` (an int or a list)."""
    if isinstance(axis, int):
        axis = [axis]
    helper = LayerHelper('flip', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('flip', {'X': [x]}, {'Out': [out]}, {'axis': list(axis)})
    return out


# --- indexing (Paddle 2.4's static-mode builders) --------------------------------------------------------------------

def gather_nd(x, index, name=None) -> Variable:
    """`gather_nd`: x[index[..., :k]], shape index.shape[:-1] + x.shape[k:]."""
    return _indexing.gather_nd(x, index, name)


def scatter(x, index, updates, overwrite=True, name=None) -> Variable:
    """`scatter` of the rows `updates` at `index` (a 1-D int tensor); overwrite=False sums duplicates."""
    return _indexing.scatter(x, index, updates, name, overwrite)


def scatter_nd_add(x, index, updates, name=None) -> Variable:
    """`scatter_nd_add`: `updates` added into a copy of `x` at the coordinates `index[..., :k]`."""
    return _indexing.scatter_nd_add(x, index, updates, name)


def roll(x, shifts, axis=None, name=None) -> Variable:
    """`roll` with attrs shifts and axis (empty: the flattened tensor rolls); a Variable `shifts` is ShiftsTensor."""
    check_variable(x, 'x', 'roll')
    rank = len(x.shape)
    shifts = [shifts] if isinstance(shifts, int) else shifts
    axis = [axis] if isinstance(axis, int) else axis
    if axis is not None:
        for a in axis:
            if a >= rank or a < -rank:
                raise ValueError('axis is out of range, it should be in range [%d, %d), but received %s'
                                 % (-rank, rank, axis))
    else:
        axis = []
    if not isinstance(axis, (list, tuple)):
        raise TypeError("The type of 'axis' in roll must be (<class 'list'>, <class 'tuple'>), but received %s. "
                        % type(axis))
    helper = LayerHelper('roll', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    if isinstance(shifts, Variable):
        helper.append_op('roll', {'X': [x], 'ShiftsTensor': [shifts]}, {'Out': [out]}, {'axis': list(axis)})
    else:
        if not isinstance(shifts, (list, tuple)):
            raise TypeError("The type of 'shifts' in roll must be (<class 'list'>, <class 'tuple'>), but received "
                            '%s. ' % type(shifts))
        helper.append_op('roll', {'X': [x]}, {'Out': [out]}, {'axis': list(axis), 'shifts': list(shifts)})
    return out


__all__ += ['gather_nd', 'scatter', 'scatter_nd_add', 'roll']
