"""Sequence kernels that reduce or mix rows within each sequence: sequence_pool, sequence_softmax and the context
projection under sequence_conv, with Paddle 1.8's CPU semantics.

Every kernel takes the rows as a 2-D array `x2` ([rows, width]: the tensor with its trailing dimensions flattened)
and the sequence boundaries as int64 `offsets` (a LoD level: sequence i is rows offsets[i]:offsets[i+1]); one
numba loop walks the sequences, so there is no Python loop per sequence.

sequence_pool (`mode`: one of POOL_MODES)
    SUM     the rows added in order (Paddle's axpy loop)        AVERAGE  SUM / length       SQRT  SUM / sqrt(length)
    MAX     per column the largest value; `index` (int32) keeps its row offset within the sequence, the first of
            equal maxima                                         FIRST / LAST  the first / last row
    An empty sequence gives `pad_value` (and index -1); its rows (none) get no gradient.
    Gradients: SUM/AVERAGE/SQRT spread dOut over the sequence's rows (scaled), MAX sends it to the kept row,
    FIRST/LAST to that row; other rows get zeros.
sequence_softmax  a softmax over each sequence of a [rows] vector (the maximum subtracted first); its gradient is
    out * (dout - sum(dout * out)) per sequence.
context projection (sequence_conv)  col[t, j*D:(j+1)*D] = x[t + start + j] while that row is inside t's sequence;
    outside it the block is zero, or, with trainable padding, row `up_pad + k` of the padding data for the k-th row
    before the sequence start (k < 0) and row `up_pad + k` for the k-th row past its end (k >= 0), where
    up_pad = max(0, -start). The projection's gradient scatters dcol back (rows, and padding rows when trainable).
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['POOL_MODES', 'pool_forward', 'pool_backward', 'softmax_forward', 'softmax_backward',
           'context_project', 'context_project_backward']

_jit = kernel_jit(error_model='numpy')

POOL_MODES = {'SUM': 0, 'AVERAGE': 1, 'SQRT': 2, 'MAX': 3, 'FIRST': 4, 'LAST': 5}
_SUM, _AVERAGE, _SQRT, _MAX, _FIRST, _LAST = range(6)


@_jit
def _pool(x, offsets, mode, pad_value, out, index):
    n_seq = offsets.shape[0] - 1
    width = x.shape[1]
    for i in range(n_seq):
        start, end = offsets[i], offsets[i + 1]
        length = end - start
        if length == 0:
            for k in range(width):
                out[i, k] = pad_value
                if mode == _MAX:
                    index[i, k] = -1
            continue
        if mode == _MAX:
            for k in range(width):
                best = x[start, k]
                arg = 0
                for r in range(start + 1, end):
                    if x[r, k] > best:
                        best = x[r, k]
                        arg = r - start
                out[i, k] = best
                index[i, k] = arg
        elif mode == _FIRST:
            for k in range(width):
                out[i, k] = x[start, k]
        elif mode == _LAST:
            for k in range(width):
                out[i, k] = x[end - 1, k]
        else:
            for k in range(width):
                out[i, k] = x[start, k]
            for r in range(start + 1, end):
                for k in range(width):
                    out[i, k] += x[r, k]
            if mode == _AVERAGE:
                for k in range(width):
                    out[i, k] /= length
            elif mode == _SQRT:
                scale = np.sqrt(length)
                for k in range(width):
                    out[i, k] /= scale


@_jit
def _pool_grad(dout, offsets, mode, index, dx):
    n_seq = offsets.shape[0] - 1
    width = dout.shape[1]
    for i in range(n_seq):
        start, end = offsets[i], offsets[i + 1]
        length = end - start
        if length == 0:
            continue
        if mode == _MAX:
            for k in range(width):
                dx[start + index[i, k], k] = dout[i, k]
        elif mode == _FIRST:
            for k in range(width):
                dx[start, k] = dout[i, k]
        elif mode == _LAST:
            for k in range(width):
                dx[end - 1, k] = dout[i, k]
        else:
            scale = 1.0
            if mode == _AVERAGE:
                scale = 1.0 / length
            elif mode == _SQRT:
                scale = 1.0 / np.sqrt(length)
            for r in range(start, end):
                for k in range(width):
                    dx[r, k] = dout[i, k] * scale


def pool_forward(x2: np.ndarray, offsets: np.ndarray, mode: int, pad_value: float) -> tuple[np.ndarray, np.ndarray]:
    """(out [sequences, width], index int32 [sequences, width], meaningful for MAX only)."""
    n_seq = offsets.shape[0] - 1
    out = np.empty((n_seq, x2.shape[1]), x2.dtype)
    index = np.empty((n_seq, x2.shape[1]) if mode == _MAX else (0, 0), np.int32)
    _pool(np.ascontiguousarray(x2), offsets, mode, x2.dtype.type(pad_value), out, index)
    return out, index


def pool_backward(dout2: np.ndarray, offsets: np.ndarray, mode: int, index: np.ndarray, rows: int) -> np.ndarray:
    """dX [rows, width] of sequence_pool from dOut [sequences, width]."""
    dx = np.zeros((rows, dout2.shape[1]), dout2.dtype)
    if index is None or index.ndim != 2:
        index = np.zeros((0, 0), np.int32)
    _pool_grad(np.ascontiguousarray(dout2), offsets, mode, np.ascontiguousarray(index, np.int32), dx)
    return dx


@_jit
def _softmax(x, offsets, out):
    for i in range(offsets.shape[0] - 1):
        start, end = offsets[i], offsets[i + 1]
        if end <= start:
            continue
        top = x[start]
        for r in range(start + 1, end):
            if x[r] > top:
                top = x[r]
        total = 0.0
        for r in range(start, end):
            e = np.exp(x[r] - top)
            out[r] = e
            total += e
        for r in range(start, end):
            out[r] /= total


@_jit
def _softmax_grad(out, dout, offsets, dx):
    for i in range(offsets.shape[0] - 1):
        start, end = offsets[i], offsets[i + 1]
        dot = 0.0
        for r in range(start, end):
            dot += dout[r] * out[r]
        for r in range(start, end):
            dx[r] = out[r] * (dout[r] - dot)


def softmax_forward(x1: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """sequence_softmax of a flat [rows] vector."""
    out = np.empty_like(x1)
    _softmax(np.ascontiguousarray(x1), offsets, out)
    return out


def softmax_backward(out1: np.ndarray, dout1: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    dx = np.empty_like(out1)
    _softmax_grad(np.ascontiguousarray(out1), np.ascontiguousarray(dout1, out1.dtype), offsets, dx)
    return dx


@_jit
def _context_project(x, offsets, start, length, padding, use_padding, up_pad, col):
    width = x.shape[1]
    for i in range(offsets.shape[0] - 1):
        s, e = offsets[i], offsets[i + 1]
        for t in range(s, e):
            for j in range(length):
                k = t + start + j
                base = j * width
                if s <= k < e:
                    for c in range(width):
                        col[t, base + c] = x[k, c]
                elif use_padding:
                    p = up_pad + (k - s) if k < s else up_pad + (k - e)
                    for c in range(width):
                        col[t, base + c] = padding[p, c]
                else:
                    for c in range(width):
                        col[t, base + c] = 0


@_jit
def _context_project_grad(dcol, offsets, start, length, use_padding, up_pad, dx, dpadding):
    width = dx.shape[1]
    for i in range(offsets.shape[0] - 1):
        s, e = offsets[i], offsets[i + 1]
        for t in range(s, e):
            for j in range(length):
                k = t + start + j
                base = j * width
                if s <= k < e:
                    for c in range(width):
                        dx[k, c] += dcol[t, base + c]
                elif use_padding:
                    p = up_pad + (k - s) if k < s else up_pad + (k - e)
                    for c in range(width):
                        dpadding[p, c] += dcol[t, base + c]


def context_project(x2: np.ndarray, offsets: np.ndarray, start: int, length: int,
                    padding: np.ndarray | None) -> np.ndarray:
    """col [rows, length * width] (see the module docstring); `padding` None means zero padding."""
    col = np.empty((x2.shape[0], length * x2.shape[1]), x2.dtype)
    use_padding = padding is not None
    pad = np.ascontiguousarray(padding, x2.dtype) if use_padding else np.zeros((1, x2.shape[1]), x2.dtype)
    _context_project(np.ascontiguousarray(x2), offsets, start, length, pad, use_padding, max(0, -start), col)
    return col


def context_project_backward(dcol: np.ndarray, offsets: np.ndarray, start: int, length: int, rows: int,
                             padding_shape: tuple | None) -> tuple[np.ndarray, np.ndarray | None]:
    """(dX [rows, width], dPadding or None) from dcol [rows, length * width]."""
    width = dcol.shape[1] // length
    dx = np.zeros((rows, width), dcol.dtype)
    use_padding = padding_shape is not None
    dpad = np.zeros(padding_shape if use_padding else (1, width), dcol.dtype)
    _context_project_grad(np.ascontiguousarray(dcol), offsets, start, length, use_padding, max(0, -start), dx, dpad)
    return dx, (dpad if use_padding else None)
