"""paddle.io.DataLoader over a Dataset, in static mode (Paddle 2.x), and its collate function.

    loader = paddle.io.DataLoader(dataset, feed_list=[x, y], places=paddle.CPUPlace(), batch_size=32,
                                  shuffle=True, drop_last=True, num_workers=2, return_list=False)
    for feed in loader():                 # a list with one {name: LoDTensor} per place
        exe.run(main, feed=feed, fetch_list=[loss])

Batches: a map-style dataset goes through a BatchSampler (made from batch_size / shuffle / drop_last, or given as
batch_sampler); an IterableDataset is read in order and cut every batch_size samples (drop_last drops a short
tail); batch_size=None hands samples through unbatched. Each list of samples becomes a batch by `collate_fn`
(default_collate_fn: arrays stacked on a new axis 0, numbers into an array, dicts and lists field by field).

What one step yields: with return_list=False (feed_list needed), a list of one dict {feed name: LoDTensor} per
place, the places taking consecutive batches (a last group smaller than the places is dropped, as
from_generator's iterable loader does); with return_list=True, the batch's fields as a list of LoDTensors (one
such list per place when there are several places).

num_workers > 0 makes the batches in worker processes (forked; or threads with worker_mode='thread', a
paddle_exec option) and hands them back in order (io/worker.py). The static constructors of fluid's loader
(from_generator, from_dataset) are here too.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..framework.place import CPUPlace
from ..framework.scope import LoDTensor
from ..framework.variable import Variable
from ..static.data_loader import DataLoader as _GeneratorDataLoader
from ..static.data_loader import _convert_places
from .dataset import Dataset, IterableDataset
from .multislot import DatasetBase
from .sampler import BatchSampler
from .worker import WorkerPool

__all__ = ['DataLoader', 'default_collate_fn', 'default_convert_fn', 'fluid_default_collate_fn']


class DatasetLoader:
    """What DataLoader.from_dataset returns: the dataset's batches, one per place per step (a last group smaller
    than the places is dropped), values as LoDTensors."""

    def __init__(self, dataset, places, drop_last: bool = True):
        if not isinstance(dataset, DatasetBase):
            raise TypeError('dataset must be type of DatasetBase (fluid.dataset InMemoryDataset or QueueDataset), '
                            'got %s' % type(dataset).__name__)
        self.dataset = dataset
        self.places = _convert_places(places)
        self.drop_last = drop_last

    def __call__(self):
        return self.__iter__()

    def __iter__(self):
        group = []
        for feed in self.dataset._batches(self.drop_last):
            group.append({n: v if isinstance(v, LoDTensor) else LoDTensor(v) for n, v in feed.items()})
            if len(group) == len(self.places):
                yield group
                group = []


def default_collate_fn(batch):
    """Samples -> a batch, as Paddle's default_collate_fn: arrays stacked on a new axis 0, numbers into an array,
    strings kept as a list, dicts and lists/tuples field by field."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, LoDTensor):
        return np.stack([np.asarray(s.value) for s in batch], axis=0)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        if not all(len(s) == n for s in batch):
            raise RuntimeError('fileds number not same among samples in a batch')
        return [default_collate_fn(fields) for fields in zip(*batch)]
    raise TypeError('batch data con only contains: tensor, numpy.ndarray, dict, list, number, but got {}'
                    .format(type(sample)))


def fluid_default_collate_fn(batch) -> list:
    """Paddle 1.8's default_collate_fn (fluid.io / fluid.reader): a list with one stacked array per field (a
    dataset of single arrays gives a one-element list)."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return [np.stack(batch, axis=0)]
    slots: list[list] = []
    for items in batch:
        for i, item in enumerate(items):
            if len(slots) < len(items):
                slots.append([item])
            else:
                slots[i].append(item)
    outputs = []
    for slot in slots:
        if isinstance(slot[0], (np.ndarray, np.bool_, numbers.Number)):
            outputs.append(np.stack(slot, axis=0))
        elif isinstance(slot[0], LoDTensor):
            outputs.append(np.stack([np.asarray(t.value) for t in slot], axis=0))
        else:
            raise RuntimeError('Unknown data type {}'.format(type(slot[0])))
    return outputs


def default_convert_fn(batch):
    """An unbatched sample as it is (batch_size=None)."""
    return batch


class _MakeBatch:
    """Indices -> collated batch (runs in the workers, so it holds only the dataset and the function)."""

    def __init__(self, dataset, collate_fn):
        self.dataset = dataset
        self.collate_fn = collate_fn

    def __call__(self, indices):
        if isinstance(indices, list):
            return self.collate_fn([self.dataset[i] for i in indices])
        return self.collate_fn(self.dataset[indices])


class _IterableBatches:
    """An IterableDataset's samples cut into collated batches (batch_size None: each sample converted)."""

    def __init__(self, dataset, batch_size, drop_last, collate_fn):
        self.dataset, self.batch_size, self.drop_last, self.collate_fn = dataset, batch_size, drop_last, collate_fn

    def __call__(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        group = []
        for sample in self.dataset:
            group.append(sample)
            if len(group) == self.batch_size:
                yield self.collate_fn(group)
                group = []
        if group and not self.drop_last:
            yield self.collate_fn(group)


class DataLoader:
    """paddle.io.DataLoader: batches of a Dataset for exe.run (see the module docstring)."""

    from_generator = staticmethod(_GeneratorDataLoader.from_generator)

    @staticmethod
    def from_dataset(dataset, places, drop_last: bool = True) -> DatasetLoader:
        """An iterable over a fluid.dataset InMemoryDataset / QueueDataset: each step a list of one feed dict per
        place (io/multislot.py)."""
        return DatasetLoader(dataset, places, drop_last)

    def __init__(self, dataset, feed_list=None, places=None, return_list: bool = True, batch_sampler=None,
                 batch_size: int | None = 1, shuffle: bool = False, drop_last: bool = False, collate_fn=None,
                 num_workers: int = 0, use_buffer_reader: bool = True, prefetch_factor: int = 2,
                 use_shared_memory: bool = True, timeout: float = 0, worker_init_fn=None,
                 persistent_workers: bool = False, *, worker_mode: str = 'process'):
        if not isinstance(dataset, Dataset) and not hasattr(dataset, '__getitem__') \
                and not hasattr(dataset, '__iter__'):
            raise TypeError('dataset should be subclass instance of paddle.io.Dataset, got %s'
                            % type(dataset).__name__)
        self.dataset = dataset
        self.return_list = return_list
        self.feed_list = list(feed_list) if feed_list else None
        if self.feed_list is not None:
            for v in self.feed_list:
                if not isinstance(v, Variable):
                    raise TypeError('DataLoader feed_list must hold Variables, got %s' % type(v).__name__)
        if not return_list and self.feed_list is None:
            raise ValueError('feed_list should be set when return_list=False')
        self.places = _convert_places(places) if places is not None else [CPUPlace()]
        assert isinstance(num_workers, int) and num_workers >= 0, 'num_workers should be a non-negative value'
        assert timeout >= 0, 'timeout should be a non-negative value'
        self.num_workers = num_workers
        self.worker_mode = worker_mode
        self.prefetch_factor = prefetch_factor
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.use_buffer_reader = use_buffer_reader
        self.use_shared_memory = use_shared_memory
        self.persistent_workers = persistent_workers
        self._iterable_dataset = isinstance(dataset, IterableDataset)
        if self._iterable_dataset:
            assert batch_sampler is None, 'batch_sampler is not supported for IterableDataset'
            assert not shuffle, "IterableDataset not support shuffle, but got shuffle={}".format(shuffle)
        if batch_sampler is not None:
            assert batch_size == 1 and not shuffle and not drop_last, \
                'batch_size/shuffle/drop_last should not be set when batch_sampler is given'
            self.batch_sampler, self.batch_size = batch_sampler, None
        elif batch_size is None:
            self.batch_sampler, self.batch_size = None, None
        else:
            assert batch_size > 0, 'batch_size should be None or a positive value when batch_sampler is not given'
            self.batch_size = batch_size
            self.batch_sampler = None if self._iterable_dataset else BatchSampler(
                dataset=dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        self.drop_last = drop_last
        batched = self.batch_sampler is not None or (self._iterable_dataset and self.batch_size is not None)
        self.collate_fn = collate_fn or (default_collate_fn if batched else default_convert_fn)

    def __len__(self) -> int:
        if self._iterable_dataset:
            raise TypeError('DataLoader over an IterableDataset has no length')
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __call__(self):
        return self.__iter__()

    def __iter__(self):
        steps = self._steps(self._batches())
        return steps

    def _batches(self):
        if self._iterable_dataset:
            stream = _IterableBatches(self.dataset, self.batch_size, self.drop_last, self.collate_fn)
            if self.num_workers == 0:
                return stream()
            return self._pool(None, stream).stream_batches()
        index_lists = self.batch_sampler if self.batch_sampler is not None else range(len(self.dataset))
        make = _MakeBatch(self.dataset, self.collate_fn)
        if self.num_workers == 0:
            return (make(list(ix) if not isinstance(ix, (int, np.integer)) else ix) for ix in index_lists)
        return self._pool(make, None).map_batches(list(ix) if not isinstance(ix, (int, np.integer)) else ix
                                                  for ix in index_lists)

    def _pool(self, make, stream) -> WorkerPool:
        return WorkerPool(self.dataset, make, stream, self.num_workers, mode=self.worker_mode,
                          prefetch=self.prefetch_factor, timeout=self.timeout, init_fn=self.worker_init_fn)

    def _fields(self, batch) -> list:
        fields = list(batch) if isinstance(batch, (list, tuple)) else [batch]
        if self.feed_list is not None and len(fields) != len(self.feed_list):
            raise ValueError('DataLoader: a batch has %d fields, but feed_list has %d variables (%s)'
                             % (len(fields), len(self.feed_list), [v.name for v in self.feed_list]))
        return fields

    def _steps(self, batches):
        names = [v.name for v in self.feed_list] if self.feed_list is not None else None
        n_places = len(self.places)
        group = []
        for batch in batches:
            group.append(self._fields(batch))
            if len(group) < n_places:
                continue
            if self.return_list:
                step = [[LoDTensor(np.asarray(f)) for f in fields] for fields in group]
                yield step[0] if n_places == 1 else step
            else:
                yield [{n: LoDTensor(np.asarray(f)) for n, f in zip(names, fields)} for fields in group]
            group = []
