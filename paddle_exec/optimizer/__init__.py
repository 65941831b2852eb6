"""paddle_exec.optimizer: the 2.x optimizer names and `lr` (the 1.x names live in paddle_exec.fluid.optimizer).

`declined` lists the names of Paddle 2.6's paddle.optimizer that paddle_exec does not provide, with the reason;
reaching one raises AttributeError saying why and what to use instead."""
from . import lr
from .base import Optimizer
from .optimizers import *
from .optimizers import __all__ as _optimizers_all

__all__ = ['Optimizer', 'lr'] + list(_optimizers_all)

declined = {
    'LBFGS': 'paddle.optimizer.LBFGS is dygraph-only in Paddle 2.6: its step(closure) re-evaluates the loss eagerly '
             'several times per step (line search), which a static program cannot express. Use a first-order '
             'optimizer such as paddle.optimizer.Adam.',
}


def __getattr__(name: str):
    if name in declined:
        raise AttributeError('paddle_exec.optimizer.%s is declined: %s' % (name, declined[name]))
    raise AttributeError("module 'paddle_exec.optimizer' has no attribute %r" % name)
