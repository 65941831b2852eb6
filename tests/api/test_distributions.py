"""fluid.layers.distributions: samples have the distribution's shape and moments (the numbers themselves are numpy's
draws, not Paddle's), against closed forms computed here; the deterministic methods are compared with Paddle 1.8.5
in tests/golden/api/fluid_distributions.npz. Plus the argument checks."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name

L = fluid.layers


def run(build, feeds=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard(), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        outs = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        return exe.run(main, feed=feeds or {}, fetch_list=list(outs))


def test_uniform_sample_shape_range_and_moments():
    # Paddle 1.8 scales uniform_random's default [-1, 1) draws by (high - low): samples of parameters given as
    # numbers lie in [2 low - high, high) (paddlepaddle 1.8.5 gives min -2.9997, max 0.99997 for low -1, high 1)
    s, = run(lambda: [L.Uniform(low=[-1.0, 2.0], high=[1.0, 6.0]).sample([20000], seed=3)])
    assert s.shape == (20000, 2)
    assert s[:, 0].min() >= -3 and s[:, 0].max() < 1 and s[:, 1].min() >= -2 and s[:, 1].max() < 6
    np.testing.assert_allclose(s.mean(axis=0), [-1.0, 2.0], atol=0.05)
    np.testing.assert_allclose(s.var(axis=0), [16 / 12, 64 / 12], rtol=0.05)
    scalar, = run(lambda: [L.Uniform(0.0, 1.0).sample([5, 3])])
    assert scalar.shape == (5, 3)


def test_normal_sample_moments_and_batch_from_variables():
    s, = run(lambda: [L.Normal(loc=[0.0, 3.0], scale=[1.0, 0.5]).sample([20000], seed=1)])
    np.testing.assert_allclose(s.mean(axis=0), [0.0, 3.0], atol=0.03)
    np.testing.assert_allclose(s.std(axis=0), [1.0, 0.5], rtol=0.03)

    def build():
        loc = L.data('loc', shape=[3], dtype='float32')            # batch size known only at run time
        scale = L.data('scale', shape=[3], dtype='float32')
        return [L.Normal(loc, scale).sample([2], seed=5), L.Uniform(loc, loc + scale).sample([2], seed=5)]
    normal, uniform = run(build, {'loc': np.zeros((4, 3), 'float32'), 'scale': np.ones((4, 3), 'float32')})
    assert normal.shape == (2, 4, 3) and uniform.shape == (2, 4, 3)
    assert uniform.min() >= 0 and uniform.max() < 1


def test_closed_forms():
    def build():
        n = L.Normal(loc=1.0, scale=2.0)
        value = L.assign(np.array([0.5], 'float32'))
        c = L.Categorical(np.array([[0.0, math.log(3.0)]], 'float32'))
        mvn = L.MultivariateNormalDiag([0.0, 0.0], np.diag([2.0, 3.0]).astype('float32'))
        return [n.entropy(), n.log_prob(value), c.entropy(), mvn.entropy()]
    entropy, log_prob, cat_entropy, mvn_entropy = run(build)
    np.testing.assert_allclose(entropy, 0.5 + 0.5 * math.log(2 * math.pi) + math.log(2.0), rtol=1e-6)
    np.testing.assert_allclose(log_prob, -0.25 ** 2 / 2 - math.log(2.0) - 0.5 * math.log(2 * math.pi), rtol=1e-6)
    np.testing.assert_allclose(cat_entropy, -(0.25 * math.log(0.25) + 0.75 * math.log(0.75)), rtol=1e-6)
    np.testing.assert_allclose(mvn_entropy, 0.5 * (2 * (1 + math.log(2 * math.pi)) + math.log(6.0)), rtol=1e-6)


def test_argument_checks():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = L.data('x', shape=[2], dtype='float32')
        with pytest.raises(ValueError, match='all arguments should be Variable'):
            L.Normal(x, 1.0)
        with pytest.raises(TypeError, match="'low' in Uniform"):
            L.Uniform(1, 2.0)
        with pytest.raises(TypeError, match="'shape' in sample"):
            L.Normal(0.0, 1.0).sample((2,))
        with pytest.raises(TypeError, match="'other' in kl_divergence"):
            L.Normal(0.0, 1.0).kl_divergence(L.Uniform(0.0, 1.0))
