"""smooth_l1_loss, kldiv_loss and label_smooth through small programs, and their builders (fluid.layers.smooth_l1 /
kldiv_loss / label_smooth of Paddle 1.8; F.smooth_l1_loss / F.kl_div / F.label_smooth of Paddle 2.x).

Forward values against numpy and literals recorded from paddlepaddle 1.8.5; gradients against central finite
differences in float64.
"""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn.functional as F
from tests.ops.test_image_ops import build, ops_of, run
from tests.ops.test_nn_ops import OpProgram, append

L = fluid.layers
F32 = np.float32

X = np.array([[0.3, -1.2, 2.0, 0.1], [1.5, 0.2, -0.4, 0.05]], F32)
Y = np.array([[0.5, 0.0, 0.9, 0.2], [-0.3, 0.25, 0.7, 0.1]], F32)
IW = np.array([[1.0, 0.5, 2.0, 1.0], [1.0, 1.0, 0.5, 3.0]], F32)
OW = np.array([[0.5, 1.0, 1.0, 2.0], [1.0, 0.3, 1.0, 1.0]], F32)


def loss_op(op_type, feeds: dict, slots: dict, attrs, out_slot, outputs, wrt=()):
    """One `op_type` with inputs slot -> feed name; returns the OpProgram (its `out` is `out_slot`)."""
    def build_op(block, **vs):
        outs = append(block, op_type, {s: [vs[n]] for s, n in slots.items()}, {o: 1 for o in outputs}, attrs)
        return outs[out_slot][0]
    return OpProgram(build_op, feeds, wrt)


# ---------------------------------------------------------------------------------------------------------------
# smooth_l1_loss

def ref_smooth_l1(x, y, sigma, iw=None, ow=None):
    d = (x - y) * (iw if iw is not None else 1)
    s2 = sigma * sigma
    e = np.where(np.abs(d) < 1 / s2, 0.5 * d * d * s2, np.abs(d) - 0.5 / s2)
    e = e * (ow if ow is not None else 1)
    return d, e.reshape(len(x), -1).sum(1, keepdims=True)


# fluid.layers.smooth_l1 on X, Y (and IW, OW with sigma 1.5), recorded from paddlepaddle 1.8.5
SMOOTH_L1_18 = {1.0: [1.325, 1.9025], 2.0: [2.15, 2.66], 'weighted': [2.4005556, 1.9317118]}


@pytest.mark.parametrize('sigma', [1.0, 2.0])
def test_smooth_l1_loss_matches_paddle_and_numpy(sigma):
    prog = loss_op('smooth_l1_loss', {'x': X, 'y': Y}, {'X': 'x', 'Y': 'y'}, {'sigma': sigma}, 'Out', ['Diff', 'Out'])
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == (2, 1)
    np.testing.assert_allclose(got.ravel(), SMOOTH_L1_18[sigma], rtol=1e-6)
    np.testing.assert_allclose(got, ref_smooth_l1(X, Y, sigma)[1], rtol=1e-6)


def test_smooth_l1_loss_with_weights():
    prog = loss_op('smooth_l1_loss', {'x': X, 'y': Y, 'iw': IW, 'ow': OW},
                   {'X': 'x', 'Y': 'y', 'InsideWeight': 'iw', 'OutsideWeight': 'ow'}, {'sigma': 1.5}, 'Out',
                   ['Diff', 'Out'])
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got.ravel(), SMOOTH_L1_18['weighted'], rtol=1e-6)


@pytest.mark.parametrize('weighted', [False, True])
def test_smooth_l1_loss_grad_matches_finite_differences(weighted):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 2, 3)), rng.standard_normal((3, 2, 3))
    feeds, slots = {'x': x, 'y': y}, {'X': 'x', 'Y': 'y'}
    if weighted:
        feeds.update(iw=rng.uniform(0.5, 2, x.shape), ow=rng.uniform(0.5, 2, x.shape))
        slots.update(InsideWeight='iw', OutsideWeight='ow')
    loss_op('smooth_l1_loss', feeds, slots, {'sigma': 1.3}, 'Out', ['Diff', 'Out'], wrt=('x', 'y')).check_grads()


def test_smooth_l1_loss_needs_both_weights():
    with pytest.raises(ValueError, match='must specify both inside and outside weights'):
        loss_op('smooth_l1_loss', {'x': X, 'y': Y, 'iw': IW}, {'X': 'x', 'Y': 'y', 'InsideWeight': 'iw'}, {},
                'Out', ['Diff', 'Out'])


# ---------------------------------------------------------------------------------------------------------------
# kldiv_loss

def ref_kldiv(x, t, reduction):
    elems = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0)
    return {'none': elems, 'sum': elems.sum(), 'mean': elems.mean(), 'batchmean': elems.sum() / len(x)}[reduction]


# fluid.layers.kldiv_loss(X, Y) from paddlepaddle 1.8.5: a zero or negative target contributes 0
KLDIV_18 = {'none': [[-0.4965736, 0., -1.8948244, -0.3418876], [0., -0.3965736, 0.03032752, -0.2352585]],
            'mean': -0.41684875, 'sum': -3.33479, 'batchmean': -1.667395}


@pytest.mark.parametrize('reduction', list(KLDIV_18))
def test_kldiv_loss_matches_paddle_and_numpy(reduction):
    prog = loss_op('kldiv_loss', {'x': X, 't': Y}, {'X': 'x', 'Target': 't'}, {'reduction': reduction}, 'Loss',
                   ['Loss'])
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == ((2, 4) if reduction == 'none' else (1,))
    np.testing.assert_allclose(np.squeeze(got), KLDIV_18[reduction], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(np.squeeze(got), ref_kldiv(X, Y, reduction), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize('reduction', list(KLDIV_18))
def test_kldiv_loss_grad_matches_finite_differences(reduction):
    rng = np.random.default_rng(1)
    t = rng.uniform(-0.2, 1.0, (3, 4))        # some targets <= 0: no gradient there
    loss_op('kldiv_loss', {'x': rng.standard_normal((3, 4)), 't': t}, {'X': 'x', 'Target': 't'},
            {'reduction': reduction}, 'Loss', ['Loss'], wrt=('x',)).check_grads()


# ---------------------------------------------------------------------------------------------------------------
# label_smooth

LABEL = np.abs(Y)
PRIOR = np.array([[0.1, 0.2, 0.3, 0.4]], F32)
# fluid.layers.label_smooth(LABEL, epsilon=0.2) (and with PRIOR) from paddlepaddle 1.8.5
LABEL_SMOOTH_18 = {None: [[0.45000002, 0.05, 0.77, 0.21000001], [0.29000002, 0.25, 0.61, 0.13000001]],
                   'prior': [[0.42000002, 0.04, 0.78, 0.24000001], [0.26000002, 0.24000001, 0.62, 0.16000001]]}


@pytest.mark.parametrize('prior', [None, 'prior'])
def test_label_smooth_matches_paddle(prior):
    feeds, slots = {'x': LABEL}, {'X': 'x'}
    if prior:
        feeds['p'], slots['PriorDist'] = PRIOR, 'p'
    prog = loss_op('label_smooth', feeds, slots, {'epsilon': 0.2}, 'Out', ['Out'])
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, LABEL_SMOOTH_18[prior], rtol=1e-7)     # literals printed to 8 digits


def test_label_smooth_grad_and_prior_size_check():
    x = np.random.default_rng(2).uniform(0, 1, (3, 5))
    loss_op('label_smooth', {'x': x}, {'X': 'x'}, {'epsilon': 0.3}, 'Out', ['Out'], wrt=('x',)).check_grads()
    with pytest.raises(ValueError, match="number of elements in input 'PriorDist' must be equal"):
        loss_op('label_smooth', {'x': LABEL, 'p': PRIOR[:, :3]}, {'X': 'x', 'PriorDist': 'p'}, {'epsilon': 0.1},
                'Out', ['Out'])


# ---------------------------------------------------------------------------------------------------------------
# builders

def _data(name, shape):
    return L.data(name, shape, append_batch_size=False)


def test_fluid_smooth_l1_program_and_value():
    def net():
        return L.smooth_l1(_data('x', [2, 4]), _data('y', [2, 4]), _data('iw', [2, 4]), _data('ow', [2, 4]), 1.5)
    main, startup, out = build(net)
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (op_type, ins, outs, attrs['sigma']) == (
        'smooth_l1_loss', {'X': ['x'], 'Y': ['y'], 'InsideWeight': ['iw'], 'OutsideWeight': ['ow']},
        {'Diff': ['smooth_l1_loss_0.tmp_0'], 'Out': ['smooth_l1_loss_0.tmp_1']}, 1.5)
    got, = run(main, startup, {'x': X, 'y': Y, 'iw': IW, 'ow': OW}, [out])
    np.testing.assert_allclose(got.ravel(), SMOOTH_L1_18['weighted'], rtol=1e-6)
    main, _, _ = build(lambda: L.smooth_l1(_data('x', [2, 4]), _data('y', [2, 4])))
    assert ops_of(main)[0][3]['sigma'] == 1.0


def test_fluid_kldiv_and_label_smooth_programs():
    main, startup, out = build(lambda: L.kldiv_loss(_data('x', [2, 4]), _data('t', [2, 4]), 'batchmean'))
    assert ops_of(main)[0][:3] == ('kldiv_loss', {'X': ['x'], 'Target': ['t']}, {'Loss': ['kldiv_loss_0.tmp_0']})
    assert ops_of(main)[0][3]['reduction'] == 'batchmean'
    np.testing.assert_allclose(run(main, startup, {'x': X, 't': Y}, [out])[0], [KLDIV_18['batchmean']], rtol=2e-6)

    def smooth():
        label = _data('l', [2, 4])
        return label, L.label_smooth(label, epsilon=0.2)
    main, startup, (label, out) = build(smooth)
    assert ops_of(main)[0][:3] == ('label_smooth', {'X': ['l']}, {'Out': ['label_smooth_0.tmp_0']})
    assert label.stop_gradient
    with pytest.raises(ValueError, match='The value of epsilon must be between 0 and 1.'):
        build(lambda: L.label_smooth(_data('l', [2, 4]), epsilon=1.5))


def _data2(name, shape):
    return paddle.static.data(name, shape)


@pytest.mark.parametrize('reduction', ['none', 'mean', 'sum'])
def test_functional_smooth_l1_loss_is_huber(reduction):
    main, startup, out = build(lambda: F.smooth_l1_loss(_data2('x', [2, 4]), _data2('y', [2, 4]), reduction,
                                                        delta=0.5))
    types = [op[0] for op in ops_of(main)]
    assert types[0] == 'huber_loss' and ops_of(main)[0][2] == {'Out': ['huber_loss_0.tmp_1'],
                                                              'Residual': ['huber_loss_0.tmp_0']}
    assert types[1:] == {'none': [], 'mean': ['reduce_mean'], 'sum': ['reduce_sum']}[reduction]
    r = np.abs(Y - X).astype(np.float64)
    elems = np.where(r <= 0.5, 0.5 * r * r, 0.5 * (r - 0.25))
    want = {'none': elems, 'mean': elems.mean(), 'sum': elems.sum()}[reduction]
    np.testing.assert_allclose(np.squeeze(run(main, startup, {'x': X, 'y': Y}, [out])[0]), want, rtol=1e-6)


@pytest.mark.parametrize('reduction', list(KLDIV_18))
def test_functional_kl_div(reduction):
    main, startup, out = build(lambda: F.kl_div(_data2('x', [2, 4]), _data2('t', [2, 4]), reduction))
    types = [op[0] for op in ops_of(main)]
    assert ops_of(main)[0][1:3] == ({'X': ['x'], 'Target': ['t']}, {'Loss': ['kl_div_0.tmp_0']})
    assert ops_of(main)[0][3]['reduction'] == 'none'
    if reduction == 'batchmean':      # Paddle 2.x: sum(loss) / cast(shape(x)[0])
        assert types == ['kldiv_loss', 'shape', 'slice', 'reduce_sum', 'cast', 'elementwise_div']
    got = run(main, startup, {'x': X, 't': Y}, [out])[0]
    np.testing.assert_allclose(np.squeeze(got), KLDIV_18[reduction], rtol=2e-6, atol=1e-7)


def test_functional_label_smooth():
    main, startup, out = build(lambda: F.label_smooth(_data2('l', [2, 4]), epsilon=0.2))
    assert ops_of(main)[0][:3] == ('label_smooth', {'X': ['l']}, {'Out': ['label_smooth_0.tmp_0']})
    np.testing.assert_allclose(run(main, startup, {'l': LABEL}, [out])[0], LABEL_SMOOTH_18[None], rtol=1e-7)
