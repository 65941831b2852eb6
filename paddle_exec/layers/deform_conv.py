"""Deformable convolution with fluid 1.8's signature (`deformable_conv`) and paddle.static.nn 2.6's
(`deform_conv2d`): the filter `deformable_conv_N.w_0` [num_filters, C / groups, kh, kw] drawn from Normal(0,
sqrt(2 / (kh * kw * C))), one `deformable_conv` op (`deformable_conv_v1` without modulation), then the bias
`.b_0` added on the channel axis."""
from __future__ import annotations

from ..framework.variable import Variable
from ..initializer import NormalInitializer
from .checks import check_type, check_variable_and_dtype, to_int_list
from .helper import LayerHelper


def deformable_conv(input, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
                    deformable_groups=None, im2col_step=None, param_attr=None, bias_attr=None, modulated=True,
                    name=None):
    """fluid.layers.deformable_conv (DCN v2 with modulated=True and a mask, v1 without)."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'deformable_conv')
    check_variable_and_dtype(offset, 'offset', ['float32', 'float64'], 'deformable_conv')
    check_type(mask, 'mask', (Variable, type(None)), 'deformable_conv')
    if len(input.shape) != 4:
        raise ValueError('The input should be of [N, C, H, W] format, but received %s' % (list(input.shape),))
    if param_attr is False:
        raise AssertionError('param_attr should not be False here.')
    num_channels = input.shape[1]
    if groups is None:
        filter_channels = num_channels
    else:
        if groups == 0:
            raise ValueError('groups should not be 0.')
        if num_channels % groups != 0:
            raise ValueError('num_channels must be divisible by groups.')
        filter_channels = num_channels // groups
    filter_size = to_int_list(filter_size, 2, 'filter_size')
    helper = LayerHelper('deformable_conv', param_attr=param_attr, bias_attr=bias_attr, name=name)
    std = (2.0 / (filter_size[0] * filter_size[1] * num_channels)) ** 0.5
    w = helper.create_parameter(param_attr, [num_filters, filter_channels] + filter_size, input.dtype,
                                default_initializer=NormalInitializer(0.0, std, 0))
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    inputs = {'Input': [input], 'Filter': [w], 'Offset': [offset]}
    if modulated:
        inputs['Mask'] = [mask]
    attrs = {'strides': to_int_list(stride, 2, 'stride'), 'paddings': to_int_list(padding, 2, 'padding'),
             'dilations': to_int_list(dilation, 2, 'dilation'), 'groups': 1 if groups is None else int(groups),
             'deformable_groups': 1 if deformable_groups is None else int(deformable_groups),
             'im2col_step': 64 if im2col_step is None else int(im2col_step)}
    helper.append_op('deformable_conv' if modulated else 'deformable_conv_v1', inputs, {'Output': [pre_bias]}, attrs)
    return helper.append_bias_op(pre_bias, dim_start=1, dim_end=2)


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                  deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """paddle.static.nn.deform_conv2d: deformable_conv, modulated exactly when a mask is given."""
    return deformable_conv(x, offset, mask, num_filters, filter_size, stride, padding, dilation, groups,
                           deformable_groups, im2col_step, weight_attr, bias_attr, mask is not None, name)
