"""paddle.io's samplers (Paddle 2.x): which sample indices, in which order, and how they group into batches.

    SequenceSampler        0, 1, ..., n-1
    RandomSampler          a permutation (or num_samples draws with replacement), numpy's global generator
    SubsetRandomSampler    a permutation of given indices
    WeightedRandomSampler  num_samples draws with probability proportional to the weights
    BatchSampler           lists of batch_size indices from a sampler (or from a dataset, shuffled or not)
    DistributedBatchSampler  this trainer's share of the batches: the indices padded to a multiple of the number
                           of trainers, dealt batch by batch (Paddle's order); rank and count from
                           PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM unless given; set_epoch reseeds the shuffle

Random choices use numpy's global generator (paddle.seed seeds it), so runs repeat under one seed.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..executor.config import trainer_rank_and_count
from .dataset import IterableDataset

__all__ = ['Sampler', 'SequenceSampler', 'RandomSampler', 'SubsetRandomSampler', 'WeightedRandomSampler',
           'BatchSampler', 'DistributedBatchSampler']


class Sampler:
    """Base of the samplers: iterates sample indices of `data_source`."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError

    # __len__ is left to subclasses that know their length (Paddle's base has none)


class SequenceSampler(Sampler):
    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation of the indices, or num_samples draws with replacement; `generator` (an iterator of
    indices) replaces the draws when given."""

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError('expect boolean value for replacement, but got replacement={}'.format(self.replacement))
        if self._num_samples is not None and not replacement:
            raise ValueError('num_samples should not be specified while replacement is False')
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError('num_samples should be a positive integer, but got num_samples={}'
                             .format(self.num_samples))

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
        elif self.replacement:
            yield from np.random.choice(np.arange(n), self.num_samples, replace=True).tolist()
        else:
            yield from np.random.choice(np.arange(n), n, replace=False).tolist()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """A random permutation of `indices`."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError('The length of `indices` in SubsetRandomSampler should be greater than 0.')
        self.indices = list(indices)

    def __iter__(self):
        for i in np.random.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices drawn with probability weights[i] / sum(weights)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True):
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError('num_samples should be a positive integer')
        if not isinstance(replacement, bool):
            raise ValueError('replacement should be a boolean value')
        self.weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        if (self.weights < 0).any() or self.weights.sum() <= 0:
            raise ValueError('weights should be non-negative with a positive sum')
        if not replacement and num_samples > self.weights.size:
            raise ValueError('num_samples should not be greater than the weights length when replacement is False')
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        return iter(np.random.choice(self.weights.size, self.num_samples, replace=self.replacement, p=p).tolist())

    def __len__(self):
        mul = np.prod(self.weights.shape) // self.weights.shape[-1]
        return self.num_samples * int(mul)


class BatchSampler(Sampler):
    """Lists of `batch_size` indices: from `sampler`, or from `dataset` (shuffled when shuffle=True); the last,
    shorter list is dropped when drop_last."""

    def __init__(self, dataset=None, sampler=None, shuffle: bool = False, batch_size: int = 1,
                 drop_last: bool = False):
        if dataset is None:
            assert sampler is not None, 'either dataset or sampler should be set'
            assert isinstance(sampler, (Sampler, Iterable)), \
                'sampler should be either paddle.io.Sampler or Iterable, but got {}'.format(type(sampler))
            assert not shuffle, 'shuffle should be False when sampler is set'
            self.sampler = sampler
        else:
            assert not isinstance(dataset, IterableDataset), 'dataset should not be a paddle.io.IterableDataset'
            assert sampler is None, 'should not set both dataset and sampler'
            assert isinstance(shuffle, bool), 'shuffle should be a boolean value, but got {}'.format(type(shuffle))
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        assert isinstance(batch_size, int) and batch_size > 0, \
            'batch_size should be a positive integer, but got {}'.format(batch_size)
        assert isinstance(drop_last, bool), 'drop_last should be a boolean value, but got {}'.format(type(drop_last))
        self.shuffle = shuffle
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        num_samples = len(self.sampler) + int(not self.drop_last) * (self.batch_size - 1)
        return num_samples // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """This trainer's batches of `dataset` (see the module docstring)."""

    def __init__(self, dataset, batch_size: int, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = False, drop_last: bool = False):
        self.dataset = dataset
        assert isinstance(batch_size, int) and batch_size > 0, 'batch_size should be a positive integer'
        assert isinstance(shuffle, bool), 'shuffle should be a boolean value'
        assert isinstance(drop_last, bool), 'drop_last should be a boolean number'
        self.batch_size = batch_size
        self.shuffle = shuffle
        env_rank, env_count = trainer_rank_and_count()
        if num_replicas is not None:
            assert isinstance(num_replicas, int) and num_replicas > 0, 'num_replicas should be a positive integer'
            self.nranks = num_replicas
        else:
            self.nranks = env_count
        if rank is not None:
            assert isinstance(rank, int) and rank >= 0, 'rank should be a non-negative integer'
            self.local_rank = rank
        else:
            self.local_rank = env_rank
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = int(math.ceil(len(self.dataset) * 1.0 / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def __iter__(self):
        indices = np.arange(len(self.dataset)).tolist()
        indices += indices[:(self.total_size - len(indices))]
        assert len(indices) == self.total_size
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._this_rank(indices)
        assert len(indices) == self.num_samples
        batch = []
        for idx in indices:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if not self.drop_last and batch:
            yield batch

    def _this_rank(self, indices: list) -> list:
        """Batch-sized runs of indices dealt to the ranks in turn; the last partial round split evenly."""
        out = []
        last_batch_size = self.total_size % (self.batch_size * self.nranks)
        assert last_batch_size % self.nranks == 0
        last_local = last_batch_size // self.nranks
        for i in range(self.local_rank * self.batch_size, len(indices) - last_batch_size,
                       self.batch_size * self.nranks):
            out.extend(indices[i:i + self.batch_size])
        tail = indices[len(indices) - last_batch_size:]
        out.extend(tail[self.local_rank * last_local:(self.local_rank + 1) * last_local])
        return out

    def __len__(self):
        num_samples = self.num_samples + int(not self.drop_last) * (self.batch_size - 1)
        return num_samples // self.batch_size

    def set_epoch(self, epoch: int) -> None:
        """The shuffle of the next pass uses `epoch` as its seed (the same on every trainer)."""
        self.epoch = epoch
