"""Losses for compiled segments: softmax_with_cross_entropy (hard labels, softmax over the last axis) and
sigmoid_cross_entropy_with_logits, forward and gradient, on the loops of kernels/loss.py; and their numpy twins.

    softmax, loss = softmax_xent(logits, label, ignore_index)
    dlogits = softmax_xent_grad(label, softmax, dloss, ignore_index, legacy)
    out = sigmoid_xent(x, label, ignore_index, normalize);  dx = sigmoid_xent_grad(x, label, dout, ignore, normalize)
    out = softmax(x);  dx = softmax_grad(out, dout)            # the softmax op over the last axis

A label out of range raises ValueError (the per-op kernel's message names the value; the segment retries the
first tier, whose twin raises that message).
"""
from __future__ import annotations

import numpy as np

from .. import loss as KL
from .. import reduce as KR
from ..jit import kernel_jit
from .activation import exp32
from .elementwise import as_dtype_of

__all__ = ['softmax', 'softmax_ref', 'softmax_grad', 'softmax_grad_ref', 'softmax_xent', 'softmax_xent_ref',
           'softmax_xent_grad', 'softmax_xent_grad_ref', 'sigmoid_xent', 'sigmoid_xent_ref', 'sigmoid_xent_grad',
           'sigmoid_xent_grad_ref']

_jit = kernel_jit(error_model='numpy')


@_jit
def _rows(a):
    d = a.shape[a.ndim - 1]
    return a.size // d if d else 0, d


@_jit
def softmax_xent(logits, label, ignore_index):
    x = np.ascontiguousarray(logits)
    n, d = _rows(x)
    sm3 = KL._softmax3(x.reshape(n, d, 1))
    lab = np.ascontiguousarray(label).reshape(-1).astype(np.int64)
    if lab.size != n:
        raise ValueError('softmax_with_cross_entropy: the label does not have one value per row')
    loss, bad, ok = KL._hard_xent(sm3, lab.reshape(n, 1), ignore_index)
    if not ok:
        raise ValueError('softmax_with_cross_entropy: a label value is out of range')
    return sm3.reshape(x.shape), loss.reshape(_loss_shape(x))


@_jit
def _loss_shape(x):
    return x.shape[:-1] + (1,)


def _softmax_ref(x):
    """kernels/loss.py `_softmax3` in numpy: the shifted logit clipped at -64 becomes a double there, so exp is
    taken in float64, stored as float32 and summed (in order) as the double."""
    m = x.max(axis=-1, keepdims=True)
    t = (x - m).astype(np.float64)
    t = np.where(t < -64.0, -64.0, t)
    e = np.exp(t)
    s = np.add.accumulate(e, axis=-1)[..., -1:]
    return (e.astype(x.dtype) * (1.0 / s)).astype(x.dtype)


def _tolerable_log(v):
    """kernels/loss.py `_tolerable_log`: the C library's logf for float32 (correctly rounded: a float64 log rounded
    once), +-1e20 for infinities."""
    with np.errstate(divide='ignore'):
        r = np.log(v.astype(np.float64)).astype(v.dtype)
    return np.where(r == np.inf, 1e20, np.where(r == -np.inf, -1e20, r))


def softmax_xent_ref(logits, label, ignore_index):
    x = np.ascontiguousarray(logits)
    d = x.shape[-1]
    sm = _softmax_ref(x.reshape(-1, d))
    lab = np.ascontiguousarray(label, dtype=np.int64).reshape(-1)
    if lab.size != sm.shape[0]:
        raise ValueError('softmax_with_cross_entropy: the label does not have one value per row')
    ignored = lab == ignore_index
    bad = ~ignored & ((lab < 0) | (lab >= d))
    if bad.any():
        KL._label_error(int(lab[bad][0]), d, ignore_index)
    picked = sm[np.arange(sm.shape[0]), np.where(ignored, 0, lab)]
    loss = np.where(ignored, 0, -_tolerable_log(picked)).astype(x.dtype)
    return sm.reshape(x.shape), loss.reshape(x.shape[:-1] + (1,))


@_jit
def softmax_xent_grad(label, softmax, dloss, ignore_index, legacy):
    sm = np.ascontiguousarray(softmax)
    n, d = _rows(sm)
    dl = np.ascontiguousarray(as_dtype_of(dloss, sm)).reshape(n, 1)
    lab = np.ascontiguousarray(label).reshape(-1).astype(np.int64)
    if lab.size != n:
        raise ValueError('softmax_with_cross_entropy_grad: the label does not have one value per row')
    dx = KL._swce_hard_grad(sm.reshape(n, d, 1), lab.reshape(n, 1), dl, ignore_index, legacy)
    return dx.reshape(sm.shape)


def softmax_xent_grad_ref(label, softmax, dloss, ignore_index, legacy):
    sm = np.ascontiguousarray(softmax)
    d = sm.shape[-1]
    sm2 = sm.reshape(-1, d)
    g = np.ascontiguousarray(dloss, dtype=sm.dtype).reshape(-1, 1)
    lab = np.ascontiguousarray(label, dtype=np.int64).reshape(-1)
    dx = sm2 * g
    ignored = lab == ignore_index
    if not legacy:
        dx[ignored] = 0
    ok = ~ignored & (lab >= 0) & (lab < d)
    rows = np.nonzero(ok)[0]
    dx[rows, lab[rows]] -= g[rows, 0]
    return dx.reshape(sm.shape)


@_jit
def sigmoid_xent(x, label, ignore_index, normalize):
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(as_dtype_of(label, x)).reshape(-1)
    if z.size != x.size:
        raise ValueError('sigmoid_cross_entropy_with_logits: X and Label differ in size')
    norm = float(KL._sce_count(z, ignore_index)) if normalize else 1.0
    return KL._sce_fwd(x.reshape(-1), z, ignore_index, norm).reshape(x.shape)


def _sce_norm_ref(z, ignore_index, normalize):
    return float(np.count_nonzero(z != np.float64(ignore_index))) if normalize else 1.0


def sigmoid_xent_ref(x, label, ignore_index, normalize):
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(x.shape)
    norm = _sce_norm_ref(z, ignore_index, normalize)
    keep = z.astype(np.int64) != ignore_index
    x64 = x.astype(np.float64)
    v = np.maximum(x64, 0.0) - x64 * z + np.log(1.0 + exp32(-np.abs(x)).astype(np.float64))
    with np.errstate(invalid='ignore', divide='ignore'):
        return (np.where(keep, v, 0.0) / norm).astype(x.dtype)


@_jit
def sigmoid_xent_grad(x, label, dout, ignore_index, normalize):
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(as_dtype_of(label, x)).reshape(-1)
    d = np.ascontiguousarray(as_dtype_of(dout, x)).reshape(-1)
    if z.size != x.size or d.size != x.size:
        raise ValueError('sigmoid_cross_entropy_with_logits_grad: X, Label and Out@GRAD differ in size')
    norm = float(KL._sce_count(z, ignore_index)) if normalize else 1.0
    return KL._sce_bwd(x.reshape(-1), z, d, ignore_index, norm).reshape(x.shape)


def sigmoid_xent_grad_ref(x, label, dout, ignore_index, normalize):
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(x.shape)
    d = np.ascontiguousarray(dout, dtype=x.dtype).reshape(x.shape)
    norm = _sce_norm_ref(z, ignore_index, normalize)
    keep = z.astype(np.int64) != ignore_index
    sig = 1.0 / (1.0 + exp32(-x).astype(np.float64))
    with np.errstate(invalid='ignore', divide='ignore'):
        return (np.where(keep, (sig - z) * d, 0.0) / norm).astype(x.dtype)


# --- the softmax op over the last axis (kernels/reduce.py's loops) --------------------------------------------------

@_jit
def softmax(x):
    x = np.ascontiguousarray(x)
    n, d = _rows(x)
    out = np.empty(x.shape, x.dtype)
    if x.size:
        KR._softmax_loop(x.reshape(-1), out.reshape(-1), n, d, 1, False, x.dtype.type(-64.0))
    return out


def softmax_ref(x):
    """The loop's arithmetic: exp of the clipped shifted logit in the dtype (the C library's, see exp32), summed
    in order as a double, each value times the double reciprocal."""
    x = np.ascontiguousarray(x)
    m = x.max(axis=-1, keepdims=True)
    t = np.maximum(x - m, x.dtype.type(-64.0))
    e = exp32(t) if x.dtype == np.float32 else np.exp(t)
    s = np.add.accumulate(e.astype(np.float64), axis=-1)[..., -1:]
    return (e * (1.0 / s)).astype(x.dtype)


@_jit
def softmax_grad(out, dout):
    out = np.ascontiguousarray(out)
    dout = np.ascontiguousarray(as_dtype_of(dout, out))
    if dout.size != out.size:
        raise ValueError('softmax_grad: Out@GRAD does not have the shape of Out')
    n, d = _rows(out)
    dx = np.empty(out.shape, out.dtype)
    if out.size:
        KR._softmax_grad_loop(out.reshape(-1), dout.reshape(-1), dx.reshape(-1), n, d, 1, False)
    return dx


def softmax_grad_ref(out, dout):
    out = np.ascontiguousarray(out)
    dout = np.ascontiguousarray(dout, dtype=out.dtype).reshape(out.shape)
    acc = np.add.accumulate((dout * out).astype(np.float64), axis=-1)[..., -1:]
    return ((dout.astype(np.float64) - acc) * out).astype(out.dtype)
