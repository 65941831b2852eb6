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

Each metric is one numba loop over the sequences (`_edit_distances`, `_chunk_counts`).
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
def _levenshtein(a, b, prev, cur):
    """Edit distance of id arrays a and b; prev and cur are scratch rows of at least len(b) + 1."""
    m, n = a.shape[0], b.shape[0]
    if m == 0:
        return n
    if n == 0:
        return m
    for j in range(n + 1):
        prev[j] = j
    for i in range(1, m + 1):
        cur[0] = i
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, min(cur[j - 1] + 1, prev[j - 1] + cost))
        for j in range(n + 1):
            prev[j] = cur[j]
    return prev[n]


@_jit
def _edit_distances(h_flat, h_start, h_len, r_flat, r_start, r_len, normalized, out):
    longest = 0
    for k in range(r_len.shape[0]):
        longest = max(longest, r_len[k])
    prev = np.empty(longest + 1, np.int64)
    cur = np.empty(longest + 1, np.int64)
    for k in range(h_len.shape[0]):
        d = _levenshtein(h_flat[h_start[k]:h_start[k] + h_len[k]], r_flat[r_start[k]:r_start[k] + r_len[k]],
                         prev, cur)
        out[k, 0] = np.float32(d) / np.float32(r_len[k]) if normalized else np.float32(d)


def edit_distance(hyps, hyp_seqs, refs, ref_seqs, normalized: bool):
    """Returns (distances [N, 1] float32, sequence count [1] int64)."""
    h_flat = np.ascontiguousarray(hyps, np.int64).reshape(-1)
    r_flat = np.ascontiguousarray(refs, np.int64).reshape(-1)
    h_start, h_len = hyp_seqs
    r_start, r_len = ref_seqs
    if normalized and np.any(r_len <= 0):
        bad = int(np.argmax(r_len <= 0))
        raise ValueError("operator 'edit_distance': Reference string %d is empty. (The reference string cannot be "
                         "empty when Attr(normalized) is enabled.)" % (bad + 1))
    out = np.empty((h_len.size, 1), np.float32)
    _edit_distances(h_flat, np.asarray(h_start, np.int64), np.asarray(h_len, np.int64), r_flat,
                    np.asarray(r_start, np.int64), np.asarray(r_len, np.int64), bool(normalized), out)
    return out, np.array([h_len.size], np.int64)


_SCHEMES = {  # num_tag_types, begin, inside, end, single
    'IOB': (2, 0, 1, -1, -1),
    'IOE': (2, -1, 0, 1, -1),
    'IOBES': (4, 0, 1, 2, 3),
    'plain': (1, -1, -1, -1, -1),
}


@_jit
def _chunk_end(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
    if prev_type == other:
        return False
    if type_ == other or type_ != prev_type:
        return True
    if prev_tag == begin or prev_tag == inside:
        return tag == begin or tag == single
    return prev_tag == end or prev_tag == single


@_jit
def _chunk_begin(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
    if prev_type == other:
        return type_ != other
    if type_ == other:
        return False
    if type_ != prev_type or tag == begin:
        return True
    if tag == inside or tag == end:
        return prev_tag == end or prev_tag == single
    return tag == single


@_jit
def _segments(labels, start, length, num_chunk_types, scheme, seg):
    """Writes the chunks of labels[start:start+length] as rows (begin, end, type) of seg; returns their count, or
    -1 - i when label i is out of range."""
    n_tags, begin, inside, end, single = scheme[0], scheme[1], scheme[2], scheme[3], scheme[4]
    other = num_chunk_types
    count = 0
    chunk_start, in_chunk, tag, type_ = 0, False, -1, other
    for i in range(length):
        label = labels[start + i]
        if label > num_chunk_types * n_tags:
            return -1 - (start + i)
        prev_tag, prev_type = tag, type_
        tag, type_ = label % n_tags, label // n_tags
        if in_chunk and _chunk_end(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
            seg[count, 0], seg[count, 1], seg[count, 2] = chunk_start, i - 1, prev_type
            count += 1
            in_chunk = False
        if _chunk_begin(prev_tag, prev_type, tag, type_, other, begin, inside, end, single):
            chunk_start, in_chunk = i, True
    if in_chunk:
        seg[count, 0], seg[count, 1], seg[count, 2] = chunk_start, length - 1, type_
        count += 1
    return count


@_jit
def _chunk_counts(inf, lab, starts, lengths, num_chunk_types, scheme, excluded, counts):
    """counts = (inferred, labelled, correct) chunks over every sequence; returns -1 or the bad label's index."""
    longest = 1
    for k in range(lengths.shape[0]):
        longest = max(longest, lengths[k])
    out_seg = np.empty((longest, 3), np.int64)
    lab_seg = np.empty((longest, 3), np.int64)
    for k in range(starts.shape[0]):
        n_out = _segments(inf, starts[k], lengths[k], num_chunk_types, scheme, out_seg)
        if n_out < 0:
            return -1 - n_out, 0
        n_lab = _segments(lab, starts[k], lengths[k], num_chunk_types, scheme, lab_seg)
        if n_lab < 0:
            return -1 - n_lab, 1
        i = j = 0
        while i < n_out and j < n_lab:
            same = out_seg[i, 0] == lab_seg[j, 0] and out_seg[i, 1] == lab_seg[j, 1] and out_seg[i, 2] == lab_seg[j, 2]
            if same and not excluded[out_seg[i, 2]]:
                counts[2] += 1
            if out_seg[i, 1] < lab_seg[j, 1]:
                i += 1
            elif out_seg[i, 1] > lab_seg[j, 1]:
                j += 1
            else:
                i += 1
                j += 1
        for i in range(n_lab):
            if not excluded[lab_seg[i, 2]]:
                counts[1] += 1
        for i in range(n_out):
            if not excluded[out_seg[i, 2]]:
                counts[0] += 1
    return -1, 0


def chunk_eval(inference, label, seqs, num_chunk_types: int, scheme: str, excluded=()):
    """Returns (precision, recall, f1 as float32 [1], num_infer, num_label, num_correct as int64 [1])."""
    if scheme not in _SCHEMES:
        raise ValueError('Unknown chunk scheme %r' % (scheme,))
    spec = np.array(_SCHEMES[scheme], np.int64)
    inf = np.ascontiguousarray(inference, np.int64).reshape(-1)
    lab = np.ascontiguousarray(label, np.int64).reshape(-1)
    # a chunk's type is at most label // n_tags <= num_chunk_types (the "outside" type)
    is_excluded = np.zeros(num_chunk_types + 1, np.bool_)
    for t in excluded:
        if 0 <= int(t) <= num_chunk_types:
            is_excluded[int(t)] = True
    counts = np.zeros(3, np.int64)
    starts, lengths = (np.asarray(a, np.int64) for a in seqs)
    bad, which = _chunk_counts(inf, lab, starts, lengths, int(num_chunk_types), spec, is_excluded, counts)
    if bad >= 0:
        value = (inf if which == 0 else lab)[bad]
        raise ValueError('The value of Input(Label) should be less than the number of chunk types times the '
                         'number of tag types, but received %d (Label) vs %d (chunk types) * %d (tag types).'
                         % (value, num_chunk_types, spec[0]))
    n_infer, n_label, n_correct = (int(c) for c in counts)
    f = np.float32
    precision = f(0) if not n_infer else f(n_correct) / f(n_infer)
    recall = f(0) if not n_label else f(n_correct) / f(n_label)
    f1 = f(0) if not n_correct else f(2) * precision * recall / (precision + recall)
    as_f, as_i = (lambda v: np.array([v], np.float32)), (lambda v: np.array([v], np.int64))
    return as_f(precision), as_f(recall), as_f(f1), as_i(n_infer), as_i(n_label), as_i(n_correct)
