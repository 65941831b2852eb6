"""The rest of fluid 1.8's layers (issue 12, S5) against Paddle 1.8.5: every case of
tests/golden/api/fluid_rest_cases.py run through paddle_exec's fluid by the sequence ops' runner and compared
with what 1.8.5 computed (tests/golden/api/fluid_rest_pd18.json, written by record_fluid_rest.py): output values,
shapes, dtypes, output LoD, and the gradients of sum(out * w) with respect to the inputs and parameters."""
from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(os.path.dirname(HERE), 'golden', 'api')


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = _load(os.path.join(os.path.dirname(HERE), 'ops', 'data', 'sequence_cases.py'), 'sequence_cases_runner')
cases_module = _load(os.path.join(GOLDEN, 'fluid_rest_cases.py'), 'fluid_rest_cases')
with open(os.path.join(GOLDEN, 'fluid_rest_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = cases_module.cases(fluid)


def test_every_case_was_recorded():
    assert sorted(CASES) == sorted(RECORDED)
    assert not [n for n in RECORDED if 'error' in RECORDED[n]]


@pytest.mark.parametrize('name', sorted(RECORDED))
def test_case_matches_paddle_1_8(name):
    want = RECORDED[name]
    got = runner.run_case(fluid, CASES, name)
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
