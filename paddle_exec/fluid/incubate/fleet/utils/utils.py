"""fluid.incubate.fleet.utils.utils (Paddle 1.8's module path): the fleet's program tools, declined until
issue 16 (training across processes) lands (paddle_exec/_declined.py says what to use instead)."""
from ....._declined import declined_getattr

__all__ = []

__getattr__ = declined_getattr(__name__)
