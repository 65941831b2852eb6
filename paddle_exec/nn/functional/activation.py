"""Activations of paddle.nn.functional (2.x signatures) over the shared builders.

Each appends the op Paddle 2.4's static mode appends, under its helper name (F.hardswish is helper `hardswish`
writing a `hard_swish` op: `hardswish_0.tmp_0`) with the attributes 2.4 passes: F.leaky_relu(negative_slope)
sets `alpha`, F.hardtanh is `brelu`, F.swish is `swish` with beta 1, F.softmax sets use_cudnn=True as 2.4 does,
F.softmax / F.log_softmax with `dtype` cast first. Errors for invalid arguments use 2.4's wording.
"""
from __future__ import annotations

from ...framework.dtype import to_var_type
from ...layers import manipulation as _manipulation
from ...layers import math as _math
from ...layers.activation import activation
from ...layers.checks import check_variable_and_dtype
from ...layers.common import maxout_op, prelu_op
from ...layers.helper import LayerHelper

__all__ = ['relu', 'sigmoid', 'tanh', 'gelu', 'leaky_relu', 'softmax', 'log_softmax', 'relu6', 'elu', 'selu',
           'softplus', 'softsign', 'silu', 'swish', 'mish', 'hardswish', 'hardsigmoid', 'hardtanh', 'hardshrink',
           'softshrink', 'tanhshrink', 'thresholded_relu', 'log_sigmoid']


def relu(x, name=None):
    return activation('relu', x, name=name)


def sigmoid(x, name=None):
    return activation('sigmoid', x, name=name)


def tanh(x, name=None):
    return activation('tanh', x, name=name)


def gelu(x, approximate=False, name=None):
    return activation('gelu', x, {'approximate': approximate}, name)


def leaky_relu(x, negative_slope=0.01, name=None):
    return activation('leaky_relu', x, {'alpha': negative_slope}, name)


def relu6(x, name=None):
    return activation('relu6', x, {'threshold': 6.0}, name)


def elu(x, alpha=1.0, name=None):
    return activation('elu', x, {'alpha': alpha}, name)


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    if scale <= 1.0:
        raise ValueError('The scale must be greater than 1.0. Received: {}.'.format(scale))
    if alpha < 0:
        raise ValueError('The alpha must be no less than zero. Received: {}.'.format(alpha))
    return activation('selu', x, {'scale': scale, 'alpha': alpha}, name)


def softplus(x, beta=1, threshold=20, name=None):
    return activation('softplus', x, {'beta': beta, 'threshold': threshold}, name)


def softsign(x, name=None):
    return activation('softsign', x, name=name)


def silu(x, name=None):
    return activation('silu', x, name=name)


def swish(x, name=None):
    return activation('swish', x, {'beta': 1.0}, name)


def mish(x, name=None):
    return activation('mish', x, name=name)


def hardswish(x, name=None):
    return activation('hard_swish', x, {'threshold': 6.0, 'scale': 6.0, 'offset': 3.0}, name,
                      helper_name='hardswish')


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return activation('hard_sigmoid', x, {'slope': slope, 'offset': offset}, name, helper_name='hardsigmoid')


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's argument names
    return activation('brelu', x, {'t_min': min, 't_max': max}, name, helper_name='hardtanh')


def hardshrink(x, threshold=0.5, name=None):
    return activation('hard_shrink', x, {'threshold': threshold}, name, helper_name='hardshrink')


def softshrink(x, threshold=0.5, name=None):
    if threshold < 0:
        raise ValueError('The threshold must be no less than zero. Received: {}.'.format(threshold))
    return activation('softshrink', x, {'lambda': threshold}, name)


def tanhshrink(x, name=None):
    return activation('tanh_shrink', x, name=name, helper_name='tanh_shrink')


def thresholded_relu(x, threshold=1.0, name=None):
    return activation('thresholded_relu', x, {'threshold': threshold}, name)


def log_sigmoid(x, name=None):
    return activation('logsigmoid', x, name=name, helper_name='log_sigmoid')


def _softmax(op_type: str, x, axis: int, dtype, name, attrs: dict):
    """softmax / log_softmax: an optional `cast` to `dtype`, then the op, under one helper."""
    if dtype is None:
        check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64'), op_type)
    else:
        dtype = to_var_type(dtype)
        if dtype.name not in ('FP32', 'FP64'):
            raise TypeError("The data type of 'dtype' in %s must be ['float32', 'float64'], but received %s. "
                            "If dtype is not None, it only support float32 or float64." % (op_type, dtype))
    helper = LayerHelper(op_type, name=name)
    src = x
    if dtype is not None:
        src = helper.create_variable_for_type_inference(dtype)
        helper.append_op('cast', {'X': [x]}, {'Out': [src]}, {'in_dtype': int(x.dtype), 'out_dtype': int(dtype)})
    out = helper.create_variable_for_type_inference(src.dtype)
    helper.append_op(op_type, {'X': [src]}, {'Out': [out]}, {'axis': axis, **attrs})
    return out


def softmax(x, axis=-1, dtype=None, name=None):
    return _softmax('softmax', x, axis, dtype, name, {'use_cudnn': True})


def log_softmax(x, axis=-1, dtype=None, name=None):
    return _softmax('log_softmax', x, axis, dtype, name, {})


__all__ += ['prelu', 'maxout']


def prelu(x, weight, data_format='NCHW', name=None):
    """F.prelu: `prelu` with mode 'all' for a one-element weight, else 'channel' (weight of the channel count,
    channels at dim 1, or last for NLC / NHWC / NDHWC)."""
    if len(weight.shape) not in (0, 1):
        raise AssertionError('The dim count of weight shape should be 0 or 1 in prelu().')
    mode = 'all'
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        if data_format not in ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC'):
            raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC' but "
                             "receive %s" % data_format)
        data_format = 'NCHW' if data_format[1] == 'C' else 'NHWC'
        if len(x.shape) <= 1:
            raise AssertionError('The dim count of x should be equal or larger than 2 in prelu() when weight shape '
                                 'is not [1].')
        channels = x.shape[-1] if data_format == 'NHWC' else x.shape[1]
        if weight.shape[0] != channels:
            raise AssertionError('The weight size should be equal to x input channel in prelu() when weight shape '
                                 'is not [1].')
        mode = 'channel'
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'prelu')
    check_variable_and_dtype(weight, 'weight', ['float16', 'float32', 'float64'], 'prelu')
    return prelu_op(x, weight, mode, data_format, LayerHelper('prelu', name=name))


def maxout(x, groups, axis=1, name=None):
    """F.maxout: one `maxout` op (axis -1 is stored as 3)."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'maxout')
    return maxout_op(x, groups, axis, name)


__all__ += ['celu', 'glu', 'gumbel_softmax', 'rrelu']


def celu(x, alpha=1.0, name=None):
    """F.celu: one `celu` op, max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ZeroDivisionError('alpha cannot be 0 for celu')
    return activation('celu', x, {'alpha': float(alpha)}, name)


def glu(x, axis=-1, name=None):
    """F.glu: a * sigmoid(b) for the two halves a, b of x along axis (`split`, `sigmoid`, `elementwise_mul`)."""
    check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'glu')
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError('Expected value range of `axis` is [%d, %d), but received axis: %d' % (-rank, rank, axis))
    a, b = _manipulation.split(x, 2, dim=axis, name=name)
    return _math.elementwise_mul(a, activation('sigmoid', b, name=name), name=name)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """F.gumbel_softmax: one `gumbel_softmax` op (softmax of x plus Gumbel noise, one-hot with hard=True)."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'gumbel_softmax')
    return activation('gumbel_softmax', x, {'temperature': float(temperature), 'hard': bool(hard), 'axis': int(axis)},
                      name, dtypes=('float16', 'float32', 'float64'))


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """F.rrelu: one `rrelu` op (random negative slopes in [lower, upper] when training, their mean otherwise)."""
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError('The lower and upper values must be float type. Received: lower %s, upper %s.'
                        % (lower, upper))
    if lower < 0 or lower > 1:
        raise ValueError('The lower value must be no less than zero or greater than one. Received: %s.' % lower)
    if upper < lower:
        raise ValueError('The upper value must be greater than lower value. Received: lower %s, upper %s.'
                         % (lower, upper))
    if upper > 1:
        raise ValueError('The upper value must be no greater than one. Received: %s.' % upper)
    check_variable_and_dtype(x, 'X', ['float16', 'float32', 'float64'], 'rrelu')
    helper = LayerHelper('rrelu', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    noise = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('rrelu', {'X': [x]}, {'Out': [out], 'Noise': [noise]},
                     {'lower': lower, 'upper': upper, 'is_test': not training})
    return out
