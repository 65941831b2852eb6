"""fluid.incubate.fleet.base: role makers, Mode and the Fleet base of Paddle 1.8."""
from . import fleet_base, mode, role_maker

__all__ = []        # as 1.8: a package path; its modules hold the names
