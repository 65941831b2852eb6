"""nn ops: conv2d / depthwise_conv2d, pool2d, max_pool2d_with_index, batch_norm, layer_norm, dropout.

The numerics live in `kernels/conv.py` and `kernels/norm.py` (verified against Paddle 1.8.5); this module is the
glue: schemas with Paddle's slot and attribute names, compile-time shapes (-1 for unknown dims), kernel factories
that read attributes once per plan, and grad makers where Paddle's differ from the default one.

Paddle facts kept here:
- conv2d's `Bias`/`ResidualData` slots are MKLDNN-only (Paddle's CPU kernel ignores them); builders add the bias
  with a separate `elementwise_add`. A wired Bias is refused rather than silently ignored.
- batch_norm writes `MeanOut`/`VarianceOut` into the same variables as `Mean`/`Variance` (declared `inplace`);
  `SavedVariance` holds the inverse std. Statistics are global (running) when `use_global_stats`, or when
  `is_test` without `trainable_statistics`. `batch_norm_grad` reads `Mean`/`Variance` only in that case.
- dropout with `fix_seed` re-seeds its generator from `seed` every run (Paddle 1.8: the same mask each step);
  without it each run draws a fresh seed. A `Seed` tensor input wins over both. `is_test` leaves `Mask` unset;
  its gradient is the inference formula's (Paddle 2.x; 1.8 refused to differentiate a test-mode dropout).
"""
from __future__ import annotations

import random

import numpy as np

from ..framework.dtype import VarType
from ..framework.random import op_seed
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ..kernels import conv as KC
from ..kernels import norm as KN
from ._util import prod

# ---------------------------------------------------------------------------------------------------------------
# compile-time geometry (-1 = unknown)


def _pair(v) -> tuple[int, int]:
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    v = [int(a) for a in v]
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _nchw_dims(shape, data_format):
    """(N, C, H, W) of a 4-D shape in `data_format`."""
    if len(shape) != 4:
        return None
    if data_format == 'NHWC':
        return shape[0], shape[3], shape[1], shape[2]
    return tuple(shape)


def _from_nchw_dims(n, c, h, w, data_format):
    return (n, h, w, c) if data_format == 'NHWC' else (n, c, h, w)


def _static_paddings(paddings, algorithm, hw, ksize, strides):
    """(top, bottom, left, right), or None when SAME needs an unknown input size."""
    if algorithm == 'SAME' and any(d < 0 for d in hw):
        return None
    return KC.resolve_paddings(paddings, algorithm, hw, ksize, strides)


# ---------------------------------------------------------------------------------------------------------------
# conv2d / depthwise_conv2d

_CONV_ATTRS = {
    'strides': [1, 1], 'paddings': [0, 0], 'dilations': [1, 1], 'groups': 1, 'padding_algorithm': 'EXPLICIT',
    'data_format': 'NCHW', 'use_cudnn': True, 'use_mkldnn': False, 'fuse_relu_before_depthwise_conv': False,
    'is_test': False, 'exhaustive_search': False, 'workspace_size_MB': 512,
}
_CONV_TYPES = ('conv2d', 'depthwise_conv2d')

for _t in _CONV_TYPES:
    defop(_t, ['Input', 'Filter', 'Bias', 'ResidualData'], ['Output'], _CONV_ATTRS,
          dispensable=['Bias', 'ResidualData'],
          grad=GradSpec(('Input', 'Filter', 'Bias', 'Output@GRAD'), ('Input@GRAD', 'Filter@GRAD', 'Bias@GRAD')))


def _conv_operands(ctx) -> tuple:
    """(data format, Filter shape, (n, c, h, w) of Input) of a conv or conv-transpose op; both must be 4-D."""
    fmt = ctx.attr('data_format')
    xs, ws = ctx.in_shape('Input'), ctx.in_shape('Filter')
    dims = _nchw_dims(xs, fmt)
    if dims is None or len(ws) != 4:
        raise ValueError("operator '%s': Input must be 4-D and Filter 4-D, got Input %s and Filter %s"
                         % (ctx.op.type, list(ctx.in_shape('Input')), list(ws)))
    return fmt, ws, dims


def _conv_shape(ctx):
    fmt, ws, (n, c, h, w) = _conv_operands(ctx)
    groups = ctx.attr('groups') or 1
    if c >= 0 and ws[1] * groups != c:
        raise ValueError("operator '%s': the number of input channels (%d) must equal the filter's channels (%d) "
                         "times groups (%d); Input %s, Filter %s"
                         % (ctx.op.type, c, ws[1], groups, list(ctx.in_shape('Input')), list(ws)))
    kh, kw = ws[2], ws[3]
    sh, sw = _pair(ctx.attr('strides'))
    dh, dw = _pair(ctx.attr('dilations'))
    algo = ctx.attr('padding_algorithm')
    pads = _static_paddings(ctx.attr('paddings'), algo, (h, w), (kh, kw), (sh, sw))
    if algo == 'SAME':
        dh = dw = 1
    oh = ow = -1
    if pads is not None:
        if h >= 0:
            oh = KC.conv2d_output_size(h, kh, pads[0], pads[1], sh, dh)
        if w >= 0:
            ow = KC.conv2d_output_size(w, kw, pads[2], pads[3], sw, dw)
    ctx.set_output('Output', _from_nchw_dims(n, ws[0], oh, ow, fmt), ctx.in_dtype('Input'))


def _conv_attrs(spec) -> dict:
    if spec.has_input('Bias') or spec.has_input('ResidualData'):
        raise NotImplementedError("operator '%s': the Bias/ResidualData inputs are MKLDNN fusions; add the bias "
                                  "with elementwise_add" % spec.type)
    if spec.attr('fuse_relu_before_depthwise_conv'):
        raise NotImplementedError("operator '%s': fuse_relu_before_depthwise_conv (a fusion pass attribute) is not "
                                  "supported; apply relu before the convolution" % spec.type)
    return _conv_geometry(spec)


def _conv_geometry(spec) -> dict:
    """The geometry attributes conv kernels take, from a conv or conv-transpose op."""
    return dict(strides=_pair(spec.attr('strides')), paddings=list(spec.attr('paddings')),
                dilations=_pair(spec.attr('dilations')), groups=int(spec.attr('groups') or 1),
                padding_algorithm=spec.attr('padding_algorithm'), data_format=spec.attr('data_format'))


for _t in _CONV_TYPES:
    shape_rule(_t)(_conv_shape)


@kernel_rule(*_CONV_TYPES)
def _conv_kernel(spec):
    kw = _conv_attrs(spec)

    def run(x, w, bias, residual):
        return (KC.conv2d_forward(x, w, **kw),)
    return run


@kernel_rule(*(t + '_grad' for t in _CONV_TYPES))
def _conv_grad_kernel(spec):
    kw = _conv_attrs(spec)
    need_input, need_filter = spec.has_output('Input@GRAD'), spec.has_output('Filter@GRAD')

    def run(x, w, bias, dout):
        dx, dw = KC.conv2d_backward(x, w, dout, need_input=need_input, need_filter=need_filter, **kw)
        return dx, dw, None
    return run


# ---------------------------------------------------------------------------------------------------------------
# pool2d

_POOL_ATTRS = {
    'pooling_type': 'max', 'ksize': [1, 1], 'global_pooling': False, 'strides': [1, 1], 'paddings': [0, 0],
    'exclusive': True, 'adaptive': False, 'ceil_mode': False, 'padding_algorithm': 'EXPLICIT',
    'data_format': 'NCHW', 'use_cudnn': True, 'use_mkldnn': False, 'use_quantizer': False, 'is_test': False,
}
defop('pool2d', ['X'], ['Out'], _POOL_ATTRS, grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _pool_out_hw(attrs, h, w):
    """Output (H, W) of a pool op; `attrs(name)` reads an attribute."""
    kh, kw = _pair(attrs('ksize'))
    if attrs('global_pooling'):
        return 1, 1
    if attrs('adaptive'):
        return kh, kw
    sh, sw = _pair(attrs('strides'))
    pads = _static_paddings(attrs('paddings'), attrs('padding_algorithm'), (h, w), (kh, kw), (sh, sw))
    if pads is None:
        return -1, -1
    ceil_mode = attrs('ceil_mode')
    oh = KC.pool2d_output_size(h, kh, pads[0], pads[1], sh, ceil_mode) if h >= 0 else -1
    ow = KC.pool2d_output_size(w, kw, pads[2], pads[3], sw, ceil_mode) if w >= 0 else -1
    return oh, ow


@shape_rule('pool2d')
def _pool_shape(ctx):
    fmt = ctx.attr('data_format')
    xs = ctx.in_shape('X')
    dims = _nchw_dims(xs, fmt)
    if dims is None:
        raise ValueError("operator 'pool2d': X must be a 4-D tensor, got shape %s" % (list(xs),))
    if ctx.attr('pooling_type') not in ('max', 'avg'):
        raise ValueError("operator 'pool2d': pooling_type must be 'max' or 'avg', got %r" % ctx.attr('pooling_type'))
    n, c, h, w = dims
    oh, ow = _pool_out_hw(ctx.attr, h, w)
    ctx.set_output('Out', _from_nchw_dims(n, c, oh, ow, fmt), ctx.in_dtype('X'))


def _pool_attrs(spec) -> dict:
    return dict(ksize=_pair(spec.attr('ksize')), pooling_type=spec.attr('pooling_type'),
                strides=_pair(spec.attr('strides')), paddings=list(spec.attr('paddings')),
                global_pooling=bool(spec.attr('global_pooling')), ceil_mode=bool(spec.attr('ceil_mode')),
                exclusive=bool(spec.attr('exclusive')), adaptive=bool(spec.attr('adaptive')),
                padding_algorithm=spec.attr('padding_algorithm'), data_format=spec.attr('data_format'))


@kernel_rule('pool2d')
def _pool_kernel(spec):
    kw = _pool_attrs(spec)
    return lambda x: (KC.pool2d_forward(x, **kw),)


@kernel_rule('pool2d_grad')
def _pool_grad_kernel(spec):
    kw = _pool_attrs(spec)
    return lambda x, out, dout: (KC.pool2d_backward(x, out, dout, **kw),)


# ---------------------------------------------------------------------------------------------------------------
# max_pool2d_with_index (adaptive max pooling, return_mask=True)

defop('max_pool2d_with_index', ['X'], ['Out', 'Mask'],
      {'ksize': [1, 1], 'strides': [1, 1], 'paddings': [0, 0], 'global_pooling': False, 'adaptive': False},
      grad=GradSpec(('X', 'Mask', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('max_pool2d_with_index')
def _maxpool_idx_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) != 4:
        raise ValueError("operator 'max_pool2d_with_index': X must be a 4-D tensor, got shape %s" % (list(xs),))
    attrs = {'padding_algorithm': 'EXPLICIT', 'ceil_mode': False}
    oh, ow = _pool_out_hw(lambda k: attrs[k] if k in attrs else ctx.attr(k), xs[2], xs[3])
    out_shape = (xs[0], xs[1], oh, ow)
    ctx.set_output('Out', out_shape, ctx.in_dtype('X'))
    ctx.set_output('Mask', out_shape, VarType.INT32)


@kernel_rule('max_pool2d_with_index')
def _maxpool_idx_kernel(spec):
    kw = dict(ksize=_pair(spec.attr('ksize')), strides=_pair(spec.attr('strides')),
              paddings=list(spec.attr('paddings')), global_pooling=bool(spec.attr('global_pooling')),
              adaptive=bool(spec.attr('adaptive')))
    return lambda x: KC.max_pool2d_with_index_forward(x, **kw)


@kernel_rule('max_pool2d_with_index_grad')
def _maxpool_idx_grad_kernel(spec):
    return lambda x, mask, dout: (KC.max_pool2d_with_index_backward(dout, mask, x.shape),)


# ---------------------------------------------------------------------------------------------------------------
# batch_norm

_BN_ATTRS = {
    'momentum': 0.9, 'epsilon': 1e-5, 'is_test': False, 'data_layout': 'NCHW', 'use_global_stats': False,
    'trainable_statistics': False, 'use_mkldnn': False, 'fuse_with_relu': False,
}
defop('batch_norm', ['X', 'Scale', 'Bias', 'Mean', 'Variance', 'MomentumTensor'],
      ['Y', 'MeanOut', 'VarianceOut', 'SavedMean', 'SavedVariance', 'ReserveSpace'], _BN_ATTRS,
      dispensable=['MomentumTensor', 'ReserveSpace'], inplace={'MeanOut': 'Mean', 'VarianceOut': 'Variance'},
      grad=GradSpec(('X', 'Scale', 'Bias', 'Mean', 'Variance', 'SavedMean', 'SavedVariance', 'Y@GRAD'),
                    ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


def _bn_global_stats(attr) -> bool:
    return bool(attr('use_global_stats')) or (bool(attr('is_test')) and not attr('trainable_statistics'))


@grad_rule('batch_norm')
def _bn_grad_maker(g):
    inputs = {'X': g.input('X'), 'Scale': g.input('Scale'), 'Bias': g.input('Bias'),
              'SavedMean': g.output('SavedMean'), 'SavedVariance': g.output('SavedVariance'),
              'Y@GRAD': g.output_grad('Y')}
    if _bn_global_stats(g.attrs.get):
        # the running statistics are constants of the gradient only when they normalised the forward
        inputs['Mean'] = g.output('MeanOut')
        inputs['Variance'] = g.output('VarianceOut')
    outputs = {'X@GRAD': g.input_grad('X'), 'Scale@GRAD': g.input_grad('Scale'), 'Bias@GRAD': g.input_grad('Bias')}
    return [('batch_norm_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('batch_norm')
def _bn_shape(ctx):
    xs = ctx.in_shape('X')
    layout = ctx.attr('data_layout')
    if len(xs) < 2:
        raise ValueError("operator 'batch_norm': X must have rank >= 2, got shape %s" % (list(xs),))
    c = xs[-1] if layout == 'NHWC' else xs[1]
    for slot in ('Scale', 'Bias', 'Mean', 'Variance'):
        s = ctx.in_shape(slot)
        if c >= 0 and prod(s) >= 0 and prod(s) != c:
            raise ValueError("operator 'batch_norm': %s must have %d elements (the channels of X %s, data_layout "
                             "%s), got shape %s" % (slot, c, list(xs), layout, list(s)))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('MeanOut', ctx.in_shape('Mean'), ctx.in_dtype('Mean'))
    ctx.set_output('VarianceOut', ctx.in_shape('Variance'), ctx.in_dtype('Variance'))
    ctx.set_output('SavedMean', (c,), ctx.in_dtype('Scale'))
    ctx.set_output('SavedVariance', (c,), ctx.in_dtype('Scale'))


def _check_bn_fusion(spec):
    if spec.attr('fuse_with_relu'):
        raise NotImplementedError("operator '%s': fuse_with_relu (an MKLDNN fusion) is not supported; apply relu "
                                  "after batch_norm" % spec.type)


@kernel_rule('batch_norm')
def _bn_kernel(spec):
    _check_bn_fusion(spec)
    momentum, eps = float(spec.attr('momentum')), float(spec.attr('epsilon'))
    layout = spec.attr('data_layout')
    global_stats = _bn_global_stats(spec.attr)

    def run(x, scale, bias, mean, variance, momentum_tensor):
        m = momentum if momentum_tensor is None else float(np.asarray(momentum_tensor).ravel()[0])
        y, mean_out, var_out, saved_mean, saved_inv_std = KN.batch_norm_forward(
            x, scale, bias, mean, variance, momentum=m, epsilon=eps, use_global_stats=global_stats,
            data_layout=layout)
        return y, mean_out.reshape(mean.shape), var_out.reshape(variance.shape), saved_mean, saved_inv_std, None
    return run


@kernel_rule('batch_norm_grad')
def _bn_grad_kernel(spec):
    _check_bn_fusion(spec)
    eps = float(spec.attr('epsilon'))
    layout = spec.attr('data_layout')
    global_stats = _bn_global_stats(spec.attr)
    if global_stats and not (spec.has_input('Mean') and spec.has_input('Variance')):
        raise ValueError("operator 'batch_norm_grad' with global statistics needs the running Mean and Variance "
                         "inputs")

    def run(x, scale, bias, mean, variance, saved_mean, saved_inv_std, dy):
        dx, dscale, dbias = KN.batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, epsilon=eps,
                                                   use_global_stats=global_stats, mean=mean, variance=variance,
                                                   data_layout=layout)
        return dx, dscale.reshape(scale.shape), dbias.reshape(bias.shape)
    return run


# ---------------------------------------------------------------------------------------------------------------
# layer_norm

defop('layer_norm', ['X', 'Scale', 'Bias'], ['Y', 'Mean', 'Variance'], {'epsilon': 1e-5, 'begin_norm_axis': 1},
      dispensable=['Scale', 'Bias'],
      grad=GradSpec(('X', 'Mean', 'Variance', 'Scale', 'Bias', 'Y@GRAD'), ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


@shape_rule('layer_norm')
def _ln_shape(ctx):
    xs = ctx.in_shape('X')
    axis = ctx.attr('begin_norm_axis')
    if not 0 <= axis < len(xs):
        raise ValueError("operator 'layer_norm': begin_norm_axis must be in [0, %d), got %d (X shape %s)"
                         % (len(xs), axis, list(xs)))
    right = prod(xs[axis:])
    for slot in ('Scale', 'Bias'):
        if ctx.has_input(slot):
            s = ctx.in_shape(slot)
            if right >= 0 and prod(s) >= 0 and prod(s) != right:
                raise ValueError("operator 'layer_norm': %s must have %d elements (X %s from begin_norm_axis %d), "
                                 "got shape %s" % (slot, right, list(xs), axis, list(s)))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('Mean', (prod(xs[:axis]),), dtype)
    ctx.set_output('Variance', (prod(xs[:axis]),), dtype)


@kernel_rule('layer_norm')
def _ln_kernel(spec):
    axis, eps = int(spec.attr('begin_norm_axis')), float(spec.attr('epsilon'))
    return lambda x, scale, bias: KN.layer_norm_forward(x, scale, bias, begin_norm_axis=axis, epsilon=eps)


@kernel_rule('layer_norm_grad')
def _ln_grad_kernel(spec):
    axis, eps = int(spec.attr('begin_norm_axis')), float(spec.attr('epsilon'))
    want_scale, want_bias = spec.has_output('Scale@GRAD'), spec.has_output('Bias@GRAD')

    def run(x, mean, variance, scale, bias, dy):
        dx, dscale, dbias = KN.layer_norm_backward(x, mean, variance, dy, scale=scale, begin_norm_axis=axis,
                                                   epsilon=eps)
        return (dx, dscale.reshape(scale.shape) if want_scale else None,
                dbias.reshape(bias.shape) if want_bias else None)
    return run


# ---------------------------------------------------------------------------------------------------------------
# dropout

defop('dropout', ['X', 'Seed'], ['Out', 'Mask'],
      {'dropout_prob': 0.5, 'is_test': False, 'fix_seed': False, 'seed': 0,
       'dropout_implementation': 'downgrade_in_infer'},
      dispensable=['Seed'], stateful=True, grad=GradSpec(('Mask', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('dropout')
def _dropout_shape(ctx):
    p = ctx.attr('dropout_prob')
    if not 0.0 <= p <= 1.0:
        raise ValueError("operator 'dropout': dropout_prob must be in [0, 1], got %s" % p)
    xs = ctx.in_shape('X')
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('Mask', xs, VarType.UINT8)


@kernel_rule('dropout')
def _dropout_kernel(spec):
    p, impl = float(spec.attr('dropout_prob')), spec.attr('dropout_implementation')
    is_test = bool(spec.attr('is_test'))
    fixed_seed = int(spec.attr('seed')) if spec.attr('fix_seed') else None
    # one generator per plan node: getrandbits is atomic under the GIL, so concurrent runs stay safe
    seeds = random.Random(op_seed(0))

    def run(x, seed_tensor):
        if is_test:
            return KN.dropout_forward(x, p, is_test=True, dropout_implementation=impl)
        if seed_tensor is not None:
            seed = int(np.asarray(seed_tensor).ravel()[0])
        elif fixed_seed is not None:
            seed = fixed_seed
        else:
            seed = seeds.getrandbits(31) or 1
        return KN.dropout_forward(x, p, dropout_implementation=impl, seed=seed)
    return run


@kernel_rule('dropout_grad')
def _dropout_grad_kernel(spec):
    p, impl = float(spec.attr('dropout_prob')), spec.attr('dropout_implementation')
    if spec.attr('is_test'):
        # no Mask in test mode: Paddle 2.x differentiates the inference formula (1.8 refused)
        factor = 1.0 if impl == 'upscale_in_train' else float(np.float32(1.0) - np.float32(p))
        return lambda mask, dout: ((dout * dout.dtype.type(factor)).astype(dout.dtype, copy=False),)
    return lambda mask, dout: (KN.dropout_backward(dout, mask, p, dropout_implementation=impl),)



# ---------------------------------------------------------------------------------------------------------------
# group_norm, instance_norm, norm, prelu, lrn, maxout (numerics and Paddle facts: kernels/norm.py, kernels/conv.py)

defop('group_norm', ['X', 'Scale', 'Bias'], ['Y', 'Mean', 'Variance'],
      {'epsilon': 1e-5, 'groups': 1, 'data_layout': 'NCHW'}, dispensable=['Scale', 'Bias'],
      grad=GradSpec(('Y', 'Variance', 'Scale', 'Bias', 'Y@GRAD'), ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


def _channels(ctx, op_type, layout_attr):
    xs = ctx.in_shape('X')
    if len(xs) < 2:
        raise ValueError("operator '%s': X must have rank >= 2, got shape %s" % (op_type, list(xs)))
    return xs, (xs[-1] if ctx.attr(layout_attr) == 'NHWC' else xs[1])


def _check_param_size(ctx, op_type, c, slots=('Scale', 'Bias')):
    for slot in slots:
        if ctx.has_input(slot):
            n = prod(ctx.in_shape(slot))
            if c >= 0 and n >= 0 and n != c:
                raise ValueError("operator '%s': %s must have %d elements (the channels of X), got shape %s"
                                 % (op_type, slot, c, list(ctx.in_shape(slot))))


@shape_rule('group_norm')
def _gn_shape(ctx):
    xs, c = _channels(ctx, 'group_norm', 'data_layout')
    groups = int(ctx.attr('groups'))
    if groups <= 0 or (c >= 0 and c % groups):
        raise ValueError("operator 'group_norm': the number of channels (%d) must be divisible by groups (%d)"
                         % (c, groups))
    _check_param_size(ctx, 'group_norm', c)
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('Mean', (xs[0], groups), dtype)
    ctx.set_output('Variance', (xs[0], groups), dtype)


@kernel_rule('group_norm')
def _gn_kernel(spec):
    groups, eps = int(spec.attr('groups')), float(spec.attr('epsilon'))
    last = spec.attr('data_layout') == 'NHWC'
    return lambda x, scale, bias: KN.group_norm_forward(x, scale, bias, groups, eps, last)


@kernel_rule('group_norm_grad')
def _gn_grad_kernel(spec):
    groups, eps = int(spec.attr('groups')), float(spec.attr('epsilon'))
    last = spec.attr('data_layout') == 'NHWC'
    want_scale, want_bias = spec.has_output('Scale@GRAD'), spec.has_output('Bias@GRAD')

    def run(y, variance, scale, bias, dy):
        dx, dscale, dbias = KN.group_norm_backward(y, variance, dy, scale, bias, groups, eps, last)
        return (dx, dscale.reshape(scale.shape) if want_scale else None,
                dbias.reshape(bias.shape) if want_bias else None)
    return run


defop('instance_norm', ['X', 'Scale', 'Bias'], ['Y', 'SavedMean', 'SavedVariance'], {'epsilon': 1e-5},
      dispensable=['Scale', 'Bias'],
      grad=GradSpec(('X', 'Scale', 'SavedMean', 'SavedVariance', 'Y@GRAD'), ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


@shape_rule('instance_norm')
def _in_shape(ctx):
    xs = ctx.in_shape('X')
    if not 2 <= len(xs) <= 5:
        raise ValueError("operator 'instance_norm': the rank of X must be in [2, 5], got shape %s" % (list(xs),))
    _check_param_size(ctx, 'instance_norm', xs[1])
    nc = xs[0] * xs[1] if xs[0] >= 0 and xs[1] >= 0 else -1
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('SavedMean', (nc,), dtype)
    ctx.set_output('SavedVariance', (nc,), dtype)


@kernel_rule('instance_norm')
def _in_kernel(spec):
    eps = float(spec.attr('epsilon'))
    return lambda x, scale, bias: KN.instance_norm_forward(x, scale, bias, eps)


@kernel_rule('instance_norm_grad')
def _in_grad_kernel(spec):
    want_scale, want_bias = spec.has_output('Scale@GRAD'), spec.has_output('Bias@GRAD')

    def run(x, scale, saved_mean, saved_inv_std, dy):
        dx, dscale, dbias = KN.instance_norm_backward(x, saved_mean, saved_inv_std, dy, scale)
        c = x.shape[1]
        return dx, (dscale.reshape(scale.shape) if want_scale else None), (dbias.reshape(c) if want_bias else None)
    return run


defop('norm', ['X'], ['Out', 'Norm'], {'axis': 1, 'epsilon': 1e-10, 'is_test': False},
      grad=GradSpec(('X', 'Norm', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('norm')
def _norm_shape(ctx):
    xs = ctx.in_shape('X')
    axis = int(ctx.attr('axis'))
    if not -len(xs) <= axis < len(xs):
        raise ValueError("operator 'norm': axis must be in [%d, %d), got %d (X shape %s)"
                         % (-len(xs), len(xs), axis, list(xs)))
    norm_shape = list(xs)
    norm_shape[axis % len(xs)] = 1
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('Norm', tuple(norm_shape), ctx.in_dtype('X'))


@kernel_rule('norm')
def _norm_kernel(spec):
    axis, eps = int(spec.attr('axis')), float(spec.attr('epsilon'))
    return lambda x: KN.norm_forward(x, axis, eps)


@kernel_rule('norm_grad')
def _norm_grad_kernel(spec):
    axis = int(spec.attr('axis'))
    return lambda x, norm, dout: (KN.norm_backward(x, norm, dout, axis),)


defop('prelu', ['X', 'Alpha'], ['Out'], {'mode': 'all', 'data_format': 'NCHW'},
      grad=GradSpec(('X', 'Alpha', 'Out@GRAD'), ('X@GRAD', 'Alpha@GRAD')))


@shape_rule('prelu')
def _prelu_shape(ctx):
    xs, alpha = ctx.in_shape('X'), ctx.in_shape('Alpha')
    mode, fmt = ctx.attr('mode'), ctx.attr('data_format')
    n = prod(alpha)
    if mode == 'all':
        want = 1
    elif mode == 'channel':
        want = xs[-1] if fmt in ('NHWC', 'NLC', 'NDHWC') else xs[1]
    elif mode == 'element':
        want = prod(xs[1:])
    else:
        raise ValueError("operator 'prelu': Attr(mode) must be one of 'all', 'channel' or 'element', got %r"
                         % (mode,))
    if want >= 0 and n >= 0 and n != want:
        raise ValueError("operator 'prelu': with mode '%s' Alpha must have %d elements, got shape %s (X shape %s)"
                         % (mode, want, list(alpha), list(xs)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


def _prelu_attrs(spec):
    return spec.attr('mode'), spec.attr('data_format') in ('NHWC', 'NLC', 'NDHWC')


@kernel_rule('prelu')
def _prelu_kernel(spec):
    mode, last = _prelu_attrs(spec)
    return lambda x, alpha: (KN.prelu_forward(x, alpha, mode, last),)


@kernel_rule('prelu_grad')
def _prelu_grad_kernel(spec):
    mode, last = _prelu_attrs(spec)
    want_alpha = spec.has_output('Alpha@GRAD')

    def run(x, alpha, dout):
        dx, dalpha = KN.prelu_backward(x, alpha, dout, mode, last)
        return dx, (dalpha if want_alpha else None)
    return run


defop('lrn', ['X'], ['Out', 'MidOut'],
      {'n': 5, 'k': 2.0, 'alpha': 1e-4, 'beta': 0.75, 'data_format': 'AnyLayout', 'is_test': False,
       'use_mkldnn': False},
      grad=GradSpec(('X', 'Out', 'MidOut', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('lrn')
def _lrn_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) != 4:
        raise ValueError("operator 'lrn': Input(input) rank should be 4, got shape %s" % (list(xs),))
    n = int(ctx.attr('n'))
    if n <= 0 or n % 2 == 0:
        raise ValueError("operator 'lrn': n should be positive and odd, got %d" % n)
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('MidOut', xs, ctx.in_dtype('X'))


def _lrn_attrs(spec):
    return (int(spec.attr('n')), float(spec.attr('k')), float(spec.attr('alpha')), float(spec.attr('beta')),
            spec.attr('data_format') == 'NHWC')


@kernel_rule('lrn')
def _lrn_kernel(spec):
    n, k, alpha, beta, last = _lrn_attrs(spec)
    return lambda x: KN.lrn_forward(x, n, k, alpha, beta, last)


@kernel_rule('lrn_grad')
def _lrn_grad_kernel(spec):
    n, _, alpha, beta, last = _lrn_attrs(spec)
    return lambda x, out, mid, dout: (KN.lrn_backward(x, out, mid, dout, n, alpha, beta, last),)


defop('maxout', ['X'], ['Out'], {'groups': 1, 'axis': 1}, grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('maxout')
def _maxout_shape(ctx):
    xs = ctx.in_shape('X')
    groups, axis = int(ctx.attr('groups')), int(ctx.attr('axis'))
    if len(xs) != 4:
        raise ValueError("operator 'maxout': X must be a 4-D tensor, got shape %s" % (list(xs),))
    if axis not in (1, -1, 3):
        raise ValueError("operator 'maxout': axis only supported 1, -1 or 3, but recevied axis is: %d" % axis)
    c_axis = axis % 4
    c = xs[c_axis]
    if groups <= 0 or (c >= 0 and c % groups):
        raise ValueError("operator 'maxout': the number of input channels (%d) must be divisible by groups (%d)"
                         % (c, groups))
    out = list(xs)
    out[c_axis] = c // groups if c >= 0 else -1
    ctx.set_output('Out', tuple(out), ctx.in_dtype('X'))


@kernel_rule('maxout')
def _maxout_kernel(spec):
    groups, axis = int(spec.attr('groups')), int(spec.attr('axis'))
    return lambda x: (KC.maxout_forward(x, groups, axis),)


@kernel_rule('maxout_grad')
def _maxout_grad_kernel(spec):
    groups, axis = int(spec.attr('groups')), int(spec.attr('axis'))
    return lambda x, out, dout: (KC.maxout_backward(x, out, dout, groups, axis),)


# ---------------------------------------------------------------------------------------------------------------
# conv2d_transpose / depthwise_conv2d_transpose (kernels/conv.py: the data gradient of a conv2d)

_CONV_T_ATTRS = {
    'output_size': [], 'output_padding': [], 'strides': [1, 1], 'paddings': [0, 0], 'dilations': [1, 1],
    'groups': 1, 'padding_algorithm': 'EXPLICIT', 'data_format': 'NCHW', 'use_cudnn': True, 'use_mkldnn': False,
    'is_test': False, 'workspace_size_MB': 512,
}
_CONV_T_TYPES = ('conv2d_transpose', 'depthwise_conv2d_transpose')

for _t in _CONV_T_TYPES:
    defop(_t, ['Input', 'Filter', 'Bias'], ['Output'], _CONV_T_ATTRS, dispensable=['Bias'],
          grad=GradSpec(('Input', 'Filter', 'Output@GRAD'), ('Input@GRAD', 'Filter@GRAD')))


def _conv_t_shape(ctx):
    fmt, ws, (n, c, h, w) = _conv_operands(ctx)
    groups = int(ctx.attr('groups') or 1)
    if c >= 0 and ws[0] != c:
        raise ValueError("operator '%s': the number of input channels (%d) must equal the filter's first dimension "
                         "(%d); Input %s, Filter %s" % (ctx.op.type, c, ws[0], list(ctx.in_shape('Input')), list(ws)))
    oh = ow = -1
    if h >= 0 and w >= 0:
        oh, ow, _, _ = KC._transpose_geometry(
            (n, c, h, w), ws, _pair(ctx.attr('strides')), ctx.attr('paddings'), _pair(ctx.attr('dilations')),
            ctx.attr('padding_algorithm'), list(ctx.attr('output_size')), list(ctx.attr('output_padding')))
    ctx.set_output('Output', _from_nchw_dims(n, ws[1] * groups, oh, ow, fmt), ctx.in_dtype('Input'))


def _conv_t_attrs(spec) -> dict:
    if spec.has_input('Bias'):
        raise NotImplementedError("operator '%s': the Bias input is an MKLDNN fusion; add the bias with "
                                  "elementwise_add" % spec.type)
    return _conv_geometry(spec)


for _t in _CONV_T_TYPES:
    shape_rule(_t)(_conv_t_shape)


@kernel_rule(*_CONV_T_TYPES)
def _conv_t_kernel(spec):
    kw = _conv_t_attrs(spec)
    output_size, output_padding = list(spec.attr('output_size')), list(spec.attr('output_padding'))
    return lambda x, w, bias: (KC.conv2d_transpose_forward(x, w, output_size=output_size,
                                                           output_padding=output_padding, **kw),)


@kernel_rule(*(t + '_grad' for t in _CONV_T_TYPES))
def _conv_t_grad_kernel(spec):
    kw = _conv_t_attrs(spec)
    need_input, need_filter = spec.has_output('Input@GRAD'), spec.has_output('Filter@GRAD')
    return lambda x, w, dout: KC.conv2d_transpose_backward(x, w, dout, need_input=need_input,
                                                           need_filter=need_filter, **kw)
