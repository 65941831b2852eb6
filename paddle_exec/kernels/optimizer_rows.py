"""Adam with a sparse (SelectedRows) gradient as one numba call: merge, then update, without the GIL.

    adam_rows(p2, m1, m2, rows, values, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps, lazy)

`p2`, `m1`, `m2` are `[height, width]` views of the parameter and its moments (updated in place), `rows` the
gradient's int64 rows (any order, duplicates allowed), `values` its `[len(rows), width]` values in the parameter's
dtype. Paddle 1.8.5's CPU kernel (adam_op.h, SparseAdamFunctor) in two steps:

1. MergeAdd: the values of duplicated rows are summed, in input order, onto zeros. Here a position table of
   `height` entries maps a row to its slot in the merged block; each row's sum is taken in input order, as
   Paddle's. numpy's `unique` used to do this in Python, holding the GIL for ~2 ms of a DeepFM step.
2. The update, rows in ascending (memory) order. `lazy` (lazy_mode=True): only the rows present; on a table of
   more than SORT_RATIO rows per gradient row the merge is a stable sort of the gradient's rows instead of the
   table's position map, so the update costs the size of the gradient, not of the table (measured here, 13k rows
   of 16: 0.8 ms against 0.65 ms with the map on a 100k-row table, 4.1 ms on a 1M-row one, 8.9 ms on 4M; the
   same sums, in input order, so the same bits). Otherwise every
   row of the table, in one pass: a row present gets Adam with its merged gradient; a row absent gets Paddle's
   `else` branch: the moments decay, `mom1 = beta1 * mom1; mom2 = beta2 * mom2`, and the parameter still moves by
   `lr_t * mom1 / (sqrt(mom2) + eps)`.

A row outside `[0, height)` raises IndexError before anything is written.

`merge_table_rows` and `adam_row_range` are the two steps apart: kernels/optimizer.py runs the update of a large table
as two row ranges on two threads in parallel runs (kernels/intra_op.py), with the same bits.
"""
from __future__ import annotations

import math

import numpy as np

from .jit import kernel_jit

__all__ = ['adam_rows', 'adam_row_range', 'merge_table_rows', 'SORT_RATIO']

# float division without a zero check (x / 0 is inf or nan, as in Paddle's C++): the row loops vectorize
_jit = kernel_jit(error_model='numpy')
_inline = kernel_jit(error_model='numpy', inline='always')    # compiled into its callers' loops
# a lazy update sorts the gradient's rows when the table has more rows than this many per gradient row (the sort
# costs ~60 ns a gradient row, the position map ~6 ns a table row)
SORT_RATIO = 16


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
def _merge_sorted(rows, values, height):
    """(the rows present, ascending; their merged block): the lazy update's merge, in the gradient's size rather
    than the table's (a stable sort keeps each row's values in input order, so the sums are _merge's)."""
    n, width = values.shape
    for i in range(n):
        if rows[i] < 0 or rows[i] >= height:
            raise IndexError('sparse gradient row out of range')
    order = np.argsort(rows, kind='mergesort')
    unique = 0
    last = -1
    for t in range(n):
        r = rows[order[t]]
        if r != last:
            unique += 1
            last = r
    present = np.empty(unique, dtype=np.int64)
    merged = np.zeros((unique, width), dtype=values.dtype)
    j = -1
    last = -1
    for t in range(n):
        i = order[t]
        r = rows[i]
        if r != last:
            j += 1
            present[j] = r
            last = r
        for k in range(width):
            merged[j, k] += values[i, k]
    return present, merged


@_inline
def _present_row(p2, m1, m2, r, merged, j, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps):
    """Adam on table row r with its merged gradient, merged[j]."""
    for k in range(p2.shape[1]):
        gi = merged[j, k]
        a = beta1 * m1[r, k] + one_minus_b1 * gi
        b = beta2 * m2[r, k] + one_minus_b2 * gi * gi
        m1[r, k] = a
        m2[r, k] = b
        p2[r, k] = p2[r, k] - lr_t * (a / (math.sqrt(b) + eps))


@_jit
def adam_rows(p2, m1, m2, rows, values, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps, lazy):
    if lazy and p2.shape[0] > SORT_RATIO * rows.shape[0]:
        present, merged = _merge_sorted(rows, values, p2.shape[0])
        for j in range(present.shape[0]):
            _present_row(p2, m1, m2, present[j], merged, j, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps)
        return
    pos, merged = _merge(rows, values, p2.shape[0])
    adam_row_range(p2, m1, m2, pos, merged, 0, p2.shape[0], lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps,
                   lazy)


@_jit
def merge_table_rows(rows, values, height):
    """Step 1 alone: (position of each table row in the merged block or -1, the merged block)."""
    return _merge(rows, values, height)


@_jit
def adam_row_range(p2, m1, m2, pos, merged, start, stop, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps, lazy):
    """Step 2 on the table rows [start, stop): the same arithmetic per element whatever the range, so two ranges
    on two threads give the bits of one whole pass (kernels/intra_op.py)."""
    # the loops are written out over whole arrays and a row range (the present row's helper is inlined): the same
    # loops as helper functions taking row slices ran 10x slower
    width = p2.shape[1]
    for r in range(start, stop):    # rows in memory order: a random order of rows ran 3x slower
        j = pos[r]
        if j >= 0:
            _present_row(p2, m1, m2, r, merged, j, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps)
        elif not lazy:
            for k in range(width):
                a = beta1 * m1[r, k]
                b = beta2 * m2[r, k]
                m1[r, k] = a
                m2[r, k] = b
                p2[r, k] = p2[r, k] - lr_t * (a / (math.sqrt(b) + eps))
