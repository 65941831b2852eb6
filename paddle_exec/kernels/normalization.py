"""Normalisation kernels beyond batch / layer / group / instance norm (norm.py): data_norm, spectral_norm and
affine_channel, with PaddlePaddle's CPU semantics (checked against paddlepaddle 1.8.5 and 2.6.2). They are
vectorised numpy: each is a few passes over a [N, C] matrix or a small weight, with no per-element control flow
worth a loop kernel except data_norm's slot mask, which numpy expresses as a boolean array.

data_norm (Paddle's CTR feature normaliser; X is [N, C]):
- forward: ``means = BatchSum / BatchSize``, ``scales = sqrt(BatchSize / BatchSquareSum)``, ``Y = (X - means) *
  scales`` (then ``* scale_w + bias`` with enable_scale_and_shift). With ``slot_dim > 0`` each row is cut into
  slots of slot_dim columns; a slot whose first value is within 1e-7 of zero ("show = 0") gives zeros.
- gradient: ``dX = dY * scales (* scale_w)``; with scale and shift in slot mode only the shown slots get dX, d
  scale_w and d bias. The "gradients" of the three statistics are not derivatives but the batch's own statistics,
  which the optimiser folds into the summaries: ``N``, ``sum(X)`` and ``sum((X - means)^2) + N * epsilon`` per
  column; in slot mode over the shown rows only, divided by their count (and the size gradient is 1 where any
  row was shown, 0 elsewhere).

spectral_norm (Miyato et al.; Paddle's op): W is viewed as a matrix [h, w] with axis `dim` moved first. U [h] and
V [w] are copied, then `power_iters` times ``v = W^T u / (||W^T u|| + eps)``, ``u = W v / (||W v|| + eps)``;
``sigma = u . (W v)`` and ``Out = W / sigma``. U and V themselves are not updated. Paddle's gradient is NOT the
derivative of Out: it is ``dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma`` (elementwise; Paddle's
spectral_norm_grad, reproduced as the contract, since programs trained with Paddle follow it).

affine_channel: ``Out = X * Scale[c] + Bias[c]`` over the channel axis (1 for NCHW, last for NHWC).
"""
from __future__ import annotations

import numpy as np

__all__ = ['data_norm_forward', 'data_norm_backward', 'spectral_norm_forward', 'spectral_norm_backward',
           'affine_channel_forward', 'affine_channel_backward']

_SHOW_EPS = 1e-7


def _shown(x, slot_dim: int):
    """[N, C] boolean: True where the element's slot is shown (its first value is not ~0)."""
    n, c = x.shape
    first = x.reshape(n, c // slot_dim, slot_dim)[:, :, 0]
    shown = ~((first > -_SHOW_EPS) & (first < _SHOW_EPS))
    return np.repeat(shown, slot_dim, axis=1)


def data_norm_forward(x, batch_size, batch_sum, batch_square_sum, scale_w=None, bias=None, slot_dim=-1):
    """Paddle op ``data_norm``: returns ``(Y, Means, Scales)``."""
    dt = x.dtype
    means = (batch_sum / batch_size).astype(dt)
    scales = np.sqrt(batch_size / batch_square_sum).astype(dt)
    if scale_w is not None and slot_dim <= 0:
        new_scale = scales * scale_w
        y = x * new_scale + (bias - means * new_scale)
    else:
        y = (x - means) * scales
        if scale_w is not None:
            y = y * scale_w + bias
    if slot_dim > 0:
        y = np.where(_shown(x, slot_dim), y, dt.type(0))
    return y.astype(dt, copy=False), means, scales


def data_norm_backward(x, means, scales, dy, epsilon, scale_w=None, slot_dim=-1):
    """Paddle op ``data_norm_grad``: ``(dX, dBatchSize, dBatchSum, dBatchSquareSum, dScaleW, dBias)`` (the last
    two None without scale_w)."""
    dt = x.dtype
    n = x.shape[0]
    shown = _shown(x, slot_dim) if slot_dim > 0 else None
    d_scale = d_bias = None
    if scale_w is None:
        dx = dy * scales
    else:
        normed = (x - means) * scales * dy
        dx = dy * scales * scale_w
        if shown is None:
            d_bias, d_scale = dy.sum(axis=0), normed.sum(axis=0)
        else:
            dx = np.where(shown, dx, dt.type(0))
            d_bias = np.where(shown, dy, 0).sum(axis=0)
            d_scale = np.where(shown, normed, 0).sum(axis=0)
    centred = np.square(x - means)
    if shown is None:
        d_size = np.full(x.shape[1], n, dtype=dt)
        d_sum = x.sum(axis=0)
        d_square = centred.sum(axis=0) + d_size * dt.type(epsilon)
    else:
        count = shown.sum(axis=0).astype(dt)
        d_sum = np.where(shown, x, 0).sum(axis=0)
        d_square = np.where(shown, centred, 0).sum(axis=0)
        seen = count >= 1
        safe = np.where(seen, count, 1)
        d_sum = np.where(seen, d_sum / safe, d_sum)
        d_square = np.where(seen, d_square / safe + count * dt.type(epsilon), d_square)
        d_size = np.where(seen, 1, count)
    cast = [None if v is None else np.asarray(v).astype(dt, copy=False) for v in (d_size, d_sum, d_square, d_scale,
                                                                                   d_bias)]
    return (dx.astype(dt, copy=False),) + tuple(cast)


def _matrix(weight, dim: int):
    """W as [h, w] with axis `dim` first, and the permutation used."""
    perm = [dim] + [i for i in range(weight.ndim) if i != dim]
    mat = np.transpose(weight, perm).reshape(weight.shape[dim], -1)
    return mat, perm


def _sigma(mat, u, v, power_iters: int, eps: float):
    dt = mat.dtype
    u = np.array(u, dtype=dt).ravel()
    v = np.array(v, dtype=dt).ravel()
    for _ in range(int(power_iters)):
        v = mat.T @ u
        v = v / (np.sqrt(np.sum(v * v)) + dt.type(eps))
        u = mat @ v
        u = u / (np.sqrt(np.sum(u * u)) + dt.type(eps))
    return dt.type(np.dot(u, mat @ v)), u, v


def _unmatrix(mat, shape, perm):
    inverse = np.argsort(perm)
    return np.ascontiguousarray(mat.reshape([shape[p] for p in perm]).transpose(inverse))


def spectral_norm_forward(weight, u, v, dim=0, power_iters=1, eps=1e-12):
    """Paddle op ``spectral_norm`` (Weight, U, V -> Out)."""
    mat, perm = _matrix(weight, dim)
    sigma, _, _ = _sigma(mat, u, v, power_iters, eps)
    return _unmatrix(mat / sigma, weight.shape, perm)


def spectral_norm_backward(weight, u, v, dout, dim=0, power_iters=1, eps=1e-12):
    """Paddle op ``spectral_norm_grad``: Paddle's formula (module docstring), not the exact derivative."""
    mat, perm = _matrix(weight, dim)
    sigma, u2, v2 = _sigma(mat, u, v, power_iters, eps)
    dmat, _ = _matrix(np.asarray(dout, dtype=weight.dtype), dim)
    total = np.sum(mat / sigma)
    dw = dmat * (1 - np.outer(u2, v2) * total) / sigma
    return _unmatrix(dw.astype(weight.dtype, copy=False), weight.shape, perm)


def _channel_view(x, channel_last: bool):
    shape = [1] * x.ndim
    shape[-1 if channel_last else 1] = -1
    return shape


def affine_channel_forward(x, scale, bias, channel_last=False):
    """Paddle op ``affine_channel``: X * Scale + Bias per channel."""
    shape = _channel_view(x, channel_last)
    return (x * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype, copy=False)


def affine_channel_backward(x, scale, dout, channel_last=False):
    """Paddle op ``affine_channel_grad``: (dX, dScale, dBias)."""
    shape = _channel_view(x, channel_last)
    axes = tuple(i for i in range(x.ndim) if i != (x.ndim - 1 if channel_last else 1))
    return (dout * scale.reshape(shape)).astype(x.dtype, copy=False), (dout * x).sum(axis=axes), dout.sum(axis=axes)
