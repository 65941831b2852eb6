"""The loss family's ops through small programs: softmax_with_cross_entropy, cross_entropy, cross_entropy2,
sigmoid_cross_entropy_with_logits, bce_loss, log_loss, huber_loss.

Forward values against numpy (the references of tests/kernels/test_loss.py where they exist), gradients against
finite differences of the program's own loss (float64), shape checks at build time.
"""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.framework import Program, program_guard
from paddle_exec.layers.io import data_v2
from tests.kernels.test_loss import ref_sce, ref_softmax, ref_swce_hard
from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def _probs(shape, seed):
    p = _rng(seed).uniform(0.1, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)


def loss_program(op_type, feeds, in_slots, out_slot, attrs=None, wrt=(), extra_outputs=()):
    """One `op_type` op reading feeds by slot (in_slots: slot -> feed name); differentiates `out_slot`."""
    holder = {}

    def build(block, **vs):
        outs = append(block, op_type, {slot: [vs[name]] for slot, name in in_slots.items()},
                      {s: 1 for s in (out_slot,) + tuple(extra_outputs)}, attrs)
        holder.update({s: v[0] for s, v in outs.items()})
        return outs[out_slot][0]
    prog = OpProgram(build, feeds, wrt)
    prog.outs = holder
    return prog


# ---------------------------------------------------------------------------------------------------------------
# softmax_with_cross_entropy

def swce_program(logits, label, attrs, wrt=('logits',)):
    return loss_program('softmax_with_cross_entropy', {'logits': logits, 'label': label},
                        {'Logits': 'logits', 'Label': 'label'}, 'Loss', attrs, wrt, extra_outputs=('Softmax',))


def _hard_labels(shape, axis, seed, ignore_index=None):
    shape = list(shape)
    depth = shape[axis]
    shape[axis] = 1
    label = _rng(seed).integers(0, depth, shape)
    if ignore_index is not None:
        label.reshape(-1)[::3] = ignore_index
    return label.astype(np.int64)


@pytest.mark.parametrize('shape,axis,ignore_index', [((5, 7), -1, -100), ((2, 4, 3), 1, -100), ((3, 2, 6), -1, 2),
                                                     ((4, 3, 5), 0, 1)])
def test_softmax_with_cross_entropy_hard_labels(shape, axis, ignore_index):
    x = _rng(1).standard_normal(shape) * 3
    label = _hard_labels(shape, axis, 2, ignore_index if ignore_index >= 0 else None)
    prog = swce_program(x, label, {'axis': axis, 'ignore_index': ignore_index})
    loss, sm, dx = prog.run([prog.outs['Loss'], prog.outs['Softmax'], 'logits@GRAD'])
    want_sm, want_loss = ref_swce_hard(x, label, axis, ignore_index)
    np.testing.assert_allclose(sm, want_sm, rtol=1e-12)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-12, atol=1e-14)
    assert prog.outs['Loss'].shape == label.shape
    ignored = np.broadcast_to(label == ignore_index, x.shape)
    assert np.all(dx[ignored] == 0)                   # Paddle >= 2.0: no gradient for ignored labels
    prog.check_grads()


def test_softmax_with_cross_entropy_soft_labels():
    x = _rng(3).standard_normal((4, 6))
    label = _probs((4, 6), 4)
    prog = swce_program(x, label, {'soft_label': True})
    loss, = prog.run([prog.outs['Loss']])
    np.testing.assert_allclose(loss, -(label * np.log(ref_softmax(x, -1))).sum(-1, keepdims=True), rtol=1e-12)
    prog.check_grads()


@pytest.mark.parametrize('soft,axis', [(False, -1), (True, -1), (False, 1)])
def test_softmax_with_cross_entropy_on_probabilities(soft, axis):
    """Paddle 2.x use_softmax=False: Logits are probabilities, Softmax is Logits itself."""
    shape = (3, 4, 2) if axis == 1 else (3, 5)
    p = np.moveaxis(_probs(np.moveaxis(np.empty(shape), axis, -1).shape, 5), -1, axis)
    label = _probs(shape, 6) if soft else _hard_labels(shape, axis, 7)
    prog = swce_program(p, label, {'soft_label': soft, 'axis': axis, 'use_softmax': False})
    loss, sm = prog.run([prog.outs['Loss'], prog.outs['Softmax']])
    np.testing.assert_array_equal(sm, p)
    if soft:
        want = -(label * np.log(p)).sum(axis, keepdims=True)
    else:
        want = -np.log(np.take_along_axis(p, label, axis))
    np.testing.assert_allclose(loss, want, rtol=1e-12)
    prog.check_grads()


def test_softmax_with_cross_entropy_rejects_bad_labels():
    main = Program()
    with program_guard(main, Program()):
        x = data_v2('x', [4, 5], 'float32')
        wrong = data_v2('wrong', [4, 5], 'int64')
        with pytest.raises(ValueError, match="softmax_with_cross_entropy.*Label"):
            append(main.global_block(), 'softmax_with_cross_entropy', {'Logits': [x], 'Label': [wrong]},
                   {'Softmax': 1, 'Loss': 1})
    prog = swce_program(np.zeros((2, 3)), np.array([[0], [3]]), {}, wrt=())
    with pytest.raises(ValueError, match='label value'):
        prog.run([prog.outs['Loss']])


# ---------------------------------------------------------------------------------------------------------------
# cross_entropy (soft or hard) and cross_entropy2

def test_cross_entropy_hard_and_soft():
    p = _probs((2, 3, 5), 8)
    hard = _hard_labels((2, 3, 5), -1, 9)
    hard[0, 1, 0] = -100
    prog = loss_program('cross_entropy', {'x': p, 'label': hard}, {'X': 'x', 'Label': 'label'}, 'Y', {}, ('x',))
    y, = prog.run([prog.outs['Y']])
    want = -np.log(np.take_along_axis(p, np.maximum(hard, 0), -1))
    want[0, 1, 0] = 0
    np.testing.assert_allclose(y, want, rtol=1e-12)
    prog.check_grads()
    soft = _probs((2, 3, 5), 10)
    prog = loss_program('cross_entropy', {'x': p, 'label': soft}, {'X': 'x', 'Label': 'label'}, 'Y',
                        {'soft_label': True}, ('x',))
    np.testing.assert_allclose(prog.run([prog.outs['Y']])[0], -(soft * np.log(p)).sum(-1, keepdims=True),
                               rtol=1e-12)
    prog.check_grads()


def test_cross_entropy2_outputs_and_grad():
    p = _probs((6, 4), 11)
    label = _hard_labels((6, 4), -1, 12)
    label[2, 0] = 7
    prog = loss_program('cross_entropy2', {'x': p, 'label': label}, {'X': 'x', 'Label': 'label'}, 'Y',
                        {'ignore_index': 7}, ('x',), extra_outputs=('MatchX', 'XShape'))
    y, match, dx = prog.run([prog.outs['Y'], prog.outs['MatchX'], 'x@GRAD'])
    picked = np.take_along_axis(p, np.where(label == 7, 0, label), -1)
    picked[2, 0] = 0
    np.testing.assert_allclose(match, picked)
    np.testing.assert_allclose(y, np.where(label == 7, 0, -np.log(np.where(label == 7, 1, picked))), rtol=1e-12)
    assert prog.outs['XShape'].shape == (0, 6, 4)
    grad_ops = [op.type for op in prog.main.global_block().ops if op.type.startswith('cross_entropy')]
    assert grad_ops == ['cross_entropy2', 'cross_entropy_grad2']       # Paddle's name for its grad op
    assert np.all(dx[2] == 0)
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# sigmoid_cross_entropy_with_logits, bce_loss, log_loss, huber_loss

@pytest.mark.parametrize('normalize', [False, True])
def test_sigmoid_cross_entropy_with_logits(normalize):
    x = _rng(13).standard_normal((4, 5)) * 2
    z = _rng(14).uniform(0, 1, (4, 5))
    z[0, :2] = -100
    prog = loss_program('sigmoid_cross_entropy_with_logits', {'x': x, 'label': z}, {'X': 'x', 'Label': 'label'},
                        'Out', {'normalize': normalize}, ('x',))
    out, dx = prog.run([prog.outs['Out'], 'x@GRAD'])
    np.testing.assert_allclose(out, ref_sce(x, z, -100, normalize), rtol=1e-12)
    assert np.all(dx[0, :2] == 0)
    prog.check_grads()


def test_bce_loss():
    x = _rng(15).uniform(0.05, 0.95, (3, 4))
    z = _rng(16).integers(0, 2, (3, 4)).astype(np.float64)
    prog = loss_program('bce_loss', {'x': x, 'label': z}, {'X': 'x', 'Label': 'label'}, 'Out', {}, ('x',))
    np.testing.assert_allclose(prog.run([prog.outs['Out']])[0], -(z * np.log(x) + (1 - z) * np.log(1 - x)),
                               rtol=1e-12)
    prog.check_grads()
    bad = loss_program('bce_loss', {'x': x + 1, 'label': z}, {'X': 'x', 'Label': 'label'}, 'Out')
    with pytest.raises(ValueError, match=r'input must be in \[0, 1\]'):
        bad.run([bad.outs['Out']])


def test_log_loss():
    p = _rng(17).uniform(0.05, 0.95, (5, 1))
    z = _rng(18).integers(0, 2, (5, 1)).astype(np.float64)
    prog = loss_program('log_loss', {'p': p, 'label': z}, {'Predicted': 'p', 'Labels': 'label'}, 'Loss',
                        {'epsilon': 1e-3}, ('p',))
    want = -z * np.log(p + 1e-3) - (1 - z) * np.log(1 - p + 1e-3)
    np.testing.assert_allclose(prog.run([prog.outs['Loss']])[0], want, rtol=1e-12)
    prog.check_grads()
    with pytest.raises(ValueError, match='log_loss.*batch_size, 1'):
        loss_program('log_loss', {'p': np.ones((2, 3)), 'label': np.ones((2, 3))},
                     {'Predicted': 'p', 'Labels': 'label'}, 'Loss')


def test_huber_loss():
    x = _rng(19).standard_normal((4, 3)) * 2
    y = _rng(20).standard_normal((4, 3))
    prog = loss_program('huber_loss', {'x': x, 'y': y}, {'X': 'x', 'Y': 'y'}, 'Out', {'delta': 0.7}, ('x', 'y'),
                        extra_outputs=('Residual',))
    out, residual = prog.run([prog.outs['Out'], prog.outs['Residual']])
    r = y - x
    np.testing.assert_allclose(residual, r)
    np.testing.assert_allclose(out, np.where(np.abs(r) <= 0.7, 0.5 * r * r, 0.7 * (np.abs(r) - 0.35)), rtol=1e-12)
    prog.check_grads()


def test_elementwise_losses_check_shapes():
    main = Program()
    with program_guard(main, Program()):
        x = data_v2('x', [4, 3], 'float32')
        z = data_v2('z', [4, 2], 'float32')
        with pytest.raises(ValueError, match="sigmoid_cross_entropy_with_logits.*same shape"):
            append(main.global_block(), 'sigmoid_cross_entropy_with_logits', {'X': [x], 'Label': [z]}, {'Out': 1})


# Paddle 1.8.5: fluid.layers.cross_entropy(softmax(x), y) with X [N, T, D] and hard Label [N, T] (no last
# dimension): Y has Label's shape; x = RandomState(0).rand(2, 3, 5), y = [[1, 2, 0], [4, 3, 1]]
PD18_XENT_RANK_MINUS_ONE_Y = [1.4657785892486572, 1.4092824459075928, 1.434633493423462, 1.3244521617889404,
                              1.4997127056121826, 2.0338306427001953]
PD18_XENT_RANK_MINUS_ONE_DX = [
    0.195508, -0.769102, 0.206345, 0.194741, 0.172508, 0.191061, 0.155134, -0.755681, 0.262529, 0.146957,
    -0.761797, 0.183147, 0.19046, 0.272324, 0.115866, 0.121562, 0.113694, 0.256188, 0.242608, -0.734051, 0.27209,
    0.227391, 0.162226, -0.776806, 0.115098, 0.214969, -0.869167, 0.291558, 0.191028, 0.171612
]


def test_cross_entropy_takes_hard_labels_without_the_last_dimension_as_paddle_18():
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, None, 5], 'float32')
        x.stop_gradient = False
        y = fluid.data('y', [None, None], 'int64')
        loss = fluid.layers.cross_entropy(fluid.layers.softmax(x), y)
        assert loss.shape == (-1, -1)
        dx, = fluid.gradients(fluid.layers.reduce_sum(loss), [x])
        with pytest.raises(ValueError, match='Label must have'):
            fluid.layers.cross_entropy(fluid.layers.softmax(x), fluid.data('z', [None, 3, 2], 'int64'))
    xv = np.random.RandomState(0).rand(2, 3, 5).astype('float32')
    yv = np.array([[1, 2, 0], [4, 3, 1]], 'int64')
    exe = fluid.Executor(fluid.CPUPlace())
    out, grad = exe.run(main, feed={'x': xv, 'y': yv}, fetch_list=[loss, dx])
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out.ravel(), PD18_XENT_RANK_MINUS_ONE_Y, rtol=1e-6)
    np.testing.assert_allclose(grad.ravel(), PD18_XENT_RANK_MINUS_ONE_DX, rtol=1e-5, atol=1e-6)
    p = np.exp(xv) / np.exp(xv).sum(-1, keepdims=True)                 # the numpy reference
    np.testing.assert_allclose(out, -np.log(np.take_along_axis(p, yv[..., None], -1))[..., 0], rtol=1e-5)
