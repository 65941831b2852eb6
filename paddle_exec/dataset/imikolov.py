"""paddle.dataset.imikolov: the Penn Treebank text of Mikolov's simple-examples.tgz, as Paddle 1.8 reads it.

Lines of the tar members are bytes, so words are `bytes` while the markers '<s>', '<e>' and '<unk>' are str keys,
exactly as in Paddle (a corpus word b'<unk>' stays in the dictionary). `build_dict` keeps the words of the train
and valid files seen more than `min_word_freq` times, by falling frequency then by word, and gives '<unk>' the
last id. `train(word_idx, n)` yields n-gram tuples of ids (DataType.NGRAM, each line wrapped in <s> ... <e>) or
(source, target) id lists (DataType.SEQ, lines longer than n skipped when n > 0).
"""
from __future__ import annotations

import collections
import tarfile

from . import common

__all__ = ['train', 'test', 'build_dict']

URL = 'https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz'
MD5 = '30177ea32e27c525793142b6bf2c8e2d'
TRAIN_FILE = './simple-examples/data/ptb.train.txt'
VALID_FILE = './simple-examples/data/ptb.valid.txt'


class DataType:
    NGRAM = 1
    SEQ = 2


def word_count(f, word_freq=None):
    if word_freq is None:
        word_freq = collections.defaultdict(int)
    for line in f:
        for w in line.strip().split():
            word_freq[w] += 1
        word_freq['<s>'] += 1
        word_freq['<e>'] += 1
    return word_freq


def build_dict(min_word_freq: int = 50) -> dict:
    """Words of the train and valid files seen more than `min_word_freq` times, with '<unk>' last."""
    with tarfile.open(common.download(URL, 'imikolov', MD5)) as tf:
        trainf = tf.extractfile(TRAIN_FILE)
        testf = tf.extractfile(VALID_FILE)
        word_freq = word_count(testf, word_count(trainf))
        if '<unk>' in word_freq:
            del word_freq['<unk>']     # Paddle's check: the corpus' b'<unk>' is bytes and stays
        word_freq = [x for x in word_freq.items() if x[1] > min_word_freq]
        word_freq_sorted = sorted(word_freq, key=lambda x: (-x[1], x[0]))
        words, _ = list(zip(*word_freq_sorted))
        word_idx = dict(zip(words, range(len(words))))
        word_idx['<unk>'] = len(words)
    return word_idx


def reader_creator(filename: str, word_idx: dict, n: int, data_type: int):
    def reader():
        with tarfile.open(common.download(URL, 'imikolov', MD5)) as tf:
            f = tf.extractfile(filename)
            UNK = word_idx['<unk>']
            for line in f:
                if DataType.NGRAM == data_type:
                    assert n > -1, 'Invalid gram length'
                    words = ['<s>'] + line.strip().split() + ['<e>']
                    if len(words) >= n:
                        ids = [word_idx.get(w, UNK) for w in words]
                        for i in range(n, len(ids) + 1):
                            yield tuple(ids[i - n:i])
                elif DataType.SEQ == data_type:
                    ids = [word_idx.get(w, UNK) for w in line.strip().split()]
                    src_seq = [word_idx['<s>']] + ids
                    trg_seq = ids + [word_idx['<e>']]
                    if n > 0 and len(src_seq) > n:
                        continue
                    yield src_seq, trg_seq
                else:
                    assert False, 'Unknow data type'

    return reader


def train(word_idx: dict, n: int, data_type: int = DataType.NGRAM):
    """The training set creator (ptb.train.txt): n-gram id tuples, or (src, trg) id lists for DataType.SEQ."""
    return reader_creator(TRAIN_FILE, word_idx, n, data_type)


def test(word_idx: dict, n: int, data_type: int = DataType.NGRAM):
    """The test set creator (ptb.valid.txt): n-gram id tuples, or (src, trg) id lists for DataType.SEQ."""
    return reader_creator(VALID_FILE, word_idx, n, data_type)


def fetch() -> None:
    common.download(URL, 'imikolov', MD5)
