"""fluid.transpiler.memory_optimization_transpiler (Paddle 1.8's module path): memory_optimize and release_memory,
deprecated no-ops in 1.8 that only log a warning. paddle_exec frees every value after its last use (the plan's
free lists), which is what they used to do.
"""
from __future__ import annotations

import logging

__all__ = []

_logger = logging.getLogger(__name__)


def memory_optimize(input_program, skip_opt_set=None, print_log: bool = False, level: int = 0,
                    skip_grads: bool = True) -> None:
    """A no-op, as in 1.8 (which logs that it is deprecated)."""
    _logger.warning('Caution! paddle.fluid.memory_optimize() is deprecated and not maintained any more, since it '
                    'is not stable!\nThis API would not take any memory optimizations on your Program now, since '
                    'we have provided default strategies for you.')


def release_memory(input_program, skip_opt_set=None) -> None:
    """A no-op, as in 1.8 (which logs that it is deprecated)."""
    _logger.warning('paddle.fluid.release_memory() is deprecated, it would not take any memory release on your '
                    'program')
