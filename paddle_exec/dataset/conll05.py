"""paddle.dataset.conll05: the CoNLL-2005 semantic role labelling test set and its dictionaries, as Paddle 1.8
reads them.

`test()` reads words and props (two gzip members of conll05st-tests.tar.gz) line by line; a blank props line ends
a sentence, and each predicate column of the sentence gives one sample of nine lists of equal length: word ids,
the five context word ids (two before the verb, the verb, two after; 'bos' / 'eos' past the ends), predicate id,
the verb-context mark (0/1) and label ids (B-x / I-x / O). Unknown words get id 0 (UNK_IDX).

Difference: Paddle numbered the label tags in the iteration order of a Python set of strings, which changed from
process to process (string hashing); here the tags are numbered in sorted order (B-x, I-x pairs, 'O' last as in
Paddle), the same every run.
"""
from __future__ import annotations

import gzip
import tarfile

from . import common

__all__ = ['test', 'get_dict', 'get_embedding']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz'
DATA_MD5 = '387719152ae52d60422c016e92a742fc'
WORDDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt'
WORDDICT_MD5 = 'ea7fb7d4c75cc6254716f0177a506baa'
VERBDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt'
VERBDICT_MD5 = '0d2977293bbb6cbefab5b0f97db1e77c'
TRGDICT_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt'
TRGDICT_MD5 = 'd8c7f03ceb5fc2e5a0fa7503a4353751'
EMB_URL = 'http://paddlemodels.bj.bcebos.com/conll05st%2Femb'
EMB_MD5 = 'bf436eb0faa1f6f9103017f8be57cdb7'

UNK_IDX = 0
WORDS_NAME = 'conll05st-release/test.wsj/words/test.wsj.words.gz'
PROPS_NAME = 'conll05st-release/test.wsj/props/test.wsj.props.gz'


def load_label_dict(filename: str) -> dict:
    tags = set()
    with open(filename) as f:
        for line in f:
            line = line.strip()
            if line.startswith('B-') or line.startswith('I-'):
                tags.add(line[2:])
    d = {}
    for index, tag in enumerate(sorted(tags)):
        d['B-' + tag] = 2 * index
        d['I-' + tag] = 2 * index + 1
    d['O'] = 2 * len(tags)
    return d


def load_dict(filename: str) -> dict:
    with open(filename) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def _bracket_labels(lbl: list) -> list:
    """One props column ('(A0*', '*', '*)', '(V*)', ...) as B-/I-/O tags."""
    cur_tag = 'O'
    is_in_bracket = False
    lbl_seq = []
    for tok in lbl:
        if tok == '*' and not is_in_bracket:
            lbl_seq.append('O')
        elif tok == '*' and is_in_bracket:
            lbl_seq.append('I-' + cur_tag)
        elif tok == '*)':
            lbl_seq.append('I-' + cur_tag)
            is_in_bracket = False
        elif tok.find('(') != -1 and tok.find(')') != -1:
            cur_tag = tok[1:tok.find('*')]
            lbl_seq.append('B-' + cur_tag)
            is_in_bracket = False
        elif tok.find('(') != -1 and tok.find(')') == -1:
            cur_tag = tok[1:tok.find('*')]
            lbl_seq.append('B-' + cur_tag)
            is_in_bracket = True
        else:
            raise RuntimeError('Unexpected label: %s' % tok)
    return lbl_seq


def corpus_reader(data_path: str, words_name: str, props_name: str):
    """A reader of (sentence words, predicate, B-/I-/O tags), one per predicate of each sentence."""

    def reader():
        with tarfile.open(data_path) as tf:
            wf = tf.extractfile(words_name)
            pf = tf.extractfile(props_name)
            with gzip.GzipFile(fileobj=wf) as words_file, gzip.GzipFile(fileobj=pf) as props_file:
                sentences, one_seg = [], []
                for word, label in zip(words_file, props_file):
                    word = word.strip().decode()
                    label = label.decode().strip().split()
                    if len(label) == 0:      # end of sentence
                        labels = [[x[i] for x in one_seg] for i in range(len(one_seg[0]))]
                        if len(labels) >= 1:
                            verb_list = [x for x in labels[0] if x != '-']
                            for i, lbl in enumerate(labels[1:]):
                                yield sentences, verb_list[i], _bracket_labels(lbl)
                        sentences, one_seg = [], []
                    else:
                        sentences.append(word)
                        one_seg.append(label)

    return reader


def reader_creator(corpus_reader, word_dict=None, predicate_dict=None, label_dict=None):
    def reader():
        for sentence, predicate, labels in corpus_reader():
            sen_len = len(sentence)
            verb_index = labels.index('B-V')
            mark = [0] * len(labels)
            if verb_index > 0:
                mark[verb_index - 1] = 1
                ctx_n1 = sentence[verb_index - 1]
            else:
                ctx_n1 = 'bos'
            if verb_index > 1:
                mark[verb_index - 2] = 1
                ctx_n2 = sentence[verb_index - 2]
            else:
                ctx_n2 = 'bos'
            mark[verb_index] = 1
            ctx_0 = sentence[verb_index]
            if verb_index < len(labels) - 1:
                mark[verb_index + 1] = 1
                ctx_p1 = sentence[verb_index + 1]
            else:
                ctx_p1 = 'eos'
            if verb_index < len(labels) - 2:
                mark[verb_index + 2] = 1
                ctx_p2 = sentence[verb_index + 2]
            else:
                ctx_p2 = 'eos'

            word_idx = [word_dict.get(w, UNK_IDX) for w in sentence]
            ctx_n2_idx = [word_dict.get(ctx_n2, UNK_IDX)] * sen_len
            ctx_n1_idx = [word_dict.get(ctx_n1, UNK_IDX)] * sen_len
            ctx_0_idx = [word_dict.get(ctx_0, UNK_IDX)] * sen_len
            ctx_p1_idx = [word_dict.get(ctx_p1, UNK_IDX)] * sen_len
            ctx_p2_idx = [word_dict.get(ctx_p2, UNK_IDX)] * sen_len
            pred_idx = [predicate_dict.get(predicate)] * sen_len
            label_idx = [label_dict.get(w) for w in labels]
            yield word_idx, ctx_n2_idx, ctx_n1_idx, ctx_0_idx, ctx_p1_idx, ctx_p2_idx, pred_idx, mark, label_idx

    return reader


def get_dict():
    """(word dict, verb dict, label dict) of the Wikipedia corpus."""
    word_dict = load_dict(common.download(WORDDICT_URL, 'conll05st', WORDDICT_MD5))
    verb_dict = load_dict(common.download(VERBDICT_URL, 'conll05st', VERBDICT_MD5))
    label_dict = load_label_dict(common.download(TRGDICT_URL, 'conll05st', TRGDICT_MD5))
    return word_dict, verb_dict, label_dict


def get_embedding() -> str:
    """The path of the trained word vectors (the book reads them with its own loader)."""
    return common.download(EMB_URL, 'conll05st', EMB_MD5)


def test():
    """The test set creator (Paddle trains on it, the training set not being free): nine lists per sample."""
    word_dict, verb_dict, label_dict = get_dict()
    reader = corpus_reader(common.download(DATA_URL, 'conll05st', DATA_MD5), words_name=WORDS_NAME,
                           props_name=PROPS_NAME)
    return reader_creator(reader, word_dict, verb_dict, label_dict)


def fetch() -> None:
    common.download(WORDDICT_URL, 'conll05st', WORDDICT_MD5)
    common.download(VERBDICT_URL, 'conll05st', VERBDICT_MD5)
    common.download(TRGDICT_URL, 'conll05st', TRGDICT_MD5)
    common.download(EMB_URL, 'conll05st', EMB_MD5)
    common.download(DATA_URL, 'conll05st', DATA_MD5)
