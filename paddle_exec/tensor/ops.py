"""Paddle 2.x's one-input math functions: paddle.acos / asin / atan / acosh / asinh / atanh / cosh / sinh / tan /
expm1 / log2 / log10 / trunc / digamma / lgamma / erfinv / i0 / i0e / i1 / i1e / polygamma / logit, and the ones
2.6.2 composes from other ops: neg (a `scale` by -1), sgn (`sign` for real tensors), frac (x - trunc(x)),
deg2rad / rad2deg (a `scale`, after a cast to float32 for integers).

Each appends the op 2.6.2's static mode appends, named after its helper (`acos_0.tmp_0`), with 2.6.2's dtype
checks (verified side by side with Paddle 2.6.2).
"""
from __future__ import annotations

import math

from ..framework.dtype import convert_dtype
from ..layers.activation import activation
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from ..layers.math import scale
from . import creation as _creation
from . import math as _math
from .complex import complex_sign
from .math import greater_equal, isinf, less_than, sign, subtract
from .search import where

__all__ = ['acos', 'asin', 'atan', 'acosh', 'asinh', 'atanh', 'cosh', 'sinh', 'tan', 'expm1', 'log2', 'log10',
           'trunc', 'digamma', 'lgamma', 'erfinv', 'i0', 'i0e', 'i1', 'i1e', 'polygamma', 'logit', 'neg', 'sgn',
           'frac', 'deg2rad', 'rad2deg', 'frexp']

_FLOATS = ('float16', 'float32', 'float64')
_INTS = ('int32', 'int64')


def _math_api(op_type: str, dtypes=_FLOATS, slots=('X', 'Out')):
    x_slot, out_slot = slots

    def api(x, name=None):
        check_variable_and_dtype(x, 'x', dtypes, op_type)
        helper = LayerHelper(op_type, name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op(op_type, {x_slot: [x]}, {out_slot: [out]})
        return out
    api.__name__ = api.__qualname__ = op_type
    api.__doc__ = 'paddle.%s(x, name=None): the `%s` op, elementwise.' % (op_type, op_type)
    return api


acos, asin, atan, acosh, asinh, atanh, cosh, sinh, tan, expm1 = (
    _math_api(t) for t in ('acos', 'asin', 'atan', 'acosh', 'asinh', 'atanh', 'cosh', 'sinh', 'tan', 'expm1'))
log2 = _math_api('log2', _INTS + _FLOATS)
log10 = _math_api('log10', _INTS + _FLOATS)
digamma = _math_api('digamma')
lgamma = _math_api('lgamma')
erfinv = _math_api('erfinv')
i0, i0e, i1, i1e = (_math_api(t, ('float32', 'float64'), ('x', 'out')) for t in ('i0', 'i0e', 'i1', 'i1e'))
_trunc = _math_api('trunc', _INTS + ('float32', 'float64'))


def trunc(input, name=None):  # noqa: A002 - Paddle's argument name
    """paddle.trunc: the `trunc` op (rounds toward zero)."""
    return _trunc(input, name)


def polygamma(x, n, name=None):
    """paddle.polygamma: the n-th derivative of digamma; n == 0 is `digamma` itself (as 2.6.2)."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError('The input of n must be int type, but received: %s ' % type(n))
    if n < 0:
        raise ValueError('The input of n must be greater than or equal to 0. But received n = %s' % n)
    if n == 0:
        return digamma(x, name)
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'polygamma')
    helper = LayerHelper('polygamma', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('polygamma', {'x': [x]}, {'out': [out]}, {'n': n})
    return out


def logit(x, eps=None, name=None):
    """paddle.logit: log(x / (1 - x)), x clipped to [eps, 1 - eps] when eps > 0 (None is 0)."""
    return activation('logit', x, {'eps': 0.0 if eps is None else float(eps)}, name, dtypes=_FLOATS)


def neg(x, name=None):
    """paddle.neg: a `scale` by -1 (helper `scale`, as 2.6.2)."""
    return scale(x, scale=-1.0, bias=0.0, bias_after_scale=True, act=None, name=name)


def sgn(x, name=None):
    """paddle.sgn: the `sign` op for a real tensor; x / |x| (0 where x is 0) for a complex one."""
    if convert_dtype(x.dtype) not in _FLOATS + ('complex64', 'complex128'):
        raise TypeError("The data type of input must be one of ['float16', 'float32', 'float64', 'complex64', "
                        "'complex128'], but got %s" % convert_dtype(x.dtype))
    if convert_dtype(x.dtype).startswith('complex'):
        return complex_sign(x, name)
    return sign(x, name)


def frac(x, name=None):
    """paddle.frac: x - trunc(x) (`trunc` then `elementwise_sub`)."""
    if convert_dtype(x.dtype) not in _INTS + ('float32', 'float64'):
        raise TypeError("The data type of input must be one of ['int32', 'int64', 'float32', 'float64'], but got %s"
                        % convert_dtype(x.dtype))
    return subtract(x, _trunc(x), name)


def _angle_scale(api: str, factor: float, x, name):
    check_variable_and_dtype(x, 'x', _INTS + ('float32', 'float64'), api)
    if convert_dtype(x.dtype) in _INTS:
        x = cast(x, 'float32')
    helper = LayerHelper(api, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('scale', {'X': [x]}, {'Out': [out]}, {'scale': factor, 'bias': 0.0, 'bias_after_scale': True})
    return out


def deg2rad(x, name=None):
    """paddle.deg2rad: x * pi / 180 (a `scale`)."""
    return _angle_scale('deg2rad', math.pi / 180.0, x, name)


def rad2deg(x, name=None):
    """paddle.rad2deg: x * 180 / pi (a `scale`)."""
    return _angle_scale('rad2deg', 180.0 / math.pi, x, name)


def frexp(x, name=None):
    """paddle.frexp: (mantissa, exponent) with x = mantissa * 2^exponent, |mantissa| in [0.5, 1) (0 for 0), both
    in x's float dtype; composed of abs / log2 / floor / where / elementwise ops as 2.6.2 composes it."""
    if convert_dtype(x.dtype) not in ('float32', 'float64'):
        raise TypeError("The data type of input must be one of ['float32', 'float64'], but got %s"
                        % convert_dtype(x.dtype))
    magnitude = _math.abs(x)
    exponent = _math.floor(log2(magnitude))
    # log2(0) = -inf: a zero gets exponent 0 (then 1 below, as 2.6.2) and mantissa 0
    exponent = where(isinf(exponent), _creation.zeros_like(exponent), exponent)
    mantissa = magnitude / _math.pow(_creation.full_like(exponent, 2.0), exponent)
    ge_one = greater_equal(mantissa, _creation.full_like(mantissa, 1.0))
    exponent = where(ge_one, exponent + 1.0, exponent)
    mantissa = where(ge_one, mantissa / 2.0, mantissa)
    negative = less_than(x, _creation.full_like(x, 0.0))
    return where(negative, -mantissa, mantissa), exponent
