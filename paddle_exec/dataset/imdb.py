"""paddle.dataset.imdb: the IMDB movie reviews (aclImdb_v1.tar.gz), as Paddle 1.8 reads them.

Each review file matching a pattern is read in tar order (sequential access, as Paddle), stripped of trailing
newlines, of ASCII punctuation, lower-cased and split on whitespace. Words are `bytes`, as in Paddle; the
dictionary maps them to ids by falling frequency, then by the word, and adds the str key '<unk>' last.
A sample is (list of word ids, label) with label 0 for positive and 1 for negative reviews.
"""
from __future__ import annotations

import collections
import re
import string
import tarfile

from . import common

__all__ = ['build_dict', 'train', 'test', 'word_dict']

URL = 'https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz'
MD5 = '7c2ac02c03563afcf9b574c7e56c153a'
_PUNCTUATION = string.punctuation.encode()


def tokenize(pattern: re.Pattern):
    """The token lists of the review files whose tar names match `pattern`."""
    with tarfile.open(common.download(URL, 'imdb', MD5)) as tarf:
        tf = tarf.next()
        while tf is not None:
            if bool(pattern.match(tf.name)):
                yield tarf.extractfile(tf).read().rstrip(b'\n\r').translate(None, _PUNCTUATION).lower().split()
            tf = tarf.next()


def build_dict(pattern: re.Pattern, cutoff: int) -> dict:
    """Words seen more than `cutoff` times, by falling frequency then by word, with '<unk>' last."""
    word_freq = collections.defaultdict(int)
    for doc in tokenize(pattern):
        for word in doc:
            word_freq[word] += 1
    word_freq = [x for x in word_freq.items() if x[1] > cutoff]
    dictionary = sorted(word_freq, key=lambda x: (-x[1], x[0]))
    words, _ = list(zip(*dictionary))
    word_idx = dict(zip(words, range(len(words))))
    word_idx['<unk>'] = len(words)
    return word_idx


def reader_creator(pos_pattern: re.Pattern, neg_pattern: re.Pattern, word_idx: dict):
    UNK = word_idx['<unk>']
    INS = []

    def load(pattern, out, label):
        for doc in tokenize(pattern):
            out.append(([word_idx.get(w, UNK) for w in doc], label))

    load(pos_pattern, INS, 0)
    load(neg_pattern, INS, 1)

    def reader():
        yield from INS

    return reader


def train(word_idx: dict):
    """The training set creator: (word ids, label 0 positive / 1 negative)."""
    return reader_creator(re.compile(r'aclImdb/train/pos/.*\.txt$'), re.compile(r'aclImdb/train/neg/.*\.txt$'),
                          word_idx)


def test(word_idx: dict):
    """The test set creator: (word ids, label 0 positive / 1 negative)."""
    return reader_creator(re.compile(r'aclImdb/test/pos/.*\.txt$'), re.compile(r'aclImdb/test/neg/.*\.txt$'),
                          word_idx)


def word_dict() -> dict:
    """The dictionary of the whole corpus: words seen more than 150 times."""
    return build_dict(re.compile(r'aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$'), 150)


def fetch() -> None:
    common.download(URL, 'imdb', MD5)
