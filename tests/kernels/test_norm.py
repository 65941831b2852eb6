"""batch_norm, layer_norm and dropout kernels: numpy references, Paddle 1.8.5 recorded values, finite
differences."""
import numpy as np
import pytest

from paddle_exec.kernels import norm as K
from tests.kernels.gradcheck import check_grad, numeric_grad


def _rng(seed=0):
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------------------------------------------
# batch_norm

def _channel_axes(ndim, layout):
    """(reduction axes, broadcast shape builder) for the channel axis of the layout."""
    caxis = 1 if layout == 'NCHW' else ndim - 1
    axes = tuple(a for a in range(ndim) if a != caxis)
    return axes, caxis


def ref_batch_norm_train(x, scale, bias, mean, var, momentum, eps, layout):
    axes, caxis = _channel_axes(x.ndim, layout)
    shape = [1] * x.ndim
    shape[caxis] = -1
    x64 = x.astype(np.float64)
    bm = x64.mean(axis=axes)
    bv = x64.var(axis=axes)                         # biased
    y = (x64 - bm.reshape(shape)) / np.sqrt(bv.reshape(shape) + eps) * scale.reshape(shape) + bias.reshape(shape)
    return y, mean * momentum + bm * (1 - momentum), var * momentum + bv * (1 - momentum), bm, 1 / np.sqrt(bv + eps)


BN_CASES = [((4, 3, 5, 2), 'NCHW'), ((6, 5), 'NCHW'), ((3, 4, 2, 5), 'NHWC'), ((2, 3, 4), 'NCHW'), ((2, 3, 4), 'NHWC')]


def _bn_inputs(shape, layout, seed, dtype=np.float32):
    rng = _rng(seed)
    c = shape[1] if layout == 'NCHW' else shape[-1]
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    scale = (rng.random(c) + 0.5).astype(dtype)
    bias = rng.standard_normal(c).astype(dtype)
    mean = rng.standard_normal(c).astype(dtype)
    var = (rng.random(c) + 0.5).astype(dtype)
    return x, scale, bias, mean, var


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_batch_norm_train_forward(case, dtype):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = _bn_inputs(shape, layout, case, dtype)
    outs = K.batch_norm_forward(x, scale, bias, mean, var, momentum=0.8, epsilon=1e-4, data_layout=layout)
    refs = ref_batch_norm_train(x, scale, bias, mean, var, 0.8, 1e-4, layout)
    for name, o, r in zip(('Y', 'MeanOut', 'VarianceOut', 'SavedMean', 'SavedVariance'), outs, refs):
        assert o.dtype == dtype and o.shape == np.shape(r), name
        np.testing.assert_allclose(o, r, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize('mode', ['is_test', 'use_global_stats'])
def test_batch_norm_global_stats_forward(mode):
    x, scale, bias, mean, var = _bn_inputs((4, 3, 5, 2), 'NCHW', 1)
    y, mo, vo, sm, sv = K.batch_norm_forward(x, scale, bias, mean, var, epsilon=1e-5, **{mode: True})
    sh = (1, -1, 1, 1)
    ref = (x - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + 1e-5) * scale.reshape(sh) + bias.reshape(sh)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(mo, mean)   # running statistics pass through
    np.testing.assert_array_equal(vo, var)
    assert mo is not mean


def test_batch_norm_paddle_recorded_running_stats():
    # paddlepaddle 1.8.5: running var uses the BIASED batch variance; SavedVariance = 1 / sqrt(var + eps)
    rng = np.random.RandomState(0)
    x = rng.randn(4, 3, 2, 2).astype(np.float32)
    _, mo, vo, sm, sv = K.batch_norm_forward(x, np.ones(3, np.float32), np.zeros(3, np.float32),
                                             np.full(3, 0.5, np.float32), np.full(3, 2.0, np.float32), momentum=0.9)
    np.testing.assert_allclose(mo, [0.50913185, 0.47342554, 0.42278385], rtol=1e-6)
    np.testing.assert_allclose(vo, [1.8941512, 1.9381281, 1.9053477], rtol=1e-6)
    np.testing.assert_allclose(sm, [0.5913185, 0.23425545, -0.27216128], rtol=1e-6)
    np.testing.assert_allclose(sv, [1.0305872, 0.85085845, 0.97428346], rtol=1e-6)


@pytest.mark.parametrize('case', range(len(BN_CASES)))
def test_batch_norm_backward_finite_difference(case):
    shape, layout = BN_CASES[case]
    x, scale, bias, mean, var = (a.astype(np.float64) for a in _bn_inputs(shape, layout, 10 + case))
    proj = _rng(case).standard_normal(shape)

    def f(x_, s_, b_):
        return float(np.sum(K.batch_norm_forward(x_, s_, b_, mean, var, epsilon=1e-4, data_layout=layout)[0] * proj))

    _, _, _, sm, sv = K.batch_norm_forward(x, scale, bias, mean, var, epsilon=1e-4, data_layout=layout)
    dx, ds, db = K.batch_norm_backward(x, scale, sm, sv, proj, epsilon=1e-4, data_layout=layout)
    check_grad(dx, numeric_grad(f, [x, scale, bias], 0), name='dX')
    check_grad(ds, numeric_grad(f, [x, scale, bias], 1), name='dScale')
    check_grad(db, numeric_grad(f, [x, scale, bias], 2), name='dBias')


def test_batch_norm_backward_global_stats_finite_difference():
    x, scale, bias, mean, var = (a.astype(np.float64) for a in _bn_inputs((3, 2, 3, 2), 'NCHW', 3))
    proj = _rng(3).standard_normal(x.shape)

    def f(x_, s_, b_):
        return float(np.sum(K.batch_norm_forward(x_, s_, b_, mean, var, use_global_stats=True)[0] * proj))

    dx, ds, db = K.batch_norm_backward(x, scale, None, None, proj, use_global_stats=True, mean=mean, variance=var)
    check_grad(dx, numeric_grad(f, [x, scale, bias], 0), name='dX')
    check_grad(ds, numeric_grad(f, [x, scale, bias], 1), name='dScale')
    check_grad(db, numeric_grad(f, [x, scale, bias], 2), name='dBias')


# ----------------------------------------------------------------------------------------------------------------
# layer_norm

def ref_layer_norm(x, scale, bias, axis, eps):
    left = int(np.prod(x.shape[:axis]))
    x2 = x.reshape(left, -1).astype(np.float64)
    m = x2.mean(axis=1)
    v = ((x2 - m[:, None]) ** 2).mean(axis=1)
    y = (x2 - m[:, None]) / np.sqrt(v[:, None] + eps)
    if scale is not None:
        y = y * scale
    if bias is not None:
        y = y + bias
    return y.reshape(x.shape), m, v


LN_CASES = [((4, 6), 1, True, True), ((3, 4, 5), 2, True, True), ((3, 4, 5), 1, False, False),
            ((2, 3, 4), 1, True, False), ((2, 5), 1, False, True)]


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('case', range(len(LN_CASES)))
def test_layer_norm_forward(case, dtype):
    shape, axis, has_s, has_b = LN_CASES[case]
    rng = _rng(case)
    right = int(np.prod(shape[axis:]))
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    s = (rng.random(right) + 0.5).astype(dtype) if has_s else None
    b = rng.standard_normal(right).astype(dtype) if has_b else None
    y, m, v = K.layer_norm_forward(x, s, b, begin_norm_axis=axis, epsilon=1e-5)
    ry, rm, rv = ref_layer_norm(x, s, b, axis, 1e-5)
    assert y.dtype == dtype and m.shape == rm.shape and v.shape == rv.shape
    np.testing.assert_allclose(y, ry, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(m, rm, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(v, rv, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize('case', range(len(LN_CASES)))
def test_layer_norm_backward_finite_difference(case):
    shape, axis, has_s, has_b = LN_CASES[case]
    rng = _rng(20 + case)
    right = int(np.prod(shape[axis:]))
    x = rng.standard_normal(shape) * 2 + 1
    s = rng.random(right) + 0.5
    b = rng.standard_normal(right)
    proj = rng.standard_normal(shape)

    def f(x_, s_, b_):
        y = K.layer_norm_forward(x_, s_ if has_s else None, b_ if has_b else None, begin_norm_axis=axis)[0]
        return float(np.sum(y * proj))

    _, m, v = K.layer_norm_forward(x, s if has_s else None, b if has_b else None, begin_norm_axis=axis)
    dx, ds, db = K.layer_norm_backward(x, m, v, proj, s if has_s else None, begin_norm_axis=axis)
    check_grad(dx, numeric_grad(f, [x, s, b], 0), name='dX')
    if has_s:
        check_grad(ds, numeric_grad(f, [x, s, b], 1), name='dScale')
    if has_b:
        check_grad(db, numeric_grad(f, [x, s, b], 2), name='dBias')


def test_layer_norm_bad_axis():
    with pytest.raises(ValueError):
        K.layer_norm_forward(np.zeros((2, 3), np.float32), begin_norm_axis=2)


# ----------------------------------------------------------------------------------------------------------------
# dropout

# paddlepaddle 1.8.5, fluid.layers.dropout(x[2, 6], 0.4, seed=3): Mask
PD_MASK_SEED3 = np.array([[0, 0, 1, 1, 1, 1], [1, 0, 1, 0, 0, 1]], np.uint8)


def ref_minstd_mask(n, seed, p):
    """std::minstd_rand + libstdc++ generate_canonical<float>, in plain Python."""
    state, mask = seed, []
    for _ in range(n):
        state = state * 48271 % 2147483647
        u = np.float32(state - 1) / np.float32(2 ** 31)
        mask.append(0 if u < np.float32(p) else 1)
    return np.array(mask, np.uint8)


def test_dropout_mask_matches_paddle():
    out, mask = K.dropout_forward(np.ones((2, 6), np.float32), 0.4, seed=3)
    assert mask.dtype == np.uint8
    np.testing.assert_array_equal(mask, PD_MASK_SEED3)
    np.testing.assert_array_equal(out, PD_MASK_SEED3.astype(np.float32))
    np.testing.assert_array_equal(K.dropout_mask((7, 9), 0.3, seed=12345).reshape(-1),
                                  ref_minstd_mask(63, 12345, 0.3))


def test_dropout_modes():
    rng = _rng(1)
    x = rng.standard_normal((5, 33)).astype(np.float32)
    p = 0.25
    out, mask = K.dropout_forward(x, p, seed=7)
    np.testing.assert_array_equal(out, x * mask)
    out2, mask2 = K.dropout_forward(x, p, seed=7, dropout_implementation='upscale_in_train')
    np.testing.assert_array_equal(mask2, mask)
    np.testing.assert_allclose(out2, x * mask / np.float32(1 - p), rtol=1e-6)
    test_out, test_mask = K.dropout_forward(x, p, is_test=True)
    assert test_mask is None
    np.testing.assert_allclose(test_out, x * np.float32(1 - p), rtol=1e-6)
    test_out, _ = K.dropout_forward(x, p, is_test=True, dropout_implementation='upscale_in_train')
    np.testing.assert_array_equal(test_out, x)
    # deterministic for a fixed seed, random without one
    np.testing.assert_array_equal(K.dropout_forward(x, p, seed=7)[1], mask)
    big = K.dropout_mask((20000,), 0.3)
    assert abs(1 - big.mean() - 0.3) < 0.02
    # p == 1 under upscale_in_train: everything dropped, zero gradient
    out, mask = K.dropout_forward(x, 1.0, seed=1, dropout_implementation='upscale_in_train')
    assert not out.any() and not mask.any()
    assert not K.dropout_backward(np.ones_like(x), np.ones(x.shape, np.uint8), 1.0, 'upscale_in_train').any()
    with pytest.raises(ValueError):
        K.dropout_forward(x, 0.5, dropout_implementation='bogus')


@pytest.mark.parametrize('impl', ['downgrade_in_infer', 'upscale_in_train'])
def test_dropout_backward_finite_difference(impl):
    rng = _rng(2)
    x = rng.standard_normal((4, 7))
    proj = rng.standard_normal(x.shape)
    f = lambda x_: float(np.sum(K.dropout_forward(x_, 0.35, seed=11, dropout_implementation=impl)[0] * proj))
    _, mask = K.dropout_forward(x, 0.35, seed=11, dropout_implementation=impl)
    dx = K.dropout_backward(proj, mask, 0.35, impl)
    check_grad(dx, numeric_grad(f, [x], 0))


def test_batch_norm_grad_rejects_a_gradient_of_another_shape():
    # the loops index Y@GRAD by X's shape: a smaller one must not be read past its end
    x, scale, bias, mean, var = _bn_inputs((4, 3), 'NCHW', 0)
    _, _, _, sm, sv = K.batch_norm_forward(x, scale, bias, mean, var, data_layout='NCHW')
    with pytest.raises(ValueError, match=r'Y@GRAD must have the shape of X \(4, 3\), got \(2, 3\)'):
        K.batch_norm_backward(x, scale, sm, sv, np.ones((2, 3), x.dtype), data_layout='NCHW')


def test_batch_norm_fuses_relu_only():
    x, scale, bias, mean, var = _bn_inputs((4, 3), 'NCHW', 0)
    with pytest.raises(ValueError, match="fuses act 'relu' only, got 'sigmoid'"):
        K.batch_norm_forward(x, scale, bias, mean, var, act='sigmoid')
