"""fluid.install_check (Paddle 1.8's module path): run_check, the same check as paddle.utils.run_check."""
from ..utils.install_check import run_check

__all__ = ['run_check']
