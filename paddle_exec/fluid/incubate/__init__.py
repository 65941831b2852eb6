"""fluid.incubate: Paddle 1.8's incubating APIs; here the collective fleet (incubate/fleet)."""
from . import fleet

__all__ = []        # as 1.8: a package path; its modules hold the names
