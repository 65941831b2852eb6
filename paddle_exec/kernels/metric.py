"""Numba kernels of the metric family: top-k selection, the accuracy count and the bucketed AUC statistics.

- ``top_k`` over the last axis of ``(rows, cols)``: Paddle's CPU kernel runs ``std::partial_sort`` on
  ``(value, index)`` pairs with the comparator ``l.first > r.first`` (ties are NOT broken by index). libstdc++'s
  partial_sort is a heap select followed by a heap sort, so which of several equal values wins depends on the
  heap's sift order; it is reproduced here step for step (``__make_heap``, ``__adjust_heap``, ``__push_heap``,
  ``__pop_heap``, ``__sort_heap``), which gives Paddle's indices on ties too. ``largest=False`` (top_k_v2) flips
  the comparator; NaN counts as the largest value, as top_k_v2's comparator makes it.
  Gradient: ``dx[row, indices[row, j]] = dout[row, j]``, zeros elsewhere.
- ``accuracy_count``: the rows whose label is among their top-k indices.
- ``auc_stat`` / ``auc_value``: Paddle's AucKernel (statAuc / calcAuc): a prediction ``p`` of the positive class
  falls into bucket ``int(p * num_thresholds)``; positives and negatives are counted per bucket, and the ROC area
  is the trapezoid sum over buckets from the highest threshold down, divided by ``pos * neg``.

Every kernel is compiled by ``kernel_jit`` (kernels/jit.py: nogil, cached) on C-contiguous arrays.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['top_k', 'top_k_backward', 'accuracy_count', 'auc_stat', 'auc_value']

_jit = kernel_jit()


# ----------------------------------------------------------------------------------------------------------------
# top_k: libstdc++'s std::partial_sort on (value, index) pairs

@_jit
def _before(va, vb, largest):
    """The partial_sort comparator comp(a, b): a sorts before b. NaN is the largest value."""
    if largest:
        return (np.isnan(va) and not np.isnan(vb)) or va > vb
    return (not np.isnan(va) and np.isnan(vb)) or va < vb


@_jit
def _adjust_heap(vals, idx, hole, n, value, value_idx, largest):
    # std::__adjust_heap: sift the hole down to a leaf, then std::__push_heap the value back up
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if _before(vals[child], vals[child - 1], largest):
            child -= 1
        vals[hole] = vals[child]
        idx[hole] = idx[child]
        hole = child
    if (n & 1) == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        vals[hole] = vals[child - 1]
        idx[hole] = idx[child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _before(vals[parent], value, largest):
        vals[hole] = vals[parent]
        idx[hole] = idx[parent]
        hole = parent
        parent = (hole - 1) // 2
    vals[hole] = value
    idx[hole] = value_idx


@_jit
def _partial_sort(vals, idx, k, largest):
    n = vals.shape[0]
    if k >= 2:                                   # std::__make_heap on [0, k)
        parent = (k - 2) // 2
        while True:
            _adjust_heap(vals, idx, parent, k, vals[parent], idx[parent], largest)
            if parent == 0:
                break
            parent -= 1
    for i in range(k, n):                        # std::__heap_select: a better element replaces the heap top
        if _before(vals[i], vals[0], largest):
            v, j = vals[i], idx[i]
            vals[i] = vals[0]
            idx[i] = idx[0]
            _adjust_heap(vals, idx, 0, k, v, j, largest)
    last = k
    while last > 1:                              # std::__sort_heap
        last -= 1
        v, j = vals[last], idx[last]
        vals[last] = vals[0]
        idx[last] = idx[0]
        _adjust_heap(vals, idx, 0, last, v, j, largest)


@_jit
def _top_k_rows(x, k, largest, out, indices):
    rows, cols = x.shape
    vals = np.empty(cols, x.dtype)
    idx = np.empty(cols, np.int64)
    for r in range(rows):
        for c in range(cols):
            vals[c] = x[r, c]
            idx[c] = c
        _partial_sort(vals, idx, k, largest)
        for j in range(k):
            out[r, j] = vals[j]
            indices[r, j] = idx[j]


def top_k(x: np.ndarray, k: int, largest: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The k largest (or smallest) entries of each row of the 2-D ``x`` and their column indices (int64)."""
    x = np.ascontiguousarray(x)
    out = np.empty((x.shape[0], k), x.dtype)
    indices = np.empty((x.shape[0], k), np.int64)
    if x.shape[0] and k:
        _top_k_rows(x, int(k), bool(largest), out, indices)
    return out, indices


@_jit
def _top_k_scatter(indices, dout, dx):
    rows, k = indices.shape
    for r in range(rows):
        for j in range(k):
            dx[r, indices[r, j]] = dout[r, j]


def top_k_backward(indices: np.ndarray, dout: np.ndarray, cols: int) -> np.ndarray:
    """``dx`` of shape ``(rows, cols)``: each row's ``dout`` written back at its top-k columns."""
    dx = np.zeros((indices.shape[0], cols), dout.dtype)
    if indices.size:
        _top_k_scatter(np.ascontiguousarray(indices, np.int64), np.ascontiguousarray(dout), dx)
    return dx


# ----------------------------------------------------------------------------------------------------------------
# accuracy

@_jit
def _accuracy_count(indices, label):
    rows, k = indices.shape
    correct = 0
    for r in range(rows):
        for j in range(k):
            if indices[r, j] == label[r]:
                correct += 1
                break
    return correct


def accuracy_count(indices: np.ndarray, label: np.ndarray) -> int:
    """How many rows of the ``(rows, k)`` top-k ``indices`` contain that row's ``label``."""
    return int(_accuracy_count(np.ascontiguousarray(indices, np.int64), np.ascontiguousarray(label, np.int64)))


# ----------------------------------------------------------------------------------------------------------------
# auc

@_jit
def _count_buckets(pos_prob, label, scale, stat_pos, stat_neg, offset):
    for i in range(pos_prob.shape[0]):
        b = offset + np.uint32(pos_prob[i] * scale)
        if label[i] != 0:
            stat_pos[b] += 1
        else:
            stat_neg[b] += 1


def auc_stat(pos_prob: np.ndarray, label: np.ndarray, num_thresholds: int, slide_steps: int,
             stat_pos: np.ndarray, stat_neg: np.ndarray) -> None:
    """Paddle's statAuc, updating the int64 bucket counts in place.

    ``slide_steps == 0``: one window of ``num_thresholds + 1`` buckets accumulating every batch. Otherwise
    ``slide_steps`` windows, a sum window after them, and the batch counter as the last element: the current
    batch replaces the oldest window and the sum window is kept equal to the sum of the windows."""
    n_buckets = num_thresholds + 1
    pos_prob = np.ascontiguousarray(pos_prob)
    label = np.ascontiguousarray(label, np.int64)
    # the product is taken in the prediction's own precision (float * int is a float product in C++)
    scale = pos_prob.dtype.type(num_thresholds)
    if slide_steps == 0:
        _count_buckets(pos_prob, label, scale, stat_pos, stat_neg, 0)
        return
    cur = int(stat_pos[(slide_steps + 1) * n_buckets]) % slide_steps * n_buckets
    total = slide_steps * n_buckets
    for stat in (stat_pos, stat_neg):
        stat[total:total + n_buckets] -= stat[cur:cur + n_buckets]
        stat[cur:cur + n_buckets] = 0
    _count_buckets(pos_prob, label, scale, stat_pos, stat_neg, cur)
    for stat in (stat_pos, stat_neg):
        stat[total:total + n_buckets] += stat[cur:cur + n_buckets]


@_jit
def _auc_value(stat_pos, stat_neg, num_thresholds):
    auc = 0.0
    tot_pos = 0.0
    tot_neg = 0.0
    for b in range(num_thresholds, -1, -1):
        prev_pos, prev_neg = tot_pos, tot_neg
        tot_pos += stat_pos[b]
        tot_neg += stat_neg[b]
        auc += abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0
    if tot_pos > 0.0 and tot_neg > 0.0:
        auc = auc / tot_pos / tot_neg
    return auc


def auc_value(stat_pos: np.ndarray, stat_neg: np.ndarray, num_thresholds: int) -> float:
    """Paddle's calcAuc on one window of ``num_thresholds + 1`` bucket counts; 0 while a class has no sample."""
    return float(_auc_value(stat_pos, stat_neg, num_thresholds))
