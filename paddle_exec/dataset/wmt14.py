"""paddle.dataset.wmt14: the shrunk WMT14 French-English set (wmt14.tgz), as Paddle 1.8 reads it.

The dictionaries are the first `dict_size` lines of the tar members ending in 'src.dict' and 'trg.dict'. Each line
of the members ending in 'train/train' ('test/test', 'gen/gen') holds source and target separated by a tab; a
sample is (source ids wrapped in <s> ... <e>, <s> + target ids, target ids + <e>), unknown words as UNK_IDX 2,
pairs longer than 80 ids skipped.
"""
from __future__ import annotations

import tarfile

from . import common

__all__ = ['train', 'test', 'get_dict']

URL_DEV_TEST = 'http://www-lium.univ-lemans.fr/~schwenk/cslm_joint_paper/data/dev+test.tgz'
MD5_DEV_TEST = '7d7897317ddd8ba0ae5c5fa7248d3ff5'
URL_TRAIN = 'http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz'
MD5_TRAIN = '0791583d57d5beb693b9414c5b36798c'
URL_MODEL = 'http://paddlemodels.bj.bcebos.com/wmt%2Fwmt14.tgz'
MD5_MODEL = '0cb4a5366189b6acba876491c8724fa3'

START = '<s>'
END = '<e>'
UNK = '<unk>'
UNK_IDX = 2


def _read_to_dict(tar_file: str, dict_size: int):
    def to_dict(fd, size):
        out_dict = {}
        for line_count, line in enumerate(fd):
            if line_count >= size:
                break
            out_dict[line.strip().decode()] = line_count
        return out_dict

    with tarfile.open(tar_file, mode='r') as f:
        names = [item.name for item in f if item.name.endswith('src.dict')]
        assert len(names) == 1
        src_dict = to_dict(f.extractfile(names[0]), dict_size)
        names = [item.name for item in f if item.name.endswith('trg.dict')]
        assert len(names) == 1
        trg_dict = to_dict(f.extractfile(names[0]), dict_size)
        return src_dict, trg_dict


def reader_creator(tar_file: str, file_name: str, dict_size: int):
    def reader():
        src_dict, trg_dict = _read_to_dict(tar_file, dict_size)
        with tarfile.open(tar_file, mode='r') as f:
            names = [item.name for item in f if item.name.endswith(file_name)]
            for name in names:
                for line in f.extractfile(name):
                    line_split = line.decode().strip().split('\t')
                    if len(line_split) != 2:
                        continue
                    src_ids = [src_dict.get(w, UNK_IDX) for w in [START] + line_split[0].split() + [END]]
                    trg_ids = [trg_dict.get(w, UNK_IDX) for w in line_split[1].split()]
                    if len(src_ids) > 80 or len(trg_ids) > 80:     # too long for training
                        continue
                    trg_ids_next = trg_ids + [trg_dict[END]]
                    trg_ids = [trg_dict[START]] + trg_ids
                    yield src_ids, trg_ids, trg_ids_next

    return reader


def train(dict_size: int):
    """The training set creator: (source ids, target ids, next target ids)."""
    return reader_creator(common.download(URL_TRAIN, 'wmt14', MD5_TRAIN), 'train/train', dict_size)


def test(dict_size: int):
    """The test set creator: (source ids, target ids, next target ids)."""
    return reader_creator(common.download(URL_TRAIN, 'wmt14', MD5_TRAIN), 'test/test', dict_size)


def gen(dict_size: int):
    return reader_creator(common.download(URL_TRAIN, 'wmt14', MD5_TRAIN), 'gen/gen', dict_size)


def get_dict(dict_size: int, reverse: bool = True):
    """(source dict, target dict); reverse=True maps ids to words, else words to ids."""
    tar_file = common.download(URL_TRAIN, 'wmt14', MD5_TRAIN)
    src_dict, trg_dict = _read_to_dict(tar_file, dict_size)
    if reverse:
        src_dict = {v: k for k, v in src_dict.items()}
        trg_dict = {v: k for k, v in trg_dict.items()}
    return src_dict, trg_dict


def fetch() -> None:
    common.download(URL_TRAIN, 'wmt14', MD5_TRAIN)
    common.download(URL_MODEL, 'wmt14', MD5_MODEL)
