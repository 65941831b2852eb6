"""What the recurrent kernels (lstm.py, gru.py) share: Paddle's gate activations and the batch reordering of
sequences (Paddle's math/sequence2batch).

Activations are codes (`ACTIVATIONS`: identity 0, sigmoid 1, tanh 2, relu 3, the numbering of Paddle's gru_unit
attributes) computed as Paddle's math/detail/activation_functions.h does: sigmoid clamps its input to [-40, 13],
tanh is 2 / (1 + exp(-2x)) - 1 with -2x capped at 40. `act_grad(dy, y, code)` is the derivative written with the
activation's output y, as Paddle's backward functors take it.

Batch reordering. A recurrent op over a LoD tensor runs time step by time step over all sequences at once. The
sequences are sorted by length, longest first (a stable sort: Paddle's std::sort leaves ties in an unspecified
order, which changes no number), and time step t of the "batch" holds row t of every sequence longer than t (the
row counted from the end when is_reverse). `batch_index(offsets, is_reverse)` gives
    starts   [max_len + 1] where each time step's rows begin in the batch layout
    rows     [total rows]  the input row each batch row comes from (Paddle's batch LoD level 1)
    order    [sequences]   the sequence at each position of the sorted order (level 2; the initial states H0 / C0
                           are read in this order)
Because the order is by decreasing length, batch row r of step t and batch row r of step t-1 belong to the same
sequence: the previous state of a step is the first rows of the previous step. Zero-length sequences come last
and appear in no step.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['ACTIVATIONS', 'activation_code', 'act', 'act_grad', 'batch_index', 'gather_rows', 'scatter_rows']

_jit = kernel_jit(error_model='numpy')

ACTIVATIONS = {'identity': 0, '': 0, 'linear': 0, 'sigmoid': 1, 'tanh': 2, 'relu': 3}


def activation_code(name: str, what: str = 'activation') -> int:
    code = ACTIVATIONS.get(str(name).lower())
    if code is None:
        raise ValueError("%s must be one of 'identity', 'sigmoid', 'tanh', 'relu', got %r" % (what, name))
    return code


# The constants are float32 so that float32 inputs stay float32 (expf, not exp on a double, as Paddle's float kernels
# compute): numba would promote a float32 value to float64 against a Python float literal. They are exact in float32,
# so float64 inputs compute exactly as with float64 constants.
_F = np.float32


@_jit
def act(x, code):
    if code == 1:
        v = min(max(x, _F(-40.0)), _F(13.0))
        return _F(1.0) / (_F(1.0) + math.exp(-v))
    if code == 2:
        v = min(_F(-2.0) * x, _F(40.0))
        return _F(2.0) / (_F(1.0) + math.exp(v)) - _F(1.0)
    if code == 3:
        return x if x > 0 else _F(0.0) * x
    return x


@_jit
def act_grad(dy, y, code):
    if code == 1:
        return dy * y * (_F(1.0) - y)
    if code == 2:
        return dy * (_F(1.0) - y * y)
    if code == 3:
        return dy if y > 0 else _F(0.0) * dy
    return dy


@_jit
def batch_index(offsets, is_reverse):
    """(starts, rows, order) of the module docstring."""
    n = offsets.shape[0] - 1
    lengths = np.empty(n, np.int64)
    for i in range(n):
        lengths[i] = offsets[i + 1] - offsets[i]
    order = np.argsort(-lengths, kind='mergesort')
    max_len = lengths[order[0]] if n > 0 else 0
    starts = np.zeros(max_len + 1, np.int64)
    rows = np.empty(offsets[n] - offsets[0], np.int64)
    k = 0
    for t in range(max_len):
        for p in range(n):
            s = order[p]
            length = lengths[s]
            if t >= length:
                break
            rows[k] = offsets[s] + (length - 1 - t if is_reverse else t)
            k += 1
        starts[t + 1] = k
    return starts, rows, order


@_jit
def gather_rows(x, rows):
    """x[rows] for a 2-D x."""
    out = np.empty((rows.shape[0], x.shape[1]), x.dtype)
    for i in range(rows.shape[0]):
        out[i, :] = x[rows[i], :]
    return out


@_jit
def scatter_rows(x, rows, n_rows):
    """out[rows[i]] = x[i], an [n_rows, width] array (rows not listed are zero)."""
    out = np.zeros((n_rows, x.shape[1]), x.dtype)
    for i in range(rows.shape[0]):
        out[rows[i], :] = x[i, :]
    return out
