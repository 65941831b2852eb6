"""The sequence ops against Paddle 1.8.5: every case of tests/ops/data/sequence_cases.py run through paddle_exec's
fluid and compared with what 1.8.5 computed (tests/ops/data/sequence_ops_pd18.json, written by
record_sequence_ops.py under Paddle 1.8.5): output values, shapes, dtypes, output LoD, and the gradients of
sum(out * w) with respect to the inputs and parameters. A case 1.8.5 refused must be refused here too.

The kernels' numpy references and finite-difference gradient checks are in tests/kernels/test_sequence.py.
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
import sequence_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'sequence_ops_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = sequence_cases.cases(fluid)


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
                                   atol=1e-6, err_msg='%s output %d' % (name, k))
    assert sorted(got.get('grads', {})) == sorted(want.get('grads', {}))
    for var, w in want.get('grads', {}).items():
        np.testing.assert_allclose(np.array(got['grads'][var], np.float64), np.array(w, np.float64), rtol=1e-5,
                                   atol=1e-6, err_msg='%s d/d%s' % (name, var))


@pytest.mark.parametrize('name', sorted(n for n in RECORDED if 'error' in RECORDED[n]))
def test_what_paddle_refuses_is_refused(name):
    words = {'pad_too_short': 'padded_length', 'reverse_lod2': 'only support one level lod'}[name]
    with pytest.raises(ValueError, match=words):
        sequence_cases.run_case(fluid, CASES, name)
