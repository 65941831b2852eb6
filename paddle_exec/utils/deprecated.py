"""paddle.utils.deprecated: a decorator that marks an API deprecated (Paddle 2.x's levels).

    level 0: only the docstring says so;  level 1: a DeprecationWarning at every call;
    level 2: calling it raises RuntimeError.
"""
from __future__ import annotations

import functools
import warnings
from typing import Callable

__all__ = ['deprecated']


def deprecated(update_to: str = '', since: str = '', reason: str = '', level: int = 0) -> Callable:
    """Marks a function or class deprecated: its docstring gets Paddle's notice; level 1 warns at each call,
    level 2 raises RuntimeError instead of calling it."""
    assert isinstance(update_to, str), 'type of "update_to" must be str.'
    assert isinstance(since, str), 'type of "since" must be str.'
    assert isinstance(reason, str), 'type of "reason" must be str.'
    assert isinstance(level, int) and 0 <= level < 3, (
        'type of "level" must be int and must be one of 0, 1, 2. But received: %s.' % level)

    def decorator(func):
        msg = 'API "%s.%s" is deprecated' % (func.__module__, func.__name__)
        if since.strip():
            msg += ' since %s' % since.strip()
        msg += ', and will be removed in future versions.'
        if update_to.strip():
            assert update_to.strip().startswith('paddle.'), (
                'Argument update_to must start with "paddle.", your value is "%s"' % update_to)
            msg += ' Please use "%s" instead.' % update_to.strip()
        if reason.strip():
            msg += '\nreason: %s' % reason.strip()
        if func.__doc__:
            func.__doc__ = ('\n\nWarning:\n    %s\n\n' % msg) + func.__doc__
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError('API "%s.%s" has been deprecated.' % (func.__module__, func.__name__))
            warnings.warn(msg, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapper

    return decorator
