"""fluid.communicator (Paddle 1.8's module path): the parameter-server Communicator of 1.8's async / geo training.

Its names are declined: reaching one raises AttributeError with the reason (paddle_exec/_declined.py,
docs/compatibility.md).
"""
from .._declined import declined_getattr

__all__ = []

__getattr__ = declined_getattr(__name__)
