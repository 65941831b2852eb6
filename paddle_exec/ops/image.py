"""Image ops: pad, pad2d, pad3d, bilinear_interp / nearest_interp (Paddle 1.8) and their _v2 forms (Paddle 2.x),
pixel_shuffle.

The numerics live in `kernels/image.py` (checked against paddlepaddle 1.8.5 and 2.6.2); this module holds the
schemas with Paddle's slot and attribute names, compile-time shapes (-1 where a size comes from a tensor), and the
kernel factories.

Paddle facts kept here:
- `pad2d` paddings are [top, bottom, left, right]; `pad3d` paddings are [left, right, top, bottom, front, back]
  (innermost dim first); both take an optional int32 `Paddings` tensor that wins over the attribute. `pad2d` modes
  are constant / reflect / edge, `pad3d`'s constant / reflect / replicate / circular; its pad value is `value`.
- interp output size, v1: `scale` > 0 gives `int(in * scale)`, then an `OutSize` tensor, then a `SizeTensor` list
  override it, in that order; the ratio is always `in / out`. v2 (`scale` a list): `SizeTensor` wins over
  everything; else a `Scale` tensor or the `scale` attribute gives `int(in * scale)` and `OutSize` may override
  the size while the ratio stays `1 / scale` (Paddle's rule, reproduced).
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import image as KI

# ---------------------------------------------------------------------------------------------------------------
# pad (constant, any rank)

defop('pad', ['X'], ['Out'], {'paddings': [], 'pad_value': 0.0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('pad')
def _pad_shape(ctx):
    xs = ctx.in_shape('X')
    p = list(ctx.attr('paddings'))
    if len(p) != 2 * len(xs):
        raise ValueError("operator 'pad': the size of Attr(paddings) should be equal to 2 * the rank of X (%d), but "
                         "received %d (X shape %s)" % (2 * len(xs), len(p), list(xs)))
    if any(v < 0 for v in p):
        raise ValueError("operator 'pad': paddings must be non-negative, got %s" % p)
    out = tuple(d + p[2 * i] + p[2 * i + 1] if d >= 0 else -1 for i, d in enumerate(xs))
    ctx.set_output('Out', out, ctx.in_dtype('X'))


@kernel_rule('pad')
def _pad_kernel(spec):
    paddings, value = list(spec.attr('paddings')), float(spec.attr('pad_value'))
    return lambda x: (KI.pad_forward(x, paddings, value),)


@kernel_rule('pad_grad')
def _pad_grad_kernel(spec):
    paddings = list(spec.attr('paddings'))
    return lambda x, dout: (KI.pad_backward(dout, paddings, x.shape),)


# ---------------------------------------------------------------------------------------------------------------
# pad2d / pad3d

defop('pad2d', ['X', 'Paddings'], ['Out'],
      {'paddings': [0, 0, 0, 0], 'pad_value': 0.0, 'mode': 'constant', 'data_format': 'NCHW'},
      dispensable=['Paddings'], grad=GradSpec(('X', 'Paddings', 'Out@GRAD'), ('X@GRAD',)))
defop('pad3d', ['X', 'Paddings'], ['Out'],
      {'paddings': [0, 0, 0, 0, 0, 0], 'value': 0.0, 'mode': 'constant', 'data_format': 'NCDHW'},
      dispensable=['Paddings'], grad=GradSpec(('X', 'Paddings', 'Out@GRAD'), ('X@GRAD',)))

_PAD_MODES = {'pad2d': ('constant', 'reflect', 'edge'), 'pad3d': ('constant', 'reflect', 'replicate', 'circular')}
_PAD_FORMATS = {'pad2d': ('NCHW', 'NHWC'), 'pad3d': ('NCDHW', 'NDHWC')}


def _spatial_pairs(op_type: str, paddings) -> list:
    """(before, after) per spatial dim in (d,) h, w order, from the op's own paddings layout."""
    p = [int(v) for v in paddings]
    if op_type == 'pad2d':
        return [(p[0], p[1]), (p[2], p[3])]
    return [(p[4], p[5]), (p[2], p[3]), (p[0], p[1])]


def _check_pad_attrs(op_type, mode, fmt, n_pads):
    if mode not in _PAD_MODES[op_type]:
        raise ValueError("operator '%s': mode must be one of %s, got %r" % (op_type, list(_PAD_MODES[op_type]), mode))
    if fmt not in _PAD_FORMATS[op_type]:
        raise ValueError("operator '%s': data_format must be one of %s, got %r"
                         % (op_type, list(_PAD_FORMATS[op_type]), fmt))
    want = 4 if op_type == 'pad2d' else 6
    if n_pads is not None and n_pads != want:
        raise ValueError("operator '%s': the size of paddings should be %d, got %d" % (op_type, want, n_pads))


def _padnd_shape(ctx):
    op_type = ctx.op.type
    xs = ctx.in_shape('X')
    fmt, mode = ctx.attr('data_format'), ctx.attr('mode')
    _check_pad_attrs(op_type, mode, fmt, None if ctx.has_input('Paddings') else len(ctx.attr('paddings')))
    rank = 4 if op_type == 'pad2d' else 5
    if len(xs) != rank:
        raise ValueError("operator '%s': X must be a %d-D tensor (%s), got shape %s" % (op_type, rank, fmt, list(xs)))
    last = fmt.endswith('C')
    spatial_axes = list(range(1, rank - 1)) if last else list(range(2, rank))
    out = list(xs)
    if not ctx.has_input('Paddings'):
        for axis, (a, b) in zip(spatial_axes, _spatial_pairs(op_type, ctx.attr('paddings'))):
            if xs[axis] >= 0:
                if mode == 'reflect' and (a >= xs[axis] or b >= xs[axis]):
                    raise ValueError("operator '%s': reflect paddings (%d, %d) must be smaller than the input size %d "
                                     "(X shape %s)" % (op_type, a, b, xs[axis], list(xs)))
                out[axis] = xs[axis] + a + b
    else:
        for axis in spatial_axes:
            out[axis] = -1
    ctx.set_output('Out', tuple(out), ctx.in_dtype('X'))


def _padnd_factory(spec, backward: bool):
    op_type = spec.type.replace('_grad', '')
    mode, fmt = spec.attr('mode'), spec.attr('data_format')
    from_tensor = spec.has_input('Paddings')
    _check_pad_attrs(op_type, mode, fmt, None if from_tensor else len(spec.attr('paddings')))
    value = float(spec.attr('pad_value' if op_type == 'pad2d' else 'value'))
    last = fmt.endswith('C')
    fixed = None if from_tensor else _spatial_pairs(op_type, spec.attr('paddings'))

    def pairs(tensor):
        return fixed if tensor is None else _spatial_pairs(op_type, np.asarray(tensor).ravel())

    if backward:
        return lambda x, paddings, dout: (KI.padnd_backward(dout, x.shape, pairs(paddings), mode, last),)
    return lambda x, paddings: (KI.padnd_forward(x, pairs(paddings), mode, value, last),)


for _t in ('pad2d', 'pad3d'):
    shape_rule(_t)(_padnd_shape)
    kernel_rule(_t)(lambda spec: _padnd_factory(spec, False))
    kernel_rule(_t + '_grad')(lambda spec: _padnd_factory(spec, True))


# ---------------------------------------------------------------------------------------------------------------
# bilinear_interp / nearest_interp (v1) and *_v2

_INTERP_ATTRS = {'data_layout': 'NCHW', 'out_d': -1, 'out_h': -1, 'out_w': -1, 'interp_method': 'bilinear',
                 'align_corners': True, 'align_mode': 1}
_INTERP_V1 = ('bilinear_interp', 'nearest_interp')
_INTERP_V2 = ('bilinear_interp_v2', 'nearest_interp_v2')

for _t in _INTERP_V1 + _INTERP_V2:
    _method = _t.split('_')[0]
    defop(_t, ['X', 'OutSize', 'SizeTensor', 'Scale'], ['Out'],
          {**_INTERP_ATTRS, 'interp_method': _method, 'scale': [] if _t.endswith('_v2') else 0.0},
          duplicable=['SizeTensor'], dispensable=['OutSize', 'SizeTensor', 'Scale'],
          grad=GradSpec(('X', 'OutSize', 'SizeTensor', 'Scale', 'Out@GRAD'), ('X@GRAD',)))


def _v2_attr_scales(scale) -> tuple[float, float]:
    s = [float(v) for v in (scale or [])]
    if len(s) > 1:
        return s[0], s[1]
    return (s[0], s[0]) if s else (-1.0, -1.0)


def interp_output_size(op_type: str, attr, in_hw, out_size=None, size_tensor=None, scale_tensor=None):
    """((out_h, out_w), (scale_h, scale_w)) as Paddle's kernels pick them (see the module docstring); scale_* > 0
    only where the v2 ratio uses it. `attr(name)` reads an attribute; sizes may be -1 at compile time."""
    h, w = in_hw
    oh, ow = int(attr('out_h')), int(attr('out_w'))
    if not op_type.endswith('_v2'):
        scale = float(np.asarray(scale_tensor).ravel()[0]) if scale_tensor is not None else float(attr('scale'))
        if scale > 0:
            oh = int(np.float32(h) * np.float32(scale)) if h >= 0 else -1     # C++: int * float
            ow = int(np.float32(w) * np.float32(scale)) if w >= 0 else -1
        if out_size is not None:
            oh, ow = (int(v) for v in np.asarray(out_size).ravel()[:2])
        if size_tensor:
            oh, ow = (int(np.asarray(t).ravel()[0]) for t in size_tensor[:2])
        return (oh, ow), (0.0, 0.0)
    if size_tensor:
        return tuple(int(np.asarray(t).ravel()[0]) for t in size_tensor[:2]), (0.0, 0.0)
    if scale_tensor is not None:
        s = [float(v) for v in np.asarray(scale_tensor).ravel()]
        sh, sw = (s[0], s[1]) if len(s) > 1 else (s[0], s[0])
    else:
        sh, sw = _v2_attr_scales(attr('scale'))
    if sh > 0 and sw > 0:
        oh = int(np.float32(h) * np.float32(sh)) if h >= 0 else -1
        ow = int(np.float32(w) * np.float32(sw)) if w >= 0 else -1
    else:
        sh = sw = 0.0
    if out_size is not None:
        oh, ow = (int(v) for v in np.asarray(out_size).ravel()[:2])
    return (oh, ow), (sh, sw)


def _interp_layout(op_type, layout):
    if layout not in ('NCHW', 'NHWC'):
        raise ValueError("operator '%s': data_layout must be 'NCHW' or 'NHWC' (4-D input), got %r"
                         % (op_type, layout))
    return layout == 'NHWC'


def _interp_shape(ctx):
    op_type = ctx.op.type
    xs = ctx.in_shape('X')
    last = _interp_layout(op_type, ctx.attr('data_layout'))
    if len(xs) != 4:
        raise ValueError("operator '%s': X must be a 4-D tensor, got shape %s" % (op_type, list(xs)))
    in_hw = (xs[1], xs[2]) if last else (xs[2], xs[3])
    if ctx.has_input('SizeTensor') or ctx.has_input('OutSize') or ctx.has_input('Scale'):
        oh = ow = -1
    else:
        (oh, ow), _ = interp_output_size(op_type, ctx.attr, in_hw)
        if not _scaled(ctx) and (oh <= 0 or ow <= 0):
            raise ValueError("operator '%s': the output size must be positive, got out_h %d, out_w %d (set out_shape "
                             "or scale)" % (op_type, oh, ow))
    out = (xs[0], oh, ow, xs[3]) if last else (xs[0], xs[1], oh, ow)
    ctx.set_output('Out', out, ctx.in_dtype('X'))


def _scaled(ctx) -> bool:
    s = ctx.attr('scale')
    return (max(s) if s else 0) > 0 if isinstance(s, (list, tuple)) else s > 0


def _interp_factory(spec, backward: bool):
    op_type = spec.type.replace('_grad', '')
    last = _interp_layout(op_type, spec.attr('data_layout'))
    method = spec.attr('interp_method')
    align_corners, align_mode = bool(spec.attr('align_corners')), int(spec.attr('align_mode'))

    def geometry(x, out_size, size_tensor, scale):
        in_hw = (x.shape[1], x.shape[2]) if last else (x.shape[2], x.shape[3])
        (oh, ow), scales = interp_output_size(op_type, spec.attr, in_hw, out_size, size_tensor, scale)
        if oh <= 0 or ow <= 0:
            raise ValueError("operator '%s': the output size must be positive, got [%d, %d]" % (op_type, oh, ow))
        return (oh, ow), scales

    if backward:
        def run_grad(x, out_size, size_tensor, scale, dout):
            _, scales = geometry(x, out_size, size_tensor, scale)
            return (KI.interp_backward(dout, x.shape, method, align_corners, align_mode, scales, last),)
        return run_grad

    def run(x, out_size, size_tensor, scale):
        out_hw, scales = geometry(x, out_size, size_tensor, scale)
        return (KI.interp_forward(x, out_hw, method, align_corners, align_mode, scales, last),)
    return run


for _t in _INTERP_V1 + _INTERP_V2:
    shape_rule(_t)(_interp_shape)
    kernel_rule(_t)(lambda spec: _interp_factory(spec, False))
    kernel_rule(_t + '_grad')(lambda spec: _interp_factory(spec, True))


# ---------------------------------------------------------------------------------------------------------------
# pixel_shuffle

defop('pixel_shuffle', ['X'], ['Out'], {'upscale_factor': 1, 'data_format': 'NCHW'},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('pixel_shuffle')
def _pixel_shuffle_shape(ctx):
    xs = ctx.in_shape('X')
    r, fmt = int(ctx.attr('upscale_factor')), ctx.attr('data_format')
    if len(xs) != 4:
        raise ValueError("operator 'pixel_shuffle': X must be a 4-D tensor, got shape %s" % (list(xs),))
    if fmt not in ('NCHW', 'NHWC'):
        raise ValueError("operator 'pixel_shuffle': data_format must be 'NCHW' or 'NHWC', got %r" % (fmt,))
    last = fmt == 'NHWC'
    n, c, h, w = (xs[0], xs[3], xs[1], xs[2]) if last else xs
    if r <= 0 or (c >= 0 and c % (r * r) != 0):
        raise ValueError("operator 'pixel_shuffle': the square of upscale_factor[%d] should divide the number of "
                         "channel[%d]" % (r, c))
    oc = c // (r * r) if c >= 0 else -1
    oh, ow = (h * r if h >= 0 else -1), (w * r if w >= 0 else -1)
    ctx.set_output('Out', (n, oh, ow, oc) if last else (n, oc, oh, ow), ctx.in_dtype('X'))


@kernel_rule('pixel_shuffle')
def _pixel_shuffle_kernel(spec):
    r, last = int(spec.attr('upscale_factor')), spec.attr('data_format') == 'NHWC'
    return lambda x: (KI.pixel_shuffle_forward(x, r, last),)


@kernel_rule('pixel_shuffle_grad')
def _pixel_shuffle_grad_kernel(spec):
    r, last = int(spec.attr('upscale_factor')), spec.attr('data_format') == 'NHWC'
    return lambda dout: (KI.pixel_shuffle_backward(dout, r, last),)
