"""Small files in the exact formats of each dataset, for tests and offline runs (no network needed).

Each writer makes one file (or the few files of one dataset) at the path `common.download` looks in, from a seeded
legacy numpy RandomState (its streams never change between numpy versions), so the same call writes the same
contents everywhere; the tests compare readers' samples on them with literals recorded from Paddle 1.8.5.
The contents are random but shaped like the real data:
the vocabularies are small with a few very frequent words, so that Paddle's frequency cut-offs (imdb keeps words
seen more than 150 times, imikolov more than 50) keep some. Their md5 sums are not the real ones: read them with
`common.verify_md5 = False` (Paddle 1.8 itself needs its `download` patched the same way).

    from paddle_exec.dataset import synthetic
    synthetic.populate('/tmp/cache/paddle/dataset')     # every dataset, at the paths of Paddle's cache layout
"""
from __future__ import annotations

import gzip
import io
import os
import pickle
import struct
import tarfile
import zipfile

import numpy as np

from . import cifar, conll05, flowers, imdb, imikolov, mnist, movielens, uci_housing, wmt14, wmt16
from .image import pil_image

WORDS = ['the', 'a', 'movie', 'film', 'good', 'bad', 'great', 'plot', 'actor', 'story', 'boring', 'fun', 'love',
         'hate', 'scene', 'music', 'long', 'short', 'funny', 'dark']


def _path(data_home: str, url: str, module: str, save_name: str | None = None) -> str:
    path = os.path.join(data_home, module, url.split('/')[-1] if save_name is None else save_name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 0
    tar.addfile(info, io.BytesIO(data))


def _sentence(rng, words, lo=3, hi=12, zipf=True) -> list:
    n = rng.randint(lo, hi + 1)
    if zipf:
        p = 1.0 / np.arange(1, len(words) + 1)
        return list(rng.choice(words, size=n, p=p / p.sum()))
    return list(rng.choice(words, size=n))


def write_uci_housing(data_home: str, rows: int = 60, seed: int = 0) -> str:
    rng = np.random.RandomState(seed)
    path = _path(data_home, uci_housing.URL, 'uci_housing')
    data = rng.uniform(0.1, 100.0, size=(rows, 14)).round(4)
    data[:, 3] = rng.randint(0, 2, rows)                      # CHAS is 0/1
    with open(path, 'w') as f:
        for row in data:
            f.write(' ' + ' '.join('%.4f' % v for v in row) + '\n')
    return path


def write_mnist(data_home: str, train: int = 600, test: int = 200, seed: int = 0) -> list:
    rng = np.random.RandomState(seed)
    paths = []
    for count, img_url, lab_url in ((train, mnist.TRAIN_IMAGE_URL, mnist.TRAIN_LABEL_URL),
                                    (test, mnist.TEST_IMAGE_URL, mnist.TEST_LABEL_URL)):
        labels = rng.randint(0, 10, count).astype(np.uint8)
        images = rng.randint(0, 256, (count, 28, 28)).astype(np.uint8)
        images[np.arange(count), labels * 2 + 4, 4:24] = 255       # a learnable mark per class
        img_path, lab_path = _path(data_home, img_url, 'mnist'), _path(data_home, lab_url, 'mnist')
        with gzip.GzipFile(img_path, 'wb', mtime=0) as f:
            f.write(struct.pack('>IIII', 2051, count, 28, 28) + images.tobytes())
        with gzip.GzipFile(lab_path, 'wb', mtime=0) as f:
            f.write(struct.pack('>II', 2049, count) + labels.tobytes())
        paths += [img_path, lab_path]
    return paths


class _PortablePickler(pickle.Pickler):
    """Pickles arrays as `numpy.ndarray(shape, dtype, buffer)`, a name every numpy has: numpy 2 writes
    `numpy._core` references that numpy 1.x (Paddle 1.8's) cannot load, unlike the real CIFAR files."""

    def reducer_override(self, obj):
        if type(obj) is np.ndarray:
            return np.ndarray, (obj.shape, obj.dtype.str, obj.tobytes())
        return NotImplemented


def _cifar_batch(rng, count: int, classes: int, label_key: bytes) -> bytes:
    labels = [int(v) for v in rng.randint(0, classes, count)]
    data = rng.randint(0, 256, (count, 3072)).astype(np.uint8)
    out = io.BytesIO()
    _PortablePickler(out, protocol=2).dump({b'batch_label': b'synthetic', label_key: labels, b'data': data,
                                            b'filenames': [b'img_%d.png' % i for i in range(count)]})
    return out.getvalue()


def write_cifar(data_home: str, per_batch: int = 100, seed: int = 0) -> list:
    rng = np.random.RandomState(seed)
    path10 = _path(data_home, cifar.CIFAR10_URL, 'cifar')
    with tarfile.open(path10, 'w:gz') as tar:
        for k in range(1, 6):
            _add(tar, 'cifar-10-batches-py/data_batch_%d' % k, _cifar_batch(rng, per_batch, 10, b'labels'))
        _add(tar, 'cifar-10-batches-py/test_batch', _cifar_batch(rng, per_batch, 10, b'labels'))
        _add(tar, 'cifar-10-batches-py/batches.meta', pickle.dumps({b'num_cases_per_batch': per_batch}))
    path100 = _path(data_home, cifar.CIFAR100_URL, 'cifar')
    with tarfile.open(path100, 'w:gz') as tar:
        _add(tar, 'cifar-100-python/train', _cifar_batch(rng, 2 * per_batch, 100, b'fine_labels'))
        _add(tar, 'cifar-100-python/test', _cifar_batch(rng, per_batch, 100, b'fine_labels'))
        _add(tar, 'cifar-100-python/meta', pickle.dumps({b'fine_label_names': [b'c%d' % i for i in range(100)]}))
    return [path10, path100]


def write_imdb(data_home: str, docs_per_dir: int = 40, seed: int = 0) -> str:
    rng = np.random.RandomState(seed)
    path = _path(data_home, imdb.URL, 'imdb')
    with tarfile.open(path, 'w:gz') as tar:
        for part in ('train', 'test'):
            for label in ('pos', 'neg'):
                for i in range(docs_per_dir):
                    words = _sentence(rng, WORDS, 20, 60)
                    text = ' '.join(words).capitalize() + '. It was "%s"!<br />\n' % words[-1]
                    _add(tar, 'aclImdb/%s/%s/%d_%d.txt' % (part, label, i, rng.randint(1, 11)), text.encode())
        _add(tar, 'aclImdb/README', b'synthetic\n')
    return path


def write_imikolov(data_home: str, train_lines: int = 1800, valid_lines: int = 300, seed: int = 0) -> str:
    """A vocabulary of 240 words seen about 100 times each (build_dict's default cut-off is 50), plus a few
    frequent ones: the book's word2vec infers on word id 211."""
    rng = np.random.RandomState(seed)
    path = _path(data_home, imikolov.URL, 'imikolov')
    vocab = WORDS + ['<unk>', 'N', '$'] + ['w%03d' % i for i in range(217)]
    with tarfile.open(path, 'w:gz') as tar:
        for name, lines in ((imikolov.TRAIN_FILE, train_lines), (imikolov.VALID_FILE, valid_lines)):
            text = ''.join(' ' + ' '.join(_sentence(rng, vocab, 6, 18, zipf=False)) + ' \n' for _ in range(lines))
            _add(tar, name, text.encode())
        _add(tar, './simple-examples/data/ptb.test.txt', b' the movie \n')
    return path


def write_movielens(data_home: str, users: int = 30, movies: int = 40, ratings: int = 600, seed: int = 0) -> str:
    rng = np.random.RandomState(seed)
    path = _path(data_home, movielens.URL, 'movielens')
    genres = ['Action', 'Comedy', 'Drama', "Children's", 'Sci-Fi', 'Film-Noir', 'Romance']
    title_words = ['The', 'Last', 'Story', 'of', 'Love', 'Night', 'City', 'Man', 'Dark', 'Toy', 'Café']
    movie_ids = [3 * m for m in range(1, movies)] + [783]      # gaps, as the real ids; the book infers on 783
    movie_lines = []
    for m in range(1, movies + 1):
        title = ' '.join(rng.choice(title_words, rng.randint(1, 4)))
        cats = '|'.join(sorted(set(rng.choice(genres, rng.randint(1, 3)))))
        movie_lines.append('%d::%s (%d)::%s\n' % (movie_ids[m - 1], title, 1950 + m, cats))
    user_lines = ['%d::%s::%d::%d::%05d\n' % (u, rng.choice(['M', 'F']), rng.choice(movielens.age_table),
                                               rng.randint(0, 21), rng.randint(10000, 99999))
                  for u in range(1, users + 1)]
    rating_lines = ['%d::%d::%d::%d\n' % (rng.randint(1, users + 1), movie_ids[rng.randint(0, movies)],
                                          rng.randint(1, 6), 978300000 + i) for i in range(ratings)]
    with zipfile.ZipFile(path, 'w') as z:
        for name, lines in (('movies', movie_lines), ('users', user_lines), ('ratings', rating_lines)):
            z.writestr(zipfile.ZipInfo('ml-1m/%s.dat' % name, (1980, 1, 1, 0, 0, 0)),
                       ''.join(lines).encode('latin'))
    return path


def write_conll05(data_home: str, sentences: int = 30, emb_dim: int = 32, seed: int = 0) -> list:
    rng = np.random.RandomState(seed)
    vocab = ['<unk>'] + [w for w in WORDS] + ['bos', 'eos', 'is', 'was', 'ran']
    verbs = ['run', 'be', 'see', 'make', 'love']
    tags = ['A0', 'A1', 'A2', 'AM-TMP', 'AM-LOC', 'V']
    words_out, props_out = [], []
    for _ in range(sentences):
        n = int(rng.randint(4, 12))
        words = [str(w) for w in rng.choice(vocab[1:], n)]
        verb_pos = sorted(rng.choice(n, size=int(rng.randint(1, min(3, n) + 1)), replace=False))
        columns = []
        for v in verb_pos:
            col = ['*'] * n
            col[v] = '(V*)'
            for start in rng.choice([i for i in range(n) if i != v], size=min(2, n - 1), replace=False):
                if col[start] == '*' and (start + 1 >= n or col[start + 1] == '*') and start + 1 != v:
                    tag = str(rng.choice(tags[:-1]))
                    if start + 1 < n and rng.random_sample() < 0.5:
                        col[start], col[start + 1] = '(%s*' % tag, '*)'
                    else:
                        col[start] = '(%s*)' % tag
            columns.append(col)
        for i in range(n):
            words_out.append(words[i] + '\n')
            pred = str(rng.choice(verbs)) if i in verb_pos else '-'
            props_out.append(' '.join([pred] + [c[i] for c in columns]) + '\n')
        words_out.append('\n')
        props_out.append('\n')
    data_path = _path(data_home, conll05.DATA_URL, 'conll05st')
    with tarfile.open(data_path, 'w:gz') as tar:
        for name, lines in ((conll05.WORDS_NAME, words_out), (conll05.PROPS_NAME, props_out)):
            _add(tar, name, gzip.compress(''.join(lines).encode(), mtime=0))
    paths = [data_path]
    for url, lines in ((conll05.WORDDICT_URL, vocab), (conll05.VERBDICT_URL, verbs),
                       (conll05.TRGDICT_URL, ['B-' + t for t in tags] + ['I-' + t for t in tags] + ['O'])):
        path = _path(data_home, url, 'conll05st')
        with open(path, 'w') as f:
            f.write(''.join(line + '\n' for line in lines))
        paths.append(path)
    emb_path = _path(data_home, conll05.EMB_URL, 'conll05st')
    with open(emb_path, 'wb') as f:
        f.write(b'\0' * 16 + rng.standard_normal((len(vocab), emb_dim)).astype(np.float32).tobytes())
    return paths + [emb_path]


def _pairs(rng, src_words, trg_words, count) -> bytes:
    return ''.join('%s\t%s\n' % (' '.join(_sentence(rng, src_words, 2, 10)), ' '.join(_sentence(rng, trg_words, 2, 10)))
                   for _ in range(count)).encode()


FRENCH = ['le', 'la', 'un', 'film', 'bon', 'mauvais', 'histoire', 'acteur', 'musique', 'nuit', 'ville', 'amour']
GERMAN = ['der', 'die', 'das', 'ein', 'mann', 'frau', 'hund', 'spielt', 'auf', 'dem', 'rasen', 'im', 'wasser']


def write_wmt14(data_home: str, seed: int = 0) -> str:
    rng = np.random.RandomState(seed)
    path = _path(data_home, wmt14.URL_TRAIN, 'wmt14')
    with tarfile.open(path, 'w:gz') as tar:
        _add(tar, 'wmt14/src.dict', ''.join(w + '\n' for w in ['<s>', '<e>', '<unk>'] + FRENCH).encode())
        _add(tar, 'wmt14/trg.dict', ''.join(w + '\n' for w in ['<s>', '<e>', '<unk>'] + WORDS[:12]).encode())
        _add(tar, 'wmt14/train/train', _pairs(rng, FRENCH + ['inconnu'], WORDS, 200) + b'no tab line\n')
        _add(tar, 'wmt14/test/test', _pairs(rng, FRENCH, WORDS, 40))
        _add(tar, 'wmt14/gen/gen', _pairs(rng, FRENCH, WORDS, 10))
    return path


def write_wmt16(data_home: str, seed: int = 0) -> str:
    rng = np.random.RandomState(seed)
    path = _path(data_home, wmt16.DATA_URL, 'wmt16', 'wmt16.tar.gz')
    with tarfile.open(path, 'w:gz') as tar:
        _add(tar, 'wmt16/train', _pairs(rng, WORDS, GERMAN, 200))
        _add(tar, 'wmt16/test', _pairs(rng, WORDS, GERMAN, 40))
        _add(tar, 'wmt16/val', _pairs(rng, WORDS, GERMAN, 40))
    return path


def _mat_v5(arrays: dict) -> bytes:
    """A MATLAB 5 .mat file of 1 x n uint16 row vectors (the layout of imagelabels.mat and setid.mat; Paddle indexes
    with the values, so they are integers)."""
    out = io.BytesIO()
    out.write(b'MATLAB 5.0 MAT-file, synthetic'.ljust(116) + b'\0' * 8 + struct.pack('<H', 0x0100) + b'IM')

    def element(dtype: int, payload: bytes) -> bytes:
        pad = (-len(payload)) % 8
        return struct.pack('<II', dtype, len(payload)) + payload + b'\0' * pad

    for name, values in arrays.items():
        values = np.asarray(values, np.uint16).reshape(-1)
        body = (element(6, struct.pack('<II', 11, 0))                           # flags: mxUINT16_CLASS
                + element(5, struct.pack('<ii', 1, values.size))               # dims 1 x n
                + element(1, name.encode())                                    # name
                + element(4, values.tobytes()))                                # data: miUINT16
        out.write(element(14, body))                                           # miMATRIX
    return out.getvalue()


def write_flowers(data_home: str, images: int = 12, size: int = 40, seed: int = 0) -> list:
    """102flowers.tgz with `images` JPEGs, and the two .mat files (written without scipy). Needs Pillow."""
    image = pil_image()
    rng = np.random.RandomState(seed)
    data_path = _path(data_home, flowers.DATA_URL, 'flowers')
    with tarfile.open(data_path, 'w:gz') as tar:
        for i in range(1, images + 1):
            pixels = rng.randint(0, 256, (size, size + 8 * (i % 3), 3)).astype(np.uint8)
            buf = io.BytesIO()
            image.fromarray(pixels).save(buf, format='JPEG', quality=90)
            _add(tar, 'jpg/image_%05d.jpg' % i, buf.getvalue())
    ids = rng.permutation(np.arange(1, images + 1))
    third = images // 3
    label_path = _path(data_home, flowers.LABEL_URL, 'flowers')
    with open(label_path, 'wb') as f:
        f.write(_mat_v5({'labels': rng.randint(1, 103, images)}))
    setid_path = _path(data_home, flowers.SETID_URL, 'flowers')
    with open(setid_path, 'wb') as f:
        f.write(_mat_v5({'trnid': np.sort(ids[:third]), 'valid': np.sort(ids[third:2 * third]),
                         'tstid': np.sort(ids[2 * third:])}))
    return [data_path, label_path, setid_path]


WRITERS = {'uci_housing': write_uci_housing, 'mnist': write_mnist, 'cifar': write_cifar, 'imdb': write_imdb,
           'imikolov': write_imikolov, 'movielens': write_movielens, 'conll05': write_conll05,
           'wmt14': write_wmt14, 'wmt16': write_wmt16, 'flowers': write_flowers}


def populate(data_home: str, names=None) -> dict:
    """Writes the files of `names` (default: every dataset but flowers, which needs Pillow) under `data_home`."""
    names = [n for n in WRITERS if n != 'flowers'] if names is None else names
    return {name: WRITERS[name](data_home) for name in names}
