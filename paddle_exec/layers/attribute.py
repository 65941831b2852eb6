"""What a tensor is, as tensors (Paddle 2.x's tensor/attribute.py family): shape, size, rank, is_empty.

shape is an int32 tensor of the runtime shape, size the int64 element count, rank the static rank as an int32
tensor of shape [] (an `assign_value`, as 1.8), is_empty a bool [1].
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .checks import check_variable
from .creation import assign
from .helper import LayerHelper


def shape(input) -> Variable:
    """The runtime shape of `input` as an int32 tensor."""
    check_variable(input, 'input', 'shape')
    helper = LayerHelper('shape')
    out = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('shape', {'Input': [input]}, {'Out': [out]})
    return out


def size(input) -> Variable:
    """fluid.layers.size: the element count, an int64 [1] tensor (the `size` op)."""
    check_variable(input, 'input', 'size')
    helper = LayerHelper('size')
    out = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('size', {'Input': [input]}, {'Out': [out]})
    return out


def rank(input) -> Variable:
    """fluid.layers.rank: the static rank of `input` as an int32 tensor of shape [] (`assign_value`)."""
    check_variable(input, 'input', 'rank')
    return assign(np.array(len(input.shape), 'int32'))


def is_empty(x, cond=None) -> Variable:
    """fluid.layers.is_empty: a bool [1], whether x has no elements at run time (`is_empty`)."""
    check_variable(x, 'x', 'is_empty')
    helper = LayerHelper('is_empty')
    if cond is None:
        cond = helper.create_variable_for_type_inference(VarType.BOOL, stop_gradient=True)
    elif len(cond.shape) != 1 or cond.shape[0] != 1:
        raise TypeError('cond of is_empty must be a bool Variable of shape [1], but received shape %s'
                        % list(cond.shape))
    helper.append_op('is_empty', {'X': [x]}, {'Out': [cond]})
    return cond
