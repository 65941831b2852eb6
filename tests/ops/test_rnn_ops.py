"""The recurrent ops (lstm, lstmp, gru, lstm_unit, gru_unit) against Paddle 1.8.5: every case of
tests/ops/data/rnn_cases.py run through paddle_exec's fluid and compared with what 1.8.5 computed
(tests/ops/data/rnn_ops_pd18.json, written by record_rnn_ops.py under Paddle 1.8.5): output values, shapes, dtypes,
output LoD, and the gradients of sum(out * w) with respect to the inputs and parameters. A case 1.8.5 refused must
be refused here too.

The kernels' numpy references and finite-difference gradient checks are in tests/kernels/test_rnn.py.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import rnn_cases  # noqa: E402
import sequence_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'rnn_ops_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = rnn_cases.cases(fluid)
# Paddle 1.8.5's AVX lstm gradient (float32, frame size a multiple of 8) drops the cell-state gradient; paddle_exec
# computes the derivative, which 1.8.5 gives for the same case in float64 (docs/architecture.md, deliberate
# differences). The float32 case's gradients are compared with the float64 recording.
GRADIENTS_FROM = {'lstm_frame8': 'lstm_frame8_float64'}


def test_every_case_was_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize('name', sorted(n for n in RECORDED if 'error' not in RECORDED[n]))
def test_case_matches_paddle_1_8(name):
    want = RECORDED[name]
    got = sequence_cases.run_case(fluid, CASES, name)
    assert len(got['outputs']) == len(want['outputs'])
    for k, (g, w) in enumerate(zip(got['outputs'], want['outputs'])):
        assert g['shape'] == w['shape'], (name, k)
        assert g['dtype'] == w['dtype'], (name, k)
        assert g['lod'] == w['lod'], (name, k, 'output LoD')
        np.testing.assert_allclose(np.array(g['value'], np.float64), np.array(w['value'], np.float64), rtol=1e-5,
                                   atol=2e-6, err_msg='%s output %d' % (name, k))
    grads = RECORDED[GRADIENTS_FROM.get(name, name)].get('grads', {})
    assert sorted(got.get('grads', {})) == sorted(grads)
    for var, w in grads.items():
        np.testing.assert_allclose(np.array(got['grads'][var], np.float64), np.array(w, np.float64), rtol=1e-4,
                                   atol=2e-6, err_msg='%s d/d%s' % (name, var))


def test_what_paddle_refuses_is_refused():
    assert RECORDED['lstm_lod2']['error'] == 'Error: Only support one level sequence now.'
    with pytest.raises(ValueError, match="only supports one level of LoD: Input\\(Input\\) 'x' has 2 levels"):
        sequence_cases.run_case(fluid, CASES, 'lstm_lod2')


def test_paddle_1_8_avx_lstm_gradient_is_not_reproduced():
    """What 1.8.5 recorded for the float32 frame-8 case is not the derivative: every gradient of the candidate,
    input and forget gates is zero (its AVX backward adds the cell-state gradient only when cell_clip > 0)."""
    paddle_dx = np.array(RECORDED['lstm_frame8']['grads']['x'])
    assert np.all(paddle_dx[:, :24] == 0) and np.abs(paddle_dx[:, 24:]).max() > 0
    got = sequence_cases.run_case(fluid, CASES, 'lstm_frame8')
    np.testing.assert_allclose(got['grads']['x'], RECORDED['lstm_frame8_float64']['grads']['x'], rtol=1e-4, atol=2e-6)
    assert np.abs(np.array(got['grads']['x'])[:, :24]).max() > 1e-3
