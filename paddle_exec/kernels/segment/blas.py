"""Matrix products for compiled segments: the BLAS numpy loaded, called from numba code and from numpy code alike.

    code = bind()                                 # once, before compiling any segment: finds sgemm / dgemm
    out = matmul(a, b, ta, tb, code)              # numba: a 2-D product, operands transposed when ta / tb
    out = mul(x, y, x_num_col_dims, code)         # Paddle's mul with Y 2-D and X flattened before its last dim
    dx, dy = mul_grad(x, y, dout, xd, need_dx, need_dy, code)
    out = matmul_ref(a, b, ta, tb, code)          # the numpy twins: the same BLAS routine, through ctypes

Why: numba's own `np.dot` needs SciPy's BLAS, which paddle_exec does not depend on, and a matrix product written
as numba loops is several times slower than BLAS at training sizes. numpy's wheels carry OpenBLAS; threadpoolctl
(a dependency) finds the loaded library and the affixes of its symbols (`scipy_cblas_sgemm64_`: 64-bit integers).
`bind` registers the routine's address with LLVM under a fixed name, and numba calls it as an external function,
so compiled code (and numba's on-disk cache of it) refers to it by that name. Both tiers call the very same
routine with the same arguments, so they agree to the bit.

`code` says which routine: ILP64 (64-bit integer arguments), LP64, or LOOPS (numba loops: no OpenBLAS found, or
not a float dtype). It is a literal argument (numba.literally), so each variant is its own compiled function and
numba's cache never mixes them up; the segment rules pass `bind()`'s answer, which also goes into every segment's
cache key.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np
from numba import literally, types
from numba.core.errors import TypingError
from numba.extending import overload

from ..jit import kernel_jit

__all__ = ['bind', 'matmul', 'matmul_ref', 'mul', 'mul_ref', 'mul_grad', 'mul_grad_ref', 'LOOPS', 'ILP64', 'LP64']

_jit = kernel_jit()
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112
LOOPS, ILP64, LP64 = 0, 1, 2
SYMBOLS = {'float32': 'paddle_exec_cblas_sgemm', 'float64': 'paddle_exec_cblas_dgemm'}
GEMV_SYMBOLS = {'float32': 'paddle_exec_cblas_sgemv', 'float64': 'paddle_exec_cblas_dgemv'}
_state = {'code': None, 'sgemm': None, 'dgemm': None, 'sgemv': None, 'dgemv': None}
_lock = threading.Lock()


def _find_openblas():
    """(ctypes library, symbol prefix, symbol suffix) of the OpenBLAS numpy loaded, or None."""
    try:
        from threadpoolctl import ThreadpoolController
        for lc in ThreadpoolController().lib_controllers:
            if lc.internal_api == 'openblas' and hasattr(lc, '_find_affixes'):
                affixes = lc._find_affixes()
                if affixes is not None:
                    return lc.dynlib, affixes[0], affixes[1]
    except Exception:   # noqa: BLE001 - no threadpoolctl or an unreadable library: products become loops
        return None
    return None


def bind() -> int:
    """Finds the BLAS once per process and registers its gemm routines with LLVM; returns ILP64, LP64 or LOOPS."""
    if _state['code'] is not None:
        return _state['code']
    with _lock:
        if _state['code'] is None:
            _state['code'] = _bind()
    return _state['code']


def _bind() -> int:
    found = _find_openblas()
    if found is None:
        return LOOPS
    lib, prefix, suffix = found
    try:
        routines = {name: getattr(lib, '%scblas_%s%s' % (prefix, name, suffix))
                    for name in ('sgemm', 'dgemm', 'sgemv', 'dgemv')}
    except AttributeError:
        return LOOPS
    from llvmlite import binding as llvm
    int64 = suffix in ('64_', '_64')
    it = ctypes.c_int64 if int64 else ctypes.c_int
    p = ctypes.c_void_p
    for name, real in (('sgemm', ctypes.c_float), ('dgemm', ctypes.c_double)):
        routines[name].restype = None
        routines[name].argtypes = [it, it, it, it, it, it, real, p, it, p, it, real, p, it]
    for name, real in (('sgemv', ctypes.c_float), ('dgemv', ctypes.c_double)):
        routines[name].restype = None
        routines[name].argtypes = [it, it, it, it, real, p, it, p, it, real, p, it]
    for dtype, name in (('float32', 's'), ('float64', 'd')):
        llvm.add_symbol(SYMBOLS[dtype], ctypes.cast(routines[name + 'gemm'], p).value)
        llvm.add_symbol(GEMV_SYMBOLS[dtype], ctypes.cast(routines[name + 'gemv'], p).value)
    _state.update(routines)
    return ILP64 if int64 else LP64


# --- numba ----------------------------------------------------------------------------------------------------

def _external(dtype, it):
    return types.ExternalFunction(SYMBOLS[str(dtype)], types.void(
        it, it, it, it, it, it, dtype, types.voidptr, it, types.voidptr, it, dtype, types.voidptr, it))


def _external_gemv(dtype, it):
    return types.ExternalFunction(GEMV_SYMBOLS[str(dtype)], types.void(
        it, it, it, it, dtype, types.voidptr, it, types.voidptr, it, dtype, types.voidptr, it))


_EXTERNAL = {(ILP64, 'float32'): _external(types.float32, types.int64),
             (ILP64, 'float64'): _external(types.float64, types.int64),
             (LP64, 'float32'): _external(types.float32, types.int32),
             (LP64, 'float64'): _external(types.float64, types.int32)}
_EXTERNAL_GEMV = {(ILP64, 'float32'): _external_gemv(types.float32, types.int64),
                  (ILP64, 'float64'): _external_gemv(types.float64, types.int64),
                  (LP64, 'float32'): _external_gemv(types.float32, types.int32),
                  (LP64, 'float64'): _external_gemv(types.float64, types.int32)}


def gemm(code, a, b, ta, tb, out):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


def _gemm_loops(code, a, b, ta, tb, out):
    m = out.shape[0]
    n = out.shape[1]
    k = a.shape[0] if ta else a.shape[1]
    out[:] = 0
    for i in range(m):
        for p in range(k):
            av = a[p, i] if ta else a[i, p]
            if tb:
                for j in range(n):
                    out[i, j] += av * b[j, p]
            else:
                for j in range(n):
                    out[i, j] += av * b[p, j]


@overload(gemm)
def _gemm_impl(code, a, b, ta, tb, out):
    """out = op(a) @ op(b) for C-contiguous 2-D a, b, out of one dtype; `code` a literal (see the docstring).
    A product with one row or one column is a matrix-vector product (gemv), as numpy's matmul makes it."""
    if not isinstance(code, types.IntegerLiteral):
        raise TypingError('gemm: the BLAS code must be a literal')
    key = (code.literal_value, str(getattr(a, 'dtype', None)))
    ext = _EXTERNAL.get(key)
    if ext is None or getattr(b, 'dtype', None) != a.dtype:
        return _gemm_loops
    gemv = _EXTERNAL_GEMV[key]

    def impl(code, a, b, ta, tb, out):
        m = out.shape[0]
        n = out.shape[1]
        k = a.shape[0] if ta else a.shape[1]
        if m == 0 or n == 0:
            return
        if k == 0:
            out[:] = 0
            return
        if m == 1:          # out^T = op(b)^T a^T: b is the matrix
            gemv(ROW_MAJOR, NO_TRANS if tb else TRANS, b.shape[0], b.shape[1], 1.0, b.ctypes.data, b.shape[1],
                 a.ctypes.data, 1, 0.0, out.ctypes.data, 1)
        elif n == 1:        # out = op(a) b: a is the matrix
            gemv(ROW_MAJOR, TRANS if ta else NO_TRANS, a.shape[0], a.shape[1], 1.0, a.ctypes.data, a.shape[1],
                 b.ctypes.data, 1, 0.0, out.ctypes.data, 1)
        else:
            ext(ROW_MAJOR, TRANS if ta else NO_TRANS, TRANS if tb else NO_TRANS, m, n, k, 1.0,
                a.ctypes.data, a.shape[1], b.ctypes.data, b.shape[1], 0.0, out.ctypes.data, n)
    return impl


@_jit
def _product(a, b, ta, tb, code):
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    m = a.shape[1] if ta else a.shape[0]
    k = a.shape[0] if ta else a.shape[1]
    k2 = b.shape[1] if tb else b.shape[0]
    n = b.shape[0] if tb else b.shape[1]
    if k != k2:
        raise ValueError('matmul: the inner dimensions of the operands differ')
    out = np.empty((m, n), a.dtype)
    gemm(code, a, b, ta, tb, out)
    return out


@_jit
def matmul(a, b, ta, tb, code):
    """op(a) @ op(b) of 2-D arrays (op: transpose when ta / tb), a new C-contiguous array."""
    literally(code)
    return _product(a, b, ta, tb, code)


def _rows(x):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_rows)
def _rows_impl(x):
    """x as C-contiguous rows of its last dimension: a C-contiguous 2-D x as it is (a reshape costs ~10% of an
    8 x 64 x 64 product), any other x flattened before its last dimension."""
    if x.ndim == 2 and x.layout == 'C':
        return lambda x: x
    return lambda x: np.ascontiguousarray(x).reshape(-1, x.shape[x.ndim - 1])


def _unrows(out, x):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_unrows)
def _unrows_impl(out, x):
    """The product of `_rows(x)` back in x's leading dimensions (the 2-D product as it is)."""
    if x.ndim == 2:
        return lambda out, x: out
    return lambda out, x: out.reshape(x.shape[:-1] + (out.shape[1],))


@_jit
def mul(x, y, xd, code):
    """Paddle's mul for x_num_col_dims = x.ndim - 1 and a 2-D Y: x's last dim times Y, x's other dims kept."""
    literally(code)
    if xd != x.ndim - 1 or y.ndim != 2:
        raise ValueError('mul: the compiled kernel takes x_num_col_dims = rank(X) - 1 and a 2-D Y')
    return _unrows(_product(_rows(x), y, False, False, code), x)


@_jit
def mul_grad(x, y, dout, xd, need_dx, need_dy, code):
    """(dX, dY) of `mul`; an unwanted one is an empty array of its operand's type."""
    literally(code)
    k = x.shape[x.ndim - 1]
    x2 = np.ascontiguousarray(x).reshape(-1, k)
    d2 = np.ascontiguousarray(dout).reshape(-1, y.shape[1])
    if d2.shape[0] != x2.shape[0]:
        raise ValueError('mul_grad: Out@GRAD does not have the shape of Out')
    dx = _product(d2, y, False, True, code).reshape(x.shape) if need_dx else np.empty(x.shape, x.dtype)[:0]
    dy = _product(x2, d2, True, False, code) if need_dy else np.empty(y.shape, y.dtype)[:0]
    return dx, dy


# --- numpy ----------------------------------------------------------------------------------------------------

def matmul_ref(a, b, ta, tb, code):
    """`matmul` in numpy: the same BLAS routine through ctypes when bound, numpy's matmul otherwise."""
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    m, k = (a.shape[1], a.shape[0]) if ta else (a.shape[0], a.shape[1])
    k2, n = (b.shape[1], b.shape[0]) if tb else (b.shape[0], b.shape[1])
    if k != k2:
        raise ValueError('matmul: the inner dimensions of the operands differ')
    prefix = {np.dtype(np.float32): 's', np.dtype(np.float64): 'd'}.get(a.dtype)
    if code == LOOPS or a.dtype != b.dtype or prefix is None or _state[prefix + 'gemm'] is None:
        return np.ascontiguousarray((a.T if ta else a) @ (b.T if tb else b))
    out = np.empty((m, n), a.dtype)
    if m and n:
        gemm, gemv = _state[prefix + 'gemm'], _state[prefix + 'gemv']
        if k == 0:
            out[:] = 0
        elif m == 1:
            gemv(ROW_MAJOR, NO_TRANS if tb else TRANS, b.shape[0], b.shape[1], 1.0, b.ctypes.data, b.shape[1],
                 a.ctypes.data, 1, 0.0, out.ctypes.data, 1)
        elif n == 1:
            gemv(ROW_MAJOR, TRANS if ta else NO_TRANS, a.shape[0], a.shape[1], 1.0, a.ctypes.data, a.shape[1],
                 b.ctypes.data, 1, 0.0, out.ctypes.data, 1)
        else:
            gemm(ROW_MAJOR, TRANS if ta else NO_TRANS, TRANS if tb else NO_TRANS, m, n, k, 1.0,
                 a.ctypes.data, a.shape[1], b.ctypes.data, b.shape[1], 0.0, out.ctypes.data, n)
    return out


def mul_ref(x, y, xd, code):
    if xd != x.ndim - 1 or y.ndim != 2:
        raise ValueError('mul: the compiled kernel takes x_num_col_dims = rank(X) - 1 and a 2-D Y')
    out = matmul_ref(x.reshape(-1, x.shape[-1]), y, False, False, code)
    return out.reshape(x.shape[:-1] + (y.shape[1],))


def mul_grad_ref(x, y, dout, xd, need_dx, need_dy, code):
    x2 = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
    d2 = np.ascontiguousarray(dout).reshape(-1, y.shape[1])
    dx = matmul_ref(d2, y, False, True, code).reshape(x.shape) if need_dx else np.empty(x.shape, x.dtype)[:0]
    dy = matmul_ref(x2, d2, True, False, code) if need_dy else np.empty(y.shape, y.dtype)[:0]
    return dx, dy
