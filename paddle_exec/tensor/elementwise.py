"""Two-input elementwise functions of Paddle 2.x: paddle.atan2 / fmax / fmin / heaviside / nextafter / lerp /
bitwise_and / bitwise_or / bitwise_xor / bitwise_not / isclose / allclose / equal_all, and the ones 2.6.2 builds
from other ops: hypot (sqrt(x^2 + y^2)), logaddexp (log1p(exp(-|x - y|)) + max(x, y)), ldexp (x * 2^y in the
default float dtype), gcd (Euclid's algorithm in a `while` loop, as 2.6.2) and lcm (|x y| // gcd).

Each appends the ops 2.6.2 appends (op types, slots and attributes checked side by side); isclose and allclose
write their tolerances as the string attributes 2.6.2 writes ('1e-05').
"""
from __future__ import annotations

from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.control_flow import while_loop
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from .manipulation import expand
from .math import (
    _elementwise_op,
    abs,
    any,
    equal,
    exp,
    floor_divide,
    less_than,
    log1p,
    maximum,
    multiply,
    not_equal,
    pow,
    remainder,
    sqrt,
)
from .search import where

__all__ = ['atan2', 'fmax', 'fmin', 'heaviside', 'nextafter', 'lerp', 'bitwise_and', 'bitwise_or', 'bitwise_xor',
           'bitwise_not', 'isclose', 'allclose', 'equal_all', 'hypot', 'logaddexp', 'ldexp', 'gcd', 'lcm',
           'broadcast_shape']

_NUMBERS = ('int32', 'int64', 'float16', 'float32', 'float64')
_BITS = ('bool', 'uint8', 'int8', 'int16', 'int32', 'int64')


def atan2(x, y, name=None):
    """paddle.atan2: the `atan2` op (inputs X1, X2); integers compute in float64."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'atan2')
    check_variable_and_dtype(y, 'y', _NUMBERS, 'atan2')
    helper = LayerHelper('atan2', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('atan2', {'X1': [x], 'X2': [y]}, {'Out': [out]})
    return out


def _plain_elementwise(op_type: str, x, y, name):
    """2.6.2's _elementwise_op for the ops without an axis attribute in their OpMaker defaults."""
    check_variable_and_dtype(x, 'x', _NUMBERS, op_type)
    check_variable_and_dtype(y, 'y', _NUMBERS, op_type)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x], 'Y': [y]}, {'Out': [out]}, {'axis': -1})
    return out


def fmax(x, y, name=None):
    """paddle.fmax: the elementwise maximum, a nan losing to a number (`elementwise_fmax`)."""
    return _plain_elementwise('elementwise_fmax', x, y, name)


def fmin(x, y, name=None):
    """paddle.fmin: the elementwise minimum, a nan losing to a number (`elementwise_fmin`)."""
    return _plain_elementwise('elementwise_fmin', x, y, name)


def heaviside(x, y, name=None):
    """paddle.heaviside: 0 for x < 0, y for x == 0, 1 for x > 0 (`elementwise_heaviside`)."""
    return _plain_elementwise('elementwise_heaviside', x, y, name)


def nextafter(x, y, name=None):
    """paddle.nextafter: the next float after x towards y (`nextafter`, slots x, y -> out)."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'nextafter')
    check_variable_and_dtype(y, 'y', ('float32', 'float64'), 'nextafter')
    helper = LayerHelper('nextafter', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('nextafter', {'x': [x], 'y': [y]}, {'out': [out]})
    return out


def lerp(x, y, weight, name=None):
    """paddle.lerp: x + weight * (y - x); a float weight becomes a 0-d `fill_constant`."""
    if isinstance(weight, float):
        weight = fill_constant([1], x.dtype, weight)
    for arg, v in (('x', x), ('y', y), ('weight', weight)):
        check_variable_and_dtype(v, arg, ('float16', 'float32', 'float64'), 'lerp')
    helper = LayerHelper('lerp', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('lerp', {'X': [x], 'Y': [y], 'Weight': [weight]}, {'Out': [out]})
    return out


def _bitwise(op_type: str, x, y=None, out=None, name=None):
    check_variable_and_dtype(x, 'x', _BITS, op_type)
    if y is not None:
        check_variable_and_dtype(y, 'y', _BITS, op_type)
        if x.dtype != y.dtype:
            raise TypeError('%s: x (%s) and y (%s) must have the same dtype'
                            % (op_type, convert_dtype(x.dtype), convert_dtype(y.dtype)))
    if out is not None and not isinstance(out, Variable):
        raise TypeError("The type of 'out' in %s must be Variable, but received %s" % (op_type, type(out)))
    helper = LayerHelper(op_type, name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x]} if y is None else {'X': [x], 'Y': [y]}
    helper.append_op(op_type, inputs, {'Out': [out]})
    return out


def bitwise_and(x, y, out=None, name=None):
    return _bitwise('bitwise_and', x, y, out, name)


def bitwise_or(x, y, out=None, name=None):
    return _bitwise('bitwise_or', x, y, out, name)


def bitwise_xor(x, y, out=None, name=None):
    return _bitwise('bitwise_xor', x, y, out, name)


def bitwise_not(x, out=None, name=None):
    return _bitwise('bitwise_not', x, None, out, name)


def _close(op_type: str, x, y, rtol, atol, equal_nan, name, dtypes):
    check_variable_and_dtype(x, 'input', dtypes, op_type)
    check_variable_and_dtype(y, 'input', dtypes, op_type)
    for arg, v, kind in (('rtol', rtol, float), ('atol', atol, float), ('equal_nan', equal_nan, bool)):
        if not isinstance(v, kind):
            raise TypeError("The type of '%s' in %s must be %s, but received %s. " % (arg, op_type, kind, type(v)))
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op(op_type, {'Input': [x], 'Other': [y]}, {'Out': [out]},
                     {'rtol': str(rtol), 'atol': str(atol), 'equal_nan': equal_nan})
    return out


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """paddle.isclose: |x - y| <= atol + rtol * |y|, elementwise bool."""
    return _close('isclose', x, y, rtol, atol, equal_nan, name,
                  ('float16', 'float32', 'float64', 'complex64', 'complex128'))


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """paddle.allclose: whether isclose holds everywhere (one bool)."""
    return _close('allclose', x, y, rtol, atol, equal_nan, name, ('float16', 'float32', 'float64'))


def equal_all(x, y, name=None):
    """paddle.equal_all: one bool, whether x and y have the same shape and elements."""
    helper = LayerHelper('equal_all', name=name)
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op('equal_all', {'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def _check_tensor(v, arg: str) -> None:
    if not isinstance(v, Variable):
        raise TypeError('%s must be tensor type, but got %s' % (arg, type(v)))


def hypot(x, y, name=None):
    """paddle.hypot: sqrt(x^2 + y^2), composed as 2.6.2 (two `pow`, an add, a `sqrt`)."""
    _check_tensor(x, 'x')
    _check_tensor(y, 'y')
    return sqrt(pow(x, 2.0) + pow(y, 2.0), name=name)


def logaddexp(x, y, name=None):
    """paddle.logaddexp: log(exp(x) + exp(y)) = log1p(exp(-|x - y|)) + max(x, y), as 2.6.2 builds it."""
    return log1p(exp(-abs(x - y))) + maximum(x, y)


def ldexp(x, y, name=None):
    """paddle.ldexp: x * 2^y, both cast to float64 if either is, else to float32 (the default dtype)."""
    _check_tensor(x, 'x')
    _check_tensor(y, 'y')
    out_dtype = 'float64' if VarType.FP64 in (x.dtype, y.dtype) else 'float32'
    x, y = cast(x, out_dtype), cast(y, out_dtype)
    two = fill_constant([1], out_dtype, 2.0)
    return multiply(x, _elementwise_op('elementwise_pow', two, y), name=name)


def broadcast_shape(x_shape, y_shape) -> list:
    """paddle.broadcast_shape: the shape numpy broadcasting gives two shapes (-1 stays unknown)."""
    x_shape, y_shape = list(x_shape), list(y_shape)
    n = max(len(x_shape), len(y_shape))
    xs, ys = [1] * (n - len(x_shape)) + x_shape, [1] * (n - len(y_shape)) + y_shape
    out = []
    for a, b in zip(xs, ys):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a == -1 or b == -1:
            out.append(max(a, b))
        else:
            raise ValueError('(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast '
                             'together with the shape of X = %s and the shape of Y = %s. Received [%d] in X is '
                             'not equal to [%d] in Y.' % (x_shape, y_shape, a, b))
    return out


def gcd(x, y, name=None):
    """paddle.gcd: the greatest common divisor of |x| and |y| by Euclid's algorithm, a `while` loop over the
    whole tensors (2.6.2's construction): while any y != 0: x, y = y, x mod y (where y != 0)."""
    shape = broadcast_shape(x.shape, y.shape)
    x, y = abs(expand(x, shape)), abs(expand(y, shape))
    check_variable_and_dtype(x, 'x', ('int32', 'int64'), 'gcd')
    check_variable_and_dtype(y, 'y', ('int32', 'int64'), 'gcd')

    def cond(a, b):
        return any(not_equal(b, fill_constant([1], b.dtype, 0)))

    def body(a, b):
        nonzero = not_equal(b, fill_constant([1], b.dtype, 0))
        safe = where(nonzero, b, fill_constant(shape, b.dtype, 1))
        a, b = where(nonzero, b, a), where(nonzero, remainder(a, safe), fill_constant(shape, b.dtype, 0))
        smaller = less_than(a, b)
        return [where(smaller, b, a), where(smaller, a, b)]

    out, _ = while_loop(cond, body, [x, y])
    return out


def lcm(x, y, name=None):
    """paddle.lcm: |x y| // gcd(x, y), 0 where the gcd is 0."""
    d = gcd(x, y)
    d_is_0 = equal(d, fill_constant([1], d.dtype, 0))
    d_safe = where(d_is_0, fill_constant(d.shape, d.dtype, 1), d)
    return where(d_is_0, fill_constant(d.shape, d.dtype, 0), floor_divide(abs(multiply(x, y)), d_safe))
