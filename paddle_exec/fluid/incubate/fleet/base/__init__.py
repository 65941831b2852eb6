"""fluid.incubate.fleet.base: role makers, Mode and the Fleet base of Paddle 1.8."""
from . import fleet_base, mode, role_maker
