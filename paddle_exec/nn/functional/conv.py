"""paddle.nn.functional convolutions (Paddle 2.x) on caller-given weights: conv1d, conv2d, conv3d and their
transposes; the bias is added by `elementwise_add` on the channel axis.

As Paddle 2.6 builds them, the 1-D forms are 2-D convolutions: conv1d unsqueezes x to [N, C, 1, L] and the
weight (after an `assign`) to [OC, C / groups, 1, k], conv1d_transpose x to [N, C, L, 1] and the weight to
[C, OC / groups, k, 1], then `squeeze2` drops the extra axis; conv3d / conv3d_transpose append `conv3d` /
`conv3d_transpose` (the latter with the 2-D layout names 'NCHW' / 'NHWC', as 2.6 passes them).
"""
from __future__ import annotations

from ...layers import math as _math
from ...layers.checks import check_variable_and_dtype, to_int_list
from ...layers.conv import normalize_padding_2d
from ...layers.conv3d import normalize_padding_nd
from ...layers.creation import assign
from ...layers.helper import LayerHelper
from ...layers.manipulation import squeeze, unsqueeze

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


__all__ += ['conv1d', 'conv1d_transpose', 'conv3d', 'conv3d_transpose']


def _channels(x, channel_last: bool, rank: int, api: str, groups: int) -> int:
    if len(x.shape) != rank:
        raise ValueError('Input x should be %dD tensor, but received x with the shape of %s' % (rank, list(x.shape)))
    num_channels = x.shape[-1 if channel_last else 1]
    if num_channels < 0:
        raise ValueError('The channel dimension of the input(%s) should be defined. Received: %s.'
                         % (list(x.shape), num_channels))
    if groups <= 0:
        raise ValueError('The groups of %s should be greater than 0. Received groups: %s' % (api, groups))
    if num_channels % groups != 0:
        raise ValueError('the channel of input must be divisible by groups,received: the channel of input is %d, the '
                         'shape of input is %s, the groups is %d' % (num_channels, list(x.shape), groups))
    return num_channels


def _with_bias(out, bias, channel_dim):
    return out if bias is None else _math.elementwise_add(out, bias, axis=channel_dim)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCL', name=None):
    """F.conv1d: `conv2d` on x unsqueezed to [N, C, 1, L] (NLC: [N, 1, L, C]), then `squeeze2`."""
    if data_format not in ('NCL', 'NLC'):
        raise ValueError("Attr(data_format) should be 'NCL' or 'NLC'. Received Attr(data_format): %s." % data_format)
    channel_last = data_format == 'NLC'
    _channels(x, channel_last, 3, 'conv1d', groups)
    num_filters = weight.shape[0]
    if num_filters % groups != 0:
        raise ValueError('the number of filters must be divisible by groups,received: the number of filters is %d, '
                         'the shape of weight is %s, the groups is %d' % (num_filters, list(weight.shape), groups))
    padding, algorithm = normalize_padding_nd(padding, channel_last, 1)
    padding = [0, 0] + padding if len(padding) == 2 else [0] + padding
    axis = -3 if channel_last else -2
    x4 = unsqueeze(x, [axis])
    w4 = unsqueeze(assign(weight), [-2])
    helper = LayerHelper('conv2d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('conv2d', {'Input': [x4], 'Filter': [w4]}, {'Output': [out]},
                     {'strides': [1] + to_int_list(stride, 1, 'stride'), 'paddings': padding,
                      'dilations': [1] + to_int_list(dilation, 1, 'dilation'), 'groups': int(groups),
                      'use_cudnn': False, 'use_mkldnn': False, 'fuse_relu_before_depthwise_conv': False,
                      'padding_algorithm': algorithm, 'data_format': 'NHWC' if channel_last else 'NCHW'})
    out = _with_bias(out, bias, -1 if channel_last else 1)
    return squeeze(out, [axis])


def _transpose_sizes(output_size, output_padding, n: int):
    if output_size is None:
        output_size = []
    else:
        if output_padding != 0:
            raise ValueError('output_padding option is mutually exclusive with output_size')
        if not isinstance(output_size, (list, tuple, int)):
            raise ValueError('output_size should be int, or list, tuple of ints')
        output_size = to_int_list(output_size, n, 'output_size')
    output_padding = [] if output_padding == 0 else to_int_list(output_padding, n, 'output_padding')
    return output_size, output_padding


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format='NCL', name=None):
    """F.conv1d_transpose: `conv2d_transpose` on x unsqueezed to [N, C, L, 1] (NLC: [N, L, 1, C]) with the weight
    [C, OC / groups, k] unsqueezed to [..., k, 1], then `squeeze2`."""
    if data_format not in ('NCL', 'NLC'):
        raise ValueError("Attr(data_format) of conv2d_transpose got wrong value: received %s, but only 'NCL' or "
                         "'NLC' are supported." % data_format)
    channel_last = data_format == 'NLC'
    _channels(x, channel_last, 3, 'conv1d_transpose', groups)
    padding, algorithm = normalize_padding_nd(padding, channel_last, 1)
    padding = padding + [0, 0] if len(padding) == 2 else padding + [0]
    stride = to_int_list(stride, 1, 'stride') + [1]
    output_size, output_padding = _transpose_sizes(output_size, output_padding, 1)
    output_size = output_size + [1] if output_size else []
    output_padding = output_padding + [0] if output_padding else []
    if output_padding and output_padding[0] > stride[0]:
        raise ValueError('The size of output_padding should not be greater than stride.But got output_padding=%d and '
                         'stride=%d' % (output_padding[0], stride[0]))
    if len(weight.shape) != 3:
        raise ValueError('Input weight should be 3D tensor, but received weight with the shape of %s'
                         % (list(weight.shape),))
    axis = -2 if channel_last else -1
    x4 = unsqueeze(x, [axis])
    w4 = unsqueeze(weight, [-1])
    check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'conv2d_transpose')
    helper = LayerHelper('conv2d_transpose', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('conv2d_transpose', {'Input': [x4], 'Filter': [w4]}, {'Output': [out]},
                     {'output_padding': output_padding, 'output_size': output_size, 'strides': stride,
                      'paddings': padding, 'padding_algorithm': algorithm,
                      'dilations': to_int_list(dilation, 1, 'dilation') + [1], 'groups': int(groups),
                      'use_cudnn': False, 'data_format': 'NHWC' if channel_last else 'NCHW'})
    out = _with_bias(out, bias, -1 if channel_last else 1)
    return squeeze(out, [axis])


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format='NCDHW', name=None):
    """F.conv3d: one `conv3d` op on weight [OC, C / groups, kd, kh, kw], the bias on the channel axis."""
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s."
                         % data_format)
    channel_last = data_format == 'NDHWC'
    _channels(x, channel_last, 5, 'conv3d', groups)
    if weight.shape[0] % groups != 0:
        raise ValueError('The number of filters must be divisible by Attr(groups). Received: number of filters(%d), '
                         'groups(%d).' % (weight.shape[0], groups))
    padding, algorithm = normalize_padding_nd(padding, channel_last, 3)
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'conv3d')
    helper = LayerHelper('conv3d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('conv3d', {'Input': [x], 'Filter': [weight]}, {'Output': [out]},
                     {'strides': to_int_list(stride, 3, 'stride'), 'paddings': padding,
                      'dilations': to_int_list(dilation, 3, 'dilation'), 'groups': int(groups), 'use_cudnn': False,
                      'use_mkldnn': False, 'fuse_relu_before_depthwise_conv': False, 'padding_algorithm': algorithm,
                      'data_format': data_format})
    return _with_bias(out, bias, -1 if channel_last else 1)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format='NCDHW', name=None):
    """F.conv3d_transpose: one `conv3d_transpose` op on weight [C, OC / groups, kd, kh, kw]."""
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s."
                         % data_format)
    channel_last = data_format == 'NDHWC'
    if len(weight.shape) != 5:
        raise ValueError('Input weight should be 5D tensor, but received weight with the shape of %s'
                         % (list(weight.shape),))
    _channels(x, channel_last, 5, 'conv3d_transpose', groups)
    padding, algorithm = normalize_padding_nd(padding, channel_last, 3)
    output_size, output_padding = _transpose_sizes(output_size, output_padding, 3)
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'conv3d')
    helper = LayerHelper('conv3d_transpose', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('conv3d_transpose', {'Input': [x], 'Filter': [weight]}, {'Output': [out]},
                     {'output_padding': output_padding, 'output_size': output_size, 'paddings': padding,
                      'padding_algorithm': algorithm, 'strides': to_int_list(stride, 3, 'stride'),
                      'dilations': to_int_list(dilation, 3, 'dilation'), 'groups': int(groups), 'use_cudnn': False,
                      'data_format': 'NHWC' if channel_last else 'NCHW'})
    return _with_bias(out, bias, -1 if channel_last else 1)
