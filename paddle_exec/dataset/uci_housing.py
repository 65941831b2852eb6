"""paddle.dataset.uci_housing: the Boston housing data (housing.data, 506 rows of 14 numbers).

As Paddle 1.8: every feature column is normalised to (x - mean) / (max - min) over the whole file, the first 80% of
the rows are the training set and the rest the test set; a sample is (13 float64 features, [price]). Paddle also
drew a bar chart of the feature ranges into ./image/ranges.png with matplotlib while loading; that side effect is
left out.
"""
from __future__ import annotations

import tarfile
import tempfile

import numpy as np

from . import common

__all__ = ['train', 'test']

URL = 'http://paddlemodels.bj.bcebos.com/uci_housing/housing.data'
MD5 = 'd4accdce7a25600298819f8e28e8d593'
feature_names = ['CRIM', 'ZN', 'INDUS', 'CHAS', 'NOX', 'RM', 'AGE', 'DIS', 'RAD', 'TAX', 'PTRATIO', 'B', 'LSTAT']

UCI_TRAIN_DATA = None
UCI_TEST_DATA = None

FLUID_URL_MODEL = 'https://github.com/PaddlePaddle/book/raw/develop/01.fit_a_line/fluid/fit_a_line.fluid.tar'
FLUID_MD5_MODEL = '6e6dd637ccd5993961f68bfbde46090b'


def load_data(filename: str, feature_num: int = 14, ratio: float = 0.8) -> None:
    global UCI_TRAIN_DATA, UCI_TEST_DATA
    if UCI_TRAIN_DATA is not None and UCI_TEST_DATA is not None:
        return
    with open(filename) as f:
        data = np.array(f.read().split(), dtype=np.float64)
    data = data.reshape(data.shape[0] // feature_num, feature_num)
    maximums, minimums, avgs = data.max(axis=0), data.min(axis=0), data.sum(axis=0) / data.shape[0]
    for i in range(feature_num - 1):
        data[:, i] = (data[:, i] - avgs[i]) / (maximums[i] - minimums[i])
    offset = int(data.shape[0] * ratio)
    UCI_TRAIN_DATA = data[:offset]
    UCI_TEST_DATA = data[offset:]


def _reader(part: str):
    load_data(common.download(URL, 'uci_housing', MD5))
    rows = UCI_TRAIN_DATA if part == 'train' else UCI_TEST_DATA

    def reader():
        for d in rows:
            yield d[:-1], d[-1:]

    return reader


def train():
    """The training set creator: samples (normalised features, [price])."""
    return _reader('train')


def test():
    """The test set creator: samples (normalised features, [price])."""
    return _reader('test')


def fluid_model() -> str:
    """The book's trained fit_a_line model, extracted into a new temporary directory."""
    parameter_tar = common.download(FLUID_URL_MODEL, 'uci_housing', FLUID_MD5_MODEL, 'fit_a_line.fluid.tar')
    dirpath = tempfile.mkdtemp()
    with tarfile.TarFile(parameter_tar, mode='r') as tar:
        tar.extractall(path=dirpath)
    return dirpath


def predict_reader():
    """One tuple to run inference on: the features of the first test row."""
    load_data(common.download(URL, 'uci_housing', MD5))
    return (UCI_TEST_DATA[0][:-1],)


def fetch() -> None:
    common.download(URL, 'uci_housing', MD5)
