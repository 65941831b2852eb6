"""paddle.static.nn builders (Paddle 2.x) over the shared fluid builders.

As in Paddle 2.x, `conv2d`, `conv2d_transpose`, `conv3d`, `conv3d_transpose`, `batch_norm`, `layer_norm`,
`group_norm`, `data_norm`, `bilinear_tensor_product` and `row_conv` are the fluid layers themselves; `embedding`
is `fluid.embedding` (`lookup_table_v2`: ids of any shape, no trailing dimension of 1); `fc` takes 2.x keywords.
Where 2.6 changed a builder it has its own form here: `instance_norm` creates Scale and Bias only when both
attributes are given (truthy), `prelu` takes a data_format (its 'channel' alpha is [1, 1, 1, C] for
channels-last), and `spectral_norm` accepts dim 0 or 1 only.
"""
from __future__ import annotations

from ...initializer import ConstantInitializer
from ...layers import common as _common
from ...layers import conv as _conv
from ...layers import conv3d as _conv3d
from ...layers import norm as _norm
from ...layers.checks import check_variable_and_dtype
from ...layers.common import embedding_layer, prelu_op
from ...layers.deform_conv import deform_conv2d
from ...layers.helper import LayerHelper
from ...layers.linear_maps import bilinear_tensor_product, row_conv

__all__ = ['fc', 'embedding', 'conv2d', 'batch_norm', 'layer_norm', 'conv2d_transpose', 'conv3d', 'conv3d_transpose',
           'group_norm', 'data_norm', 'instance_norm', 'spectral_norm', 'prelu', 'bilinear_tensor_product', 'row_conv',
           'deform_conv2d']

conv2d = _conv.conv2d
conv2d_transpose = _conv.conv2d_transpose
conv3d = _conv3d.conv3d
conv3d_transpose = _conv3d.conv3d_transpose
batch_norm = _norm.batch_norm
layer_norm = _norm.layer_norm
group_norm = _norm.group_norm
data_norm = _norm.data_norm


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    return _common.fc(x, size, num_flatten_dims=num_flatten_dims, param_attr=weight_attr, bias_attr=bias_attr,
                      act=activation, name=name)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype='float32'):
    """paddle.static.nn.embedding: `lookup_table_v2` (Out = ids.shape + [dim]); weight `embedding_N.w_0`."""
    return embedding_layer('lookup_table_v2', 'fluid.embedding', input, size, is_sparse, is_distributed,
                           padding_idx, param_attr, dtype)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """paddle.static.nn.instance_norm (2.6): Scale `instance_norm_N.w_0` and Bias `.b_0` only when param_attr and
    bias_attr are both given; with the defaults the op normalises without them."""
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'instance_norm')
    if param_attr is False and bias_attr is not False:
        raise AssertionError('param_attr and bias_attr must be set to False at the same time in instance_norm')
    if not 2 <= len(input.shape) <= 5:
        raise ValueError('expected 2D or 3D or 4D or 5D input (got %dD input, input shape is: %s)'
                         % (len(input.shape), list(input.shape)))
    helper = LayerHelper('instance_norm', param_attr=param_attr, bias_attr=bias_attr, name=name)
    scale = bias = None
    if param_attr and bias_attr:
        shape = [input.shape[1]]
        scale = helper.create_parameter(param_attr, shape, input.dtype, default_initializer=ConstantInitializer(1.0))
        bias = helper.create_parameter(bias_attr, shape, input.dtype, is_bias=True,
                                       default_initializer=ConstantInitializer(0.0))
    return _norm.instance_norm_op(input, scale, bias, epsilon, helper)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """paddle.static.nn.spectral_norm: the fluid layer, with 2.6's rule that dim is 0 (fc weights) or 1 (conv)."""
    if dim not in (0, 1):
        raise ValueError('The input `dim` must be 0 (if weight in fc) or 1 (if weight in conv), but received dim=%s'
                         % (dim,))
    return _norm.spectral_norm(weight, dim, power_iters, eps, name)


def prelu(x, mode, param_attr=None, data_format='NCHW', name=None):
    """paddle.static.nn.prelu (2.6): alpha `prelu_N.w_0` (0.25) of [1] ('all'), [1, C, 1, 1] or [1, 1, 1, C]
    ('channel', by data_format) or [1] + x.shape[1:] ('element')."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'prelu')
    helper = LayerHelper('prelu', param_attr=param_attr, name=name)
    if mode not in ('all', 'channel', 'element'):
        raise ValueError('mode should be one of all, channel, element.')
    alpha_shape = [1]
    if mode == 'channel':
        if data_format not in ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC'):
            raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC' but "
                             "receive %s" % data_format)
        data_format = 'NCHW' if data_format[1] == 'C' else 'NHWC'
        if len(x.shape) < 2:
            raise AssertionError("The size of input shape should be equal or larger than 2 in prelu() when mode is "
                                 "'channel'")
        alpha_shape = [1, 1, 1, x.shape[-1]] if data_format == 'NHWC' else [1, x.shape[1], 1, 1]
    elif mode == 'element':
        alpha_shape = [1] + list(x.shape)[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, x.dtype, default_initializer=ConstantInitializer(0.25))
    return prelu_op(x, alpha, mode, data_format, helper)
