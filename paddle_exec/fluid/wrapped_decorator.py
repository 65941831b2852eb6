"""fluid.wrapped_decorator (Paddle 1.8's module path): decorators that keep the wrapped function's signature.

    @signature_safe_contextmanager
    def guard(): ...
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable

__all__ = ['signature_safe_contextmanager', 'wrap_decorator']


def wrap_decorator(decorator_func: Callable) -> Callable:
    """Turns `decorator_func` into a decorator whose result keeps the decorated function's name, docstring and
    signature (1.8 uses the `decorator` package for this; functools.wraps does the same here)."""

    def decorate(func: Callable) -> Callable:
        wrapped = decorator_func(func)

        @functools.wraps(func)
        def __impl__(*args, **kwargs):
            return wrapped(*args, **kwargs)

        return __impl__

    return decorate


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
