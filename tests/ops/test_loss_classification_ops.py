"""teacher_student_sigmoid_loss, sigmoid_focal_loss, center_loss, nll_loss and margin_cross_entropy through small
programs: forward against numpy references written from the formulas, gradients against central finite
differences in float64. Real Paddle's numbers: tests/golden/api/fluid_losses.npz (1.8.5) and static_losses.npz
(2.6.2; margin_cross_entropy has no CPU kernel in Paddle, so its reference is the numpy one here)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.test_nn_ops import OpProgram, append


def op_program(op_type, feeds, slots, outputs, out_slot, attrs=None, wrt=()):
    def build(block, **vs):
        return append(block, op_type, {s: [vs[n]] for s, n in slots.items()}, {o: 1 for o in outputs},
                      attrs or {})[out_slot][0]
    return OpProgram(build, feeds, wrt)


def softplus(x):
    return np.log1p(np.exp(x))


def test_teacher_student_sigmoid_loss_forward_and_grad():
    x = np.array([[0.5], [-1.2], [2.0], [0.1], [-0.7], [1.5]])
    label = np.array([[-2.], [-1.], [0.3], [1.7], [0.0], [1.0]])
    prog = op_program('teacher_student_sigmoid_loss', {'x': x, 'label': label}, {'X': 'x', 'Label': 'label'}, ['Y'],
                      'Y', {'soft_max_up_bound': 15.0, 'soft_max_lower_bound': -15.0}, wrt=('x',))
    got, = prog.run([prog.out])
    z = label[:, 0]
    sp = softplus(x[:, 0])
    want = np.where(z < -1, sp, np.where(z < 0, sp - x[:, 0], np.where(z < 1, 2 * sp - x[:, 0] * z,
                                                                     2 * sp - x[:, 0] - x[:, 0] * (z - 1))))
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-12)
    prog.check_grads()


def test_teacher_student_gradient_is_zero_outside_the_bounds():
    prog = op_program('teacher_student_sigmoid_loss', {'x': np.array([[4.0], [-5.0], [0.5]]),
                                                       'label': np.array([[1.2], [-1.], [0.4]])},
                      {'X': 'x', 'Label': 'label'}, ['Y'], 'Y',
                      {'soft_max_up_bound': 3.0, 'soft_max_lower_bound': -3.0}, wrt=('x',))
    grad, = prog.run(['x@GRAD'])
    assert grad[0, 0] == 0 and grad[1, 0] == 0 and grad[2, 0] != 0


def ref_focal(x, label, fg, gamma, alpha):
    p = 1 / (1 + np.exp(-x))
    c = np.arange(x.shape[1])[None, :] + 1
    pos = (label == c).astype(float)
    neg = ((label != -1) & (label != c)).astype(float)
    return (-pos * alpha / fg * (1 - p) ** gamma * np.log(p)
            - neg * (1 - alpha) / fg * p ** gamma * np.log(1 - p))


def test_sigmoid_focal_loss_forward_and_grad():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 3))
    label = np.array([[0], [1], [3], [-1], [2]], np.int32)
    prog = op_program('sigmoid_focal_loss', {'x': x, 'label': label, 'fg': np.array([2], np.int32)},
                      {'X': 'x', 'Label': 'label', 'FgNum': 'fg'}, ['Out'], 'Out', {'gamma': 2.0, 'alpha': 0.25},
                      wrt=('x',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_focal(x, label, 2, 2.0, 0.25), rtol=1e-6)
    prog.check_grads()


def center_program(x, label, centers, rate, need_update, wrt=()):
    def build(block, x, label, centers, rate):
        outs = append(block, 'center_loss', {'X': [x], 'Label': [label], 'Centers': [centers],
                                             'CenterUpdateRate': [rate]},
                      {'SampleCenterDiff': 1, 'Loss': 1}, {'cluster_num': centers.shape[0],
                                                           'need_update': need_update})
        block.ops[-1].outputs['CentersOut'] = [centers.name]
        return outs['Loss'][0]
    return OpProgram(build, {'x': x, 'label': label, 'centers': centers, 'rate': rate}, wrt)


def test_center_loss_forward_update_and_grad():
    rng = np.random.default_rng(1)
    x, centers = rng.standard_normal((6, 3)), rng.standard_normal((4, 3))
    label = np.array([[0], [1], [0], [3], [1], [0]])
    prog = center_program(x, label, centers.copy(), np.array([0.5]), True)
    loss, moved = prog.run([prog.out, 'centers'])
    diff = x - centers[label[:, 0]]
    np.testing.assert_allclose(loss[:, 0], 0.5 * np.sum(diff ** 2, axis=1), rtol=1e-12)
    want = centers.copy()
    for k in range(4):
        rows = label[:, 0] == k
        want[k] += 0.5 * diff[rows].sum(axis=0) / (1 + rows.sum())
    np.testing.assert_allclose(moved, want, rtol=1e-12)
    center_program(x, label, centers.copy(), np.array([0.5]), False, wrt=('x',)).check_grads()


def ref_nll(x, label, weight, ignore, reduction):
    w = np.ones(x.shape[1]) if weight is None else weight
    kept = label != ignore
    safe = np.where(kept, label, 0)
    picked = np.take_along_axis(x, safe[:, None], 1)[:, 0] * w[safe] * kept
    if reduction == 'none':
        return -picked
    total = (w[safe] * kept).sum()
    return -picked.sum() / (total if reduction == 'mean' and total else 1)


@pytest.mark.parametrize('reduction', ['mean', 'sum', 'none'])
@pytest.mark.parametrize('weighted', [False, True])
def test_nll_loss_forward_and_grad(reduction, weighted):
    rng = np.random.default_rng(2)
    x, label = rng.standard_normal((6, 4)), np.array([0, 3, 1, -100, 2, 3])
    feeds, slots = {'x': x, 'label': label}, {'X': 'x', 'Label': 'label'}
    weight = rng.uniform(0.5, 2, 4) if weighted else None
    if weighted:
        feeds['w'], slots['Weight'] = weight, 'w'
    prog = op_program('nll_loss', feeds, slots, ['Out', 'Total_weight'], 'Out', {'reduction': reduction},
                      wrt=('x',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_nll(x, label, weight, -100, reduction), rtol=1e-12)
    assert got.shape == ((6,) if reduction == 'none' else ())
    prog.check_grads()


def test_nll_loss_on_images():
    rng = np.random.default_rng(3)
    x, label = rng.standard_normal((2, 3, 2, 2)), rng.integers(0, 3, (2, 2, 2))
    prog = op_program('nll_loss', {'x': x, 'label': label}, {'X': 'x', 'Label': 'label'}, ['Out', 'Total_weight'],
                      'Out', {'reduction': 'none'}, wrt=('x',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, -np.take_along_axis(x, label[:, None], 1)[:, 0], rtol=1e-12)
    prog.check_grads()


def ref_margin_ce(logits, label, m1, m2, m3, scale):
    z = logits.copy()
    rows = np.arange(len(label))
    z[rows, label] = np.cos(m1 * np.arccos(z[rows, label]) + m2) - m3
    z *= scale
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[rows, label][:, None], np.exp(logp)


@pytest.mark.parametrize('margins', [(1.0, 0.5, 0.0, 8.0), (1.35, 0.25, 0.1, 4.0), (1.0, 0.0, 0.35, 6.0)])
def test_margin_cross_entropy_forward_and_grad(margins):
    rng = np.random.default_rng(4)
    logits = rng.uniform(-0.8, 0.8, (4, 5))
    label = np.array([0, 3, 1, 4])
    m1, m2, m3, scale = margins
    attrs = {'margin1': m1, 'margin2': m2, 'margin3': m3, 'scale': scale}
    prog = op_program('margin_cross_entropy', {'logits': logits, 'label': label}, {'Logits': 'logits',
                                                                                   'Label': 'label'},
                      ['Softmax', 'Loss'], 'Loss', attrs, wrt=('logits',))
    got, = prog.run([prog.out])
    want, _ = ref_margin_ce(logits, label, *margins)
    np.testing.assert_allclose(got, want, rtol=1e-5)      # margins are float32 attributes
    prog.check_grads(rtol=1e-4, atol=1e-6)


def test_margin_cross_entropy_is_single_card():
    with pytest.raises(ValueError, match='one card'):
        op_program('margin_cross_entropy', {'logits': np.zeros((2, 3)), 'label': np.zeros(2, np.int64)},
                   {'Logits': 'logits', 'Label': 'label'}, ['Softmax', 'Loss'], 'Loss', {'nranks': 2})
