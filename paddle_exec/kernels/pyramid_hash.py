"""Numba loops of fluid 1.8's pyramid_hash op (ops/pyramid_hash.py), following Paddle 1.8.5's CPU kernel.

    rand_r(state)                      glibc's rand_r: (value in [0, 2**31), next state); Paddle draws its drop-out
                                       with it, so the same seed drops the same n-grams
    murmur3_x64_128(b, seed)           (h1, h2) of Paddle's bloom filter (math/bloomfilter.cc)
    bloom_get(filter_u8, b)            1 when every bit of `b`'s k hashes is set in the filter bytes (Paddle's
                                       struct: uint64 magic, m, k, count, then m/8 bytes of bits, high bit first)
    pyramid_flags(...)                 DropPos: one 0/1 flag per n-gram window (n = 2..pyramid_layer, each start),
                                       and per sequence the count of kept windows
    pyramid_forward(...)               Out rows: each kept window's num_emb values, rand_len at a time from W at
                                       XXH32(window bytes, seed j) % space_len; a sequence with none kept: zeros
    pyramid_backward(...)              W -= lr * Out@GRAD at the same places, window after window (Paddle's grad
                                       kernel updates the weights itself)

The windows hash the bytes of the ids as float32 (Paddle's X_Temp_Out buffer), len * 4 bytes.
"""
from __future__ import annotations

import numpy as np

from .features import xxh32
from .jit import kernel_jit

__all__ = ['rand_r', 'murmur3_x64_128', 'bloom_get', 'pyramid_flags', 'pyramid_forward', 'pyramid_backward']

_jit = kernel_jit()

_M32 = np.uint64(0xFFFFFFFF)
_RAND_A = np.uint64(1103515245)
_RAND_C = np.uint64(12345)


@_jit
def rand_r(state):
    """glibc's rand_r on the uint32 `state`: (result, next state)."""
    nxt = np.uint64(state) & _M32
    nxt = (nxt * _RAND_A + _RAND_C) & _M32
    result = (nxt >> np.uint64(16)) % np.uint64(2048)
    nxt = (nxt * _RAND_A + _RAND_C) & _M32
    result = (result << np.uint64(10)) ^ ((nxt >> np.uint64(16)) % np.uint64(1024))
    nxt = (nxt * _RAND_A + _RAND_C) & _M32
    result = (result << np.uint64(10)) ^ ((nxt >> np.uint64(16)) % np.uint64(1024))
    return result, nxt


_C1 = np.uint64(0x87C37B91114253D5)
_C2 = np.uint64(0x4CF5AD432745937F)


@_jit
def _rotl64(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@_jit
def _fmix64(k):
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xFF51AFD7ED558CCD)
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xC4CEB9FE1A85EC53)
    k ^= k >> np.uint64(33)
    return k


@_jit
def _le64(b, p, count):
    v = np.uint64(0)
    for i in range(count):
        v |= np.uint64(b[p + i]) << np.uint64(8 * i)
    return v


@_jit
def murmur3_x64_128(b, seed):
    """MurmurHash3 x64 128 of the bytes `b` with the 32-bit `seed`: (h1, h2)."""
    n = b.shape[0]
    h1 = np.uint64(seed)
    h2 = np.uint64(seed)
    nblocks = n // 16
    for i in range(nblocks):
        k1 = _le64(b, 16 * i, 8)
        k2 = _le64(b, 16 * i + 8, 8)
        k1 = _rotl64(k1 * _C1, 31) * _C2
        h1 ^= k1
        h1 = _rotl64(h1, 27) + h2
        h1 = h1 * np.uint64(5) + np.uint64(0x52DCE729)
        k2 = _rotl64(k2 * _C2, 33) * _C1
        h2 ^= k2
        h2 = _rotl64(h2, 31) + h1
        h2 = h2 * np.uint64(5) + np.uint64(0x38495AB5)
    tail = 16 * nblocks
    rest = n & 15
    if rest > 8:
        k2 = _le64(b, tail + 8, rest - 8)
        h2 ^= _rotl64(k2 * _C2, 33) * _C1
    if rest > 0:
        k1 = _le64(b, tail, min(rest, 8))
        h1 ^= _rotl64(k1 * _C1, 31) * _C2
    h1 ^= np.uint64(n)
    h2 ^= np.uint64(n)
    h1 += h2
    h2 += h1
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 += h2
    h2 += h1
    return h1, h2


@_jit
def _bit(filter_u8, n):
    return (filter_u8[32 + (n >> np.uint64(3))] >> (np.uint64(7) - (n & np.uint64(7)))) & np.uint8(1)


@_jit
def bloom_get(filter_u8, b):
    """Paddle's bloomfilter_get: 1 when all 2k bits of `b` are set, else 0."""
    m = _le64(filter_u8, 8, 8)
    k = _le64(filter_u8, 16, 8)
    for i in range(k):
        h1, h2 = murmur3_x64_128(b, i)
        if _bit(filter_u8, h1 % m) == 0 or _bit(filter_u8, h2 % m) == 0:
            return 0
    return 1


@_jit
def pyramid_flags(ids_u8, offsets, white, black, use_white, use_black, pyramid_layer, is_training, seed, drop,
                  capacity):
    """(flags int32 [capacity], per-sequence count of kept windows int64 [S]). The windows of a sequence of w >= 2
    ids: for n = 2..min(pyramid_layer, w), every start l < w - n + 1; each is dropped when a filter rejects it, or
    in training when rand_r(seed) / RAND_MAX < drop (one draw per window the filters pass, across the batch)."""
    flags = np.zeros(capacity, np.int32)
    kept = np.zeros(offsets.shape[0] - 1, np.int64)
    state = np.uint64(seed) & _M32
    rand_max = np.float32(2147483647)
    drop32 = np.float32(drop)
    pos = 0
    for s in range(offsets.shape[0] - 1):
        start = offsets[s]
        w = offsets[s + 1] - start
        if w < 2:
            continue
        count = 0
        ilayer = 1
        while ilayer < pyramid_layer and ilayer < w:
            for l in range(w - ilayer):
                window = ids_u8[4 * (start + l):4 * (start + l + ilayer + 1)]
                use = True
                if use_white and bloom_get(white, window) != 1:
                    use = False
                if use and use_black and bloom_get(black, window) != 0:
                    use = False
                flag = 0
                if use:
                    flag = 1
                    if is_training:
                        value, state = rand_r(state)
                        if np.float32(value) / rand_max < drop32:
                            flag = 0
                flags[pos] = flag
                count += flag
                pos += 1
            ilayer += 1
        kept[s] = count
    return flags, kept


@_jit
def pyramid_forward(ids_u8, offsets, flags, kept, weights, num_emb, rand_len, space_len, pyramid_layer):
    """Out [rows, num_emb]: one row per kept window (a zero row for a sequence without any), in window order."""
    rows = 0
    for s in range(kept.shape[0]):
        rows += kept[s] if kept[s] > 0 else 1
    out = np.zeros((rows, num_emb), weights.dtype)
    row = 0
    pos = 0
    space = np.uint64(space_len)
    for s in range(kept.shape[0]):
        start = offsets[s]
        w = offsets[s + 1] - start
        if kept[s] == 0:
            row += 1
        ilayer = 1
        while w >= 2 and ilayer < pyramid_layer and ilayer < w:
            for l in range(w - ilayer):
                if flags[pos] != 0:
                    window = ids_u8[4 * (start + l):4 * (start + l + ilayer + 1)]
                    for j in range(0, num_emb, rand_len):
                        at = xxh32(window, j) % space
                        out[row, j:j + rand_len] = weights[at:at + rand_len]
                    row += 1
                pos += 1
            ilayer += 1
    return out


@_jit
def pyramid_backward(ids_u8, offsets, flags, kept, weights, dout, mlr, num_emb, rand_len, space_len, pyramid_layer):
    """weights[place:place + rand_len] += mlr * dout rows (mlr = -lr in weights' dtype), in place, in the order
    Paddle's grad kernel adds them."""
    space = np.uint64(space_len)
    row = 0
    pos = 0
    for s in range(kept.shape[0]):
        start = offsets[s]
        w = offsets[s + 1] - start
        if kept[s] == 0:
            row += 1
        ilayer = 1
        while w > 1 and ilayer < pyramid_layer and ilayer < w:
            for l in range(w - ilayer):
                if flags[pos] != 0:
                    window = ids_u8[4 * (start + l):4 * (start + l + ilayer + 1)]
                    for j in range(0, num_emb, rand_len):
                        at = xxh32(window, j) % space
                        for t in range(rand_len):
                            weights[at + t] += mlr * dout[row, j + t]
                    row += 1
                pos += 1
            ilayer += 1
