"""Sequence (LoD) builders with fluid 1.8's signatures, argument checks and names: the sequence_* layers of
fluid.layers.sequence_lod (paddle.static.nn.sequence_* in 2.x) and lod_reset / lod_append.

Each appends the op of ops/sequence_pool.py or ops/sequence_rows.py exactly as 1.8's builder does (same slots,
attributes and temporaries, so names such as `sequence_conv_0.w_0` and `sequence_pool_0.tmp_0` match a Paddle run).
sequence_conv adds its bias (elementwise_add) and activation as 1.8 does; sequence_first_step and
sequence_last_step are sequence_pool with FIRST / LAST.
"""
from __future__ import annotations

from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from .checks import check_variable, check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['sequence_conv', 'sequence_softmax', 'sequence_pool', 'sequence_concat', 'sequence_first_step',
           'sequence_last_step', 'sequence_slice', 'sequence_expand', 'sequence_expand_as', 'sequence_pad',
           'sequence_unpad', 'sequence_reshape', 'sequence_scatter', 'sequence_enumerate', 'sequence_mask',
           'sequence_reverse', 'lod_reset', 'lod_append']

_FLOATS = ['float32', 'float64']
_NUMBERS = ['float32', 'float64', 'int32', 'int64']


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True, padding_start=None,
                  bias_attr=None, param_attr=None, act=None, name=None) -> Variable:
    """A context window of `filter_size` rows around each row of each sequence, times a [filter_size * D,
    num_filters] filter; bias and activation follow (fluid.layers.sequence_conv)."""
    check_variable_and_dtype(input, 'input', _FLOATS, 'sequence_conv')
    helper = LayerHelper('sequence_conv', input=input, param_attr=param_attr, bias_attr=bias_attr, act=act,
                         name=name)
    dtype = helper.input_dtype()
    filter_shape = [filter_size * input.shape[1], num_filters]
    filter_param = helper.create_parameter(attr=param_attr, shape=filter_shape, dtype=dtype)
    pre_bias = helper.create_variable_for_type_inference(dtype)
    if padding_start is None:
        padding_start = -int(filter_size // 2)
    helper.append_op('sequence_conv', {'X': [input], 'Filter': [filter_param]}, {'Out': [pre_bias]},
                     {'contextStride': filter_stride, 'contextStart': padding_start, 'contextLength': filter_size})
    pre_act = helper.append_bias_op(pre_bias)
    return helper.append_activation(pre_act)


def sequence_softmax(input, use_cudnn=False, name=None) -> Variable:
    """Softmax over each sequence of a [rows, 1] (or [rows]) LoD tensor."""
    check_variable_and_dtype(input, 'input', _FLOATS, 'sequence_softmax')
    helper = LayerHelper('sequence_softmax', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_softmax', {'X': [input]}, {'Out': [out]}, {'use_cudnn': use_cudnn})
    return out


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0) -> Variable:
    """One row per sequence: sum, average, sqrt, max, first or last of its rows (`pad_value` for an empty one)."""
    check_variable_and_dtype(input, 'input', ['float32'], 'sequence_pool')
    helper = LayerHelper('sequence_pool', input=input)
    dtype = helper.input_dtype()
    pool_out = helper.create_variable_for_type_inference(dtype)
    max_index = helper.create_variable_for_type_inference(dtype)
    helper.append_op('sequence_pool', {'X': [input]}, {'Out': [pool_out], 'MaxIndex': [max_index]},
                     {'pooltype': pool_type.upper(), 'is_test': is_test, 'pad_value': pad_value})
    if pool_type == 'max':       # the index is an integer output of the op: nothing to differentiate
        max_index.stop_gradient = True
    return pool_out


def sequence_first_step(input) -> Variable:
    check_variable_and_dtype(input, 'input', _FLOATS, 'sequence_first_step')
    return sequence_pool(input=input, pool_type='first')


def sequence_last_step(input) -> Variable:
    check_variable_and_dtype(input, 'input', _FLOATS, 'sequence_last_step')
    return sequence_pool(input=input, pool_type='last')


def sequence_concat(input, name=None) -> Variable:
    """Sequence i of the output is sequence i of every input, one after the other."""
    if not isinstance(input, list):
        raise TypeError("The type of 'input' in fluid.layers.sequence_concat must be %s, but received %s. "
                        % (list, type(input)))
    for i, x in enumerate(input):
        check_variable(x, 'input[%d]' % i, 'fluid.layers.sequence_concat')
        if convert_dtype(x.dtype) not in ('int64', 'float32', 'float64'):
            raise TypeError("The data type of 'input[%d]' in fluid.layers.sequence_concat must be ['int64', "
                            "'float32', 'float64'], but received %s. " % (i, convert_dtype(x.dtype)))
    helper = LayerHelper('sequence_concat', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_concat', {'X': list(input)}, {'Out': [out]})
    return out


def sequence_slice(input, offset, length, name=None) -> Variable:
    check_variable_and_dtype(input, 'input', _NUMBERS, 'sequence_slice')
    check_variable_and_dtype(offset, 'offset', ['int32', 'int64'], 'sequence_slice')
    check_variable_and_dtype(length, 'length', ['int32', 'int64'], 'sequence_slice')
    helper = LayerHelper('sequence_slice', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    offset.stop_gradient = True
    length.stop_gradient = True
    helper.append_op('sequence_slice', {'X': [input], 'Offset': [offset], 'Length': [length]}, {'Out': [out]})
    return out


def sequence_expand(x, y, ref_level=-1, name=None) -> Variable:
    """Each sequence of x (each row, without LoD) repeated as often as level `ref_level` of y says."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'sequence_expand')
    helper = LayerHelper('sequence_expand', input=x, name=name)
    tmp = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_expand', {'X': [x], 'Y': [y]}, {'Out': [tmp]}, {'ref_level': ref_level})
    return tmp


def sequence_expand_as(x, y, name=None) -> Variable:
    """Row i of x repeated over the rows of sequence i of y."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'sequence_expand_as')
    check_variable(y, 'y', 'sequence_expand_as')
    helper = LayerHelper('sequence_expand_as', input=x, name=name)
    tmp = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_expand_as', {'X': [x], 'Y': [y]}, {'Out': [tmp]})
    return tmp


def sequence_pad(x, pad_value, maxlen=None, name=None) -> tuple[Variable, Variable]:
    """(Out [sequences, maxlen, ...] padded with pad_value, Length [sequences] int64)."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'fluid.layers.sequence_pad')
    check_variable_and_dtype(pad_value, 'pad_value', _NUMBERS, 'fluid.layers.sequence_pad')
    helper = LayerHelper('sequence_pad', input=x, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    length = helper.create_variable_for_type_inference(VarType.INT64)
    pad_value.stop_gradient = True
    length.stop_gradient = True
    helper.append_op('sequence_pad', {'X': [x], 'PadValue': [pad_value]}, {'Out': [out], 'Length': [length]},
                     {'padded_length': -1 if maxlen is None else maxlen})
    return out, length


def sequence_unpad(x, length, name=None) -> Variable:
    """The first length[i] steps of x[i], as a LoD tensor."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'fluid.layers.sequence_unpad')
    check_variable_and_dtype(length, 'length', ['int64'], 'fluid.layers.sequence_unpad')
    helper = LayerHelper('sequence_unpad', input=x, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    length.stop_gradient = True
    helper.append_op('sequence_unpad', {'X': [x], 'Length': [length]}, {'Out': [out]})
    return out


def sequence_reshape(input, new_dim) -> Variable:
    check_variable_and_dtype(input, 'input', _NUMBERS, 'fluid.layers.sequence_reshape')
    helper = LayerHelper('sequence_reshape', input=input)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_reshape', {'X': [input]}, {'Out': [out]}, {'new_dim': new_dim})
    return out


def sequence_scatter(input, index, updates, name=None) -> Variable:
    check_variable_and_dtype(input, 'input', _NUMBERS, 'sequence_scatter')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'sequence_scatter')
    check_variable_and_dtype(updates, 'updates', _NUMBERS, 'sequence_scatter')
    helper = LayerHelper('sequence_scatter', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op('sequence_scatter', {'X': [input], 'Ids': [index], 'Updates': [updates]}, {'Out': [out]})
    return out


def sequence_enumerate(input, win_size, pad_value=0, name=None) -> Variable:
    check_variable_and_dtype(input, 'input', ['int32', 'int64'], 'sequence_enumerate')
    helper = LayerHelper('sequence_enumerate', input=input, name=name)
    out = helper.create_variable_for_type_inference(helper.input_dtype(), stop_gradient=True)
    helper.append_op('sequence_enumerate', {'X': [input]}, {'Out': [out]},
                     {'win_size': win_size, 'pad_value': pad_value})
    return out


def sequence_mask(x, maxlen=None, dtype='int64', name=None) -> Variable:
    """y[..., j] = j < x[...] (maxlen: an int, a Variable, or None for the largest length)."""
    helper = LayerHelper('sequence_mask', x=x, name=name)
    out = helper.create_variable_for_type_inference(dtype)
    inputs = {'X': [x]}
    attrs = {'out_dtype': out.dtype}
    if maxlen is not None:
        if isinstance(maxlen, Variable):
            inputs['MaxLenTensor'] = [maxlen]
        else:
            attrs['maxlen'] = maxlen
    helper.append_op('sequence_mask', inputs, {'Y': [out]}, attrs)
    out.stop_gradient = True
    return out


def sequence_reverse(x, name=None) -> Variable:
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int8', 'int32', 'int64'],
                             'fluid.layers.sequence_reverse')
    helper = LayerHelper('sequence_reverse', x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('sequence_reverse', {'X': [x]}, {'Y': [out]}, {})
    return out


def lod_reset(x, y=None, target_lod=None) -> Variable:
    """x with the LoD of y (or y's data as offsets when y has none), or `target_lod` (offsets)."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'lod_reset')
    helper = LayerHelper('lod_reset', x=x)
    out = helper.create_variable_for_type_inference(x.dtype)
    if y is not None:
        check_variable(y, 'y', 'lod_reset')
        helper.append_op('lod_reset', {'X': [x], 'Y': [y]}, {'Out': [out]})
    elif target_lod is not None:
        helper.append_op('lod_reset', {'X': [x]}, {'Out': [out]}, {'target_lod': list(target_lod)})
    else:
        raise ValueError('y and target_lod should not be both none.')
    return out


def lod_append(x, level) -> Variable:
    """x with one more LoD level below its own: `level` (offsets, a list) or the LoD / data of a Variable."""
    if x is None:
        raise ValueError("Input(x) can't be None.")
    if not isinstance(level, (list, tuple, Variable)):
        raise ValueError('Input(level) must be list, tuple or Variable.')
    check_variable_and_dtype(x, 'x', _NUMBERS, 'lod_append')
    helper = LayerHelper('lod_append', x=x)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x]}
    attrs = {'append': True}
    if isinstance(level, Variable):
        inputs['Y'] = [level]
    else:
        attrs['target_lod'] = list(level)
    helper.append_op('lod_reset', inputs, {'Out': [out]}, attrs)
    return out
