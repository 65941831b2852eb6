"""paddle.dataset.flowers: the Oxford 102 flowers (102flowers.tgz, imagelabels.mat, setid.mat), as Paddle 1.8
reads them.

The images of a split are pickled once into batch files beside the tarball (image.batch_images_from_tar, Paddle's
layout); the reader yields (encoded image bytes, label - 1) mapped by `mapper`, by default: decode, resize the short
edge to 256, crop 224 (random with a mirror coin for training, centred otherwise), CHW, minus the BGR means, flatten
to float32. As in Paddle, 'tstid' (the larger split) is the training set and 'trnid' the test set, and the mapper
runs in xmap_readers threads, so samples come in no fixed order unless use_xmap=False.

Needs Pillow (images, `paddle_exec[image]`) and scipy (the .mat files, as Paddle did); both are imported on first
use.
"""
from __future__ import annotations

import functools
import pickle
from multiprocessing import cpu_count

from ..reader.decorator import map_readers, xmap_readers
from . import common
from .image import batch_images_from_tar, load_image_bytes, simple_transform

__all__ = ['train', 'test', 'valid']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz'
LABEL_URL = 'http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat'
SETID_URL = 'http://paddlemodels.bj.bcebos.com/flowers/setid.mat'
DATA_MD5 = '52808999861908f626f3c1f4e79d11fa'
LABEL_MD5 = 'e0620be6f572b9609742df49c70aed4d'
SETID_MD5 = 'a5357ecc9cb78c4bef273ce3793fc85c'
TRAIN_FLAG = 'tstid'
TEST_FLAG = 'trnid'
VALID_FLAG = 'valid'


def default_mapper(is_train: bool, sample):
    """Encoded image bytes -> the flattened float32 CHW input of the book's models."""
    img, label = sample
    img = load_image_bytes(img)
    img = simple_transform(img, 256, 224, is_train, mean=[103.94, 116.78, 123.68])
    return img.flatten().astype('float32'), label


train_mapper = functools.partial(default_mapper, True)
test_mapper = functools.partial(default_mapper, False)


def _loadmat(path: str) -> dict:
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError('paddle.dataset.flowers reads its .mat label files with scipy: pip install scipy') from None
    return loadmat(path)


def reader_creator(data_file: str, label_file: str, setid_file: str, dataset_name: str, mapper,
                   buffered_size: int = 1024, use_xmap: bool = True, cycle: bool = False):
    labels = _loadmat(label_file)['labels'][0]
    indexes = _loadmat(setid_file)[dataset_name][0]
    img2label = {'jpg/image_%05d.jpg' % i: labels[i - 1] for i in indexes}
    file_list = batch_images_from_tar(data_file, dataset_name, img2label)

    def reader():
        while True:
            with open(file_list) as f_list:
                for file in f_list:
                    with open(file.strip(), 'rb') as f:
                        batch = pickle.load(f, encoding='bytes')
                    batch = {k.decode() if isinstance(k, bytes) else k: v for k, v in batch.items()}
                    for sample, label in zip(batch['data'], batch['label']):
                        yield sample, int(label) - 1
            if not cycle:
                break

    if use_xmap:
        return xmap_readers(mapper, reader, min(4, cpu_count()), buffered_size)
    return map_readers(mapper, reader)


def _creator(flag: str, mapper, buffered_size: int, use_xmap: bool, cycle: bool = False):
    return reader_creator(common.download(DATA_URL, 'flowers', DATA_MD5),
                          common.download(LABEL_URL, 'flowers', LABEL_MD5),
                          common.download(SETID_URL, 'flowers', SETID_MD5),
                          flag, mapper, buffered_size, use_xmap, cycle=cycle)


def train(mapper=train_mapper, buffered_size: int = 1024, use_xmap: bool = True, cycle: bool = False):
    """The training set reader ('tstid'): (flattened float32 CHW image, label in [0, 101])."""
    return _creator(TRAIN_FLAG, mapper, buffered_size, use_xmap, cycle)


def test(mapper=test_mapper, buffered_size: int = 1024, use_xmap: bool = True, cycle: bool = False):
    """The test set reader ('trnid'): (flattened float32 CHW image, label in [0, 101])."""
    return _creator(TEST_FLAG, mapper, buffered_size, use_xmap, cycle)


def valid(mapper=test_mapper, buffered_size: int = 1024, use_xmap: bool = True):
    """The validation set reader ('valid'): (flattened float32 CHW image, label in [0, 101])."""
    return _creator(VALID_FLAG, mapper, buffered_size, use_xmap)


def fetch() -> None:
    common.download(DATA_URL, 'flowers', DATA_MD5)
    common.download(LABEL_URL, 'flowers', LABEL_MD5)
    common.download(SETID_URL, 'flowers', SETID_MD5)
