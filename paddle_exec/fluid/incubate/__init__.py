"""fluid.incubate: Paddle 1.8's incubating APIs; here the collective fleet (incubate/fleet)."""
from . import fleet
