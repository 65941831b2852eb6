"""Activations of paddle.nn that are not one-opcode unary functions (unary.py): celu, rrelu and gumbel_softmax,
with PaddlePaddle 2.6's CPU semantics. Elementwise numpy: one or two passes each, no state.

- celu: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; gradient ``dout`` where x > 0, else
  ``dout * exp(x / alpha)``.
- rrelu: training draws each element's negative slope uniformly in [lower, upper] (``Noise``; 1 where x >= 0);
  in test mode the slope is ``(lower + upper) / 2``. ``Out = x * Noise``, gradient ``dout * Noise``.
- gumbel_softmax: ``softmax((x + g) / temperature)`` along `axis` with Gumbel noise ``g = -log(-log(u))``, u
  uniform in (0, 1); `hard` replaces each row by the one-hot of its argmax. The gradient is Paddle's:
  ``out * (dout - sum(out * dout)) / temperature`` with the op's output `out` (one-hot when hard).
"""
from __future__ import annotations

import numpy as np

__all__ = ['celu_forward', 'celu_backward', 'rrelu_forward', 'rrelu_backward', 'gumbel_softmax_forward',
           'gumbel_softmax_backward']


def celu_forward(x, alpha):
    a = x.dtype.type(alpha)
    return (np.maximum(x, 0) + np.minimum(0, a * (np.exp(x / a) - 1))).astype(x.dtype, copy=False)


def celu_backward(x, dout, alpha):
    a = x.dtype.type(alpha)
    return np.where(x > 0, dout, dout * np.exp(x / a)).astype(x.dtype, copy=False)


def rrelu_forward(x, lower, upper, is_test, rng=None):
    """Returns (Out, Noise)."""
    dt = x.dtype
    if is_test:
        slope = np.full(x.shape, (lower + upper) / 2.0, dtype=dt)
    else:
        slope = rng.uniform(lower, upper, size=x.shape).astype(dt)
    noise = np.where(x >= 0, dt.type(1), slope).astype(dt)
    return (x * noise).astype(dt, copy=False), noise


def rrelu_backward(noise, dout):
    return (dout * noise).astype(dout.dtype, copy=False)


def gumbel_softmax_forward(x, temperature, hard, axis, rng):
    dt = x.dtype
    u = rng.uniform(np.finfo(np.float32).tiny, 1.0, size=x.shape)
    g = (-np.log(-np.log(u))).astype(dt)
    z = (x + g) / dt.type(temperature)
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    y = e / e.sum(axis=axis, keepdims=True)
    if hard:
        index = np.expand_dims(np.argmax(y, axis=axis), axis)
        y = np.zeros_like(y)
        np.put_along_axis(y, index, 1, axis=axis)
    return y.astype(dt, copy=False)


def gumbel_softmax_backward(out, dout, temperature, axis):
    dt = out.dtype
    return (out * (dout - np.sum(out * dout, axis=axis, keepdims=True)) / dt.type(temperature)).astype(dt)
