"""beam_search and beam_search_decode: the book's beam-search decoder (tests/ops/data/beam_search_cases.py: a While
over tensor arrays of 2-level LoD ids / scores) against what Paddle 1.8.5 decodes (beam_search_pd18.json, for end
ids that never win, and that end beams at different steps), fluid.layers.rnn's BeamSearchDecoder + dynamic_decode
(test and training mode), then the selection, the backtrace and gather_tree by hand.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.ops.beam_search import backtrace, beam_search_select

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import beam_search_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'beam_search_pd18.json')) as _f:
    RECORDED = json.load(_f)


@pytest.mark.parametrize('end_id', beam_search_cases.END_IDS)
def test_decoder_matches_paddle_1_8(end_id):
    want = RECORDED[str(end_id)]
    got = beam_search_cases.run(fluid, end_id)
    assert got['ids'] == want['ids']
    assert got['lod'] == want['lod'] and got['scores_lod'] == want['scores_lod']
    np.testing.assert_allclose(got['scores'], want['scores'], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('mode', ['test', 'train'])
def test_dynamic_decode_matches_paddle_1_8(mode):
    want = RECORDED['dynamic_decode_' + mode]
    got = beam_search_cases.run_dynamic_decode(fluid, mode == 'test')
    assert got['ids'] == want['ids']
    assert got['lengths'] == want['lengths']
    np.testing.assert_allclose(got['log_probs'], want['log_probs'], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('kind', ['training', 'greedy'])
def test_basic_decoder_matches_paddle_1_8(kind):
    """BasicDecoder with a TrainingHelper (outputs, ids, lengths and the gradients of the output fc and the
    embedding through the While) and with a GreedyEmbeddingHelper."""
    want = RECORDED['basic_decoder_' + kind]['values']
    got = beam_search_cases.run_basic_decoder(fluid, kind)['values']
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.array(g, np.float64), np.array(w, np.float64), rtol=1e-5, atol=1e-6,
                                   err_msg='%s value %d' % (kind, k))


def test_contrib_training_decoder_matches_paddle_1_8():
    """fluid.contrib.decoder's StateCell in a TrainingDecoder: the cost and the gradients of the updater, the
    encoder, the target embedding and the output fc."""
    want = RECORDED['contrib_training_decoder']['values']
    got = beam_search_cases.run_contrib_decoder(fluid, 'train')['values']
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.array(g, np.float64), np.array(w, np.float64), rtol=1e-5, atol=1e-6,
                                   err_msg='value %d' % k)


def test_contrib_beam_search_decoder_decodes():
    """Its BeamSearchDecoder (Paddle 1.8.5 refuses this program at build time: its sequence_expand's compile-time
    check sees a 2-level state; paddle_exec runs it): 2 sources, 2 hypotheses each, each starting with the start
    id and score 1."""
    got = beam_search_cases.run_contrib_decoder(fluid, 'decode')
    ids, scores = (np.array(v) for v in got['values'])
    per_source, per_sentence = got['lod']
    assert per_source == [2, 2] and sum(per_sentence) == ids.shape[0] == scores.shape[0]
    starts = np.cumsum([0] + per_sentence[:-1])
    assert (ids[starts] == 0).all() and np.allclose(scores[starts], 1.0)


def test_end_ids_shorten_hypotheses():
    lengths = {e: RECORDED[str(e)]['lod'][1] for e in beam_search_cases.END_IDS}
    assert set(lengths[1]) == {7}                   # nothing ends: every hypothesis runs all 6 steps + the start
    assert min(lengths[23]) < 7 and min(lengths[27]) < 7


def test_selection_by_hand():
    # two sources: the first with prefixes 0 (ended: pre_id 9 = end_id) and 1, the second with prefix 2
    lod = ([0, 2, 3], [0, 1, 2, 3])
    pre_ids = np.array([[9], [4], [5]], np.int64)
    pre_scores = np.array([[-0.5], [-1.0], [-2.0]], np.float32)
    ids = np.array([[1, 2], [3, 4], [6, 7]], np.int64)
    scores = np.array([[-0.1, -0.2], [-0.4, -1.5], [-2.5, -2.2]], np.float32)
    sel_ids, sel_scores, parent, out_lod = beam_search_select(pre_ids, pre_scores, ids, scores, lod, 0, 2, 9, True)
    # source 0: the ended prefix offers (9, -0.5) only; prefix 1 offers (3, -0.4), (4, -1.5): best two
    #   -0.4 (prefix 1) and -0.5 (prefix 0); source 1: (7, -2.2), (6, -2.5)
    assert sel_ids.reshape(-1).tolist() == [9, 3, 7, 6]
    np.testing.assert_allclose(sel_scores.reshape(-1), [-0.5, -0.4, -2.2, -2.5])
    assert parent.tolist() == [0, 1, 2, 2]
    assert [level.tolist() for level in out_lod] == [[0, 2, 3], [0, 1, 2, 4]]


def test_a_source_whose_beams_all_ended_is_pruned():
    lod = ([0, 1, 2], [0, 1, 2])
    pre_ids = np.array([[9], [4]], np.int64)
    pre_scores = np.array([[-0.5], [-1.0]], np.float32)
    scores = np.array([[0.5, 0.5], [0.25, 0.75]], np.float32)          # probabilities: not accumulated
    sel_ids, sel_scores, _, out_lod = beam_search_select(pre_ids, pre_scores, None, scores, lod, 0, 2, 9, False)
    assert sel_ids.reshape(-1).tolist() == [1, 0]           # ids are the column indices without `ids`
    np.testing.assert_allclose(sel_scores.reshape(-1), [-1.0 + np.log(0.75), -1.0 + np.log(0.25)], rtol=1e-6)
    assert [level.tolist() for level in out_lod] == [[0, 1, 2], [0, 0, 2]]


def test_backtrace_by_hand():
    # one source, beam 2: step 0 the start word; step 1 two words from it; step 2 both from step-1 candidate 1
    lod0 = ([0, 1], [0, 1])
    lod1 = ([0, 1], [0, 2])
    lod2 = ([0, 2], [0, 0, 2])
    steps = [(np.array([0]), lod0), (np.array([5, 6]), lod1), (np.array([7, 8]), lod2)]
    scores = [(np.array([0.0]), lod0), (np.array([-1.0, -2.0]), lod1), (np.array([-3.0, -2.5]), lod2)]
    ids, sc, lod = backtrace(steps, scores, 2, 99)
    assert [level.tolist() for level in lod] == [[0, 2], [0, 3, 6]]
    assert ids == [0, 6, 8, 0, 6, 7]                         # the better final score (-2.5) first
    np.testing.assert_allclose(sc, [0.0, -2.0, -2.5, 0.0, -2.0, -3.0])


def _gather_tree_reference(ids, parents):
    out = np.empty_like(ids)
    steps, batch, beam = ids.shape
    for b in range(batch):
        for k in range(beam):
            parent = k
            for t in range(steps - 1, -1, -1):
                out[t, b, k] = ids[t, b, parent]
                parent = parents[t, b, parent]
    return out


def test_gather_tree_documented_example_and_reference():
    ids_v = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], np.int64)
    par_v = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], np.int64)
    rng = np.random.RandomState(4)
    rand_ids = rng.randint(0, 50, (6, 3, 4)).astype(np.int64)
    rand_par = rng.randint(0, 4, (6, 3, 4)).astype(np.int64)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        ids = fluid.data('ids', [-1, -1, -1], 'int64')
        par = fluid.data('par', [-1, -1, -1], 'int64')
        out_fluid = fluid.layers.gather_tree(ids, par)
        out_2x = paddle.nn.functional.gather_tree(ids, par)
    exe = fluid.Executor(fluid.CPUPlace())
    got, got_2x = exe.run(main, feed={'ids': ids_v, 'par': par_v}, fetch_list=[out_fluid, out_2x])
    want = [[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]       # Paddle's documented result
    assert got.tolist() == want and got_2x.tolist() == want
    got, = exe.run(main, feed={'ids': rand_ids, 'par': rand_par}, fetch_list=[out_fluid])
    np.testing.assert_array_equal(got, _gather_tree_reference(rand_ids, rand_par))


def test_functional_sequence_mask():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lengths = fluid.data('l', [3], 'int64')
        mask = paddle.nn.functional.sequence_mask(lengths, maxlen=4, dtype='float32')
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed={'l': np.array([1, 3, 0])}, fetch_list=[mask])
    np.testing.assert_array_equal(got, [[1, 0, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]])
