"""fluid.backward (Paddle 1.8's module path): append_backward and gradients (paddle_exec/backward.py); calc_gradient
is a module attribute there too."""
from ..backward import append_backward, calc_gradient, gradients  # noqa: F401  (calc_gradient: outside __all__)

__all__ = ['append_backward', 'gradients']
