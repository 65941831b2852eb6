"""Normalisation ops beyond nn.py's: data_norm, spectral_norm, affine_channel, sync_batch_norm and inplace_abn.

Numerics: `kernels/normalization.py` (data_norm, spectral_norm, affine_channel) and `kernels/norm.py` (batch
norm); checked against paddlepaddle 1.8.5 / 2.6.2. Paddle facts kept here:
- data_norm declares its three statistics (BatchSize, BatchSum, BatchSquareSum) as outputs too, the same
  variables (in place); Paddle's CPU kernel leaves them unchanged, and the "gradients" of them are the batch's
  statistics that the optimiser folds in (kernels/normalization.py).
- sync_batch_norm is batch_norm with the statistics of every device: with one CPU place that is batch_norm, so it
  shares batch_norm's schema, shape rule and kernels; over several places each place normalises with its own
  batch (documented in docs/compatibility.md).
- inplace_abn is batch_norm followed by an activation (identity, leaky_relu or elu with `alpha`), writing Y in
  place of X. Its gradient reads Y, undoes the activation (leaky_relu: y / alpha below zero; elu: log(y / alpha
  + 1)) and the affine map, and runs batch_norm's gradient on the recovered input, as Paddle's
  inplace_abn_grad does. One difference: Paddle's gradient kernel also writes the recovered input back into the
  in-placed variable, so fetching it after a backward pass gives the input there and the op's output here.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import (
    GRAD_RULES,
    KERNEL_RULES,
    OPS,
    SHAPE_RULES,
    GradSpec,
    defop,
    grad_rule,
    kernel_rule,
    shape_rule,
)
from ..kernels import norm as KN
from ..kernels import normalization as KZ
from . import nn as _nn  # batch_norm first: sync_batch_norm and inplace_abn reuse its rules
from ._util import prod

# ---------------------------------------------------------------------------------------------------------------
# data_norm

defop('data_norm', ['X', 'BatchSize', 'BatchSum', 'BatchSquareSum', 'scale_w', 'bias'],
      ['Y', 'Means', 'Scales', 'BatchSize', 'BatchSum', 'BatchSquareSum'],
      {'epsilon': 1e-4, 'slot_dim': -1, 'summary_decay_rate': 0.9999999, 'enable_scale_and_shift': False,
       'data_layout': 'NCHW', 'sync_stats': False, 'use_mkldnn': False},
      dispensable=['scale_w', 'bias'],
      inplace={'BatchSize': 'BatchSize', 'BatchSum': 'BatchSum', 'BatchSquareSum': 'BatchSquareSum'})


def _data_norm_dims(ctx):
    xs = ctx.in_shape('X')
    if len(xs) != 2:
        raise ValueError("operator 'data_norm': X must be a 2-D tensor [N, C], got shape %s" % (list(xs),))
    c = xs[1]
    for slot in ('BatchSize', 'BatchSum', 'BatchSquareSum'):
        s = ctx.in_shape(slot)
        if len(s) != 1 or (c >= 0 and s[0] >= 0 and s[0] != c):
            raise ValueError("operator 'data_norm': %s must be 1-D of the %d columns of X, got shape %s"
                             % (slot, c, list(s)))
    return xs, c


@shape_rule('data_norm')
def _data_norm_shape(ctx):
    xs, c = _data_norm_dims(ctx)
    if ctx.attr('enable_scale_and_shift') and not (ctx.has_input('scale_w') and ctx.has_input('bias')):
        raise ValueError("operator 'data_norm': enable_scale_and_shift needs the scale_w and bias inputs")
    slot_dim = int(ctx.attr('slot_dim'))
    if slot_dim > 0 and c >= 0 and c % slot_dim:
        raise ValueError("operator 'data_norm': the %d columns of X must be a multiple of slot_dim %d" % (c, slot_dim))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('Means', (c,), dtype)
    ctx.set_output('Scales', (c,), dtype)


@kernel_rule('data_norm')
def _data_norm_kernel(spec):
    slot_dim = int(spec.attr('slot_dim'))
    scaled = bool(spec.attr('enable_scale_and_shift'))

    def run(x, size, total, square, scale_w, bias):
        y, means, scales = KZ.data_norm_forward(x, size, total, square, scale_w if scaled else None,
                                                bias if scaled else None, slot_dim)
        return y, means, scales, size, total, square
    return run


defop('data_norm_grad', ['X', 'Means', 'Scales', 'BatchSize', 'BatchSum', 'BatchSquareSum', 'scale_w', 'bias',
                         'Y@GRAD'],
      ['X@GRAD', 'BatchSize@GRAD', 'BatchSum@GRAD', 'BatchSquareSum@GRAD', 'scale_w@GRAD', 'bias@GRAD'],
      dict(OPS['data_norm'].attrs),
      dispensable=['scale_w', 'bias', 'X@GRAD', 'BatchSize@GRAD', 'BatchSum@GRAD', 'BatchSquareSum@GRAD',
                   'scale_w@GRAD', 'bias@GRAD'])


@grad_rule('data_norm')
def _data_norm_grad_maker(g):
    inputs = {'X': g.input('X'), 'Means': g.output('Means'), 'Scales': g.output('Scales'),
              'BatchSize': g.input('BatchSize'), 'BatchSum': g.input('BatchSum'),
              'BatchSquareSum': g.input('BatchSquareSum'), 'Y@GRAD': g.output_grad('Y')}
    outputs = {slot + '@GRAD': g.input_grad(slot) for slot in ('X', 'BatchSize', 'BatchSum', 'BatchSquareSum')}
    if g.op.input('scale_w'):
        inputs.update(scale_w=g.input('scale_w'), bias=g.input('bias'))
        outputs.update({'scale_w@GRAD': g.input_grad('scale_w'), 'bias@GRAD': g.input_grad('bias')})
    return [('data_norm_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('data_norm_grad')
def _data_norm_grad_shape(ctx):
    for slot, names in ctx.op.outputs.items():
        fwd = slot[:-len('@GRAD')]
        for k, _ in enumerate(names):
            ctx.set_output(slot, ctx.in_shape(fwd), ctx.in_dtype(fwd), i=k)


@kernel_rule('data_norm_grad')
def _data_norm_grad_kernel(spec):
    slot_dim, eps = int(spec.attr('slot_dim')), float(spec.attr('epsilon'))
    scaled = bool(spec.attr('enable_scale_and_shift'))

    def run(x, means, scales, size, total, square, scale_w, bias, dy):
        dx, d_size, d_sum, d_square, d_scale, d_bias = KZ.data_norm_backward(
            x, means, scales, dy, eps, scale_w if scaled else None, slot_dim)
        return dx, d_size, d_sum, d_square, d_scale, d_bias
    return run


# ---------------------------------------------------------------------------------------------------------------
# spectral_norm

defop('spectral_norm', ['Weight', 'U', 'V'], ['Out'], {'dim': 0, 'power_iters': 1, 'eps': 1e-12},
      grad=GradSpec(('Weight', 'U', 'V', 'Out@GRAD'), ('Weight@GRAD',)))


@shape_rule('spectral_norm')
def _spectral_norm_shape(ctx):
    ws = ctx.in_shape('Weight')
    dim = int(ctx.attr('dim'))
    if not 2 <= len(ws) <= 5:
        raise ValueError("operator 'spectral_norm': the rank of Weight must be in [2, 5], got shape %s" % (list(ws),))
    if not 0 <= dim < len(ws):
        raise ValueError("operator 'spectral_norm': dim must be in [0, %d), got %d" % (len(ws), dim))
    if int(ctx.attr('power_iters')) < 0:
        raise ValueError("operator 'spectral_norm': power_iters must be >= 0, got %d" % ctx.attr('power_iters'))
    h = ws[dim]
    w = prod([d for i, d in enumerate(ws) if i != dim])
    for slot, want in (('U', h), ('V', w)):
        n = prod(ctx.in_shape(slot))
        if want >= 0 and n >= 0 and n != want:
            raise ValueError("operator 'spectral_norm': %s must have %d elements (Weight %s, dim %d), got shape %s"
                             % (slot, want, list(ws), dim, list(ctx.in_shape(slot))))
    ctx.set_output('Out', ws, ctx.in_dtype('Weight'))


def _spectral_attrs(spec):
    return dict(dim=int(spec.attr('dim')), power_iters=int(spec.attr('power_iters')), eps=float(spec.attr('eps')))


@kernel_rule('spectral_norm')
def _spectral_norm_kernel(spec):
    kw = _spectral_attrs(spec)
    return lambda w, u, v: (KZ.spectral_norm_forward(w, u, v, **kw),)


@kernel_rule('spectral_norm_grad')
def _spectral_norm_grad_kernel(spec):
    kw = _spectral_attrs(spec)
    return lambda w, u, v, dout: (KZ.spectral_norm_backward(w, u, v, dout, **kw),)


# ---------------------------------------------------------------------------------------------------------------
# affine_channel

defop('affine_channel', ['X', 'Scale', 'Bias'], ['Out'], {'data_layout': 'AnyLayout'},
      grad=GradSpec(('X', 'Scale', 'Out@GRAD'), ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


@shape_rule('affine_channel')
def _affine_channel_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) < 2:
        raise ValueError("operator 'affine_channel': X must have rank >= 2, got shape %s" % (list(xs),))
    c = xs[-1] if ctx.attr('data_layout') == 'NHWC' else xs[1]
    _nn._check_param_size(ctx, 'affine_channel', c)
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('affine_channel')
def _affine_channel_kernel(spec):
    last = spec.attr('data_layout') == 'NHWC'
    return lambda x, scale, bias: (KZ.affine_channel_forward(x, scale, bias, last),)


@kernel_rule('affine_channel_grad')
def _affine_channel_grad_kernel(spec):
    last = spec.attr('data_layout') == 'NHWC'

    def run(x, scale, dout):
        dx, dscale, dbias = KZ.affine_channel_backward(x, scale, dout, last)
        return dx, dscale.reshape(scale.shape), dbias.reshape(scale.shape)
    return run


# ---------------------------------------------------------------------------------------------------------------
# sync_batch_norm: batch_norm's rules under another type

_BN = OPS['batch_norm']
defop('sync_batch_norm', _BN.inputs, _BN.outputs, _BN.attrs, dispensable=_BN.dispensable, inplace=_BN.inplace,
      grad=GradSpec(OPS['batch_norm_grad'].inputs, OPS['batch_norm_grad'].outputs))
shape_rule('sync_batch_norm')(SHAPE_RULES['batch_norm'])
kernel_rule('sync_batch_norm')(KERNEL_RULES['batch_norm'])
kernel_rule('sync_batch_norm_grad')(KERNEL_RULES['batch_norm_grad'])


@grad_rule('sync_batch_norm')
def _sync_bn_grad_maker(g):
    return [('sync_batch_norm_grad',) + tuple(made[1:]) for made in GRAD_RULES['batch_norm'](g)]


# ---------------------------------------------------------------------------------------------------------------
# inplace_abn

defop('inplace_abn', _BN.inputs, _BN.outputs, {**_BN.attrs, 'activation': 'identity', 'alpha': 1.0},
      dispensable=_BN.dispensable, inplace={**_BN.inplace, 'Y': 'X'})
defop('inplace_abn_grad', ['Y', 'Scale', 'Bias', 'Mean', 'Variance', 'SavedMean', 'SavedVariance', 'Y@GRAD'],
      ['X@GRAD', 'Scale@GRAD', 'Bias@GRAD'], {**_BN.attrs, 'activation': 'identity', 'alpha': 1.0},
      dispensable=['Mean', 'Variance', 'X@GRAD', 'Scale@GRAD', 'Bias@GRAD'])
shape_rule('inplace_abn')(SHAPE_RULES['batch_norm'])


def _activation(spec):
    act = spec.attr('activation') or 'identity'
    if act not in ('identity', 'leaky_relu', 'elu'):
        raise ValueError("operator '%s': activation must be 'identity', 'leaky_relu' or 'elu', got %r" % (spec.type,
                                                                                                            act))
    return act, float(spec.attr('alpha'))


@kernel_rule('inplace_abn')
def _inplace_abn_kernel(spec):
    act, alpha = _activation(spec)
    batch_norm = KERNEL_RULES['batch_norm'](spec)

    def run(*inputs):
        y, *rest = batch_norm(*inputs)
        if act == 'leaky_relu':
            y = np.where(y >= 0, y, y * y.dtype.type(alpha))
        elif act == 'elu':
            y = np.where(y >= 0, y, (np.exp(y) - 1) * y.dtype.type(alpha)).astype(y.dtype)
        return (y,) + tuple(rest)
    return run


@grad_rule('inplace_abn')
def _inplace_abn_grad_maker(g):
    inputs = {'Y': g.output('Y'), 'Scale': g.input('Scale'), 'Bias': g.input('Bias'),
              'SavedMean': g.output('SavedMean'), 'SavedVariance': g.output('SavedVariance'),
              'Y@GRAD': g.output_grad('Y')}
    if _nn._bn_global_stats(g.attrs.get):
        inputs.update(Mean=g.output('MeanOut'), Variance=g.output('VarianceOut'))
    outputs = {'X@GRAD': g.input_grad('X'), 'Scale@GRAD': g.input_grad('Scale'), 'Bias@GRAD': g.input_grad('Bias')}
    return [('inplace_abn_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('inplace_abn_grad')
def _inplace_abn_grad_shape(ctx):
    for slot, fwd in (('X@GRAD', 'Y'), ('Scale@GRAD', 'Scale'), ('Bias@GRAD', 'Bias')):
        if ctx.has_output(slot):
            ctx.set_output(slot, ctx.in_shape(fwd), ctx.in_dtype(fwd))


@kernel_rule('inplace_abn_grad')
def _inplace_abn_grad_kernel(spec):
    act, alpha = _activation(spec)
    eps = float(spec.attr('epsilon'))
    layout = spec.attr('data_layout')
    global_stats = _nn._bn_global_stats(spec.attr)

    def run(y, scale, bias, mean, variance, saved_mean, saved_inv_std, dy):
        dt = y.dtype
        if act == 'leaky_relu':
            dy = np.where(y >= 0, dy, dy * dt.type(alpha))
            y = np.where(y >= 0, y, y / dt.type(alpha))
        elif act == 'elu':
            dy = np.where(y >= 0, dy, dy * (y + dt.type(alpha)))
            y = np.where(y >= 0, y, np.log(y / dt.type(alpha) + 1))
        shape = [1] * y.ndim
        shape[-1 if layout == 'NHWC' else 1] = -1
        if global_stats:
            mu = np.asarray(mean).reshape(shape)
            inv_std = 1.0 / np.sqrt(np.asarray(variance).reshape(shape) + eps)
        else:
            mu, inv_std = saved_mean.reshape(shape), saved_inv_std.reshape(shape)
        x = ((y - bias.reshape(shape)) / scale.reshape(shape) / inv_std + mu).astype(dt)
        dx, dscale, dbias = KN.batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy.astype(dt), epsilon=eps,
                                                   use_global_stats=global_stats, mean=mean, variance=variance,
                                                   data_layout=layout)
        return dx, dscale.reshape(scale.shape), dbias.reshape(bias.shape)
    return run
