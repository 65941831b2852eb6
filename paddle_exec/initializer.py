"""Initializers: each appends one op to the startup block that fills a parameter (Paddle's initializer.py).

    Constant -> fill_constant      Uniform / Xavier(uniform) / MSRA(uniform) -> uniform_random
    Normal / Xavier(normal) / MSRA(normal) -> gaussian_random      TruncatedNormal -> truncated_gaussian_random
    NumpyArrayInitializer / Assign / Bilinear / Dirac / Orthogonal -> assign_value
Fans follow Paddle's `_compute_fans`: 1-D fan_in = fan_out = shape[0]; 2-D [in, out]; conv [out_c, in_c, k...].
"""
from __future__ import annotations

import math

import numpy as np

from .framework.random import op_seed


def _compute_fans(var):
    shape = var.shape
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    def __call__(self, var, block):
        raise NotImplementedError

    def _seed(self, block):
        return self.seed if getattr(self, 'seed', 0) else block.program.random_seed


class ConstantInitializer(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        self.value = float(value)
        self.force_cpu = force_cpu

    def __call__(self, var, block):
        return block.append_op('fill_constant', {}, {'Out': [var]},
                               {'shape': list(var.shape), 'dtype': int(var.dtype), 'value': self.value,
                                'force_cpu': self.force_cpu})


class UniformInitializer(Initializer):
    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        self.low, self.high, self.seed = float(low), float(high), seed

    def __call__(self, var, block):
        return block.append_op('uniform_random', {}, {'Out': [var]},
                               {'shape': list(var.shape), 'dtype': int(var.dtype), 'min': self.low,
                                'max': self.high, 'seed': self._seed(block)})


class NormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        self.loc, self.scale, self.seed = float(loc), float(scale), seed

    def __call__(self, var, block):
        return block.append_op('gaussian_random', {}, {'Out': [var]},
                               {'shape': list(var.shape), 'dtype': int(var.dtype), 'mean': self.loc,
                                'std': self.scale, 'seed': self._seed(block)})


class TruncatedNormalInitializer(NormalInitializer):
    def __call__(self, var, block):
        return block.append_op('truncated_gaussian_random', {}, {'Out': [var]},
                               {'shape': list(var.shape), 'dtype': int(var.dtype), 'mean': self.loc,
                                'std': self.scale, 'seed': self._seed(block)})


class XavierInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        self.uniform, self.fan_in, self.fan_out, self.seed = uniform, fan_in, fan_out, seed

    def __call__(self, var, block):
        f_in, f_out = _compute_fans(var)
        fan_in = f_in if self.fan_in is None else self.fan_in
        fan_out = f_out if self.fan_out is None else self.fan_out
        if self.uniform:
            limit = math.sqrt(6.0 / float(fan_in + fan_out))
            return UniformInitializer(-limit, limit, self.seed)(var, block)
        return NormalInitializer(0.0, math.sqrt(2.0 / float(fan_in + fan_out)), self.seed)(var, block)


class MSRAInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, seed=0, negative_slope=0.0, nonlinearity='relu'):
        self.uniform, self.fan_in, self.seed = uniform, fan_in, seed

    def __call__(self, var, block):
        f_in, _ = _compute_fans(var)
        fan_in = f_in if self.fan_in is None else self.fan_in
        if self.uniform:
            limit = math.sqrt(6.0 / float(fan_in))
            return UniformInitializer(-limit, limit, self.seed)(var, block)
        return NormalInitializer(0.0, math.sqrt(2.0 / float(fan_in)), self.seed)(var, block)


class NumpyArrayInitializer(Initializer):
    def __init__(self, value):
        self.value = np.asarray(value)

    def __call__(self, var, block):
        return block.append_op('assign_value', {}, {'Out': [var]},
                               {'shape': list(self.value.shape), 'dtype': int(var.dtype),
                                'values': self.value.ravel().tolist()})


class BilinearInitializer(Initializer):
    """Paddle's bilinear upsampling kernel for a conv2d_transpose weight [C_out, C_in, K, K] (assign_value).

    Element i (row-major) gets (1 - |x / f - c|) * (1 - |y / f - c|) with f = ceil(K / 2), c = (2f - 1 - f % 2) /
    (2f), x = i % K and y = (i / K) % K -- a true division in Paddle under Python 3, kept as such."""

    def __call__(self, var, block):
        shape = list(var.shape)
        if len(shape) != 4:
            raise ValueError('the length of shape must be 4.')
        if shape[2] != shape[3]:
            raise ValueError('shape[2] must be equal to shape[3].')
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        x, y = i % size, (i / size) % size
        weight = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32)
        if weight.size > 1024 * 1024:
            raise ValueError('The size of input is too big. ')
        return NumpyArrayInitializer(weight.reshape(shape))(var, block)


class DiracInitializer(Initializer):
    """paddle.nn.initializer.Dirac: zeros with 1 at the centre of the kernel of each (out, in) channel pair of
    each group, so a convolution with it passes its input through; one assign_value of the values."""

    def __init__(self, groups=1, name=None):
        if not (isinstance(groups, int) and groups > 0):
            raise AssertionError(" 'groups' must be a positive integer. ")
        self._groups = groups

    def __call__(self, var, block):
        shape = list(var.shape)
        if len(shape) not in (3, 4, 5):
            raise AssertionError('Only Tensor with 3/4/5 dimensions can be initialized by Dirac')
        if shape[0] % self._groups:
            raise AssertionError('Tensor 0-dimension must be divisible by groups')
        value = np.zeros(shape, dtype=np.float32)
        per_group = shape[0] // self._groups
        centre = tuple(d // 2 for d in shape[2:])
        for g in range(self._groups):
            for j in range(min(per_group, shape[1])):
                value[(g * per_group + j, j) + centre] = 1.0
        return NumpyArrayInitializer(value)(var, block)


class OrthogonalInitializer(Initializer):
    """paddle.nn.initializer.Orthogonal: a (semi-)orthogonal matrix of [shape[0], prod(shape[1:])] times gain.
    Paddle draws it in its startup ops (gaussian_random, qr, sign of diag(R)); here the same construction runs in
    numpy when the startup program is built, seeded as random ops are (framework/random.py), and is written by
    one assign_value."""

    def __init__(self, gain=1.0, name=None):
        if gain is None:
            raise AssertionError('gain should not be None')
        self._gain = float(gain)

    def __call__(self, var, block):
        shape = list(var.shape)
        if len(shape) < 2:
            raise AssertionError('Only Tensor with 2 or more dimensions can be initialized by Orthogonal')
        row, col = shape[0], int(np.prod(shape[1:]))
        seed = block.program.random_seed or None
        rng = np.random.default_rng(op_seed(seed or 0))
        normal = rng.standard_normal((max(row, col), min(row, col)))
        q, r = np.linalg.qr(normal)
        q = q * np.sign(np.diag(r))
        if row < col:
            q = q.T
        return NumpyArrayInitializer((q * self._gain).reshape(shape).astype(np.float32))(var, block)


def calculate_gain(nonlinearity, param=None):
    """paddle.nn.initializer.calculate_gain: the recommended gain of a nonlinearity (leaky_relu's slope `param`
    defaults to 0.01)."""
    if param is None:
        param = 0.01
    else:
        if not isinstance(param, (bool, int, float)):
            raise AssertionError('param must be a number')
        param = float(param)
    gains = {'sigmoid': 1, 'linear': 1, 'conv1d': 1, 'conv2d': 1, 'conv3d': 1, 'conv1d_transpose': 1,
             'conv2d_transpose': 1, 'conv3d_transpose': 1, 'tanh': 5.0 / 3, 'relu': math.sqrt(2.0),
             'leaky_relu': math.sqrt(2.0 / (1 + param ** 2)), 'selu': 3.0 / 4}
    if nonlinearity not in gains:
        raise ValueError('nonlinearity function %s is not suppported now.' % nonlinearity)
    return gains[nonlinearity]


# Paddle 1.x short names
Constant = ConstantInitializer
Bilinear = BilinearInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
MSRA = MSRAInitializer


# Paddle 2.x names (paddle.nn.initializer)
class XavierUniform(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(True, fan_in, fan_out)


class XavierNormal(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, name=None):
        super().__init__(False, fan_in, fan_out)


class KaimingUniform(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None):
        super().__init__(True, fan_in)


class KaimingNormal(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity='relu', name=None):
        super().__init__(False, fan_in)


class Assign(NumpyArrayInitializer):
    def __init__(self, value, name=None):
        super().__init__(value)


# 2.x signatures (paddle.nn.initializer): other argument names and a trailing `name`
class Normal2(NormalInitializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)


class TruncatedNormal2(TruncatedNormalInitializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        super().__init__(mean, std)


class Uniform2(UniformInitializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        super().__init__(low, high)


class Constant2(ConstantInitializer):
    def __init__(self, value=0.0, name=None):
        super().__init__(value)


def set_global_initializer(weight_init, bias_init=None):
    global _global_weight_init, _global_bias_init
    _global_weight_init, _global_bias_init = weight_init, bias_init


_global_weight_init = None
_global_bias_init = None


def global_initializer(is_bias: bool):
    """The initializer set by set_global_initializer for biases or for weights (None when unset)."""
    return _global_bias_init if is_bias else _global_weight_init
