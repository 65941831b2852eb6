"""fluid.contrib.reader.distributed_reader (Paddle 1.8's module path): distributed_batch_reader shards batches
over trainer processes, which is issue 16's (training across processes); declined until it lands."""
from ...._declined import declined_getattr

__all__ = []

__getattr__ = declined_getattr(__name__)
