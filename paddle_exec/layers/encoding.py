"""Feature-encoding builders (fluid 1.x): add_position_encoding and continuous_value_model (ops/encoding.py)."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper, unnamed_variable

__all__ = ['add_position_encoding', 'continuous_value_model']


def add_position_encoding(input, alpha, beta, name=None) -> Variable:
    """alpha * input + beta * the sinusoid position encoding; input [batch, seq_len, enc_size]."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'add_position_encoding')
    helper = LayerHelper('add_position_encoding', name=name)
    out = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op(type='add_position_encoding', inputs={'X': input}, outputs={'Out': out},
                     attrs={'alpha': alpha, 'beta': beta})
    return out


def continuous_value_model(input, cvm, use_cvm=True) -> Variable:
    """CTR show/click features: the first two columns of input as log(show + 1), log(click + 1) - log(show + 1)
    (use_cvm), or dropped."""
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'cvm')
    helper = LayerHelper('cvm')
    out = unnamed_variable(helper, input.dtype)
    helper.append_op(type='cvm', inputs={'X': [input], 'CVM': [cvm]}, outputs={'Y': [out]},
                     attrs={'use_cvm': use_cvm})
    return out
