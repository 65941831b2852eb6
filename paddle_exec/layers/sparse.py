"""SelectedRows builders (fluid 1.x): merge_selected_rows (sum the values of repeated rows) and
get_tensor_from_selected_rows (the value tensor of a SelectedRows), on the ops of ops/optimizer.py."""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .helper import LayerHelper

__all__ = ['merge_selected_rows', 'get_tensor_from_selected_rows']


def merge_selected_rows(x, name=None) -> Variable:
    """A SelectedRows whose repeated rows are summed into one."""
    helper = LayerHelper('merge_selected_rows', name=name)
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type='merge_selected_rows', inputs={'X': x}, attrs={}, outputs={'Out': out})
    return out


def get_tensor_from_selected_rows(x, name=None) -> Variable:
    """The value tensor of the SelectedRows x."""
    if not isinstance(x, Variable):
        raise TypeError("The type of 'x' in get_tensor_from_selected_rows must be %s, but received %s. "
                        % (Variable, type(x)))
    if x.type != VarType.SELECTED_ROWS:
        raise TypeError("The type of 'x' in get_tensor_from_selected_rows must be SELECTED_ROWS.")
    helper = LayerHelper('get_tensor_from_selected_rows', name=name)
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type='get_tensor_from_selected_rows', inputs={'X': x}, outputs={'Out': out}, attrs={})
    return out
