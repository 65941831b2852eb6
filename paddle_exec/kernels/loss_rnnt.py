"""The RNN-Transducer loss (Graves 2012) as Paddle 2.6's CPU `warprnnt` op computes it (warp-transducer).

`acts` [B, T, U + 1, V] are used as log-probabilities as they are: Paddle's CPU path applies no log_softmax (its
Python comment says the caller should), so unnormalised scores give a "loss" that may be negative, exactly as in
Paddle. For sequence b with T_b frames and U_b labels, alpha / beta are the forward / backward log-sums over the
lattice (blank moves t, label u moves u), the loss is -beta[0, 0], and the gradient with respect to each used
log-probability is minus its posterior; FastEmit (Yu et al. 2021) multiplies the label (emission) gradients by
1 + fastemit_lambda and leaves the loss unchanged. Entries outside a sequence's lattice get gradient 0.
"""
import numpy as np

from .jit import kernel_jit

__all__ = ['rnnt_loss_and_grad']

_jit = kernel_jit(error_model='numpy')


@_jit
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + np.log1p(np.exp(b - a))
    return b + np.log1p(np.exp(a - b))


@_jit
def _one_sequence(lp, labels, t_len, u_len, blank, emit_scale, grad):
    alpha = np.full((t_len, u_len + 1), -np.inf)
    beta = np.full((t_len, u_len + 1), -np.inf)
    alpha[0, 0] = 0.0
    for t in range(t_len):
        for u in range(u_len + 1):
            if t == 0 and u == 0:
                continue
            a = -np.inf
            if t > 0:
                a = alpha[t - 1, u] + lp[t - 1, u, blank]
            if u > 0:
                a = _logaddexp(a, alpha[t, u - 1] + lp[t, u - 1, labels[u - 1]])
            alpha[t, u] = a
    beta[t_len - 1, u_len] = lp[t_len - 1, u_len, blank]
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len, -1, -1):
            if t == t_len - 1 and u == u_len:
                continue
            b = -np.inf
            if t < t_len - 1:
                b = beta[t + 1, u] + lp[t, u, blank]
            if u < u_len:
                b = _logaddexp(b, beta[t, u + 1] + lp[t, u, labels[u]])
            beta[t, u] = b
    log_z = beta[0, 0]
    for t in range(t_len):
        for u in range(u_len + 1):
            if t < t_len - 1:
                grad[t, u, blank] = -np.exp(alpha[t, u] + lp[t, u, blank] + beta[t + 1, u] - log_z)
            elif u == u_len:
                grad[t, u, blank] = -np.exp(alpha[t, u] + lp[t, u, blank] - log_z)
            if u < u_len:
                k = labels[u]
                grad[t, u, k] = -np.exp(alpha[t, u] + lp[t, u, k] + beta[t, u + 1] - log_z) * emit_scale
    return -log_z


def rnnt_loss_and_grad(acts, labels, act_lens, label_lens, blank: int, fastemit_lambda: float):
    """Returns (loss [B], grad like acts)."""
    acts = np.ascontiguousarray(acts)
    b, t_max, u_max1, v = acts.shape
    labels = np.ascontiguousarray(labels, np.int64).reshape(b, -1)
    t_lens = np.asarray(act_lens, np.int64).reshape(-1)
    u_lens = np.asarray(label_lens, np.int64).reshape(-1)
    if np.any(t_lens > t_max) or np.any(u_lens + 1 > u_max1) or np.any(t_lens < 1):
        raise ValueError("operator 'warprnnt': the input lengths must be in [1, %d] and the label lengths in [0, %d],"
                         " got %s and %s" % (t_max, u_max1 - 1, t_lens.tolist(), u_lens.tolist()))
    if not 0 <= blank < v:
        raise ValueError("operator 'warprnnt': blank must be in [0, %d), got %d" % (v, blank))
    lp = acts.astype(np.float64)
    grad = np.zeros(acts.shape, np.float64)
    loss = np.empty(b, np.float64)
    for i in range(b):
        loss[i] = _one_sequence(lp[i], labels[i], int(t_lens[i]), int(u_lens[i]), int(blank),
                                1.0 + float(fastemit_lambda), grad[i])
    return loss.astype(acts.dtype), grad.astype(acts.dtype)
