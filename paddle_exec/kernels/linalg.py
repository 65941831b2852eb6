"""The one factorisation numpy does not have: LU with partial pivoting (LAPACK's getrf), batched.

`lu_factor(a, piv, info)` overwrites each (m, n) matrix of `a` (a C-contiguous (batch, m, n) array) with its packed
L (unit diagonal, below) and U (on and above the diagonal), writes getrf's 1-based pivots (row i was swapped with
row piv[i] - 1) and info (0, or k + 1 when U[k, k] is exactly zero). The pivot is the first element of largest
magnitude in the column, as LAPACK's idamax picks it, so results match Paddle's (which calls getrf) to rounding.
"""
from __future__ import annotations

from .jit import kernel_jit

__all__ = ['lu_factor']

_jit = kernel_jit(error_model='numpy')


@_jit
def lu_factor(a, piv, info):
    batch, m, n = a.shape
    k_max = min(m, n)
    for b in range(batch):
        info[b] = 0
        for k in range(k_max):
            p = k
            best = abs(a[b, k, k])
            for i in range(k + 1, m):
                v = abs(a[b, i, k])
                if v > best:
                    best = v
                    p = i
            piv[b, k] = p + 1
            if p != k:
                for j in range(n):
                    t = a[b, k, j]
                    a[b, k, j] = a[b, p, j]
                    a[b, p, j] = t
            pivot = a[b, k, k]
            if pivot == 0:
                if info[b] == 0:
                    info[b] = k + 1
                continue
            for i in range(k + 1, m):
                a[b, i, k] /= pivot
            for i in range(k + 1, m):
                f = a[b, i, k]
                if f != 0:
                    for j in range(k + 1, n):
                        a[b, i, j] -= f * a[b, k, j]
