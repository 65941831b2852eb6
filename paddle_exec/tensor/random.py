"""paddle.* random tensors (2.x signatures): uniform, rand, normal, randn, standard_normal.

As Paddle 2.x builds them in static mode: one `uniform_random` (helper `uniform`: outputs `uniform_N.tmp_0`) or
`gaussian_random` (helper `gaussian`) op with the dtype written out (float32 by default), output stop_gradient.
`seed` 0 draws from paddle.seed's generator (fresh entropy when paddle.seed was never called), as in Paddle 2.x.
normal() takes float mean and std; tensor-valued ones are not supported.
"""
from __future__ import annotations

from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers.creation import shape_inputs
from ..layers.helper import LayerHelper

__all__ = ['uniform', 'rand', 'normal', 'randn', 'standard_normal']


def _float_dtype(dtype, api: str):
    dtype = to_var_type('float32' if dtype is None else dtype)
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'dtype' in %s must be ['float32', 'float64'], but received %s."
                        % (api, convert_dtype(dtype)))
    return dtype


def _random_op(op_type: str, helper_name: str, shape, dtype, attrs: dict, api: str, name) -> Variable:
    inputs, attrs = {}, dict(attrs, dtype=int(dtype))
    shape_inputs(inputs, attrs, shape, api)
    helper = LayerHelper(helper_name, name=name)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, inputs, {'Out': [out]}, attrs)
    return out


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None) -> Variable:  # noqa: A002 - Paddle's names
    """Uniform in [min, max) (`uniform_random`)."""
    dtype = _float_dtype(dtype, 'uniform/rand')
    return _random_op('uniform_random', 'uniform', shape, dtype,
                      {'min': float(min), 'max': float(max), 'seed': int(seed), 'diag_num': 0, 'diag_step': 0,
                       'diag_val': 1.0}, 'uniform/rand', name)


def rand(shape, dtype=None, name=None) -> Variable:
    """Uniform in [0, 1)."""
    return uniform(shape, dtype, 0.0, 1.0, name=name)


def normal(mean=0.0, std=1.0, shape=None, name=None) -> Variable:
    """Normal(mean, std) of `shape` (`gaussian_random`), float32."""
    if isinstance(mean, Variable) or isinstance(std, Variable):
        raise NotImplementedError('paddle.normal with a Tensor mean or std is not supported; give floats')
    if shape is None:
        raise ValueError('paddle.normal needs a shape when mean and std are numbers')
    return _random_op('gaussian_random', 'gaussian', shape, to_var_type('float32'),
                      {'mean': float(mean), 'std': float(std), 'seed': 0}, 'gaussian/randn', name)


def standard_normal(shape, dtype=None, name=None) -> Variable:
    """Normal(0, 1) of `shape`."""
    dtype = _float_dtype(dtype, 'gaussian/standard_normal')
    return _random_op('gaussian_random', 'gaussian', shape, dtype, {'mean': 0.0, 'std': 1.0, 'seed': 0},
                      'gaussian/randn', name)


def randn(shape, dtype=None, name=None) -> Variable:
    return standard_normal(shape, dtype, name)
