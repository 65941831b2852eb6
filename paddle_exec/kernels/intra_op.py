"""Intra-op parallelism: a kernel splits its work in two, and the executor's pool runs one half beside it.

    fork = current_fork()               # None: this thread runs no parallel run (run everything yourself)
    both(first, second)                 # second() on the pool (or here, when no fork), first() here; then join
    out = matmul_rows(x, y)             # x @ y, row halves on two threads when a fork is set and it pays

Who forks. A parallel policy (executor/policies/threaded.py) sets a fork on each thread that runs the nodes of a
parallel run: its workers for their life, the calling thread for the run. `fork(fn)` queues `fn` for the pool
and returns `join()`, which takes `fn` back and runs it on the caller when no worker has started it yet (so a
fork never waits for a busy pool), else waits for it, and raises what `fn` raised. In-order runs, the other
policies and a user's own numpy never see a fork: there every kernel runs whole, as before.

Same bits. A split never cuts a sum: each output element of a product is the same dot product over K, by the same
BLAS routine (numpy's, which releases the GIL), whichever rows it is computed with. But the order in which BLAS
adds a dot's terms is its kernel's, and OpenBLAS picks kernels by shape: a block of one row is a matrix-vector
product, and blocks of some sizes take other (small-matrix) kernels. Measured with numpy's OpenBLAS 0.3.31 on this
machine: float32 halves gave the whole product's bits at every shape tried (DeepFM's 512 x 429 x 400 and
512 x 400 x 400, 1000 x 300 x 257, 37 x 19 x 65 ...), float64 halves of 1000 x 300 x 257 did not (two elements of
the last column, 1e-14 apart). So halves are kept at ROW_ALIGN-row multiples of at least MIN_ROWS rows, and the
first split product of each shape (dtype, m, k, n, split row) is checked against the whole product: a shape whose
halves differ is never split again (the whole product is returned, there and after). An elementwise update (sparse
Adam's rows) computes every element as the whole update does: no check needed.

What pays: a product of at least MIN_PRODUCT multiply-adds (~0.35 ms on one core; a fork and a join cost ~30-60
us), a table update of at least MIN_UPDATE elements.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ['MIN_PRODUCT', 'MIN_ROWS', 'MIN_UPDATE', 'ROW_ALIGN', 'both', 'current_fork', 'matmul_rows',
           'set_fork', 'split_point']

MIN_PRODUCT = 16 * 1024 * 1024     # multiply-adds (DeepFM's 512 x 400 x 400 product: 82M)
MIN_UPDATE = 256 * 1024            # elements of a table update (DeepFM's 100k x 16 table: 1.6M)
MIN_ROWS = 16
ROW_ALIGN = 16

_local = threading.local()
# (dtype char, m, k, n, split row) -> whether the halves gave the whole product's bits when first checked
_same_bits: dict = {}


def current_fork():
    """This thread's fork (see the module docstring), or None."""
    return getattr(_local, 'fork', None)


def set_fork(fork) -> object:
    """Sets this thread's fork (None: none); returns the one it replaces."""
    previous = getattr(_local, 'fork', None)
    _local.fork = fork
    return previous


def split_point(n: int) -> int:
    """Where n rows split in two halves of ROW_ALIGN multiples of at least MIN_ROWS rows each, or 0 (no split)."""
    h = (n // 2) // ROW_ALIGN * ROW_ALIGN
    return h if h >= MIN_ROWS and n - h >= MIN_ROWS else 0


def both(first, second) -> None:
    """Runs first() and second(), second on the pool when this thread has a fork (see the module docstring)."""
    fork = current_fork()
    if fork is None:
        first()
        second()
        return
    join = fork(second)
    try:
        first()
    finally:
        join()


def matmul_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x @ y for 2-D x, y; computed as two row halves on two threads when this thread has a fork, both operands are
    C-contiguous of one float dtype, and the product is large enough to pay (same bits: module docstring)."""
    fork = current_fork()
    m, k = x.shape
    n = y.shape[1]
    h = split_point(m) if fork is not None and m * k * n >= MIN_PRODUCT else 0
    if (not h or x.dtype != y.dtype or x.dtype.kind != 'f' or x.dtype.itemsize < 4
            or not (x.flags.c_contiguous and y.flags.c_contiguous) or k != y.shape[0]):
        return x @ y
    key = (x.dtype.char, m, k, n, h)
    verdict = _same_bits.get(key)
    if verdict is False:
        return x @ y
    out = np.empty((m, n), x.dtype)
    both(lambda: np.matmul(x[:h], y, out=out[:h]), lambda: np.matmul(x[h:], y, out=out[h:]))
    if verdict is None:                 # the first product of this shape: checked against the whole one
        whole = x @ y
        _same_bits[key] = same = bool(np.array_equal(out, whole, equal_nan=True))
        return out if same else whole
    return out
