"""Vision ops: affine_grid, grid_sampler, unfold, fold, pixel_unshuffle, channel_shuffle, shuffle_channel,
space_to_depth and temporal_shift.

The numerics live in `kernels/vision.py` (checked against paddlepaddle 1.8.5 and 2.6.2); this module holds the
schemas with Paddle's slot and attribute names, compile-time shapes and the kernel factories. Paddle facts kept
here: affine_grid's output size comes from an `OutputShape` int tensor when wired, else the `output_shape`
attribute ([N, C, H, W]); fluid's shuffle_channel differentiates with the forward permutation (Paddle 1.8's
kernel; 2.x's channel_shuffle with the inverse); grid_sampler's defaults (bilinear, zeros, align_corners) are
Paddle 1.8's only behaviour, so 1.8 programs (which carry none of these attributes) run as they did; unfold's
paddings are [top, left, bottom, right].
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import vision as KV

# ---------------------------------------------------------------------------------------------------------------
# affine_grid

defop('affine_grid', ['Theta', 'OutputShape'], ['Output'],
      {'output_shape': [], 'align_corners': True, 'use_cudnn': True}, dispensable=['OutputShape'],
      grad=GradSpec(('OutputShape', 'Output@GRAD'), ('Theta@GRAD',)))


@shape_rule('affine_grid')
def _affine_grid_shape(ctx):
    ts = ctx.in_shape('Theta')
    if len(ts) != 3 or (ts[1] >= 0 and ts[1] != 2) or (ts[2] >= 0 and ts[2] != 3):
        raise ValueError("operator 'affine_grid': Theta must be [N, 2, 3], got shape %s" % (list(ts),))
    h = w = -1
    if not ctx.has_input('OutputShape'):
        size = list(ctx.attr('output_shape'))
        if len(size) != 4:
            raise ValueError("operator 'affine_grid': output_shape must be [N, C, H, W], got %s" % size)
        h, w = size[2], size[3]
    ctx.set_output('Output', (ts[0], h, w, 2), ctx.in_dtype('Theta'))


def _affine_hw(spec, shape_tensor):
    size = np.asarray(shape_tensor).ravel() if shape_tensor is not None else spec.attr('output_shape')
    return int(size[2]), int(size[3])


@kernel_rule('affine_grid')
def _affine_grid_kernel(spec):
    align = bool(spec.attr('align_corners'))
    return lambda theta, shape: (KV.affine_grid_forward(theta, _affine_hw(spec, shape), align),)


@kernel_rule('affine_grid_grad')
def _affine_grid_grad_kernel(spec):
    align = bool(spec.attr('align_corners'))
    return lambda shape, dout: (KV.affine_grid_backward(dout, _affine_hw(spec, shape), align),)


# ---------------------------------------------------------------------------------------------------------------
# grid_sampler

defop('grid_sampler', ['X', 'Grid'], ['Output'],
      {'use_cudnn': True, 'align_corners': True, 'padding_mode': 'zeros', 'mode': 'bilinear'},
      grad=GradSpec(('X', 'Grid', 'Output@GRAD'), ('X@GRAD', 'Grid@GRAD')))


@shape_rule('grid_sampler')
def _grid_sampler_shape(ctx):
    xs, gs = ctx.in_shape('X'), ctx.in_shape('Grid')
    if len(xs) != 4 or len(gs) != 4 or (gs[3] >= 0 and gs[3] != 2):
        raise ValueError("operator 'grid_sampler': X must be [N, C, H, W] and Grid [N, H_out, W_out, 2] (5-D "
                         "volumes are not supported), got X %s and Grid %s" % (list(xs), list(gs)))
    ctx.set_output('Output', (xs[0], xs[1], gs[1], gs[2]), ctx.in_dtype('X'))


def _grid_attrs(spec):
    return dict(mode=spec.attr('mode'), padding_mode=spec.attr('padding_mode'),
                align_corners=bool(spec.attr('align_corners')))


@kernel_rule('grid_sampler')
def _grid_sampler_kernel(spec):
    kw = _grid_attrs(spec)
    return lambda x, grid: (KV.grid_sample_forward(x, grid, **kw),)


@kernel_rule('grid_sampler_grad')
def _grid_sampler_grad_kernel(spec):
    kw = _grid_attrs(spec)
    return lambda x, grid, dout: KV.grid_sample_backward(x, grid, dout, **kw)


# ---------------------------------------------------------------------------------------------------------------
# unfold / fold

_UNFOLD_ATTRS = {'kernel_sizes': [1, 1], 'strides': [1, 1], 'paddings': [0, 0, 0, 0], 'dilations': [1, 1]}
defop('unfold', ['X'], ['Y'], _UNFOLD_ATTRS, grad=GradSpec(('X', 'Y@GRAD'), ('X@GRAD',)))
defop('fold', ['X'], ['Y'], {**_UNFOLD_ATTRS, 'output_sizes': [1, 1]}, grad=GradSpec(('X', 'Y@GRAD'), ('X@GRAD',)))


def _unfold_attrs(attr):
    return (list(attr('kernel_sizes')), list(attr('strides')), list(attr('paddings')), list(attr('dilations')))


def _blocks(attr, hw):
    (kh, kw), (sh, sw), (pt, pl, pb, pr), (dh, dw) = _unfold_attrs(attr)
    oh = KV.unfold_output_size(hw[0], kh, pt, pb, sh, dh) if hw[0] >= 0 else -1
    ow = KV.unfold_output_size(hw[1], kw, pl, pr, sw, dw) if hw[1] >= 0 else -1
    return oh, ow


@shape_rule('unfold')
def _unfold_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) != 4:
        raise ValueError("operator 'unfold': X must be a 4-D tensor [N, C, H, W], got shape %s" % (list(xs),))
    kh, kw = ctx.attr('kernel_sizes')
    oh, ow = _blocks(ctx.attr, xs[2:])
    if (oh != -1 and oh <= 0) or (ow != -1 and ow <= 0):
        raise ValueError("operator 'unfold': the sliding blocks are empty (%d x %d) for X %s" % (oh, ow, list(xs)))
    c = xs[1] * kh * kw if xs[1] >= 0 else -1
    ctx.set_output('Y', (xs[0], c, oh * ow if oh >= 0 and ow >= 0 else -1), ctx.in_dtype('X'))


@kernel_rule('unfold')
def _unfold_kernel(spec):
    args = _unfold_attrs(spec.attr)
    return lambda x: (KV.unfold_forward(x, *args),)


@kernel_rule('unfold_grad')
def _unfold_grad_kernel(spec):
    args = _unfold_attrs(spec.attr)
    return lambda x, dy: (KV.unfold_backward(dy, x.shape, *args),)


@shape_rule('fold')
def _fold_shape(ctx):
    xs = ctx.in_shape('X')
    (kh, kw) = ctx.attr('kernel_sizes')
    h, w = ctx.attr('output_sizes')
    if len(xs) != 3:
        raise ValueError("operator 'fold': X must be a 3-D tensor [N, C * kh * kw, L], got shape %s" % (list(xs),))
    if xs[1] >= 0 and xs[1] % (kh * kw):
        raise ValueError("operator 'fold': the channels of X (%d) must be a multiple of kh * kw (%d)"
                         % (xs[1], kh * kw))
    oh, ow = _blocks(ctx.attr, (h, w))
    if xs[2] >= 0 and xs[2] != oh * ow:
        raise ValueError("operator 'fold': X has %d blocks, the output sizes %s give %d" % (xs[2], [h, w], oh * ow))
    ctx.set_output('Y', (xs[0], xs[1] // (kh * kw) if xs[1] >= 0 else -1, h, w), ctx.in_dtype('X'))


@kernel_rule('fold')
def _fold_kernel(spec):
    args = _unfold_attrs(spec.attr)
    (kh, kw), (h, w) = spec.attr('kernel_sizes'), spec.attr('output_sizes')
    return lambda x: (KV.unfold_backward(x, (x.shape[0], x.shape[1] // (kh * kw), h, w), *args),)


@kernel_rule('fold_grad')
def _fold_grad_kernel(spec):
    args = _unfold_attrs(spec.attr)
    return lambda x, dy: (KV.unfold_forward(dy, *args),)


# ---------------------------------------------------------------------------------------------------------------
# pixel_unshuffle, channel_shuffle, shuffle_channel, space_to_depth, temporal_shift

defop('pixel_unshuffle', ['X'], ['Out'], {'downscale_factor': 1, 'data_format': 'NCHW'},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
defop('channel_shuffle', ['X'], ['Out'], {'groups': 1, 'data_format': 'NCHW'},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
defop('shuffle_channel', ['X'], ['Out'], {'group': 1}, grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
defop('space_to_depth', ['X'], ['Out'], {'blocksize': 1}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('temporal_shift', ['X'], ['Out'], {'seg_num': 1, 'shift_ratio': 0.25, 'data_format': 'NCHW'},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


def _four_d(ctx, what='X'):
    xs = ctx.in_shape(what)
    if len(xs) != 4:
        raise ValueError("operator '%s': X must be a 4-D tensor, got shape %s" % (ctx.op.type, list(xs)))
    last = ctx.op.attrs.get('data_format') == 'NHWC'
    return xs, last, ((xs[0], xs[3], xs[1], xs[2]) if last else tuple(xs))


def _div(d, r):
    return d // r if d >= 0 else -1


@shape_rule('pixel_unshuffle')
def _pixel_unshuffle_shape(ctx):
    xs, last, (n, c, h, w) = _four_d(ctx)
    r = int(ctx.attr('downscale_factor'))
    if r <= 0 or (h >= 0 and h % r) or (w >= 0 and w % r):
        raise ValueError("operator 'pixel_unshuffle': downscale_factor %d must divide the height %d and width %d"
                         % (r, h, w))
    c2 = c * r * r if c >= 0 else -1
    ctx.set_output('Out', (n, _div(h, r), _div(w, r), c2) if last else (n, c2, _div(h, r), _div(w, r)),
                   ctx.in_dtype('X'))


@kernel_rule('pixel_unshuffle')
def _pixel_unshuffle_kernel(spec):
    r, last = int(spec.attr('downscale_factor')), spec.attr('data_format') == 'NHWC'
    return lambda x: (KV.pixel_unshuffle_forward(x, r, last),)


@kernel_rule('pixel_unshuffle_grad')
def _pixel_unshuffle_grad_kernel(spec):
    r, last = int(spec.attr('downscale_factor')), spec.attr('data_format') == 'NHWC'
    return lambda dout: (KV.pixel_unshuffle_backward(dout, r, last),)


def _shuffle_shape(ctx):
    xs, _, (n, c, h, w) = _four_d(ctx)
    groups = int(ctx.attr('groups' if ctx.op.type == 'channel_shuffle' else 'group'))
    if groups <= 0 or (c >= 0 and c % groups):
        raise ValueError("operator '%s': the number of channels (%d) must be divisible by groups (%d)"
                         % (ctx.op.type, c, groups))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


def _shuffle_factory(spec, backward: bool):
    op_type = spec.type.replace('_grad', '')
    groups = int(spec.attr('groups' if op_type == 'channel_shuffle' else 'group'))
    last = spec.attr('data_format') == 'NHWC'
    if backward and op_type == 'shuffle_channel':
        # Paddle's shuffle_channel_grad applies the forward permutation to Out@GRAD (not its inverse: the two
        # differ unless group * group == C); programs trained with fluid 1.8 followed it, so it is kept
        return lambda dout: (KV.channel_shuffle_forward(dout, groups, last),)
    if backward:
        return lambda dout: (KV.channel_shuffle_backward(dout, groups, last),)
    return lambda x: (KV.channel_shuffle_forward(x, groups, last),)


for _t in ('channel_shuffle', 'shuffle_channel'):
    shape_rule(_t)(_shuffle_shape)
    kernel_rule(_t)(lambda spec: _shuffle_factory(spec, False))
    kernel_rule(_t + '_grad')(lambda spec: _shuffle_factory(spec, True))


@shape_rule('space_to_depth')
def _space_to_depth_shape(ctx):
    xs = ctx.in_shape('X')
    b = int(ctx.attr('blocksize'))
    if len(xs) != 4:
        raise ValueError("operator 'space_to_depth': X must be a 4-D tensor, got shape %s" % (list(xs),))
    if b <= 0 or any(d >= 0 and d % b for d in xs[2:]) or (xs[1] >= 0 and xs[1] % (b * b)):
        raise ValueError("operator 'space_to_depth': the height and width of X %s must be divisible by blocksize %d "
                         "and its channels by blocksize^2" % (list(xs), b))
    ctx.set_output('Out', (xs[0], xs[1] * b * b if xs[1] >= 0 else -1, _div(xs[2], b), _div(xs[3], b)),
                   ctx.in_dtype('X'))


@kernel_rule('space_to_depth')
def _space_to_depth_kernel(spec):
    b = int(spec.attr('blocksize'))
    return lambda x: (KV.space_to_depth_forward(x, b),)


@kernel_rule('space_to_depth_grad')
def _space_to_depth_grad_kernel(spec):
    b = int(spec.attr('blocksize'))
    return lambda x, dout: (KV.space_to_depth_backward(dout, x.shape, b),)


@shape_rule('temporal_shift')
def _temporal_shift_shape(ctx):
    xs, _, (nt, c, h, w) = _four_d(ctx)
    seg = int(ctx.attr('seg_num'))
    ratio = float(ctx.attr('shift_ratio'))
    if seg <= 0 or (nt >= 0 and nt % seg):
        raise ValueError("operator 'temporal_shift': the batch %d of X must be a multiple of seg_num %d" % (nt, seg))
    if not 0 < ratio < 0.5:
        raise ValueError("operator 'temporal_shift': shift_ratio must be in (0, 0.5), got %s" % ratio)
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


def _shift_attrs(spec):
    return int(spec.attr('seg_num')), float(spec.attr('shift_ratio')), spec.attr('data_format') == 'NHWC'


@kernel_rule('temporal_shift')
def _temporal_shift_kernel(spec):
    seg, ratio, last = _shift_attrs(spec)
    return lambda x: (KV.temporal_shift_forward(x, seg, ratio, last),)


@kernel_rule('temporal_shift_grad')
def _temporal_shift_grad_kernel(spec):
    seg, ratio, last = _shift_attrs(spec)
    return lambda dout: (KV.temporal_shift_backward(dout, seg, ratio, last),)
