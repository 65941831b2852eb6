"""fluid.dataloader (Paddle 1.8's module path): Dataset and BatchSampler, the same classes as paddle.io's."""
from . import batch_sampler, dataloader_iter, dataset
from .batch_sampler import BatchSampler
from .dataset import Dataset

__all__ = ['BatchSampler', 'Dataset']
