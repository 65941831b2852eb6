"""What every policy shares: running nodes in a given order, and turning a failure inside an op into an error that
names the op.

`run_in_order(nodes, values)` is the one sequential loop: the sequential policy runs `plan.nodes` with it, the
inline policy its precomputed order, the threaded policy a plan it chose to run in order, the stage producers their
side of the split, and control-flow ops their sub-blocks (through the block runner compile.py hands them).

Math threads. Paddle 1.8 runs its BLAS on FLAGS_paddle_num_threads threads (default 1; InitDevices calls
SetNumThreads with it, values below 1 meaning 1). Every policy runs a whole run under `math_threads()`: while any
run is in progress the BLAS libraries run on at most that many threads (a process-wide hold, kernels/blas.py
BLAS_THREADS: OpenBLAS has no per-thread setting), and the library's own setting comes back when the last run ends,
so numpy products between runs keep it. Why not every core for each product: on a 2-core machine shared with other
work, an OpenBLAS product on 2 threads waits for a descheduled partner, and its threads spin ~0.1 s after each call,
taking a core from the single-threaded kernels that follow (measured with benchmarks/lod_models.py, the book's
label_semantic_roles network: 2.8 s per training step with 2 BLAS threads, 0.35 s with 1; Paddle 1.8.5 0.6 s).
`FLAGS_paddle_num_threads=2` (environment or set_flags) gives the products 2 threads again; the threaded policy's
workers are held to min(this, cores // threads) (threaded.py).
"""
from __future__ import annotations

import copy

from ...kernels.blas import limited_threads

__all__ = ['MATH_THREADS', 'OpRunError', 'math_threads', 'op_failure', 'run_in_order']


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
    """FLAGS_paddle_num_threads as the policies read it (flags.py sets `n`; see the module docstring)."""
    __slots__ = ('n',)

    def __init__(self, n: int = 1):
        self.n = n


MATH_THREADS = MathThreads()


def math_threads():
    """Context manager: BLAS products on at most FLAGS_paddle_num_threads threads while a run is in progress."""
    return limited_threads(MATH_THREADS.n)
