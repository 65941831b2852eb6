"""fluid.contrib ops (ops/contrib.py): partial_concat, partial_sum and fused_elemwise_activation against the values
Paddle 1.8.5 printed for the same program, numpy references, and finite-difference gradients."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.ops.test_math_ops import check_op_grad, run_op


def test_contrib_layers_match_paddle_1_8():
    L = fluid.contrib.layers
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        a = fluid.data('a', [-1, 4])
        b = fluid.data('b', [-1, 4])
        outs = [L.partial_concat([a, b], start_index=1, length=2), L.partial_sum([a, b], start_index=0, length=3),
                L.partial_sum([a, b], start_index=2, length=-1),
                L.fused_elemwise_activation(a, b, ['elementwise_add', 'relu']),
                L.fused_elemwise_activation(a, b, ['relu', 'elementwise_add']),
                L.fused_elemwise_activation(a, b, ['elementwise_mul', 'scale'], scale=2.0)]
    av = np.arange(8, dtype='float32').reshape(2, 4) - 3
    bv = np.full((2, 4), -0.5, 'float32')
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={'a': av, 'b': bv}, fetch_list=outs, scope=Scope())
    # recorded with Paddle 1.8.5
    want = [[[-2.0, -1.0, -0.5, -0.5], [2.0, 3.0, -0.5, -0.5]], [[-3.5, -2.5, -1.5], [0.5, 1.5, 2.5]],
            [[-1.5, -0.5], [2.5, 3.5]], [[-3.0, -2.0, -1.0, 0.0], [1.0, 2.0, 3.0, 4.0]],
            [[0.0, 0.0, 0.0, 0.0], [0.5, 1.5, 2.5, 3.5]], [[3.0, 2.0, 1.0, 0.0], [-1.0, -2.0, -3.0, -4.0]]]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


def test_partial_ops_against_numpy_and_gradients():
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal((3, 5)) for _ in range(2)]
    (cat,) = run_op('partial_concat', {'X': xs}, {'start_index': 1, 'length': 3})
    np.testing.assert_allclose(cat, np.concatenate([x[:, 1:4] for x in xs], 1))
    (tot,) = run_op('partial_sum', {'X': xs}, {'start_index': -2, 'length': -1})
    np.testing.assert_allclose(tot, xs[0][:, 3:] + xs[1][:, 3:])
    for op in ('partial_concat', 'partial_sum'):
        check_op_grad(op, {'X': xs}, wrt=('x', 'x_1'), attrs={'start_index': 1, 'length': 2})
    with pytest.raises(ValueError, match='larger than'):
        run_op('partial_sum', {'X': xs}, {'start_index': 3, 'length': 4})


@pytest.mark.parametrize('functors', [['elementwise_add', 'relu'], ['elementwise_mul', 'tanh'],
                                      ['sigmoid', 'elementwise_mul'], ['scale', 'elementwise_add'],
                                      ['relu', 'elementwise_mul']])
def test_fused_elemwise_activation_gradients(functors):
    rng = np.random.default_rng(1)
    x = rng.uniform(-2, 2, (3, 4))
    y = rng.uniform(-2, 2, (4,))
    y[np.abs(y) < 0.1] = 0.5
    attrs = {'functor_list': functors, 'scale': 1.5, 'axis': -1}
    check_op_grad('fused_elemwise_activation', {'X': x, 'Y': y}, wrt=('x', 'y'), attrs=attrs,
                  outputs=('Out', 'IntermediateOut'))


def test_fused_elemwise_activation_rejects_unknown_functors():
    with pytest.raises(ValueError, match='functor_list must be one of'):
        run_op('fused_elemwise_activation', {'X': np.ones(2), 'Y': np.ones(2)},
               {'functor_list': ['relu', 'tanh']}, outputs=('Out', 'IntermediateOut'))
