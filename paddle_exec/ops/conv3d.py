"""3-D convolution and pooling ops, and max unpooling: conv3d, conv3d_transpose, pool3d, max_pool3d_with_index,
unpool (2-D) and unpool3d.

The numerics live in `kernels/conv3d.py` (checked against paddlepaddle 1.8.5 and 2.6.2); this module holds the
schemas with Paddle's slot and attribute names, compile-time shapes (-1 for unknown dims) and kernel factories
that read attributes once per plan.

Paddle facts kept here:
- conv3d / conv3d_transpose take the attributes of their 2-D forms; the bias is a separate `elementwise_add`
  (the ops' own Bias slot is an MKLDNN fusion and refused when wired). The filter of conv3d is [OC, C / groups,
  kd, kh, kw], of conv3d_transpose [C, OC / groups, kd, kh, kw].
- unpool's output size is its `output_size` attribute when set (Paddle 2.x builders always set it), else
  `(in - 1) * stride - 2 * padding + ksize` per spatial dim (Paddle's infer-shape rule); Indices are int32 or
  int64 flat positions in each (n, c) plane of the output.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import conv3d as K3

# ---------------------------------------------------------------------------------------------------------------
# compile-time geometry


def _triple(v) -> tuple:
    if isinstance(v, int):
        return (v, v, v)
    v = [int(a) for a in v]
    return tuple(v * 3) if len(v) == 1 else tuple(v)


def _channel_last(data_format) -> bool:
    """NDHWC, or NHWC as fluid 1.8's conv3d_transpose names it."""
    return data_format in ('NDHWC', 'NHWC')


def _ncdhw(shape, data_format):
    """(N, C, D, H, W) of a 5-D shape in `data_format`, or None when it is not 5-D."""
    if len(shape) != 5:
        return None
    if _channel_last(data_format):
        return shape[0], shape[4], shape[1], shape[2], shape[3]
    return tuple(shape)


def _from_ncdhw(n, c, spatial, data_format):
    return (n,) + tuple(spatial) + (c,) if _channel_last(data_format) else (n, c) + tuple(spatial)


def _known(sizes) -> bool:
    return all(d >= 0 for d in sizes)


# ---------------------------------------------------------------------------------------------------------------
# conv3d

_CONV_ATTRS = {
    'strides': [1, 1, 1], 'paddings': [0, 0, 0], 'dilations': [1, 1, 1], 'groups': 1,
    'padding_algorithm': 'EXPLICIT', 'data_format': 'NCDHW', 'use_cudnn': True, 'use_mkldnn': False,
    'fuse_relu_before_depthwise_conv': False, 'is_test': False, 'exhaustive_search': False, 'workspace_size_MB': 512,
}
defop('conv3d', ['Input', 'Filter', 'Bias', 'ResidualData'], ['Output'], _CONV_ATTRS,
      dispensable=['Bias', 'ResidualData'],
      grad=GradSpec(('Input', 'Filter', 'Output@GRAD'), ('Input@GRAD', 'Filter@GRAD')))


def _operands(ctx):
    fmt = ctx.attr('data_format')
    xs, ws = ctx.in_shape('Input'), ctx.in_shape('Filter')
    dims = _ncdhw(xs, fmt)
    if dims is None or len(ws) != 5:
        raise ValueError("operator '%s': Input must be 5-D and Filter 5-D, got Input %s and Filter %s"
                         % (ctx.op.type, list(xs), list(ws)))
    return fmt, ws, dims


@shape_rule('conv3d')
def _conv3d_shape(ctx):
    fmt, ws, (n, c, *spatial) = _operands(ctx)
    groups = int(ctx.attr('groups') or 1)
    if c >= 0 and ws[1] * groups != c:
        raise ValueError("operator 'conv3d': the number of input channels (%d) must equal the filter's channels (%d) "
                         "times groups (%d); Input %s, Filter %s"
                         % (c, ws[1], groups, list(ctx.in_shape('Input')), list(ws)))
    out = [-1, -1, -1]
    algo = ctx.attr('padding_algorithm')
    if _known(spatial) or algo != 'SAME':
        st, dil = _triple(ctx.attr('strides')), _triple(ctx.attr('dilations'))
        pads = K3.resolve_paddings_nd(ctx.attr('paddings'), algo, [max(d, 1) for d in spatial], ws[2:], st)
        if algo == 'SAME':
            dil = (1, 1, 1)
        out = [K3.conv_output_size(d, ws[2 + i], pads[2 * i], pads[2 * i + 1], st[i], dil[i]) if d >= 0 else -1
               for i, d in enumerate(spatial)]
    ctx.set_output('Output', _from_ncdhw(n, ws[0], out, fmt), ctx.in_dtype('Input'))


def _geometry(spec) -> dict:
    if spec.has_input('Bias') or spec.has_input('ResidualData'):
        raise NotImplementedError("operator '%s': the Bias/ResidualData inputs are MKLDNN fusions; add the bias "
                                  "with elementwise_add" % spec.type)
    return dict(strides=_triple(spec.attr('strides')), paddings=list(spec.attr('paddings')),
                dilations=_triple(spec.attr('dilations')), groups=int(spec.attr('groups') or 1),
                padding_algorithm=spec.attr('padding_algorithm'),
                data_format='NDHWC' if _channel_last(spec.attr('data_format')) else 'NCDHW')


@kernel_rule('conv3d')
def _conv3d_kernel(spec):
    kw = _geometry(spec)
    return lambda x, w, bias, residual: (K3.conv3d_forward(x, w, **kw),)


@kernel_rule('conv3d_grad')
def _conv3d_grad_kernel(spec):
    kw = _geometry(spec)
    need_input, need_filter = spec.has_output('Input@GRAD'), spec.has_output('Filter@GRAD')
    return lambda x, w, dout: K3.conv3d_backward(x, w, dout, need_input=need_input, need_filter=need_filter, **kw)


# ---------------------------------------------------------------------------------------------------------------
# conv3d_transpose

defop('conv3d_transpose', ['Input', 'Filter', 'Bias'], ['Output'],
      {'output_size': [], 'output_padding': [], 'strides': [1, 1, 1], 'paddings': [0, 0, 0], 'dilations': [1, 1, 1],
       'groups': 1, 'padding_algorithm': 'EXPLICIT', 'data_format': 'NCDHW', 'use_cudnn': True, 'use_mkldnn': False,
       'is_test': False, 'workspace_size_MB': 512},
      dispensable=['Bias'], grad=GradSpec(('Input', 'Filter', 'Output@GRAD'), ('Input@GRAD', 'Filter@GRAD')))


@shape_rule('conv3d_transpose')
def _conv3d_t_shape(ctx):
    fmt, ws, (n, c, *spatial) = _operands(ctx)
    groups = int(ctx.attr('groups') or 1)
    if c >= 0 and ws[0] != c:
        raise ValueError("operator 'conv3d_transpose': the number of input channels (%d) must equal the filter's "
                         "first dimension (%d); Input %s, Filter %s"
                         % (c, ws[0], list(ctx.in_shape('Input')), list(ws)))
    out = (-1, -1, -1)
    if _known(spatial):
        out, _, _ = K3.conv3d_transpose_output_shape(
            spatial, ws[2:], ctx.attr('strides'), ctx.attr('paddings'), ctx.attr('dilations'),
            ctx.attr('padding_algorithm'), list(ctx.attr('output_size')), list(ctx.attr('output_padding')))
    ctx.set_output('Output', _from_ncdhw(n, ws[1] * groups, out, fmt), ctx.in_dtype('Input'))


@kernel_rule('conv3d_transpose')
def _conv3d_t_kernel(spec):
    kw = _geometry(spec)
    output_size, output_padding = list(spec.attr('output_size')), list(spec.attr('output_padding'))
    return lambda x, w, bias: (K3.conv3d_transpose_forward(x, w, output_size=output_size,
                                                           output_padding=output_padding, **kw),)


@kernel_rule('conv3d_transpose_grad')
def _conv3d_t_grad_kernel(spec):
    kw = _geometry(spec)
    need_input, need_filter = spec.has_output('Input@GRAD'), spec.has_output('Filter@GRAD')
    return lambda x, w, dout: K3.conv3d_transpose_backward(x, w, dout, need_input=need_input,
                                                           need_filter=need_filter, **kw)


# ---------------------------------------------------------------------------------------------------------------
# pool3d

defop('pool3d', ['X'], ['Out'],
      {'pooling_type': 'max', 'ksize': [1, 1, 1], 'global_pooling': False, 'strides': [1, 1, 1],
       'paddings': [0, 0, 0], 'exclusive': True, 'adaptive': False, 'ceil_mode': False,
       'padding_algorithm': 'EXPLICIT', 'data_format': 'NCDHW', 'use_cudnn': True, 'use_mkldnn': False,
       'is_test': False},
      grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _pool_out(attr, spatial, ceil_mode=None, algorithm=None):
    """The (d, h, w) output size of a pool op reading attributes with `attr` (-1 where unknown)."""
    if attr('adaptive'):
        return _triple(attr('ksize'))
    if attr('global_pooling'):
        return (1, 1, 1)
    algorithm = attr('padding_algorithm') if algorithm is None else algorithm
    if not _known(spatial):
        if algorithm == 'SAME':
            return (-1, -1, -1)
    ceil_mode = attr('ceil_mode') if ceil_mode is None else ceil_mode
    ks, st = _triple(attr('ksize')), _triple(attr('strides'))
    pads = K3.resolve_paddings_nd(attr('paddings'), algorithm, [max(d, 1) for d in spatial], ks, st)
    return tuple(K3.pool_output_size(d, ks[i], pads[2 * i], pads[2 * i + 1], st[i], ceil_mode) if d >= 0 else -1
                 for i, d in enumerate(spatial))


@shape_rule('pool3d')
def _pool3d_shape(ctx):
    fmt = ctx.attr('data_format')
    dims = _ncdhw(ctx.in_shape('X'), fmt)
    if dims is None:
        raise ValueError("operator 'pool3d': X must be a 5-D tensor, got shape %s" % (list(ctx.in_shape('X')),))
    if ctx.attr('pooling_type') not in ('max', 'avg'):
        raise ValueError("operator 'pool3d': pooling_type must be 'max' or 'avg', got %r" % ctx.attr('pooling_type'))
    n, c, *spatial = dims
    ctx.set_output('Out', _from_ncdhw(n, c, _pool_out(ctx.attr, spatial), fmt), ctx.in_dtype('X'))


def _pool_attrs(spec) -> dict:
    return dict(ksize=_triple(spec.attr('ksize')), pooling_type=spec.attr('pooling_type'),
                strides=_triple(spec.attr('strides')), paddings=list(spec.attr('paddings')),
                global_pooling=bool(spec.attr('global_pooling')), ceil_mode=bool(spec.attr('ceil_mode')),
                exclusive=bool(spec.attr('exclusive')), adaptive=bool(spec.attr('adaptive')),
                padding_algorithm=spec.attr('padding_algorithm'), data_format=spec.attr('data_format'))


@kernel_rule('pool3d')
def _pool3d_kernel(spec):
    kw = _pool_attrs(spec)
    return lambda x: (K3.pool3d_forward(x, **kw),)


@kernel_rule('pool3d_grad')
def _pool3d_grad_kernel(spec):
    kw = _pool_attrs(spec)
    return lambda x, out, dout: (K3.pool3d_backward(x, out, dout, **kw),)


# ---------------------------------------------------------------------------------------------------------------
# max_pool3d_with_index

defop('max_pool3d_with_index', ['X'], ['Out', 'Mask'],
      {'ksize': [1, 1, 1], 'strides': [1, 1, 1], 'paddings': [0, 0, 0], 'global_pooling': False, 'adaptive': False},
      grad=GradSpec(('X', 'Mask', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('max_pool3d_with_index')
def _maxpool3d_idx_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) != 5:
        raise ValueError("operator 'max_pool3d_with_index': X must be a 5-D tensor, got shape %s" % (list(xs),))
    shape = (xs[0], xs[1]) + _pool_out(ctx.attr, xs[2:], ceil_mode=False, algorithm='EXPLICIT')
    ctx.set_output('Out', shape, ctx.in_dtype('X'))
    ctx.set_output('Mask', shape, VarType.INT32)


@kernel_rule('max_pool3d_with_index')
def _maxpool3d_idx_kernel(spec):
    kw = dict(ksize=_triple(spec.attr('ksize')), strides=_triple(spec.attr('strides')),
              paddings=list(spec.attr('paddings')), global_pooling=bool(spec.attr('global_pooling')),
              adaptive=bool(spec.attr('adaptive')))
    return lambda x: K3.max_pool3d_with_index_forward(x, **kw)


@kernel_rule('max_pool3d_with_index_grad')
def _maxpool3d_idx_grad_kernel(spec):
    return lambda x, mask, dout: (K3.max_pool3d_with_index_backward(dout, mask, x.shape),)


# ---------------------------------------------------------------------------------------------------------------
# unpool / unpool3d

defop('unpool', ['X', 'Indices'], ['Out'],
      {'unpooling_type': 'max', 'ksize': [], 'strides': [1, 1], 'paddings': [0, 0], 'output_size': [0, 0],
       'data_format': 'NCHW'},
      grad=GradSpec(('X', 'Indices', 'Out', 'Out@GRAD'), ('X@GRAD',)))
defop('unpool3d', ['X', 'Indices'], ['Out'],
      {'unpooling_type': 'max', 'ksize': [], 'strides': [1, 1, 1], 'paddings': [0, 0, 0], 'output_size': [0, 0, 0],
       'data_format': 'NCDHW'},
      grad=GradSpec(('X', 'Indices', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _unpool_size(attr, spatial) -> tuple:
    given = [int(v) for v in (attr('output_size') or [])]
    if given and all(v > 0 for v in given):
        return tuple(given[-len(spatial):])
    n = len(spatial)
    ks = [int(v) for v in attr('ksize')]
    st = [int(v) for v in attr('strides')]
    pads = [int(v) for v in attr('paddings')]
    return tuple((d - 1) * st[i] - 2 * pads[i] + ks[i] if d >= 0 else -1 for i, d in enumerate(spatial[:n]))


def _unpool_shape(ctx):
    rank = 4 if ctx.op.type == 'unpool' else 5
    xs, idx = ctx.in_shape('X'), ctx.in_shape('Indices')
    if len(xs) != rank:
        raise ValueError("operator '%s': X must be a %d-D tensor, got shape %s" % (ctx.op.type, rank, list(xs)))
    if ctx.attr('unpooling_type') != 'max':
        raise ValueError("operator '%s': unpooling_type must be 'max', got %r" % (ctx.op.type,
                                                                                ctx.attr('unpooling_type')))
    if _known(xs) and _known(idx) and tuple(idx) != tuple(xs):
        raise ValueError("operator '%s': Indices must have the shape of X %s, got %s" % (ctx.op.type, list(xs),
                                                                                        list(idx)))
    ctx.set_output('Out', tuple(xs[:2]) + _unpool_size(ctx.attr, xs[2:]), ctx.in_dtype('X'))


def _unpool_factory(spec, backward: bool):
    attr = spec.attr
    if backward:
        return lambda x, indices, out, dout: (K3.unpool_backward(dout, indices, x.shape),)
    return lambda x, indices: (K3.unpool_forward(x, indices, _unpool_size(attr, x.shape[2:])),)


for _t in ('unpool', 'unpool3d'):
    shape_rule(_t)(_unpool_shape)
    kernel_rule(_t)(lambda spec: _unpool_factory(spec, False))
    kernel_rule(_t + '_grad')(lambda spec: _unpool_factory(spec, True))
