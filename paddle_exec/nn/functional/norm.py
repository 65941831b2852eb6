"""paddle.nn.functional normalisation (Paddle 2.x): layer_norm, batch_norm and instance_norm on caller-given
parameters, normalize and local_response_norm (compositions, as 2.6 builds them)."""
from __future__ import annotations

from ...layers import activation as _activation
from ...layers import manipulation as _manipulation
from ...layers import math as _math
from ...layers.checks import check_type, check_variable_and_dtype
from ...layers.creation import fill_constant
from ...layers.helper import LayerHelper
from ...layers.norm import batch_norm_op, instance_norm_op, layer_norm_op
from ...ops._util import prod
from . import common as _common
from . import pooling as _pooling

__all__ = ['layer_norm', 'batch_norm']


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """F.layer_norm: normalises over the trailing `normalized_shape` dims (begin_norm_axis = rank - its length)."""
    check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'LayerNorm')
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    normalized_shape = list(normalized_shape)
    if list(x.shape[len(x.shape) - len(normalized_shape):]) != normalized_shape:
        raise ValueError('Given normalized_shape is %s, expected input with shape [*, %s], but got input shape %s'
                         % (normalized_shape, str(normalized_shape)[1:], list(x.shape)))
    helper = LayerHelper('layer_norm', name=name)
    return layer_norm_op(x, weight, bias, len(x.shape) - len(normalized_shape), epsilon, helper)


_TRUE_FORMATS = ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC')


def batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=0.9, epsilon=1e-05,
               data_format='NCHW', use_global_stats=None, name=None):
    """F.batch_norm: `batch_norm` writing the running statistics in place; training=False (the default)
    normalises with them."""
    if data_format not in _TRUE_FORMATS:
        raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC' but "
                         "receive %s" % data_format)
    layout = 'NCHW' if data_format[1] == 'C' else 'NHWC'
    if use_global_stats is None:
        use_global_stats = not training
        trainable_statistics = False
    else:
        trainable_statistics = not use_global_stats
    check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'BatchNorm')
    helper = LayerHelper('batch_norm', name=name)
    return batch_norm_op(x, weight, bias, running_mean, running_var, momentum, epsilon, not training, layout,
                         use_global_stats, helper, trainable_statistics=trainable_statistics)


__all__ += ['instance_norm']


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.9,
                  eps=1e-05, data_format='NCHW', name=None):
    """F.instance_norm: one `instance_norm` op (Scale / Bias only when both weight and bias are given). Paddle
    passes momentum and data_format too, but its op declares neither and drops them (as 2.6.2 prints it);
    running statistics are not kept."""
    check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'InstanceNorm')
    helper = LayerHelper('instance_norm', name=name)
    with_params = weight is not None and bias is not None
    return instance_norm_op(x, weight if with_params else None, bias if with_params else None, eps, helper)


__all__ += ['normalize', 'local_response_norm']


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """F.normalize: x / max(||x||_p along axis, epsilon). Paddle 2.6 takes the norm with the `p_norm` op; here it
    is built from ops every family has (abs, pow, reduce_sum / reduce_max, elementwise_max, elementwise_div), the
    same numbers to float rounding, and differentiable through each of them."""
    check_type(p, 'p', (float, int), 'normalize')
    check_type(axis, 'axis', int, 'normalize')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'normalize')
    if len(x.shape) == 1 and axis not in (0, -1):
        raise ValueError('Axis must be 0 or -1 when x is a 1-D tensor, but received axis = %d' % axis)
    if p <= 0:
        raise NotImplementedError('F.normalize: p must be positive (got %s)' % (p,))
    magnitude = _activation.abs(x)
    if p == float('inf'):
        norm = _math.reduce_max(magnitude, dim=[axis], keep_dim=True)
    elif p == 1:
        norm = _math.reduce_sum(magnitude, dim=[axis], keep_dim=True)
    else:
        powered = _activation.pow(magnitude, float(p))
        norm = _activation.pow(_math.reduce_sum(powered, dim=[axis], keep_dim=True), 1.0 / float(p))
    eps = fill_constant([1], x.dtype, float(epsilon))
    return _math.elementwise_div(x, _math.elementwise_max(norm, eps), name=name)


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None):
    """F.local_response_norm as Paddle 2.6 builds it: x / (k + alpha * avg of x^2 over `size` neighbouring
    channels) ** beta, the average taken by zero-padding the squared input along the channels and pooling (3-D
    inputs: pad + avg_pool2d; rank >= 4: reshape to 5-D, pad + avg_pool3d, reshape back)."""
    if data_format not in ('NCL', 'NLC', 'NCHW', 'NHWC', 'NCDHW', 'NDHWC'):
        raise ValueError('data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], but got %s'
                         % data_format)
    sizes = list(x.shape)
    dim = len(sizes)
    if dim < 3:
        raise ValueError('Expected 3D or higher dimensionality input, but got %d dimensions' % dim)
    for i, sz in enumerate(sizes):
        if not sz > 0 and i > 0:
            raise ValueError("Expected every dim's size to be larger than 0, but the size of the %d-th dim is %d"
                             % (i, sz))
    channel_last = data_format[-1] == 'C'
    rest = prod(sizes[1:])
    div = _manipulation.unsqueeze(_math.elementwise_mul(x, x), [1])
    if dim == 3:
        pads = [size // 2, (size - 1) // 2, 0, 0] if channel_last else [0, 0, size // 2, (size - 1) // 2]
        div = _common.pad(div, pads)
        div = _pooling.avg_pool2d(div, (1, size) if channel_last else (size, 1), stride=1)
        div = _manipulation.squeeze(div, [1])
    else:
        if channel_last:
            shape5 = [sizes[0], 1, sizes[1], rest // (sizes[1] * sizes[-1]), sizes[-1]]
            pads, kernel = [size // 2, (size - 1) // 2, 0, 0, 0, 0], (1, 1, size)
        else:
            shape5 = [sizes[0], 1, sizes[1], sizes[2], rest // (sizes[1] * sizes[2])]
            pads, kernel = [0, 0, 0, 0, size // 2, (size - 1) // 2], (size, 1, 1)
        div = _common.pad(_manipulation.reshape(div, shape5), pads, data_format='NCDHW')
        div = _pooling.avg_pool3d(div, kernel, stride=1)
        div = _manipulation.reshape(_manipulation.squeeze(div, [1]), sizes)
    div = _activation.pow(_math.scale(div, scale=alpha, bias=k), beta)
    return _math.elementwise_div(x, div, name=name)
