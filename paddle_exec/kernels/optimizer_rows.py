"""Adam with a sparse (SelectedRows) gradient as one numba call: merge, then update, without the GIL.

    adam_rows(p2, m1, m2, rows, values, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps, lazy)

`p2`, `m1`, `m2` are `[height, width]` views of the parameter and its moments (updated in place), `rows` the
gradient's int64 rows (any order, duplicates allowed), `values` its `[len(rows), width]` values in the parameter's
dtype. Paddle 1.8.5's CPU kernel (adam_op.h, SparseAdamFunctor) in two steps:

1. MergeAdd: the values of duplicated rows are summed, in input order, onto zeros. Here a position table of
   `height` entries maps a row to its slot in the merged block; each row's sum is taken in input order, as
   Paddle's. numpy's `unique` used to do this in Python, holding the GIL for ~2 ms of a DeepFM step.
2. The update, rows in ascending order (memory order). `lazy` (lazy_mode=True): only the rows present. Otherwise
   every row of the table, in one pass: a row present gets Adam with its merged gradient; each run of absent rows
   between two present ones (contiguous in memory, so the loop vectorizes) gets Paddle's `else` branch: the
   moments decay, `mom1 = beta1 * mom1; mom2 = beta2 * mom2`, and the parameter still moves by
   `lr_t * mom1 / (sqrt(mom2) + eps)`.

A row outside `[0, height)` raises IndexError before anything is written.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['adam_rows']

# float division without a zero check (x / 0 is inf or nan, as in Paddle's C++): the row loops vectorize
_jit = kernel_jit(error_model='numpy')


@_jit
def _merge(rows, values, height):
    """(the position of each row of the table in the merged block, -1 when absent; the merged block)."""
    n, width = values.shape
    pos = np.full(height, -1, dtype=np.int64)
    unique = 0
    for i in range(n):
        r = rows[i]
        if r < 0 or r >= height:
            raise IndexError('sparse gradient row out of range')
        if pos[r] < 0:
            pos[r] = unique
            unique += 1
    merged = np.zeros((unique, width), dtype=values.dtype)
    for i in range(n):
        j = pos[rows[i]]
        for k in range(width):
            merged[j, k] += values[i, k]
    return pos, merged


@_jit
def _adam_span(p, m1, m2, g, start, stop, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps):
    # one present row: p, m1, m2 flat, g its merged gradient row
    for i in range(start, stop):
        gi = g[i - start]
        a = beta1 * m1[i] + one_minus_b1 * gi
        b = beta2 * m2[i] + one_minus_b2 * gi * gi
        m1[i] = a
        m2[i] = b
        p[i] = p[i] - lr_t * (a / (math.sqrt(b) + eps))


@_jit
def _decay_span(p, m1, m2, start, stop, lr_t, beta1, beta2, eps):
    # a run of absent rows, contiguous in memory: Paddle's `else` branch, a loop that vectorizes
    for i in range(start, stop):
        a = beta1 * m1[i]
        b = beta2 * m2[i]
        m1[i] = a
        m2[i] = b
        p[i] = p[i] - lr_t * (a / (math.sqrt(b) + eps))


@_jit
def adam_rows(p2, m1, m2, rows, values, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps, lazy):
    height, width = p2.shape
    pos, merged = _merge(rows, values, height)
    p, a, b = p2.reshape(-1), m1.reshape(-1), m2.reshape(-1)
    done = 0                    # rows below this one are updated; the present rows go in ascending order
    for r in range(height):     # (sequential memory access: a random order of rows ran 3x slower)
        j = pos[r]
        if j < 0:
            continue
        if not lazy:
            _decay_span(p, a, b, done * width, r * width, lr_t, beta1, beta2, eps)
        _adam_span(p, a, b, merged[j], r * width, (r + 1) * width, lr_t, beta1, beta2, one_minus_b1,
                   one_minus_b2, eps)
        done = r + 1
    if not lazy:
        _decay_span(p, a, b, done * width, height * width, lr_t, beta1, beta2, eps)
