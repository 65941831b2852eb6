"""put_along_axis's loops on the (A, N, B) layout: `arr` is the input with its axis in the middle, `index` and
`values` are (A, M, B) and name, for each (a, m, b), the target arr[a, index[a, m, b], b].

Reductions (`reduce` codes): ASSIGN (the last writer in (a, m, b) order wins, as Paddle's CPU kernel), ADD, MUL,
MEAN (the mean of the values, with the input when include_self), AMAX, AMIN. Without include_self the input's
value at a target is dropped before the first write.

`put_along_axis_grad` gives (d input, d values) for ASSIGN, ADD, MUL and MEAN, as Paddle 2.6.2 computes them:
an input element that was overwritten (or dropped) gets no gradient; a value gets the target's output gradient
(ASSIGN: only the value that won), divided by the count (MEAN), times the product of the other factors (MUL).
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['ASSIGN', 'ADD', 'MUL', 'MEAN', 'AMAX', 'AMIN', 'REDUCE_CODES', 'put_along_axis',
           'put_along_axis_grad']

ASSIGN, ADD, MUL, MEAN, AMAX, AMIN = range(6)
REDUCE_CODES = {'assign': ASSIGN, 'add': ADD, 'mul': MUL, 'multiply': MUL, 'mean': MEAN, 'amax': AMAX,
                'amin': AMIN}

_jit = kernel_jit(error_model='numpy')


@_jit
def put_along_axis(arr, index, values, out, counts, reduce, include_self):
    """out (a copy of arr) updated in place; counts[a, n, b] = writes to each target (+1 if include_self)."""
    na, m, nb = index.shape
    n = arr.shape[1]
    for a in range(na):
        for j in range(m):
            for b in range(nb):
                t = index[a, j, b]
                if t < 0:
                    t += n
                v = values[a, j, b]
                if counts[a, t, b] == 0 and not include_self:
                    out[a, t, b] = v
                elif reduce == ASSIGN:
                    out[a, t, b] = v
                elif reduce == ADD or reduce == MEAN:
                    out[a, t, b] += v
                elif reduce == MUL:
                    out[a, t, b] *= v
                elif reduce == AMAX:
                    if v > out[a, t, b]:
                        out[a, t, b] = v
                else:
                    if v < out[a, t, b]:
                        out[a, t, b] = v
                counts[a, t, b] += 1
    if reduce == MEAN:
        for a in range(na):
            for t in range(n):
                for b in range(nb):
                    c = counts[a, t, b]
                    if c > 0:
                        out[a, t, b] /= c + 1 if include_self else c


@_jit
def put_along_axis_grad(arr, index, values, dout, counts, reduce, include_self, dx, dv):
    """dx starts as dout and dv as zeros; `counts` from the forward loop."""
    na, m, nb = index.shape
    n = arr.shape[1]
    last = np.full((na, n, nb), -1, np.int64)
    for a in range(na):
        for j in range(m):
            for b in range(nb):
                t = index[a, j, b]
                if t < 0:
                    t += n
                last[a, t, b] = j
    for a in range(na):
        for j in range(m):
            for b in range(nb):
                t = index[a, j, b]
                if t < 0:
                    t += n
                g = dout[a, t, b]
                if reduce == ASSIGN:
                    dv[a, j, b] = g if last[a, t, b] == j else 0
                elif reduce == ADD:
                    dv[a, j, b] = g
                elif reduce == MEAN:
                    dv[a, j, b] = g / (counts[a, t, b] + (1 if include_self else 0))
                else:  # MUL: the product of the other writers (and the input when included)
                    p = arr[a, t, b] if include_self else 1.0
                    for k in range(m):
                        tk = index[a, k, b]
                        if tk < 0:
                            tk += n
                        if tk == t and k != j:
                            p *= values[a, k, b]
                    dv[a, j, b] = g * p
    for a in range(na):
        for t in range(n):
            for b in range(nb):
                c = counts[a, t, b]
                if c == 0:
                    continue
                if not include_self or reduce == ASSIGN:
                    dx[a, t, b] = 0
                elif reduce == MEAN:
                    dx[a, t, b] = dout[a, t, b] / (c + 1)
                elif reduce == MUL:
                    p = 1.0
                    for k in range(m):
                        tk = index[a, k, b]
                        if tk < 0:
                            tk += n
                        if tk == t:
                            p *= values[a, k, b]
                    dx[a, t, b] = dout[a, t, b] * p
