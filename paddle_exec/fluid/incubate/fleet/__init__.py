"""fluid.incubate.fleet: Paddle 1.8's fleet, collective mode only (paddle_exec/distributed/fleet/legacy.py)."""
from . import base, collective

__all__ = []        # as 1.8: a package path; its modules hold the names
