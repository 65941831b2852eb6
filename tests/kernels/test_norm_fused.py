"""fused_batch_norm_act's kernels (batch_norm's loops with act='relu': batch_norm + relu in one pass): a numpy
reference, the unfused kernels bit for bit, and finite differences for the gradient."""
import numpy as np
import pytest

from paddle_exec.kernels import activation as KA
from paddle_exec.kernels import norm as KN
from tests.kernels.gradcheck import check_grad, numeric_grad
from tests.kernels.test_norm import BN_CASES, _bn_inputs, _rng, ref_batch_norm_train


def bn_relu_forward(*args, **kwargs):
    return KN.batch_norm_forward(*args, act='relu', **kwargs)


def bn_relu_backward(x, y, scale, saved_mean, saved_inv_std, dy, data_layout):
    return KN.batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, data_layout=data_layout, act='relu', y=y)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_forward_is_relu_of_the_numpy_batch_norm(case, dtype):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = _bn_inputs(shape, layout, case, dtype)
    outs = bn_relu_forward(x, scale, bias, mean, var, momentum=0.8, epsilon=1e-4, data_layout=layout)
    y, *stats = ref_batch_norm_train(x, scale, bias, mean, var, 0.8, 1e-4, layout)
    refs = [np.maximum(y, 0)] + stats
    for name, o, r in zip(('Y', 'MeanOut', 'VarianceOut', 'SavedMean', 'SavedVariance'), outs, refs):
        assert o.dtype == dtype and o.shape == np.shape(r), name
        np.testing.assert_allclose(o, r, rtol=1e-4, atol=1e-5, err_msg=name)
    assert (outs[0] == 0).any() and (outs[0] > 0).any()      # the relu cut something


@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_forward_equals_batch_norm_then_relu_to_the_bit(case):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = _bn_inputs(shape, layout, 20 + case)
    fused = bn_relu_forward(x, scale, bias, mean, var, momentum=0.9, epsilon=1e-5, data_layout=layout)
    y, *stats = KN.batch_norm_forward(x, scale, bias, mean, var, momentum=0.9, epsilon=1e-5, data_layout=layout)
    np.testing.assert_array_equal(fused[0], KA.relu_forward(y))
    for a, b in zip(fused[1:], stats):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_backward_equals_relu_grad_then_batch_norm_grad(case):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = _bn_inputs(shape, layout, 30 + case)
    y, _, _, sm, sv = bn_relu_forward(x, scale, bias, mean, var, data_layout=layout)
    dy = _rng(case).standard_normal(shape).astype(np.float32)
    dx, ds, db = bn_relu_backward(x, y, scale, sm, sv, dy, data_layout=layout)
    ux, us, ub = KN.batch_norm_backward(x, scale, sm, sv, KA.relu_backward(y, dy), data_layout=layout)
    np.testing.assert_allclose(dx, ux, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ds, us, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(db, ub, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_backward_finite_difference(case):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = (a.astype(np.float64) for a in _bn_inputs(shape, layout, 40 + case))
    proj = _rng(case).standard_normal(shape)

    def f(x_, s_, b_):
        return float(np.sum(bn_relu_forward(x_, s_, b_, mean, var, epsilon=1e-4,
                                                       data_layout=layout)[0] * proj))

    y, _, _, sm, sv = bn_relu_forward(x, scale, bias, mean, var, epsilon=1e-4, data_layout=layout)
    assert np.abs(KN.batch_norm_forward(x, scale, bias, mean, var, epsilon=1e-4, data_layout=layout)[0]).min() \
        > 1e-4    # no value within reach of the finite-difference step (1e-6) of the relu's kink
    dx, ds, db = bn_relu_backward(x, y, scale, sm, sv, proj, data_layout=layout)
    check_grad(dx, numeric_grad(f, [x, scale, bias], 0, eps=1e-6), name='dX')
    check_grad(ds, numeric_grad(f, [x, scale, bias], 1, eps=1e-6), name='dScale')
    check_grad(db, numeric_grad(f, [x, scale, bias], 2, eps=1e-6), name='dBias')


def test_backward_rejects_a_y_of_another_shape():
    x, scale, bias, mean, var = _bn_inputs((4, 3), 'NCHW', 0)
    y, _, _, sm, sv = bn_relu_forward(x, scale, bias, mean, var, data_layout='NCHW')
    with pytest.raises(ValueError, match='shape of X'):
        bn_relu_backward(x, y[:2], scale, sm, sv, np.ones_like(x), data_layout='NCHW')
