"""fluid.incubate.fleet.base.role_maker (Paddle 1.8's module path): Role is here; the role makers are issue 16's
(training across processes) and are declined until it lands (paddle_exec/_declined.py)."""
from ....._declined import declined_getattr

__all__ = ['Role']

__getattr__ = declined_getattr(__name__)


class Role:
    """What a process is in a fleet, as 1.8 numbers it."""
    WORKER = 1
    SERVER = 2
