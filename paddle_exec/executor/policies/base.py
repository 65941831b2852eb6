"""What every policy shares: running nodes in a given order, and turning a failure inside an op into an error that
names the op.

`run_in_order(nodes, values)` is the one sequential loop: the sequential policy runs `plan.nodes` with it, the
inline policy its precomputed order, the threaded policy a plan it chose to run in order, the stage producers their
side of the split, and control-flow ops their sub-blocks (through the block runner compile.py hands them).

Math threads. Paddle 1.8 runs its BLAS on FLAGS_paddle_num_threads threads (default 1; InitDevices calls
SetNumThreads with it once, values below 1 meaning 1). Here an executor takes that setting at its first run and
keeps it for its life: `MATH_THREADS.join()` gives its Runner a lease on one process-wide hold (kernels/blas.py
BLAS_THREADS: OpenBLAS has no per-thread setting), shared by every executor alive, and the lease ends when the
executor is closed or garbage-collected (weakref.finalize); when the last lease ends the libraries get their own
setting back, so a user's numpy products after the executors are gone run as numpy would. A run pays only the
check that the hold is at the flag's value (`MATH_THREADS.held == MATH_THREADS.n`); a FLAGS_paddle_num_threads
change is applied to the hold by the next run of any executor (`sync`). Taking the hold per run cost 2.7 us
(OpenBLAS's set and restore), a third of a fit-a-line step, and the lean one-node path (recipes.py) skipped it.
`math_threads()` is what a policy wraps a run in: nothing when the executors' hold is in force at the flag's value
(every run from an executor), else a hold for the run (a policy driven without an executor).

Why not every core for each product: on a 2-core machine shared with other
work, an OpenBLAS product on 2 threads waits for a descheduled partner, and its threads spin ~0.1 s after each call,
taking a core from the single-threaded kernels that follow (measured with benchmarks/lod_models.py, the book's
label_semantic_roles network: 2.8 s per training step with 2 BLAS threads, 0.35 s with 1; Paddle 1.8.5 0.6 s).
`FLAGS_paddle_num_threads=2` (environment or set_flags) gives the products 2 threads again; the threaded policy's
workers are held to min(this, cores // threads) (threaded.py) while it hands work to them.
"""
from __future__ import annotations

import contextlib
import copy
import threading

from ...kernels.blas import BLAS_THREADS, limited_threads

__all__ = ['MATH_THREADS', 'Lease', 'OpRunError', 'math_threads', 'op_failure', 'run_in_order']


class OpRunError(RuntimeError):
    """Raised when an op fails with an exception that cannot carry the op's name; the original is its cause."""


def op_failure(node, exc: BaseException) -> BaseException:
    """`exc` with a message that names the op and its variables: a copy of the same type with the same attributes
    (errno, filename, a custom exception's fields), or an OpRunError when the type cannot hold the message. The
    original stays the copy's `__cause__` (`raise op_failure(node, exc) from exc`). An exception already naming an
    op (raised inside a sub-block) is returned as it is."""
    if getattr(exc, '_paddle_exec_op', None) is not None:
        return exc
    message = 'Error while running %s: %s: %s' % (node.describe(), type(exc).__name__, exc)
    try:
        wrapped = copy.copy(exc)
        if isinstance(exc, OSError) and exc.strerror:       # OSError prints errno, strerror and filename
            wrapped.strerror = 'Error while running %s: %s' % (node.describe(), exc.strerror)
        else:
            wrapped.args = (message,)
        if 'Error while running' not in str(wrapped):
            raise TypeError
        wrapped._paddle_exec_op = node
    except Exception:  # noqa: BLE001 - any type that cannot be copied or re-messaged falls back
        wrapped = OpRunError(message)
        wrapped._paddle_exec_op = node
    return wrapped


def run_in_order(nodes, values: list) -> None:
    """Runs `nodes` one after another on the caller's thread; the first failure is raised naming its op."""
    node = None
    try:
        for node in nodes:
            node.step(values)
    except Exception as exc:
        raise op_failure(node, exc) from exc


class MathThreads:
    """FLAGS_paddle_num_threads (flags.py sets `n`) and the executors' one hold of it (see the module docstring).

    held      the limit BLAS_THREADS holds for the executors now; 0 while no executor holds a lease
    leases    how many leases are in force (executors that ran and are neither closed nor collected)
    """
    __slots__ = ('n', 'held', 'leases', '_lock')

    def __init__(self, n: int = 1):
        self.n = n
        self.held = 0
        self.leases = 0
        self._lock = threading.Lock()

    def join(self) -> 'Lease':
        """A lease on the hold at the flag's value (taken now if no executor holds one yet)."""
        with self._lock:
            if not self.leases:
                self.held = self.n
                BLAS_THREADS.acquire(self.held)
            self.leases += 1
            self._sync()
        return Lease(self)

    def sync(self) -> None:
        """The hold moved to the flag's value, if it is not there (a run's check found `held != n`)."""
        with self._lock:
            self._sync()

    def _sync(self) -> None:
        n = self.n
        if self.leases and self.held != n:
            BLAS_THREADS.replace(self.held, n)
            self.held = n

    def _leave(self) -> None:
        with self._lock:
            self.leases -= 1
            if not self.leases:
                BLAS_THREADS.release(self.held)
                self.held = 0


class Lease:
    """One executor's share of a process-wide hold (this module's MathThreads, switch_interval.py's): `release()`
    ends it (once: later calls do nothing) by calling the hold's `_leave()`."""
    __slots__ = ('_owner', '__weakref__')

    def __init__(self, owner):
        self._owner = owner

    def release(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None:
            owner._leave()


_HELD = contextlib.nullcontext()         # a run the executors' hold already covers: nothing to take or give back
MATH_THREADS = MathThreads()


def math_threads():
    """Context manager: BLAS products on at most FLAGS_paddle_num_threads threads for a run (see the module
    docstring: nothing to do when the executors' hold is in force at the flag's value)."""
    n = MATH_THREADS.n
    if MATH_THREADS.held == n:
        return _HELD
    return limited_threads(n)
