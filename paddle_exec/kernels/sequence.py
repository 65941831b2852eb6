"""Sequence kernels that move rows between sequences: expand, expand_as, concat, pad / unpad, reverse, slice,
enumerate, erase, scatter and mask, with Paddle 1.8's CPU semantics.

Rows are 2-D (`x2`: [rows, width], trailing dimensions flattened); sequence boundaries are int64 offsets (one LoD
level: sequence i is rows offsets[i]:offsets[i+1]). Each kernel is one numba loop over the sequences and returns
the new offsets where the output's LoD changes.

expand        sequence i of x (its rows x_offsets[i]:x_offsets[i+1]; a row when x has no LoD) repeated
              ref[i+1] - ref[i] times; gradient: the repeats' dOut rows summed back
expand_as     row i of x repeated over the rows of sequence i of the reference; gradient: their sum
concat        out sequence i = sequence i of input 0, then of input 1, ...; gradient: the pieces cut back out
pad           [sequences, padded length, ...] with `pad_value` (one value, or one time step) after each sequence;
              unpad the inverse, taking the first length[i] steps of each padded row
reverse       the rows of each sequence in reverse order (its own gradient)
slice         rows offset[i]:offset[i]+length[i] of sequence i; gradient: scattered back, zeros elsewhere
enumerate     out[t, j] = x[t + j] while t + j is in t's sequence, else pad_value (int ids)
erase         the rows whose id is one of `tokens` removed, offsets recomputed (int ids)
scatter       out = x; out[i, ids[j]] += updates[j] for every j in sequence i of ids
mask          y[..., j] = j < x[...] for j < maxlen
`absolute_offsets(lod, level)` maps a level's offsets to row offsets through the levels below it (Paddle's
ToAbsOffset), what sequence_pad and sequence_unpad use for a LoD of several levels.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['absolute_offsets', 'lengths_to_offsets', 'expand_forward', 'expand_backward', 'expand_as_forward',
           'expand_as_backward', 'concat_forward', 'concat_backward', 'pad_forward', 'pad_backward',
           'unpad_forward', 'reverse', 'slice_forward', 'slice_backward', 'enumerate_forward', 'erase_forward',
           'scatter_forward', 'scatter_backward', 'mask_forward']

_jit = kernel_jit(error_model='numpy')


def absolute_offsets(lod: tuple, level: int = 0) -> np.ndarray:
    """Row offsets of the sequences of `level` (Paddle's ToAbsOffset)."""
    offsets = lod[level]
    for below in lod[level + 1:]:
        offsets = below[offsets]
    return offsets


def lengths_to_offsets(lengths: np.ndarray) -> np.ndarray:
    out = np.zeros(lengths.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=out[1:])
    return out


# --- expand ------------------------------------------------------------------------------------------------------

@_jit
def _expand(x, x_offsets, ref, out):
    r = 0
    for i in range(ref.shape[0] - 1):
        s, e = x_offsets[i], x_offsets[i + 1]
        for _ in range(ref[i + 1] - ref[i]):
            for t in range(s, e):
                for c in range(x.shape[1]):
                    out[r, c] = x[t, c]
                r += 1


@_jit
def _expand_grad(dout, x_offsets, ref, dx):
    r = 0
    for i in range(ref.shape[0] - 1):
        s, e = x_offsets[i], x_offsets[i + 1]
        for _ in range(ref[i + 1] - ref[i]):
            for t in range(s, e):
                for c in range(dout.shape[1]):
                    dx[t, c] += dout[r, c]
                r += 1


def _repeat_lengths(x_offsets: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return np.repeat(np.diff(x_offsets), np.diff(ref))


def expand_forward(x2: np.ndarray, x_offsets: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(out rows, out offsets): x's sequences repeated as `ref` says."""
    lengths = _repeat_lengths(x_offsets, ref)
    out = np.empty((int(lengths.sum()), x2.shape[1]), x2.dtype)
    _expand(np.ascontiguousarray(x2), x_offsets, ref, out)
    return out, lengths_to_offsets(lengths)


def expand_backward(dout2: np.ndarray, x_offsets: np.ndarray, ref: np.ndarray, rows: int) -> np.ndarray:
    dx = np.zeros((rows, dout2.shape[1]), dout2.dtype)
    _expand_grad(np.ascontiguousarray(dout2), x_offsets, ref, dx)
    return dx


def expand_as_forward(x2: np.ndarray, ref: np.ndarray) -> np.ndarray:
    return expand_forward(x2, np.arange(x2.shape[0] + 1, dtype=np.int64), ref)[0]


def expand_as_backward(dout2: np.ndarray, ref: np.ndarray, rows: int) -> np.ndarray:
    return expand_backward(dout2, np.arange(rows + 1, dtype=np.int64), ref, rows)


# --- concat ------------------------------------------------------------------------------------------------------

@_jit
def _concat_piece(x, offsets, out_offsets, before, out):
    """Copies each sequence of one input into its place in out: after `before[i]` rows of sequence i."""
    for i in range(offsets.shape[0] - 1):
        dst = out_offsets[i] + before[i]
        for t in range(offsets[i], offsets[i + 1]):
            for c in range(x.shape[1]):
                out[dst, c] = x[t, c]
            dst += 1


@_jit
def _concat_piece_grad(dout, offsets, out_offsets, before, dx):
    for i in range(offsets.shape[0] - 1):
        src = out_offsets[i] + before[i]
        for t in range(offsets[i], offsets[i + 1]):
            for c in range(dx.shape[1]):
                dx[t, c] = dout[src, c]
            src += 1


def _concat_layout(offsets_list: list) -> tuple[np.ndarray, list]:
    lengths = [np.diff(o) for o in offsets_list]
    out_offsets = lengths_to_offsets(np.sum(lengths, axis=0))
    befores, acc = [], np.zeros_like(lengths[0])
    for n in lengths:
        befores.append(acc.copy())
        acc += n
    return out_offsets, befores


def concat_forward(xs2: list, offsets_list: list) -> tuple[np.ndarray, np.ndarray]:
    out_offsets, befores = _concat_layout(offsets_list)
    out = np.empty((int(out_offsets[-1]), xs2[0].shape[1]), xs2[0].dtype)
    for x2, offsets, before in zip(xs2, offsets_list, befores):
        _concat_piece(np.ascontiguousarray(x2, out.dtype), offsets, out_offsets, before, out)
    return out, out_offsets


def concat_backward(dout2: np.ndarray, offsets_list: list, rows_list: list) -> list:
    out_offsets, befores = _concat_layout(offsets_list)
    grads = []
    for offsets, before, rows in zip(offsets_list, befores, rows_list):
        dx = np.empty((rows, dout2.shape[1]), dout2.dtype)
        _concat_piece_grad(np.ascontiguousarray(dout2), offsets, out_offsets, before, dx)
        grads.append(dx)
    return grads


# --- pad / unpad ---------------------------------------------------------------------------------------------------

@_jit
def _pad(x, offsets, pad, padded, out):
    step = x.shape[1]
    for i in range(offsets.shape[0] - 1):
        s, e = offsets[i], offsets[i + 1]
        for t in range(padded):
            for c in range(step):
                if t < e - s:
                    out[i, t * step + c] = x[s + t, c]
                else:
                    out[i, t * step + c] = pad[c % pad.shape[0]]


@_jit
def _unpad(x, offsets, padded, out):
    step = out.shape[1]
    for i in range(offsets.shape[0] - 1):
        s = offsets[i]
        for t in range(offsets[i + 1] - s):
            for c in range(step):
                out[s + t, c] = x[i, t * step + c]


def pad_forward(x2: np.ndarray, offsets: np.ndarray, pad_value: np.ndarray, padded: int) -> np.ndarray:
    """[sequences, padded * width] (reshape to [sequences, padded, ...]); pad_value flat: 1 value or one step."""
    out = np.empty((offsets.shape[0] - 1, padded * x2.shape[1]), x2.dtype)
    _pad(np.ascontiguousarray(x2), offsets, np.ascontiguousarray(pad_value, x2.dtype).reshape(-1), padded, out)
    return out


def pad_backward(dout2: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """dX [rows, width] of sequence_pad: the first length[i] steps of each padded row of dOut."""
    return unpad_forward(dout2, offsets, width)


def unpad_forward(x2: np.ndarray, offsets: np.ndarray, width: int) -> np.ndarray:
    """[rows, width] from x2 [sequences, padded * width] (sequence i's first offsets[i+1]-offsets[i] steps)."""
    out = np.empty((int(offsets[-1]), width), x2.dtype)
    _unpad(np.ascontiguousarray(x2), offsets, x2.shape[1] // max(width, 1), out)
    return out


# --- reverse / slice -----------------------------------------------------------------------------------------------

@_jit
def _reverse(x, offsets, out):
    for i in range(offsets.shape[0] - 1):
        s, e = offsets[i], offsets[i + 1]
        for t in range(s, e):
            for c in range(x.shape[1]):
                out[s + e - 1 - t, c] = x[t, c]


def reverse(x2: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.empty_like(x2)
    _reverse(np.ascontiguousarray(x2), offsets, out)
    return out


@_jit
def _slice(x, offsets, start, length, out_offsets, out):
    for i in range(offsets.shape[0] - 1):
        src = offsets[i] + start[i]
        for t in range(length[i]):
            for c in range(x.shape[1]):
                out[out_offsets[i] + t, c] = x[src + t, c]


@_jit
def _slice_grad(dout, offsets, start, length, out_offsets, dx):
    for i in range(offsets.shape[0] - 1):
        dst = offsets[i] + start[i]
        for t in range(length[i]):
            for c in range(dout.shape[1]):
                dx[dst + t, c] = dout[out_offsets[i] + t, c]


def slice_forward(x2, offsets, start, length) -> tuple[np.ndarray, np.ndarray]:
    out_offsets = lengths_to_offsets(length)
    out = np.empty((int(out_offsets[-1]), x2.shape[1]), x2.dtype)
    _slice(np.ascontiguousarray(x2), offsets, start, length, out_offsets, out)
    return out, out_offsets


def slice_backward(dout2, offsets, start, length, rows: int) -> np.ndarray:
    dx = np.zeros((rows, dout2.shape[1]), dout2.dtype)
    _slice_grad(np.ascontiguousarray(dout2), offsets, start, length, lengths_to_offsets(length), dx)
    return dx


# --- int id sequences: enumerate, erase ----------------------------------------------------------------------------

@_jit
def _enumerate(x, offsets, win, pad_value, out):
    for i in range(offsets.shape[0] - 1):
        s, e = offsets[i], offsets[i + 1]
        for t in range(s, e):
            for j in range(win):
                out[t, j] = x[t + j] if t + j < e else pad_value


def enumerate_forward(x1: np.ndarray, offsets: np.ndarray, win: int, pad_value: int) -> np.ndarray:
    out = np.empty((x1.shape[0], win), x1.dtype)
    _enumerate(np.ascontiguousarray(x1), offsets, win, x1.dtype.type(pad_value), out)
    return out


@_jit
def _erase(x, offsets, tokens, out, out_offsets):
    n = 0
    for i in range(offsets.shape[0] - 1):
        for t in range(offsets[i], offsets[i + 1]):
            keep = True
            for tok in tokens:
                if x[t] == tok:
                    keep = False
                    break
            if keep:
                out[n] = x[t]
                n += 1
        out_offsets[i + 1] = n
    return n


def erase_forward(x1: np.ndarray, offsets: np.ndarray, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out = np.empty_like(x1)
    out_offsets = np.zeros_like(offsets)
    n = _erase(np.ascontiguousarray(x1), offsets, np.asarray(tokens, x1.dtype), out, out_offsets)
    return out[:n], out_offsets


# --- scatter -------------------------------------------------------------------------------------------------------

@_jit
def _scatter(out, ids, updates, offsets):
    for i in range(offsets.shape[0] - 1):
        for j in range(offsets[i], offsets[i + 1]):
            out[i, ids[j]] += updates[j]


@_jit
def _scatter_grad(dout, ids, offsets, dupdates):
    for i in range(offsets.shape[0] - 1):
        for j in range(offsets[i], offsets[i + 1]):
            dupdates[j] = dout[i, ids[j]]


def scatter_forward(x2: np.ndarray, ids: np.ndarray, updates: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    out = np.array(x2, copy=True)
    _scatter(out, np.ascontiguousarray(ids, np.int64).reshape(-1),
             np.ascontiguousarray(updates, x2.dtype).reshape(-1), offsets)
    return out


def scatter_backward(dout2: np.ndarray, ids: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    dupd = np.empty(ids.size, dout2.dtype)
    _scatter_grad(np.ascontiguousarray(dout2), np.ascontiguousarray(ids, np.int64).reshape(-1), offsets, dupd)
    return dupd


# --- mask ----------------------------------------------------------------------------------------------------------

def mask_forward(x: np.ndarray, maxlen: int, dtype) -> np.ndarray:
    return (np.arange(maxlen, dtype=np.int64) < np.asarray(x, np.int64)[..., None]).astype(dtype)
