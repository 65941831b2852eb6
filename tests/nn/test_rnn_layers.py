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
