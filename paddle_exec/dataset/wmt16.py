"""paddle.dataset.wmt16: the Multi30K English-German set of the WMT16 multimodal task (wmt16.tar.gz), as Paddle
1.8 reads it.

Dictionaries are built from 'wmt16/train' on first use and kept as DATA_HOME/wmt16/<lang>_<size>.dict: <s>, <e>,
<unk>, then the words by falling frequency (ties in first-seen order, Python's stable sort) up to `dict_size`
lines. A sample is (<s> + source ids + <e>, <s> + target ids, target ids + <e>), unknown words as the <unk> id.
"""
from __future__ import annotations

import os
import tarfile
from collections import defaultdict

from . import common

__all__ = ['train', 'test', 'validation', 'fetch', 'get_dict']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz'
DATA_MD5 = '0c38be43600334966403524a40dcd81e'

TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220

START_MARK = '<s>'
END_MARK = '<e>'
UNK_MARK = '<unk>'


def _build_dict(tar_file: str, dict_size: int, save_path: str, lang: str) -> None:
    word_dict = defaultdict(int)
    with tarfile.open(tar_file, mode='r') as f:
        for line in f.extractfile('wmt16/train'):
            line_split = line.decode().strip().split('\t')
            if len(line_split) != 2:
                continue
            sen = line_split[0] if lang == 'en' else line_split[1]
            for w in sen.split():
                word_dict[w] += 1
    with open(save_path, 'wb') as fout:
        fout.write(('%s\n%s\n%s\n' % (START_MARK, END_MARK, UNK_MARK)).encode())
        for idx, word in enumerate(sorted(word_dict.items(), key=lambda x: x[1], reverse=True)):
            if idx + 3 == dict_size:
                break
            fout.write(word[0].encode())
            fout.write(b'\n')


def _load_dict(tar_file: str, dict_size: int, lang: str, reverse: bool = False) -> dict:
    dict_path = os.path.join(common.DATA_HOME, 'wmt16/%s_%d.dict' % (lang, dict_size))
    if not os.path.exists(dict_path) or len(open(dict_path, 'rb').readlines()) != dict_size:
        _build_dict(tar_file, dict_size, dict_path, lang)
    word_dict = {}
    with open(dict_path, 'rb') as fdict:
        for idx, line in enumerate(fdict):
            if reverse:
                word_dict[idx] = line.strip().decode()
            else:
                word_dict[line.strip().decode()] = idx
    return word_dict


def _get_dict_size(src_dict_size: int, trg_dict_size: int, src_lang: str):
    src_dict_size = min(src_dict_size, TOTAL_EN_WORDS if src_lang == 'en' else TOTAL_DE_WORDS)
    trg_dict_size = min(trg_dict_size, TOTAL_DE_WORDS if src_lang == 'en' else TOTAL_EN_WORDS)
    return src_dict_size, trg_dict_size


def reader_creator(tar_file: str, file_name: str, src_dict_size: int, trg_dict_size: int, src_lang: str):
    def reader():
        src_dict = _load_dict(tar_file, src_dict_size, src_lang)
        trg_dict = _load_dict(tar_file, trg_dict_size, 'de' if src_lang == 'en' else 'en')
        # the marks have the same ids in both languages; Paddle takes them from the source dictionary
        start_id = src_dict[START_MARK]
        end_id = src_dict[END_MARK]
        unk_id = src_dict[UNK_MARK]
        src_col = 0 if src_lang == 'en' else 1
        trg_col = 1 - src_col
        with tarfile.open(tar_file, mode='r') as f:
            for line in f.extractfile(file_name):
                line_split = line.decode().strip().split('\t')
                if len(line_split) != 2:
                    continue
                src_ids = [start_id] + [src_dict.get(w, unk_id) for w in line_split[src_col].split()] + [end_id]
                trg_ids = [trg_dict.get(w, unk_id) for w in line_split[trg_col].split()]
                trg_ids_next = trg_ids + [end_id]
                trg_ids = [start_id] + trg_ids
                yield src_ids, trg_ids, trg_ids_next

    return reader


def _creator(file_name: str, src_dict_size: int, trg_dict_size: int, src_lang: str):
    if src_lang not in ['en', 'de']:
        raise ValueError('An error language type.  Only support: en (for English); de(for Germany).')
    src_dict_size, trg_dict_size = _get_dict_size(src_dict_size, trg_dict_size, src_lang)
    return reader_creator(tar_file=common.download(DATA_URL, 'wmt16', DATA_MD5, 'wmt16.tar.gz'),
                          file_name=file_name, src_dict_size=src_dict_size, trg_dict_size=trg_dict_size,
                          src_lang=src_lang)


def train(src_dict_size: int, trg_dict_size: int, src_lang: str = 'en'):
    """The training set reader: (source ids, target ids, next target ids)."""
    return _creator('wmt16/train', src_dict_size, trg_dict_size, src_lang)


def test(src_dict_size: int, trg_dict_size: int, src_lang: str = 'en'):
    """The test set reader: (source ids, target ids, next target ids)."""
    return _creator('wmt16/test', src_dict_size, trg_dict_size, src_lang)


def validation(src_dict_size: int, trg_dict_size: int, src_lang: str = 'en'):
    """The validation set reader: (source ids, target ids, next target ids)."""
    return _creator('wmt16/val', src_dict_size, trg_dict_size, src_lang)


def get_dict(lang: str, dict_size: int, reverse: bool = False) -> dict:
    """The dictionary of `lang` built by an earlier train/test/validation call (word -> id, or id -> word)."""
    dict_size = min(dict_size, TOTAL_EN_WORDS if lang == 'en' else TOTAL_DE_WORDS)
    dict_path = os.path.join(common.DATA_HOME, 'wmt16/%s_%d.dict' % (lang, dict_size))
    assert os.path.exists(dict_path), 'Word dictionary does not exist. '
    tar_file = os.path.join(common.DATA_HOME, 'wmt16.tar.gz')
    return _load_dict(tar_file, dict_size, lang, reverse)


def fetch() -> None:
    common.download(DATA_URL, 'wmt16', DATA_MD5, 'wmt16.tar.gz')
