"""Numba kernels of the indexing family: gather_nd / scatter_nd_add, scatter, index_select, roll, tril_triu, cumsum.

Every kernel views its operands as small C-contiguous blocks, so one loop serves every rank:
- ``gather_nd`` / ``scatter_nd_add``: x is ``(prod(x.shape[:k]), slice)`` where ``k = index.shape[-1]``; each
  index row becomes one row offset (checked: ``0 <= i < dim``, Paddle never wraps negatives); gather copies that
  row, scatter_nd_add adds an update row into it (duplicates accumulate, in index order).
- ``scatter`` (rows of a 2-D view ``(x.shape[0], slice)``): ``overwrite`` writes update rows in index order (the
  last duplicate wins); otherwise the indexed rows are zeroed first and every update row is added (Paddle's
  ScatterAssignAdd). Gradient (Paddle 2.x): ``dX = dOut`` with the indexed rows zeroed, ``dUpdates = dOut[ids]``.
- ``index_select`` along ``dim``, viewed as ``(pre, n, post)``; its gradient adds dOut slices back.
- ``roll``: one axis at a time on ``(pre, n, post)``; an empty axis list rolls the flattened tensor.
- ``tril_triu`` on ``(batch, rows, cols)``: keeps ``j - i <= diagonal`` (lower) or ``j - i >= diagonal``.
- ``cumsum`` along one axis of ``(pre, n, post)``, accumulated in the tensor's dtype (Paddle's CPU kernel), with
  ``exclusive`` (shift by one, start at 0) and ``reverse`` (run from the end).

Bad indices are reported by the loop (the first offending position) and raised by the Python wrapper with
Paddle's wording: the loops themselves never raise. No framework imports.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['gather_nd_forward', 'gather_nd_backward', 'scatter_nd_add_forward', 'scatter_forward',
           'scatter_backward', 'index_select_forward', 'index_select_backward', 'roll_forward', 'tril_triu',
           'cumsum']

_jit = kernel_jit()


def _prod(dims) -> int:
    return int(np.prod(dims, dtype=np.int64))


def _three_d(shape, axis: int) -> tuple[int, int, int]:
    return _prod(shape[:axis]), int(shape[axis]), _prod(shape[axis + 1:])


def _index64(index) -> np.ndarray:
    return np.ascontiguousarray(index, dtype=np.int64)


# ----------------------------------------------------------------------------------------------------------------
# gather_nd / scatter_nd_add

@_jit
def _nd_offsets(index2, dims, offsets):
    """Row offsets of each index row into x viewed as (prod(dims), slice); -1, or the flat position of the first
    out-of-range entry."""
    m, k = index2.shape
    for r in range(m):
        off = 0
        for j in range(k):
            v = index2[r, j]
            if v < 0 or v >= dims[j]:
                return r * k + j
            off = off * dims[j] + v
        offsets[r] = off
    return -1


@_jit
def _gather_rows(x2, offsets, out2):
    for r in range(offsets.size):
        src = offsets[r]
        for c in range(x2.shape[1]):
            out2[r, c] = x2[src, c]


@_jit
def _add_rows(out2, offsets, upd2):
    for r in range(offsets.size):
        dst = offsets[r]
        for c in range(out2.shape[1]):
            out2[dst, c] += upd2[r, c]


def _nd_rows(x_shape, index, op_type: str) -> tuple[np.ndarray, int, int]:
    """(row offsets, k, slice size) of `index` (last dim k) into an array of shape `x_shape`."""
    index = _index64(index)
    k = index.shape[-1] if index.ndim else 0
    if k > len(x_shape):
        raise ValueError("The last dimension of Input(Index)'s shape (%d) of operator '%s' must be <= the rank of "
                         'Input(X) (%d)' % (k, op_type, len(x_shape)))
    dims = np.array(x_shape[:k], dtype=np.int64)
    index2 = index.reshape(-1, k) if k else np.zeros((_prod(index.shape[:-1]), 0), np.int64)
    offsets = np.zeros(index2.shape[0], dtype=np.int64)
    bad = _nd_offsets(index2, dims, offsets) if index2.shape[0] else -1
    if bad >= 0:
        value, dim = int(index2.reshape(-1)[bad]), int(dims[bad % k])
        if op_type == 'gather_nd':
            if value < 0:
                raise ValueError('The value of Input(index) must be no less than 0 (operator gather_nd), but '
                                 'received index_value:%d' % value)
            raise ValueError('Input(index[-1)] has wrong value, it is [%d] (operator gather_nd: it must be less than '
                             'the input dim %d)' % (value, dim))
        raise IndexError('The index is out of bounds, please check whether the dimensions of index and input meet '
                         'the requirements. It should be less than [%d] and greater or equal to 0, but received [%d] '
                         '(operator %s)' % (dim, value, op_type))
    return offsets, k, _prod(x_shape[k:])


def gather_nd_forward(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Paddle op ``gather_nd``: ``out[i...] = x[index[i..., :]]``, shape ``index.shape[:-1] + x.shape[k:]``."""
    x = np.ascontiguousarray(x)
    offsets, k, inner = _nd_rows(x.shape, index, 'gather_nd')
    out = np.empty(tuple(np.shape(index)[:-1]) + x.shape[k:], dtype=x.dtype)
    if out.size:
        _gather_rows(x.reshape(-1, inner), offsets, out.reshape(-1, inner))
    return out


def scatter_nd_add_forward(x: np.ndarray, index: np.ndarray, updates: np.ndarray) -> np.ndarray:
    """Paddle op ``scatter_nd_add``: a copy of ``x`` with ``updates[i...]`` added at ``x[index[i..., :]]``."""
    out = np.array(x, order='C')
    offsets, k, inner = _nd_rows(out.shape, index, 'scatter_nd_add')
    want = tuple(np.shape(index)[:-1]) + out.shape[k:]
    if tuple(np.shape(updates)) != want:
        raise ValueError('Input(Updates) of operator scatter_nd_add has shape %s, but Index and X give %s'
                         % (list(np.shape(updates)), list(want)))
    if offsets.size and inner:
        _add_rows(out.reshape(-1, inner), offsets, np.ascontiguousarray(updates, dtype=out.dtype).reshape(-1, inner))
    return out


def gather_nd_backward(x_shape, index: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle op ``gather_nd_grad``: zeros of ``x_shape`` with ``dout`` added back at the gathered positions."""
    return scatter_nd_add_forward(np.zeros(tuple(x_shape), dtype=dout.dtype), index, dout)


# ----------------------------------------------------------------------------------------------------------------
# scatter

@_jit
def _check_ids(ids, n):
    for i in range(ids.size):
        if ids[i] < 0 or ids[i] >= n:
            return i
    return -1


@_jit
def _scatter_rows(out2, ids, upd2, overwrite):
    if overwrite:
        for r in range(ids.size):
            for c in range(out2.shape[1]):
                out2[ids[r], c] = upd2[r, c]
    else:
        for r in range(ids.size):
            for c in range(out2.shape[1]):
                out2[ids[r], c] = 0
        for r in range(ids.size):
            for c in range(out2.shape[1]):
                out2[ids[r], c] += upd2[r, c]


@_jit
def _zero_rows(out2, ids):
    for r in range(ids.size):
        for c in range(out2.shape[1]):
            out2[ids[r], c] = 0


def _scatter_ids(ids, rows: int) -> np.ndarray:
    ids = _index64(ids).reshape(-1)
    bad = _check_ids(ids, rows)
    if bad >= 0:
        value = int(ids[bad])
        if value < 0:
            raise IndexError('The index is out of bounds, please check whether the dimensions of index and input '
                             'meet the requirements. It should be greater than or equal to 0, but received [%d] '
                             '(operator scatter)' % value)
        raise IndexError('The index is out of bounds, please check whether the values of index and dimensions of '
                         'input meet the requirements. each index should be less than 1st-dim size (%d) of input, '
                         'but received [%d] (operator scatter)' % (rows, value))
    return ids


def scatter_forward(x: np.ndarray, ids: np.ndarray, updates: np.ndarray, overwrite: bool) -> np.ndarray:
    """Paddle op ``scatter``: rows ``ids`` of a copy of ``x`` set to (overwrite) or the sum of (not) ``updates``."""
    out = np.array(x, order='C')
    ids = _scatter_ids(ids, out.shape[0])
    if updates.shape[0] != ids.size or updates.shape[1:] != out.shape[1:]:
        raise ValueError('Input(Updates) of operator scatter has shape %s; it must be [len(Ids)=%d] + X.shape[1:] %s'
                         % (list(updates.shape), ids.size, list(out.shape[1:])))
    inner = _prod(out.shape[1:])
    if ids.size and inner:
        _scatter_rows(out.reshape(out.shape[0], inner), ids,
                      np.ascontiguousarray(updates, dtype=out.dtype).reshape(ids.size, inner), bool(overwrite))
    return out


def scatter_backward(ids: np.ndarray, dout: np.ndarray, want_x: bool, want_updates: bool):
    """Paddle 2.x op ``scatter_grad``: ``(dX, dUpdates)``: dOut with the indexed rows zeroed, and dOut[ids]."""
    dout = np.ascontiguousarray(dout)
    ids = _scatter_ids(ids, dout.shape[0])
    inner = _prod(dout.shape[1:])
    dx = dupd = None
    if want_x:
        dx = dout.copy()
        if ids.size and inner:
            _zero_rows(dx.reshape(dx.shape[0], inner), ids)
    if want_updates:
        dupd = np.empty((ids.size,) + dout.shape[1:], dtype=dout.dtype)
        if dupd.size:
            _gather_rows(dout.reshape(dout.shape[0], inner), ids, dupd.reshape(ids.size, inner))
    return dx, dupd


# ----------------------------------------------------------------------------------------------------------------
# index_select

@_jit
def _index_select(x3, idx, out3):
    for p in range(x3.shape[0]):
        for i in range(idx.size):
            for q in range(x3.shape[2]):
                out3[p, i, q] = x3[p, idx[i], q]


@_jit
def _index_select_grad(dout3, idx, dx3):
    for p in range(dout3.shape[0]):
        for i in range(idx.size):
            for q in range(dout3.shape[2]):
                dx3[p, idx[i], q] += dout3[p, i, q]


def _select_ids(index, n: int) -> np.ndarray:
    idx = _index64(index).reshape(-1)
    bad = _check_ids(idx, n)
    if bad >= 0:
        raise ValueError('Variable value (index) of OP(index_select) expected >= 0 and < %d, but got %d. Please '
                         'check input value.' % (n, int(idx[bad])))
    return idx


def index_select_forward(x: np.ndarray, index: np.ndarray, axis: int) -> np.ndarray:
    """Paddle op ``index_select``: ``x`` with dim ``axis`` (non-negative) replaced by the slices ``index``."""
    x = np.ascontiguousarray(x)
    pre, n, post = _three_d(x.shape, axis)
    idx = _select_ids(index, n)
    out = np.empty(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:], dtype=x.dtype)
    if out.size:
        _index_select(x.reshape(pre, n, post), idx, out.reshape(pre, idx.size, post))
    return out


def index_select_backward(x_shape, index: np.ndarray, dout: np.ndarray, axis: int) -> np.ndarray:
    """Paddle op ``index_select_grad``: zeros of ``x_shape`` with the ``dout`` slices added at ``index``."""
    pre, n, post = _three_d(tuple(x_shape), axis)
    idx = _select_ids(index, n)
    dx = np.zeros(tuple(x_shape), dtype=dout.dtype)
    if dout.size:
        _index_select_grad(np.ascontiguousarray(dout).reshape(pre, idx.size, post), idx, dx.reshape(pre, n, post))
    return dx


# ----------------------------------------------------------------------------------------------------------------
# roll

@_jit
def _roll(x3, shift, out3):
    n = x3.shape[1]
    for p in range(x3.shape[0]):
        for i in range(n):
            j = i + shift
            if j >= n:
                j -= n
            for q in range(x3.shape[2]):
                out3[p, j, q] = x3[p, i, q]


def roll_forward(x: np.ndarray, shifts, axes) -> np.ndarray:
    """Paddle op ``roll``: element i of each rolled axis moves to ``(i + shift) mod n``; no axes: the flattened
    tensor rolls. ``axes`` may be negative."""
    x = np.ascontiguousarray(x)
    flat = not len(axes)
    y = x.reshape(-1) if flat else x
    for shift, axis in zip(shifts, [0] if flat else axes):
        axis = axis + y.ndim if axis < 0 else axis
        pre, n, post = _three_d(y.shape, axis)
        out = np.empty_like(y)
        if y.size:
            _roll(y.reshape(pre, n, post), int(shift) % n, out.reshape(pre, n, post))
        y = out
    return (y.copy() if np.shares_memory(y, x) else y).reshape(x.shape)


# ----------------------------------------------------------------------------------------------------------------
# tril_triu

@_jit
def _tril_triu(x3, diagonal, lower, out3):
    for b in range(x3.shape[0]):
        for i in range(x3.shape[1]):
            for j in range(x3.shape[2]):
                keep = (j - i <= diagonal) if lower else (j - i >= diagonal)
                out3[b, i, j] = x3[b, i, j] if keep else 0


def tril_triu(x: np.ndarray, diagonal: int, lower: bool) -> np.ndarray:
    """Paddle op ``tril_triu`` on the last two dims: the lower (``j - i <= diagonal``) or upper triangle."""
    x = np.ascontiguousarray(x)
    rows, cols = x.shape[-2], x.shape[-1]
    out = np.empty_like(x)
    if x.size:
        _tril_triu(x.reshape(-1, rows, cols), int(diagonal), bool(lower), out.reshape(-1, rows, cols))
    return out


# ----------------------------------------------------------------------------------------------------------------
# cumsum

@_jit
def _cumsum(x3, exclusive, reverse, out3, zero):
    pre, n, post = x3.shape
    for p in range(pre):
        for q in range(post):
            acc = zero
            for s in range(n):
                i = n - 1 - s if reverse else s
                if exclusive:
                    out3[p, i, q] = acc
                    acc += x3[p, i, q]
                else:
                    acc += x3[p, i, q]
                    out3[p, i, q] = acc


def cumsum(x: np.ndarray, axis: int, exclusive: bool, reverse: bool) -> np.ndarray:
    """Paddle op ``cumsum`` along ``axis`` (non-negative), accumulated in ``x``'s dtype."""
    x = np.ascontiguousarray(x)
    out = np.empty_like(x)
    if x.size:
        pre, n, post = _three_d(x.shape, axis)
        _cumsum(x.reshape(pre, n, post), bool(exclusive), bool(reverse), out.reshape(pre, n, post), x.dtype.type(0))
    return out
