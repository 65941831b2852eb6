"""Cumulative kernels along the last axis of a 2-D array (m lines of n): cumprod and its gradient, cummax / cummin
with the index of the extreme, logcumsumexp and its gradient. Callers move the op's axis last.

    cumprod_grad    dx_i = prod_{k<i} x_k * T_i with T_{n-1} = dout_{n-1}, T_i = dout_i + x_{i+1} T_{i+1}: no
                    division, so zeros in x are exact (Paddle's formula divides and special-cases zeros)
    cum_extreme     Paddle's rule: the running extreme moves to a later equal element (ties -> latest index);
                    a nan wins and stays
    logcumsumexp    out_j = max + log(sum exp(x - max)) as a running pair (m, s), so no exp overflows
    logcumsumexp_grad
                    dx_i = exp(x_i - out_i) S_i with S_{n-1} = dout_{n-1}, S_i = dout_i + exp(out_i - out_{i+1})
                    S_{i+1}; every exponent is <= 0 because out never decreases along the line
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['cumprod_grad', 'cum_extreme', 'logcumsumexp', 'logcumsumexp_grad']

_jit = kernel_jit(error_model='numpy')


@_jit
def cumprod_grad(x, dout, dx):
    m, n = x.shape
    for r in range(m):
        t = dout[r, n - 1]
        tail = np.empty(n, dtype=dout.dtype)
        tail[n - 1] = t
        for i in range(n - 2, -1, -1):
            t = dout[r, i] + x[r, i + 1] * t
            tail[i] = t
        prefix = 1.0
        for i in range(n):
            dx[r, i] = prefix * tail[i]
            prefix *= x[r, i]


@_jit
def cum_extreme(x, out, idx, is_max):
    m, n = x.shape
    for r in range(m):
        best = x[r, 0]
        at = 0
        for j in range(n):
            v = x[r, j]
            if j > 0 and not math.isnan(best):
                if math.isnan(v) or (v >= best if is_max else v <= best):
                    best = v
                    at = j
            out[r, j] = best
            idx[r, j] = at


@_jit
def logcumsumexp(x, out):
    m, n = x.shape
    for r in range(m):
        mx = -np.inf
        s = 0.0
        for j in range(n):
            v = x[r, j]
            if v > mx:
                s = s * math.exp(mx - v) + 1.0 if mx > -np.inf else 1.0
                mx = v
            elif v > -np.inf:
                s += math.exp(v - mx)
            out[r, j] = mx + math.log(s) if mx > -np.inf else -np.inf


@_jit
def logcumsumexp_grad(x, out, dout, dx):
    m, n = x.shape
    for r in range(m):
        acc = dout[r, n - 1]
        dx[r, n - 1] = math.exp(x[r, n - 1] - out[r, n - 1]) * acc
        for i in range(n - 2, -1, -1):
            acc = dout[r, i] + math.exp(out[r, i] - out[r, i + 1]) * acc
            dx[r, i] = math.exp(x[r, i] - out[r, i]) * acc
