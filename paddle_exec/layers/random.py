"""Random tensors with fluid 1.8's signatures: randint, uniform_random, gaussian_random,
gaussian_random_batch_size_like, uniform_random_batch_size_like.

uniform_random sets no dtype attribute (1.8 passes none, so the op's float32 default wins whatever `dtype` says);
the shape may hold or be Variables (creation.shape_inputs).
"""
from __future__ import annotations

from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
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


def _random_batch_size_like(op_type: str, input, shape, dtype, input_dim_idx, output_dim_idx, attrs) -> Variable:
    if convert_dtype(dtype) not in ('float16', 'float32', 'float64'):
        raise TypeError("The data type of 'dtype' in fluid.layers.%s must be ['float16', 'float32', 'float64'], "
                        'but received %s.' % (op_type, convert_dtype(dtype)))
    if not isinstance(shape, (list, tuple)):
        raise TypeError("The type of 'shape' in fluid.layers.%s must be list or tuple, but received %s."
                        % (op_type, type(shape)))
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op(op_type, {'Input': [input]}, {'Out': [out]},
                     dict(attrs, shape=list(shape), input_dim_idx=input_dim_idx, output_dim_idx=output_dim_idx,
                          dtype=int(to_var_type(dtype))))
    return out


def gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0, mean=0.0, std=1.0, seed=0,
                                    dtype='float32') -> Variable:
    """Normal values of `shape` whose dim output_dim_idx is input's dim input_dim_idx at run time."""
    return _random_batch_size_like('gaussian_random_batch_size_like', input, shape, dtype, input_dim_idx,
                                   output_dim_idx, {'mean': float(mean), 'std': float(std), 'seed': seed})


def uniform_random_batch_size_like(input, shape, dtype='float32', input_dim_idx=0, output_dim_idx=0,
                                   min=-1.0, max=1.0, seed=0) -> Variable:  # noqa: A002 - Paddle's names
    """Uniform values in [min, max) of `shape` whose dim output_dim_idx is input's dim input_dim_idx."""
    return _random_batch_size_like('uniform_random_batch_size_like', input, shape, dtype, input_dim_idx,
                                   output_dim_idx, {'min': float(min), 'max': float(max), 'seed': seed})
