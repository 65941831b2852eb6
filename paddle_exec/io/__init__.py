"""paddle.io (Paddle 2.x's module path): datasets (io/dataset.py), samplers (io/sampler.py), the DataLoader over
them and fluid's generator loader (io/dataloader.py, static/data_loader.py), and get_worker_info (io/worker.py).

    import paddle_exec as paddle
    loader = paddle.io.DataLoader(MyDataset(), feed_list=[x, y], batch_size=32, shuffle=True, return_list=False)
"""
from .dataloader import DataLoader, default_collate_fn
from .dataset import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    DistributedBatchSampler,
    RandomSampler,
    Sampler,
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .worker import get_worker_info

__all__ = ['BatchSampler', 'ChainDataset', 'ComposeDataset', 'ConcatDataset', 'DataLoader', 'Dataset',
           'DistributedBatchSampler', 'IterableDataset', 'RandomSampler', 'Sampler', 'SequenceSampler', 'Subset',
           'SubsetRandomSampler', 'TensorDataset', 'WeightedRandomSampler', 'get_worker_info', 'random_split']
