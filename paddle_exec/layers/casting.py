"""`cast`, fluid 1.x's dtype conversion: one `cast` op (in_dtype, out_dtype); its gradient casts back.

It sits below creation.py because shape arguments given as int64 Variables are cast to int32 there.
(paddle.cast, 2.x, keeps the input's stop_gradient: tensor/manipulation.py.)
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from ..framework.variable import Variable
from .checks import check_variable
from .helper import LayerHelper


def cast(x, dtype) -> Variable:
    """fluid.layers.cast: `cast` to `dtype`; its gradient casts back."""
    check_variable(x, 'x', 'cast')
    helper = LayerHelper('cast')
    out = helper.create_variable_for_type_inference(to_var_type(dtype))
    helper.append_op('cast', {'X': [x]}, {'Out': [out]}, {'in_dtype': int(x.dtype), 'out_dtype': int(out.dtype)})
    return out
