"""fluid.executor (Paddle 1.8's module path): Executor (paddle_exec/executor/), global_scope and scope_guard."""
from ..executor import Executor
from ..framework.scope import global_scope, scope_guard

__all__ = ['Executor', 'global_scope', 'scope_guard']
