"""paddle.numel / var / std (paddle_exec/tensor/stat.py): the ops Paddle 2.4 builds, numpy's numbers for every
axis / unbiased / keepdim form, the N == 1 rule, a batch size unknown at build time, and gradients against
finite differences of numpy's std."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope
from tests.kernels.gradcheck import check_grad, numeric_grad


def run(fn, feed):
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static.program_guard(main, startup):
        x = static.data('x', [None] + list(feed.shape[1:]), feed.dtype.name)
        x.stop_gradient = False
        outs = fn(x)
    exe = static.Executor(static.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return main, exe.run(main, feed={'x': feed}, fetch_list=outs, scope=scope)


def test_the_ops_are_paddle_2_4s():
    main, _ = run(lambda x: [paddle.std(x, axis=1)], np.ones((2, 3), np.float32))
    assert [op.type for op in main.global_block().ops] == [
        'reduce_mean', 'elementwise_sub', 'pow', 'reduce_sum', 'size', 'cast', 'size', 'cast', 'elementwise_div',
        'cast', 'fill_constant', 'greater_than', 'scale', 'where', 'elementwise_div', 'sqrt']


@pytest.mark.parametrize('axis, unbiased, keepdim', [(None, True, False), (1, True, False), (0, False, True),
                                                     ([0, 2], True, True), (-1, False, False)])
def test_var_and_std_match_numpy(axis, unbiased, keepdim):
    x = np.random.default_rng(0).normal(2.0, 3.0, (4, 3, 5)).astype(np.float64)
    _, (v, s) = run(lambda t: [paddle.var(t, axis, unbiased, keepdim), paddle.std(t, axis, unbiased, keepdim)], x)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    want = x.var(axis=np_axis, ddof=1 if unbiased else 0, keepdims=keepdim)
    want = np.reshape(want, [1]) if axis is None and not keepdim else want
    np.testing.assert_allclose(v, want, rtol=1e-12)
    np.testing.assert_allclose(s, np.sqrt(want), rtol=1e-12)


def test_unbiased_over_one_element_divides_by_one_and_numel_counts_at_run_time():
    x = np.arange(6, dtype=np.float32).reshape(6, 1)
    _, (v, n) = run(lambda t: [paddle.var(t, axis=1), paddle.numel(t)], x)
    np.testing.assert_array_equal(v, np.zeros(6, np.float32))
    assert n.dtype == np.int64 and n.tolist() == [6]
    _, (n,) = run(lambda t: [paddle.numel(t)], np.zeros((9, 2), np.float32))
    assert n.tolist() == [18]


def test_std_gradient_matches_finite_differences():
    x = np.random.default_rng(1).normal(size=(3, 4))
    w = np.random.default_rng(2).normal(size=3)

    def body(t):
        weight = static.create_parameter([3], 'float64', default_initializer=paddle.nn.initializer.Assign(w))
        loss = paddle.sum(paddle.multiply(paddle.std(t, axis=1), weight))
        return [loss] + static.gradients(loss, t)
    _, (_, grad) = run(body, x)
    num = numeric_grad(lambda a: float(np.sum(a.std(axis=1, ddof=1) * w)), [x], 0, eps=1e-6)
    check_grad(grad, num, rtol=1e-6, atol=1e-8)


def test_integer_input_is_a_type_error():
    with pytest.raises(TypeError, match='var'):
        run(lambda t: [paddle.var(t)], np.ones((2, 2), np.int64))
