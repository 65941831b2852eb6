"""fluid.incubate.fleet.base.mode: the fleet modes of Paddle 1.8."""
from .....distributed.fleet.legacy import Mode

__all__ = ['Mode']
