"""Padding and resizing of images with fluid 1.8.5's signatures: pad, pad2d, image_resize (= interpolate) /
resize_bilinear / resize_nearest / resize_trilinear / image_resize_short (`bilinear_interp` / `nearest_interp` /
`trilinear_interp`), pixel_shuffle.

An output size may hold Variables: they go to `SizeTensor`, plain ints becoming int32 `fill_constant`
temporaries of the helper, as Paddle builds them (`size_tensors`); a whole Variable is `OutSize`.
"""
from __future__ import annotations

import warnings

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .creation import fill_constant
from .helper import LayerHelper

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
    """fluid.layers.image_resize: `bilinear_interp` / `nearest_interp` (4-D) or `trilinear_interp` (5-D).

    out_shape (a list of ints / Variables, or a Variable: `OutSize`) wins over scale (a float: the `scale`
    attribute, or a Variable: `Scale`); actual_shape, deprecated, is an `OutSize` wired at run time. The op's
    data_layout is 'NCHW' or 'NHWC' for 5-D inputs too, as 1.8 passes it."""
    methods = {'BILINEAR': 'bilinear', 'TRILINEAR': 'trilinear', 'NEAREST': 'nearest'}
    if resample not in methods:
        raise ValueError("The 'resample' of image_resize can only be 'BILINEAR', 'TRILINEAR' or 'NEAREST' "
                         "currently.")
    if resample in ('BILINEAR', 'NEAREST') and len(input.shape) != 4:
        raise ValueError("'BILINEAR' and 'NEAREST' only support 4-D tensor.")
    return _resize(input, out_shape, scale, name, resample, actual_shape, align_corners, align_mode, data_format)


def interpolate(input, out_shape=None, scale=None, name=None, resample='BILINEAR', actual_shape=None,
                align_corners=True, align_mode=1, data_format='NCHW'):
    """fluid.layers.interpolate: image_resize, with 'BICUBIC' (`bicubic_interp`, 4-D) too."""
    if resample not in ('BILINEAR', 'TRILINEAR', 'NEAREST', 'BICUBIC'):
        raise ValueError("The 'resample' of image_resize can only be 'BILINEAR', 'TRILINEAR',  'BICUBIC' or "
                         "'NEAREST' currently.")
    if resample in ('BILINEAR', 'NEAREST', 'BICUBIC') and len(input.shape) != 4:
        raise ValueError("'BILINEAR', 'BICUBIC' and 'NEAREST' only support 4-D tensor.")
    return _resize(input, out_shape, scale, name, resample, actual_shape, align_corners, align_mode, data_format)


def _resize(input, out_shape, scale, name, resample, actual_shape, align_corners, align_mode, data_format):
    """The `<method>_interp` op of fluid's image_resize / interpolate, after their method checks."""
    method = resample.lower()
    if resample == 'TRILINEAR' and len(input.shape) != 5:
        raise ValueError("'TRILINEAR'only support 5-D tensor.")
    if not isinstance(align_corners, bool):
        raise TypeError('Attr align_corners should be a bool value')
    if align_mode not in (0, 1):
        raise ValueError('align_mode can only be 0 or 1')
    if out_shape is None and scale is None:
        raise ValueError('One of out_shape and scale must not be None.')
    if len(input.shape) == 4 and data_format not in ('NCHW', 'NHWC'):
        raise ValueError('Got wrong value for param `data_format`: ' + data_format
                         + ' received but only `NCHW` or `NHWC` supported for 4-D input.')
    if len(input.shape) == 5 and data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError('Got wrong value for param `data_format`: ' + data_format
                         + ' received but only `NCDHW` or `NDHWC` supported for 5-D input.')
    helper = LayerHelper('%s_interp' % method, name=name)
    inputs = {'X': [input]}
    attrs = {'out_d': -1, 'out_h': -1, 'out_w': -1, 'interp_method': method, 'align_corners': align_corners,
             'align_mode': int(align_mode), 'data_layout': 'NCHW' if data_format in ('NCHW', 'NCDHW') else 'NHWC'}
    if out_shape is not None:
        resize_sizes(helper, out_shape, inputs, attrs, 'out_shape', len(input.shape) - 2)
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


def resize_sizes(helper, out_shape, inputs, attrs, what, spatial_dims: int = 2):
    """The output size of a resize: an `OutSize` Variable, or out_[d, h,] w (+ SizeTensor when some of them are
    Variables)."""
    if isinstance(out_shape, Variable):
        out_shape.stop_gradient = True
        inputs['OutSize'] = [out_shape]
        return
    if not isinstance(out_shape, (list, tuple)):
        raise TypeError('%s should be a list or tuple or Variable.' % what)
    if len(out_shape) != spatial_dims:
        raise ValueError('%s length should be %d for input %d-D tensor.' % (what, spatial_dims, spatial_dims + 2))
    if any(isinstance(d, Variable) for d in out_shape):
        inputs['SizeTensor'], sizes = size_tensors(helper, out_shape)
    else:
        sizes = [int(d) for d in out_shape]
        if any(d <= 0 for d in sizes):
            raise AssertionError('Each dimension size given in out_shape must be greater than 0.')
    for key, size in zip(('out_d', 'out_h', 'out_w')[3 - spatial_dims:], sizes):
        attrs[key] = size


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                    align_mode=1, data_format='NCHW'):
    """fluid.layers.resize_bilinear: image_resize with 'BILINEAR' (align_corners True, align_mode 1)."""
    return image_resize(input, out_shape, scale, name, 'BILINEAR', actual_shape, align_corners, align_mode,
                        data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                   data_format='NCHW'):
    """fluid.layers.resize_nearest: image_resize with 'NEAREST' (align_mode is 1)."""
    return image_resize(input, out_shape, scale, name, 'NEAREST', actual_shape, align_corners, 1, data_format)


def resize_trilinear(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                     align_mode=1, data_format='NCDHW'):
    """fluid.layers.resize_trilinear: image_resize with 'TRILINEAR' on a 5-D input."""
    return image_resize(input, out_shape, scale, name, 'TRILINEAR', actual_shape, align_corners, align_mode,
                        data_format)


def image_resize_short(input, out_short_len, resample='BILINEAR'):
    """fluid.layers.image_resize_short: resizes the shorter of H and W to out_short_len, the other keeping the
    aspect ratio (rounded to nearest)."""
    if len(input.shape) != 4:
        raise ValueError('The rank of input must be 4 (num_batches, channels, in_h, in_w).')
    hw = list(input.shape[2:4])
    short_idx = hw.index(min(hw))
    long_idx = 1 - short_idx
    out_shape = list(hw)
    out_shape[short_idx] = out_short_len
    out_shape[long_idx] = int(float(out_shape[long_idx]) * (float(out_short_len) / float(hw[short_idx])) + 0.5)
    return image_resize(input=input, out_shape=out_shape, resample=resample)


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


def pad_constant_like(x, y, pad_value=0., name=None):
    """fluid.layers.pad_constant_like: y padded at the end of every dim up to x's shape with pad_value."""
    check_type(x, 'x', Variable, 'pad_constant_like')
    check_variable_and_dtype(y, 'y', ['float32', 'float64', 'int32', 'int64'], 'pad_constant_like')
    helper = LayerHelper('pad_constant_like', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pad_constant_like', {'X': [x], 'Y': [y]}, {'Out': [out]}, {'pad_value': float(pad_value)})
    return out
