"""add_position_encoding and cvm (ops/encoding.py) against the values Paddle 1.8.5 computed for the same program
(forward and gradients, recorded as literals), a numpy reference and finite differences."""
import numpy as np

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.ops.test_math_ops import check_op_grad

rng = np.random.RandomState(0)
XV = rng.rand(2, 3, 6).astype('float32')
CV = rng.rand(3, 4).astype('float32') + 0.5
CVM = rng.rand(3, 2).astype('float32')

PE_OUT = [[0.274406760931015, 0.35759466886520386, 0.3013816773891449, 2.2724416255950928, 2.211827278137207,
           2.3229470252990723],
          [1.901735544204712, 0.4658861458301544, 0.48203137516975403, 1.2723253965377808, 2.3957624435424805,
           2.2644474506378174],
          [2.102617025375366, 0.5027956366539001, 0.03591802716255188, -0.7887290120124817, 2.009709119796753,
           2.4163098335266113]]
CVM_OUT = [[0.7476807236671448, 0.0022881205659359694, 1.4437479972839355, 1.181820273399353],
           [0.6203119158744812, 0.040844980627298355, 1.1976311206817627, 0.5602254867553711],
           [0.7732360363006592, 0.0017850262811407447, 0.7103825807571411, 0.6289262771606445]]
CVM_GRAD = [[0.31542834639549255, 0.36371076107025146, 2.887495994567871, 2.363640546798706],
            [0.5701967477798462, 0.4386015236377716, 2.3952622413635254, 1.1204509735107422],
            [0.9883738160133362, 0.10204481333494186, 1.4207651615142822, 1.257852554321289]]


def test_forward_and_gradients_match_paddle_1_8():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [2, 3, 6])
        x.stop_gradient = False
        y = fluid.layers.add_position_encoding(x, alpha=0.5, beta=2.0)
        c = fluid.data('c', [-1, 4])
        c.stop_gradient = False
        cv = fluid.data('cv', [-1, 2])
        z = fluid.layers.continuous_value_model(c, cv, True)
        w = fluid.layers.continuous_value_model(c, cv, False)
        loss = fluid.layers.reduce_sum(y) + fluid.layers.reduce_sum(z * z)
        gx, gc = fluid.gradients([loss], [x, c])
    assert z.name.startswith('_generated_var')
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': XV, 'c': CV, 'cv': CVM},
                                               fetch_list=[y, z, w, gx, gc], scope=Scope())
    np.testing.assert_allclose(got[0][0], PE_OUT, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], CVM_OUT, rtol=1e-5)
    np.testing.assert_allclose(got[2], np.array(CVM_OUT)[:, 2:], rtol=1e-6)
    np.testing.assert_allclose(got[3], np.full((2, 3, 6), 0.5))
    np.testing.assert_allclose(got[4], CVM_GRAD, rtol=1e-5)


def test_position_encoding_against_numpy_and_finite_differences():
    from paddle_exec.ops.encoding import position_encoding
    pe = position_encoding(5, 8, np.float64)
    t, k = 3, 2
    assert np.isclose(pe[t, k], np.sin(t / 10000 ** (k / 3))) and np.isclose(pe[t, 4 + k], np.cos(t / 10000 ** (k / 3)))
    check_op_grad('add_position_encoding', {'X': rng.rand(2, 4, 4)}, attrs={'alpha': 0.7, 'beta': 1.3})
