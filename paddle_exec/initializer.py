"""Initializers: each appends one op to the startup block that fills a parameter (Paddle's initializer.py).

    Constant -> fill_constant      Uniform / Xavier(uniform) / MSRA(uniform) -> uniform_random
    Normal / Xavier(normal) / MSRA(normal) -> gaussian_random      TruncatedNormal -> truncated_gaussian_random
    NumpyArrayInitializer / Assign -> assign_value
Fans follow Paddle's `_compute_fans`: 1-D fan_in = fan_out = shape[0]; 2-D [in, out]; conv [out_c, in_c, k...].
"""
from __future__ import annotations

import math

import numpy as np


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


# Paddle 1.x short names
Constant = ConstantInitializer
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
