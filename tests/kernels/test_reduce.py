"""Reduction, mean, sum and softmax kernels against numpy references and finite differences."""

import numpy as np
import pytest

from paddle_exec.kernels import reduce as R
from tests.kernels.gradcheck import check_grad, numeric_grad, projection

NP_REDUCE = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}

# (shape, dim, reduce_all)
DIMS = [
    ((2, 3, 4), None, False),
    ((2, 3, 4), [0], False),
    ((2, 3, 4), [1], False),
    ((2, 3, 4), [-1], False),
    ((2, 3, 4), 2, False),
    ((2, 3, 4), [0, 1], False),
    ((2, 3, 4), [1, 2], False),
    ((2, 3, 4), [0, 2], False),       # not adjacent: transposed path
    ((2, 3, 4, 5), [0, 2], False),
    ((2, 3, 4, 5), [1, 3], False),
    ((2, 3, 4, 5), [-4, -1], False),
    ((2, 3, 4), [0, 1, 2], False),    # every dim
    ((2, 3, 4), [1], True),           # reduce_all wins over dim
    ((2, 1, 4), [1], False),          # reducing a size-1 dim
    ((2, 1, 4), [0, 2], False),
    ((5,), [0], False),
]


def np_axes(shape, dim, reduce_all):
    if reduce_all or dim is None:
        return tuple(range(len(shape)))
    dims = [dim] if isinstance(dim, int) else dim
    return tuple(sorted(d % len(shape) for d in dims))


def np_reduce(op, x, dim, keep_dim, reduce_all):
    axes = np_axes(x.shape, dim, reduce_all)
    out = NP_REDUCE[op](x.astype(np.float64), axis=axes, keepdims=keep_dim)
    out = np.asarray(out)
    if out.ndim == 0:
        out = out.reshape(1)  # Paddle <= 2.4 has no 0-D tensors
    return out


def distinct_values(shape, seed, positive=False):
    """Values whose pairwise gaps exceed the finite-difference step (for max/min/prod)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    vals = rng.permutation(n) * 0.1 + (0.5 if positive else -0.05 * n)
    if positive:  # keep prod of the values moderate
        vals = 0.7 + rng.permutation(n) * (0.6 / n)
    return vals.reshape(shape)


@pytest.mark.parametrize("op", sorted(NP_REDUCE))
@pytest.mark.parametrize("shape,dim,reduce_all", DIMS)
@pytest.mark.parametrize("keep_dim", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduce_forward(op, shape, dim, reduce_all, keep_dim, dtype):
    x = distinct_values(shape, 0, positive=(op == "prod")).astype(dtype)
    out = getattr(R, f"reduce_{op}_forward")(x, dim, keep_dim, reduce_all)
    ref = np_reduce(op, x, dim, keep_dim, reduce_all)
    assert out.dtype == dtype
    assert out.shape == ref.shape
    assert out.shape == R.reduce_out_shape(shape, dim, keep_dim, reduce_all)
    tol = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", sorted(NP_REDUCE))
@pytest.mark.parametrize("shape,dim,reduce_all", DIMS)
@pytest.mark.parametrize("keep_dim", [False, True])
def test_reduce_backward(op, shape, dim, reduce_all, keep_dim):
    x = distinct_values(shape, 1, positive=(op == "prod"))
    fwd = getattr(R, f"reduce_{op}_forward")
    out = fwd(x, dim, keep_dim, reduce_all)
    w = projection(out.shape, seed=2)
    bwd = getattr(R, f"reduce_{op}_backward")
    if op in ("sum", "mean"):
        dx = bwd(x, w, dim, keep_dim, reduce_all)
    else:
        dx = bwd(x, out, w, dim, keep_dim, reduce_all)
    assert dx.shape == x.shape
    num = numeric_grad(lambda a: float(np.sum(fwd(a, dim, keep_dim, reduce_all) * w)), [x], 0)
    check_grad(dx, num, name=f"reduce_{op}")


def test_out_shapes_follow_paddle():
    assert R.reduce_out_shape((2, 3), None) == (1,)
    assert R.reduce_out_shape((2, 3), None, keep_dim=True) == (1, 1)
    assert R.reduce_out_shape((2, 3), [0, 1]) == (1,)
    assert R.reduce_out_shape((5,), [0]) == (1,)
    assert R.reduce_out_shape((2, 3), [], keep_dim=False) == (1,)  # empty dim list: reduce_all
    assert R.reduce_out_shape((2, 3, 4), [-1], keep_dim=True) == (2, 3, 1)
    with pytest.raises(ValueError, match="reduce dim"):
        R.reduce_out_shape((2, 3), [2])


def test_max_min_grad_goes_to_every_tie():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], np.float32)
    out = R.reduce_max_forward(x, [1])
    np.testing.assert_array_equal(out, [3, 2])
    d = np.array([10.0, 20.0], np.float32)
    np.testing.assert_array_equal(R.reduce_max_backward(x, out, d, [1]), [[0, 10, 10], [20, 20, 0]])
    out = R.reduce_min_forward(x, None)
    np.testing.assert_array_equal(R.reduce_min_backward(x, out, np.array([5.0], np.float32), None),
                                  [[0, 0, 0], [0, 0, 5]])


def test_prod_grad_divides_by_x():
    x = np.array([2.0, 0.0, 3.0])
    out = R.reduce_prod_forward(x, [0])
    dx = R.reduce_prod_backward(x, out, np.ones(1), [0])
    assert dx[0] == 0.0 and np.isnan(dx[1])  # dout * out / x, as Paddle


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_reduce(dtype):
    x = np.arange(-6, 6, dtype=dtype).reshape(3, 4)
    for op in ["sum", "max", "min", "prod"]:
        out = getattr(R, f"reduce_{op}_forward")(x, [1])
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, NP_REDUCE[op](x, axis=1))
    assert R.reduce_sum_forward(x, [0], out_dtype=np.int64).dtype == np.int64


def test_large_sum_accumulates_in_float64():
    x = np.full(1_000_003, 0.1, np.float32)
    np.testing.assert_allclose(R.reduce_sum_forward(x), [x.astype(np.float64).sum()], rtol=1e-7)
    np.testing.assert_allclose(R.mean_forward(x.reshape(1000003, 1)), [0.1], rtol=1e-7)


def test_mean():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 5))
    out = R.mean_forward(x)
    assert out.shape == (1,)
    np.testing.assert_allclose(out, [x.mean()], rtol=1e-12)
    dx = R.mean_backward(x, np.array([2.0]))
    np.testing.assert_allclose(dx, np.full((3, 5), 2.0 / 15))
    num = numeric_grad(lambda a: float(R.mean_forward(a)[0] * 3.0), [x], 0)
    check_grad(R.mean_backward(x, np.array([3.0])), num)


def test_sum_of_list():
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(4)]
    out = R.sum_forward(xs)
    assert out.dtype == np.float32
    ref = ((xs[0] + xs[1]) + xs[2]) + xs[3]  # Paddle's order, in float32
    np.testing.assert_array_equal(out, ref)
    single = R.sum_forward(xs[:1])
    np.testing.assert_array_equal(single, xs[0])
    assert single is not xs[0]
    with pytest.raises(ValueError):
        R.sum_forward([xs[0], np.ones((3, 2), np.float32)])


def np_softmax(x, axis):
    shifted = np.maximum(x - x.max(axis=axis, keepdims=True), -64.0)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis):
    shifted = np.maximum(x - x.max(axis=axis, keepdims=True), -64.0)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,axis", [((4, 5), -1), ((4, 5), 0), ((2, 3, 4), 1), ((2, 3, 4), -1),
                                        ((2, 3, 4), 0), ((6,), 0), ((3, 1), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_forward(log, shape, axis, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 3).astype(dtype)
    fwd = R.log_softmax_forward if log else R.softmax_forward
    ref = (np_log_softmax if log else np_softmax)(x.astype(np.float64), axis)
    out = fwd(x, axis)
    assert out.dtype == dtype
    tol = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,axis", [((4, 5), -1), ((4, 5), 0), ((2, 3, 4), 1)])
def test_softmax_backward(log, shape, axis):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape)
    w = projection(shape, seed=7)
    fwd = R.log_softmax_forward if log else R.softmax_forward
    bwd = R.log_softmax_backward if log else R.softmax_backward
    dx = bwd(fwd(x, axis), w, axis)
    num = numeric_grad(lambda a: float(np.sum(fwd(a, axis) * w)), [x], 0)
    check_grad(dx, num)


def test_softmax_clips_shifted_logits_at_minus_64():
    x = np.array([[0.0, -100.0, 1000.0]], np.float32)
    ls = R.log_softmax_forward(x)
    np.testing.assert_allclose(ls, [[-64.0, -64.0, 0.0]], atol=1e-5)  # not -1000 / -1100: Paddle's ValueClip
    sm = R.softmax_forward(x)
    assert np.all(np.isfinite(sm)) and sm[0, 2] == np.float32(1.0)
    np.testing.assert_allclose(sm[0, :2], np.exp(-64.0), rtol=1e-5)


def test_empty_inputs():
    x = np.ones((0, 3), np.float32)
    np.testing.assert_array_equal(R.reduce_sum_forward(x, [0]), np.zeros(3, np.float32))
    assert R.reduce_sum_forward(x, [1]).shape == (0,)
    assert R.softmax_forward(x).shape == (0, 3)


def test_reduce_plans_live_in_a_bounded_cache():
    for n in range(R.PLAN_CACHE_SIZE + 50):
        assert R.reduce_out_shape((n + 1, 3), [1]) == (n + 1,)
    info = R._cached_plan.cache_info()
    assert info.maxsize == R.PLAN_CACHE_SIZE and info.currsize <= R.PLAN_CACHE_SIZE
