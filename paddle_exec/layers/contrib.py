"""fluid.contrib.layers builders that mean something on a CPU executor (ops/contrib.py): partial_concat,
partial_sum, fused_elemwise_activation."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['partial_concat', 'partial_sum', 'fused_elemwise_activation']


def _partial(op_type: str, input, start_index: int, length: int) -> Variable:
    if not isinstance(input, (list, tuple)):
        input = [input]
    for i, x in enumerate(input):
        check_variable_and_dtype(x, 'input[%d]' % i, ['float16', 'float32', 'float64', 'int32', 'int64'], op_type)
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype=input[0].dtype)
    helper.append_op(type=op_type, inputs={'X': list(input)}, outputs={'Out': [out]},
                     attrs={'start_index': start_index, 'length': length})
    return out


def partial_concat(input, start_index=0, length=-1):
    """Columns [start_index, start_index + length) of each [N, D] input, side by side."""
    return _partial('partial_concat', input, start_index, length)


def partial_sum(input, start_index=0, length=-1):
    """The sum of the columns [start_index, start_index + length) of each [N, D] input."""
    return _partial('partial_sum', input, start_index, length)


def fused_elemwise_activation(x, y, functor_list, axis=-1, scale=0.0, save_intermediate_out=True):
    """One binary (elementwise_add / elementwise_mul) and one unary functor (relu, scale, tanh, sigmoid) in one op:
    ['elementwise_add', 'relu'] is x + relu(y), ['relu', 'elementwise_add'] is relu(x + y)."""
    if isinstance(functor_list, str):
        functor_list = functor_list.split(',')
    if not isinstance(functor_list, list) or len(functor_list) != 2:
        raise ValueError('functor_list should be a list of str, and the length should be 2.')
    helper = LayerHelper('fused_elemwise_activation')
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    intermediate_out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type='fused_elemwise_activation', inputs={'X': x, 'Y': y},
                     outputs={'Out': out, 'IntermediateOut': intermediate_out},
                     attrs={'axis': axis, 'scale': scale, 'save_intermediate_out': save_intermediate_out,
                            'functor_list': functor_list})
    return out
