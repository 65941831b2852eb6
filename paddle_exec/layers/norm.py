"""Normalisation layers with fluid 1.x signatures: batch_norm, layer_norm, group_norm, instance_norm,
l2_normalize, lrn, data_norm, spectral_norm, affine_channel, inplace_abn.

Each appends the one op Paddle 1.8.5 appends with its parameters (`batch_norm_N.w_0` scale, `.b_0` bias, the
moving mean `.w_1` and variance `.w_2`, non-trainable and updated in place) and temporaries; the op builders
`batch_norm_op`, `layer_norm_op` and `instance_norm_op` serve paddle.nn.functional and the nn Layers too.
"""
from __future__ import annotations

import warnings

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..initializer import ConstantInitializer, NormalInitializer
from ..ops._util import prod
from ..param_attr import ParamAttr
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper, unnamed_variable


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout='NCHW', in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """fluid.layers.batch_norm: scale `batch_norm_N.w_0` (1), bias `.b_0` (0), moving mean `.w_1` (0) and
    variance `.w_2` (1) as non-trainable parameters updated in place by the op (MeanOut is Mean)."""
    if bias_attr is False:
        raise ValueError('bias_attr should not be False in batch_norm.')
    helper = LayerHelper('batch_norm', param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'batch_norm')
    dtype = VarType.FP32 if input.dtype == VarType.FP16 else input.dtype
    if data_layout == 'NCHW':
        channel_num = input.shape[1]
    elif data_layout == 'NHWC':
        channel_num = input.shape[-1]
    else:
        raise ValueError('unsupported data layout:' + str(data_layout))
    param_shape = [channel_num]
    scale = helper.create_parameter(param_attr, param_shape, dtype, default_initializer=ConstantInitializer(1.0))
    bias = helper.create_parameter(bias_attr, param_shape, dtype, is_bias=True)
    mean = helper.create_parameter(
        ParamAttr(name=moving_mean_name, initializer=ConstantInitializer(0.0), trainable=False,
                  do_model_average=do_model_average_for_mean_and_var), param_shape, dtype)
    mean.stop_gradient = True
    variance = helper.create_parameter(
        ParamAttr(name=moving_variance_name, initializer=ConstantInitializer(1.0), trainable=False,
                  do_model_average=do_model_average_for_mean_and_var), param_shape, dtype)
    variance.stop_gradient = True
    out = input if in_place else None
    y = batch_norm_op(input, scale, bias, mean, variance, momentum, epsilon, is_test, data_layout,
                      use_global_stats, helper, out=out)
    return helper.append_activation(y)


def batch_norm_op(x, scale, bias, mean, variance, momentum, epsilon, is_test, data_layout, use_global_stats,
                  helper: LayerHelper, trainable_statistics=None, out=None):
    """Appends one `batch_norm` op writing MeanOut/VarianceOut into `mean`/`variance`; returns Y."""
    param_dtype = scale.dtype
    saved_mean = helper.create_variable_for_type_inference(param_dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(param_dtype, stop_gradient=True)
    y = out if out is not None else helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x], 'Scale': [scale], 'Bias': [bias], 'Mean': [mean], 'Variance': [variance]}
    attrs = {'epsilon': float(epsilon), 'is_test': bool(is_test), 'data_layout': data_layout, 'use_mkldnn': False,
             'fuse_with_relu': False, 'use_global_stats': bool(use_global_stats)}
    if trainable_statistics is not None:
        attrs['trainable_statistics'] = bool(trainable_statistics)
    if isinstance(momentum, Variable):
        inputs['MomentumTensor'] = [momentum]
    else:
        attrs['momentum'] = float(momentum)
    outputs = {'Y': [y], 'MeanOut': [mean], 'VarianceOut': [variance], 'SavedMean': [saved_mean],
               'SavedVariance': [saved_variance]}
    helper.append_op('batch_norm', inputs, outputs, attrs)
    return y


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """fluid.layers.layer_norm: normalises over the dims from begin_norm_axis on; scale `layer_norm_N.w_0` (1)
    and bias `.b_0` (0) have prod(shape[begin_norm_axis:]) elements."""
    helper = LayerHelper('layer_norm', param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'layer_norm')
    dtype = input.dtype
    if not 0 <= begin_norm_axis < len(input.shape):
        raise ValueError('layer_norm: begin_norm_axis must be in [0, %d), got %d (input shape %s)'
                         % (len(input.shape), begin_norm_axis, list(input.shape)))
    param_shape = [prod(input.shape[begin_norm_axis:])]
    scale_param = bias_param = None
    if scale:
        if param_attr is False:
            raise ValueError('param_attr should not be False when using scale.')
        scale_param = helper.create_parameter(param_attr, param_shape, dtype,
                                              default_initializer=ConstantInitializer(1.0))
    elif param_attr:
        warnings.warn('param_attr is only available with scale is True.')
    if shift:
        if bias_attr is False:
            raise ValueError('bias_attr should not be False when using shift.')
        bias_param = helper.create_parameter(bias_attr, param_shape, dtype, is_bias=True)
    elif bias_attr:
        warnings.warn('bias_attr is only available with shift is True.')
    out = layer_norm_op(input, scale_param, bias_param, begin_norm_axis, epsilon, helper)
    return helper.append_activation(out)


def layer_norm_op(x, scale, bias, begin_norm_axis: int, epsilon: float, helper: LayerHelper):
    """Appends one `layer_norm` op (Scale / Bias optional); returns Y."""
    inputs = {'X': [x]}
    if scale is not None:
        inputs['Scale'] = [scale]
    if bias is not None:
        inputs['Bias'] = [bias]
    mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    variance = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    y = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('layer_norm', inputs, {'Y': [y], 'Mean': [mean], 'Variance': [variance]},
                     {'epsilon': float(epsilon), 'begin_norm_axis': int(begin_norm_axis)})
    return y


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout='NCHW',
               name=None):
    """fluid.layers.group_norm: one `group_norm` op. As in Paddle 1.8.5, Scale `group_norm_N.w_0` (1) and Bias
    `.b_0` (0) exist only when param_attr / bias_attr are given (truthy): with the defaults the op has neither.
    Y, Mean and Variance are unnamed temporaries (`_generated_var_K`), as Paddle's helper.create_variable."""
    helper = LayerHelper('group_norm', param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'group_norm')
    if data_layout not in ('NCHW', 'NHWC'):
        raise ValueError('Param(data_layout) of Op(fluid.layers.group_norm) got wrong value: received '
                         + data_layout + ' but only NCHW or NHWC supported.')
    dtype = input.dtype
    channel_num = input.shape[1] if data_layout == 'NCHW' else input.shape[-1]
    inputs = {'X': [input]}
    if param_attr:
        inputs['Scale'] = [helper.create_parameter(param_attr, [channel_num], dtype,
                                                   default_initializer=ConstantInitializer(1.0))]
    if bias_attr:
        inputs['Bias'] = [helper.create_parameter(bias_attr, [channel_num], dtype, is_bias=True)]
    mean = unnamed_variable(helper, dtype, stop_gradient=True)
    variance = unnamed_variable(helper, dtype, stop_gradient=True)
    y = unnamed_variable(helper, dtype)
    helper.append_op('group_norm', inputs, {'Y': [y], 'Mean': [mean], 'Variance': [variance]},
                     {'epsilon': float(epsilon), 'groups': int(groups), 'data_layout': data_layout})
    return helper.append_activation(y)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """fluid.layers.instance_norm: scale `instance_norm_N.w_0` (1) and bias `.b_0` (0) of [C]; SavedVariance is
    the inverse standard deviation of each (sample, channel)."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'instance_norm')
    if bias_attr is False:
        raise AssertionError('bias_attr should not be False in instance_norm.')
    helper = LayerHelper('instance_norm', param_attr=param_attr, bias_attr=bias_attr, name=name)
    dtype = VarType.FP32 if input.dtype == VarType.FP16 else input.dtype
    param_shape = [input.shape[1]]
    scale = helper.create_parameter(param_attr, param_shape, dtype, default_initializer=ConstantInitializer(1.0))
    bias = helper.create_parameter(bias_attr, param_shape, dtype, is_bias=True,
                                   default_initializer=ConstantInitializer(0.0))
    return instance_norm_op(input, scale, bias, epsilon, helper)


def instance_norm_op(x, scale, bias, epsilon, helper: LayerHelper, extra_attrs=None):
    """Appends `instance_norm` (Scale/Bias optional); returns Y."""
    saved_mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    y = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x]}
    if scale is not None and bias is not None:
        inputs.update(Scale=[scale], Bias=[bias])
    helper.append_op('instance_norm', inputs, {'Y': [y], 'SavedMean': [saved_mean],
                                               'SavedVariance': [saved_variance]},
                     {'epsilon': float(epsilon), **(extra_attrs or {})})
    return y


def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """fluid.layers.l2_normalize: the `norm` op, x / sqrt(sum(x^2, axis) + epsilon) (its Norm a temporary)."""
    if len(x.shape) == 1:
        axis = 0
    check_variable_and_dtype(x, 'X', ('float32', 'float64'), 'norm')
    helper = LayerHelper('l2_normalize', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    norm = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('norm', {'X': [x]}, {'Out': [out], 'Norm': [norm]},
                     {'axis': 1 if axis is None else int(axis), 'epsilon': float(epsilon)})
    return out


def lrn(input, n=5, k=1.0, alpha=1e-4, beta=0.75, name=None, data_format='NCHW'):
    """fluid.layers.lrn: one `lrn` op on a 4-D float32 input; MidOut (k + alpha * window sum of squares) is a
    stop_gradient temporary."""
    helper = LayerHelper('lrn', name=name)
    check_variable_and_dtype(input, 'input', ['float32'], 'lrn')
    if len(input.shape) != 4:
        raise ValueError("Input's dimension size of Op(lrn) must be 4, but received %d." % len(input.shape))
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError('Attr(data_format) of Op(lrn) got wrong value: received ' + data_format
                         + ' but only NCHW or NHWC supported.')
    mid_out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('lrn', {'X': [input]}, {'Out': [out], 'MidOut': [mid_out]},
                     {'n': int(n), 'k': float(k), 'alpha': float(alpha), 'beta': float(beta),
                      'data_format': data_format})
    return out


def data_norm(input, act=None, epsilon=1e-05, param_attr=None, data_layout='NCHW', in_place=False, name=None,
              moving_mean_name=None, moving_variance_name=None, do_model_average_for_mean_and_var=True, slot_dim=-1,
              sync_stats=False, summary_decay_rate=0.9999999, enable_scale_and_shift=False):
    """fluid.layers.data_norm: one `data_norm` op over the summaries `<name>.batch_size` (1e4), `.batch_sum` (0)
    and `.batch_square_sum` (1e4) -- trainable parameters whose "gradients" are the batch's statistics -- and,
    with enable_scale_and_shift, `<name>.scale_w` (1) and `<name>.bias` (0); name defaults to 'dn'. A dict
    param_attr sets the initial values (batch_size, batch_sum, batch_square, scale_w, bias)."""
    helper = LayerHelper('data_norm', act=act, name=name)
    dtype = input.dtype
    if len(input.shape) < 2:
        raise ValueError('The shape pf Input < 2 (got %dD input, input shape is: %s)' % (len(input.shape),
                                                                                       list(input.shape)))
    if data_layout == 'NCHW':
        channel_num = input.shape[1]
    elif data_layout == 'NHWC':
        channel_num = input.shape[-1]
    else:
        raise ValueError('unsupported data layout:' + data_layout)
    defaults = {'batch_size': 1e4, 'batch_sum': 0.0, 'batch_square': 1e4, 'scale_w': 1.0, 'bias': 0.0}
    if param_attr and isinstance(param_attr, dict):
        defaults.update({k: param_attr[k] for k in ('batch_size', 'batch_sum', 'batch_square') if k in param_attr})
        if enable_scale_and_shift:
            defaults.update({k: param_attr[k] for k in ('scale_w', 'bias') if k in param_attr})
    name = 'dn' if name is None else name

    def stat(suffix, value):
        return helper.create_parameter(ParamAttr(name=name + suffix, initializer=ConstantInitializer(float(value)),
                                                 trainable=True), [channel_num], dtype)
    inputs = {}
    if enable_scale_and_shift:
        inputs['scale_w'] = [stat('.scale_w', defaults['scale_w'])]
        inputs['bias'] = [stat('.bias', defaults['bias'])]
    sizes = stat('.batch_size', defaults['batch_size'])
    sums = stat('.batch_sum', defaults['batch_sum'])
    squares = stat('.batch_square_sum', defaults['batch_square'])
    inputs.update(X=[input], BatchSize=[sizes], BatchSum=[sums], BatchSquareSum=[squares])
    means = unnamed_variable(helper, dtype, stop_gradient=True)
    scales = unnamed_variable(helper, dtype, stop_gradient=True)
    out = input if in_place else unnamed_variable(helper, dtype)
    attrs = {'epsilon': float(epsilon), 'data_layout': data_layout, 'sync_stats': bool(sync_stats),
             'summary_decay_rate': float(summary_decay_rate)}
    if slot_dim > 0:
        attrs['slot_dim'] = int(slot_dim)
    if enable_scale_and_shift:
        attrs['enable_scale_and_shift'] = True
    helper.append_op('data_norm', inputs, {'Y': [out], 'Means': [means], 'Scales': [scales], 'BatchSize': [sizes],
                                           'BatchSum': [sums], 'BatchSquareSum': [squares]}, attrs)
    return helper.append_activation(out)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """fluid.layers.spectral_norm: `spectral_norm` of `weight` with U `spectral_norm_N.w_0` [h] and V `.w_1`
    [w] (Normal(0, 1), not trained); the output is an unnamed `_generated_var_K`."""
    helper = LayerHelper('spectral_norm', name=name)
    check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'spectral_norm')
    check_type(dim, 'dim', int, 'spectral_norm')
    check_type(power_iters, 'power_iters', int, 'spectral_norm')
    check_type(eps, 'eps', float, 'spectral_norm')
    h = weight.shape[dim]
    w = prod(weight.shape) // h
    u = helper.create_parameter(ParamAttr(), [h], weight.dtype, default_initializer=NormalInitializer(0.0, 1.0))
    u.stop_gradient = True
    v = helper.create_parameter(ParamAttr(), [w], weight.dtype, default_initializer=NormalInitializer(0.0, 1.0))
    v.stop_gradient = True
    out = unnamed_variable(helper, weight.dtype)
    helper.append_op('spectral_norm', {'Weight': [weight], 'U': [u], 'V': [v]}, {'Out': [out]},
                     {'dim': int(dim), 'power_iters': int(power_iters), 'eps': float(eps)})
    return out


def affine_channel(x, scale=None, bias=None, data_layout='NCHW', name=None, act=None):
    """fluid.layers.affine_channel: `affine_channel`, Out = x * scale + bias per channel, then the activation."""
    helper = LayerHelper('affine_channel', act=act, name=name)
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'affine_channel')
    check_type(scale, 'scale', (Variable, type(None)), 'affine_channel')
    check_type(bias, 'bias', (Variable, type(None)), 'affine_channel')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('affine_channel', {'X': [x], 'Scale': [scale], 'Bias': [bias]}, {'Out': [out]},
                     {'data_layout': data_layout})
    return helper.append_activation(out)


def inplace_abn(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
                data_layout='NCHW', name=None, moving_mean_name=None, moving_variance_name=None,
                do_model_average_for_mean_and_var=True, use_global_stats=False, act_alpha=1.0):
    """fluid.layers.inplace_abn: batch_norm's parameters (`inplace_abn_N.w_0` ... `.w_2`, `.b_0`) and one
    `inplace_abn` op writing the normalised, activated values back into `input` (which it returns)."""
    if act not in (None, 'identity', 'leaky_relu', 'elu'):
        raise AssertionError("inplace_abn only support act as None, 'identity', 'leaky_relu', 'elu' currently")
    if bias_attr is False:
        raise AssertionError('bias_attr should not be False in inplace_abn.')
    helper = LayerHelper('inplace_abn', param_attr=param_attr, bias_attr=bias_attr, name=name)
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'inplace_abn')
    if data_layout not in ('NCHW', 'NHWC'):
        raise ValueError('unsupported data layout:' + data_layout)
    dtype = input.dtype
    shape = [input.shape[1] if data_layout == 'NCHW' else input.shape[-1]]
    scale = helper.create_parameter(param_attr, shape, dtype, default_initializer=ConstantInitializer(1.0))
    bias = helper.create_parameter(bias_attr, shape, dtype, is_bias=True)
    stats = []
    for stat_name, value in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        var = helper.create_parameter(ParamAttr(name=stat_name, initializer=ConstantInitializer(value), trainable=False,
                                                do_model_average=do_model_average_for_mean_and_var), shape, dtype)
        var.stop_gradient = True
        stats.append(var)
    saved_mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    saved_variance = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    inputs = {'X': [input], 'Scale': [scale], 'Bias': [bias], 'Mean': [stats[0]], 'Variance': [stats[1]]}
    attrs = {'epsilon': float(epsilon), 'is_test': bool(is_test), 'data_layout': data_layout, 'use_mkldnn': False,
             'fuse_with_relu': False, 'use_global_stats': bool(use_global_stats), 'activation': act or 'identity',
             'alpha': float(act_alpha)}
    if isinstance(momentum, Variable):
        inputs['MomentumTensor'] = [momentum]
    else:
        attrs['momentum'] = float(momentum)
    helper.append_op('inplace_abn', inputs, {'Y': [input], 'MeanOut': [stats[0]], 'VarianceOut': [stats[1]],
                                             'SavedMean': [saved_mean], 'SavedVariance': [saved_variance]}, attrs)
    return input
