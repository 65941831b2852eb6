"""paddle.nn.functional common layers: linear (matmul_v2, then the bias added on the last axis, as Paddle 2.x
builds it) and dropout (Paddle 2.x defaults: p=0.5, training=True, upscale_in_train)."""
from __future__ import annotations

import numpy as np

from ...framework.dtype import VarType, convert_dtype
from ...framework.variable import Variable
from ...layers import activation as _activation
from ...layers import manipulation as _manipulation
from ...layers import math as _math
from ...layers.activation import activation
from ...layers.attribute import shape
from ...layers.casting import cast
from ...layers.checks import check_variable_and_dtype
from ...layers.common import dropout_op
from ...layers.creation import assign, fill_constant
from ...layers.helper import LayerHelper
from ...layers.image import pad_op, pixel_shuffle_op, resize_sizes
from ...layers.linear_maps import bilinear_op
from ...layers.loss import label_smooth_op
from ...tensor.manipulation import squeeze, unsqueeze
from ...tensor.random import uniform
from . import pooling as _pooling

__all__ = ['linear', 'dropout']


def linear(x, weight, bias=None, name=None):
    """F.linear: out = x @ weight (+ bias), weight of shape [in_features, out_features]; ops matmul_v2 and
    elementwise_add (axis -1) from one LayerHelper('linear'), so temporaries are named linear_N.tmp_K."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'linear')
    check_variable_and_dtype(weight, 'weight', ['float16', 'float32', 'float64'], 'linear')
    helper = LayerHelper('linear', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('matmul_v2', {'X': [x], 'Y': [weight]}, {'Out': [out]}, {'trans_x': False, 'trans_y': False})
    if bias is None:
        return out
    biased = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('elementwise_add', {'X': [out], 'Y': [bias]}, {'Out': [biased]}, {'axis': -1})
    return biased


def dropout(x, p=0.5, axis=None, training=True, mode='upscale_in_train', name=None):
    """F.dropout: one `dropout` op with `is_test = not training`; mode 'downscale_in_infer' is the op's
    'downgrade_in_infer'. p == 0 returns x unchanged, as Paddle does. With `axis`, whole slices are dropped as
    Paddle 2.6 builds it: a uniform mask over the sizes of x on `axis` (1 elsewhere, read from `shape(x)`),
    `greater_equal` p, cast, times x (scaled by 1 / (1 - p) in upscale_in_train)."""
    if not isinstance(p, (float, int, Variable)) or isinstance(p, bool):
        raise TypeError('p argument should be a number or Variable')
    if isinstance(p, Variable):
        raise NotImplementedError('F.dropout: a Variable dropout probability is not supported; pass a float')
    if p == 0:
        return x
    if p < 0 or p > 1:
        raise ValueError('p argument should between 0 and 1')
    if mode not in ('downscale_in_infer', 'upscale_in_train'):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis and not isinstance(axis, (int, list, tuple)):
        raise TypeError('datatype of axis argument should be int or list')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'dropout')
    if axis is None:
        impl = 'downgrade_in_infer' if mode == 'downscale_in_infer' else mode
        return dropout_op(x, p, not training, None, impl, name=name)
    if not training:
        return _math.scale(x, scale=1 - p) if mode == 'downscale_in_infer' else x
    scaled = _math.scale(x, scale=1 / (1 - p)) if mode == 'upscale_in_train' else x
    drop_axes = [axis] if isinstance(axis, int) else list(axis)
    rank = len(x.shape)
    if min(drop_axes) < 0 or max(drop_axes) > rank - 1:
        raise ValueError('axis value should be greater than or equal to 0 and less than dimensions of x:%d, but get '
                         'axis value:%d ' % (rank, max(drop_axes)))
    if len(drop_axes) > rank:
        raise ValueError('length of axis should not be greater than dimensions of x:%d, but get length of axis: %d'
                         % (rank, len(drop_axes)))
    sizes = shape(x)
    mask_shape = [sizes[i] if i in drop_axes else 1 for i in range(rank)]
    random_tensor = uniform(mask_shape, dtype='float32', min=0.0, max=1.0)
    keep_mask = _math.greater_equal(random_tensor, fill_constant([1], 'float32', float(p)))
    keep_mask = cast(keep_mask, x.dtype)
    return _math.elementwise_mul(cast(scaled, x.dtype), keep_mask, name=name)


def dropout2d(x, p=0.5, training=True, data_format='NCHW', name=None):
    """F.dropout2d: whole channels of a 4-D input dropped (F.dropout over axes N and C)."""
    if len(x.shape) != 4:
        raise ValueError('dimensions of x should be 4, but received %d != 4' % len(x.shape))
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    return dropout(x, p=p, axis=[0, 1] if data_format == 'NCHW' else [0, 3], training=training,
                   mode='upscale_in_train', name=name)


def dropout3d(x, p=0.5, training=True, data_format='NCDHW', name=None):
    """F.dropout3d: whole channels of a 5-D input dropped."""
    if len(x.shape) != 5:
        raise ValueError('dimensions of x should be 5, but received %d != 5' % len(x.shape))
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    return dropout(x, p=p, axis=[0, 1] if data_format == 'NCDHW' else [0, 4], training=training,
                   mode='upscale_in_train', name=name)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """F.alpha_dropout (SELU networks): dropped elements become -alpha * scale, then an affine map a * y + b keeps
    the mean and variance; built from uniform / greater_equal / cast / scale ops as Paddle 2.6 does."""
    if not isinstance(p, (float, int)):
        raise TypeError('p argument should be a float or int')
    if p < 0 or p > 1:
        raise ValueError('p argument should between 0 and 1')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'alpha_dropout')
    if not training:
        return x
    if p == 1:
        return _math.scale(x, scale=0.0)
    alpha, selu_scale = 1.6732632423543772, 1.0507009873554805
    alpha_p = -alpha * selu_scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape_ = list(x.shape)
    random_tensor = uniform(shape_, dtype='float32', min=0.0, max=1.0)
    keep_mask = cast(_math.greater_equal(random_tensor, fill_constant(shape_, 'float32', float(p))), x.dtype)
    drop_mask = _math.elementwise_sub(fill_constant(shape_, x.dtype, 1.0), keep_mask)
    y = _math.elementwise_add(_math.elementwise_mul(x, keep_mask), _math.scale(drop_mask, scale=alpha_p))
    return _math.elementwise_add(_math.scale(y, scale=a), fill_constant(shape_, x.dtype, b), name=name)


__all__ += ['dropout2d', 'dropout3d', 'alpha_dropout']


# ---------------------------------------------------------------------------------------------------------------
# pad, interpolate / upsample, pixel_shuffle (Paddle 2.4 static mode)

__all__ += ['pad', 'zeropad2d', 'interpolate', 'upsample', 'pixel_shuffle']

_PAD_FORMATS = {3: ('NCL', 'NLC'), 4: ('NCHW', 'NHWC'), 5: ('NCDHW', 'NDHWC')}


def pad(x, pad, mode='constant', value=0.0, data_format='NCHW', name=None):
    """F.pad: a constant padding of every dim (len(pad) == 2 * rank) is one `pad` op; otherwise `pad3d`, with a
    3-D / 4-D input unsqueezed to 5-D around it (`unsqueeze2`, `pad3d`, `squeeze2`), as Paddle 2.6 builds it.
    `pad` for pad3d lists the innermost dim first: [left, right, top, bottom, front, back]; a Variable `pad` (int32,
    of 2, 4 or 6 values for a 3-D, 4-D or 5-D input) is read at run time (`Paddings`), padded with zeros to 6
    values by `concat`."""
    if mode not in ('reflect', 'replicate', 'constant', 'circular'):
        raise AssertionError('mode should be one of constant, reflect, replicate, circular, but got %s.' % mode)
    data_format = data_format.upper()
    if data_format not in ('NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC'):
        raise AssertionError('data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], but got %s'
                             % data_format)
    x_dim = len(x.shape)
    if mode == 'constant' and isinstance(pad, (list, tuple)) and len(pad) == x_dim * 2:
        check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64', 'int32', 'int64'], 'pad')
        return pad_op(x, pad, value)
    if x_dim not in _PAD_FORMATS:
        raise AssertionError('input tesor dimension must be in [3, 4, 5] but got %d' % x_dim)
    if data_format not in _PAD_FORMATS[x_dim]:
        raise AssertionError("input tensor dimension is %d, it's data format should be in %s but got %s"
                             % (x_dim, list(_PAD_FORMATS[x_dim]), data_format))
    channel_last = data_format[-1] == 'C'
    unsqueezed = {3: [2, 3] if channel_last else [3, 4], 4: [1] if channel_last else [2], 5: []}[x_dim]
    inputs, attrs = {}, {'mode': mode, 'value': float(value), 'data_format': 'NDHWC' if channel_last else 'NCDHW'}
    if isinstance(pad, Variable):
        given = pad if pad.dtype == VarType.INT32 else cast(pad, 'int32')
        missing = 6 - 2 * (x_dim - 2)
        if missing:
            zeros = fill_constant([missing], 'int32', 0)
            given = _manipulation.concat([zeros, given] if x_dim == 3 else [given, zeros], axis=0)
        inputs['Paddings'] = [given]
        attrs['paddings'] = []
    else:
        pad = [int(p) for p in pad]
        attrs['paddings'] = {3: [0, 0, 0, 0] + pad, 4: pad + [0, 0], 5: pad}[x_dim]
    if unsqueezed:
        x = unsqueeze(x, axis=unsqueezed)
    inputs['X'] = [x]
    helper = LayerHelper('pad3d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pad3d', inputs, {'Out': [out]}, attrs)
    return squeeze(out, axis=unsqueezed) if unsqueezed else out


def zeropad2d(x, padding, data_format='NCHW', name=None):
    """F.zeropad2d: F.pad with zeros of a 4-D input, padding [left, right, top, bottom]."""
    return pad(x, pad=padding, mode='constant', value=0, data_format=data_format, name=name)


def interpolate(x, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0,
                data_format='NCHW', name=None):
    """F.interpolate (Paddle 2.6): `<mode>_interp_v2` under the helper of that name -- linear (3-D input),
    bilinear / bicubic (4-D), trilinear (5-D), nearest (4-D or 5-D) -- with data_layout 'NCHW' / 'NHWC' whatever
    the rank; `scale` is a list attribute (a number is repeated per spatial dim). 'area' is adaptive average
    pooling to `size`."""
    data_format = data_format.upper()
    resample = mode.upper()
    method = mode.lower()
    rank = len(x.shape)
    if resample not in ('LINEAR', 'BILINEAR', 'TRILINEAR', 'NEAREST', 'BICUBIC', 'AREA'):
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', 'bilinear', 'trilinear',  "
                         "'bicubic' or 'nearest' currently.")
    if resample == 'LINEAR' and rank != 3:
        raise ValueError("'linear' only support 3-D tensor.")
    if resample == 'NEAREST' and rank not in (4, 5):
        raise ValueError("'NEAREST' only support 4-D  or 5-D tensor.")
    if resample in ('BILINEAR', 'BICUBIC') and rank != 4:
        raise ValueError("'bilinear' and 'bicubic' only support 4-D tensor.")
    if resample == 'TRILINEAR' and rank != 5:
        raise ValueError("'trilinear'only support 5-D tensor.")
    if size is None and scale_factor is None:
        raise ValueError('One of size and scale_factor must not be None.')
    if isinstance(size, (tuple, list)) and len(size) != rank - 2:
        raise ValueError('The x and size should satisfy rank(x) - 2 == len(size).')
    if not isinstance(align_corners, bool):
        raise TypeError('Attr align_corners should be a bool value')
    if align_mode not in (0, 1):
        raise ValueError('align_mode can only be 0 or 1')
    if align_corners and resample == 'NEAREST':
        raise ValueError('align_corners option can only be set with the interpolating modes: linear | bilinear | '
                         'bicubic | trilinear')
    if resample == 'AREA':
        if size is None:
            raise ValueError('output size can not be None in AREA mode')
        pools = {3: _pooling.adaptive_avg_pool1d, 4: _pooling.adaptive_avg_pool2d, 5: _pooling.adaptive_avg_pool3d}
        return pools[rank](x, size)
    formats = {3: ('NCW', 'NWC'), 4: ('NCHW', 'NHWC'), 5: ('NCDHW', 'NDHWC')}[rank]
    if data_format not in formats:
        raise ValueError('Got wrong value for param `data_format`: %s received but only `%s` or `%s` supported for '
                         '%d-D input.' % (data_format, formats[0], formats[1], rank))
    op_type = '%s_interp_v2' % method
    helper = LayerHelper(op_type, name=name)
    inputs = {'X': [x]}
    attrs = {'out_d': -1, 'out_h': -1, 'out_w': -1, 'interp_method': method, 'align_corners': align_corners,
             'align_mode': int(align_mode), 'data_layout': 'NCHW' if data_format == formats[0] else 'NHWC'}
    if size is not None and scale_factor is not None:
        raise ValueError('Only one of size or scale_factor should be defined.')
    if size is not None:
        if isinstance(size, Variable):
            size = cast(size, 'int32')
        resize_sizes(helper, size, inputs, attrs, 'size', rank - 2)
    elif isinstance(scale_factor, Variable):
        scale_factor.stop_gradient = True
        inputs['Scale'] = [scale_factor]
    elif isinstance(scale_factor, (float, int)) and not isinstance(scale_factor, bool):
        if scale_factor <= 0:
            raise ValueError('Attr(scale) should be greater than zero.')
        attrs['scale'] = [float(scale_factor)] * (rank - 2)
    elif isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != rank - 2:
            raise ValueError('scale_shape length should be %d for input %d-D tensor.' % (rank - 2, rank))
        if any(v <= 0 for v in scale_factor):
            raise ValueError('Attr(scale) should be greater than zero.')
        attrs['scale'] = [float(v) for v in scale_factor]
    else:
        raise TypeError("Attr(scale)'s type should be float, int, list, tuple, or Tensor.")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs, {'Out': [out]}, attrs)
    return out


def upsample(x, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0, data_format='NCHW',
             name=None):
    """F.upsample: F.interpolate."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format, name)


def pixel_shuffle(x, upscale_factor, data_format='NCHW', name=None):
    """F.pixel_shuffle: one `pixel_shuffle` op with the 2.x `data_format` attribute."""
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    if not isinstance(upscale_factor, int):
        raise TypeError('upscale factor must be int type')
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'.But recevie Attr(data_format): %s "
                         % data_format)
    return pixel_shuffle_op(x, upscale_factor, data_format, name)


__all__ += ['label_smooth']


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """F.label_smooth: one `label_smooth` op (the label is marked stop_gradient, as Paddle does)."""
    check_variable_and_dtype(label, 'label', ['float16', 'float32', 'float64'], 'label_smooth')
    return label_smooth_op(label, prior_dist, epsilon, label.dtype, name)


__all__ += ['bilinear', 'cosine_similarity']


def bilinear(x1, x2, weight, bias=None, name=None):
    """F.bilinear: `bilinear_tensor_product` (helper `bilinear`), out[b, k] = x1[b] W[k] x2[b]^T + bias[k]."""
    check_variable_and_dtype(x1, 'x1', ['float32', 'float64'], 'bilinear')
    check_variable_and_dtype(x2, 'x2', ['float32', 'float64'], 'bilinear')
    return bilinear_op(x1, x2, weight, bias, LayerHelper('bilinear', name=name))


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """F.cosine_similarity as Paddle 2.6 builds it: sum(x1 * x2) / sqrt(clip(sum(x1^2) * sum(x2^2), eps^2))
    along axis (elementwise_mul, reduce_sum, clip, sqrt, elementwise_div; x1, x2 broadcast)."""
    w12 = _math.reduce_sum(_math.elementwise_mul(x1, x2), dim=axis)
    w1 = _math.reduce_sum(_math.elementwise_mul(x1, x1), dim=axis)
    w2 = _math.reduce_sum(_math.elementwise_mul(x2, x2), dim=axis)
    n12 = _activation.sqrt(_math.clip(_math.elementwise_mul(w1, w2), min=eps * eps, max=float('inf')))
    return _math.elementwise_div(w12, n12)


__all__ += ['scaled_dot_product_attention']


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, training=True,
                                 name=None):
    """F.scaled_dot_product_attention on [batch, seq, heads, head_dim] inputs: softmax(q k^T / sqrt(head_dim) +
    mask) v. Paddle 2.6 runs it with its CUDA flash-attention kernel; here it is built from transpose, matmul,
    scale, softmax and dropout ops. A bool attn_mask marks the positions that take part (others get -1e9), a float
    one is added to the scores; is_causal hides the positions after each query."""
    q = _manipulation.transpose(query, [0, 2, 1, 3])
    k = _manipulation.transpose(key, [0, 2, 1, 3])
    v = _manipulation.transpose(value, [0, 2, 1, 3])
    scores = _math.scale(_math.matmul(q, k, transpose_y=True), scale=float(query.shape[-1]) ** -0.5)
    if attn_mask is not None:
        if attn_mask.dtype == VarType.BOOL:
            attn_mask = _math.scale(_math.elementwise_sub(cast(attn_mask, scores.dtype),
                                                          fill_constant([1], scores.dtype, 1.0)), scale=1e9)
        scores = _math.elementwise_add(scores, cast(attn_mask, scores.dtype))
    if is_causal:
        n_q, n_k = query.shape[1], key.shape[1]
        if n_q < 0 or n_k < 0:
            raise NotImplementedError('scaled_dot_product_attention: is_causal needs known sequence lengths')
        causal = np.triu(np.full((n_q, n_k), -1e9, dtype=np.float32), 1)
        scores = _math.elementwise_add(scores, assign(causal.astype(convert_dtype(scores.dtype))))
    weights = activation('softmax', scores, {'axis': -1})
    if dropout_p:
        weights = dropout(weights, dropout_p, training=training, mode='upscale_in_train')
    return _manipulation.transpose(_math.matmul(weights, v), [0, 2, 1, 3], name=name)
