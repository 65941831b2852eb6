"""Matrix products inside numba kernels: `gemm` calls the BLAS numpy itself uses, through a function pointer.

A recurrent kernel (kernels/lstm.py, gru.py) carries its state from one time step to the next; each step is a small
matrix product followed by elementwise gate math. Running the whole recurrence in one numba call needs the products
inside numba; numba's own `np.dot` would need SciPy. So this module finds the CBLAS `?gemm` of the BLAS library
numpy is linked with (threadpoolctl lists the loaded libraries and their paths, numpy's own taken first: SciPy's
wheel, which numba imports, brings a second OpenBLAS that may be listed before it; numpy 2.x wheels bundle OpenBLAS
as `scipy_cblas_sgemm64_`, others export `cblas_sgemm`) and hands its address to the kernels as a plain integer:

    fns = blas_functions()             # int64 array [sgemm address, dgemm address], zeros when none was found
    gemm(fns, False, True, 1.0, a, b, 1.0, c)      # c = 1.0 * a @ b.T + 1.0 * c, inside an njit function

Passing the address as an argument (never a compiled-in constant) keeps the kernels cacheable on disk: the library
lands at another address in the next process. The call goes through `_cblas_gemm`, a numba intrinsic that casts
the integer to a function pointer of CBLAS's row-major signature. Libraries whose symbol ends in `64_` take 64-bit
integers (ILP64), the others 32-bit ones. Each address is checked once against numpy's product on a small matrix
before it is used; an address that fails the check, or none at all, leaves 0, and `gemm` then runs its own loops
(correct, slower). Like every kernel call, the BLAS call runs without the GIL; the executor's thread holds
(below, and docs/architecture.md, Kernels) apply, as it is the same library.

Threads. The products of a recurrence are small (a step's rows times the hidden size) and come one after the
other, hundreds per op call: splitting each over BLAS threads costs more in hand-overs than it gains, and on a
shared machine a busy-waiting BLAS thread can stall every step (measured: dynamic_lstm training 3x slower with
OpenBLAS's 2 threads than with 1 on a loaded 2-core machine). `with one_thread(): ...` holds the products to one
BLAS thread; `with limited_threads(n): ...` to n (an executor holds FLAGS_paddle_num_threads from its first run
until it is closed or collected, executor/policies/base.py `MATH_THREADS`). The hold is process-wide: OpenBLAS's
pthreads build has no thread-local setting (its `openblas_set_num_threads_local` sets the global count), and
threadpoolctl lets only the first thread that set a limit on it set one again, so `BLAS_THREADS` calls the
library's own setter and counts the holds in force, keeps each library at the smallest limit held (never above its
own setting), and gives the library its own setting back when the last hold ends (`replace` moves one hold to
another limit without that moment). Products outside any hold (a user's numpy once every executor is closed) get
the library's default.

Arguments of `gemm(fns, trans_a, trans_b, alpha, a, b, beta, c)`: a, b, c are 2-D arrays of one float dtype
(float32 uses fns[0], float64 fns[1]) whose rows are contiguous (unit stride along the last axis: a C-contiguous
array, or a block of its rows or columns, as BLAS's leading dimension allows); op(a) is a or a.T, op(b) likewise;
c = alpha * op(a) @ op(b) + beta * c.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading

import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

from .jit import kernel_jit

__all__ = ['BLAS_THREADS', 'BlasThreads', 'blas_functions', 'gemm', 'limited_threads', 'one_thread']

_jit = kernel_jit(error_model='numpy')

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_SYMBOLS = ('scipy_cblas_%s64_', 'cblas_%s64_', 'scipy_cblas_%s', 'cblas_%s')


def _cblas_gemm_intrinsic(int_bits: int):
    @intrinsic
    def call(typingctx, addr, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        def codegen(context, builder, signature, args):
            addr_v, ta, tb, m_v, n_v, k_v, alpha_v, a_v, lda_v, b_v, ldb_v, beta_v, c_v, ldc_v = args
            dtype = signature.args[7].dtype
            alpha_v = context.cast(builder, alpha_v, signature.args[6], dtype)
            beta_v = context.cast(builder, beta_v, signature.args[11], dtype)
            float_t = context.get_value_type(signature.args[7].dtype)
            enum_t, int_t = ir.IntType(32), ir.IntType(int_bits)
            ptr_t = float_t.as_pointer()
            fn_t = ir.FunctionType(ir.VoidType(), [enum_t, enum_t, enum_t, int_t, int_t, int_t, float_t, ptr_t,
                                                   int_t, ptr_t, int_t, float_t, ptr_t, int_t])
            fn = builder.inttoptr(addr_v, fn_t.as_pointer())

            def as_int(v):
                return builder.trunc(v, int_t) if int_bits < 64 else v

            def data(v, ty):
                return builder.bitcast(context.make_array(ty)(context, builder, v).data, ptr_t)

            builder.call(fn, [ir.Constant(enum_t, _ROW_MAJOR), builder.trunc(ta, enum_t), builder.trunc(tb, enum_t),
                              as_int(m_v), as_int(n_v), as_int(k_v), alpha_v, data(a_v, signature.args[7]),
                              as_int(lda_v), data(b_v, signature.args[9]), as_int(ldb_v), beta_v,
                              data(c_v, signature.args[12]), as_int(ldc_v)])
            return context.get_dummy_value()

        sig = types.void(types.int64, types.int64, types.int64, types.int64, types.int64, types.int64, types.float64,
                         a, types.int64, b, types.int64, types.float64, c, types.int64)
        return sig, codegen
    return call


_cblas_gemm_64 = _cblas_gemm_intrinsic(64)
_cblas_gemm_32 = _cblas_gemm_intrinsic(32)


@_jit
def _gemm_loops(trans_a, trans_b, alpha, a, b, beta, c):
    m, n = c.shape
    k = a.shape[0] if trans_a else a.shape[1]
    for i in range(m):
        for j in range(n):
            c[i, j] = c[i, j] * beta if beta != 0 else 0.0
    for i in range(m):
        for p in range(k):
            av = alpha * (a[p, i] if trans_a else a[i, p])
            if av == 0:
                continue
            if trans_b:
                for j in range(n):
                    c[i, j] += av * b[j, p]
            else:
                for j in range(n):
                    c[i, j] += av * b[p, j]


@_jit
def gemm(fns, trans_a, trans_b, alpha, a, b, beta, c):
    """c = alpha * op(a) @ op(b) + beta * c (see the module docstring)."""
    m, n = c.shape
    k = a.shape[0] if trans_a else a.shape[1]
    if m == 0 or n == 0:
        return
    if k == 0:
        for i in range(m):
            for j in range(n):
                c[i, j] = c[i, j] * beta if beta != 0 else 0.0
        return
    code = fns[0] if a.itemsize == 4 else fns[1]
    if code == 0:
        _gemm_loops(trans_a, trans_b, alpha, a, b, beta, c)
        return
    ta = _TRANS if trans_a else _NO_TRANS
    tb = _TRANS if trans_b else _NO_TRANS
    al = float(alpha)
    be = float(beta)
    # a dimension of one row may carry any stride: BLAS only needs ld >= the row's length
    lda = max(a.strides[0] // a.itemsize, a.shape[1], 1)
    ldb = max(b.strides[0] // b.itemsize, b.shape[1], 1)
    ldc = max(c.strides[0] // c.itemsize, c.shape[1], 1)
    if fns[2] == 64:
        _cblas_gemm_64(code, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc)
    else:
        _cblas_gemm_32(code, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc)


def _numpy_first(paths: list[str]) -> list[str]:
    """numpy's own BLAS first: other libraries may be loaded before it in the process's list (SciPy wheels bring
    their own OpenBLAS, with its own threads)."""
    here = os.path.dirname(os.path.dirname(np.__file__))
    ours = [p for p in paths if os.path.basename(os.path.dirname(p)) in ('numpy.libs', '.dylibs')
            and os.path.dirname(os.path.dirname(p)) == here]
    return ours + [p for p in paths if p not in ours]


def _library_paths() -> list[str]:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:          # threadpoolctl is a dependency; without it the loops run
        return []
    return _numpy_first([info['filepath'] for info in threadpool_info() if info.get('user_api') == 'blas'])


def _find(kind: str) -> tuple[int, int]:
    """(address, integer bits) of the first `cblas_<kind>` found, (0, 0) when none is."""
    for path in _library_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for pattern in _SYMBOLS:
            name = pattern % kind
            fn = getattr(lib, name, None)
            if fn is not None:
                return ctypes.cast(fn, ctypes.c_void_p).value or 0, 64 if name.endswith('64_') else 32
    return 0, 0


def _works(fns: np.ndarray, dtype) -> bool:
    rng = np.random.RandomState(0)
    a = rng.rand(3, 5).astype(dtype)
    b = rng.rand(4, 5).astype(dtype)
    c = np.ones((3, 4), dtype)
    gemm(fns, False, True, 2.0, a, b, 0.5, c)
    return bool(np.allclose(c, 2.0 * a @ b.T + 0.5, rtol=1e-4))


_state: dict = {}
_lock = threading.Lock()


class _OpenBLASThreads:
    """OpenBLAS's own get/set of its thread count, called directly. threadpoolctl's controller of an OpenBLAS
    without OpenMP lets only the first thread that set a limit set one again (others silently do nothing); the
    executor sets limits from whichever thread runs, under its own lock (BlasThreads)."""
    __slots__ = ('get_num_threads', 'set_num_threads')

    def __init__(self, get_fn, set_fn):
        get_fn.argtypes, get_fn.restype = [], ctypes.c_int
        set_fn.argtypes, set_fn.restype = [ctypes.c_int], None
        self.get_num_threads, self.set_num_threads = get_fn, set_fn


def _direct(lc):
    """`lc` itself, or for an OpenBLAS on its own threads (not OpenMP) its get/set functions called directly."""
    if getattr(lc, 'internal_api', None) != 'openblas' or getattr(lc, 'threading_layer', None) == 'openmp':
        return lc
    try:
        lib = ctypes.CDLL(lc.filepath)
    except OSError:
        return lc
    for prefix in ('', 'scipy_'):
        for suffix in ('', '64_', '_64'):
            get_fn = getattr(lib, '%sopenblas_get_num_threads%s' % (prefix, suffix), None)
            set_fn = getattr(lib, '%sopenblas_set_num_threads%s' % (prefix, suffix), None)
            if get_fn is not None and set_fn is not None:
                return _OpenBLASThreads(get_fn, set_fn)
    return lc


def _controllers() -> list:
    """(path, get/set of its thread count) of each BLAS library loaded in this process (none without
    threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
        return [(lc.filepath, _direct(lc)) for lc in ThreadpoolController().lib_controllers if lc.user_api == 'blas']
    except Exception:  # noqa: BLE001 - no threadpoolctl, or a library it cannot drive: BLAS is left alone
        return []


class BlasThreads:
    """The process-wide hold on the BLAS libraries' thread count (see the module docstring).

    `hold(n)` is a context manager; while holds are in force each library runs on min(held limits, its own
    setting when the first hold began) threads, and its own setting comes back when the last hold ends. Holds
    nest and overlap from any number of threads (a lock orders them); setting a library's count costs ~2 us.
    A library loaded later (SciPy's OpenBLAS, imported by an op on its first run) joins at the next hold: the
    list of libraries is read again whenever the set of imported modules has grown (one len() per hold).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._libs: list = []            # [path, controller, its own setting while holds are in force, or None]
        self._modules_seen = -1
        self._holds: list[int] = []
        self._applied: int | None = None

    def _refresh(self) -> None:
        seen = len(sys.modules)
        if seen == self._modules_seen:
            return
        self._modules_seen = seen
        known = {entry[0] for entry in self._libs}
        for path, lc in _controllers():
            if path in known:
                continue
            entry = [path, lc, None]
            self._libs.append(entry)
            if self._holds:
                entry[2] = lc.get_num_threads()
                if entry[2] is not None and self._applied is not None:
                    lc.set_num_threads(min(self._applied, entry[2]))

    def acquire(self, n: int) -> None:
        n = max(1, int(n))
        with self._lock:
            self._refresh()
            if not self._holds:
                for entry in self._libs:
                    entry[2] = entry[1].get_num_threads()
                self._applied = None
            self._holds.append(n)
            self._apply(min(self._holds))

    def release(self, n: int) -> None:
        n = max(1, int(n))
        with self._lock:
            self._holds.remove(n)
            if self._holds:
                self._apply(min(self._holds))
                return
            for entry in self._libs:
                if entry[2] is not None:
                    entry[1].set_num_threads(entry[2])
                entry[2] = None
            self._applied = None

    def replace(self, old: int, new: int) -> None:
        """One hold of `old` becomes one of `new`, with no moment between them when no hold is in force (the
        libraries' own settings are not restored and read again): a FLAGS_paddle_num_threads change taking effect
        on the executors' hold (executor/policies/base.py)."""
        old, new = max(1, int(old)), max(1, int(new))
        with self._lock:
            self._refresh()
            self._holds.remove(old)
            self._holds.append(new)
            self._apply(min(self._holds))

    def _apply(self, limit: int) -> None:
        if limit == self._applied:
            return
        for _, lc, saved in self._libs:
            if saved is not None:
                lc.set_num_threads(min(limit, saved))
        self._applied = limit

    def holding(self) -> tuple:
        """The limits held now (for tests and reports)."""
        with self._lock:
            return tuple(self._holds)

    def libraries(self) -> list[str]:
        """The paths of the libraries the holds set (for tests and reports)."""
        with self._lock:
            self._refresh()
            return [entry[0] for entry in self._libs]

    def hold(self, n: int) -> '_Hold':
        return _Hold(self, n)


class _Hold:
    __slots__ = ('budget', 'n')

    def __init__(self, budget: BlasThreads, n: int):
        self.budget, self.n = budget, n

    def __enter__(self):
        self.budget.acquire(self.n)
        return self

    def __exit__(self, *exc):
        self.budget.release(self.n)
        return False


BLAS_THREADS = BlasThreads()


def limited_threads(n: int) -> _Hold:
    """Context manager: BLAS products run on at most `n` threads while it is held (process-wide, see above)."""
    return BLAS_THREADS.hold(n)


def one_thread() -> _Hold:
    """Context manager: BLAS products run on one thread while it is held (the recurrent ops' products)."""
    return BLAS_THREADS.hold(1)


def blas_functions() -> np.ndarray:
    """[sgemm address, dgemm address, integer bits] for `gemm`; an address is 0 when no working one was found."""
    fns = _state.get('fns')
    if fns is not None:
        return fns
    with _lock:
        if 'fns' not in _state:
            s_addr, s_bits = _find('sgemm')
            d_addr, d_bits = _find('dgemm')
            if s_bits != d_bits:
                s_addr = d_addr = 0
            fns = np.array([s_addr, d_addr, s_bits or 64], np.int64)
            for k, dtype in ((0, np.float32), (1, np.float64)):
                if fns[k] and not _works(fns, dtype):
                    fns[k] = 0
            fns.flags.writeable = False
            _state['fns'] = fns
    return _state['fns']
