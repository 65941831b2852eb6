"""batch_norm + relu as one op (Paddle's `fused_batch_norm_act` / `fused_batch_norm_act_grad`, act_type 'relu').

    y, mean_out, var_out, saved_mean, saved_inv_std = batch_norm_relu_forward(x, scale, bias, mean, variance,
                                                                              momentum, epsilon, data_layout)
    dx, dscale, dbias = batch_norm_relu_backward(x, y, scale, saved_mean, saved_inv_std, dy, data_layout)

The forward is batch_norm's (kernels/norm.py: the batch statistics in float64, the running statistics updated
with `momentum`) with the relu applied as each normalised value is written, so the pre-activation tensor is never
stored. The backward reads the relu's output `y` for the mask (relu_grad: `dy if y > 0 else 0`) inside
batch_norm_grad's two passes (the channel sums, then dx), so the masked gradient is never stored either. Each
value is rounded to the tensor's dtype where the unfused ops round it (the normalised value before the relu), so
the numbers are those of batch_norm followed by relu (and relu_grad then batch_norm_grad), up to the order in which
the vectorised channel sums add.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit
from .norm import _bn_stats, _bn_view

__all__ = ['batch_norm_relu_forward', 'batch_norm_relu_backward']

_jit = kernel_jit(error_model='numpy')
_jit_reduce = kernel_jit(error_model='numpy', fastmath={'reassoc', 'nsz', 'contract'})


@_jit
def _bn_apply_relu(x3, mean, inv_std, scale, bias):
    a_, c_, b_ = x3.shape
    y = np.empty_like(x3)
    for a in range(a_):
        for c in range(c_):
            k = scale[c] * inv_std[c]
            off = bias[c] - mean[c] * k
            for b in range(b_):
                y[a, c, b] = x3[a, c, b] * k + off      # rounded to y's dtype, as batch_norm's Y
                v = y[a, c, b]
                y[a, c, b] = v if v > 0 else 0
    return y


@_jit_reduce
def _bn_relu_grad(x3, y3, dy3, mean, inv_std, scale):
    a_, c_, b_ = x3.shape
    dbias = np.zeros(c_, dtype=np.float64)
    dscale = np.zeros(c_, dtype=np.float64)
    for a in range(a_):
        for c in range(c_):
            mu = mean[c]
            sb = 0.0
            ss = 0.0
            for b in range(b_):
                g = dy3[a, c, b] if y3[a, c, b] > 0 else 0.0
                sb += g
                ss += g * (x3[a, c, b] - mu)
            dbias[c] += sb
            dscale[c] += ss
    for c in range(c_):
        dscale[c] *= inv_std[c]
    dx = np.empty_like(x3)
    m = a_ * b_
    for a in range(a_):
        for c in range(c_):
            k = scale[c] * inv_std[c]
            mu = mean[c]
            db = dbias[c] / m
            ds = dscale[c] * inv_std[c] / m
            for b in range(b_):
                g = dy3[a, c, b] if y3[a, c, b] > 0 else 0.0
                dx[a, c, b] = k * (g - db - (x3[a, c, b] - mu) * ds)
    return dx, dscale, dbias


def batch_norm_relu_forward(x, scale, bias, mean, variance, momentum=0.9, epsilon=1e-5, data_layout='NHWC'):
    """relu(batch_norm(x)) in training mode (batch statistics). Returns (y, mean_out, variance_out, saved_mean,
    saved_inv_std) as kernels/norm.batch_norm_forward does, y after the relu."""
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x3 = _bn_view(x, data_layout)
    c = x3.shape[1]
    scale = np.asarray(scale, dtype=dt).reshape(c)
    bias = np.asarray(bias, dtype=dt).reshape(c)
    mean = np.asarray(mean, dtype=dt).reshape(c)
    variance = np.asarray(variance, dtype=dt).reshape(c)
    bmean, bvar = _bn_stats(x3)
    inv_std = 1.0 / np.sqrt(bvar + epsilon)
    y = _bn_apply_relu(x3, bmean, inv_std, scale, bias)
    mean_out = (mean * dt.type(momentum) + bmean.astype(dt) * dt.type(1.0 - momentum)).astype(dt)
    var_out = (variance * dt.type(momentum) + bvar.astype(dt) * dt.type(1.0 - momentum)).astype(dt)
    return y.reshape(x.shape), mean_out, var_out, bmean.astype(dt), inv_std.astype(dt)


def batch_norm_relu_backward(x, y, scale, saved_mean, saved_inv_std, dy, data_layout='NHWC'):
    """The gradient of relu(batch_norm(x)) in training mode, from the forward's output `y` (the relu mask) and its
    saved statistics. Returns (dx, dscale, dbias) in x's dtype."""
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x3 = _bn_view(x, data_layout)
    y3 = _bn_view(np.ascontiguousarray(y, dtype=dt), data_layout)
    dy3 = _bn_view(np.ascontiguousarray(dy, dtype=dt), data_layout)
    if y3.shape != x3.shape or dy3.shape != x3.shape:
        raise ValueError('Y and Y@GRAD must have the shape of X %s, got %s and %s'
                         % (x.shape, np.shape(y), np.shape(dy)))
    c = x3.shape[1]
    scale = np.asarray(scale, dtype=dt).reshape(c)
    mu = np.asarray(saved_mean, dtype=np.float64).reshape(c)
    inv_std = np.asarray(saved_inv_std, dtype=np.float64).reshape(c)
    dx, dscale, dbias = _bn_relu_grad(x3, y3, dy3, mu, inv_std, scale)
    return dx.reshape(x.shape), dscale.astype(dt), dbias.astype(dt)
