"""paddle.* random tensors (2.x signatures): uniform, rand, normal, randn, standard_normal, bernoulli, multinomial,
poisson, randperm, randint_like.

As Paddle 2.x builds them in static mode: one `uniform_random` (helper `uniform`: outputs `uniform_N.tmp_0`) or
`gaussian_random` (helper `gaussian`) op with the dtype written out (float32 by default), output stop_gradient.
`seed` 0 draws from paddle.seed's generator (fresh entropy when paddle.seed was never called), as in Paddle 2.x.
normal() with a tensor mean or std draws a standard normal of that tensor's run-time shape (`shape` +
`gaussian_random`) and scales and shifts it, as 2.6.2 does. bernoulli / multinomial / poisson / randperm are one
op each (ops/sampling.py); randint_like is `shape` + `randint` + `cast`.
"""
from __future__ import annotations

from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers import casting as _casting
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import shape_inputs
from ..layers.helper import LayerHelper

__all__ = ['uniform', 'rand', 'normal', 'randn', 'standard_normal', 'bernoulli', 'multinomial', 'poisson', 'randperm',
           'randint_like']


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
    """Normal(mean, std) of `shape` (`gaussian_random`), float32; with a tensor mean (or std), of its shape."""
    if isinstance(mean, Variable) or isinstance(std, Variable):
        ref = mean if isinstance(mean, Variable) else std
        if isinstance(mean, Variable) and isinstance(std, Variable):
            std = _like(std, mean)
        out = _random_op('gaussian_random', 'gaussian', _runtime_shape(ref), ref.dtype,
                         {'mean': 0.0, 'std': 1.0, 'seed': 0}, 'gaussian/randn', None)
        return out * std + mean
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


def _runtime_shape(x) -> Variable:
    helper = LayerHelper('shape')
    out = helper.create_variable_for_type_inference(to_var_type('int32'))
    helper.append_op('shape', {'Input': [x]}, {'Out': [out]})
    return out


def _like(x, ref) -> Variable:
    """x reshaped to ref's run-time shape (2.6.2's normal reshapes std to mean's shape)."""
    helper = LayerHelper('reshape2')
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('reshape2', {'X': [x], 'Shape': [_runtime_shape(ref)]}, {'Out': [out], 'XShape': [xshape]},
                     {'shape': []})
    return out


def _one_op(op_type: str, x, attrs: dict, out_dtype, name, api: str, dtypes=('float16', 'float32', 'float64')):
    check_variable_and_dtype(x, 'x', dtypes, api)
    helper = LayerHelper(op_type if op_type != 'bernoulli' else 'randint', name=name)
    out = helper.create_variable_for_type_inference(out_dtype, stop_gradient=True)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]}, attrs)
    return out


def bernoulli(x, name=None) -> Variable:
    """paddle.bernoulli: 1 with probability x, else 0 (x's dtype; helper `randint`, as 2.6.2)."""
    return _one_op('bernoulli', x, {}, x.dtype, name, 'bernoulli')


def multinomial(x, num_samples=1, replacement=False, name=None) -> Variable:
    """paddle.multinomial: int64 category indices drawn from the (unnormalised) probabilities of each row."""
    return _one_op('multinomial', x, {'num_samples': num_samples, 'replacement': replacement},
                   to_var_type('int64'), name, 'multinomial')


def poisson(x, name=None) -> Variable:
    """paddle.poisson: a Poisson draw with rate x, elementwise."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'poisson')
    helper = LayerHelper('poisson', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('poisson', {'X': [x]}, {'Out': [out]})
    return out


def randperm(n, dtype='int64', name=None) -> Variable:
    """paddle.randperm: a random permutation of 0 .. n - 1."""
    if n < 1:
        raise ValueError('The input n should be greater than 0 in randperm op.')
    dtype = to_var_type(dtype)
    if convert_dtype(dtype) not in ('int64', 'int32', 'float32', 'float64'):
        raise TypeError("The data type of 'dtype' in randperm must be ['int64', 'int32', 'float32', 'float64'], "
                        "but received %s." % convert_dtype(dtype))
    helper = LayerHelper('randperm', name=name)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op('randperm', {}, {'Out': [out]}, {'n': n, 'dtype': int(dtype), 'seed': 0})
    return out


def randint_like(x, low=0, high=None, dtype=None, name=None) -> Variable:
    """paddle.randint_like: integers in [low, high) of x's run-time shape, cast to dtype (x's by default)."""
    if high is None:
        if low <= 0:
            raise ValueError('If high is None, low must be greater than 0, but received low = %s.' % low)
        low, high = 0, low
    if low >= high:
        raise ValueError("randint_like's low must less then high, but received low = %s, high = %s" % (low, high))
    dtype = x.dtype if dtype is None else to_var_type(dtype)
    helper = LayerHelper('randint', name=name)
    out = helper.create_variable_for_type_inference(to_var_type('int64'), stop_gradient=True)
    helper.append_op('randint', {'ShapeTensor': [_runtime_shape(x)]}, {'Out': [out]},
                     {'shape': [], 'low': int(low), 'high': int(high), 'seed': 0, 'dtype': int(to_var_type('int64'))})
    return _casting.cast(out, dtype) if dtype != to_var_type('int64') else out
