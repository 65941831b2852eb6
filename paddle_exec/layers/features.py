"""Feature builders of fluid 1.8's layers.nn (ops/features.py): similarity_focus, hash, fsp_matrix,
filter_by_instag. Each appends Paddle 1.8's op
with its inputs and attributes; the argument checks use Paddle's wording.
"""
from __future__ import annotations

import numpy as np

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['similarity_focus', 'hash', 'fsp_matrix', 'filter_by_instag']


def _one_op(op_type: str, inputs: dict, out_dtype, attrs=None, helper_name=None, stop_gradient=False) -> Variable:
    helper = LayerHelper(helper_name or op_type)
    out = helper.create_variable_for_type_inference(dtype=out_dtype, stop_gradient=stop_gradient)
    helper.append_op(type=op_type, inputs=inputs, outputs={'Out': [out]}, attrs=attrs or {})
    return out


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
