"""fluid.default_scope_funcs (Paddle 1.8's module path): a thread-local stack of scopes.

Each thread starts with one fresh Scope; enter_local_scope pushes a kid of the current scope, leave_local_scope
pops it and drops the kids of the scope below; var / find_var act on the current scope:

    enter_local_scope()
    var('x').get_tensor().set(np.ones(3), fluid.CPUPlace())
    leave_local_scope()
"""
from __future__ import annotations

import threading
from typing import Callable

from ..framework.scope import Scope, ScopeVar

__all__ = ['get_cur_scope', 'enter_local_scope', 'leave_local_scope', 'var', 'find_var', 'scoped_function']

_local = threading.local()


def get_cur_scope() -> Scope:
    """The current scope of this thread (a new Scope the first time)."""
    stack = getattr(_local, 'cur_scope', None)
    if stack is None:
        stack = _local.cur_scope = []
    if not stack:
        stack.append(Scope())
    return stack[-1]


def enter_local_scope() -> None:
    """Pushes a kid of the current scope."""
    kid = get_cur_scope().new_scope()
    _local.cur_scope.append(kid)


def leave_local_scope() -> None:
    """Pops the current scope and drops the kids of the one below it."""
    _local.cur_scope.pop()
    get_cur_scope().drop_kids()


def var(name: str) -> ScopeVar:
    """The variable `name` of the current scope, created if missing."""
    return get_cur_scope().var(name)


def find_var(name: str) -> ScopeVar | None:
    """The variable `name` in the current scope or its ancestors, None if none has it."""
    return get_cur_scope().find_var(name)


def scoped_function(func: Callable[[], object]) -> None:
    """Calls func() inside a local scope, leaving it even when func raises."""
    enter_local_scope()
    try:
        func()
    finally:
        leave_local_scope()
