"""celu, rrelu, gumbel_softmax, bilinear_tensor_product, cos_sim, row_conv and pad_constant_like through small
programs: numpy references and finite-difference gradients; the random ops (rrelu, gumbel_softmax) by their
properties and their gradients' formulas given the noise they drew. Real Paddle's numbers for the deterministic
ones: tests/api/test_nn_golden.py."""
from __future__ import annotations

import numpy as np
import pytest

from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def one_op(op_type, feeds, inputs, attrs, out_slot='Out', wrt=('x',), extra=()):
    def build(block, **vs):
        outs = {out_slot: 1, **{s: 1 for s in extra}}
        return append(block, op_type, {s: [vs[n]] for s, n in inputs.items()}, outs, attrs)[out_slot][0]
    return OpProgram(build, feeds, wrt)


def test_celu_forward_and_gradient():
    x = _rng(1).standard_normal((3, 4)) * 2
    prog = one_op('celu', {'x': x}, {'X': 'x'}, {'alpha': 0.7})
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, np.maximum(x, 0) + np.minimum(0, 0.7 * (np.exp(x / 0.7) - 1)), rtol=1e-12)
    prog.check_grads()


def test_rrelu_draws_slopes_in_range_and_differentiates_with_them():
    x = _rng(2).standard_normal((50, 40))
    prog = one_op('rrelu', {'x': x}, {'X': 'x'}, {'lower': 0.1, 'upper': 0.3}, extra=('Noise',))
    out, dx = prog.run([prog.out, 'x@GRAD'])
    slope = out / x
    negative = x < 0
    np.testing.assert_allclose(slope[~negative], 1.0)
    assert 0.1 <= slope[negative].min() and slope[negative].max() <= 0.3
    assert slope[negative].std() > 0.03                         # drawn per element, not one slope
    dout = prog.proj / prog.proj.size
    # the backward pass of the same run used the same slopes as its forward
    out2, dx2 = prog.run([prog.out, 'x@GRAD'])
    np.testing.assert_allclose(dx2, dout * out2 / x, rtol=1e-10)


def test_rrelu_test_mode_uses_the_mean_slope():
    x = _rng(3).standard_normal((4, 5))
    prog = one_op('rrelu', {'x': x}, {'X': 'x'}, {'lower': 0.1, 'upper': 0.3, 'is_test': True}, extra=('Noise',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, np.where(x >= 0, x, 0.2 * x), rtol=1e-12)
    prog.check_grads()


@pytest.mark.parametrize('hard', [False, True])
def test_gumbel_softmax_rows_are_distributions_and_the_gradient_is_paddles(hard):
    x = _rng(4).standard_normal((6, 5))
    prog = one_op('gumbel_softmax', {'x': x}, {'X': 'x'}, {'temperature': 0.5, 'hard': hard, 'axis': -1})
    out, dx = prog.run([prog.out, 'x@GRAD'])
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-12)
    if hard:
        assert set(np.unique(out)) <= {0.0, 1.0}
    dout = prog.proj / prog.proj.size
    np.testing.assert_allclose(dx, out * (dout - np.sum(out * dout, axis=-1, keepdims=True)) / 0.5, rtol=1e-10)


def test_bilinear_tensor_product_forward_and_gradients():
    rng = _rng(6)
    x, y, w, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 2)), rng.standard_normal((5, 4, 2)), \
        rng.standard_normal((1, 5))
    prog = one_op('bilinear_tensor_product', {'x': x, 'y': y, 'w': w, 'b': b},
                  {'X': 'x', 'Y': 'y', 'Weight': 'w', 'Bias': 'b'}, {}, wrt=('x', 'y', 'w', 'b'))
    got, = prog.run([prog.out])
    want = np.array([[x[n] @ w[k] @ y[n] + b[0, k] for k in range(5)] for n in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    prog.check_grads()


@pytest.mark.parametrize('y_rows', [4, 1])
def test_cos_sim_forward_and_gradients(y_rows):
    rng = _rng(7)
    x, y = rng.standard_normal((4, 6)), rng.standard_normal((y_rows, 6))
    prog = one_op('cos_sim', {'x': x, 'y': y}, {'X': 'x', 'Y': 'y'}, {}, wrt=('x', 'y'), extra=('XNorm', 'YNorm'))
    got, = prog.run([prog.out])
    yb = np.broadcast_to(y, x.shape)
    want = (np.sum(x * yb, axis=1) / np.linalg.norm(x, axis=1) / np.linalg.norm(yb, axis=1))[:, None]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    prog.check_grads()


@pytest.mark.parametrize('shape', [(5, 3), (2, 6, 3)])
def test_row_conv_forward_and_gradients(shape):
    rng = _rng(8)
    x, f = rng.standard_normal(shape), rng.standard_normal((3, shape[-1]))
    prog = one_op('row_conv', {'x': x, 'f': f}, {'X': 'x', 'Filter': 'f'}, {}, wrt=('x', 'f'))
    got, = prog.run([prog.out])
    xb = x if x.ndim == 3 else x[None]
    want = np.zeros_like(xb)
    for t in range(xb.shape[1]):
        for i in range(3):
            if t + i < xb.shape[1]:
                want[:, t] += xb[:, t + i] * f[i]
    np.testing.assert_allclose(got, want.reshape(shape), rtol=1e-12)
    prog.check_grads()


def test_pad_constant_like_forward_and_gradient():
    rng = _rng(9)
    big, small = rng.standard_normal((4, 5, 3)), rng.standard_normal((2, 5, 1))
    prog = one_op('pad_constant_like', {'big': big, 'x': small}, {'X': 'big', 'Y': 'x'}, {'pad_value': -2.0})
    got, = prog.run([prog.out])
    want = np.full(big.shape, -2.0)
    want[:2, :, :1] = small
    np.testing.assert_array_equal(got, want)
    prog.check_grads()
