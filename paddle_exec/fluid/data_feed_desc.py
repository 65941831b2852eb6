"""fluid.data_feed_desc (Paddle 1.8's module path): DataFeedDesc, the protobuf description of the C++ data feed of
exe.train_from_dataset.

Its names are declined: reaching one raises AttributeError with the reason (paddle_exec/_declined.py,
docs/compatibility.md).
"""
from .._declined import declined_getattr

__all__ = []

__getattr__ = declined_getattr(__name__)
