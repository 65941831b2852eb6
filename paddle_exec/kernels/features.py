"""Numba loops of fluid 1.8's feature ops (ops/features.py): a focus mask picked per plane, rows hashed.

    similarity_focus(x, axis, indexes)    the 0/1 mask of Paddle's similarity_focus (greedy row/column picks)
    xxh64_rows(rows_u8, num_hash, mod_by) XXH64 of each row's bytes with seeds 0..num_hash-1, mod mod_by
    xxh32(b, seed)                        XXH32 of a uint8 array (the hash of Paddle's pyramid_hash op)

XXH64 is Yann Collet's 64-bit xxHash (the function Paddle's hash op calls), written over uint64 with wrapping
multiplication; every constant is a uint64 so numba never promotes to float. XXH32 is its 32-bit sibling, computed
in uint64 and masked to 32 bits after every multiplication and rotation.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['similarity_focus', 'xxh64_rows', 'xxh32']

_jit = kernel_jit()


@_jit
def _focus_plane(plane, mask_rows, mask_cols):
    """Greedy picks on one [R, C] plane: the largest values first (stable by flat index on ties), skipping a
    value whose row or column is taken, until min(R, C) picks; marks the picked (row, col) pairs."""
    rows, cols = plane.shape
    order = np.argsort(-plane.reshape(-1), kind='mergesort')
    row_used = np.zeros(rows, np.bool_)
    col_used = np.zeros(cols, np.bool_)
    picks = 0
    limit = min(rows, cols)
    for flat in order:
        r, c = flat // cols, flat % cols
        if row_used[r] or col_used[c]:
            continue
        row_used[r] = True
        col_used[c] = True
        mask_rows[picks] = r
        mask_cols[picks] = c
        picks += 1
        if picks == limit:
            break
    return picks


@_jit
def similarity_focus(x, axis, indexes):
    """x [N, D1, D2, D3]; for each index of `indexes`, the plane x[n] at `index` along `axis` picks (row, col)
    pairs, and the output is 1 along `axis` at every picked pair."""
    n_batch, d1, d2, d3 = x.shape
    out = np.zeros_like(x)
    for n in range(n_batch):
        for index in indexes:
            if axis == 1:
                plane = x[n, index, :, :].copy()
            elif axis == 2:
                plane = x[n, :, index, :].copy()
            else:
                plane = x[n, :, :, index].copy()
            limit = min(plane.shape[0], plane.shape[1])
            pr = np.empty(limit, np.int64)
            pc = np.empty(limit, np.int64)
            picks = _focus_plane(plane, pr, pc)
            for p in range(picks):
                r, c = pr[p], pc[p]
                if axis == 1:
                    out[n, :, r, c] = 1
                elif axis == 2:
                    out[n, r, :, c] = 1
                else:
                    out[n, r, c, :] = 1
    return out


_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)


@_jit
def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@_jit
def _read64(b, p):
    v = np.uint64(0)
    for i in range(8):
        v |= np.uint64(b[p + i]) << np.uint64(8 * i)
    return v


@_jit
def _read32(b, p):
    v = np.uint64(0)
    for i in range(4):
        v |= np.uint64(b[p + i]) << np.uint64(8 * i)
    return v


@_jit
def _round(acc, value):
    acc = acc + value * _P2
    acc = _rotl(acc, 31)
    return acc * _P1


@_jit
def _merge_round(acc, value):
    acc ^= _round(np.uint64(0), value)
    return acc * _P1 + _P4


@_jit
def xxh64(b, seed):
    """XXH64 of the bytes `b` (a uint8 array) with `seed`."""
    n = b.shape[0]
    p = 0
    seed = np.uint64(seed)
    if n >= 32:
        v1 = seed + _P1 + _P2
        v2 = seed + _P2
        v3 = seed
        v4 = seed - _P1
        while p <= n - 32:
            v1 = _round(v1, _read64(b, p))
            v2 = _round(v2, _read64(b, p + 8))
            v3 = _round(v3, _read64(b, p + 16))
            v4 = _round(v4, _read64(b, p + 24))
            p += 32
        h = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
        h = _merge_round(h, v1)
        h = _merge_round(h, v2)
        h = _merge_round(h, v3)
        h = _merge_round(h, v4)
    else:
        h = seed + _P5
    h += np.uint64(n)
    while p + 8 <= n:
        h ^= _round(np.uint64(0), _read64(b, p))
        h = _rotl(h, 27) * _P1 + _P4
        p += 8
    if p + 4 <= n:
        h ^= _read32(b, p) * _P1
        h = _rotl(h, 23) * _P2 + _P3
        p += 4
    while p < n:
        h ^= np.uint64(b[p]) * _P5
        h = _rotl(h, 11) * _P1
        p += 1
    h ^= h >> np.uint64(33)
    h *= _P2
    h ^= h >> np.uint64(29)
    h *= _P3
    h ^= h >> np.uint64(32)
    return h


@_jit
def xxh64_rows(rows_u8, num_hash, mod_by):
    """[R, num_hash] uint64: XXH64(row bytes, seed k) % mod_by for k in range(num_hash)."""
    out = np.empty((rows_u8.shape[0], num_hash), np.uint64)
    mod = np.uint64(mod_by)
    for r in range(rows_u8.shape[0]):
        for k in range(num_hash):
            out[r, k] = xxh64(rows_u8[r], k) % mod
    return out


_M32 = np.uint64(0xFFFFFFFF)
_Q1 = np.uint64(2654435761)
_Q2 = np.uint64(2246822519)
_Q3 = np.uint64(3266489917)
_Q4 = np.uint64(668265263)
_Q5 = np.uint64(374761393)


@_jit
def _rotl32(x, r):
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


@_jit
def _round32(acc, lane):
    acc = (acc + lane * _Q2) & _M32
    return (_rotl32(acc, 13) * _Q1) & _M32


@_jit
def xxh32(b, seed):
    """XXH32 of the bytes `b` (a uint8 array) with the 32-bit `seed`, as a uint64 in [0, 2**32)."""
    n = b.shape[0]
    p = 0
    seed = np.uint64(seed) & _M32
    if n >= 16:
        v1 = (seed + _Q1 + _Q2) & _M32
        v2 = (seed + _Q2) & _M32
        v3 = seed
        v4 = (seed + np.uint64(2 ** 32) - _Q1) & _M32
        while p <= n - 16:
            v1 = _round32(v1, _read32(b, p))
            v2 = _round32(v2, _read32(b, p + 4))
            v3 = _round32(v3, _read32(b, p + 8))
            v4 = _round32(v4, _read32(b, p + 12))
            p += 16
        h = (_rotl32(v1, 1) + _rotl32(v2, 7) + _rotl32(v3, 12) + _rotl32(v4, 18)) & _M32
    else:
        h = (seed + _Q5) & _M32
    h = (h + np.uint64(n)) & _M32
    while p + 4 <= n:
        h = (h + _read32(b, p) * _Q3) & _M32
        h = (_rotl32(h, 17) * _Q4) & _M32
        p += 4
    while p < n:
        h = (h + np.uint64(b[p]) * _Q5) & _M32
        h = (_rotl32(h, 11) * _Q1) & _M32
        p += 1
    h ^= h >> np.uint64(15)
    h = (h * _Q2) & _M32
    h ^= h >> np.uint64(13)
    h = (h * _Q3) & _M32
    h ^= h >> np.uint64(16)
    return h
