"""paddle.io's datasets (Paddle 2.x): map-style (`__getitem__` + `__len__`) and iterable (`__iter__`) sources of
samples, and the ways of combining them.

    Dataset          map-style base: dataset[i] is sample i, len(dataset) the count
    IterableDataset  iterable base: iter(dataset) yields samples (for streams; shard with get_worker_info())
    TensorDataset    rows of arrays of equal length: sample i = (t[i] for each array)
    ComposeDataset   map-style datasets side by side: sample i = the fields of each dataset's sample i, in order
    ChainDataset     iterable datasets one after the other
    ConcatDataset    map-style datasets one after the other
    Subset           the samples at some indices of a dataset
    random_split     disjoint random Subsets of given lengths (or fractions summing to 1)

A sample is what the collate function of the DataLoader batches: a tuple/list of fields (arrays or numbers), a
dict of them, or a single array.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from ..framework.scope import LoDTensor

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'ComposeDataset', 'ChainDataset', 'ConcatDataset',
           'Subset', 'random_split']


class Dataset:
    """Map-style dataset: subclasses implement __getitem__(idx) and __len__()."""

    def __getitem__(self, idx):
        raise NotImplementedError("'{}' not implement in class {}".format('__getitem__', self.__class__.__name__))

    def __len__(self):
        raise NotImplementedError("'{}' not implement in class {}".format('__len__', self.__class__.__name__))


class IterableDataset(Dataset):
    """Iterable dataset: subclasses implement __iter__(); with worker processes each worker iterates its own copy
    (split the stream with get_worker_info())."""

    def __iter__(self):
        raise NotImplementedError("'{}' not implement in class {}".format('__iter__', self.__class__.__name__))

    def __getitem__(self, idx):
        raise RuntimeError("'{}' should not be called for IterableDataset{}".format('__getitem__',
                                                                                  self.__class__.__name__))

    def __len__(self):
        raise RuntimeError("'{}' should not be called for IterableDataset{}".format('__len__',
                                                                                  self.__class__.__name__))


def _as_array(t) -> np.ndarray:
    if isinstance(t, LoDTensor):
        return np.asarray(t.value)
    return np.asarray(t)


class TensorDataset(Dataset):
    """Sample i is (tensors[0][i], tensors[1][i], ...); every tensor has the same first dimension."""

    def __init__(self, tensors):
        arrays = [_as_array(t) for t in tensors]
        if not arrays:
            raise ValueError('TensorDataset needs at least one tensor')
        assert all(a.shape[0] == arrays[0].shape[0] for a in arrays), \
            'tensors not have same shape of the 1st dimension'
        self.tensors = arrays

    def __getitem__(self, index):
        return tuple(a[index] for a in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _fields(sample) -> list:
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Map-style datasets of one length side by side: sample i is the fields of each one's sample i."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, 'input datasets shoule not be empty'
        for i, dataset in enumerate(self.datasets):
            assert isinstance(dataset, Dataset), 'each input dataset should be paddle.io.Dataset'
            assert not isinstance(dataset, IterableDataset), 'paddle.io.IterableDataset not supported'
            if i > 0:
                assert len(dataset) == len(self.datasets[i - 1]), 'lengths of datasets should be same'

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        sample = []
        for dataset in self.datasets:
            sample.extend(_fields(dataset[idx]))
        return tuple(sample)


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, 'input datasets shoule not be empty'
        for dataset in self.datasets:
            assert isinstance(dataset, IterableDataset), 'ChainDataset only support paddle.io.IterableDataset'

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset


class ConcatDataset(Dataset):
    """Map-style datasets one after the other: index i falls into the dataset whose cumulative size passes it."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, 'datasets should not be an empty iterable'
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), 'ConcatDataset does not support IterableDataset'
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError('absolute value of index should not exceed dataset length')
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Disjoint Subsets of the given lengths (their sum is len(dataset)), or of fractions summing to 1 (the
    remainder going one by one to the first subsets), over a random permutation (numpy's global generator, which
    paddle.seed seeds; or `generator`, a numpy Generator / RandomState)."""
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError('Sum of input lengths does not equal the length of the input dataset!')
    rng = generator if generator is not None else np.random
    indices = rng.permutation(sum(lengths)).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out
