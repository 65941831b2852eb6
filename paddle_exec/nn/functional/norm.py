"""paddle.nn.functional normalisation: layer_norm and batch_norm on caller-given parameters (Paddle 2.x)."""
from __future__ import annotations

from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper
from ...layers.norm import batch_norm_op, instance_norm_op, layer_norm_op

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
