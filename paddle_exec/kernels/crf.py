"""Linear-chain CRF kernels as Paddle 1.8's CPU kernels compute them: the negative log-likelihood of a tag
sequence with its gradient (linear_chain_crf / linear_chain_crf_grad) and Viterbi decoding (crf_decoding).

Rows are emissions [rows, D] (D tags); a sequence is `lengths[s]` rows from row `starts[s]` (a LoD level gives
starts = offsets[:-1]; the padded [batch, max_len, D] form gives starts = s * max_len and the Length input). The
transition parameter w is [D + 2, D]: row 0 the start weights a, row 1 the end weights b, rows 2.. the tag-to-tag
weights (w[2 + i, j]: tag i followed by tag j). For a sequence x of length L with tags s:

    score(s) = a[s_1] + b[s_L] + sum_k x[k, s_k] + sum_k w[2 + s_(k-1), s_k]
    cost     = log Z - score(s)        (Z sums exp(score) over every tag sequence; Paddle's LogLikelihood output)

The forward pass works as Paddle's does, on exponentials with every row of the forward table rescaled to sum 1
(NormalizeL1: no overflow over long sequences): EmissionExps = exp(x - row max), TransitionExps = exp(w), Alpha =
the normalised forward vectors. The gradient reuses them and the normalised backward vectors beta:
dx[k] = g * (alpha[k] * beta[k] / sum) - g * onehot(s_k), the start / end rows of dw take dx's first / last row,
and the tag-to-tag rows the expected transition counts minus the observed ones, times g. An empty sequence costs
0 and gets no gradient. The kernels accumulate in float64 and store in the tensors' dtype.

Viterbi keeps the input dtype (float32 sums, as Paddle) so that ties break as Paddle's: the first best previous
tag (strict >) wins, and the best last tag is the first maximum of alpha + b.

Errors are returned as codes (numba kernels raise no formatted messages); the op turns them into Paddle's.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['crf_forward', 'crf_backward', 'crf_viterbi', 'OK', 'BAD_LABEL', 'ZERO_SUM']

_jit = kernel_jit(error_model='numpy')

OK, BAD_LABEL, ZERO_SUM = 0, 1, 2
_BASE = 2          # first tag-to-tag row of the transition weights


@_jit
def _normalize_l1(table, row):
    """Scales table[row] to sum 1; returns the sum (0 or less: Paddle's 'must be greater than 0' error)."""
    total = 0.0
    for j in range(table.shape[1]):
        total += table[row, j]
    if total > 0.0:
        scale = 1.0 / total
        for j in range(table.shape[1]):
            table[row, j] = table[row, j] * scale
    return total


@_jit
def crf_forward(x, w, label, starts, lengths, alpha, x_exps, w_exps, cost):
    """Fills alpha, x_exps, w_exps and cost (one per sequence); returns (status, the bad row or -1)."""
    rows, tags = x.shape
    row_max = np.empty(rows)
    for r in range(rows):
        m = x[r, 0]
        for j in range(1, tags):
            if x[r, j] > m:
                m = x[r, j]
        row_max[r] = m
        for j in range(tags):
            x_exps[r, j] = math.exp(x[r, j] - m)
    for i in range(w.shape[0]):
        for j in range(tags):
            w_exps[i, j] = math.exp(w[i, j])
    work = np.empty((1, tags))
    for s in range(starts.shape[0]):
        st, n = starts[s], lengths[s]
        if n <= 0:
            cost[s] = 0.0
            continue
        for k in range(n):
            if label[st + k] < 0 or label[st + k] >= tags:
                return BAD_LABEL, st + k
        for i in range(tags):
            alpha[st, i] = w_exps[0, i] * x_exps[st, i]
        total = _normalize_l1(alpha, st)
        if total <= 0.0:
            return ZERO_SUM, st
        log_z = row_max[st] + math.log(total)
        for k in range(1, n):
            r = st + k
            for i in range(tags):
                acc = 0.0
                for j in range(tags):
                    acc += alpha[r - 1, j] * w_exps[j + _BASE, i]
                work[0, i] = x_exps[r, i] * acc
            total = _normalize_l1(work, 0)
            if total <= 0.0:
                return ZERO_SUM, r
            for i in range(tags):
                alpha[r, i] = work[0, i]
            log_z += row_max[r] + math.log(total)
        last = st + n - 1
        acc = 0.0
        for i in range(tags):
            acc += alpha[last, i] * w_exps[1, i]
        log_z += math.log(acc)
        score = w[0, label[st]] + x[st, label[st]] + w[1, label[last]]
        for k in range(1, n):
            score += x[st + k, label[st + k]] + w[label[st + k - 1] + _BASE, label[st + k]]
        cost[s] = log_z - score
    return OK, -1


@_jit
def crf_backward(x_exps, w_exps, alpha, label, starts, lengths, cost_grad, dx, dw, want_dw):
    """dx (zeroed by the caller) and, when want_dw, dw (zeroed) from the forward tables; returns (status, row)."""
    tags = x_exps.shape[1]
    longest = 0
    for s in range(lengths.shape[0]):
        if lengths[s] > longest:
            longest = lengths[s]
    beta = np.empty((max(longest, 1), tags))
    weighted = np.empty((max(longest, 1), tags))
    for s in range(starts.shape[0]):
        st, n = starts[s], lengths[s]
        if n <= 0:
            continue
        g = cost_grad[s]
        for i in range(tags):
            beta[n - 1, i] = w_exps[1, i]
        if _normalize_l1(beta, n - 1) <= 0.0:
            return ZERO_SUM, st + n - 1
        for k in range(n - 2, -1, -1):
            for i in range(tags):
                acc = 0.0
                for j in range(tags):
                    acc += w_exps[i + _BASE, j] * x_exps[st + k + 1, j] * beta[k + 1, j]
                beta[k, i] = acc
            if _normalize_l1(beta, k) <= 0.0:
                return ZERO_SUM, st + k
        for k in range(n):
            r = st + k
            total = 0.0
            for i in range(tags):
                total += alpha[r, i] * beta[k, i]
            for i in range(tags):
                dx[r, i] = alpha[r, i] * beta[k, i] / total * g
            dx[r, label[r]] -= g
        if not want_dw:
            continue
        for i in range(tags):
            dw[0, i] += dx[st, i]
            dw[1, i] += dx[st + n - 1, i]
        for k in range(n):
            total = 0.0
            for j in range(tags):
                weighted[k, j] = beta[k, j] * x_exps[st + k, j]
                total += weighted[k, j]
            for j in range(tags):
                weighted[k, j] /= total
        for k in range(1, n):
            r = st + k
            total = 0.0
            for i in range(tags):
                for j in range(tags):
                    total += w_exps[i + _BASE, j] * alpha[r - 1, i] * weighted[k, j]
            scale = g / total
            for i in range(tags):
                for j in range(tags):
                    dw[i + _BASE, j] += w_exps[i + _BASE, j] * alpha[r - 1, i] * weighted[k, j] * scale
            dw[label[r - 1] + _BASE, label[r]] -= g
    return OK, -1


@_jit
def crf_viterbi(x, w, starts, lengths, lowest, path):
    """path[r] = the best tag of row r of each sequence (rows of empty sequences and padding are left alone)."""
    tags = x.shape[1]
    longest = 0
    for s in range(lengths.shape[0]):
        if lengths[s] > longest:
            longest = lengths[s]
    alpha = np.empty((max(longest, 1), tags), x.dtype)
    track = np.zeros((max(longest, 1), tags), np.int64)
    for s in range(starts.shape[0]):
        st, n = starts[s], lengths[s]
        if n <= 0:
            continue
        for i in range(tags):
            alpha[0, i] = w[0, i] + x[st, i]
        for k in range(1, n):
            for i in range(tags):
                best = lowest
                best_j = 0
                for j in range(tags):
                    score = alpha[k - 1, j] + w[j + _BASE, i]
                    if score > best:
                        best = score
                        best_j = j
                alpha[k, i] = best + x[st + k, i]
                track[k, i] = best_j
        best = lowest
        best_i = 0
        for i in range(tags):
            score = alpha[n - 1, i] + w[1, i]
            if score > best:
                best = score
                best_i = i
        path[st + n - 1] = best_i
        for k in range(n - 1, 0, -1):
            best_i = track[k, best_i]
            path[st + k - 1] = best_i
