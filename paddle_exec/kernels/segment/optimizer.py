"""Dense optimizer updates for compiled segments, in place, on the loops of kernels/optimizer.py; numpy twins.

    param = sgd(param, lr, grad)
    param, velocity = momentum(param, grad, velocity, lr, mu, nesterov)
    param, m1, m2, b1p, b2p = adam(param, grad, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled)
    param = sgd_parts(param, lr, grads)          # the *_parts variants: the gradient as a tuple of its parts
    param, velocity = momentum_parts(param, grads, velocity, lr, mu, nesterov)
    param, m1, m2, b1p, b2p = adam_parts(param, grads, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled)

Each writes into the arrays it is given and returns them (a non-contiguous argument is updated in a contiguous
copy, which is returned instead, as the per-op kernels do). A sparse gradient (SelectedRows) never reaches these:
the segment falls back to the op's own kernel for it. The scalar arithmetic follows kernels/optimizer.py in the
parameter's dtype (Paddle's float32 attributes come in float32-rounded).

The parts variants are fuse_all_optimizer_ops' `coalesce_tensor` of the gradients and the fused update as one call
(passes/segments.py fuses the pair): the parameter and its accumulators are one buffer each, the gradients stay the
arrays the backward made, and each part updates its slice of the buffers where it lies. No fused gradient buffer is
allocated and nothing is copied: one pass over memory, as the separate updates make. The arithmetic is elementwise,
so the numbers are those of the update on the coalesced gradient, bit for bit (the twins compute exactly that).
"""
from __future__ import annotations

import numpy as np
from numba import literal_unroll

from .. import optimizer as KO
from ..jit import kernel_jit
from .elementwise import as_dtype_of
from .tensor import coalesce_ref

__all__ = ['sgd', 'sgd_ref', 'momentum', 'momentum_ref', 'adam', 'adam_ref', 'sgd_parts', 'sgd_parts_ref',
           'momentum_parts', 'momentum_parts_ref', 'adam_parts', 'adam_parts_ref']

_jit = kernel_jit(error_model='numpy')


@_jit
def _grad(grad, param):
    g = np.ascontiguousarray(as_dtype_of(grad, param))
    if g.size != param.size:
        raise ValueError('the gradient does not have the size of the parameter')
    return g.reshape(-1)


@_jit
def sgd(param, lr, grad):
    p = np.ascontiguousarray(param)
    KO._sgd_dense(p.reshape(-1), _grad(grad, p), p.dtype.type(lr.reshape(-1)[0]))
    return p


def _writable(a):
    if a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, order='C', copy=True)


def _grad_ref(grad, p):
    g = np.ascontiguousarray(grad, dtype=p.dtype)
    if g.size != p.size:
        raise ValueError('gradient has shape %s, the parameter %s' % (g.shape, p.shape))
    return g.reshape(p.shape)


def sgd_ref(param, lr, grad):
    p = _writable(param)
    np.subtract(p, p.dtype.type(np.asarray(lr).reshape(-1)[0]) * _grad_ref(grad, p), out=p)
    return p


@_jit
def _velocity(param, velocity):
    p = np.ascontiguousarray(param)
    v = np.ascontiguousarray(velocity)
    if v.size != p.size:
        raise ValueError('the velocity does not have the size of the parameter')
    return p, v


@_jit
def momentum(param, grad, velocity, lr, mu, nesterov):
    p, v = _velocity(param, velocity)
    t = p.dtype.type
    KO._momentum_dense(p.reshape(-1), _grad(grad, p), v.reshape(-1), t(lr.reshape(-1)[0]), t(mu), nesterov)
    return p, v


def momentum_ref(param, grad, velocity, lr, mu, nesterov):
    p, v = _writable(param), _writable(velocity)
    t = p.dtype.type
    g = _grad_ref(grad, p)
    rate, mu = t(np.asarray(lr).reshape(-1)[0]), t(mu)
    vo = v * mu + g
    v[...] = vo
    if nesterov:
        np.subtract(p, (g + vo * mu) * rate, out=p)
    else:
        np.subtract(p, rate * vo, out=p)
    return p, v


@_jit
def _adam_scalars(p, lr, b1p, b2p, beta1, beta2, epsilon, scaled):
    """(lr_t, beta1, beta2, 1 - beta1, 1 - beta2, eps) in the parameter's dtype, as kernels/optimizer.py's adam."""
    t = p.dtype.type
    one = t(1)
    pow1 = t(b1p.reshape(-1)[0])
    pow2 = t(b2p.reshape(-1)[0])
    lr_t = t(lr.reshape(-1)[0]) * (np.sqrt(one - pow2) / (one - pow1))
    eps = t(epsilon)
    if scaled:
        eps = eps * np.sqrt(one - pow2)
    bb1 = t(beta1)
    bb2 = t(beta2)
    return lr_t, bb1, bb2, one - bb1, one - bb2, eps


@_jit
def _advance_pows(b1p, b2p, beta1, beta2):
    """Every element: a fused adam (fuse_all_optimizer_ops) holds one pow per parameter."""
    f1 = b1p.reshape(-1)
    f2 = b2p.reshape(-1)
    for i in range(f1.size):
        f1[i] = f1[i] * b1p.dtype.type(beta1)
    for i in range(f2.size):
        f2[i] = f2[i] * b2p.dtype.type(beta2)


@_jit
def _moments(param, m1, m2):
    p = np.ascontiguousarray(param)
    a = np.ascontiguousarray(m1)
    b = np.ascontiguousarray(m2)
    if a.size != p.size or b.size != p.size:
        raise ValueError('the moments do not have the size of the parameter')
    return p, a, b


@_jit
def adam(param, grad, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled):
    p, a, b = _moments(param, m1, m2)
    lr_t, bb1, bb2, c1, c2, eps = _adam_scalars(p, lr, b1p, b2p, beta1, beta2, epsilon, scaled)
    KO._adam_dense(p.reshape(-1), _grad(grad, p), a.reshape(-1), b.reshape(-1), lr_t, bb1, bb2, c1, c2, eps)
    if advance:
        _advance_pows(b1p, b2p, beta1, beta2)
    return p, a, b, b1p, b2p


def adam_ref(param, grad, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled):
    p, a, b = _writable(param), _writable(m1), _writable(m2)
    t = p.dtype.type
    one = t(1)
    pow1, pow2 = t(np.asarray(b1p).reshape(-1)[0]), t(np.asarray(b2p).reshape(-1)[0])
    lr_t = t(np.asarray(lr).reshape(-1)[0]) * (np.sqrt(one - pow2) / (one - pow1))
    eps = t(epsilon)
    if scaled:
        eps = eps * np.sqrt(one - pow2)
    bb1, bb2 = t(beta1), t(beta2)
    g = _grad_ref(grad, p)
    a[...] = bb1 * a + (one - bb1) * g
    b[...] = bb2 * b + (one - bb2) * g * g
    np.subtract(p, lr_t * (a / (np.sqrt(b) + eps)), out=p)
    if advance:
        b1p[...] = b1p * b1p.dtype.type(beta1)
        b2p[...] = b2p * b2p.dtype.type(beta2)
    return p, a, b, b1p, b2p


# --- the gradient as its parts (fuse_all_optimizer_ops: coalesce_tensor + the fused update as one call) ----------

@_jit
def _parts_size(grads, param):
    n = 0
    for g in literal_unroll(grads):
        n += g.size
    if n != param.size:
        raise ValueError('the gradient does not have the size of the parameter')


@_jit
def sgd_parts(param, lr, grads):
    p = np.ascontiguousarray(param)
    _parts_size(grads, p)
    flat = p.reshape(-1)
    rate = p.dtype.type(lr.reshape(-1)[0])
    start = 0
    for g in literal_unroll(grads):
        part = flat[start:start + g.size]
        KO._sgd_dense(part, _grad(g, part), rate)
        start += g.size
    return p


def sgd_parts_ref(param, lr, grads):
    return sgd_ref(param, lr, coalesce_ref(grads))


@_jit
def momentum_parts(param, grads, velocity, lr, mu, nesterov):
    p, v = _velocity(param, velocity)
    _parts_size(grads, p)
    fp = p.reshape(-1)
    fv = v.reshape(-1)
    t = p.dtype.type
    rate = t(lr.reshape(-1)[0])
    start = 0
    for g in literal_unroll(grads):
        end = start + g.size
        KO._momentum_dense(fp[start:end], _grad(g, fp[start:end]), fv[start:end], rate, t(mu), nesterov)
        start = end
    return p, v


def momentum_parts_ref(param, grads, velocity, lr, mu, nesterov):
    return momentum_ref(param, coalesce_ref(grads), velocity, lr, mu, nesterov)


@_jit
def adam_parts(param, grads, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled):
    p, a, b = _moments(param, m1, m2)
    _parts_size(grads, p)
    lr_t, bb1, bb2, c1, c2, eps = _adam_scalars(p, lr, b1p, b2p, beta1, beta2, epsilon, scaled)
    fp = p.reshape(-1)
    fa = a.reshape(-1)
    fb = b.reshape(-1)
    start = 0
    for g in literal_unroll(grads):
        end = start + g.size
        KO._adam_dense(fp[start:end], _grad(g, fp[start:end]), fa[start:end], fb[start:end], lr_t, bb1, bb2, c1,
                       c2, eps)
        start = end
    if advance:
        _advance_pows(b1p, b2p, beta1, beta2)
    return p, a, b, b1p, b2p


def adam_parts_ref(param, grads, lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled):
    return adam_ref(param, coalesce_ref(grads), lr, m1, m2, b1p, b2p, beta1, beta2, epsilon, advance, scaled)
