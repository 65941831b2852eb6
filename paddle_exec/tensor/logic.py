"""paddle.* logic functions of the tensor family: is_empty, is_tensor.

(The comparison and logical ops, paddle.equal / less_than / logical_and ..., belong to the math family.)
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..layers import attribute as _attribute
from ..layers.helper import LayerHelper

__all__ = ['is_empty', 'is_tensor']


def is_empty(x, name=None) -> Variable:
    """A bool [1] tensor: whether `x` has no elements at run time (`is_empty`)."""
    if not isinstance(x, Variable):
        raise TypeError("The type of 'x' in is_empty must be Variable, but received %s." % type(x))
    helper = LayerHelper('is_empty', name=name)
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    out.stop_gradient = True
    helper.append_op('is_empty', {'X': [x]}, {'Out': [out]})
    return out


def is_tensor(x) -> bool:
    """In static mode a tensor is a Variable."""
    return isinstance(x, Variable)


def rank(input) -> Variable:
    """paddle.rank: the static rank of `input` as an int32 tensor of shape [] (`assign_value`)."""
    return _attribute.rank(input)


__all__ += ['rank']
