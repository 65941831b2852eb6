"""Numba kernels of the search ops (ops/search.py): where, arg_max / arg_min, argsort.

- ``where``: ``out[i] = x[i] if cond[i] else y[i]`` on same-shaped arrays (Paddle's `where` op requires equal
  shapes; paddle.where broadcasts in Python before the op). Gradient: ``dout`` routed to X where the condition
  holds, to Y elsewhere, zeros in the other slot.
- ``arg_max`` / ``arg_min`` along one axis, viewed as ``(pre, n, post)``: the FIRST index of the extreme value
  (Paddle's CPU kernel, like numpy's argmax). Comparisons with NaN are false: a later NaN is never picked, a
  leading NaN is kept (numpy would return the first NaN).
- ``argsort`` along one axis: a stable sort (Paddle 1.8 keeps equal keys in input order, ascending or
  descending); descending sorts the reversed row ascending and maps the indices back, which keeps that order.
  Gradient: ``dout`` scattered back to the sorted positions.

Reshape-like ops, concat, split, slice, transpose, tile and cast are numpy views, copies or ``astype`` in their op
modules (ops/shape.py, joining.py, slicing.py, broadcasting.py, casting.py); gather uses kernels/embedding.py and
range kernels/creation.py.
Every kernel is compiled by ``kernel_jit`` (kernels/jit.py: nogil, cached) and works on C-contiguous arrays.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['where_forward', 'where_backward', 'arg_extreme', 'argsort', 'argsort_backward']

_jit = kernel_jit()


def _three_d(shape, axis: int) -> tuple[int, int, int]:
    pre = int(np.prod(shape[:axis], dtype=np.int64))
    post = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return pre, int(shape[axis]), post


# ----------------------------------------------------------------------------------------------------------------
# where

@_jit
def _where(cond, x, y, out):
    for i in range(out.size):
        out[i] = x[i] if cond[i] else y[i]


@_jit
def _where_grad(cond, dout, dx, dy):
    for i in range(dout.size):
        if cond[i]:
            dx[i] = dout[i]
            dy[i] = 0
        else:
            dx[i] = 0
            dy[i] = dout[i]


def _flat(a, dtype=None):
    return np.ascontiguousarray(a, dtype=dtype).reshape(-1)


def where_forward(cond: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Paddle op ``where``: elements of ``x`` where ``cond`` holds, else of ``y`` (all three of one shape)."""
    out = np.empty(x.shape, dtype=x.dtype)
    _where(_flat(cond, np.bool_), _flat(x), _flat(y, x.dtype), out.reshape(-1))
    return out


def where_backward(cond: np.ndarray, dout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paddle op ``where_grad``: ``(dX, dY)``, ``dout`` masked by ``cond`` and by its negation."""
    dx = np.empty(dout.shape, dtype=dout.dtype)
    dy = np.empty(dout.shape, dtype=dout.dtype)
    _where_grad(_flat(cond, np.bool_), _flat(dout), dx.reshape(-1), dy.reshape(-1))
    return dx, dy


# ----------------------------------------------------------------------------------------------------------------
# arg_max / arg_min

@_jit
def _arg_extreme(x3, want_max, out):
    pre, n, post = x3.shape
    for p in range(pre):
        for q in range(post):
            best = x3[p, 0, q]
            k = 0
            for i in range(1, n):
                v = x3[p, i, q]
                if (v > best) if want_max else (v < best):
                    best = v
                    k = i
            out[p, q] = k


def arg_extreme(x: np.ndarray, axis: int, want_max: bool) -> np.ndarray:
    """Index (int64) of the first maximum (``want_max``) or minimum of ``x`` along ``axis``; the axis removed."""
    x = np.ascontiguousarray(x)
    if x.shape[axis] == 0:
        raise ValueError('arg_max/arg_min: the dimension %d of the input is 0, there is no element to pick' % axis)
    pre, n, post = _three_d(x.shape, axis)
    out = np.empty((pre, post), dtype=np.int64)
    _arg_extreme(x.reshape(pre, n, post), bool(want_max), out)
    return out.reshape(x.shape[:axis] + x.shape[axis + 1:])


# ----------------------------------------------------------------------------------------------------------------
# argsort

@_jit
def _argsort(x3, descending, out, idx):
    pre, n, post = x3.shape
    row = np.empty(n, dtype=x3.dtype)
    for p in range(pre):
        for q in range(post):
            if descending:
                for i in range(n):
                    row[i] = x3[p, n - 1 - i, q]
            else:
                for i in range(n):
                    row[i] = x3[p, i, q]
            order = np.argsort(row, kind='mergesort')
            for i in range(n):
                if descending:
                    k = n - 1 - order[n - 1 - i]
                else:
                    k = order[i]
                idx[p, i, q] = k
                out[p, i, q] = x3[p, k, q]


@_jit
def _argsort_grad(idx3, dout3, dx3):
    pre, n, post = idx3.shape
    for p in range(pre):
        for q in range(post):
            for i in range(n):
                dx3[p, idx3[p, i, q], q] = dout3[p, i, q]


def argsort(x: np.ndarray, axis: int, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    """Paddle op ``argsort``: ``(sorted values, int64 indices)`` along ``axis``, stable in both directions."""
    x = np.ascontiguousarray(x)
    pre, n, post = _three_d(x.shape, axis)
    out = np.empty(x.shape, dtype=x.dtype)
    idx = np.empty(x.shape, dtype=np.int64)
    if x.size:
        _argsort(x.reshape(pre, n, post), bool(descending), out.reshape(pre, n, post), idx.reshape(pre, n, post))
    return out, idx


def argsort_backward(indices: np.ndarray, dout: np.ndarray, axis: int) -> np.ndarray:
    """Paddle op ``argsort_grad``: ``dX[.., indices[.., i, ..], ..] = dOut[.., i, ..]``."""
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    dout = np.ascontiguousarray(dout)
    pre, n, post = _three_d(dout.shape, axis)
    dx = np.zeros(dout.shape, dtype=dout.dtype)
    if dout.size:
        _argsort_grad(indices.reshape(pre, n, post), dout.reshape(pre, n, post), dx.reshape(pre, n, post))
    return dx
