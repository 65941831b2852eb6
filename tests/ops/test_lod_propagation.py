"""LoD through the ops of the other families, as Paddle 1.8.5 passes it on: each case of
tests/ops/data/lod_propagation_cases.py feeds a lod_level=1 input (LoD [[2, 3]]) to one op and compares the output's
run-time LoD, compile-time lod_level and shape with what 1.8.5 gave (lod_propagation_pd18.json, written by
record_lod_propagation.py under Paddle 1.8.5). Shares, drops (mean, transpose, gather, axis-0 slices) and the odd
ones (accuracy's [1] result takes the prediction's LoD; reshape keeps LoD only when rows are kept) all included."""
from __future__ import annotations

import json
import os
import sys

import pytest

import paddle_exec.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import lod_propagation_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'lod_propagation_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = lod_propagation_cases.cases(fluid)


def test_every_case_was_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize('name', sorted(RECORDED))
def test_op_passes_lod_on_as_paddle_1_8(name):
    assert lod_propagation_cases.run_case(fluid, CASES[name]) == RECORDED[name]
