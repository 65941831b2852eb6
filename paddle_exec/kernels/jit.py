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
"""
from __future__ import annotations

import types

import numba

__all__ = ['kernel_jit', 'configure', 'release_gil', 'GIL_ENV_VAR']

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
