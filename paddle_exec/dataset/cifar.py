"""paddle.dataset.cifar: CIFAR-10 and CIFAR-100 from the python-pickle tarballs, as Paddle 1.8 reads them.

The tar members whose names contain 'data_batch' / 'test_batch' (CIFAR-10) or 'train' / 'test' (CIFAR-100) are
unpickled in tar order; a sample is (3072 float32 pixels in [0, 1], CHW order as stored, int label). `cycle=True`
starts over at the end, forever.
"""
from __future__ import annotations

import pickle
import tarfile

import numpy as np

from . import common

__all__ = ['train100', 'test100', 'train10', 'test10']

URL_PREFIX = 'https://dataset.bj.bcebos.com/cifar/'
CIFAR10_URL = URL_PREFIX + 'cifar-10-python.tar.gz'
CIFAR10_MD5 = 'c58f30108f718f92721af3b95e74349a'
CIFAR100_URL = URL_PREFIX + 'cifar-100-python.tar.gz'
CIFAR100_MD5 = 'eb9058c3a382ffc7106e4002c42a8d85'


def reader_creator(filename: str, sub_name: str, cycle: bool = False):
    def read_batch(batch):
        data = batch[b'data']
        labels = batch.get(b'labels', batch.get(b'fine_labels', None))
        assert labels is not None
        for sample, label in zip(data, labels):
            yield (sample / 255.0).astype(np.float32), int(label)

    def reader():
        while True:
            with tarfile.open(filename, mode='r') as f:
                names = [each_item.name for each_item in f if sub_name in each_item.name]
                for name in names:
                    batch = pickle.load(f.extractfile(name), encoding='bytes')
                    yield from read_batch(batch)
            if not cycle:
                break

    return reader


def train100():
    """CIFAR-100 training set creator: (3072 pixels in [0, 1], fine label in [0, 99])."""
    return reader_creator(common.download(CIFAR100_URL, 'cifar', CIFAR100_MD5), 'train')


def test100():
    """CIFAR-100 test set creator: (3072 pixels in [0, 1], fine label in [0, 99])."""
    return reader_creator(common.download(CIFAR100_URL, 'cifar', CIFAR100_MD5), 'test')


def train10(cycle: bool = False):
    """CIFAR-10 training set creator: (3072 pixels in [0, 1], label in [0, 9])."""
    return reader_creator(common.download(CIFAR10_URL, 'cifar', CIFAR10_MD5), 'data_batch', cycle=cycle)


def test10(cycle: bool = False):
    """CIFAR-10 test set creator: (3072 pixels in [0, 1], label in [0, 9])."""
    return reader_creator(common.download(CIFAR10_URL, 'cifar', CIFAR10_MD5), 'test_batch', cycle=cycle)


def fetch() -> None:
    common.download(CIFAR10_URL, 'cifar', CIFAR10_MD5)
    common.download(CIFAR100_URL, 'cifar', CIFAR100_MD5)
