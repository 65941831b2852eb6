"""Image ops: pad, pad_constant_like, pad2d, pad3d, the interpolations (bilinear / nearest / trilinear / linear /
bicubic _interp of Paddle 1.8 and their _v2 forms of Paddle 2.x), pixel_shuffle.

The numerics live in `kernels/image.py` (checked against paddlepaddle 1.8.5 and 2.6.2); this module holds the
schemas with Paddle's slot and attribute names, compile-time shapes (-1 where a size comes from a tensor), and the
kernel factories.

Paddle facts kept here:
- `pad2d` paddings are [top, bottom, left, right]; `pad3d` paddings are [left, right, top, bottom, front, back]
  (innermost dim first); both take an optional int32 `Paddings` tensor that wins over the attribute. `pad2d` modes
  are constant / reflect / edge, `pad3d`'s constant / reflect / replicate / circular; its pad value is `value`.
- interp output size, per spatial axis (out_w; out_h, out_w; out_d, out_h, out_w), v1: `scale` > 0 gives
  `int(in * scale)`, then an `OutSize` tensor, then a `SizeTensor` list override it, in that order; the ratio is
  always `in / out`. v2 (`scale` a list, one value or one per axis): `SizeTensor` wins over everything; else a
  `Scale` tensor or the `scale` attribute gives `int(in * scale)` and `OutSize` may override the size while the
  ratio stays `1 / scale` (Paddle's rule, reproduced). data_layout is 'NCHW' or 'NHWC' whatever the rank.
- the 4-D bilinear / nearest ops run image.py's kernels; the others the separable kernels of resample.py.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import image as KI
from ..kernels import resample as KR

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
# pad_constant_like: Y padded after its end, in every dim, to the shape of X

defop('pad_constant_like', ['X', 'Y'], ['Out'], {'pad_value': 0.0}, grad=GradSpec(('Y', 'Out@GRAD'), ('Y@GRAD',)))


@shape_rule('pad_constant_like')
def _pad_like_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(xs) != len(ys) or any(a >= 0 and b >= 0 and a < b for a, b in zip(xs, ys)):
        raise ValueError("operator 'pad_constant_like': X %s must have Y's rank and no smaller dims than Y %s"
                         % (list(xs), list(ys)))
    ctx.set_output('Out', xs, ctx.in_dtype('Y'))


@kernel_rule('pad_constant_like')
def _pad_like_kernel(spec):
    value = float(spec.attr('pad_value'))
    return lambda x, y: (KI.pad_forward(y, [p for a, b in zip(x.shape, y.shape) for p in (0, a - b)], value),)


@kernel_rule('pad_constant_like_grad')
def _pad_like_grad_kernel(spec):
    return lambda y, dout: (np.ascontiguousarray(dout[tuple(slice(0, d) for d in y.shape)]),)


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
# interpolation: bilinear / nearest (4-D), trilinear (5-D), linear (3-D), bicubic (4-D), nearest_v2 (4-D or 5-D);
# v1 (Paddle 1.8) and _v2 (2.x) forms

_INTERP_ATTRS = {'data_layout': 'NCHW', 'out_d': -1, 'out_h': -1, 'out_w': -1, 'interp_method': 'bilinear',
                 'align_corners': True, 'align_mode': 1}
_INTERP_METHODS = ('bilinear', 'nearest', 'trilinear', 'linear', 'bicubic')
_INTERP_TYPES = tuple('%s_interp%s' % (m, v) for m in _INTERP_METHODS for v in ('', '_v2'))
# spatial ranks each method accepts
_INTERP_RANKS = {'bilinear': (2,), 'nearest': (2, 3), 'trilinear': (3,), 'linear': (1,), 'bicubic': (2,)}

for _t in _INTERP_TYPES:
    _method = _t.split('_')[0]
    defop(_t, ['X', 'OutSize', 'SizeTensor', 'Scale'], ['Out'],
          {**_INTERP_ATTRS, 'interp_method': _method, 'scale': [] if _t.endswith('_v2') else 0.0},
          duplicable=['SizeTensor'], dispensable=['OutSize', 'SizeTensor', 'Scale'],
          grad=GradSpec(('X', 'OutSize', 'SizeTensor', 'Scale', 'Out@GRAD'), ('X@GRAD',)))


def _v2_scales(values, n: int) -> list:
    """Per-axis scales from a v2 `scale` list or Scale tensor: one value for all axes, or one per axis."""
    s = [float(v) for v in values]
    if not s:
        return [-1.0] * n
    return s[:n] if len(s) >= n and len(s) > 1 else [s[0]] * n


def interp_output_size(op_type: str, attr, in_sizes, out_size=None, size_tensor=None, scale_tensor=None):
    """(output sizes, scales) of an interp op as Paddle's kernels pick them (see the module docstring), one per
    spatial axis (1 to 3); scales > 0 only where the v2 ratio uses them. `attr(name)` reads an attribute; sizes
    may be -1 at compile time."""
    n = len(in_sizes)
    outs = [int(attr(k)) for k in ('out_d', 'out_h', 'out_w')[3 - n:]]

    def scaled(sc):
        return [int(np.float32(d) * np.float32(f)) if d >= 0 else -1 for d, f in zip(in_sizes, sc)]

    def from_tensors(values):
        return [int(np.asarray(t).ravel()[0]) for t in values[:n]]
    if not op_type.endswith('_v2'):
        scale = float(np.asarray(scale_tensor).ravel()[0]) if scale_tensor is not None else float(attr('scale'))
        if scale > 0:
            outs = scaled([scale] * n)                              # C++: int * float
        if out_size is not None:
            outs = [int(v) for v in np.asarray(out_size).ravel()[:n]]
        if size_tensor:
            outs = from_tensors(size_tensor)
        return outs, [0.0] * n
    if size_tensor:
        return from_tensors(size_tensor), [0.0] * n
    scales = _v2_scales(np.asarray(scale_tensor).ravel() if scale_tensor is not None else (attr('scale') or []), n)
    if all(v > 0 for v in scales):
        outs = scaled(scales)
    else:
        scales = [0.0] * n
    if out_size is not None:
        outs = [int(v) for v in np.asarray(out_size).ravel()[:n]]
    return outs, scales


def _interp_geometry(op_type, layout, rank):
    method = op_type.split('_')[0]
    if layout not in ('NCHW', 'NHWC', 'NCDHW', 'NDHWC', 'NCW', 'NWC'):
        raise ValueError("operator '%s': data_layout must be 'NCHW' or 'NHWC', got %r" % (op_type, layout))
    if rank - 2 not in _INTERP_RANKS[method]:
        raise ValueError("operator '%s': X must be a %s-D tensor, got a %d-D one"
                         % (op_type, ' or '.join(str(r + 2) for r in _INTERP_RANKS[method]), rank))
    return method, layout.endswith('C') and layout != 'NC'


def _interp_shape(ctx):
    op_type = ctx.op.type
    xs = ctx.in_shape('X')
    _, last = _interp_geometry(op_type, ctx.attr('data_layout'), len(xs))
    spatial = xs[1:-1] if last else xs[2:]
    if ctx.has_input('SizeTensor') or ctx.has_input('OutSize') or ctx.has_input('Scale'):
        outs = [-1] * len(spatial)
    else:
        outs, _ = interp_output_size(op_type, ctx.attr, spatial)
        if not _scaled(ctx) and any(o <= 0 for o in outs):
            raise ValueError("operator '%s': the output size must be positive, got %s (set out_shape or scale)"
                             % (op_type, outs))
    out = (xs[0],) + tuple(outs) + (xs[-1],) if last else (xs[0], xs[1]) + tuple(outs)
    ctx.set_output('Out', out, ctx.in_dtype('X'))


def _scaled(ctx) -> bool:
    s = ctx.attr('scale')
    return (max(s) if s else 0) > 0 if isinstance(s, (list, tuple)) else s > 0


_FILTERS = {'bilinear': 'linear', 'trilinear': 'linear', 'linear': 'linear', 'bicubic': 'cubic', 'nearest': 'nearest'}


def _interp_factory(spec, backward: bool):
    op_type = spec.type.replace('_grad', '')
    layout = spec.attr('data_layout')
    align_corners, align_mode = bool(spec.attr('align_corners')), int(spec.attr('align_mode'))

    def geometry(x, out_size, size_tensor, scale):
        method, last = _interp_geometry(op_type, layout, x.ndim)
        spatial = x.shape[1:-1] if last else x.shape[2:]
        outs, scales = interp_output_size(op_type, spec.attr, spatial, out_size, size_tensor, scale)
        if any(o <= 0 for o in outs):
            raise ValueError("operator '%s': the output size must be positive, got %s" % (op_type, outs))
        return method, last, outs, scales

    if backward:
        def run_grad(x, out_size, size_tensor, scale, dout):
            method, last, _, scales = geometry(x, out_size, size_tensor, scale)
            if x.ndim == 4 and method in ('bilinear', 'nearest'):
                return (KI.interp_backward(dout, x.shape, method, align_corners, align_mode, scales, last),)
            return (KR.resample_backward(dout, x.shape, _FILTERS[method], align_corners, align_mode, scales, last),)
        return run_grad

    def run(x, out_size, size_tensor, scale):
        method, last, outs, scales = geometry(x, out_size, size_tensor, scale)
        if x.ndim == 4 and method in ('bilinear', 'nearest'):
            return (KI.interp_forward(x, outs, method, align_corners, align_mode, scales, last),)
        return (KR.resample_forward(x, outs, _FILTERS[method], align_corners, align_mode, scales, last),)
    return run


for _t in _INTERP_TYPES:
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
