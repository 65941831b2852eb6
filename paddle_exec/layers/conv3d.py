"""3-D convolution and pooling, and adaptive pooling, with fluid 1.x signatures: conv3d, conv3d_transpose, pool3d,
adaptive_pool2d, adaptive_pool3d; and the N-D padding rule they share with paddle.nn.functional
(`normalize_padding_nd`, Paddle 2.x's `_update_padding_nd`).

Each builder appends what Paddle 1.8.5 appends: conv3d's filter `conv3d_N.w_0` (Normal(0, sqrt(2 / fan_in))),
conv3d_transpose's `conv3d_transpose_N.w_0` (Xavier), the bias added by `elementwise_add` on the channel axis,
then the activation. As in 1.8.5, conv3d_transpose hands its op the 2-D names of the layouts ('NCHW' / 'NHWC');
the op reads them as NCDHW / NDHWC. Adaptive max pooling is `max_pool2d_with_index` / `max_pool3d_with_index`
(whose Mask, an index, is declared int32 here), adaptive avg pooling `pool2d` / `pool3d` with adaptive=True.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..initializer import NormalInitializer
from .checks import check_type, check_variable_and_dtype, to_int_list
from .conv import pool_nd_op
from .helper import LayerHelper


def _is_seq(v) -> bool:
    return isinstance(v, (list, tuple))


def normalize_padding_nd(padding, channel_last: bool, num_dims: int, what: str = 'padding', ceil_mode: bool = False):
    """Paddle's `_update_padding_nd`: (paddings, padding_algorithm). 'SAME' / 'VALID'; an int; num_dims values;
    2 * num_dims values (kept as num_dims when symmetric); or num_dims + 2 pairs including zero pairs for the batch
    and channel dimensions."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ('SAME', 'VALID'):
            raise ValueError("Unknown %s: '%s'. It can only be 'SAME' or 'VALID'." % (what, padding))
        if algo == 'VALID' and ceil_mode:
            raise ValueError('When Attr(%s) is "VALID", Attr(ceil_mode) must be False. Received ceil_mode: True.'
                             % what)
        return [0] * num_dims, algo
    if _is_seq(padding):
        if len(padding) == num_dims + 2 and _is_seq(padding[0]):
            skip = (0, num_dims + 1) if channel_last else (0, 1)
            if any(list(padding[i]) != [0, 0] for i in skip):
                raise ValueError('Non-zero %s(%s) in the batch or channel dimensions is not supported.'
                                 % (what, padding))
            padding = [int(p) for i, pair in enumerate(padding) if i not in skip for p in pair]
        elif len(padding) == 2 * num_dims and not _is_seq(padding[0]):
            padding = to_int_list(padding, 2 * num_dims, what)
        elif len(padding) == num_dims and not _is_seq(padding[0]):
            padding = to_int_list(padding, num_dims, what)
        elif len(padding) == 1 and not _is_seq(padding[0]):
            padding = to_int_list(padding[0], num_dims, what)
        else:
            raise ValueError('In valid padding: %s' % (padding,))
        if len(padding) == 2 * num_dims and all(padding[2 * i] == padding[2 * i + 1] for i in range(num_dims)):
            padding = padding[0::2]
    else:
        padding = to_int_list(padding, num_dims, what)
    if not all(p >= 0 for p in padding):
        raise ValueError('Invalid padding, all value should be larger than or equal to 0, but received: %s'
                         % (padding,))
    return padding, 'EXPLICIT'


def _check_format(data_format, formats, api):
    if data_format not in formats:
        raise ValueError("Attr(data_format) should be %s. Received Attr(data_format): %s."
                         % (' or '.join("'%s'" % f for f in formats), data_format))


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format='NCDHW'):
    """fluid.layers.conv3d: `conv3d` with filter `conv3d_N.w_0` [num_filters, C / groups, kd, kh, kw] drawn from
    Normal(0, sqrt(2 / (kd * kh * kw * C))), the bias `.b_0` on the channel axis, then the activation."""
    if param_attr is False:
        raise AssertionError('param_attr should not be False here.')
    if not isinstance(use_cudnn, bool):
        raise ValueError('Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): %s. ' % str(use_cudnn))
    _check_format(data_format, ('NCDHW', 'NDHWC'), 'conv3d')
    if len(input.shape) != 5:
        raise ValueError('conv3d: the input must be 5-D (%s), got shape %s' % (data_format, list(input.shape)))
    channel_last = data_format == 'NDHWC'
    num_channels = input.shape[4] if channel_last else input.shape[1]
    if num_channels < 0:
        raise ValueError('The channel dimmention of the input(%s) should be defined. Received: %s.'
                         % (str(input.shape), str(num_channels)))
    if groups is None:
        num_filter_channels = num_channels
    else:
        if num_channels % groups != 0:
            raise ValueError('The number of input channels must be divisible by Attr(groups). Received: number of '
                             'channels(%s), groups(%s).' % (str(num_channels), str(groups)))
        num_filter_channels = num_channels // groups
    helper = LayerHelper('conv3d', param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    filter_size = to_int_list(filter_size, 3, 'filter_size')
    paddings, algorithm = normalize_padding_nd(padding, channel_last, 3)
    std = (2.0 / (filter_size[0] * filter_size[1] * filter_size[2] * num_channels)) ** 0.5
    w = helper.create_parameter(param_attr, [num_filters, num_filter_channels] + filter_size, input.dtype,
                                default_initializer=NormalInitializer(0.0, std, 0))
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('conv3d', {'Input': [input], 'Filter': [w]}, {'Output': [pre_bias]},
                     {'strides': to_int_list(stride, 3, 'stride'), 'paddings': paddings,
                      'dilations': to_int_list(dilation, 3, 'dilation'), 'groups': groups, 'use_cudnn': use_cudnn,
                      'use_mkldnn': False, 'padding_algorithm': algorithm, 'data_format': data_format})
    pre_act = helper.append_bias_op(pre_bias, dim_start=4 if channel_last else 1, dim_end=5 if channel_last else 2)
    return helper.append_activation(pre_act)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format='NCDHW'):
    """fluid.layers.conv3d_transpose: `conv3d_transpose` with filter [C, num_filters / groups, kd, kh, kw]
    (Xavier); without filter_size it is derived from output_size, as Paddle does."""
    if param_attr is False:
        raise AssertionError('param_attr should not be False in conv3d_transpose.')
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError('Param(data_format) of Op(fluid.layers.conv3d_transpose) got wrong value: received '
                         + data_format + ' but only NCDHW or NDHWC supported.')
    if not isinstance(input, Variable):
        raise TypeError('Input of conv3d_transpose must be Variable')
    channel_last = data_format == 'NDHWC'
    input_channel = input.shape[-1] if channel_last else input.shape[1]
    stride = to_int_list(stride, 3, 'stride')
    dilation = to_int_list(dilation, 3, 'dilation')
    if not isinstance(use_cudnn, bool):
        raise ValueError('use_cudnn should be True or False')
    paddings, algorithm = normalize_padding_nd(padding, channel_last, 3)
    full = paddings if len(paddings) == 6 else [p for p in paddings for _ in (0, 1)]
    if filter_size is None:
        if output_size is None:
            raise ValueError('output_size must be set when filter_size is None')
        output_size = to_int_list(output_size, 3, 'output_size')
        spatial = input.shape[1:4] if channel_last else input.shape[2:5]
        filter_size = [(output_size[i] - (spatial[i] - 1) * stride[i] + full[2 * i] + full[2 * i + 1] - 1)
                       // dilation[i] + 1 for i in range(3)]
    else:
        filter_size = to_int_list(filter_size, 3, 'conv3d_transpose.filter_size')
    if output_size is None:
        output_size = []
    elif isinstance(output_size, (list, tuple, int)):
        output_size = to_int_list(output_size, 3, 'output_size')
    else:
        raise ValueError('output_size should be int, list[int] or tuple[int]')
    groups = 1 if groups is None else int(groups)
    helper = LayerHelper('conv3d_transpose', param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    w = helper.create_parameter(param_attr, [input_channel, num_filters // groups] + filter_size, input.dtype)
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('conv3d_transpose', {'Input': [input], 'Filter': [w]}, {'Output': [pre_bias]},
                     {'output_size': output_size, 'strides': stride, 'paddings': paddings,
                      'padding_algorithm': algorithm, 'dilations': dilation, 'groups': groups,
                      'use_cudnn': use_cudnn, 'data_format': 'NHWC' if channel_last else 'NCHW'})
    pre_act = helper.append_bias_op(pre_bias, dim_start=4 if channel_last else 1, dim_end=5 if channel_last else 2)
    return helper.append_activation(pre_act)


def pool3d(input, pool_size=-1, pool_type='max', pool_stride=1, pool_padding=0, global_pooling=False,
           use_cudnn=True, ceil_mode=False, name=None, exclusive=True, data_format='NCDHW'):
    """fluid.layers.pool3d: one `pool3d` op (max or avg)."""
    if pool_type not in ('max', 'avg'):
        raise ValueError("Unknown Attr(pool_type): '%s'. It can only be 'max' or 'avg'." % str(pool_type))
    if global_pooling is False and pool_size == -1:
        raise ValueError('When Attr(global_pooling) is False, Attr(pool_size) must be passed and be a valid value. '
                         'Received Attr(pool_size): %s.' % str(pool_size))
    if not isinstance(use_cudnn, bool):
        raise TypeError('Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): %s. ' % str(use_cudnn))
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s"
                         % str(data_format))
    pool_size = to_int_list(pool_size, 3, 'pool_size')
    pool_stride = to_int_list(pool_stride, 3, 'pool_stride')
    paddings, algorithm = normalize_padding_nd(pool_padding, data_format == 'NDHWC', 3, 'pool_padding', ceil_mode)
    return pool_nd_op('pool3d', input, pool_type, pool_size, pool_stride, paddings, algorithm, global_pooling,
                      use_cudnn, ceil_mode, exclusive, data_format, name=name)


def max_pool_with_index_op(rank: int, x, ksize, strides, paddings, adaptive: bool, global_pooling=False,
                           name=None, helper_name=None):
    """Appends `max_pool2d_with_index` (rank 2) or `max_pool3d_with_index` (rank 3); returns (Out, Mask)."""
    op_type = 'max_pool%dd_with_index' % rank
    helper = LayerHelper(helper_name or op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out], 'Mask': [mask]},
                     {'pooling_type': 'max', 'ksize': list(ksize), 'global_pooling': bool(global_pooling),
                      'strides': list(strides), 'paddings': list(paddings), 'adaptive': bool(adaptive)})
    return out, mask


def _adaptive_pool(rank: int, input, pool_size, pool_type, require_index, api: str):
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64', 'int32', 'int64'], api)
    check_type(pool_type, 'pool_type', str, api)
    check_type(pool_size, 'pool_size', (int, list, tuple), api)
    check_type(require_index, 'require_index', bool, api)
    if pool_type not in ('max', 'avg'):
        raise ValueError("Unknown pool_type: '%s'. It can only be 'max' or 'avg'." % str(pool_type))
    if pool_type == 'avg' and require_index:
        raise ValueError("invalid setting 'require_index' true when 'pool_type' is 'avg'.")
    pool_size = to_int_list(pool_size, rank, 'pool_size')
    if pool_type == 'max':
        out, mask = max_pool_with_index_op(rank, input, pool_size, [1] * rank, [0] * rank, True)
        return (out, mask) if require_index else out
    op_type = 'pool%dd' % rank
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, {'X': [input]}, {'Out': [out]},
                     {'pooling_type': 'avg', 'ksize': pool_size, 'adaptive': True})
    return out


def adaptive_pool2d(input, pool_size, pool_type='max', require_index=False, name=None):
    """fluid.layers.adaptive_pool2d: output [N, C] + pool_size; max is `max_pool2d_with_index` (require_index
    returns the Mask too), avg is `pool2d` with adaptive=True."""
    return _adaptive_pool(2, input, pool_size, pool_type, require_index, 'adaptive_pool2d')


def adaptive_pool3d(input, pool_size, pool_type='max', require_index=False, name=None):
    """fluid.layers.adaptive_pool3d: the 3-D form of adaptive_pool2d (`max_pool3d_with_index` / `pool3d`)."""
    return _adaptive_pool(3, input, pool_size, pool_type, require_index, 'adaptive_pool3d')
