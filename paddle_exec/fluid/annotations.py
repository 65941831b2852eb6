"""fluid.annotations (Paddle 1.8's module path): the `deprecated` decorator of 1.8's APIs.

    @deprecated(since='1.6', instead='fluid.layers.foo')
    def old_foo(...): ...     # each call prints "API old_foo is deprecated since 1.6. Please use ... instead."
"""
from __future__ import annotations

import functools
import sys
from typing import Callable

__all__ = ['deprecated']


def deprecated(since: str, instead: str, extra_message: str = '') -> Callable:
    """A decorator that prints 1.8's deprecation message on stderr at every call and appends it to the
    docstring."""

    def decorator(func: Callable) -> Callable:
        err_msg = 'API {0} is deprecated since {1}. Please use {2} instead.'.format(func.__name__, since, instead)
        if extra_message:
            err_msg += '\n' + extra_message

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            print(err_msg, file=sys.stderr)
            return func(*args, **kwargs)

        wrapper.__doc__ = (wrapper.__doc__ or '') + '\n    ' + err_msg
        return wrapper

    return decorator
