"""fluid.layers.distributions (Paddle 1.8): entropy, log_prob and kl_divergence of Uniform, Normal, Categorical
and MultivariateNormalDiag, with parameters given as numbers / arrays and as Variables, and their gradients;
recorded with paddlepaddle 1.8.5 (record_api_cases.py). Samples are random (numpy's draws here, Paddle's there)
and are checked by statistics in tests/api/test_distributions.py instead. Python 3.8 compatible."""
import numpy as np

API = 'fluid'
RTOL, ATOL = 2e-5, 2e-6


def _data(L, name, shape, dtype='float32'):
    return L.data(name=name, shape=shape, dtype=dtype, append_batch_size=False)


def case_uniform_numbers(paddle, rng):
    L = paddle.fluid.layers
    value = _data(L, 'value', [3])
    u = L.Uniform(low=[-1.0, 0.0, 2.0], high=np.array([1.0, 3.0, 2.5], 'float32'))
    lp = u.log_prob(value)
    return {'fetch': [u.entropy(), lp], 'feeds': {'value': np.array([0.5, 3.5, 2.2], 'float32')}}


def case_uniform_variables(paddle, rng):
    L = paddle.fluid.layers
    low, high, value = _data(L, 'low', [4]), _data(L, 'high', [4]), _data(L, 'value', [4])
    u = L.Uniform(low, high)
    out = u.entropy() + u.log_prob(value)
    feeds = {'low': rng.uniform(-2, 0, 4).astype('float32'), 'high': rng.uniform(1, 3, 4).astype('float32'),
             'value': rng.uniform(-1, 1, 4).astype('float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [low, high]}


def case_normal_numbers(paddle, rng):
    L = paddle.fluid.layers
    value = _data(L, 'value', [2, 3])
    n = L.Normal(loc=np.array([0.0, 1.0, -1.0], 'float32'), scale=[1.0, 0.5, 2.0])
    other = L.Normal(loc=0.5, scale=1.5)
    lp = n.log_prob(value)
    return {'fetch': [n.entropy(), lp, n.kl_divergence(L.Normal(loc=[0.1, 0.2, 0.3], scale=[1.0, 1.0, 1.0])),
                      other.entropy()],
            'feeds': {'value': rng.randn(2, 3).astype('float32')}}


def case_normal_variables(paddle, rng):
    L = paddle.fluid.layers
    loc, scale = _data(L, 'loc', [2, 3]), _data(L, 'scale', [2, 3])
    loc2, scale2 = _data(L, 'loc2', [2, 3]), _data(L, 'scale2', [2, 3])
    value = _data(L, 'value', [2, 3])
    n, m = L.Normal(loc, scale), L.Normal(loc2, scale2)
    out = n.log_prob(value) + n.kl_divergence(m) + n.entropy()
    feeds = {'loc': rng.randn(2, 3).astype('float32'), 'scale': rng.uniform(0.5, 2, (2, 3)).astype('float32'),
             'loc2': rng.randn(2, 3).astype('float32'), 'scale2': rng.uniform(0.5, 2, (2, 3)).astype('float32'),
             'value': rng.randn(2, 3).astype('float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [loc, scale, value]}


def case_categorical(paddle, rng):
    L = paddle.fluid.layers
    a, b = _data(L, 'a', [3, 4]), _data(L, 'b', [3, 4])
    ca, cb = L.Categorical(a), L.Categorical(b)
    out = ca.kl_divergence(cb) + ca.entropy()
    const = L.Categorical(np.array([[0.1, 0.5, -0.3]], 'float32'))
    feeds = {'a': rng.randn(3, 4).astype('float32'), 'b': rng.randn(3, 4).astype('float32')}
    return {'fetch': [out, const.entropy()], 'feeds': feeds, 'out': out, 'wrt': [a, b]}


def case_multivariate_normal_diag(paddle, rng):
    L = paddle.fluid.layers
    a = L.MultivariateNormalDiag(np.array([0.3, -0.2, 1.0], 'float32'),
                                 np.diag([0.5, 1.5, 2.0]).astype('float32'))
    b = L.MultivariateNormalDiag([1.0, 0.0, -0.5], np.diag([1.0, 0.7, 0.4]).astype('float32').tolist())
    return {'fetch': [a.entropy(), b.entropy(), a.kl_divergence(b)], 'feeds': {}}
