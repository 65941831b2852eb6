"""Digests of every dataset reader's samples, computed the same way under Paddle 1.8.5 and under paddle_exec.

Run by Paddle 1.8.5's Python to record paddle18_digests.json, which test_datasets.py compares with (never by the
tests themselves), from a scratch folder (Paddle's uci_housing draws ./image/ranges.png):

    python -c "from paddle_exec.dataset import synthetic; synthetic.populate('/tmp/dsfix/.cache/paddle/dataset',
               list(synthetic.WRITERS))"
    cd /tmp && HOME=/tmp/dsfix /work/pd18/bin/python $OLDPWD/tests/dataset/sample_digest.py \
        /tmp/dsfix/.cache/paddle/dataset > $OLDPWD/tests/dataset/paddle18_digests.json

(the fixture files: the same seeds give the same contents). Ids that Paddle
numbered in hash order (movielens titles and categories, conll05 label tags) are decoded back to their words, so
the digest compares content, not numbering. Python 3.8 compatible on purpose.
"""
import hashlib
import json
import os
import sys

import numpy as np


def _plain(value):
    if isinstance(value, np.ndarray):
        return [round(float(v), 5) for v in value.reshape(-1)]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return round(float(value), 5)
    return value


def _head(value):
    """A sample with long lists cut to their first 8 items (the md5 covers all of it)."""
    if isinstance(value, list):
        return [_head(v) for v in value[:8]]
    return value


def _summary(samples):
    plain = [_plain(s) for s in samples]
    text = json.dumps(plain, sort_keys=True)
    return {'count': len(plain), 'first': _head(plain[0]) if plain else None,
            'md5': hashlib.md5(text.encode()).hexdigest()}


def _dict_summary(d):
    return hashlib.md5(json.dumps(sorted((_plain(k), v) for k, v in d.items())).encode()).hexdigest()


def uci_housing(dataset):
    return {'uci_housing.train': _summary(list(dataset.uci_housing.train()())),
            'uci_housing.test': _summary(list(dataset.uci_housing.test()()))}


def mnist(dataset):
    return {'mnist.train': _summary(list(dataset.mnist.train()())),
            'mnist.test': _summary(list(dataset.mnist.test()()))}


def cifar(dataset):
    return {'cifar.' + name: _summary(list(getattr(dataset.cifar, name)()()))
            for name in ('train10', 'test10', 'train100', 'test100')}


def imdb(dataset):
    word_idx = dataset.imdb.word_dict()
    return {'imdb.word_dict': {'len': len(word_idx), 'md5': _dict_summary(word_idx)},
            'imdb.train': _summary(list(dataset.imdb.train(word_idx)())),
            'imdb.test': _summary(list(dataset.imdb.test(word_idx)()))}


def imikolov(dataset):
    mik = dataset.imikolov.build_dict()
    return {'imikolov.build_dict': {'len': len(mik), 'md5': _dict_summary(mik)},
            'imikolov.train.ngram5': _summary(list(dataset.imikolov.train(mik, 5)())),
            'imikolov.test.seq': _summary(list(dataset.imikolov.test(mik, 10, dataset.imikolov.DataType.SEQ)()))}


def movielens(dataset):
    ml = dataset.movielens
    titles = {v: k for k, v in ml.get_movie_title_dict().items()}
    cats = {v: k for k, v in ml.movie_categories().items()}

    def decode_ml(sample):
        return sample[:5] + [sorted(cats[c] for c in sample[5]), [titles[w] for w in sample[6]], sample[7]]

    return {'movielens.meta': [ml.max_user_id(), ml.max_movie_id(), ml.max_job_id(), len(titles), len(cats),
                               str(ml.movie_info()[ml.max_movie_id()]), str(ml.user_info()[1])],
            'movielens.train': _summary([decode_ml(s) for s in ml.train()()]),
            'movielens.test': _summary([decode_ml(s) for s in ml.test()()])}


def conll05(dataset):
    word_dict, verb_dict, label_dict = dataset.conll05.get_dict()
    tags = {v: k for k, v in label_dict.items()}
    return {'conll05.dicts': [len(word_dict), len(verb_dict), sorted(label_dict)],
            'conll05.test': _summary([list(s[:8]) + [[tags[t] for t in s[8]]] for s in dataset.conll05.test()()])}


def wmt14(dataset):
    return {'wmt14.train': _summary(list(dataset.wmt14.train(10)())),
            'wmt14.test': _summary(list(dataset.wmt14.test(30)())),
            'wmt14.get_dict': _plain(sorted(dataset.wmt14.get_dict(8)[1].items()))}


def wmt16(dataset):
    return {'wmt16.train': _summary(list(dataset.wmt16.train(12, 10)())),
            'wmt16.validation.de': _summary(list(dataset.wmt16.validation(30, 9, src_lang='de')())),
            'wmt16.get_dict': _plain(sorted(dataset.wmt16.get_dict('de', 10, reverse=True).items()))}


def flowers(dataset):
    """The flowers splits read in order (use_xmap=False) through a mapper that keeps the image size and label:
    resizing differs between OpenCV and Pillow (image.py), decoding and the split logic must not."""
    def mapper(sample):
        img = dataset.image.load_image_bytes(sample[0])
        return [list(img.shape), int(img.astype(np.int64).sum() // 1000)], sample[1]
    return {'flowers.' + name: _summary(list(getattr(dataset.flowers, name)(mapper=mapper, use_xmap=False)()))
            for name in ('train', 'test', 'valid')}


DIGESTS = {'uci_housing': uci_housing, 'mnist': mnist, 'cifar': cifar, 'imdb': imdb, 'imikolov': imikolov,
           'movielens': movielens, 'conll05': conll05, 'wmt14': wmt14, 'wmt16': wmt16, 'flowers': flowers}


def patch_paddle_download(dataset, data_home):
    """Paddle 1.8's download without its md5 check (the fixtures are not the real files); flowers imported the
    function by name."""
    def download(url, module_name, md5sum, save_name=None):
        return os.path.join(data_home, module_name, url.split('/')[-1] if save_name is None else save_name)
    dataset.common.download = download
    dataset.flowers.download = download


if __name__ == '__main__':
    import paddle.dataset
    patch_paddle_download(paddle.dataset, sys.argv[1])
    result = {}
    for digest in DIGESTS.values():
        result.update(digest(paddle.dataset))
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
