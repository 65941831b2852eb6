"""Vision builders with fluid 1.8's signatures -- affine_grid, grid_sampler, unfold, shuffle_channel,
space_to_depth, temporal_shift -- and the op builders the 2.x functions share (`vision_op`).

Each appends the one op Paddle 1.8.5 appends under a helper of the op's name, with its attributes: unfold's
paddings become 4 values [top, left, bottom, right] (an int: all four; 2 values: repeated), affine_grid takes
its output shape as an attribute list or an int32 `OutputShape` Variable.
"""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper


def vision_op(op_type: str, inputs: dict, attrs: dict, dtype, out_slot: str = 'Out', name=None, helper_name=None):
    """Appends one `op_type` op (under a helper of that name, or `helper_name`) with a single output; returns it."""
    helper = LayerHelper(helper_name or op_type, name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op_type, inputs, {out_slot: [out]}, attrs)
    return out


def affine_grid(theta, out_shape, name=None):
    """fluid.layers.affine_grid: the sampling grid [N, H, W, 2] of the affine maps theta [N, 2, 3] over an
    output of out_shape [N, C, H, W] (a list, or an int32 Variable)."""
    check_variable_and_dtype(theta, 'theta', ['float32', 'float64'], 'affine_grid')
    if not isinstance(out_shape, (list, tuple, Variable)):
        raise ValueError('The out_shape should be a list, tuple or Variable.')
    inputs, attrs = {'Theta': [theta]}, {}
    if isinstance(out_shape, Variable):
        check_variable_and_dtype(out_shape, 'out_shape', ['int32'], 'affine_grid')
        inputs['OutputShape'] = [out_shape]
    else:
        attrs['output_shape'] = [int(v) for v in out_shape]
    return vision_op('affine_grid', inputs, attrs, theta.dtype, 'Output', name)


def grid_sampler(x, grid, name=None):
    """fluid.layers.grid_sampler: bilinear sampling of x [N, C, H, W] at grid [N, H_out, W_out, 2] (coordinates in
    [-1, 1], align_corners, zeros outside)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'grid_sampler')
    check_variable_and_dtype(grid, 'grid', ['float32', 'float64'], 'grid_sampler')
    return vision_op('grid_sampler', {'X': [x], 'Grid': [grid]}, {}, x.dtype, 'Output', name)


def unfold_attrs(kernel_sizes, strides, paddings, dilations) -> dict:
    """unfold's attributes from Paddle's argument forms (ints or lists)."""
    def pair(v, what):
        if isinstance(v, int):
            return [v, v]
        if not (isinstance(v, (list, tuple)) and len(v) == 2):
            raise AssertionError('%s should either be an integer or a list of two integers' % what)
        return [int(a) for a in v]
    if isinstance(paddings, int):
        paddings = [paddings] * 4
    elif isinstance(paddings, (list, tuple)) and len(paddings) in (2, 4):
        paddings = list(paddings) * (2 if len(paddings) == 2 else 1)
    else:
        raise ValueError('paddings should either be an integer or a list of 2 or 4 integers')
    return {'kernel_sizes': pair(kernel_sizes, 'kernel_sizes'), 'strides': pair(strides, 'strides'),
            'paddings': [int(p) for p in paddings], 'dilations': pair(dilations, 'dilations')}


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """fluid.layers.unfold: im2col, [N, C, H, W] -> [N, C * kh * kw, L] (one `unfold` op)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'unfold')
    if len(x.shape) != 4:
        raise AssertionError('input should be the format of [N, C, H, W]')
    return vision_op('unfold', {'X': [x]}, unfold_attrs(kernel_sizes, strides, paddings, dilations), x.dtype, 'Y',
                     name)


def shuffle_channel(x, group, name=None):
    """fluid.layers.shuffle_channel: channels viewed as [group, C / group] and transposed (ShuffleNet)."""
    if not isinstance(group, int):
        raise TypeError('group must be int type')
    return vision_op('shuffle_channel', {'X': [x]}, {'group': group}, x.dtype, name=name)


def space_to_depth(x, blocksize, name=None):
    """fluid.layers.space_to_depth: Paddle's reorg of [N, C, H, W] into [N, C * b * b, H / b, W / b]."""
    if not isinstance(blocksize, int):
        raise ValueError('blocksize must be a python Int')
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64', 'int32', 'int64'], 'space_to_depth')
    return vision_op('space_to_depth', {'X': [x]}, {'blocksize': blocksize}, x.dtype, name=name)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None):
    """fluid.layers.temporal_shift: shifts a quarter of the channels one frame back and another forward within
    each group of seg_num frames (TSM)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'temporal_shift')
    check_type(seg_num, 'seg_num', int, 'temporal_shift')
    check_type(shift_ratio, 'shift_ratio', float, 'temporal_shift')
    return vision_op('temporal_shift', {'X': [x]}, {'seg_num': seg_num, 'shift_ratio': shift_ratio}, x.dtype,
                     name=name)
