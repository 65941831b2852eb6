"""Small linear and bilinear maps over feature vectors, with PaddlePaddle's semantics: bilinear_tensor_product,
cos_sim, row_conv and pad_constant_like (checked against paddlepaddle 1.8.5 and 2.6.2). Each is a few numpy
products (BLAS releases the GIL) or slices.

- bilinear_tensor_product: X [B, M], Y [B, N], Weight [K, M, N] (Bias [1, K]): ``Out[b, k] = X[b] W[k] Y[b]^T +
  Bias[k]``.
- cos_sim: X [N, D] (trailing dims flattened), Y [N, D] or [1, D] (broadcast over the rows): ``Out = x.y / (|x|
  |y|)`` [N, 1], with XNorm [N, 1] and YNorm [N or 1, 1] kept for the gradient.
- row_conv (lookahead convolution, DeepSpeech 2): Filter [F + 1, D]; within each sequence ``Out[t] = sum_i X[t +
  i] * Filter[i]`` over the i with t + i inside the sequence. Sequences are the rows of a [B, T, D] input, or one
  [T, D] sequence.
- pad_constant_like: Y padded after its end in every dim to the shape of X with pad_value; the gradient slices
  dOut back (X gets none).
"""
from __future__ import annotations

import numpy as np

__all__ = ['bilinear_forward', 'bilinear_backward', 'cos_sim_forward', 'cos_sim_backward', 'row_conv_forward',
           'row_conv_backward']


def bilinear_forward(x, y, weight, bias=None):
    out = np.einsum('bm,kmn,bn->bk', x, weight, y, optimize=True)
    if bias is not None:
        out = out + bias.reshape(1, -1)
    return out.astype(x.dtype, copy=False)


def bilinear_backward(x, y, weight, dout):
    """(dX, dY, dWeight, dBias)."""
    dx = np.einsum('bk,kmn,bn->bm', dout, weight, y, optimize=True)
    dy = np.einsum('bk,kmn,bm->bn', dout, weight, x, optimize=True)
    dw = np.einsum('bk,bm,bn->kmn', dout, x, y, optimize=True)
    dt = x.dtype
    return dx.astype(dt), dy.astype(dt), dw.astype(dt), dout.sum(axis=0, keepdims=True).astype(dt)


def cos_sim_forward(x, y):
    """Returns (Out [N, 1], XNorm [N, 1], YNorm [N or 1, 1])."""
    x2 = x.reshape(x.shape[0], -1)
    y2 = y.reshape(y.shape[0], -1)
    xn = np.sqrt(np.sum(x2 * x2, axis=1, keepdims=True))
    yn = np.sqrt(np.sum(y2 * y2, axis=1, keepdims=True))
    out = np.sum(x2 * y2, axis=1, keepdims=True) / (xn * yn)
    dt = x.dtype
    return out.astype(dt), xn.astype(dt), yn.astype(dt)


def cos_sim_backward(x, y, out, xn, yn, dout, need_x=True, need_y=True):
    """(dX, dY), either None when not needed; dY is summed over the rows when Y has one row."""
    x2 = x.reshape(x.shape[0], -1)
    y2 = y.reshape(y.shape[0], -1)
    dx = dy = None
    if need_x:
        dx = (dout * (y2 / (xn * yn) - out * x2 / (xn * xn))).reshape(x.shape).astype(x.dtype)
    if need_y:
        g = dout * (x2 / (xn * yn) - out * y2 / (yn * yn))
        if y2.shape[0] == 1 and x2.shape[0] != 1:
            g = g.sum(axis=0, keepdims=True)
        dy = g.reshape(y.shape).astype(y.dtype)
    return dx, dy


def _batched(x):
    return x[None] if x.ndim == 2 else x


def row_conv_forward(x, filt):
    xb = _batched(x)
    t = xb.shape[1]
    out = np.zeros_like(xb)
    for i in range(min(filt.shape[0], t)):
        out[:, :t - i] += xb[:, i:] * filt[i]
    return out.reshape(x.shape)


def row_conv_backward(x, filt, dout, need_x=True, need_filter=True):
    """(dX, dFilter), either None when not needed."""
    xb, db = _batched(x), _batched(dout)
    t = xb.shape[1]
    dx = np.zeros_like(xb) if need_x else None
    dfilt = np.zeros_like(filt) if need_filter else None
    for i in range(min(filt.shape[0], t)):
        if need_x:
            dx[:, i:] += db[:, :t - i] * filt[i]
        if need_filter:
            dfilt[i] = np.sum(db[:, :t - i] * xb[:, i:], axis=(0, 1))
    return (dx.reshape(x.shape) if need_x else None), dfilt
