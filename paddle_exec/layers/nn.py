"""Neural-network layers (fluid 1.x signatures): fc, embedding, conv2d, pool2d, batch_norm, layer_norm, dropout,
one_hot.

Each builder appends the ops Paddle 1.8.5 appends, with its parameter and temporary names (`conv2d_0.w_0`,
`batch_norm_0.w_1` for the moving mean, ...), default initialisers and attributes; `paddle.static.nn` and
`paddle.nn.functional` reuse them. The shared helpers `lookup_embedding` (lookup_table / lookup_table_v2),
`one_hot_op` and `dropout_op` serve the 2.x APIs too.
"""
from __future__ import annotations

import copy
import warnings

from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from ..initializer import ConstantInitializer, NormalInitializer
from ..ops._util import prod
from ..param_attr import ParamAttr
from .helper import LayerHelper

__all__ = ['fc', 'embedding', 'conv2d', 'pool2d', 'batch_norm', 'layer_norm', 'dropout', 'one_hot']


def check_variable_and_dtype(var, var_name: str, dtypes, op_name: str) -> None:
    """Paddle's data_feeder check: TypeError with Paddle's wording for a non-Variable or a wrong dtype."""
    if not isinstance(var, Variable):
        raise TypeError("The type of '%s' in %s must be %s, but received %s. "
                        % (var_name, op_name, Variable, type(var)))
    if convert_dtype(var.dtype) not in dtypes:
        raise TypeError("The data type of '%s' in %s must be %s, but received %s. "
                        % (var_name, op_name, list(dtypes), convert_dtype(var.dtype)))


def to_int_list(value, n: int, name: str) -> list[int]:
    """Paddle's utils.convert_to_list: an int repeated n times, or a list/tuple of n ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    try:
        values = [int(v) for v in value]
    except TypeError:
        raise ValueError('The %s should be an int or a list/tuple of %d ints, got %r' % (name, n, value)) from None
    if len(values) != n:
        raise ValueError('The %s must have %d elements, got %r' % (name, n, value))
    return values


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


# ---------------------------------------------------------------------------------------------------------------
# fc

def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None):
    """fluid.layers.fc: per input a `mul` with its own weight, a `sum` when several, bias, activation."""
    helper = LayerHelper('fc', input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    inputs = helper.multiple_input()
    dtype = helper.input_dtype()
    attrs = ParamAttr._to_attr(param_attr)
    if not isinstance(attrs, list):
        attrs = [attrs] + [copy.deepcopy(attrs) for _ in inputs[1:]]
    if len(attrs) != len(inputs):
        raise ValueError('fc: %d inputs but %d param_attr' % (len(inputs), len(attrs)))
    mul_results = []
    for input_var, attr in zip(inputs, attrs):
        if not isinstance(input_var, Variable):
            raise TypeError('fc: input must be a Variable, got %s' % type(input_var).__name__)
        nfd = len(input_var.shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
        width = prod(input_var.shape[nfd:])
        if width <= 0:
            raise ValueError('fc: the dimensions of input %r after num_flatten_dims=%d must be known, got shape %s'
                             % (input_var.name, nfd, list(input_var.shape)))
        w = helper.create_parameter(attr, [width, size], dtype, is_bias=False)
        tmp = helper.create_variable_for_type_inference(dtype)
        helper.append_op('mul', {'X': [input_var], 'Y': [w]}, {'Out': [tmp]},
                         {'x_num_col_dims': nfd, 'y_num_col_dims': 1})
        mul_results.append(tmp)
    if len(mul_results) == 1:
        pre_bias = mul_results[0]
    else:
        pre_bias = helper.create_variable_for_type_inference(dtype)
        helper.append_op('sum', {'X': mul_results}, {'Out': [pre_bias]}, {'use_mkldnn': False})
    nfd = len(inputs[0].shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
    pre_act = helper.append_bias_op(pre_bias, dim_start=nfd)
    return helper.append_activation(pre_act)


# ---------------------------------------------------------------------------------------------------------------
# embedding

def _padding_idx(padding_idx, vocab: int) -> int:
    if padding_idx is None:
        return -1
    padding_idx = int(padding_idx)
    if not -vocab <= padding_idx < vocab:
        raise ValueError('padding_idx must be within [-%d, %d), got %d' % (vocab, vocab, padding_idx))
    return padding_idx if padding_idx >= 0 else vocab + padding_idx


def lookup_embedding(op_type: str, input, weight, is_sparse: bool, is_distributed: bool, padding_idx,
                     helper: LayerHelper):
    """Appends `op_type` (lookup_table or lookup_table_v2) reading `weight` at `input`; returns Out."""
    out = helper.create_variable_for_type_inference(weight.dtype)
    helper.append_op(op_type, {'Ids': [input], 'W': [weight]}, {'Out': [out]},
                     {'is_sparse': bool(is_sparse), 'is_distributed': bool(is_distributed),
                      'remote_prefetch': bool(is_sparse) and not is_distributed,
                      'padding_idx': _padding_idx(padding_idx, weight.shape[0])})
    return out


def embedding_layer(op_type: str, api_name: str, input, size, is_sparse=False, is_distributed=False,
                    padding_idx=None, param_attr=None, dtype='float32'):
    """fluid.layers.embedding (lookup_table) and fluid.embedding / static.nn.embedding (lookup_table_v2)."""
    helper = LayerHelper('embedding', param_attr=param_attr)
    check_variable_and_dtype(input, 'input', ['int64'], api_name)
    if convert_dtype(dtype) not in ('float16', 'float32', 'float64'):
        raise TypeError("The data type of 'dtype' in %s must be ['float16', 'float32', 'float64'], but received %s. "
                        % (api_name, convert_dtype(dtype)))
    w = helper.create_parameter(param_attr, list(size), dtype, is_bias=False)
    return lookup_embedding(op_type, input, w, is_sparse, is_distributed, padding_idx, helper)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype='float32'):
    """fluid.layers.embedding: `lookup_table` on ids whose last dimension is 1; the weight `embedding_N.w_0` is
    [vocab, dim] (Xavier). `is_sparse=True` makes its gradient a SelectedRows."""
    return embedding_layer('lookup_table', 'fluid.layers.embedding', input, size, is_sparse, is_distributed,
                           padding_idx, param_attr, dtype)


# ---------------------------------------------------------------------------------------------------------------
# conv2d

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


# ---------------------------------------------------------------------------------------------------------------
# pool2d

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
    helper = LayerHelper('pool2d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'pooling_type': pool_type, 'ksize': list(ksize), 'global_pooling': bool(global_pooling),
             'strides': list(strides), 'paddings': list(paddings), 'padding_algorithm': padding_algorithm,
             'use_cudnn': bool(use_cudnn), 'ceil_mode': bool(ceil_mode), 'use_mkldnn': False,
             'exclusive': bool(exclusive), 'data_format': data_format}
    if adaptive:
        attrs['adaptive'] = True
    helper.append_op('pool2d', {'X': [x]}, {'Out': [out]}, attrs)
    return out


# ---------------------------------------------------------------------------------------------------------------
# batch_norm

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


# ---------------------------------------------------------------------------------------------------------------
# layer_norm

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


# ---------------------------------------------------------------------------------------------------------------
# dropout

def dropout(x, dropout_prob, is_test=False, seed=None, name=None, dropout_implementation='downgrade_in_infer'):
    """fluid.layers.dropout: one `dropout` op; Mask (uint8) is a stop_gradient temporary. Without `seed` the
    program's random_seed (when set) fixes the mask, as Paddle does."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'dropout')
    return dropout_op(x, dropout_prob, is_test, seed, dropout_implementation, name=name)


def dropout_op(x, dropout_prob, is_test, seed, dropout_implementation: str, name=None):
    if dropout_implementation not in ('downgrade_in_infer', 'upscale_in_train'):
        raise ValueError("dropout_implementation must be 'downgrade_in_infer' or 'upscale_in_train', got %r"
                         % (dropout_implementation,))
    helper = LayerHelper('dropout', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.UINT8, stop_gradient=True)
    program_seed = helper.main_program.random_seed
    if (seed is None or seed == 0) and program_seed != 0:
        seed = program_seed
    helper.append_op('dropout', {'X': [x]}, {'Out': [out], 'Mask': [mask]},
                     {'dropout_prob': float(dropout_prob), 'is_test': bool(is_test), 'fix_seed': seed is not None,
                      'seed': int(seed) if seed is not None else 0,
                      'dropout_implementation': dropout_implementation})
    return out


# ---------------------------------------------------------------------------------------------------------------
# one_hot

def one_hot_op(op_type: str, input, depth, allow_out_of_range: bool, api_name: str):
    """Appends `one_hot` / `one_hot_v2`; `depth` an int (attribute) or a Variable (`depth_tensor`)."""
    check_variable_and_dtype(input, 'input', ['int32', 'int64'], api_name)
    if isinstance(depth, bool) or not isinstance(depth, (int, Variable)):
        raise TypeError("The type of 'depth' in %s must be (<class 'int'>, %s), but received %s. "
                        % (api_name, Variable, type(depth)))
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(VarType.FP32)
    inputs = {'X': [input]}
    attrs = {'allow_out_of_range': bool(allow_out_of_range)}
    if isinstance(depth, Variable):
        depth.stop_gradient = True
        inputs['depth_tensor'] = [depth]
    else:
        attrs['depth'] = int(depth)
    helper.append_op(op_type, inputs, {'Out': [out]}, attrs)
    out.stop_gradient = True
    return out


def one_hot(input, depth, allow_out_of_range=False):
    """fluid.layers.one_hot: `one_hot` on ids whose last dimension is 1 -> float32 [..., depth]."""
    return one_hot_op('one_hot', input, depth, allow_out_of_range, 'one_hot')


# ---------------------------------------------------------------------------------------------------------------
# padding and resizing (Paddle 1.8.5: pad, pad2d, image_resize / resize_bilinear / resize_nearest, pixel_shuffle)

__all__ += ['pad', 'pad2d', 'image_resize', 'resize_bilinear', 'resize_nearest', 'pixel_shuffle']

_PAD_DTYPES = ['float16', 'float32', 'float64', 'int32', 'int64']


def pad(x, paddings, pad_value=0., name=None):
    """fluid.layers.pad: one `pad` op; paddings = [before_0, after_0, before_1, after_1, ...]."""
    check_variable_and_dtype(x, 'x', _PAD_DTYPES, 'pad')
    return pad_op(x, paddings, pad_value, name)


def pad_op(x, paddings, pad_value, name=None):
    """Appends one `pad` op (fluid.layers.pad and F.pad with a full-rank constant padding)."""
    helper = LayerHelper('pad', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pad', {'X': [x]}, {'Out': [out]},
                     {'paddings': [int(p) for p in paddings], 'pad_value': float(pad_value)})
    return out


def pad2d(input, paddings=[0, 0, 0, 0], mode='constant', pad_value=0.0, data_format='NCHW',  # noqa: B006
          name=None):
    """fluid.layers.pad2d: one `pad2d` op, paddings [top, bottom, left, right] (a list, or an int32 Variable
    of 4 values fed at run time); mode 'constant', 'reflect' or 'edge'."""
    check_variable_and_dtype(input, 'input', _PAD_DTYPES, 'pad2d')
    attrs = {'mode': mode, 'pad_value': float(pad_value), 'data_format': data_format}
    inputs = {'X': [input]}
    if isinstance(paddings, Variable):
        inputs['Paddings'] = [paddings]
        attrs['paddings'] = []
    else:
        attrs['paddings'] = [int(p) for p in paddings]
    helper = LayerHelper('pad2d', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('pad2d', inputs, {'Out': [out]}, attrs)
    return out


def size_tensors(helper: LayerHelper, sizes) -> tuple[list, list]:
    """An out_shape list holding Variables -> (SizeTensor list, attribute sizes with -1 for the Variables); plain
    ints become int32 `fill_constant` temporaries of `helper`, as Paddle builds them."""
    from .tensor import fill_constant
    tensors, attr_sizes = [], []
    for dim in sizes:
        if isinstance(dim, Variable):
            dim.stop_gradient = True
            tensors.append(dim)
            attr_sizes.append(-1)
        else:
            tmp = helper.create_variable_for_type_inference(VarType.INT32)
            fill_constant([1], 'int32', int(dim), force_cpu=True, out=tmp)
            tensors.append(tmp)
            attr_sizes.append(int(dim))
    return tensors, attr_sizes


def image_resize(input, out_shape=None, scale=None, name=None, resample='BILINEAR', actual_shape=None,
                 align_corners=True, align_mode=1, data_format='NCHW'):
    """fluid.layers.image_resize (4-D): `bilinear_interp` or `nearest_interp` (TRILINEAR is not supported).

    out_shape (a list of ints / Variables, or a Variable: `OutSize`) wins over scale (a float: the `scale`
    attribute, or a Variable: `Scale`); actual_shape, deprecated, is an `OutSize` wired at run time."""
    methods = {'BILINEAR': 'bilinear', 'TRILINEAR': 'trilinear', 'NEAREST': 'nearest'}
    if resample not in methods:
        raise ValueError("The 'resample' of image_resize can only be 'BILINEAR', 'TRILINEAR' or 'NEAREST' "
                         "currently.")
    if resample in ('BILINEAR', 'NEAREST') and len(input.shape) != 4:
        raise ValueError("'BILINEAR' and 'NEAREST' only support 4-D tensor.")
    if resample == 'TRILINEAR':
        if len(input.shape) != 5:
            raise ValueError("'TRILINEAR'only support 5-D tensor.")
        raise NotImplementedError('image_resize: TRILINEAR (trilinear_interp) is not supported in paddle_exec yet')
    if not isinstance(align_corners, bool):
        raise TypeError('Attr align_corners should be a bool value')
    if align_mode not in (0, 1):
        raise ValueError('align_mode can only be 0 or 1')
    if out_shape is None and scale is None:
        raise ValueError('One of out_shape and scale must not be None.')
    method = methods[resample]
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError('Got wrong value for param `data_format`: ' + data_format
                         + ' received but only `NCHW` or `NHWC` supported for 4-D input.')
    helper = LayerHelper('%s_interp' % method, name=name)
    inputs = {'X': [input]}
    attrs = {'out_d': -1, 'out_h': -1, 'out_w': -1, 'interp_method': method, 'align_corners': align_corners,
             'align_mode': int(align_mode), 'data_layout': data_format}
    if out_shape is not None:
        _resize_sizes(helper, out_shape, inputs, attrs, 'out_shape')
    elif isinstance(scale, Variable):
        scale.stop_gradient = True
        inputs['Scale'] = [scale]
    elif isinstance(scale, (float, int)) and not isinstance(scale, bool):
        if scale <= 0:
            raise ValueError('Attr(scale) should be greater than zero.')
        attrs['scale'] = float(scale)
    else:
        raise TypeError("Attr(scale)'s type should be float, int or Variable.")
    if isinstance(actual_shape, Variable):
        warnings.warn('actual_shape will be deprecated, it is recommended to use out_shape instead of actual_shape '
                      'to specify output shape dynamically.')
        actual_shape.stop_gradient = True
        inputs['OutSize'] = [actual_shape]
    elif actual_shape is not None:
        raise TypeError('actual_shape should either be Variable or None.')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('%s_interp' % method, inputs, {'Out': [out]}, attrs)
    return out


def _resize_sizes(helper, out_shape, inputs, attrs, what):
    """The output size of a 4-D resize: an `OutSize` Variable, or out_h / out_w (+ SizeTensor when some of them
    are Variables)."""
    if isinstance(out_shape, Variable):
        out_shape.stop_gradient = True
        inputs['OutSize'] = [out_shape]
        return
    if not isinstance(out_shape, (list, tuple)):
        raise TypeError('%s should be a list or tuple or Variable.' % what)
    if len(out_shape) != 2:
        raise ValueError('%s length should be 2 for input 4-D tensor.' % what)
    if any(isinstance(d, Variable) for d in out_shape):
        inputs['SizeTensor'], sizes = size_tensors(helper, out_shape)
    else:
        sizes = [int(d) for d in out_shape]
        if any(d <= 0 for d in sizes):
            raise AssertionError('Each dimension size given in out_shape must be greater than 0.')
    attrs['out_h'], attrs['out_w'] = sizes


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                    align_mode=1, data_format='NCHW'):
    """fluid.layers.resize_bilinear: image_resize with 'BILINEAR' (align_corners True, align_mode 1)."""
    return image_resize(input, out_shape, scale, name, 'BILINEAR', actual_shape, align_corners, align_mode,
                        data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                   data_format='NCHW'):
    """fluid.layers.resize_nearest: image_resize with 'NEAREST' (align_mode is 1)."""
    return image_resize(input, out_shape, scale, name, 'NEAREST', actual_shape, align_corners, 1, data_format)


def pixel_shuffle(x, upscale_factor):
    """fluid.layers.pixel_shuffle: [N, C * r * r, H, W] -> [N, C, H * r, W * r], one `pixel_shuffle` op."""
    if not isinstance(upscale_factor, int):
        raise TypeError('upscale factor must be int type')
    return pixel_shuffle_op(x, upscale_factor, None)


def pixel_shuffle_op(x, upscale_factor: int, data_format, name=None):
    """Appends `pixel_shuffle`; `data_format` (2.x) is set when given."""
    helper = LayerHelper('pixel_shuffle', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'upscale_factor': int(upscale_factor)}
    if data_format is not None:
        attrs['data_format'] = data_format
    helper.append_op('pixel_shuffle', {'X': [x]}, {'Out': [out]}, attrs)
    return out


# ---------------------------------------------------------------------------------------------------------------
# group_norm, instance_norm, l2_normalize, prelu, lrn, maxout (Paddle 1.8.5)

__all__ += ['group_norm', 'instance_norm', 'l2_normalize', 'prelu', 'lrn', 'maxout']


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
    mean = _unnamed_variable(helper, dtype, stop_gradient=True)
    variance = _unnamed_variable(helper, dtype, stop_gradient=True)
    y = _unnamed_variable(helper, dtype)
    helper.append_op('group_norm', inputs, {'Y': [y], 'Mean': [mean], 'Variance': [variance]},
                     {'epsilon': float(epsilon), 'groups': int(groups), 'data_layout': data_layout})
    return helper.append_activation(y)


def _unnamed_variable(helper: LayerHelper, dtype, stop_gradient: bool = False) -> Variable:
    """Paddle's LayerHelper.create_variable without a name: `_generated_var_K`."""
    from ..framework import unique_name
    return helper.block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype=dtype,
                                   stop_gradient=stop_gradient)


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


def prelu(x, mode, param_attr=None, name=None):
    """fluid.layers.prelu: alpha `prelu_N.w_0` (Constant 0.25, float32) of shape [1] ('all'), [1, C, 1, 1]
    ('channel') or [1] + x.shape[1:] ('element')."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'prelu')
    helper = LayerHelper('prelu', param_attr=param_attr, name=name)
    if mode not in ('all', 'channel', 'element'):
        raise ValueError('mode should be one of all, channel, element.')
    alpha_shape = [1]
    if mode == 'channel':
        if len(x.shape) < 2:
            raise AssertionError("The size of input shape should be equal or larger than 2 in prelu() when mode is "
                                 "'channel'")
        alpha_shape = [1, x.shape[1], 1, 1]
    elif mode == 'element':
        alpha_shape = [1] + list(x.shape)[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, 'float32', default_initializer=ConstantInitializer(0.25))
    return prelu_op(x, alpha, mode, None, helper)


def prelu_op(x, alpha, mode: str, data_format, helper: LayerHelper):
    """Appends `prelu`; `data_format` (2.x) is set when given."""
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'mode': mode}
    if data_format is not None:
        attrs['data_format'] = data_format
    helper.append_op('prelu', {'X': [x], 'Alpha': [alpha]}, {'Out': [out]}, attrs)
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


def maxout(x, groups, name=None, axis=1):
    """fluid.layers.maxout: the max over each group of `groups` consecutive channels (axis 1, or 3 / -1 for
    channels-last)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'maxout')
    return maxout_op(x, groups, axis, name)


def maxout_op(x, groups, axis, name=None):
    if axis not in (1, -1, 3):
        raise ValueError('Attr(axis) should be 1 when data format is NCHW, -1 or 3 when data format is NHWC. '
                         'Received Attr(axis): %s.' % str(axis))
    helper = LayerHelper('maxout', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('maxout', {'X': [x]}, {'Out': [out]}, {'groups': int(groups), 'axis': 3 if axis == -1 else axis})
    return out


# ---------------------------------------------------------------------------------------------------------------
# conv2d_transpose (Paddle 1.8.5)

__all__ += ['conv2d_transpose']


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
