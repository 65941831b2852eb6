"""Selection builders of fluid 1.8's layers.nn (ops/selection.py): index_sample, multiplex, shard_index,
gather_tree, similarity_focus, hash, sampling_id, fsp_matrix, filter_by_instag. Each appends Paddle 1.8's op
with its inputs and attributes; the argument checks use Paddle's wording.
"""
from __future__ import annotations

import numpy as np

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['index_sample', 'multiplex', 'shard_index', 'gather_tree', 'similarity_focus', 'hash', 'sampling_id',
           'fsp_matrix', 'filter_by_instag']


def _one_op(op_type: str, inputs: dict, out_dtype, attrs=None, helper_name=None, stop_gradient=False) -> Variable:
    helper = LayerHelper(helper_name or op_type)
    out = helper.create_variable_for_type_inference(dtype=out_dtype, stop_gradient=stop_gradient)
    helper.append_op(type=op_type, inputs=inputs, outputs={'Out': [out]}, attrs=attrs or {})
    return out


def index_sample(x, index):
    """Out[i, j] = x[i, index[i, j]]."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], 'fluid.layers.index_sample')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'fluid.layers.index_sample')
    return _one_op('index_sample', {'X': [x], 'Index': [index]}, x.dtype)


def multiplex(inputs, index):
    """Row i of the output is row i of inputs[index[i]]."""
    check_type(inputs, 'inputs', (list), 'multiplex')
    if len(inputs) < 2:
        raise ValueError('inputs should be a list object with at least 2 elements.')
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, 'input[' + str(i) + ']', ['float32', 'float64', 'int32', 'int64'], 'multiplex')
    check_variable_and_dtype(index, 'index', ['int32', 'int64'], 'multiplex')
    return _one_op('multiplex', {'X': list(inputs), 'Ids': [index]}, inputs[0].dtype)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """The index within shard `shard_id` of each label, ignore_value for labels of other shards."""
    check_variable_and_dtype(input, 'input', ['int64'], 'shard_index')
    if shard_id < 0 or shard_id >= nshards:
        raise ValueError('The shard_id(%d) should be in [0, %d)' % (shard_id, nshards))
    return _one_op('shard_index', {'X': [input]}, input.dtype,
                   {'index_num': index_num, 'nshards': nshards, 'shard_id': shard_id, 'ignore_value': ignore_value},
                   stop_gradient=True)


def gather_tree(ids, parents):
    """The full beam-search sequences, traced back from the last step through `parents` ([T, B, beam])."""
    check_variable_and_dtype(ids, 'ids', ['int32', 'int64'], 'gather_tree')
    check_variable_and_dtype(parents, 'parents', ['int32', 'int64'], 'gather_tree')
    return _one_op('gather_tree', {'Ids': [ids], 'Parents': [parents]}, ids.dtype)


def similarity_focus(input, axis, indexes, name=None):
    """The 0/1 similarity-focus mask of a [N, D1, D2, D3] tensor (Paddle's op)."""
    if axis not in (1, 2, 3):
        raise ValueError('axis must be 1, 2 or 3.')
    if len(indexes) == 0:
        raise ValueError('indexes can not be empty.')
    return _one_op('similarity_focus', {'X': [input]}, input.dtype, {'axis': axis, 'indexes': list(indexes)})


def hash(input, hash_size, num_hash=1, name=None):  # noqa: A001 - Paddle's name
    """[N, num_hash, 1]: XXH64 of each row of the integer input with seeds 0..num_hash-1, mod hash_size."""
    check_variable_and_dtype(input, 'input', ['int32', 'int64'], 'hash')
    check_type(hash_size, 'hash_size', int, 'hash')
    check_type(num_hash, 'num_hash', int, 'hash')
    return _one_op('hash', {'X': [input]}, input.dtype, {'num_hash': num_hash, 'mod_by': hash_size},
                   stop_gradient=True)


def sampling_id(x, min=0.0, max=1.0, seed=0, dtype='float32'):  # noqa: A002 - Paddle's names
    """An int64 [N] index per row, drawn from the row's probabilities."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'sampling_id')
    return _one_op('sampling_id', {'X': [x]}, dtype, {'min': min, 'max': max, 'seed': seed})


def fsp_matrix(x, y):
    """[N, C1, C2]: the FSP matrix (x [N, C1, H, W] times y [N, C2, H, W] transposed, over H * W)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'fsp_matrix')
    check_variable_and_dtype(y, 'y', ['float32', 'float64'], 'fsp_matrix')
    return _one_op('fsp', {'X': [x], 'Y': [y]}, x.dtype, helper_name='fsp_matrix')


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0):
    """[out, loss_weight]: the instances of `ins` that carry one of `filter_tag`'s tags (ins_tag: a LoD int64
    tensor of each instance's tags); no match gives one row of out_val_if_empty with weight 0."""
    helper = LayerHelper('filter_by_instag')
    out = helper.create_variable_for_type_inference(dtype=ins.dtype)
    loss_weight = helper.create_variable_for_type_inference(dtype=np.float64)
    index_map = helper.create_variable_for_type_inference(dtype=ins_tag.dtype)
    helper.append_op(type='filter_by_instag', inputs={'Ins': [ins], 'Ins_tag': [ins_tag], 'Filter_tag': [filter_tag]},
                     outputs={'Out': [out], 'LossWeight': [loss_weight], 'IndexMap': [index_map]},
                     attrs={'is_lod': is_lod, 'out_val_if_empty': out_val_if_empty})
    return [out, loss_weight]
