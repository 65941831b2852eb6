"""CTC kernels: the CTC loss with its gradient as warp-ctc's CPU code computes them (Paddle's warpctc op), and the
greedy alignment of ctc_align (merge repeated tokens, drop blanks).

Loss. The logits of sequence b are `input_lengths[b]` rows of [rows, C]: row `bases[b] + t * step` at time t (a LoD
gives bases = offsets[:-1], step 1; the padded time-major [max_T, B, C] input, flattened to [max_T * B, C], gives
bases = b, step B). Its labels are `label_lengths[b]` ids from `label_starts[b]` of a flat label array. Per time
step the logits pass through a softmax; with the label sequence l' extended by blanks (blank, l1, blank, l2, ...,
blank; S = 2L + 1) the forward and backward variables are summed in log space, and

    loss[b]             = -log p(l | x) = -logsumexp(alpha[T-1, S-1], alpha[T-1, S-2])
    grad[t, b, c]       = softmax[t, c] - sum_{s: l'_s = c} exp(alpha[t, s] + beta[t, s] - log softmax[t, c]
                                                              - log p(l | x))

(warp-ctc's beta includes the emission at t, hence the subtraction). As warp-ctc: a sequence too short for its
labels (L + repeated neighbours > T) gets loss 0 and no gradient; where no path passes through class c at t the
gradient is softmax[t, c] itself. `grad` is the padded time-major [max_T * B, C] array warpctc outputs as
WarpCTCGrad; rows past a sequence's end stay 0. The gradient kernel (`ctc_scale_grad`) turns it into the logits'
gradient: times each sequence's loss gradient, divided by its length when `norm_by_times`, gathered back into the
input's layout.

Align. Per sequence: argmax ids with blanks removed and, with merge_repeated, runs of one id merged into one.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['ctc_loss_and_grad', 'ctc_scale_grad', 'ctc_align']

_jit = kernel_jit(error_model='numpy')

_NEG_INF = -np.inf


@_jit
def _log_plus(a, b):
    if a == _NEG_INF:
        return b
    if b == _NEG_INF:
        return a
    return math.log1p(math.exp(-abs(a - b))) + max(a, b)


@_jit
def ctc_loss_and_grad(logits, bases, step, input_lengths, labels, label_starts, label_lengths, blank, loss, grad):
    """Fills loss[b] and grad (zeroed by the caller, [max_T * B, C] time-major) for every sequence b."""
    classes = logits.shape[1]
    batch = bases.shape[0]
    longest_t, longest_l = 1, 0
    for b in range(batch):
        longest_t = max(longest_t, input_lengths[b])
        longest_l = max(longest_l, label_lengths[b])
    max_s = 2 * longest_l + 1
    log_p = np.empty((longest_t, classes))
    alpha = np.empty((longest_t, max_s))
    beta = np.empty((longest_t, max_s))
    ext = np.empty(max_s, np.int64)
    found = np.empty(classes)
    for b in range(batch):
        n_t, n_l = input_lengths[b], label_lengths[b]
        repeats = 0
        for i in range(1, n_l):
            if labels[label_starts[b] + i - 1] == labels[label_starts[b] + i]:
                repeats += 1
        if n_t <= 0 or n_l + repeats > n_t:
            loss[b] = 0.0
            continue
        n_s = 2 * n_l + 1
        for i in range(n_s):
            ext[i] = blank if i % 2 == 0 else labels[label_starts[b] + i // 2]
        for t in range(n_t):
            row = bases[b] + t * step
            m = logits[row, 0]
            for c in range(1, classes):
                m = max(m, logits[row, c])
            denom = 0.0
            for c in range(classes):
                denom += math.exp(logits[row, c] - m)
            for c in range(classes):
                log_p[t, c] = math.log(math.exp(logits[row, c] - m) / denom)
        for t in range(n_t):
            for s in range(n_s):
                alpha[t, s] = _NEG_INF
                beta[t, s] = _NEG_INF
        alpha[0, 0] = log_p[0, ext[0]]
        if n_s > 1:
            alpha[0, 1] = log_p[0, ext[1]]
        for t in range(1, n_t):
            for s in range(n_s):
                acc = alpha[t - 1, s]
                if s >= 1:
                    acc = _log_plus(acc, alpha[t - 1, s - 1])
                if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                    acc = _log_plus(acc, alpha[t - 1, s - 2])
                if acc != _NEG_INF:
                    alpha[t, s] = acc + log_p[t, ext[s]]
        last = n_t - 1
        beta[last, n_s - 1] = log_p[last, ext[n_s - 1]]
        if n_s > 1:
            beta[last, n_s - 2] = log_p[last, ext[n_s - 2]]
        for t in range(n_t - 2, -1, -1):
            for s in range(n_s):
                acc = beta[t + 1, s]
                if s + 1 < n_s:
                    acc = _log_plus(acc, beta[t + 1, s + 1])
                if s + 2 < n_s and ext[s] != blank and ext[s] != ext[s + 2]:
                    acc = _log_plus(acc, beta[t + 1, s + 2])
                if acc != _NEG_INF:
                    beta[t, s] = acc + log_p[t, ext[s]]
        log_z = alpha[last, n_s - 1]
        if n_s > 1:
            log_z = _log_plus(log_z, alpha[last, n_s - 2])
        loss[b] = -log_z
        for t in range(n_t):
            for c in range(classes):
                found[c] = _NEG_INF
            for s in range(n_s):
                if alpha[t, s] != _NEG_INF and beta[t, s] != _NEG_INF:
                    found[ext[s]] = _log_plus(alpha[t, s] + beta[t, s], found[ext[s]])
            out_row = t * batch + b
            for c in range(classes):
                prob = math.exp(log_p[t, c])
                if found[c] == 0.0 or found[c] == _NEG_INF or prob == 0.0:
                    grad[out_row, c] = prob
                else:
                    grad[out_row, c] = prob - math.exp(found[c] - log_p[t, c] - log_z)


@_jit
def ctc_scale_grad(grad, bases, step, input_lengths, loss_grad, norm_by_times, out):
    """out[bases[b] + t * step] = grad[t * B + b] * loss_grad[b] (/ T_b with norm_by_times); out zeroed by the
    caller."""
    batch = bases.shape[0]
    for b in range(batch):
        n_t = input_lengths[b]
        scale = loss_grad[b]
        if norm_by_times and n_t > 0:
            scale = scale / n_t
        for t in range(n_t):
            src, dst = t * batch + b, bases[b] + t * step
            for c in range(grad.shape[1]):
                out[dst, c] = grad[src, c] * scale


@_jit
def ctc_align(ids, starts, lengths, blank, merge_repeated, out, out_stride, out_lengths):
    """Aligns sequence i (lengths[i] ids from starts[i]) into out: from i * out_stride (the padded form), or right
    after sequence i - 1 when out_stride is 0 (the LoD form). Returns the number of ids written in all."""
    written = 0
    for i in range(starts.shape[0]):
        prev = -1
        at = i * out_stride if out_stride > 0 else written
        count = 0
        for k in range(lengths[i]):
            token = ids[starts[i] + k]
            if token != blank and not (merge_repeated and token == prev):
                out[at + count] = token
                count += 1
            prev = token
        out_lengths[i] = count
        written += count
    return written
