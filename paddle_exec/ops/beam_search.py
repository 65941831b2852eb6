"""Beam search for inference (Paddle 1.8's beam_search and beam_search_decode ops; no gradients).

    beam_search(pre_ids, pre_scores, ids?, scores) -> selected_ids, selected_scores, parent_idx?
        attrs level, beam_size, end_id, is_accumulated
    beam_search_decode(Ids, Scores) -> SentenceIds, SentenceScores          attrs beam_size, end_id
    gather_tree(Ids, Parents) -> Out        [time, batch, beam]: each final beam's ids along its parents

beam_search follows Paddle's CPU BeamSearchFunctor (operators/math/beam_search.cc). `scores` carries a 2-level
LoD: level `level` groups the prefixes (rows) by source sentence. For each source, every candidate of every prefix
competes for beam_size places: a prefix whose pre_id is end_id offers only (end_id, its pre_score); any other row
offers each of its columns (id from `ids`, or the column index without it; score the accumulated score, or
pre_score + log(score) when not is_accumulated). Equal scores go to the later prefix, as Paddle's Item order
has it. The winners are grouped back by prefix, and a source all of whose winners are end_id
after an end_id prefix is pruned (its beams are done). selected_* are [winners, 1] with the LoD (the source
level of scores, offsets of the winners per prefix); parent_idx is the prefix of each winner.

beam_search_decode backtraces the arrays of per-step selected ids / scores (each with that 2-level LoD) from
the last step to the first, as Paddle's BeamSearchDecoder::Backtrace: a source starts at the step where it was
pruned (or the last), one hypothesis per candidate there, and follows each hypothesis's prefix down the steps,
skipping repeated end tokens. The hypotheses of a source are sorted by their final score, best first (a stable
sort here), and written with a 2-level LoD: sources -> sentences -> words.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from .tensor_array import array_value

__all__ = ['beam_search_select', 'backtrace', 'gather_tree_rows']

defop('beam_search', ['pre_ids', 'pre_scores', 'ids', 'scores'], ['selected_ids', 'selected_scores', 'parent_idx'],
      {'level': 0, 'beam_size': 1, 'end_id': 0, 'is_accumulated': True}, dispensable=['ids', 'parent_idx'])
defop('beam_search_decode', ['Ids', 'Scores'], ['SentenceIds', 'SentenceScores'], {'beam_size': 1, 'end_id': 0})


def _abs_offsets(lod, level: int) -> np.ndarray:
    """Level `level` of the LoD in row offsets (Paddle's ToAbsOffset)."""
    offsets = np.asarray(lod[level], np.int64)
    for lower in lod[level + 1:]:
        offsets = np.asarray(lower, np.int64)[offsets]
    return offsets


def beam_search_select(pre_ids, pre_scores, ids, scores, lod, level: int, beam_size: int, end_id: int,
                       is_accumulated: bool):
    """(selected ids, selected scores, parent prefix of each, the output LoD): see the module docstring."""
    high = _abs_offsets(lod, level)
    pre_ids = np.asarray(pre_ids).reshape(-1)
    pre_scores = np.asarray(pre_scores, np.float32).reshape(-1)
    scores = np.asarray(scores)
    width = int(np.prod(scores.shape[1:])) if scores.ndim > 1 else 1
    flat_scores = scores.reshape(-1)
    flat_ids = None if ids is None else np.asarray(ids).reshape(-1)
    n_prefix = int(high[-1])
    per_prefix: list = [[] for _ in range(n_prefix)]
    for src in range(high.shape[0] - 1):
        offsets, item_ids, item_scores = [], [], []
        for row in range(int(high[src]), int(high[src + 1])):
            if int(pre_ids[row]) == end_id:
                offsets.append(row)
                item_ids.append(end_id)
                item_scores.append(pre_scores[row])
                continue
            cols = np.arange(row * width, (row + 1) * width)
            offsets.extend([row] * width)
            item_ids.extend(flat_ids[cols].tolist() if flat_ids is not None else range(width))
            s = flat_scores[cols].astype(np.float32)
            item_scores.extend((s if is_accumulated else pre_scores[row] + np.log(s).astype(np.float32)).tolist())
        if not offsets:
            continue
        # the best beam_size as Paddle's sorted insertion orders them: higher score first, then the higher prefix
        # offset (its Item < compares offsets), then the earlier candidate
        order = sorted(range(len(offsets)), key=lambda k: (-np.float32(item_scores[k]), -offsets[k], k))
        for k in order[:beam_size]:
            per_prefix[offsets[k]].append((int(item_ids[k]), np.float32(item_scores[k])))
    for src in range(high.shape[0] - 1):     # prune a source whose beams have all ended
        rows = range(int(high[src]), int(high[src + 1]))
        if all(item[0] == end_id and int(pre_ids[row]) == end_id for row in rows for item in per_prefix[row]):
            for row in rows:
                per_prefix[row] = []
    low = np.zeros(n_prefix + 1, np.int64)
    np.cumsum([len(items) for items in per_prefix], out=low[1:])
    sel_ids = np.array([i for items in per_prefix for i, _ in items], np.int64).reshape(-1, 1)
    sel_scores = np.array([s for items in per_prefix for _, s in items], np.float32).reshape(-1, 1)
    parent = np.repeat(np.arange(n_prefix, dtype=np.int32), np.diff(low))
    return sel_ids, sel_scores, parent, as_lod([high, low])


@shape_rule('beam_search')
def _beam_search_shape(ctx):
    ctx.set_output('selected_ids', (-1, 1), 'int64')
    ctx.set_output('selected_scores', (-1, 1), 'float32')
    if ctx.has_output('parent_idx'):
        ctx.set_output('parent_idx', (-1,), 'int32')


@lod_rule('beam_search')
def _beam_search_lod(ctx):
    ctx.read('scores')
    ctx.compute('selected_ids', 2)
    ctx.compute('selected_scores', 2)


@kernel_rule('beam_search')
def _beam_search_kernel(spec):
    level, beam_size = int(spec.attr('level')), int(spec.attr('beam_size'))
    end_id, accumulated = int(spec.attr('end_id')), bool(spec.attr('is_accumulated'))

    def run(pre_ids, pre_scores, ids, scores, scores_lod):
        if not scores_lod or len(scores_lod) <= level:
            raise EnforceNotMet("beam_search: Input(scores) needs a LoD with more than %d levels, got %d"
                                % (level, len(scores_lod or ())))
        sel_ids, sel_scores, parent, lod = beam_search_select(pre_ids, pre_scores, ids, scores, scores_lod, level,
                                                              beam_size, end_id, accumulated)
        return sel_ids, sel_scores, parent, lod, lod
    return run


# --- beam_search_decode -------------------------------------------------------------------------------------------

def backtrace(step_ids: list, step_scores: list, beam_size: int, end_id: int):
    """(ids, scores, 2-level LoD) of the hypotheses: see the module docstring. Each step is (values, LoD)."""
    if not step_ids:
        raise EnforceNotMet("Input(Ids) should not be empty.But the Input(Ids) is empty.")
    if len(step_ids) != len(step_scores):
        raise EnforceNotMet("The size of Input(Ids) and Input(Scores) should be the same. But the size of "
                            "Input(Ids) and Input(Scores) are not equal.")
    src_num = len(step_ids[0][1][0]) - 1
    sentences = [[([], []) for _ in range(beam_size)] for _ in range(src_num)]
    prefixes: list = [[] for _ in range(src_num)]
    for step in range(len(step_ids) - 1, -1, -1):
        ids, lod = step_ids[step]
        ids = np.asarray(ids).reshape(-1)
        scores = np.asarray(step_scores[step][0]).reshape(-1)
        source, sentence = lod[0], lod[1]
        for src in range(src_num):
            sent, prefix = sentences[src], prefixes[src]
            start, end = int(source[src]), int(source[src + 1])
            if not prefix:               # pruned at this step, or the last step
                for p in range(start, end):
                    for cand in range(int(sentence[p]), int(sentence[p + 1])):
                        prefix.append(p)
                        k = len(prefix) - 1
                        if k >= len(sent):
                            sent.append(([], []))
                        sent[k][0].append(int(ids[cand]))
                        sent[k][1].append(scores[cand])
                continue
            cand_start = int(sentence[start])
            p = start
            n = int(sentence[p + 1]) - int(sentence[p])
            for k, cand in enumerate(prefix):
                word = int(ids[cand])
                if word != end_id or not sent[k][0]:          # skip repeated end tokens
                    sent[k][0].append(word)
                    sent[k][1].append(scores[cand])
                while cand_start + n <= cand:
                    p += 1
                    n += int(sentence[p + 1]) - int(sentence[p])
                prefix[k] = p
    out_ids, out_scores, src_lod, sent_lod = [], [], [0], [0]
    for src in range(src_num):
        hyps = sorted(sentences[src], key=lambda h: -h[1][0] if h[1] else np.inf)
        for words, word_scores in hyps:
            out_ids.extend(reversed(words))
            out_scores.extend(reversed(word_scores))
            sent_lod.append(sent_lod[-1] + len(words))
        src_lod.append(src_lod[-1] + len(hyps))
    return out_ids, out_scores, as_lod([np.array(src_lod, np.int64), np.array(sent_lod, np.int64)])


@shape_rule('beam_search_decode')
def _beam_search_decode_shape(ctx):
    ctx.set_output('SentenceIds', (-1,), 'int64')
    scores = ctx.input_var('Scores')
    ctx.set_output('SentenceScores', (-1,), scores.dtype if scores is not None else 'float32')


@lod_rule('beam_search_decode')
def _beam_search_decode_lod(ctx):
    ctx.compute('SentenceIds', 2)
    ctx.compute('SentenceScores', 2)


@kernel_rule('beam_search_decode')
def _beam_search_decode_kernel(spec):
    beam_size, end_id = int(spec.attr('beam_size')), int(spec.attr('end_id'))

    def run(ids_array, scores_array):
        steps = [array_value(e) for e in (ids_array or []) if e is not None]
        scores = [array_value(e) for e in (scores_array or []) if e is not None]
        ids, sc, lod = backtrace(steps, scores, beam_size, end_id)
        dtype = scores[0][0].dtype if scores else np.float32
        return np.array(ids, np.int64), np.array(sc, dtype), lod, lod
    return run


# --- gather_tree ----------------------------------------------------------------------------------------------------

defop('gather_tree', ['Ids', 'Parents'], ['Out'])


def gather_tree_rows(ids: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """Paddle's gather_tree: [time, batch, beam] ids re-read along each final beam's chain of parents."""
    if ids.shape != parents.shape:
        raise ValueError("gather_tree: Ids %s and Parents %s must have the same shape"
                         % (list(ids.shape), list(parents.shape)))
    out = np.empty_like(ids)
    steps = ids.shape[0]
    if steps == 0:
        return out
    batch = np.arange(ids.shape[1])[:, None]
    out[-1] = ids[-1]
    beam = parents[-1].astype(np.int64)
    for t in range(steps - 2, -1, -1):         # one vectorised gather per step: the chain runs through time
        out[t] = ids[t][batch, beam]
        beam = parents[t][batch, beam].astype(np.int64)
    return out


@shape_rule('gather_tree')
def _gather_tree_shape(ctx):
    ids = ctx.input_var('Ids')
    ctx.set_output('Out', ids.shape if ids.has_shape() else None, ids.dtype)


@kernel_rule('gather_tree')
def _gather_tree_kernel(spec):
    return lambda ids, parents: (gather_tree_rows(np.asarray(ids), np.asarray(parents)),)
