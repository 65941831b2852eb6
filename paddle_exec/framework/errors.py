"""The error types the IR and the executors raise, defined below everything that raises them.

`EnforceNotMet` is Paddle's core check failure (an invalid LoD, ...).
`EOFException` is Paddle's `fluid.core.EOFException`: raised by `Executor.run` when an in-graph reader (a DataLoader
with iterable=False, a text-line reader) has no more data. Readers (ops/reader.py), the stage runtime and the
DataLoader raise or catch it; `fluid.core` re-exports it under Paddle's name.
"""
from __future__ import annotations

__all__ = ['EOFException', 'EnforceNotMet']


class EOFException(Exception):
    """Raised by `Executor.run` when an in-graph reader (DataLoader with iterable=False) runs out of data."""


class EnforceNotMet(ValueError):
    """Paddle's `fluid.core.EnforceNotMet`: a check inside the core failed (an invalid LoD, a mismatched size).
    A ValueError too, as Paddle 2.x raises its InvalidArgument errors, so either `except` catches it."""
