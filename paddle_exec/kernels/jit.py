"""How every kernel is compiled: `kernel_jit(**options)` is numba.njit(nogil=..., cache=True, **options).

    _jit = kernel_jit(error_model='numpy')        # at the top of a kernel module
    @_jit
    def _loop(x, out): ...

Kernels release the GIL by default (nogil=True): that is what lets the threaded and cost-model policies run
independent ops of one run at the same time (docs/architecture.md, Kernels).

The other mode, for serving. Releasing and taking back the GIL costs little on its own, but when many threads
call run() at once (the inline policy's use) every kernel call hands the GIL to another thread, and with kernels
of a few microseconds the hand-overs cost more than the kernels: with 8 callers a small model served fewer
requests per second than with one (docs/policies.md, "Serving and the GIL"). Setting the environment variable
PADDLE_EXEC_KERNEL_GIL=hold before paddle_exec is imported compiles every kernel holding the GIL instead: callers
then take turns per op run rather than per kernel call, and the throughput of small models stays level as
callers are added. The cost: ops of one run no longer overlap on the pool (numpy's BLAS products still release
the GIL), so keep the default for training. `release` (the default) and `hold` are the values. The mode is process-wide
(numba fixes nogil per compiled function): executor/config.py, the one module that reads the environment, calls
`configure` once when paddle_exec is imported, before the first kernel module is; kernels import nothing above them.

Both builds share numba's on-disk cache folder. The cache tells functions apart by module, qualified name and
line, not by their flags, so the GIL-holding build is compiled from a copy of each function whose qualified name
ends in `__gil_held`: the two builds never load each other's machine code.

Cache freshness. numba keys a cached function by its own source file only, yet the machine code it saves holds the
functions it calls, often from other kernel modules (the segment kernels call the per-op loops): after an edit of a
callee, numba would go on loading the caller's stale code (a loop compiled under another error model ran 7x
slower that way). So every kernel's cache entry is stamped with `kernel_fingerprint()`, a hash of all of kernels/
(and the numba and numpy versions): `_KernelTreeLocator`, placed first in numba's list of cache locators for files
under kernels/, changes only the stamp; where the cache lives is numba's usual choice (NUMBA_CACHE_DIR or the
__pycache__ folder).
"""
from __future__ import annotations

import functools
import hashlib
import os
import types

import numba
import numpy
from numba.core import caching

__all__ = ['kernel_jit', 'configure', 'release_gil', 'GIL_ENV_VAR', 'kernel_fingerprint']

KERNELS_DIR = os.path.dirname(os.path.abspath(__file__))

GIL_ENV_VAR = 'PADDLE_EXEC_KERNEL_GIL'      # read by executor/config.py, which calls configure()

# the process-wide mode: set once by configure() before any kernel is compiled, never changed afterwards
_mode = {'release_gil': True, 'used': False}


def configure(release_gil: bool) -> None:
    """Sets the GIL mode of every kernel compiled from now on. Changing it once a kernel has been decorated is an
    error: the process would hold kernels of both modes."""
    if _mode['used'] and _mode['release_gil'] != bool(release_gil):
        raise RuntimeError('the kernels\' GIL mode (%s) must be set before the first kernel is compiled: set %s '
                           'before importing paddle_exec' % (GIL_ENV_VAR, GIL_ENV_VAR))
    _mode['release_gil'] = bool(release_gil)


def release_gil() -> bool:
    """Whether kernels release the GIL (the default) or hold it (PADDLE_EXEC_KERNEL_GIL=hold)."""
    return _mode['release_gil']


def _held_copy(fn):
    """`fn` under another qualified name (see the module docstring: separate cache files)."""
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__ + '__gil_held'
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return copy


def kernel_jit(**options):
    """A decorator compiling a kernel with numba (cached; nogil unless PADDLE_EXEC_KERNEL_GIL=hold)."""
    def compile_kernel(fn):
        _mode['used'] = True
        if _mode['release_gil']:
            return numba.njit(nogil=True, cache=True, **options)(fn)
        return numba.njit(nogil=False, cache=True, **options)(_held_copy(fn))
    return compile_kernel


# --- cache freshness (see the module docstring) ------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def kernel_fingerprint() -> str:
    """A hash of every source file under kernels/ and of the numba and numpy versions."""
    digest = hashlib.sha256(('numba %s numpy %s' % (numba.__version__, numpy.__version__)).encode())
    for folder, dirs, files in sorted(os.walk(KERNELS_DIR)):
        dirs.sort()
        for name in sorted(files):
            if name.endswith('.py'):
                with open(os.path.join(folder, name), 'rb') as f:
                    digest.update(os.path.relpath(os.path.join(folder, name), KERNELS_DIR).encode() + b'\0' + f.read())
    return digest.hexdigest()


def _standard_locators() -> list:
    names = ('UserProvidedCacheLocator', 'InTreeCacheLocator', 'UserWideCacheLocator')
    return [c for c in (getattr(caching, n, None) or getattr(caching, '_' + n, None) for n in names) if c is not None]


class _KernelTreeLocator:
    """numba's usual locator for a kernel file, with the whole kernel tree's fingerprint as the source stamp."""

    def __init__(self, inner):
        self._inner = inner

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.abspath(py_file).startswith(KERNELS_DIR + os.sep):
            return None
        for locator in _standard_locators():
            inner = locator.from_function(py_func, py_file)
            if inner is not None:
                return cls(inner)
        return None

    def ensure_cache_path(self):
        self._inner.ensure_cache_path()

    def get_cache_path(self):
        return self._inner.get_cache_path()

    def get_source_stamp(self):
        return ('paddle_exec kernels', kernel_fingerprint())

    def get_disambiguator(self):
        return self._inner.get_disambiguator()


def _install_locator() -> None:
    impl = getattr(caching, 'CacheImpl', None) or getattr(caching, '_CacheImpl', None)
    if impl is not None and _KernelTreeLocator not in impl._locator_classes:
        impl._locator_classes = [_KernelTreeLocator] + list(impl._locator_classes)


_install_locator()
