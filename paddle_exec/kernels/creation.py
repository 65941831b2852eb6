"""Numba kernels of the creation ops (ops/creation.py): eye, linspace and range.

- ``eye(rows, cols)``: ones where ``i == j``.
- ``linspace`` has two algorithms, as Paddle does:
  * Paddle 1.8 (the op without a ``dtype`` attribute): ``step = (stop - start) / (num - 1)`` in the tensor's
    dtype, then ``value += step`` accumulated in that dtype (``linspace(0.1, 1.7, 7)`` ends at 1.6999999 in
    float32);
  * Paddle 2.x (the ``dtype`` attribute set): ``step = double(stop - start) / (num - 1)`` with the subtraction in
    the input dtype; the first half is ``start + step * i``, the second half ``stop - step * (num - 1 - i)``, each
    cast to the output dtype (so the last value is exactly ``stop``, and integer outputs truncate).
- ``range``: ``start, start + step, ...`` accumulated in the output dtype, as Paddle's kernel does
  (``range(0, 1, 0.3, 'float32')`` ends with 0.90000004), size ``ceil(|end - start| / |step|)``.
No framework imports.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = ['eye', 'linspace_v1', 'linspace_v2', 'range_values', 'range_size']

_jit = kernel_jit()


@_jit
def _eye(out):
    for i in range(min(out.shape[0], out.shape[1])):
        out[i, i] = 1


def eye(rows: int, cols: int, dtype) -> np.ndarray:
    """Paddle op ``eye``: a ``rows x cols`` identity of ``dtype``."""
    out = np.zeros((rows, cols), dtype=dtype)
    if out.size:
        _eye(out)
    return out


@_jit
def _linspace_accumulate(start, step, out):
    value = start
    for i in range(out.size):
        out[i] = value
        value += step


@_jit
def _linspace_symmetric(start, stop, step, out):
    n = out.size
    half = n // 2
    for i in range(n):
        if i < half:
            out[i] = start + step * i
        else:
            out[i] = stop - step * (n - 1 - i)


def _count(num) -> int:
    n = int(np.asarray(num).reshape(-1)[0])
    if n <= 0:
        raise ValueError('The num of linspace op should be larger than 0, but received num is %d' % n)
    return n


def linspace_v1(start, stop, num, dtype) -> np.ndarray:
    """Paddle 1.8's ``linspace``: values accumulated in ``dtype`` from ``start`` by ``(stop - start) / (num - 1)``."""
    dtype = np.dtype(dtype)
    n = _count(num)
    start = np.asarray(start, dtype=dtype).reshape(-1)[0]
    stop = np.asarray(stop, dtype=dtype).reshape(-1)[0]
    out = np.empty(n, dtype=dtype)
    if n == 1:
        out[0] = start
        return out
    step = dtype.type((stop - start) / dtype.type(n - 1))
    _linspace_accumulate(start, step, out)
    return out


def linspace_v2(start, stop, num, dtype) -> np.ndarray:
    """Paddle 2.x's ``linspace``: a double step, the two halves computed from their own end, cast to ``dtype``."""
    n = _count(num)
    start = np.asarray(start).astype(dtype).reshape(-1)[0]     # Paddle casts Start and Stop to the output dtype
    stop = np.asarray(stop).astype(dtype).reshape(-1)[0]
    out = np.empty(n, dtype=np.float64)
    if n == 1:
        out[0] = start
    else:
        step = float(stop - start) / (n - 1)    # the subtraction in the inputs' dtype, as Paddle's kernel
        _linspace_symmetric(float(start), float(stop), step, out)
    return out.astype(dtype)


# ----------------------------------------------------------------------------------------------------------------
# range

@_jit
def _range_fill(start, step, out):
    value = start
    for i in range(out.size):
        out[i] = value
        value += step


def range_size(start, end, step, integral: bool) -> int:
    """Paddle's ``GetSize`` of the range op (checks the step's sign like Paddle)."""
    if step == 0:
        raise ValueError('The step of range op should not be 0.')
    if start < end and step < 0:
        raise ValueError('The step should be greater than 0 while start < end.')
    if start > end and step > 0:
        raise ValueError('The step should be less than 0 while start > end.')
    if integral:
        return int((abs(end - start) + abs(step) - 1) // abs(step))
    return int(np.ceil(abs((end - start) / step)))


def range_values(start, end, step, dtype) -> np.ndarray:
    """Paddle op ``range``: ``start, start + step, ...`` (values accumulated in ``dtype``) up to ``end``."""
    dtype = np.dtype(dtype)
    start, end, step = (np.asarray(v, dtype=dtype).reshape(-1)[0] for v in (start, end, step))
    n = range_size(start, end, step, np.issubdtype(dtype, np.integer))
    out = np.empty(n, dtype=dtype)
    _range_fill(start, step, out)
    return out
