"""paddle.nn.functional common layers: linear (matmul_v2, then the bias added on the last axis, as Paddle 2.x
builds it) and dropout (Paddle 2.x defaults: p=0.5, training=True, upscale_in_train)."""
from __future__ import annotations

from ...framework.variable import Variable
from ...layers.casting import cast
from ...layers.checks import check_variable_and_dtype
from ...layers.common import dropout_op
from ...layers.helper import LayerHelper
from ...layers.image import pad_op, pixel_shuffle_op, resize_sizes
from ...layers.loss import label_smooth_op
from ...tensor.manipulation import squeeze, unsqueeze
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
    'downgrade_in_infer'. p == 0 returns x unchanged, as Paddle does."""
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
    if axis is not None:
        if not isinstance(axis, (int, list, tuple)):
            raise TypeError('datatype of axis argument should be int or list')
        raise NotImplementedError('F.dropout with axis (dropout over chosen axes) is not supported yet')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'dropout')
    impl = 'downgrade_in_infer' if mode == 'downscale_in_infer' else mode
    return dropout_op(x, p, not training, None, impl, name=name)


# ---------------------------------------------------------------------------------------------------------------
# pad, interpolate / upsample, pixel_shuffle (Paddle 2.4 static mode)

__all__ += ['pad', 'interpolate', 'upsample', 'pixel_shuffle']

_PAD_FORMATS = {3: ('NCL', 'NLC'), 4: ('NCHW', 'NHWC'), 5: ('NCDHW', 'NDHWC')}


def pad(x, pad, mode='constant', value=0.0, data_format='NCHW', name=None):
    """F.pad: a constant padding of every dim (len(pad) == 2 * rank) is one `pad` op; otherwise `pad3d`, with a
    3-D / 4-D input unsqueezed to 5-D around it (`unsqueeze2`, `pad3d`, `squeeze2`), as Paddle 2.4 builds it.
    `pad` for pad3d lists the innermost dim first: [left, right, top, bottom, front, back]."""
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
    if isinstance(pad, Variable):
        raise NotImplementedError('F.pad: a Variable `pad` is not supported yet; pass a list')
    pad = [int(p) for p in pad]
    channel_last = data_format[-1] == 'C'
    unsqueezed = []
    if x_dim == 3:
        pad = [0, 0, 0, 0] + pad
        unsqueezed = [2, 3] if channel_last else [3, 4]
    elif x_dim == 4:
        pad = pad + [0, 0]
        unsqueezed = [1] if channel_last else [2]
    if unsqueezed:
        x = unsqueeze(x, axis=unsqueezed)
    helper = LayerHelper('pad3d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pad3d', {'X': [x]}, {'Out': [out]},
                     {'mode': mode, 'value': float(value), 'data_format': 'NDHWC' if channel_last else 'NCDHW',
                      'paddings': pad})
    return squeeze(out, axis=unsqueezed) if unsqueezed else out


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
