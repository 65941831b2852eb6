"""Elementwise kernels against numpy references, and their grads against finite differences."""

import numpy as np
import pytest

from paddle_exec.kernels import elementwise as E
from tests.kernels.gradcheck import check_grad, numeric_grad, projection

# (x shape, y shape, axis)
SHAPES = [
    ((2, 3, 4), (2, 3, 4), -1),   # same shape
    ((2, 3, 4), (4,), -1),        # trailing alignment
    ((2, 3, 4), (3,), 1),         # Paddle axis: y on the middle dim
    ((2, 3, 4), (3, 4), 1),
    ((2, 3, 4), (2,), 0),
    ((2, 3, 4), (2, 3), 0),
    ((2, 3, 4), (1,), -1),        # scalar
    ((2, 3, 4), (3, 1), 1),       # trailing 1 of y trimmed, as Paddle
    ((2, 3, 4), (1, 3, 1), -1),   # same rank, size-1 dims
    ((2, 3, 1, 5), (2, 1, 4, 1), -1),  # mutual ("common") broadcast
    ((4,), (2, 3, 4), -1),        # x of lower rank (Paddle 2.x)
    ((3,), (2, 3, 4), 1),
    ((5, 1), (1, 6), -1),
    ((2, 1, 4), (3, 1), 1),       # out larger than both
]

BINARY = ["add", "sub", "mul", "div", "max", "min", "pow"]

NP_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "max": np.maximum, "min": np.minimum, "pow": np.power,
}


def aligned(xshape, yshape, axis):
    """Reference Paddle alignment: pad the lower-rank shape with 1s, placing its trimmed dims at ``axis``."""
    if len(xshape) == len(yshape):
        return xshape, yshape
    swap = len(xshape) < len(yshape)
    big, small = (yshape, xshape) if swap else (xshape, yshape)
    ax = len(big) - len(small) if axis == -1 else axis
    small = list(small)
    while small and small[-1] == 1:
        small.pop()
    padded = (1,) * ax + tuple(small) + (1,) * (len(big) - ax - len(small))
    return (padded, big) if swap else (big, padded)


def make_inputs(op, xshape, yshape, axis, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if op in ("div", "pow"):
        x = rng.uniform(0.5, 1.5, xshape)
        y = rng.uniform(0.5, 2.0, yshape)
    else:
        x = rng.standard_normal(xshape)
        y = rng.standard_normal(yshape)
        if op in ("max", "min"):  # keep x and y apart so finite differences do not cross a tie
            xa, ya = aligned(xshape, yshape, axis)
            for _ in range(100):
                if np.min(np.abs(x.reshape(xa) - y.reshape(ya))) > 0.01:
                    break
                y = rng.standard_normal(yshape)
    return x.astype(dtype), y.astype(dtype)


def reference(op, x, y, axis):
    xa, ya = aligned(x.shape, y.shape, axis)
    return NP_BINARY[op](x.reshape(xa), y.reshape(ya))


def fwd(op):
    return getattr(E, f"elementwise_{op}_forward")


def bwd(op):
    return getattr(E, f"elementwise_{op}_backward")


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("xshape,yshape,axis", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_binary_forward(op, xshape, yshape, axis, dtype):
    x, y = make_inputs(op, xshape, yshape, axis, dtype)
    out = fwd(op)(x, y, axis)
    ref = reference(op, x, y, axis)
    assert out.dtype == dtype
    assert out.shape == ref.shape
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(out, ref, rtol=tol, atol=tol)
    assert out.shape == E.broadcast_shape(xshape, yshape, axis)


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("xshape,yshape,axis", SHAPES)
def test_binary_backward(op, xshape, yshape, axis):
    x, y = make_inputs(op, xshape, yshape, axis, np.float64, seed=1)
    w = projection(E.broadcast_shape(xshape, yshape, axis), seed=2)
    dx, dy = bwd(op)(x, y, w, axis)
    assert dx.shape == x.shape and dy.shape == y.shape
    f = lambda a, b: float(np.sum(fwd(op)(a, b, axis) * w))
    check_grad(dx, numeric_grad(f, [x, y], 0), name=f"{op} dX")
    check_grad(dy, numeric_grad(f, [x, y], 1), name=f"{op} dY")


@pytest.mark.parametrize("op", ["add", "mul", "div"])
def test_backward_need_flags(op):
    x, y = make_inputs(op, (3, 4), (4,), -1, np.float32)
    dout = np.ones((3, 4), np.float32)
    full_dx, full_dy = bwd(op)(x, y, dout)
    dx, dy = bwd(op)(x, y, dout, need_dy=False)
    assert dy is None
    np.testing.assert_array_equal(dx, full_dx)
    dx, dy = bwd(op)(x, y, dout, need_dx=False)
    assert dx is None
    np.testing.assert_array_equal(dy, full_dy)
    assert full_dx.dtype == np.float32 and full_dy.dtype == np.float32


def test_bias_grad_is_column_sum_in_float32():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    dout = rng.standard_normal((64, 8)).astype(np.float32)
    dx, db = E.elementwise_add_backward(x, b, dout, axis=1)
    np.testing.assert_array_equal(dx, dout)
    np.testing.assert_allclose(db, dout.astype(np.float64).sum(0), rtol=1e-5)


def test_max_min_ties_go_to_y():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([1.0, 1.0, 4.0], np.float32)
    d = np.array([10.0, 20.0, 30.0], np.float32)
    dx, dy = E.elementwise_max_backward(x, y, d)
    np.testing.assert_array_equal(dx, [0, 20, 0])
    np.testing.assert_array_equal(dy, [10, 0, 30])
    dx, dy = E.elementwise_min_backward(x, y, d)
    np.testing.assert_array_equal(dx, [0, 0, 30])
    np.testing.assert_array_equal(dy, [10, 20, 0])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_ops(dtype):
    x = np.array([-7, 7, -7, 7, 6], dtype)
    y = np.array([2, 2, -2, -2, 3], dtype)
    assert E.elementwise_add_forward(x, y).dtype == dtype
    np.testing.assert_array_equal(E.elementwise_add_forward(x, y), x + y)
    np.testing.assert_array_equal(E.elementwise_mul_forward(x, y), x * y)
    np.testing.assert_array_equal(E.elementwise_div_forward(x, y), [-3, 3, 3, -3, 2])      # C++ truncation
    np.testing.assert_array_equal(E.elementwise_floordiv_forward(x, y), [-3, 3, 3, -3, 2])  # Paddle <= 2.4
    np.testing.assert_array_equal(E.elementwise_mod_forward(x, y), np.mod(x, y))           # sign of y
    np.testing.assert_array_equal(E.elementwise_max_forward(x, y), np.maximum(x, y))
    np.testing.assert_array_equal(E.elementwise_pow_forward(np.array([3, 2, 5], dtype), np.array([2, 10, 0], dtype)),
                                  [9, 1024, 1])
    out = E.elementwise_sub_forward(x.reshape(5, 1), np.array([1], dtype))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, x.reshape(5, 1) - 1)


def test_float_mod_and_floordiv():
    x = np.array([-7.5, 7.5, -7.5, 7.5])
    y = np.array([2.0, 2.0, -2.0, -2.0])
    np.testing.assert_allclose(E.elementwise_mod_forward(x, y), np.mod(x, y))
    np.testing.assert_allclose(E.elementwise_floordiv_forward(x, y), np.trunc(x / y))


def test_float_division_by_zero_is_ieee():
    out = E.elementwise_div_forward(np.array([1.0, -1.0, 0.0], np.float32), np.zeros(3, np.float32))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2])


COMPARE = {
    "less_than": np.less, "less_equal": np.less_equal, "greater_than": np.greater,
    "greater_equal": np.greater_equal, "equal": np.equal, "not_equal": np.not_equal,
}


@pytest.mark.parametrize("name", sorted(COMPARE))
@pytest.mark.parametrize("xshape,yshape,axis", SHAPES[:10])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_compare(name, xshape, yshape, axis, dtype):
    rng = np.random.default_rng(4)
    x = rng.integers(-2, 3, xshape).astype(dtype)
    y = rng.integers(-2, 3, yshape).astype(dtype)
    out = getattr(E, f"{name}_forward")(x, y, axis)
    xa, ya = aligned(xshape, yshape, axis)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, COMPARE[name](x.reshape(xa), y.reshape(ya)))


def test_equal_float_tolerance():
    x = np.array([1.0, 1.0, np.inf, np.inf, np.nan, 0.0])
    y = np.array([1.0 + 1e-9, 1.0 + 1e-7, np.inf, -np.inf, np.nan, 1e-300])
    np.testing.assert_array_equal(E.equal_forward(x, y), [True, False, True, False, False, True])
    np.testing.assert_array_equal(E.not_equal_forward(x, y), [False, True, False, True, True, False])


def test_where():
    rng = np.random.default_rng(5)
    cond = rng.random((3, 4)) > 0.5
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((3, 4)).astype(np.float32)
    out = E.where_forward(cond, x, y)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.where(cond, x, y))
    d = rng.standard_normal((3, 4)).astype(np.float32)
    dx, dy = E.where_backward(cond, x, y, d)
    np.testing.assert_array_equal(dx, np.where(cond, d, 0))
    np.testing.assert_array_equal(dy, np.where(cond, 0, d))


def test_where_broadcast_backward():
    rng = np.random.default_rng(6)
    cond = rng.random((3, 4)) > 0.5
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal((4,))
    np.testing.assert_array_equal(E.where_forward(cond, x, y), np.where(cond, x, y))
    w = projection((3, 4), seed=7)
    dx, dy = E.where_backward(cond, x, y, w)
    f = lambda a, b: float(np.sum(E.where_forward(cond, a, b) * w))
    check_grad(dx, numeric_grad(f, [x, y], 0))
    check_grad(dy, numeric_grad(f, [x, y], 1))


def test_sum_to_shape():
    g = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    np.testing.assert_allclose(E.sum_to_shape(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_allclose(E.sum_to_shape(g, (4,)), g.sum(axis=(0, 1)))
    assert E.sum_to_shape(g, g.shape) is g


def test_bad_shapes_raise():
    with pytest.raises(ValueError, match="X = \\[2, 3\\].*Y = \\[4\\]"):
        E.elementwise_add_forward(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError):
        E.elementwise_add_forward(np.ones((2, 3)), np.ones((3, 2)), axis=1)


def test_noncontiguous_and_empty_inputs():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 3)).astype(np.float32).T  # a transposed view
    y = rng.standard_normal((3, 4)).astype(np.float32)[:, ::1]
    np.testing.assert_allclose(E.elementwise_mul_forward(x, y), x * y, rtol=1e-6)
    dx, dy = E.elementwise_mul_backward(x, y, np.ones((3, 4), np.float32))
    np.testing.assert_allclose(dx, y, rtol=1e-6)
    empty = np.ones((0, 3), np.float32)
    assert E.elementwise_add_forward(empty, np.ones(3, np.float32)).shape == (0, 3)
    dx, dy = E.elementwise_add_backward(empty, np.ones(3, np.float32), empty)
    assert dx.shape == (0, 3)
    np.testing.assert_array_equal(dy, np.zeros(3, np.float32))


def test_mixed_dtype_y_is_cast_to_x():
    out = E.elementwise_add_forward(np.ones(3, np.float32), np.ones(3, np.float64))
    assert out.dtype == np.float32


def test_broadcast_plans_live_in_a_bounded_cache():
    for n in range(E.PLAN_CACHE_SIZE + 50):
        assert E.broadcast_shape((n + 1, 3), (3,)) == (n + 1, 3)
    info = E._plan.cache_info()
    assert info.maxsize == E.PLAN_CACHE_SIZE and info.currsize <= E.PLAN_CACHE_SIZE
