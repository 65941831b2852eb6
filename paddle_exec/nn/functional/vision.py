"""paddle.nn.functional vision functions (Paddle 2.6 static mode): affine_grid, grid_sample, pixel_unshuffle,
channel_shuffle, temporal_shift, unfold and fold -- one op each (layers/vision.py's `vision_op`), with the 2.x
attributes (align_corners, mode, padding_mode, data_format). grid_sample appends `grid_sampler` under a helper
named `grid_sample`, as 2.6 does."""
from __future__ import annotations

from ...framework.variable import Variable
from ...layers.checks import check_type, check_variable_and_dtype
from ...layers.vision import unfold_attrs, vision_op

__all__ = ['affine_grid', 'grid_sample', 'pixel_unshuffle', 'channel_shuffle', 'temporal_shift', 'unfold', 'fold']


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """F.affine_grid: `affine_grid` with the 2.x align_corners attribute (use_cudnn False on CPU)."""
    if not isinstance(theta, Variable):
        raise ValueError('The theta should be a Tensor.')
    check_variable_and_dtype(theta, 'theta', ['float32', 'float64'], 'affine_grid')
    inputs = {'Theta': [theta]}
    attrs = {'align_corners': bool(align_corners), 'use_cudnn': False}
    if isinstance(out_shape, Variable):
        check_variable_and_dtype(out_shape, 'out_shape', ['int32'], 'affine_grid')
        inputs['OutputShape'] = [out_shape]
    else:
        attrs['output_shape'] = [int(v) for v in out_shape]
    return vision_op('affine_grid', inputs, attrs, theta.dtype, 'Output', name)


def grid_sample(x, grid, mode='bilinear', padding_mode='zeros', align_corners=True, name=None):
    """F.grid_sample: `grid_sampler` (4-D inputs) with mode 'bilinear' / 'nearest' and padding_mode 'zeros' /
    'border' / 'reflection'."""
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("The mode of grid sample function should be in ['bilinear', 'nearest'], but got: %s" % mode)
    if padding_mode not in ('zeros', 'reflection', 'border'):
        raise ValueError("The padding mode of grid sample function should be in ['zeros', 'reflection', 'border'], "
                         "but got: %s" % padding_mode)
    if not isinstance(align_corners, bool):
        raise ValueError('The align corners should be bool, but got: %s' % (align_corners,))
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'grid_sample')
    check_variable_and_dtype(grid, 'grid', ['float32', 'float64'], 'grid_sample')
    if len(grid.shape) == 5:
        raise NotImplementedError('F.grid_sample on 5-D volumes is not supported in paddle_exec (4-D inputs are)')
    return vision_op('grid_sampler', {'X': [x], 'Grid': [grid]},
                     {'mode': mode, 'padding_mode': padding_mode, 'align_corners': align_corners, 'use_cudnn': False},
                     x.dtype, 'Output', name, helper_name='grid_sample')


def _check_4d_format(x, data_format):
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'.But recevie Attr(data_format): %s "
                         % data_format)


def pixel_unshuffle(x, downscale_factor, data_format='NCHW', name=None):
    """F.pixel_unshuffle: [N, C, H * r, W * r] -> [N, C * r * r, H, W] (`pixel_unshuffle`)."""
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    if not isinstance(downscale_factor, int):
        raise TypeError('Downscale factor must be int type')
    if downscale_factor <= 0:
        raise ValueError('Downscale factor must be positive')
    _check_4d_format(x, data_format)
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'pixel_unshuffle')
    return vision_op('pixel_unshuffle', {'X': [x]}, {'downscale_factor': downscale_factor, 'data_format': data_format},
                     x.dtype, name=name)


def channel_shuffle(x, groups, data_format='NCHW', name=None):
    """F.channel_shuffle: channels viewed as [groups, C / groups] and transposed (`channel_shuffle`)."""
    if len(x.shape) != 4:
        raise ValueError('Input x should be 4D tensor, but received x with the shape of %s' % (list(x.shape),))
    if not isinstance(groups, int):
        raise TypeError('groups must be int type')
    if groups <= 0:
        raise ValueError('groups must be positive')
    _check_4d_format(x, data_format)
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'channel_shuffle')
    return vision_op('channel_shuffle', {'X': [x]}, {'groups': groups, 'data_format': data_format}, x.dtype,
                     name=name)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format='NCHW'):
    """F.temporal_shift: `temporal_shift` with the 2.x data_format attribute."""
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % data_format)
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'temporal_shift')
    check_type(seg_num, 'seg_num', int, 'temporal_shift')
    check_type(shift_ratio, 'shift_ratio', float, 'temporal_shift')
    return vision_op('temporal_shift', {'X': [x]},
                     {'seg_num': seg_num, 'shift_ratio': shift_ratio, 'data_format': data_format}, x.dtype, name=name)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """F.unfold: im2col, [N, C, H, W] -> [N, C * kh * kw, L]; paddings [top, left, bottom, right]."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'unfold')
    if len(x.shape) != 4:
        raise AssertionError('input should be the format of [N, C, H, W]')
    return vision_op('unfold', {'X': [x]}, unfold_attrs(kernel_sizes, strides, paddings, dilations), x.dtype, 'Y',
                     name)


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """F.fold: col2im, [N, C * kh * kw, L] -> [N, C, H, W] with overlapping blocks summed."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'fold')
    if len(x.shape) != 3:
        raise AssertionError('input should be the format of [N, C, L]')
    if isinstance(output_sizes, int):
        output_sizes = [output_sizes, output_sizes]
    elif not (isinstance(output_sizes, (list, tuple)) and len(output_sizes) == 2):
        raise AssertionError('output_sizes should either be an integer or a list/tuple of two integers')
    attrs = unfold_attrs(kernel_sizes, strides, paddings, dilations)
    attrs['output_sizes'] = [int(v) for v in output_sizes]
    return vision_op('fold', {'X': [x]}, attrs, x.dtype, 'Y', name)
