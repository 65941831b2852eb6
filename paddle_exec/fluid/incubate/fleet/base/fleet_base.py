"""fluid.incubate.fleet.base.fleet_base: Paddle 1.8's Fleet and DistributedOptimizer bases (collective mode)."""
from .....distributed.fleet.legacy import Collective as Fleet
from .....distributed.fleet.legacy import CollectiveOptimizer as DistributedOptimizer
from .....distributed.fleet.legacy import Mode

__all__ = ['Fleet', 'DistributedOptimizer', 'Mode']
