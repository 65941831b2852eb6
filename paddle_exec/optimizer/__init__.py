"""paddle_exec.optimizer: the 2.x optimizer names and `lr` (the 1.x names live in paddle_exec.fluid.optimizer).

LBFGS (dygraph-only) is declined: reaching it raises AttributeError saying why and what to use instead
(paddle_exec/_declined.py)."""
from .._declined import declined_getattr
from . import lr
from .base import Optimizer
from .optimizers import *
from .optimizers import __all__ as _optimizers_all

__all__ = ['Optimizer', 'lr'] + list(_optimizers_all)

__getattr__ = declined_getattr(__name__)  # LBFGS says why (_declined.py)
