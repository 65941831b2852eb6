"""Random ops: uniform_random, gaussian_random, truncated_gaussian_random (the initialisers) and randint.

    uniform_random(ShapeTensor?, ShapeTensorList?) -> Out       attrs shape, dtype, seed, min, max, diag_num,
                                                                diag_step, diag_val
    gaussian_random(ShapeTensor?, ShapeTensorList?) -> Out      attrs shape, dtype, seed, mean, std
    truncated_gaussian_random() -> Out                          normal values redrawn until within 2 std
    randint(ShapeTensor?, ShapeTensorList?) -> Out              attrs shape, low, high (exclusive), seed, dtype

Every one is stateful (never deduplicated or skipped) and takes its seed when its kernel is made, once per plan,
from framework/random.py's `op_seed`: its nonzero `seed` attribute, else the next seed of paddle.seed's generator,
else fresh entropy. The numbers are numpy's, not Paddle's mt19937 stream. None of these ops has a gradient.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.random import op_seed
from ..framework.registry import defop, kernel_rule, shape_rule
from ._util import runtime_ints, shape_and_dtype_from_attrs

__all__: list[str] = []

_RANDOM_ATTRS = {'shape': [], 'dtype': 5, 'seed': 0}
defop('uniform_random', ['ShapeTensor', 'ShapeTensorList'], ['Out'],
      {**_RANDOM_ATTRS, 'min': -1.0, 'max': 1.0, 'diag_num': 0, 'diag_step': 0, 'diag_val': 1.0},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)
defop('gaussian_random', ['ShapeTensor', 'ShapeTensorList'], ['Out'], {**_RANDOM_ATTRS, 'mean': 0.0, 'std': 1.0},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)
defop('truncated_gaussian_random', [], ['Out'], {**_RANDOM_ATTRS, 'mean': 0.0, 'std': 1.0}, stateful=True)

for _t in ('uniform_random', 'gaussian_random', 'truncated_gaussian_random'):
    shape_rule(_t)(shape_and_dtype_from_attrs)


def _rng(spec):
    """The op's seed attribute, else the next seed of paddle.seed's generator, else fresh entropy."""
    return np.random.default_rng(op_seed(spec.attr('seed')))


def _random_out_shape(shape, shape_tensor, shape_list):
    if shape_tensor is not None:
        return tuple(runtime_ints(shape_tensor))
    if shape_list is not None:
        return tuple(runtime_ints(shape_list))
    return shape


@kernel_rule('uniform_random')
def _uniform_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    lo, hi = spec.attr('min'), spec.attr('max')
    diag_num, diag_step, diag_val = spec.attr('diag_num'), spec.attr('diag_step'), spec.attr('diag_val')

    def run(shape_tensor=None, shape_list=None):
        out = rng.uniform(lo, hi, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype)
        if diag_num > 0:
            flat = out.reshape(-1)
            for i in range(diag_num):
                flat[i * diag_step + i] = diag_val
        return (out,)
    return run


@kernel_rule('gaussian_random')
def _gaussian_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    mean, std = spec.attr('mean'), spec.attr('std')

    def run(shape_tensor=None, shape_list=None):
        return (rng.normal(mean, std, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype),)
    return run


@kernel_rule('truncated_gaussian_random')
def _truncated_gaussian_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    mean, std = spec.attr('mean'), spec.attr('std')

    def run():
        out = rng.normal(0.0, 1.0, shape)
        bad = np.abs(out) > 2.0
        while bad.any():
            out[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
            bad = np.abs(out) > 2.0
        return ((out * std + mean).astype(dtype),)
    return run


defop('randint', ['ShapeTensor', 'ShapeTensorList'], ['Out'],
      {'shape': [], 'low': 0, 'high': 0, 'seed': 0, 'dtype': int(VarType.INT64)},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)


def _check_bounds(low: int, high: int) -> None:
    if low >= high:
        raise ValueError("randint's low must less then high, but received low = %d, high = %d (operator randint)"
                         % (low, high))


@shape_rule('randint')
def _randint_shape(ctx):
    _check_bounds(ctx.attr('low'), ctx.attr('high'))
    shape = list(ctx.attr('shape'))
    if not shape and ctx.has_input('ShapeTensorList'):
        shape = [-1] * len(ctx.op.input('ShapeTensorList'))
    ctx.set_output('Out', shape or (-1,), ctx.attr('dtype'))


@kernel_rule('randint')
def _randint(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    low, high = int(spec.attr('low')), int(spec.attr('high'))
    _check_bounds(low, high)

    def run(shape_tensor=None, shape_list=None):
        return (rng.integers(low, high, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype),)
    return run
