"""fluid.layers.distributions (Paddle 1.8): Uniform, Normal, Categorical, MultivariateNormalDiag, each building
its sample / entropy / log_prob / kl_divergence from ordinary layers, as Paddle 1.8 builds them.

Parameters given as floats, lists or numpy arrays become float32 tensors broadcast against each other (an
`assign_value` op each); given as Variables (all of them, or none) they are used as they are and sample() takes
the batch size from them at run time. Where Paddle 1.8 uses a layer paddle_exec does not build
(uniform_random_batch_size_like, diag), the same numbers come from uniform_random on the runtime shape and from
eye. Random draws are numpy's (ops/random.py), so samples follow the distribution but are not Paddle's numbers.
As in Paddle 1.8, Uniform.sample with parameters given as numbers scales uniform_random's default [-1, 1) draws,
so its samples lie in [2 low - high, high); with Variable parameters they lie in [low, high).

    dist = fluid.layers.Normal(loc=0.0, scale=1.0)
    x = dist.sample([4, 3], seed=1)
    lp = dist.log_prob(x)
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..framework.variable import Variable
from .activation import log
from .attribute import shape as shape_of
from .casting import cast
from .checks import check_type, check_variable_and_dtype
from .creation import assign, create_tensor, fill_constant_batch_size_like, ones, zeros
from .manipulation import reshape
from .math import elementwise_pow, less_than, matmul, reduce_max, reduce_prod, reduce_sum, unary
from .matrix import eye
from .random import gaussian_random, uniform_random

__all__ = ['Uniform', 'Normal', 'Categorical', 'MultivariateNormalDiag']


class Distribution:
    """The base: sample, entropy, kl_divergence, log_prob, and the argument helpers."""

    def sample(self):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def kl_divergence(self, other):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    @staticmethod
    def _validate_args(*args) -> bool:
        """True when the arguments are Variables; mixing Variables and numbers is an error."""
        is_variable = any(isinstance(a, Variable) for a in args)
        if is_variable and not all(isinstance(a, Variable) for a in args):
            raise ValueError('if one argument is Variable, all arguments should be Variable')
        return is_variable

    @staticmethod
    def _to_variable(*args):
        """float / list / ndarray arguments as float32 tensors of their common broadcast shape."""
        arrays = []
        for arg in args:
            if not isinstance(arg, (float, list, np.ndarray, Variable)):
                raise AssertionError('type of input args must be float, list, numpy.ndarray or Variable.')
            arr = np.zeros(1) + arg if isinstance(arg, float) else np.array(arg)
            if str(arr.dtype) != 'float32':
                warnings.warn('data type of argument only support float32, your argument will be convert to float32.')
                arr = arr.astype('float32')
            arrays.append(arr)
        total = sum(arrays[1:], arrays[0])
        out = []
        for arr in arrays:
            broadcast, _ = np.broadcast_arrays(arr, total)
            var = create_tensor(dtype=total.dtype)
            assign(np.ascontiguousarray(broadcast), var)
            out.append(var)
        return tuple(out)


class Uniform(Distribution):
    """The uniform distribution on [low, high)."""

    def __init__(self, low, high):
        check_type(low, 'low', (float, np.ndarray, Variable, list), 'Uniform')
        check_type(high, 'high', (float, np.ndarray, Variable, list), 'Uniform')
        self.all_arg_is_float = False
        self.batch_size_unknown = False
        if self._validate_args(low, high):
            self.batch_size_unknown = True
            self.low, self.high = low, high
        else:
            self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
            self.low, self.high = self._to_variable(low, high)

    def sample(self, shape, seed=0):
        check_type(shape, 'shape', (list,), 'sample')
        check_type(seed, 'seed', (int,), 'sample')
        batch_shape = list((self.low + self.high).shape)
        output_shape = shape + batch_shape
        if self.batch_size_unknown:
            zero_tmp = fill_constant_batch_size_like(self.low + self.high, batch_shape + shape, self.low.dtype, 0.)
            noise = uniform_random(shape_of(zero_tmp), min=0., max=1., seed=seed)
            output = noise * (zero_tmp + self.high - self.low) + self.low
            return reshape(output, output_shape)
        output = uniform_random(output_shape, seed=seed) * \
            (zeros(output_shape, dtype=self.low.dtype) + (self.high - self.low)) + self.low
        return reshape(output, shape) if self.all_arg_is_float else output

    def log_prob(self, value):
        check_variable_and_dtype(value, 'value', ['float32', 'float64'], 'log_prob')
        lb = cast(less_than(self.low, value), dtype=value.dtype)
        ub = cast(less_than(value, self.high), dtype=value.dtype)
        return log(lb * ub) - log(self.high - self.low)

    def entropy(self):
        return log(self.high - self.low)


class Normal(Distribution):
    """The normal distribution N(loc, scale^2)."""

    def __init__(self, loc, scale):
        check_type(loc, 'loc', (float, np.ndarray, Variable, list), 'Normal')
        check_type(scale, 'scale', (float, np.ndarray, Variable, list), 'Normal')
        self.batch_size_unknown = False
        self.all_arg_is_float = False
        if self._validate_args(loc, scale):
            self.batch_size_unknown = True
            self.loc, self.scale = loc, scale
        else:
            self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
            self.loc, self.scale = self._to_variable(loc, scale)

    def sample(self, shape, seed=0):
        check_type(shape, 'shape', (list,), 'sample')
        check_type(seed, 'seed', (int,), 'sample')
        batch_shape = list((self.loc + self.scale).shape)
        output_shape = shape + batch_shape
        if self.batch_size_unknown:
            zero_tmp = fill_constant_batch_size_like(self.loc + self.scale, batch_shape + shape, self.loc.dtype, 0.)
            noise = gaussian_random(shape_of(zero_tmp), mean=0., std=1., seed=seed)
            output = noise * (zero_tmp + self.scale) + self.loc
            return reshape(output, output_shape)
        output = gaussian_random(output_shape, mean=0., std=1., seed=seed) * \
            (zeros(output_shape, dtype=self.loc.dtype) + self.scale) + self.loc
        return reshape(output, shape) if self.all_arg_is_float else output

    def entropy(self):
        batch_shape = list((self.loc + self.scale).shape)
        zero_tmp = fill_constant_batch_size_like(self.loc + self.scale, batch_shape, self.loc.dtype, 0.)
        return 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale + zero_tmp)

    def log_prob(self, value):
        check_variable_and_dtype(value, 'value', ['float32', 'float64'], 'log_prob')
        var = self.scale * self.scale
        log_scale = log(self.scale)
        return -1. * ((value - self.loc) * (value - self.loc)) / (2. * var) - log_scale - \
            math.log(math.sqrt(2. * math.pi))

    def kl_divergence(self, other):
        check_type(other, 'other', Normal, 'kl_divergence')
        var_ratio = self.scale / other.scale
        var_ratio = var_ratio * var_ratio
        t1 = (self.loc - other.loc) / other.scale
        t1 = t1 * t1
        return 0.5 * (var_ratio + t1 - 1. - log(var_ratio))


def _softmax_parts(logits):
    shifted = logits - reduce_max(logits, dim=-1, keep_dim=True)
    e = unary('exp', shifted)
    z = reduce_sum(e, dim=-1, keep_dim=True)
    return shifted, z, e / z


class Categorical(Distribution):
    """The categorical distribution of unnormalised log-probabilities `logits` (last axis)."""

    def __init__(self, logits):
        check_type(logits, 'logits', (np.ndarray, Variable, list), 'Categorical')
        self.logits = logits if self._validate_args(logits) else self._to_variable(logits)[0]

    def kl_divergence(self, other):
        check_type(other, 'other', Categorical, 'kl_divergence')
        logits, z, prob = _softmax_parts(self.logits)
        other_logits, other_z, _ = _softmax_parts(other.logits)
        return reduce_sum(prob * (logits - log(z) - other_logits + log(other_z)), dim=-1, keep_dim=True)

    def entropy(self):
        logits, z, prob = _softmax_parts(self.logits)
        return -1.0 * reduce_sum(prob * (logits - log(z)), dim=-1, keep_dim=True)


class MultivariateNormalDiag(Distribution):
    """A multivariate normal with mean `loc` [k] and diagonal covariance `scale` [k, k] (given as a matrix)."""

    def __init__(self, loc, scale):
        check_type(loc, 'loc', (np.ndarray, Variable, list), 'MultivariateNormalDiag')
        check_type(scale, 'scale', (np.ndarray, Variable, list), 'MultivariateNormalDiag')
        if self._validate_args(loc, scale):
            self.loc, self.scale = loc, scale
        else:
            self.loc, self.scale = self._to_variable(loc, scale)

    def _identity_and_ones(self, value):
        batch_shape = list(value.shape)
        return ones(shape=batch_shape, dtype=self.loc.dtype), eye(batch_shape[0], dtype=self.loc.dtype)

    def _det(self, value):
        one_all, one_diag = self._identity_and_ones(value)
        return reduce_prod(value + one_all - one_diag)

    def _inv(self, value):
        one_all, one_diag = self._identity_and_ones(value)
        return elementwise_pow(value, one_all - 2 * one_diag)

    def entropy(self):
        return 0.5 * (self.scale.shape[0] * (1.0 + math.log(2 * math.pi)) + log(self._det(self.scale)))

    def kl_divergence(self, other):
        check_type(other, 'other', MultivariateNormalDiag, 'kl_divergence')
        tr_cov_matmul = reduce_sum(self._inv(other.scale) * self.scale)
        loc_matmul_cov = matmul(other.loc - self.loc, self._inv(other.scale))
        tri_matmul = matmul(loc_matmul_cov, other.loc - self.loc)
        k = list(self.scale.shape)[0]
        ln_cov = log(self._det(other.scale)) - log(self._det(self.scale))
        return 0.5 * (tr_cov_matmul + tri_matmul - k + ln_cov)
