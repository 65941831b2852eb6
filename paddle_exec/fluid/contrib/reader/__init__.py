"""fluid.contrib.reader (Paddle 1.8's module path): distributed_batch_reader is issue 16's (training across
processes) and declined until it lands (paddle_exec/_declined.py)."""
from ...._declined import declined_getattr
from . import distributed_reader

__all__ = []

__getattr__ = declined_getattr(__name__)
