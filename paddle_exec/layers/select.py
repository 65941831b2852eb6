"""Selection, creation and sampling layers with Paddle 1.8's fluid.layers signatures: index_sample, multiplex,
shard_index, scatter_nd, nonzero, unique, unique_with_counts, meshgrid, expand_as, crop, crop_tensor,
full, full_like, randn, randperm, sampling_id, gaussian_random_batch_size_like,
uniform_random_batch_size_like, clip_by_norm, tensor_array_to_tensor
(pad_constant_like is in image.py, the SelectedRows layers in sparse.py).

Each appends what 1.8.5 appends: unique / unique_with_counts keep the first-appearance order (no `is_sorted`) and
an int32 index by default; nonzero is `where_index` (then one `slice` per dim with as_tuple); randn draws its
seed from numpy as 1.8 does (so every randn differs); crop is the 1.8 `crop` op (shape from a list or from a
Variable's shape), crop_tensor the one 2.x's paddle.crop appends too (and calls). 2.x functions with the same
meaning call these (index_sample, multiplex, scatter_nd, meshgrid, crop).
"""
from __future__ import annotations

import numpy as np

from ..framework import unique_name
from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .creation import fill_constant, zeros
from .helper import LayerHelper

_NUMBERS = ('float32', 'float64', 'int32', 'int64')


def _append(op_type: str, inputs: dict, outputs: dict, attrs=None, name=None):
    """outputs: slot -> dtype; returns the variables in order (one unwrapped)."""
    helper = LayerHelper(op_type, name=name)
    made = {slot: helper.create_variable_for_type_inference(dtype) for slot, dtype in outputs.items()}
    helper.append_op(op_type, {k: v if isinstance(v, list) else [v] for k, v in inputs.items() if v is not None},
                     {k: [v] for k, v in made.items()}, attrs or {})
    values = list(made.values())
    return values[0] if len(values) == 1 else values


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]]."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'fluid.layers.index_sample')
    check_variable_and_dtype(index, 'index', ('int32', 'int64'), 'fluid.layers.index_sample')
    return _append('index_sample', {'X': x, 'Index': index}, {'Out': x.dtype})


def multiplex(inputs, index):
    """Row i of the output is row i of inputs[index[i]]."""
    if not isinstance(inputs, list):
        raise TypeError("The type of 'inputs' in multiplex must be <class 'list'>, but received %s. "
                        % type(inputs))
    if len(inputs) < 2:
        raise ValueError("inputs should be a list object with at least 2 elements.")
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, 'input[%d]' % i, _NUMBERS, 'multiplex')
    check_variable_and_dtype(index, 'index', ('int32', 'int64'), 'multiplex')
    return _append('multiplex', {'X': list(inputs), 'Ids': index}, {'Out': inputs[0].dtype})


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002 - Paddle's argument name
    check_variable_and_dtype(input, 'input', ('int64',), 'shard_index')
    if shard_id < 0 or shard_id >= nshards:
        raise ValueError('The shard_id(%d) should be in [0, %d)' % (shard_id, nshards))
    out = _append('shard_index', {'X': input}, {'Out': input.dtype},
                  {'index_num': index_num, 'nshards': nshards, 'shard_id': shard_id, 'ignore_value': ignore_value})
    out.stop_gradient = True
    return out


def scatter_nd(index, updates, shape, name=None):
    """updates summed into zeros of `shape` at `index` (zeros + scatter_nd_add)."""
    helper = LayerHelper('scatter_nd_add', name=name)
    out = helper.create_variable_for_type_inference(updates.dtype)
    helper.append_op('scatter_nd_add', {'X': [zeros(shape, updates.dtype)], 'Index': [index], 'Updates': [updates]},
                     {'Out': [out]})
    return out


def nonzero(input, as_tuple=False):  # noqa: A002 - Paddle's argument name
    """The int64 coordinates of the non-zero elements ([N, rank], `where_index`); with as_tuple one [N, 1] slice
    per dim."""
    rank = len(input.shape)
    coords = _append('where_index', {'Condition': input}, {'Out': VarType.INT64})
    if not as_tuple:
        return coords
    if rank == 1:
        return (coords,)
    parts = []
    for i in range(rank):
        parts.append(_append('slice', {'Input': coords}, {'Out': VarType.INT64},
                             {'axes': [rank - 1], 'starts': [i], 'ends': [i + 1], 'decrease_axis': [],
                              'infer_flags': [1]}))
    return tuple(parts)


def unique(x, dtype='int32'):
    """(the unique elements in first-appearance order, the index of each element in them)."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'unique')
    out, index = _append('unique', {'X': x}, {'Out': x.dtype, 'Index': to_var_type(dtype)},
                         {'dtype': int(to_var_type(dtype))})
    return out, index


def unique_with_counts(x, dtype='int32'):
    """unique and how often each unique element occurs."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'unique_with_counts')
    if dtype not in ('int32', 'int64'):
        raise TypeError('Op unique_with_counts, index dtype must be int32 or int64')
    if len(x.shape) != 1:
        raise ValueError('Op unique_with_counts, x must not be null and size of dim must be 1')
    index_dtype = to_var_type(dtype)
    return tuple(_append('unique_with_counts', {'X': x}, {'Out': x.dtype, 'Index': index_dtype,
                                                          'Count': index_dtype}, {'dtype': int(index_dtype)}))


def meshgrid(input, name=None):  # noqa: A002 - Paddle's argument name
    """'ij' grids of a list of 1-D tensors (one `meshgrid` op)."""
    if not isinstance(input, list):
        raise TypeError('The type of input in meshgrid should be list.')
    for v in input:
        if convert_dtype(v.dtype) not in ('float16', 'float32', 'float64', 'int32', 'int64'):
            raise TypeError("The data type of 'create data type' in meshgrid must be ['float16', 'float32', "
                            "'float64', 'int32', 'int64'], but received %s. " % convert_dtype(v.dtype))
    helper = LayerHelper('meshgrid', name=name)
    out = [helper.create_variable_for_type_inference(v.dtype) for v in input]
    helper.append_op('meshgrid', {'X': list(input)}, {'Out': out})
    return out


def expand_as(x, target_tensor, name=None):
    """x repeated to target_tensor's shape (`expand_as`, 1.8; 2.x's paddle.expand_as is expand_as_v2)."""
    for arg, v in (('x', x), ('target_tensor', target_tensor)):
        check_variable_and_dtype(v, arg, _NUMBERS + ('bool',), 'expand_as')
    return _append('expand_as', {'X': x, 'target_tensor': target_tensor}, {'Out': x.dtype}, name=name)


def crop(x, shape=None, offsets=None, name=None):
    """fluid.layers.crop: the `crop` op; shape a list or a Variable whose shape is taken, offsets a list or a
    Variable."""
    check_variable_and_dtype(x, 'x', ('float32',), 'crop')
    if not isinstance(shape, (list, tuple, Variable)):
        raise TypeError("The type of 'shape' in crop must be (list, tuple, Variable), but received %s. "
                        % type(shape))
    offsets = [0] * len(x.shape) if offsets is None else offsets
    inputs, attrs = {'X': x}, {}
    if isinstance(shape, Variable):
        inputs['Y'] = shape
    else:
        attrs['shape'] = list(shape)
    if isinstance(offsets, Variable):
        inputs['Offsets'] = offsets
    else:
        attrs['offsets'] = list(offsets)
    return _append('crop', inputs, {'Out': x.dtype}, attrs, name)


def crop_tensor(x, shape=None, offsets=None, name=None):
    """fluid.layers.crop_tensor (and paddle.crop): the block of `shape` (-1: to the end) at `offsets`; either may be
    a Variable or hold Variables, which become ShapeTensor / OffsetsTensor inputs."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'crop_tensor')
    if not isinstance(shape, (list, tuple, Variable)):
        raise TypeError("The type of 'shape' in crop_tensor must be (list, tuple, Variable), but received %s. "
                        % type(shape))
    offsets = [0] * len(x.shape) if offsets is None else offsets
    inputs, attrs = {'X': x}, {}
    for key, value, whole, parts, hole in (('offsets', offsets, 'Offsets', 'OffsetsTensor', -1),
                                           ('shape', shape, 'Shape', 'ShapeTensor', 0)):
        if isinstance(value, Variable):
            value.stop_gradient = True
            inputs[whole] = value
            if key == 'offsets':
                attrs[key] = [-1] * len(x.shape)
            continue
        tensors, attr = [], []
        for v in value:
            if isinstance(v, Variable):
                v.stop_gradient = True
                tensors.append(v)
                attr.append(hole)
                continue
            _check_crop_value(key, v)
            tensors.append(fill_constant([1], 'int32', v, force_cpu=True))
            attr.append(int(v))
        if any(isinstance(v, Variable) for v in value):
            inputs[parts] = tensors
        attrs[key] = attr
    return _append('crop_tensor', inputs, {'Out': x.dtype}, attrs, name)


def _check_crop_value(key: str, v) -> None:
    if not isinstance(v, (int, np.integer)):
        raise TypeError("Attr(%s)'s dtype of Op(crop_tensor) should be int32, but received: %s." % (key, type(v)))
    if key == 'shape' and v == 0:
        raise ValueError("Attr(shape) of Op(crop_tensor) should not be zero, but received: %s." % v)
    if key == 'shape' and v < -1:
        raise ValueError("When the element in Attr(shape) of Op(crop_tensor) is negative, only -1 is supported, but "
                         "received: %s." % v)
    if key == 'offsets' and v < 0:
        raise ValueError("Attr(offsets) of Op(crop_tensor) should be greater or equal to zero, but received: %s." % v)



def full(shape, fill_value, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    """fluid.layers.full: fill_constant into an output named after the layer (`full_N.tmp_0`)."""
    dtype = 'float32' if dtype is None else dtype
    if convert_dtype(dtype) not in ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'):
        raise TypeError("The data type of 'create data type' in full must be ['bool', 'float16', 'float32', "
                        "'float64', 'int32', 'int64'], but received %s. " % convert_dtype(dtype))
    if out is None:
        out = LayerHelper('full', name=name).create_variable_for_type_inference(to_var_type(dtype))
    out.stop_gradient = stop_gradient
    return fill_constant(shape, dtype, fill_value, out=out)


def full_like(input, fill_value, out=None, dtype=None, device=None, stop_gradient=True, name=None):  # noqa: A002
    """fluid.layers.full_like: `fill_any_like` of input's shape (its dtype unless given)."""
    var_dtype = input.dtype if dtype is None else to_var_type(dtype)
    helper = LayerHelper('full_like', name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(var_dtype)
    helper.append_op('fill_any_like', {'X': [input]}, {'Out': [out]}, {'value': float(fill_value),
                                                                        'dtype': int(var_dtype)})
    out.stop_gradient = stop_gradient
    return out


def randn(shape, out=None, dtype=None, device=None, stop_gradient=True, name=None):
    """fluid.layers.randn: standard normal values (gaussian_random with a seed drawn from numpy, as 1.8)."""
    if not isinstance(shape, (list, tuple)) or len(shape) == 0:
        raise TypeError("The type of 'shape' in randn must be a non-empty list or tuple, but received %r" % (shape,))
    dtype = 'float32' if dtype is None else dtype
    if convert_dtype(dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of 'create data type' in randn must be ['float32', 'float64'], but received "
                        "%s. " % convert_dtype(dtype))
    helper = LayerHelper('randn', name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(to_var_type(dtype))
    out.stop_gradient = stop_gradient
    helper.append_op('gaussian_random', {}, {'Out': [out]},
                     {'shape': list(shape), 'mean': 0.0, 'std': 1.0, 'seed': int(np.random.randint(0, 100)),
                      'dtype': int(to_var_type(dtype)), 'use_mkldnn': False})
    return out


def randperm(n, out=None, dtype='int64', device=None, stop_gradient=True, seed=0):
    """fluid.layers.randperm: a random permutation of 0 .. n - 1 (`randperm`, attr seed)."""
    if n < 1:
        raise ValueError('The input n should be greater than 0 in randperm op.')
    if convert_dtype(dtype) not in ('int64', 'int32'):
        raise TypeError("The data type of 'dtype' in randperm must be ['int64', 'int32'], but received %s. "
                        % convert_dtype(dtype))
    if device not in (None, 'cpu', 'gpu'):
        raise ValueError("The input device should in [None, 'cpu', 'gpu'].")
    helper = LayerHelper('randperm')
    if out is None:
        out = helper.create_variable_for_type_inference(to_var_type(dtype))
    if stop_gradient:
        out.stop_gradient = True
    helper.append_op('randperm', {}, {'Out': [out]}, {'n': n, 'dtype': int(out.dtype), 'seed': seed})
    return out


def sampling_id(x, min=0.0, max=1.0, seed=0, dtype='float32'):  # noqa: A002 - Paddle's argument names
    """fluid.layers.sampling_id: one category index per row of x, drawn from the row's distribution."""
    return _append('sampling_id', {'X': x}, {'Out': VarType.INT64},
                   {'min': float(min), 'max': float(max), 'seed': seed})


def gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0, mean=0.0, std=1.0, seed=0,
                                    dtype='float32'):  # noqa: A002 - Paddle's argument name
    """Normal values of `shape`, dim output_dim_idx taken from input's dim input_dim_idx."""
    return _append('gaussian_random_batch_size_like', {'Input': input}, {'Out': to_var_type(dtype)},
                   {'shape': list(shape), 'input_dim_idx': input_dim_idx, 'output_dim_idx': output_dim_idx,
                    'mean': float(mean), 'std': float(std), 'seed': seed, 'dtype': int(to_var_type(dtype))})


def uniform_random_batch_size_like(input, shape, dtype='float32', input_dim_idx=0, output_dim_idx=0,  # noqa: A002
                                   min=-1.0, max=1.0, seed=0):  # noqa: A002 - Paddle's argument names
    """Uniform values in [min, max) of `shape`, dim output_dim_idx taken from input's dim input_dim_idx."""
    check_variable_and_dtype(input, 'Input', ('float32', 'float64'), 'uniform_random_batch_size_like')
    return _append('uniform_random_batch_size_like', {'Input': input}, {'Out': to_var_type(dtype)},
                   {'shape': list(shape), 'input_dim_idx': input_dim_idx, 'output_dim_idx': output_dim_idx,
                    'min': float(min), 'max': float(max), 'seed': seed, 'dtype': int(to_var_type(dtype))})


def clip_by_norm(x, max_norm, name=None):
    """fluid.layers.clip_by_norm: x scaled down to L2 norm max_norm; the output is named `name` when given."""
    check_variable_and_dtype(x, 'X', ('float32',), 'clip_by_norm')
    if not isinstance(max_norm, float):
        raise TypeError("The type of 'max_norm' in clip_by_norm must be <class 'float'>, but received %s. "
                        % type(max_norm))
    helper = LayerHelper('clip_by_norm', name=name)
    if name is None:
        name = unique_name.generate_with_ignorable_key(helper.name + '.tmp')
    out = helper.create_variable(type=x.type, name=name, dtype=x.dtype, persistable=False)
    helper.append_op('clip_by_norm', {'X': [x]}, {'Out': [out]}, {'max_norm': max_norm})
    return out




def tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):  # noqa: A002 - Paddle's argument name
    """fluid.layers.tensor_array_to_tensor: the array's tensors concatenated (or stacked) along axis, and the
    size each took along it (OutIndex). No gradient flows back into the array (as with write_to_array here)."""
    helper = LayerHelper('tensor_array_to_tensor', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    out_index = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('tensor_array_to_tensor', {'X': [input]}, {'Out': [out], 'OutIndex': [out_index]},
                     {'axis': axis, 'use_stack': use_stack})
    return out, out_index
