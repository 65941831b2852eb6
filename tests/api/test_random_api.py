"""paddle.uniform / rand / normal / randn / standard_normal (tensor/random.py): the ops and names Paddle 2.6.2
builds for them (recorded from its printout), dtypes, and the drawn numbers' range and moments; the same
paddle.seed draws the same numbers."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.static as static
from paddle_exec.framework import unique_name


def build_and_run(fn, seed=3):
    main, startup = static.Program(), static.Program()
    main.random_seed = seed
    with unique_name.guard(), static.program_guard(main, startup):
        outs = fn()
    return main, static.Executor(static.CPUPlace()).run(main, fetch_list=outs)


def test_ops_names_and_attributes_are_paddle_2_6s():
    main, _ = build_and_run(lambda: [paddle.uniform([2, 3], min=-2., max=2.), paddle.rand([2, 3], 'float64'),
                                     paddle.normal(1.0, 2.0, [4]), paddle.randn([2, 2]),
                                     paddle.standard_normal([3])])
    ops = main.global_block().ops
    assert [(op.type, op.output_arg_names[0]) for op in ops] == [
        ('uniform_random', 'uniform_0.tmp_0'), ('uniform_random', 'uniform_1.tmp_0'),
        ('gaussian_random', 'gaussian_0.tmp_0'), ('gaussian_random', 'gaussian_1.tmp_0'),
        ('gaussian_random', 'gaussian_2.tmp_0')]
    assert {k: ops[0].attr(k) for k in ('shape', 'dtype', 'min', 'max', 'seed')} == {
        'shape': [2, 3], 'dtype': 5, 'min': -2.0, 'max': 2.0, 'seed': 0}
    assert ops[1].attr('dtype') == 6 and (ops[1].attr('min'), ops[1].attr('max')) == (0.0, 1.0)
    assert {k: ops[2].attr(k) for k in ('mean', 'std', 'dtype')} == {'mean': 1.0, 'std': 2.0, 'dtype': 5}
    assert all(main.global_block().var(op.output_arg_names[0]).stop_gradient for op in ops)


def test_draws_have_the_asked_range_moments_and_dtype():
    _, (u, r, n, s) = build_and_run(lambda: [paddle.uniform([400, 500], min=-2., max=3.),
                                             paddle.rand([1000], 'float64'), paddle.normal(1.0, 2.0, [200000]),
                                             paddle.randn([100000])])
    assert u.dtype == np.float32 and u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.02
    assert r.dtype == np.float64 and 0.0 <= r.min() and r.max() < 1.0
    assert abs(n.mean() - 1.0) < 0.02 and abs(n.std() - 2.0) < 0.02
    assert abs(s.mean()) < 0.02 and abs(s.std() - 1.0) < 0.02


def test_paddle_seed_fixes_the_numbers():
    draws = []
    for seed in (11, 11, 12):
        paddle.seed(seed)
        draws.append(build_and_run(lambda: [paddle.rand([5])])[1][0])
    a, b, c = draws
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_bad_arguments_are_clear_errors():
    with unique_name.guard(), static.program_guard(static.Program(), static.Program()):
        with pytest.raises(TypeError, match="'dtype' in uniform/rand"):
            paddle.rand([2], 'int32')
        with pytest.raises(ValueError, match='needs a shape'):
            paddle.normal(0.0, 1.0)
        # a Tensor mean is supported since issue 12 (tests/api/test_tensor_surface.py checks its values): the
        # draw takes the mean's shape, as in Paddle 2.6.2
        out = paddle.normal(paddle.zeros([2]), 1.0, [2])
        assert tuple(out.shape) == (2,)
