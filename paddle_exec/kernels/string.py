"""String kernels: FarmHash Fingerprint64 (numba) and CSV field parsing, for the text pipeline ops.

String tensors are numpy object arrays of Python `str` (VarType.STRINGS). Kernels take them flattened.

- `fingerprint64(strings)`: Google FarmHash's `Fingerprint64` (farmhashna::Hash64, seed-free) of each string's
  UTF-8 bytes, as uint64. It is the hash TensorFlow's `string_to_hash_bucket_fast` uses (`Fingerprint64(s) %
  num_buckets`), so bucket ids match TF's; the value is stable across processes, platforms and versions (unlike
  Python's salted `hash`). Checked against FarmHash's published test vectors (tests/ops/test_reader_ops.py).
  The strings of a batch are packed into one uint8 buffer with offsets, so one numba call hashes the batch
  (nogil: producer threads hash while the main thread computes).
- `split_records(records, delim, n_fields)`: each record split on the one-character delimiter into exactly
  `n_fields` fields, with TF decode_csv's error for a record that has another count.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['fingerprint64', 'hash_buckets', 'pack_utf8', 'split_records']

_jit = kernel_jit()

_K0 = np.uint64(0xc3a5c85c97cb3127)
_K1 = np.uint64(0xb492b66fbe98f273)
_K2 = np.uint64(0x9ae16a3b2f90404f)
_KMUL = np.uint64(0x9ddfea08eb382d69)
_SEED = np.uint64(81)
_U8 = np.uint64(8)
_U47 = np.uint64(47)
_U64 = np.uint64(64)


@_jit
def _fetch64(buf, i):
    v = np.uint64(0)
    for k in range(7, -1, -1):
        v = (v << _U8) | np.uint64(buf[i + k])
    return v


@_jit
def _fetch32(buf, i):
    v = np.uint64(0)
    for k in range(3, -1, -1):
        v = (v << _U8) | np.uint64(buf[i + k])
    return v


@_jit
def _rotate(val, shift):
    s = np.uint64(shift)
    return (val >> s) | (val << (_U64 - s))


@_jit
def _shift_mix(val):
    return val ^ (val >> _U47)


@_jit
def _hash_len16(u, v, mul):
    a = (u ^ v) * mul
    a ^= a >> _U47
    b = (v ^ a) * mul
    b ^= b >> _U47
    return b * mul


@_jit
def _hash_len_0_to_16(buf, s, n):
    if n >= 8:
        mul = _K2 + np.uint64(n) * np.uint64(2)
        a = _fetch64(buf, s) + _K2
        b = _fetch64(buf, s + n - 8)
        c = _rotate(b, 37) * mul + a
        d = (_rotate(a, 25) + b) * mul
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + np.uint64(n) * np.uint64(2)
        a = _fetch32(buf, s)
        return _hash_len16(np.uint64(n) + (a << np.uint64(3)), _fetch32(buf, s + n - 4), mul)
    if n > 0:
        a = np.uint64(buf[s])
        b = np.uint64(buf[s + (n >> 1)])
        c = np.uint64(buf[s + n - 1])
        y = (a + (b << _U8)) & np.uint64(0xffffffff)
        z = (np.uint64(n) + (c << np.uint64(2))) & np.uint64(0xffffffff)
        return _shift_mix((y * _K2) ^ (z * _K0)) * _K2
    return _K2


@_jit
def _hash_len_17_to_32(buf, s, n):
    mul = _K2 + np.uint64(n) * np.uint64(2)
    a = _fetch64(buf, s) * _K1
    b = _fetch64(buf, s + 8)
    c = _fetch64(buf, s + n - 8) * mul
    d = _fetch64(buf, s + n - 16) * _K2
    return _hash_len16(_rotate(a + b, 43) + _rotate(c, 30) + d, a + _rotate(b + _K2, 18) + c, mul)


@_jit
def _hash_len_33_to_64(buf, s, n):
    mul = _K2 + np.uint64(n) * np.uint64(2)
    a = _fetch64(buf, s) * _K2
    b = _fetch64(buf, s + 8)
    c = _fetch64(buf, s + n - 8) * mul
    d = _fetch64(buf, s + n - 16) * _K2
    y = _rotate(a + b, 43) + _rotate(c, 30) + d
    z = _hash_len16(y, a + _rotate(b + _K2, 18) + c, mul)
    e = _fetch64(buf, s + 16) * mul
    f = _fetch64(buf, s + 24)
    g = (y + _fetch64(buf, s + n - 32)) * mul
    h = (z + _fetch64(buf, s + n - 24)) * mul
    return _hash_len16(_rotate(e + f, 43) + _rotate(g, 30) + h, e + _rotate(f + a, 18) + g, mul)


@_jit
def _weak_hash_32(buf, s, a, b):
    """WeakHashLen32WithSeeds over the 32 bytes at s: returns the pair as two values."""
    w = _fetch64(buf, s)
    x = _fetch64(buf, s + 8)
    y = _fetch64(buf, s + 16)
    z = _fetch64(buf, s + 24)
    a += w
    b = _rotate(b + a + z, 21)
    c = a
    a += x
    a += y
    b += _rotate(a, 44)
    return a + z, b + c


@_jit
def _fingerprint(buf, s, n):
    if n <= 32:
        if n <= 16:
            return _hash_len_0_to_16(buf, s, n)
        return _hash_len_17_to_32(buf, s, n)
    if n <= 64:
        return _hash_len_33_to_64(buf, s, n)
    x = _SEED
    y = _SEED * _K1 + np.uint64(113)
    z = _shift_mix(y * _K2 + np.uint64(113)) * _K2
    v0, v1 = np.uint64(0), np.uint64(0)
    w0, w1 = np.uint64(0), np.uint64(0)
    x = x * _K2 + _fetch64(buf, s)
    end = s + ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    p = s
    while True:
        x = _rotate(x + y + v0 + _fetch64(buf, p + 8), 37) * _K1
        y = _rotate(y + v1 + _fetch64(buf, p + 48), 42) * _K1
        x ^= w1
        y += v0 + _fetch64(buf, p + 40)
        z = _rotate(z + w0, 33) * _K1
        v0, v1 = _weak_hash_32(buf, p, v1 * _K1, x + w0)
        w0, w1 = _weak_hash_32(buf, p + 32, z + w1, y + _fetch64(buf, p + 16))
        x, z = z, x
        p += 64
        if p == end:
            break
    mul = _K1 + ((z & np.uint64(0xff)) << np.uint64(1))
    p = last64
    w0 += np.uint64((n - 1) & 63)
    v0 += w0
    w0 += v0
    x = _rotate(x + y + v0 + _fetch64(buf, p + 8), 37) * mul
    y = _rotate(y + v1 + _fetch64(buf, p + 48), 42) * mul
    x ^= w1 * np.uint64(9)
    y += v0 * np.uint64(9) + _fetch64(buf, p + 40)
    z = _rotate(z + w0, 33) * mul
    v0, v1 = _weak_hash_32(buf, p, v1 * mul, x + w0)
    w0, w1 = _weak_hash_32(buf, p + 32, z + w1, y + _fetch64(buf, p + 16))
    x, z = z, x
    return _hash_len16(_hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z, _hash_len16(v1, w1, mul) + x, mul)


@_jit
def _fingerprint_all(buf, offsets):
    n = offsets.size - 1
    out = np.empty(n, np.uint64)
    for i in range(n):
        out[i] = _fingerprint(buf, offsets[i], offsets[i + 1] - offsets[i])
    return out


@_jit
def _buckets(fingerprints, num_buckets):
    out = np.empty(fingerprints.size, np.int64)
    nb = np.uint64(num_buckets)
    for i in range(fingerprints.size):
        out[i] = np.int64(fingerprints[i] % nb)
    return out


def pack_utf8(strings) -> tuple[np.ndarray, np.ndarray]:
    """The UTF-8 bytes of every string in one uint8 buffer, and int64 offsets (len + 1) into it."""
    encoded = [s.encode('utf-8') if isinstance(s, str) else bytes(s) for s in strings]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    if encoded:
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
    buf = np.frombuffer(b''.join(encoded), np.uint8) if offsets[-1] else np.zeros(1, np.uint8)
    return buf, offsets


def fingerprint64(strings) -> np.ndarray:
    """FarmHash Fingerprint64 of each string (str as UTF-8, or bytes), as a flat uint64 array."""
    flat = np.asarray(strings, dtype=object).reshape(-1)
    buf, offsets = pack_utf8(flat)
    return _fingerprint_all(buf, offsets)


def hash_buckets(strings, num_buckets: int) -> np.ndarray:
    """TF's string_to_hash_bucket_fast: Fingerprint64(s) mod num_buckets, int64, in the input's shape."""
    arr = np.asarray(strings, dtype=object)
    return _buckets(fingerprint64(arr), num_buckets).reshape(arr.shape)


def split_records(records, delim: str, n_fields: int) -> list[list[str]]:
    """Each record split on `delim`; a record with another number of fields raises TF's decode_csv error."""
    rows = []
    for r, record in enumerate(records):
        if isinstance(record, bytes):
            record = record.decode('utf-8')
        fields = record.split(delim)
        if len(fields) != n_fields:
            raise ValueError('Expect %d fields but have %d in record %d' % (n_fields, len(fields), r))
        rows.append(fields)
    return rows
