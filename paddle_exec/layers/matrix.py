"""Identity and triangle matrices with fluid 1.8's signatures: eye (one `stack` per batch dim), tril / triu (the
`tril_triu` op, whose output is named after the helper, `tril_0`, as 1.8's LayerHelper names it).
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper
from .manipulation import stack


def eye_op(num_rows, num_columns, dtype, name=None) -> Variable:
    """The `eye` op (stop_gradient), with Paddle's argument checks."""
    if not isinstance(num_rows, int) or num_rows < 0:
        raise TypeError('num_rows should be a non-negative int')
    if num_columns is not None:
        if not isinstance(num_columns, int) or num_columns < 0:
            raise TypeError('num_columns should be a non-negative int')
    else:
        num_columns = num_rows
    helper = LayerHelper('eye', name=name)
    out = helper.create_variable_for_type_inference(to_var_type(dtype), stop_gradient=True)
    helper.append_op('eye', {}, {'Out': [out]},
                     {'num_rows': num_rows, 'num_columns': num_columns, 'dtype': int(to_var_type(dtype))})
    return out


def eye(num_rows, num_columns=None, batch_shape=None, dtype='float32') -> Variable:
    """fluid.layers.eye: an identity [num_rows, num_columns], stacked over `batch_shape` (one `stack` per dim)."""
    out = eye_op(num_rows, num_columns, dtype)
    if batch_shape is not None:
        if not isinstance(batch_shape, list):
            raise TypeError('batch_shape should be a list')
        for batch_val in reversed(batch_shape):
            if batch_val <= 0:
                raise TypeError('batch_shape should be a positive int list')
            out = stack([out] * batch_val, axis=0)
    return out


def tril_triu(op_type: str, x, diagonal, name, arg: str = 'input') -> Variable:
    """`tril_triu` (lower for tril): the output is named after the helper (`tril_0`) or exactly `name`."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], op_type)
    if len(x.shape) < 2:
        raise ValueError('%s shape in %s must be at least 2-D' % (arg, op_type))
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError('diagonal in %s must be a python Int' % op_type)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable(name=helper.name, dtype=x.dtype, persistable=False)
    helper.append_op('tril_triu', {'X': [x]}, {'Out': [out]}, {'diagonal': diagonal, 'lower': op_type == 'tril'})
    return out


def tril(input, diagonal=0, name=None) -> Variable:
    """fluid.layers.tril: the lower triangle (j - i <= diagonal) of the last two dims."""
    return tril_triu('tril', input, diagonal, name)


def triu(input, diagonal=0, name=None) -> Variable:
    """fluid.layers.triu: the upper triangle (j - i >= diagonal) of the last two dims."""
    return tril_triu('triu', input, diagonal, name)
