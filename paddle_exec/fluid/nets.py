"""fluid.nets: the composite networks of Paddle 1.8 built from fluid.layers, appending the same ops in the same
order (so parameter names such as `conv2d_0.w_0` match a Paddle run).

    conv_pool = fluid.nets.simple_img_conv_pool(input=img, num_filters=20, filter_size=5, pool_size=2,
                                                pool_stride=2, act='relu')

simple_img_conv_pool   conv2d then pool2d
img_conv_group         per filter count: conv2d [+ batch_norm [+ dropout]], then one pool2d (the VGG block)
glu                    split in two along `dim`, a * sigmoid(b)
scaled_dot_product_attention   multi-head attention without masking (fc projections when num_heads > 1)
sequence_conv_pool     sequence_conv (with bias and `act`) then sequence_pool over each sequence
Layers are looked up on fluid.layers when a net is built, so a net works as soon as the layers it uses exist.
"""
from __future__ import annotations

from ..framework.dtype import convert_dtype
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from . import layers

__all__ = ['simple_img_conv_pool', 'sequence_conv_pool', 'glu', 'scaled_dot_product_attention', 'img_conv_group']


def simple_img_conv_pool(input, num_filters, filter_size, pool_size, pool_stride, pool_padding=0, pool_type='max',
                         global_pooling=False, conv_stride=1, conv_padding=0, conv_dilation=1, conv_groups=1,
                         param_attr=None, bias_attr=None, act=None, use_cudnn=True) -> Variable:
    """conv2d (with bias and `act`) followed by pool2d."""
    conv_out = layers.conv2d(input=input, num_filters=num_filters, filter_size=filter_size, stride=conv_stride,
                             padding=conv_padding, dilation=conv_dilation, groups=conv_groups,
                             param_attr=param_attr, bias_attr=bias_attr, act=act, use_cudnn=use_cudnn)
    return layers.pool2d(input=conv_out, pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                         pool_padding=pool_padding, global_pooling=global_pooling, use_cudnn=use_cudnn)


def sequence_conv_pool(input, num_filters, filter_size, param_attr=None, act='sigmoid', pool_type='max',
                       bias_attr=None) -> Variable:
    """sequence_conv (with bias and `act`) followed by sequence_pool of `pool_type` (fluid.nets.sequence_conv_pool):
    one row per sequence."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'input')
    conv_out = layers.sequence_conv(input=input, num_filters=num_filters, filter_size=filter_size,
                                    param_attr=param_attr, bias_attr=bias_attr, act=act)
    return layers.sequence_pool(input=conv_out, pool_type=pool_type)


def img_conv_group(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3, conv_act=None,
                   param_attr=None, conv_with_batchnorm=False, conv_batchnorm_drop_rate=0.0, pool_stride=1,
                   pool_type='max', use_cudnn=True) -> Variable:
    """A VGG-style group: one conv2d per entry of `conv_num_filter` (the per-conv arguments may be lists), each
    optionally followed by batch_norm (which then takes `conv_act`) and dropout, then one pool2d."""
    if not isinstance(conv_num_filter, (list, tuple)):
        raise TypeError('conv_num_filter of img_conv_group must be a list or tuple, got %s'
                        % type(conv_num_filter).__name__)
    n = len(conv_num_filter)

    def per_conv(value, what: str) -> list:
        if not hasattr(value, '__len__'):
            return [value] * n
        if len(value) != n:
            raise ValueError('%s of img_conv_group has %d entries but conv_num_filter has %d'
                             % (what, len(value), n))
        return list(value)

    conv_padding = per_conv(conv_padding, 'conv_padding')
    conv_filter_size = per_conv(conv_filter_size, 'conv_filter_size')
    param_attr = per_conv(param_attr, 'param_attr')
    conv_with_batchnorm = per_conv(conv_with_batchnorm, 'conv_with_batchnorm')
    conv_batchnorm_drop_rate = per_conv(conv_batchnorm_drop_rate, 'conv_batchnorm_drop_rate')

    tmp = input
    for i in range(n):
        tmp = layers.conv2d(input=tmp, num_filters=conv_num_filter[i], filter_size=conv_filter_size[i],
                            padding=conv_padding[i], param_attr=param_attr[i],
                            act=None if conv_with_batchnorm[i] else conv_act, use_cudnn=use_cudnn)
        if conv_with_batchnorm[i]:
            tmp = layers.batch_norm(input=tmp, act=conv_act)
            drop_rate = conv_batchnorm_drop_rate[i]
            if abs(drop_rate) > 1e-5:
                tmp = layers.dropout(x=tmp, dropout_prob=drop_rate)
    return layers.pool2d(input=tmp, pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                         use_cudnn=use_cudnn)


def glu(input, dim=-1) -> Variable:
    """The gated linear unit: `input` split in halves a, b along `dim`; a * sigmoid(b)."""
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'glu')
    a, b = layers.split(input, num_or_sections=2, dim=dim)
    return layers.elementwise_mul(x=a, y=layers.sigmoid(x=b))


def _check_attention_inputs(queries, keys, values, num_heads: int) -> None:
    for name, v in (('queries', queries), ('keys', keys), ('values', values)):
        check_variable_and_dtype(v, name, ['float32', 'float64'], 'scaled_dot_product_attention')
    if not (queries.dtype == keys.dtype == values.dtype):
        raise TypeError('The dtype of keys, values and queries should be the same.But received queries.dtype = %s, '
                        ' keys.dtype = %s, values.dtype) = %s.' % (convert_dtype(queries.dtype),
                                                                    convert_dtype(keys.dtype),
                                                                    convert_dtype(values.dtype)))
    if not (len(queries.shape) == len(keys.shape) == len(values.shape) == 3):
        raise ValueError('Inputs queries, keys and values should all be 3-D tensors.But received len(queries.shape) '
                         '= %d, len(keys.shape) = %d, len(values.shape) = %d.'
                         % (len(queries.shape), len(keys.shape), len(values.shape)))
    if queries.shape[-1] != keys.shape[-1]:
        raise ValueError("The hidden size of queries and keys should be the same.But received queries' hidden size "
                         "= %d and keys' hidden size = %d." % (queries.shape[-1], keys.shape[-1]))
    if keys.shape[-2] != values.shape[-2]:
        raise ValueError('The max sequence length in value batch and in key batch should be the same. But received '
                         'max sequence length in value batch = %d, in key batch = %d.'
                         % (values.shape[-2], keys.shape[-2]))
    for name, v in (('keys', keys), ('values', values)):
        if v.shape[-1] % num_heads != 0:
            raise ValueError('The hidden size of %s (%d) must be divisible by the number of attention heads (%d).'
                             % (name, v.shape[-1], num_heads))


def scaled_dot_product_attention(queries, keys, values, num_heads=1, dropout_rate=0.0) -> Variable:
    """softmax(Q K^T / sqrt(d_head)) V over [batch, length, hidden] inputs, split into `num_heads` heads (each
    input then first goes through its own fc). Returns [batch, length_q, hidden_v]."""
    _check_attention_inputs(queries, keys, values, num_heads)

    def project(x):
        return x if num_heads == 1 else layers.fc(input=x, size=x.shape[-1], num_flatten_dims=2)

    def split_heads(x):
        if num_heads == 1:
            return x
        reshaped = layers.reshape(x=x, shape=list(x.shape[:-1]) + [num_heads, x.shape[-1] // num_heads])
        return layers.transpose(x=reshaped, perm=[0, 2, 1, 3])

    def combine_heads(x):
        if len(x.shape) == 3:
            return x
        trans_x = layers.transpose(x, perm=[0, 2, 1, 3])
        return layers.reshape(x=trans_x, shape=[int(trans_x.shape[0]), int(trans_x.shape[1]),
                                                int(trans_x.shape[2] * trans_x.shape[3])])

    q, k, v = project(queries), project(keys), project(values)
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    key_dim_per_head = keys.shape[-1] // num_heads
    scaled_q = layers.scale(x=q, scale=key_dim_per_head ** -0.5)
    product = layers.matmul(x=scaled_q, y=k, transpose_y=True)
    weights = layers.reshape(x=layers.reshape(x=product, shape=[-1, product.shape[-1]], act='softmax'),
                             shape=product.shape)
    if dropout_rate:
        weights = layers.dropout(weights, dropout_prob=dropout_rate, is_test=False)
    return combine_heads(layers.matmul(weights, v))
