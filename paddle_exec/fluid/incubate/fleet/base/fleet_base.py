"""fluid.incubate.fleet.base.fleet_base (Paddle 1.8's module path): Mode is here; Fleet and DistributedOptimizer
are issue 16's (training across processes) and are declined until it lands (paddle_exec/_declined.py)."""
from ....._declined import declined_getattr
from .mode import Mode

__all__ = ['Mode']

__getattr__ = declined_getattr(__name__)
