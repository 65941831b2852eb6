"""rank_loss, margin_rank_loss and bpr_loss through small programs: forward against numpy references written from
the formulas, gradients against central finite differences (float64). Their numbers against real Paddle 1.8.5
are in tests/golden/api/fluid_losses.npz."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.test_nn_ops import OpProgram, append

F64 = np.float64


def ranking_program(op_type, feeds, slots, outputs, out_slot, attrs=None, wrt=()):
    def build(block, **vs):
        return append(block, op_type, {s: [vs[n]] for s, n in slots.items()}, {o: 1 for o in outputs},
                      attrs or {})[out_slot][0]
    return OpProgram(build, feeds, wrt)


def ref_rank_loss(label, left, right):
    d = left - right
    return np.log1p(np.exp(d)) - label * d


def test_rank_loss_forward_and_grad():
    rng = np.random.default_rng(0)
    feeds = {'label': rng.uniform(0, 1, (6, 1)), 'left': rng.standard_normal((6, 1)),
             'right': rng.standard_normal((6, 1))}
    prog = ranking_program('rank_loss', feeds, {'Label': 'label', 'Left': 'left', 'Right': 'right'}, ['Out'], 'Out',
                           wrt=('left', 'right'))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_rank_loss(**feeds), rtol=1e-12)
    prog.check_grads()


def test_rank_loss_shapes_must_agree():
    feeds = {'label': np.zeros((4, 1)), 'left': np.zeros((4, 1)), 'right': np.zeros((3, 1))}
    with pytest.raises(ValueError, match='should be equal'):
        ranking_program('rank_loss', feeds, {'Label': 'label', 'Left': 'left', 'Right': 'right'}, ['Out'], 'Out')


def test_margin_rank_loss_forward_activated_and_grad():
    rng = np.random.default_rng(1)
    label = np.where(rng.uniform(size=(8, 1)) > 0.5, 1.0, -1.0)
    x1, x2 = rng.standard_normal((8, 1)), rng.standard_normal((8, 1))
    prog = ranking_program('margin_rank_loss', {'label': label, 'x1': x1, 'x2': x2},
                           {'Label': 'label', 'X1': 'x1', 'X2': 'x2'}, ['Out', 'Activated'], 'Out',
                           {'margin': 0.2}, wrt=('x1', 'x2'))
    got, = prog.run([prog.out])
    want = np.maximum(0, -label * (x1 - x2) + 0.2)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    prog.check_grads()


def ref_bpr(x, label):
    n, d = x.shape
    out = np.empty((n, 1))
    for i in range(n):
        pos = label[i, 0]
        neg = [j for j in range(d) if j != pos]
        out[i, 0] = -np.mean(np.log(1 / (1 + np.exp(x[i, neg] - x[i, pos]))))
    return out


def test_bpr_loss_forward_and_grad():
    rng = np.random.default_rng(2)
    x, label = rng.standard_normal((5, 6)), rng.integers(0, 6, (5, 1))
    prog = ranking_program('bpr_loss', {'x': x, 'label': label}, {'X': 'x', 'Label': 'label'}, ['Y'], 'Y',
                           wrt=('x',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_bpr(x, label), rtol=1e-10)
    prog.check_grads()


def test_bpr_loss_label_out_of_range():
    prog = ranking_program('bpr_loss', {'x': np.zeros((2, 3)), 'label': np.array([[0], [3]])},
                           {'X': 'x', 'Label': 'label'}, ['Y'], 'Y')
    with pytest.raises(Exception, match='label value should be >= 0 and < 3'):
        prog.run([prog.out])
