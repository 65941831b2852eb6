"""fluid.dataloader.batch_sampler (Paddle 1.8's module path): BatchSampler (paddle_exec/io/sampler.py)."""
from ...io.sampler import BatchSampler

__all__ = ['BatchSampler']
