"""paddle.nn's recurrent layers (SimpleRNNCell, LSTMCell, GRUCell, RNN, BiRNN, SimpleRNN, LSTM, GRU) in static mode
against Paddle 2.6.2: every case of tests/nn/data/rnn_layer_cases.py run through paddle_exec and compared with what
2.6.2 computed (tests/nn/data/rnn_layers_pd26.json, written by record_rnn_layers.py): parameter names and shapes,
outputs, final states, and the gradients with respect to the input and every parameter. The time loop itself
(StaticRNN's recurrent op) is checked with finite differences in tests/ops/test_rnn_blocks.py.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec as paddle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import rnn_layer_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'rnn_layers_pd26.json')) as _f:
    RECORDED = json.load(_f)


@pytest.fixture(scope='module')
def computed():
    return rnn_layer_cases.run_cases(paddle)


@pytest.mark.parametrize('name', sorted(RECORDED))
def test_layer_matches_paddle_2_6(computed, name):
    want, got = RECORDED[name], computed[name]
    assert got['params'] == want['params']
    assert got['n_states'] == want['n_states']
    assert len(got['values']) == len(want['values'])
    for k, (g, w) in enumerate(zip(got['values'], want['values'])):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-4, atol=2e-6, err_msg='%s value %d' % (name, k))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match='direction should be forward or bidirect'):
        paddle.nn.LSTM(3, 4, direction='sideways')
    with pytest.raises(ValueError, match="Unknown activation 'sigmoid'"):
        paddle.nn.SimpleRNN(3, 4, activation='sigmoid')
    with pytest.raises(ValueError, match='hidden_size of GRUCell must be greater than 0'):
        paddle.nn.GRUCell(3, 0)


# paddle.nn.BeamSearchDecoder + dynamic_decode over a GRUCell, an Embedding and a Linear (beam 3, 6 steps), fixed
# parameters: predicted ids, final log-probs and lengths as Paddle 2.6.2 computes them (is_test True and False
# give the same here)
DECODE_PD26 = {
    'ids': [[[0, 11, 11], [11, 10, 10], [10, 5, 5], [5, 10, 10], [10, 11, 11], [11, 10, 10], [10, 5, 11]],
            [[0, 11, 11], [11, 10, 10], [10, 5, 5], [5, 10, 10], [10, 11, 5], [5, 10, 10], [10, 5, 11]]],
    'lengths': [[7, 7, 7], [7, 7, 7]]}


@pytest.mark.parametrize('is_test', [True, False])
def test_beam_search_decoder_matches_paddle_2_6(is_test):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        enc = paddle.static.data('enc', [-1, 6], 'float32')
        cell = paddle.nn.GRUCell(5, 6)
        emb = paddle.nn.Embedding(12, 5)
        out = paddle.nn.Linear(6, 12)
        decoder = paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3, embedding_fn=emb,
                                              output_fn=out)
        outputs, states = paddle.nn.dynamic_decode(decoder, inits=enc, max_step_num=6, is_test=is_test)
        params = cell.parameters() + emb.parameters() + out.parameters()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for k, p in enumerate(params):
            shape = np.array(scope.find_var(p.name).get_tensor()).shape
            value = (np.random.RandomState(k).rand(*shape) * 2 - 1).astype('float32') * 2
            scope.find_var(p.name).get_tensor().set(value, paddle.CPUPlace())
        enc_v = (np.random.RandomState(9).rand(2, 6) * 2 - 1).astype('float32')
        ids, log_probs, lengths = exe.run(main, feed={'enc': enc_v},
                                          fetch_list=[outputs, states.log_probs, states.lengths])
    assert ids.tolist() == DECODE_PD26['ids']
    assert lengths.tolist() == DECODE_PD26['lengths']
    np.testing.assert_allclose(log_probs, [[-5.4079, -5.6784, -5.9273], [-4.8442, -5.1068, -5.3839]], atol=2e-4)
