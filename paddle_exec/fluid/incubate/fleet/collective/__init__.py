"""fluid.incubate.fleet.collective: `fleet`, `DistributedStrategy`, `CollectiveOptimizer` of Paddle 1.8 (the
implementation is paddle_exec/distributed/fleet/legacy.py)."""
from .....distributed.fleet.legacy import Collective, CollectiveOptimizer, DistributedStrategy, fleet

__all__ = []        # 1.8's __all__ is empty; scripts import fleet, DistributedStrategy, ... by name
