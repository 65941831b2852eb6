"""paddle.dataset.mnist: the MNIST digits from the four idx files (gzip), as Paddle 1.8 reads them.

A sample is (784 float32 pixels scaled to [-1, 1], int label). The files are parsed with numpy in one go rather
than with Paddle's per-100-images struct calls; the values are the same (uint8 -> float32, / 255, * 2, - 1 in
float32).
"""
from __future__ import annotations

import gzip
import struct

import numpy as np

from . import common

__all__ = ['train', 'test']

URL_PREFIX = 'https://dataset.bj.bcebos.com/mnist/'
TEST_IMAGE_URL = URL_PREFIX + 't10k-images-idx3-ubyte.gz'
TEST_IMAGE_MD5 = '9fb629c4189551a2d022fa330f9573f3'
TEST_LABEL_URL = URL_PREFIX + 't10k-labels-idx1-ubyte.gz'
TEST_LABEL_MD5 = 'ec29112dd5afa0611ce80d1b7f02629c'
TRAIN_IMAGE_URL = URL_PREFIX + 'train-images-idx3-ubyte.gz'
TRAIN_IMAGE_MD5 = 'f68b3c2dcbeaaa9fbdd348bbdeb94873'
TRAIN_LABEL_URL = URL_PREFIX + 'train-labels-idx1-ubyte.gz'
TRAIN_LABEL_MD5 = 'd53e105ee54ea40749a09fcbcd1e9432'


def reader_creator(image_filename: str, label_filename: str, buffer_size: int):
    def reader():
        with gzip.GzipFile(image_filename, 'rb') as image_file:
            img_buf = image_file.read()
        with gzip.GzipFile(label_filename, 'rb') as label_file:
            lab_buf = label_file.read()
        _, image_num, rows, cols = struct.unpack_from('>IIII', img_buf, 0)
        _, label_num = struct.unpack_from('>II', lab_buf, 0)
        labels = np.frombuffer(lab_buf, np.uint8, label_num, 8)
        pixels = np.frombuffer(img_buf, np.uint8, image_num * rows * cols, 16).reshape(image_num, rows * cols)
        for start in range(0, label_num, buffer_size):
            images = pixels[start:start + buffer_size].astype('float32')
            images = images / 255.0
            images = images * 2.0
            images = images - 1.0
            for i in range(images.shape[0]):
                yield images[i, :], int(labels[start + i])

    return reader


def train():
    """The training set creator: (784 pixels in [-1, 1], label in [0, 9])."""
    return reader_creator(common.download(TRAIN_IMAGE_URL, 'mnist', TRAIN_IMAGE_MD5),
                          common.download(TRAIN_LABEL_URL, 'mnist', TRAIN_LABEL_MD5), 100)


def test():
    """The test set creator: (784 pixels in [-1, 1], label in [0, 9])."""
    return reader_creator(common.download(TEST_IMAGE_URL, 'mnist', TEST_IMAGE_MD5),
                          common.download(TEST_LABEL_URL, 'mnist', TEST_LABEL_MD5), 100)


def fetch() -> None:
    common.download(TRAIN_IMAGE_URL, 'mnist', TRAIN_IMAGE_MD5)
    common.download(TRAIN_LABEL_URL, 'mnist', TRAIN_LABEL_MD5)
    common.download(TEST_IMAGE_URL, 'mnist', TEST_IMAGE_MD5)
    common.download(TEST_LABEL_URL, 'mnist', TEST_LABEL_MD5)
