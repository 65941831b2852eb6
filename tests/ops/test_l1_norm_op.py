"""l1_norm (ops/optimizer.py, used by ctr_metric_bundle): Out [1] = sum(|X|); grad sign(X) * Out@GRAD."""
import numpy as np

from tests.ops.test_math_ops import check_op_grad, infer, run_op


def test_l1_norm_forward_against_numpy():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype('float32')
    (out,) = run_op('l1_norm', {'X': x})
    assert out.shape == (1,)
    np.testing.assert_allclose(out, [np.abs(x).sum()], rtol=1e-6)
    assert infer('l1_norm', {'X': (-1, 4)}) == (1,)


def test_l1_norm_grad_against_finite_differences():
    x = np.random.default_rng(1).standard_normal((3, 4))
    x[np.abs(x) < 0.05] = 0.3          # away from the kink at 0
    check_op_grad('l1_norm', {'X': x})
