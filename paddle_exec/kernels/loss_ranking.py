"""Ranking and pairwise loss kernels with Paddle's semantics (fluid 1.8 CPU kernels; numbers checked against
paddlepaddle 1.8.5 in tests/golden/api/fluid_losses.npz).

- ``rank_loss`` (RankNet): ``out = log(1 + exp(left - right)) - label * (left - right)``, computed as Paddle's
  Eigen expression (no overflow guard); ``d_left = d_out * (sigmoid(left - right) - label)``, ``d_right = -d_left``.
- ``margin_rank_loss``: ``out = max(0, -label * (x1 - x2) + margin)``, ``activated = out > 0``;
  ``d_x1 = -d_out * activated * label``, ``d_x2 = -d_x1``.
- ``bpr_loss`` (Bayesian personalised ranking) on a [N, D] score matrix and hard labels: ``loss_i = -sum_{j !=
  label} log(sigmoid(x_label - x_j)) / (D - 1)`` written as Paddle writes it, ``-log(1 + exp(x_j - x_label))``
  with Paddle's TolerableValue (+-inf -> +-1e20); the gradient loop is Paddle's too (its exp also tolerable).
"""
import math

import numpy as np

from .jit import kernel_jit

__all__ = ['rank_loss_forward', 'rank_loss_backward', 'margin_rank_loss_forward', 'margin_rank_loss_backward',
           'bpr_loss_forward', 'bpr_loss_backward']

_jit = kernel_jit(error_model='numpy')

_APPROX_INF = 1e20  # Paddle's TolerableValue


@_jit
def _rank_loss(label, left, right, out):
    for i in range(out.shape[0]):
        d = left[i] - right[i]
        out[i] = math.log(1.0 + math.exp(d)) - label[i] * d


@_jit
def _rank_loss_grad(dout, label, left, right, dleft):
    for i in range(dleft.shape[0]):
        dleft[i] = dout[i] * (1.0 / (1.0 + math.exp(right[i] - left[i])) - label[i])


def _flat(a, dtype):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def rank_loss_forward(label, left, right):
    dt = left.dtype
    out = np.empty(left.size, dt)
    _rank_loss(_flat(label, dt), _flat(left, dt), _flat(right, dt), out)
    return out.reshape(left.shape)


def rank_loss_backward(dout, label, left, right):
    """Returns (d_left, d_right)."""
    dt = left.dtype
    dleft = np.empty(left.size, dt)
    _rank_loss_grad(_flat(dout, dt), _flat(label, dt), _flat(left, dt), _flat(right, dt), dleft)
    dleft = dleft.reshape(left.shape)
    return dleft, -dleft


@_jit
def _margin_rank(label, x1, x2, margin, out, act):
    for i in range(out.shape[0]):
        v = -label[i] * (x1[i] - x2[i]) + margin
        if v > 0:
            out[i] = v
            act[i] = 1
        else:
            out[i] = 0
            act[i] = 0


def margin_rank_loss_forward(label, x1, x2, margin):
    """Returns (out, activated)."""
    dt = x1.dtype
    out, act = np.empty(x1.size, dt), np.empty(x1.size, dt)
    _margin_rank(_flat(label, dt), _flat(x1, dt), _flat(x2, dt), dt.type(margin), out, act)
    return out.reshape(x1.shape), act.reshape(x1.shape)


def margin_rank_loss_backward(dout, activated, label):
    """Returns (d_x1, d_x2)."""
    dx2 = np.asarray(dout) * np.asarray(activated) * np.asarray(label).reshape(np.shape(dout))
    return -dx2, dx2


@_jit
def _tolerable(v):
    if v == np.inf:
        return _APPROX_INF
    if v == -np.inf:
        return -_APPROX_INF
    return v


@_jit
def _bpr(x, label, out):
    n, d = x.shape
    for i in range(n):
        pos = label[i]
        total = 0.0
        for j in range(d):
            if j == pos:
                continue
            total += _tolerable(-math.log(1.0 + math.exp(x[i, j] - x[i, pos])))
        out[i] = -total / (d - 1)


@_jit
def _bpr_grad(x, label, dy, dx):
    n, d = x.shape
    for i in range(n):
        pos = label[i]
        for j in range(d):
            dx[i, j] = 0.0
        for j in range(d):
            if j == pos:
                continue
            g = -dy[i] / ((d - 1) * (1.0 + _tolerable(math.exp(x[i, pos] - x[i, j]))))
            dx[i, pos] += g
            dx[i, j] -= g


def _bpr_labels(label, n, d):
    lab = np.ascontiguousarray(label, dtype=np.int64).reshape(-1)
    if lab.size != n:
        raise ValueError("operator 'bpr_loss': Label must hold one class index per row of X (%d), got %d values"
                         % (n, lab.size))
    bad = np.nonzero((lab < 0) | (lab >= d))[0]
    if len(bad):
        raise ValueError("operator 'bpr_loss': label value should be >= 0 and < %d (the class number), but "
                         "received %d" % (d, lab[bad[0]]))
    return lab


def bpr_loss_forward(x, label):
    """x [..., D] scores, label [..., 1] classes; returns the loss [..., 1]."""
    d = x.shape[-1]
    x2 = np.ascontiguousarray(x).reshape(-1, d)
    out = np.empty(x2.shape[0], x.dtype)
    _bpr(x2, _bpr_labels(label, x2.shape[0], d), out)
    return out.reshape(x.shape[:-1] + (1,))


def bpr_loss_backward(x, label, dy):
    d = x.shape[-1]
    x2 = np.ascontiguousarray(x).reshape(-1, d)
    dx = np.empty_like(x2)
    _bpr_grad(x2, _bpr_labels(label, x2.shape[0], d), np.ascontiguousarray(dy, x.dtype).reshape(-1), dx)
    return dx.reshape(x.shape)
