"""Metrics over label sequences, as Paddle's CPU kernels compute them: edit_distance (Levenshtein) and chunk_eval
(precision / recall / F1 of labelled chunks, the CoNLL way).

Sequences come either as offsets into a flat array (a LoD level: sequence i is data[offsets[i]:offsets[i+1]]) or
padded with lengths (sequence i is row i, its first length[i] entries); `sequences()` turns both into
(start, length) pairs.

edit_distance: insertions, deletions and substitutions all cost 1; an empty hypothesis is as far as the
reference is long and vice versa; `normalized` divides by the reference length (which must not be 0). The
result is float32.

chunk_eval: a label is `type * num_tag_types + tag` (tags per scheme: IOB = B, I; IOE = I, E; IOBES = B, I, E, S;
plain = one tag), type `num_chunk_types` is "outside". Chunks start and end by Paddle's ChunkBegin / ChunkEnd
rules; a chunk counts as correct when the inferred and the labelled chunk have the same begin, end and type.
Types in `excluded` are not counted.
"""
import numpy as np

from .jit import kernel_jit

__all__ = ['sequences', 'edit_distance', 'chunk_eval']

_jit = kernel_jit()


def sequences(n_rows: int, offsets=None, lengths=None, row_width: int = 0):
    """(starts, lengths) of each sequence, from LoD offsets or from padded rows of `row_width` with `lengths`."""
    if lengths is not None:
        lens = np.asarray(lengths, np.int64).reshape(-1)
        return np.arange(lens.size, dtype=np.int64) * row_width, lens
    offs = np.asarray(offsets, np.int64).reshape(-1)
    return offs[:-1].copy(), np.diff(offs)


@_jit
def _levenshtein(a, b):
    m, n = a.shape[0], b.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    prev = np.arange(n + 1)
    cur = np.empty(n + 1, np.int64)
    for i in range(1, m + 1):
        cur[0] = i
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, min(cur[j - 1] + 1, prev[j - 1] + cost))
        prev, cur = cur, prev
    return prev[n]


def edit_distance(hyps, hyp_seqs, refs, ref_seqs, normalized: bool):
    """Returns (distances [N, 1] float32, sequence count [1] int64)."""
    h_flat = np.ascontiguousarray(hyps, np.int64).reshape(-1)
    r_flat = np.ascontiguousarray(refs, np.int64).reshape(-1)
    h_start, h_len = hyp_seqs
    r_start, r_len = ref_seqs
    if normalized and np.any(r_len <= 0):
        bad = int(np.argmax(r_len <= 0))
        raise ValueError("operator 'edit_distance': The reference string (#%d) cannot be empty when "
                         "Attr(normalized) is enabled." % bad)
    out = np.empty((h_len.size, 1), np.float32)
    for k in range(h_len.size):
        d = _levenshtein(h_flat[h_start[k]:h_start[k] + h_len[k]], r_flat[r_start[k]:r_start[k] + r_len[k]])
        out[k, 0] = np.float32(d) / np.float32(r_len[k]) if normalized else np.float32(d)
    return out, np.array([h_len.size], np.int64)


_SCHEMES = {  # num_tag_types, begin, inside, end, single
    'IOB': (2, 0, 1, -1, -1),
    'IOE': (2, -1, 0, 1, -1),
    'IOBES': (4, 0, 1, 2, 3),
    'plain': (1, -1, -1, -1, -1),
}


def _chunk_end(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
    if prev_type == other:
        return False
    if type_ == other or type_ != prev_type:
        return True
    if prev_tag in (begin, inside):
        return tag in (begin, single)
    return prev_tag in (end, single)


def _chunk_begin(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
    if prev_type == other:
        return type_ != other
    if type_ == other:
        return False
    if type_ != prev_type or tag == begin:
        return True
    if tag in (inside, end):
        return prev_tag in (end, single)
    return tag == single


def _segments(labels, num_chunk_types, scheme):
    n_tags, begin, inside, end, single = scheme
    other = num_chunk_types
    segments = []
    start, in_chunk, tag, type_ = 0, False, -1, other
    for i, label in enumerate(labels):
        label = int(label)
        if label > num_chunk_types * n_tags:
            raise ValueError('The value of Input(Label) should be less than the number of chunk types times the '
                             'number of tag types, but received %d (Label) vs %d (chunk types) * %d (tag types).'
                             % (label, num_chunk_types, n_tags))
        prev_tag, prev_type = tag, type_
        tag, type_ = label % n_tags, label // n_tags
        if in_chunk and _chunk_end(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
            segments.append((start, i - 1, prev_type))
            in_chunk = False
        if _chunk_begin(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
            start, in_chunk = i, True
    if in_chunk:
        segments.append((start, len(labels) - 1, type_))
    return segments


def chunk_eval(inference, label, seqs, num_chunk_types: int, scheme: str, excluded=()):
    """Returns (precision, recall, f1 as float32 [1], num_infer, num_label, num_correct as int64 [1])."""
    if scheme not in _SCHEMES:
        raise ValueError('Unknown chunk scheme %r' % (scheme,))
    spec = _SCHEMES[scheme]
    inf = np.asarray(inference, np.int64).reshape(-1)
    lab = np.asarray(label, np.int64).reshape(-1)
    excluded = set(int(t) for t in excluded)
    n_infer = n_label = n_correct = 0
    for start, length in zip(*seqs):
        out_seg = _segments(inf[start:start + length], num_chunk_types, spec)
        lab_seg = _segments(lab[start:start + length], num_chunk_types, spec)
        i = j = 0
        while i < len(out_seg) and j < len(lab_seg):
            if out_seg[i] == lab_seg[j] and out_seg[i][2] not in excluded:
                n_correct += 1
            if out_seg[i][1] < lab_seg[j][1]:
                i += 1
            elif out_seg[i][1] > lab_seg[j][1]:
                j += 1
            else:
                i, j = i + 1, j + 1
        n_label += sum(1 for s in lab_seg if s[2] not in excluded)
        n_infer += sum(1 for s in out_seg if s[2] not in excluded)
    f = np.float32
    precision = f(0) if not n_infer else f(n_correct) / f(n_infer)
    recall = f(0) if not n_label else f(n_correct) / f(n_label)
    f1 = f(0) if not n_correct else f(2) * precision * recall / (precision + recall)
    as_f, as_i = (lambda v: np.array([v], np.float32)), (lambda v: np.array([v], np.int64))
    return as_f(precision), as_f(recall), as_f(f1), as_i(n_infer), as_i(n_label), as_i(n_correct)
