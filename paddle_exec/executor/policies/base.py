"""What every policy shares: running nodes in a given order, and turning a failure inside an op into an error that
names the op.

`run_in_order(nodes, values)` is the one sequential loop: the sequential policy runs `plan.nodes` with it, the
inline policy its precomputed order, the threaded policy a plan it chose to run in order, the stage producers their
side of the split, and control-flow ops their sub-blocks (through the block runner compile.py hands them).
"""
from __future__ import annotations

import copy

__all__ = ['OpRunError', 'op_failure', 'run_in_order']


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
