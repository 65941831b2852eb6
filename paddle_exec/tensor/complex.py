"""Complex numbers in programs (Paddle 2.x): paddle.complex / real / imag / conj / angle / as_complex / as_real /
polar, and the dtype predicates is_complex / is_floating_point / is_integer.

Each appends the op 2.6.2 appends (ops/complex.py), named after its helper; polar is complex(r cos t, r sin t) as
2.6.2 builds it. complex_sign is sgn of a complex tensor: x / |x|, 0 where x is 0 (as_real / abs / as_complex in
2.6.2, one `elementwise_div` and a `where` here).
"""
from __future__ import annotations

from ..framework.dtype import VarType, complex_dtype, convert_dtype, real_dtype, to_var_type
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper

__all__ = ['complex', 'real', 'imag', 'conj', 'angle', 'as_complex', 'as_real', 'polar', 'is_complex',
           'is_floating_point', 'is_integer']

_COMPLEX = ('complex64', 'complex128')


def _one_op(op_type: str, inputs: dict, out_dtype, name=None):
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(out_dtype)
    helper.append_op(op_type, inputs, {'Out': [out]})
    return out


def complex(real, imag, name=None):  # noqa: A001 - Paddle's name
    """paddle.complex: real + i imag (numpy broadcasting); float32 parts give complex64."""
    check_variable_and_dtype(real, 'real', ('float32', 'float64'), 'complex')
    check_variable_and_dtype(imag, 'imag', ('float32', 'float64'), 'complex')
    return _one_op('complex', {'X': [real], 'Y': [imag]}, complex_dtype(real.dtype), name)


def real(x, name=None):
    check_variable_and_dtype(x, 'x', _COMPLEX, 'real')
    return _one_op('real', {'X': [x]}, real_dtype(x.dtype), name)


def imag(x, name=None):
    check_variable_and_dtype(x, 'x', _COMPLEX, 'imag')
    return _one_op('imag', {'X': [x]}, real_dtype(x.dtype), name)


def conj(x, name=None):
    """paddle.conj: the complex conjugate; a real tensor is copied."""
    check_variable_and_dtype(x, 'x', _COMPLEX + ('float16', 'float32', 'float64', 'int32', 'int64'), 'conj')
    return _one_op('conj', {'X': [x]}, x.dtype, name)


def angle(x, name=None):
    """paddle.angle: the argument of each element (0 or pi for a real tensor), a real tensor."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64') + _COMPLEX, 'angle')
    return _one_op('angle', {'X': [x]}, real_dtype(x.dtype), name)


def as_complex(x, name=None):
    """paddle.as_complex: a [..., 2] real tensor as a [...] complex one."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'as_complex')
    return _one_op('as_complex', {'X': [x]}, complex_dtype(x.dtype), name)


def as_real(x, name=None):
    """paddle.as_real: a complex tensor as a [..., 2] real one."""
    check_variable_and_dtype(x, 'x', _COMPLEX, 'as_real')
    return _one_op('as_real', {'X': [x]}, real_dtype(x.dtype), name)


def polar(abs, angle, name=None):  # noqa: A002 - Paddle's argument names
    """paddle.polar: complex(abs * cos(angle), abs * sin(angle)), as 2.6.2 builds it."""
    check_variable_and_dtype(abs, 'abs', ('float32', 'float64'), 'paddle.polar')
    check_variable_and_dtype(angle, 'angle', ('float32', 'float64'), 'paddle.polar')
    parts = []
    for op_type in ('cos', 'sin'):
        trig = _one_op(op_type, {'X': [angle]}, angle.dtype)
        parts.append(abs * trig)
    return complex(parts[0], parts[1], name)


def complex_sign(x, name=None):
    """sgn of a complex tensor: x / |x|, 0 where |x| is 0."""
    magnitude = _one_op('abs', {'X': [x]}, real_dtype(x.dtype))
    zero_real = _fill_like(magnitude, 0.0)
    is_zero = _one_op('equal', {'X': [magnitude], 'Y': [zero_real]}, VarType.BOOL)
    safe = _where(is_zero, _fill_like(magnitude, 1.0), magnitude)
    quotient = _one_op('elementwise_div', {'X': [x], 'Y': [complex(safe, zero_real)]}, x.dtype)
    zero = complex(zero_real, zero_real)
    return _where(is_zero, zero, quotient, name)


def _fill_like(x, value: float):
    helper = LayerHelper('full_like')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('fill_any_like', {'X': [x]}, {'Out': [out]}, {'value': value, 'dtype': int(x.dtype)})
    return out


def _where(cond, x, y, name=None):
    helper = LayerHelper('where', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('where', {'Condition': [cond], 'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def _check_tensor(x) -> None:
    if not isinstance(x, Variable):
        raise TypeError('Expected Tensor, but received type of x: %s' % type(x))


def is_complex(x) -> bool:
    _check_tensor(x)
    return to_var_type(x.dtype) in (VarType.COMPLEX64, VarType.COMPLEX128)


def is_floating_point(x) -> bool:
    _check_tensor(x)
    return to_var_type(x.dtype) in (VarType.FP16, VarType.FP32, VarType.FP64, VarType.BF16)


def is_integer(x) -> bool:
    _check_tensor(x)
    return convert_dtype(x.dtype) in ('uint8', 'int8', 'int16', 'int32', 'int64')
