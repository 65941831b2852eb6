"""fluid.contrib.reader: `distributed_batch_reader` (distributed_reader.py)."""
from . import distributed_reader
from .distributed_reader import distributed_batch_reader

__all__ = ['distributed_batch_reader']
