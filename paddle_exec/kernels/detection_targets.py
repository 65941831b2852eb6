"""Training targets of the SSD family (ops/detection_targets.py): target_assign and mine_hard_examples as Paddle
1.8 computes them, one numba loop over the instances each.

target_assign: X [M, P, K] holds, for each instance i, the rows offsets[i] .. offsets[i+1] (its entities, e.g. the
encoded ground-truth boxes against every prior); MatchIndices [N, P] names the entity each prediction j of
instance i matched (-1: none). Out[i, j] = X[offsets[i] + id, j % P] with weight 1, or mismatch_value with weight
0; then each negative index of instance i (NegIndices cut by its own offsets) gets mismatch_value with weight 1.

mine_hard_examples: per instance, the predictions eligible as negatives (max_negative: unmatched and their match
distance below neg_dist_threshold; hard_example: all), ranked by classification loss (plus localisation loss for
hard_example), the top min(num_pos * neg_pos_ratio, eligible) (max_negative) or min(sample_size, eligible)
(hard_example) are kept. max_negative returns them in index order; hard_example also unmatches the positives it did
not keep, and returns only the kept unmatched ones. Ties in the loss keep the lower index first (a stable sort;
Paddle's std::sort leaves their order unspecified).
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['target_assign', 'mine_hard_examples']

_jit = kernel_jit()


@_jit
def _target_assign(x, offsets, match, neg, neg_offsets, mismatch, out, weight):
    n, m = match.shape
    p = x.shape[1]
    for i in range(n):
        for j in range(m):
            idx = match[i, j]
            if idx > -1:
                out[i, j, :] = x[offsets[i] + idx, j % p, :]
                weight[i, j, 0] = 1.0
            else:
                out[i, j, :] = mismatch
                weight[i, j, 0] = 0.0
    for i in range(neg_offsets.shape[0] - 1):
        for r in range(neg_offsets[i], neg_offsets[i + 1]):
            j = neg[r]
            out[i, j, :] = mismatch
            weight[i, j, 0] = 1.0


def target_assign(x: np.ndarray, offsets: np.ndarray, match: np.ndarray, neg: np.ndarray | None,
                  neg_offsets: np.ndarray | None, mismatch_value: int) -> tuple[np.ndarray, np.ndarray]:
    """(Out [N, P, K] of x's dtype, OutWeight [N, P, 1] float32); see the module docstring."""
    n, m = match.shape
    out = np.empty((n, m, x.shape[2]), x.dtype)
    weight = np.empty((n, m, 1), np.float32)
    if neg is None:
        neg, neg_offsets = np.zeros(0, np.int32), np.zeros(1, np.int64)
    if n * m:
        _target_assign(np.ascontiguousarray(x), offsets.astype(np.int64), np.ascontiguousarray(match, np.int32),
                       np.ascontiguousarray(neg, np.int32).reshape(-1), neg_offsets.astype(np.int64),
                       x.dtype.type(mismatch_value), out, weight)
    return out, weight


@_jit
def _mine(cls_loss, loc_loss, use_loc, match, dist, hard_example, neg_pos_ratio, threshold, sample_size,
          updated, neg_out, neg_offsets):
    n, m = match.shape
    count = 0
    for i in range(n):
        eligible = np.empty(m, np.int64)
        losses = np.empty(m, cls_loss.dtype)
        k = 0
        num_pos = 0
        for j in range(m):
            if match[i, j] != -1:
                num_pos += 1
            if hard_example or (match[i, j] == -1 and dist[i, j] < threshold):
                eligible[k] = j
                losses[k] = cls_loss[i, j] + loc_loss[i, j] if (hard_example and use_loc) else cls_loss[i, j]
                k += 1
        if hard_example:
            sel = min(sample_size, k)
        else:
            sel = min(int(np.float32(num_pos) * neg_pos_ratio), k)   # float arithmetic, as the C++ kernel
        order = np.argsort(-losses[:k], kind='mergesort')
        chosen = np.zeros(m, np.bool_)
        for r in range(sel):
            chosen[eligible[order[r]]] = True
        for j in range(m):
            if hard_example:
                if match[i, j] > -1:
                    if not chosen[j]:
                        updated[i, j] = -1
                elif chosen[j]:
                    neg_out[count] = j
                    count += 1
            elif chosen[j]:
                neg_out[count] = j
                count += 1
        neg_offsets[i + 1] = count


def mine_hard_examples(cls_loss: np.ndarray, loc_loss: np.ndarray | None, match: np.ndarray, dist: np.ndarray,
                       mining_type: str, neg_pos_ratio: float, neg_dist_threshold: float,
                       sample_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(NegIndices [K, 1] int32, UpdatedMatchIndices [N, Np] int32, NegIndices' offsets over the instances)."""
    n, m = match.shape
    updated = np.array(match, np.int32, copy=True)
    neg = np.empty(n * m, np.int32)
    offsets = np.zeros(n + 1, np.int64)
    cls_loss = np.ascontiguousarray(cls_loss).reshape(n, m)
    use_loc = loc_loss is not None
    loc = np.ascontiguousarray(loc_loss, cls_loss.dtype).reshape(n, m) if use_loc else cls_loss
    if n * m:
        _mine(cls_loss, loc, use_loc, np.ascontiguousarray(match, np.int32), np.ascontiguousarray(dist).reshape(n, m),
              mining_type == 'hard_example', np.float32(neg_pos_ratio), dist.dtype.type(neg_dist_threshold),
              int(sample_size), updated, neg, offsets)
    return neg[:offsets[-1]].reshape(-1, 1).copy(), updated, offsets
