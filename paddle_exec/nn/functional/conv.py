"""paddle.nn.functional.conv2d (Paddle 2.x): `conv2d` (or `depthwise_conv2d` when groups == channels) on a
caller-given weight, the bias added by `elementwise_add` on the channel axis."""
from __future__ import annotations

from ...layers import math as _math
from ...layers.checks import check_variable_and_dtype, to_int_list
from ...layers.conv import normalize_padding_2d
from ...layers.helper import LayerHelper

__all__ = ['conv2d']


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCHW', name=None):
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'conv2d')
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    channel_dim = -1 if data_format == 'NHWC' else 1
    num_channels = x.shape[channel_dim]
    num_filters = weight.shape[0]
    if num_channels < 0:
        raise ValueError('The channel dimension of the input(%s) should be defined. Received: %s.'
                         % (list(x.shape), num_channels))
    if groups <= 0 or num_channels % groups != 0:
        raise ValueError('the channel of input must be divisible by groups, received: the channel of input is %d, '
                         'the shape of input is %s, the groups is %d' % (num_channels, list(x.shape), groups))
    if num_filters % groups != 0:
        raise ValueError('the number of filters must be divisible by groups, received: the number of filters is '
                         '%d, the shape of weight is %s, the groups is %d' % (num_filters, list(weight.shape), groups))
    paddings, algorithm = normalize_padding_2d(padding, data_format)
    op_type, use_cudnn = 'conv2d', True
    if num_channels == groups and num_channels != 1 and num_filters % num_channels == 0:
        op_type, use_cudnn = 'depthwise_conv2d', False
    helper = LayerHelper(op_type, name=name)
    pre_bias = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'Input': [x], 'Filter': [weight]}, {'Output': [pre_bias]},
                     {'strides': to_int_list(stride, 2, 'stride'), 'paddings': paddings,
                      'dilations': to_int_list(dilation, 2, 'dilation'), 'groups': int(groups),
                      'use_cudnn': use_cudnn, 'use_mkldnn': False, 'fuse_relu_before_depthwise_conv': False,
                      'padding_algorithm': algorithm, 'data_format': data_format})
    if bias is None:
        return pre_bias
    return _math.elementwise_add(pre_bias, bias, axis=channel_dim)


__all__ += ['conv2d_transpose']


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     data_format='NCHW', output_size=None, name=None):
    """F.conv2d_transpose (Paddle 2.x): `conv2d_transpose` (`depthwise_conv2d_transpose` when groups == channels
    != 1 and the weight has one filter per group) on weight [C_in, C_out / groups, kh, kw], with the 2.x
    `output_padding` attribute; the bias is added on the channel axis as F.conv2d adds it."""
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) of conv2d_transpose got wrong value: received %s, but only 'NCHW' or "
                         "'NHWC' are supported." % data_format)
    channel_dim = -1 if data_format == 'NHWC' else 1
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    if len(weight.shape) != 4:
        raise ValueError('Input weight should be 4D tensor, but received weight with the shape of %s'
                         % (list(weight.shape),))
    num_channels = x.shape[channel_dim]
    if num_channels < 0:
        raise ValueError('The channel dimension of the input(%s) should be defined. Received: %s.'
                         % (list(x.shape), num_channels))
    if groups <= 0:
        raise ValueError('The groups of conv2d_transpose should be greater than 0. Received groups: %s' % groups)
    if num_channels % groups != 0:
        raise ValueError('the channel of input must be divisible by groups,received: the channel of input is %d, the '
                         'shape of input is %s, the groups is %d' % (num_channels, list(x.shape), groups))
    paddings, algorithm = normalize_padding_2d(padding, data_format)
    if output_size is None:
        output_size = []
    else:
        if output_padding != 0:
            raise ValueError('output_padding option is mutually exclusive with output_size')
        output_size = to_int_list(output_size, 2, 'output_size')
    output_padding = [] if output_padding == 0 else to_int_list(output_padding, 2, 'output_padding')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'conv2d_transpose')
    op_type = 'conv2d_transpose'
    if num_channels == groups and num_channels != 1 and weight.shape[1] == 1:
        op_type = 'depthwise_conv2d_transpose'
    helper = LayerHelper(op_type, name=name)
    pre_bias = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'Input': [x], 'Filter': [weight]}, {'Output': [pre_bias]},
                     {'output_padding': output_padding, 'output_size': output_size,
                      'strides': to_int_list(stride, 2, 'stride'), 'paddings': paddings,
                      'padding_algorithm': algorithm, 'dilations': to_int_list(dilation, 2, 'dilation'),
                      'groups': int(groups), 'use_cudnn': False, 'data_format': data_format})
    if bias is None:
        return pre_bias
    return _math.elementwise_add(pre_bias, bias, axis=channel_dim)
