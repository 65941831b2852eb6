"""Convolution and pooling with fluid 1.x signatures: conv2d, conv2d_transpose, pool2d; and the padding rules
they share with paddle.nn.functional (`normalize_padding_2d`).

Each builder appends the ops Paddle 1.8.5 appends: the filter `conv2d_N.w_0` (Normal(0, sqrt(2 / fan_in)) for
conv2d, Xavier for conv2d_transpose), the bias `.b_0` added by `elementwise_add` on the channel axis, then the
activation; `depthwise_conv2d` / `depthwise_conv2d_transpose` when groups == channels and use_cudnn is False.
"""
from __future__ import annotations

from ..framework.variable import Variable
from ..initializer import NormalInitializer
from .checks import check_variable_and_dtype, to_int_list
from .helper import LayerHelper


def _is_seq(v) -> bool:
    return isinstance(v, (list, tuple))


def normalize_padding_2d(padding, data_format: str, ceil_mode: bool = False, what: str = 'padding'):
    """Paddle's conv2d/pool2d padding handling: returns (paddings, padding_algorithm).

    'SAME' / 'VALID' (any case); an int; [ph, pw]; [top, bottom, left, right] (kept as 2 values when symmetric);
    or 4 pairs including zero pairs for the batch and channel dimensions."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ('SAME', 'VALID'):
            raise ValueError("Unknown %s: '%s'. It can only be 'SAME' or 'VALID'." % (what, algo))
        if algo == 'VALID' and ceil_mode:
            raise ValueError('When Attr(%s) is "VALID", Attr(ceil_mode) must be False. Received ceil_mode: True.'
                             % what)
        return [0, 0], algo
    if _is_seq(padding) and len(padding) == 4:
        if _is_seq(padding[0]):
            skip = (0, 1) if data_format == 'NCHW' else (0, 3)
            if any(list(padding[i]) != [0, 0] for i in skip):
                raise ValueError('Non-zero %s(%s) in the batch or channel dimensions is not supported.'
                                 % (what, padding))
            spatial = [p for i, pair in enumerate(padding) if i not in skip for p in pair]
        else:
            spatial = to_int_list(padding, 4, what)
        if spatial[0] == spatial[1] and spatial[2] == spatial[3]:
            return [spatial[0], spatial[2]], 'EXPLICIT'
        return spatial, 'EXPLICIT'
    return to_int_list(padding, 2, what), 'EXPLICIT'


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format='NCHW'):
    """fluid.layers.conv2d: `conv2d` (or `depthwise_conv2d` when groups == channels and use_cudnn is False), the
    bias `conv2d_N.b_0` added by `elementwise_add` on the channel axis, then the activation. The filter's default
    initialiser is Normal(0, sqrt(2 / (kh * kw * channels)))."""
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'conv2d')
    if not isinstance(use_cudnn, bool):
        raise ValueError('Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): %s. ' % str(use_cudnn))
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    if len(input.shape) != 4:
        raise ValueError('conv2d: the input must be 4-D (%s), got shape %s' % (data_format, list(input.shape)))
    channel_last = data_format == 'NHWC'
    num_channels = input.shape[3] if channel_last else input.shape[1]
    if num_channels < 0:
        raise ValueError('The channel dimmention of the input(%s) should be defined. Received: %s.'
                         % (str(input.shape), str(num_channels)))
    if param_attr is False:
        raise ValueError('param_attr should not be False here.')
    op_type = 'conv2d'
    if num_channels == groups and num_filters % num_channels == 0 and not use_cudnn:
        op_type = 'depthwise_conv2d'
    helper = LayerHelper(op_type, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    dtype = input.dtype
    if groups is None:
        num_filter_channels = num_channels
    else:
        if num_channels % groups != 0:
            raise ValueError('the channel of input must be divisible by groups,received: the channel of input is %d, '
                             'the shape of input is %s, the groups is %d' % (num_channels, list(input.shape), groups))
        num_filter_channels = num_channels // groups
    filter_size = to_int_list(filter_size, 2, 'filter_size')
    strides = to_int_list(stride, 2, 'stride')
    dilations = to_int_list(dilation, 2, 'dilation')
    paddings, algorithm = normalize_padding_2d(padding, data_format)
    std = (2.0 / (filter_size[0] * filter_size[1] * num_channels)) ** 0.5
    w = helper.create_parameter(param_attr, [num_filters, num_filter_channels] + filter_size, dtype,
                                default_initializer=NormalInitializer(0.0, std, 0))
    pre_bias = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op_type, {'Input': [input], 'Filter': [w]}, {'Output': [pre_bias]},
                     {'strides': strides, 'paddings': paddings, 'dilations': dilations,
                      'groups': 1 if groups is None else int(groups), 'use_cudnn': use_cudnn, 'use_mkldnn': False,
                      'fuse_relu_before_depthwise_conv': False, 'padding_algorithm': algorithm,
                      'data_format': data_format})
    if channel_last:
        pre_act = helper.append_bias_op(pre_bias, dim_start=3, dim_end=4)
    else:
        pre_act = helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)
    return helper.append_activation(pre_act)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format='NCHW'):
    """fluid.layers.conv2d_transpose: `conv2d_transpose` (`depthwise_conv2d_transpose` when groups == channels ==
    num_filters and use_cudnn is False) with filter `conv2d_transpose_N.w_0` of [C_in, num_filters / groups, kh,
    kw] (Xavier), the bias `.b_0` added on the channel axis, then the activation. Without filter_size it is
    derived from output_size, as Paddle does."""
    if param_attr is False:
        raise AssertionError('param_attr should not be False in conv2d_transpose.')
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError('Attr(data_format) of Op(fluid.layers.conv2d_transpose) got wrong value: received '
                         + data_format + ' but only NCHW or NHWC supported.')
    if not isinstance(input, Variable):
        raise TypeError('Input of conv2d_transpose must be Variable')
    input_channel = input.shape[1] if data_format == 'NCHW' else input.shape[-1]
    op_type = 'conv2d_transpose'
    if input_channel == groups and num_filters == input_channel and not use_cudnn:
        op_type = 'depthwise_conv2d_transpose'
    helper = LayerHelper(op_type, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    stride = to_int_list(stride, 2, 'stride')
    dilation = to_int_list(dilation, 2, 'dilation')
    if not isinstance(use_cudnn, bool):
        raise ValueError('use_cudnn should be True or False')
    padding, algorithm = _transpose_padding(padding, data_format)
    if filter_size is None:
        if output_size is None:
            raise ValueError('output_size must be set when filter_size is None')
        if isinstance(output_size, int):
            output_size = [output_size, output_size]
        h_in, w_in = (input.shape[2], input.shape[3]) if data_format == 'NCHW' else (input.shape[1], input.shape[2])
        filter_size = [(output_size[0] - (h_in - 1) * stride[0] + padding[0] + padding[1] - 1) // dilation[0] + 1,
                       (output_size[1] - (w_in - 1) * stride[1] + padding[2] + padding[3] - 1) // dilation[1] + 1]
    else:
        filter_size = to_int_list(filter_size, 2, 'conv2d_transpose.filter_size')
    if padding[0] == padding[1] and padding[2] == padding[3]:
        padding = [padding[0], padding[2]]
    if output_size is None:
        output_size = []
    elif isinstance(output_size, (list, tuple, int)):
        output_size = to_int_list(output_size, 2, 'output_size')
    else:
        raise ValueError('output_size should be int, list[int] or tuple[int]')
    groups = 1 if groups is None else int(groups)
    w = helper.create_parameter(param_attr, [input_channel, num_filters // groups] + filter_size, input.dtype)
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, {'Input': [input], 'Filter': [w]}, {'Output': [pre_bias]},
                     {'output_size': output_size, 'strides': stride, 'paddings': padding,
                      'padding_algorithm': algorithm, 'dilations': dilation, 'groups': groups,
                      'use_cudnn': use_cudnn, 'data_format': data_format})
    if data_format == 'NCHW':
        pre_act = helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)
    else:
        pre_act = helper.append_bias_op(pre_bias, dim_start=3, dim_end=4)
    return helper.append_activation(pre_act)


def _transpose_padding(padding, data_format):
    """conv2d_transpose's padding: (4 explicit values [top, bottom, left, right], padding_algorithm)."""
    algorithm = 'EXPLICIT'
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ('SAME', 'VALID'):
            raise ValueError("Unknown padding: '%s'. It can only be 'SAME' or 'VALID'." % str(padding))
        algorithm, padding = padding, [0, 0, 0, 0]
    if _is_seq(padding) and len(padding) == 4:
        if _is_seq(padding[0]):
            skip = (0, 1) if data_format == 'NCHW' else (0, 3)
            if any(list(padding[i]) != [0, 0] for i in skip):
                raise ValueError('Non-zero padding(%s) in the batch or channel dimensions is not supported.'
                                 % str(padding))
            padding = [p for i, pair in enumerate(padding) if i not in skip for p in pair]
        return to_int_list(padding, 4, 'padding'), algorithm
    p = to_int_list(padding, 2, 'padding')
    return [p[0], p[0], p[1], p[1]], algorithm


def pool2d(input, pool_size=-1, pool_type='max', pool_stride=1, pool_padding=0, global_pooling=False,
           use_cudnn=True, ceil_mode=False, name=None, exclusive=True, data_format='NCHW'):
    """fluid.layers.pool2d: one `pool2d` op (max or avg; `exclusive` avg divides by the in-image window)."""
    if pool_type not in ('max', 'avg'):
        raise ValueError("Unknown Attr(pool_type): '%s'. It can only be 'max' or 'avg'." % str(pool_type))
    if global_pooling is False and pool_size == -1:
        raise ValueError('When Attr(global_pooling) is False, Attr(pool_size) must be passed and be a valid value. '
                         'Received pool_size: %s.' % str(pool_size))
    if not isinstance(use_cudnn, bool):
        raise TypeError('Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): %s.' % str(use_cudnn))
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'pool2d')
    pool_size = to_int_list(pool_size, 2, 'pool_size')
    pool_stride = to_int_list(pool_stride, 2, 'pool_stride')
    paddings, algorithm = normalize_padding_2d(pool_padding, data_format, ceil_mode, 'pool_padding')
    return pool2d_op(input, pool_type, pool_size, pool_stride, paddings, algorithm, global_pooling, use_cudnn,
                     ceil_mode, exclusive, data_format, name=name)


def pool2d_op(x, pool_type: str, ksize, strides, paddings, padding_algorithm: str, global_pooling: bool,
              use_cudnn: bool, ceil_mode: bool, exclusive: bool, data_format: str, adaptive: bool = False,
              name=None):
    """Appends one `pool2d` op (shared by fluid.layers.pool2d and F.max_pool2d / F.avg_pool2d)."""
    return pool_nd_op('pool2d', x, pool_type, ksize, strides, paddings, padding_algorithm, global_pooling, use_cudnn,
                      ceil_mode, exclusive, data_format, adaptive, name)


def pool_nd_op(op_type: str, x, pool_type: str, ksize, strides, paddings, padding_algorithm: str,
               global_pooling: bool, use_cudnn: bool, ceil_mode: bool, exclusive: bool, data_format: str,
               adaptive: bool = False, name=None):
    """Appends one `pool2d` / `pool3d` op (the fluid pooling layers and the 2.x pooling functions)."""
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'pooling_type': pool_type, 'ksize': list(ksize), 'global_pooling': bool(global_pooling),
             'strides': list(strides), 'paddings': list(paddings), 'padding_algorithm': padding_algorithm,
             'use_cudnn': bool(use_cudnn), 'ceil_mode': bool(ceil_mode), 'use_mkldnn': False,
             'exclusive': bool(exclusive), 'data_format': data_format}
    if adaptive:
        attrs['adaptive'] = True
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]}, attrs)
    return out
