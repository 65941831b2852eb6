"""Random tensors with fluid 1.8's signatures: randint, uniform_random, gaussian_random, random_crop.

uniform_random sets no dtype attribute (1.8 passes none, so the op's float32 default wins whatever `dtype` says);
the shape may hold or be Variables (creation.shape_inputs).
"""
from __future__ import annotations

import numpy as np

from ..framework import unique_name
from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from .checks import check_type, check_variable_and_dtype
from .creation import shape_inputs
from .helper import LayerHelper, named_output


def randint(low, high=None, shape=None, out=None, dtype=None, device=None, stop_gradient=False, seed=0,
            name=None) -> Variable:
    """fluid.layers.randint (1.8): integers uniform in [low, high) (high None: [0, low)), int64 by default."""
    dtype = 'int64' if dtype is None else dtype
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in randint must be ['int32', 'int64'], but received %s."
                        % convert_dtype(dtype))
    shape = [1] if shape is None else shape
    inputs, attrs = {}, {}
    shape_inputs(inputs, attrs, shape, 'randint')
    if high is None:
        low, high = 0, low
    if low >= high:
        raise ValueError("randint's low must less then high, but received low = %s, high = %s" % (low, high))
    attrs.update(low=low, high=high, seed=seed)
    helper = LayerHelper('randint', name=name)
    if out is None:
        out = named_output(helper, to_var_type(dtype), name)
    attrs['dtype'] = int(out.dtype)
    out.stop_gradient = stop_gradient
    helper.append_op('randint', inputs, {'Out': [out]}, attrs)
    return out


def uniform_random(shape, dtype='float32', min=-1.0, max=1.0, seed=0) -> Variable:  # noqa: A002 - Paddle's names
    """fluid.layers.uniform_random: `uniform_random` in [min, max). 1.8 sets no dtype attribute, so the op's
    float32 default is what runs (and types the output) even for dtype='float64'."""
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'dtype' in uniform_random/rand must be ('float32', 'float64'), but "
                        'received %s.' % convert_dtype(dtype))
    inputs, attrs = {}, {'seed': seed, 'min': float(min), 'max': float(max)}
    shape_inputs(inputs, attrs, shape, 'uniform_random/rand')
    helper = LayerHelper('uniform_random')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('uniform_random', inputs, {'Out': [out]}, attrs)
    return out


def gaussian_random(shape, mean=0.0, std=1.0, seed=0, dtype='float32') -> Variable:
    """fluid.layers.gaussian_random: `gaussian_random` with attrs mean, std, seed, dtype."""
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'dtype' in gaussian_random/randn must be ['float32', 'float64'], but "
                        'received %s.' % convert_dtype(dtype))
    inputs = {}
    attrs = {'mean': float(mean), 'std': float(std), 'seed': seed, 'dtype': int(to_var_type(dtype)),
             'use_mkldnn': False}
    shape_inputs(inputs, attrs, shape, 'gaussian_random/randn')
    helper = LayerHelper('gaussian_random')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('gaussian_random', inputs, {'Out': [out]}, attrs)
    return out


def random_crop(x, shape, seed=None):
    """The trailing dims of every instance of x cropped to `shape` at a random offset; `seed` an int (kept in a
    persistable `random_crop_seed` variable the op updates) or an int64 Variable. Paddle's kernel falls back to
    `startup_seed` while the seed variable is uninitialized; here the startup program sets it to that seed (a
    value every run reads must exist), which draws the same crops."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'uint8', 'int16', 'int32'], 'random_crop')
    check_type(shape, 'shape', (list, Variable), 'random_crop')
    helper = LayerHelper('random_crop')
    out = helper.create_variable_for_type_inference(x.dtype)
    if seed is None:
        seed = int(np.random.randint(-65536, 65536))
    attrs = {'shape': list(shape)}
    if isinstance(seed, int):
        attrs['startup_seed'] = seed
        seed_value = seed
        seed = helper.create_variable(name=unique_name.generate('random_crop_seed'), dtype='int64',
                                      persistable=True, shape=[1])
        helper.set_variable_initializer(seed, ConstantInitializer(float(seed_value)))
    elif not isinstance(seed, Variable):
        raise ValueError("'seed' must be a Variable or an int.")
    helper.append_op(type='random_crop', inputs={'X': [x], 'Seed': [seed]},
                     outputs={'Out': [out], 'SeedOut': [seed]}, attrs=attrs)
    return out
