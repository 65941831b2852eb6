"""fluid.device_worker (Paddle 1.8's module path): the device workers (Hogwild, DownpourSGD, Section) of the C++
trainers of exe.train_from_dataset.

Its names are declined: reaching one raises AttributeError with the reason (paddle_exec/_declined.py,
docs/compatibility.md).
"""
from .._declined import declined_getattr

__all__ = []

__getattr__ = declined_getattr(__name__)
