"""Math functions of the paddle namespace (2.x signatures): paddle.add / matmul / sum / mean / max / clip /
less_than / ..., over the shared builders.

Each appends what Paddle 2.4's static mode appends (fluid 1.8 has none of these names; 2.4's source is the
reference):
    paddle.add(x, y, name)          elementwise_add, axis -1, helper `elementwise_add`; with `name` the output
                                    variable is called exactly `name` (2.x's _elementwise_op)
    paddle.pow(x, 2.0)              `pow` (factor); with a tensor exponent, elementwise_pow
    paddle.matmul(x, y, tx, ty)     matmul_v2 (trans_x, trans_y)
    paddle.sum / mean / prod        reduce_sum / reduce_mean / reduce_prod; axis None -> dim [0] and
                                    reduce_all=True, a list naming every dim also sets reduce_all; helpers `sum`,
                                    `mean`, `reduce_prod`; paddle.sum(dtype=...) sets in_dtype / out_dtype
    paddle.max / min                reduce_max / reduce_min with dim [] when axis is None (helpers `max`, `min`)
    paddle.clip(x, min, max)        clip; an unset bound is float32's (or the int type's) extreme, a tensor
                                    bound is wired as Min / Max
    paddle.less_than(x, y) ...      the compare op, a bool output with stop_gradient
Shapes are 2.4's (no 0-D tensors: a full reduction is [1]).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers import casting as _casting
from ..layers import math as _math
from ..layers.activation import activation
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from .manipulation import cast

__all__ = ['mean', 'sum', 'max', 'min', 'prod', 'add', 'subtract', 'multiply', 'divide', 'floor_divide',
           'remainder', 'mod', 'floor_mod', 'maximum', 'minimum', 'pow', 'matmul', 'mm', 'scale', 'clip', 'add_n',
           'exp', 'log', 'sqrt', 'rsqrt', 'abs', 'square', 'tanh', 'floor', 'ceil', 'round', 'sin', 'cos',
           'reciprocal', 'sign', 'stanh', 'increment',
           'less_than', 'less_equal', 'greater_than', 'greater_equal', 'equal', 'not_equal',
           'logical_and', 'logical_or', 'logical_xor', 'logical_not']

_FLOATS = ('float16', 'float32', 'float64')
_ELEMENTWISE_DTYPES = _FLOATS + ('int32', 'int64', 'bool')


# --- elementwise ---------------------------------------------------------------------------------------------------

def _elementwise_op(op_type: str, x, y, name=None, api=None):
    """2.x's _elementwise_op: axis -1; the output is `name` itself when given."""
    check_variable_and_dtype(x, 'x', _ELEMENTWISE_DTYPES, api or op_type)
    check_variable_and_dtype(y, 'y', _ELEMENTWISE_DTYPES, api or op_type)
    helper = LayerHelper(op_type)
    if name is None:
        out = helper.create_variable_for_type_inference(x.dtype)
    else:
        out = helper.create_variable(name=name, dtype=x.dtype, persistable=False)
    helper.append_op(op_type, {'X': [x], 'Y': [y]}, {'Out': [out]}, {'axis': -1, 'use_mkldnn': False})
    return out


def add(x, y, name=None):
    return _elementwise_op('elementwise_add', x, y, name, 'add')


def subtract(x, y, name=None):
    return _elementwise_op('elementwise_sub', x, y, name, 'subtract')


def multiply(x, y, name=None):
    return _elementwise_op('elementwise_mul', x, y, name, 'multiply')


def divide(x, y, name=None):
    return _elementwise_op('elementwise_div', x, y, name, 'divide')


def floor_divide(x, y, name=None):
    return _elementwise_op('elementwise_floordiv', x, y, name, 'floor_divide')


def remainder(x, y, name=None):
    return _elementwise_op('elementwise_mod', x, y, name, 'remainder')


mod = floor_mod = remainder


def maximum(x, y, name=None):
    return _elementwise_op('elementwise_max', x, y, name, 'maximum')


def minimum(x, y, name=None):
    return _elementwise_op('elementwise_min', x, y, name, 'minimum')


def pow(x, y, name=None):  # noqa: A001 - Paddle's name
    """x ** y: the `pow` op for a number y, elementwise_pow for a tensor y."""
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'pow')
        return _math.unary('pow', x, {'factor': float(y)}, name=name)
    if isinstance(y, Variable):
        return _elementwise_op('elementwise_pow', x, y, name, 'pow')
    raise TypeError('y must be scalar or tensor type, but received: %s ' % type(y))


# --- matrix product ------------------------------------------------------------------------------------------------

def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """paddle.matmul: the matmul_v2 op (numpy broadcasting of the batch dims)."""
    for arg, v in (('x', x), ('y', y)):
        check_variable_and_dtype(v, arg, _FLOATS, 'matmul')
    helper = LayerHelper('matmul_v2', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('matmul_v2', {'X': [x], 'Y': [y]}, {'Out': [out]},
                     {'trans_x': transpose_x, 'trans_y': transpose_y})
    return out


def mm(input, mat2, name=None):
    return matmul(input, mat2, name=name)


# --- reductions ----------------------------------------------------------------------------------------------------

def _axis_list(axis) -> list | None:
    if axis is None:
        return None
    if isinstance(axis, (list, tuple, range)):
        return [int(a) for a in axis]
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return [int(axis)]
    raise TypeError('The type of axis must be int, list or tuple, but received %s' % type(axis))


def _reduce_all(axis: list | None, x) -> bool:
    """2.x: reduce everything for no axis, or an axis list as long as x's rank."""
    return not axis or len(axis) == len(x.shape)


def mean(x, axis=None, keepdim=False, name=None):
    """paddle.mean: reduce_mean (2.x; axis None is dim [0] with reduce_all, shape [1])."""
    check_variable_and_dtype(x, 'x/input', ('float16', 'float32', 'float64'), 'mean/reduce_mean')
    axis = _axis_list(axis)
    return _math.reduce_op('reduce_mean', x, axis, keepdim, name, helper_name='mean',
                           reduce_all=_reduce_all(axis, x))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """paddle.sum: reduce_sum; `dtype` sets the op's in_dtype / out_dtype."""
    check_variable_and_dtype(x, 'x', ('bool', 'float16', 'float32', 'float64', 'int16', 'int32', 'int64'), 'sum')
    axis = _axis_list(axis)
    attrs = {'dim': axis if axis else [0], 'keep_dim': keepdim, 'reduce_all': _reduce_all(axis, x)}
    out_dtype = x.dtype
    if dtype is not None:
        out_dtype = to_var_type(dtype)
        attrs.update(in_dtype=int(x.dtype), out_dtype=int(out_dtype))
    helper = LayerHelper('sum', name=name)
    out = helper.create_variable_for_type_inference(out_dtype)
    helper.append_op('reduce_sum', {'X': [x]}, {'Out': [out]}, attrs)
    return out


def _max_min(op_type: str, api: str, x, axis, keepdim, name):
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), api)
    axis = _axis_list(axis)
    helper = LayerHelper(api, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]},
                     {'dim': axis or [], 'keep_dim': keepdim, 'reduce_all': not axis})
    return out


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    return _max_min('reduce_max', 'max', x, axis, keepdim, name)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    return _max_min('reduce_min', 'min', x, axis, keepdim, name)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """paddle.prod: reduce_prod, after a cast when `dtype` differs from x's."""
    if dtype is not None and to_var_type(dtype) != x.dtype:
        x = _casting.cast(x, dtype)
    check_variable_and_dtype(x, 'x/input', ('float32', 'float64', 'int32', 'int64'), 'reduce_prod')
    axis = _axis_list(axis)
    return _math.reduce_op('reduce_prod', x, axis, keepdim, name, reduce_all=_reduce_all(axis, x))


def add_n(inputs, name=None):
    """paddle.add_n: one `sum` op (helper `add_n`)."""
    inputs = [inputs] if isinstance(inputs, Variable) else list(inputs)
    for v in inputs:
        check_variable_and_dtype(v, 'inputs', ('float16', 'float32', 'float64', 'int32', 'int64'), 'add_n')
    helper = LayerHelper('add_n', name=name)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op('sum', {'X': inputs}, {'Out': [out]}, {'use_mkldnn': False})
    return out


# --- scale, clip, unary math -----------------------------------------------------------------------------------------

def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    return _math.scale(x, scale, bias, bias_after_scale, act, name)


def clip(x, min=None, max=None, name=None):  # noqa: A002 - Paddle's argument names
    """paddle.clip: bounds default to float32's (or int32 / int64's) extremes; tensor bounds become Min / Max."""
    x_dtype = convert_dtype(x.dtype)
    if x_dtype == 'int32':
        lo, hi = float(np.iinfo(np.int32).min), float(np.iinfo(np.int32).max - 2 ** 7)
    elif x_dtype == 'int64':
        lo, hi = float(np.iinfo(np.int64).min), float(np.iinfo(np.int64).max - 2 ** 39)
    else:
        lo, hi = float(np.finfo(np.float32).min), float(np.finfo(np.float32).max)
    for arg, v in (('min', min), ('max', max)):
        if v is not None and not isinstance(v, (float, int, Variable)):
            raise TypeError("The type of '%s' in clip must be (float, int, Variable), but received %s"
                            % (arg, type(v)))
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'clip')
    inputs, attrs = {'X': [x]}, {'min': lo, 'max': hi}
    for slot, attr, v in (('Min', 'min', min), ('Max', 'max', max)):
        if isinstance(v, Variable):
            v.stop_gradient = True
            inputs[slot] = [v]
        elif v is not None:
            attrs[attr] = float(v)
    helper = LayerHelper('clip', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('clip', inputs, {'Out': [out]}, attrs)
    return out


def _unary_api(op_type: str, dtypes=_FLOATS):
    def api(x, name=None):
        return activation(op_type, x, name=name, dtypes=dtypes)
    api.__name__ = api.__qualname__ = op_type
    api.__doc__ = 'paddle.%s(x, name=None): the `%s` op.' % (op_type, op_type)
    return api


exp = _unary_api('exp', _FLOATS + ('int32', 'int64'))
log = _unary_api('log')
sqrt = _unary_api('sqrt')
rsqrt = _unary_api('rsqrt')
abs = _unary_api('abs', _FLOATS + ('int32', 'int64', 'complex64', 'complex128'))  # noqa: A001 - Paddle's name
square = _unary_api('square', _FLOATS + ('int32', 'int64'))
tanh = _unary_api('tanh')
floor = _unary_api('floor')
ceil = _unary_api('ceil')
round = _unary_api('round')  # noqa: A001 - Paddle's name
sin = _unary_api('sin')
cos = _unary_api('cos')
reciprocal = _unary_api('reciprocal')
sign = _unary_api('sign')


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    return activation('stanh', x, {'scale_a': scale_a, 'scale_b': scale_b}, name)


def increment(x, value=1.0, name=None):
    """paddle.increment: x += value in place (x holds one element)."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), 'increment')
    helper = LayerHelper('increment', name=name)
    helper.append_op('increment', {'X': [x]}, {'Out': [x]}, {'step': float(value)})
    return x


# --- comparisons and logical ops ------------------------------------------------------------------------------------

def _compare(op_type: str, x, y, name=None):
    if not isinstance(y, Variable):
        if op_type not in ('equal', 'not_equal') or not isinstance(y, (int, float, bool)):
            raise TypeError("The type of 'y' in %s must be Variable, but received %s" % (op_type, type(y)))
        y = fill_constant([1], x.dtype, y)
    return _math.compare_op(op_type, x, y, name=name)


def less_than(x, y, name=None):
    return _compare('less_than', x, y, name)


def less_equal(x, y, name=None):
    return _compare('less_equal', x, y, name)


def greater_than(x, y, name=None):
    return _compare('greater_than', x, y, name)


def greater_equal(x, y, name=None):
    return _compare('greater_equal', x, y, name)


def equal(x, y, name=None):
    return _compare('equal', x, y, name)


def not_equal(x, y, name=None):
    return _compare('not_equal', x, y, name)


def logical_and(x, y, out=None, name=None):
    return _math.logical_op('logical_and', x, y, out, name)


def logical_or(x, y, out=None, name=None):
    return _math.logical_op('logical_or', x, y, out, name)


def logical_xor(x, y, out=None, name=None):
    return _math.logical_op('logical_xor', x, y, out, name)


def logical_not(x, out=None, name=None):
    return _math.logical_op('logical_not', x, None, out, name)



# --- cumsum, log1p, erf, logsumexp, dot, bmm, all / any, isfinite / isnan / isinf (Paddle 2.4's builders) -----------

def cumsum(x, axis=None, dtype=None, name=None):
    """paddle.cumsum: `cumsum` along `axis`, or of the flattened tensor (flatten=True) when axis is None; a `cast`
    first when `dtype` differs from x's."""
    if dtype is not None and to_var_type(dtype) != x.dtype:
        x = cast(x, dtype)
    helper = LayerHelper('cumsum', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'flatten': axis is None}
    if axis is not None:
        attrs['axis'] = axis
    helper.append_op('cumsum', {'X': [x]}, {'Out': [out]}, attrs)
    return out


def log1p(x, name=None):
    """paddle.log1p: the `log1p` op, log(1 + x)."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'log1p')
    helper = LayerHelper('log1p', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('log1p', {'X': [x]}, {'Out': [out]})
    return out


erf = _unary_api('erf')


def logsumexp(x, axis=None, keepdim=False, name=None):
    """paddle.logsumexp: the `logsumexp` op (attrs axis, keepdim, reduce_all; axis [0] with reduce_all when
    axis is None or names every dim)."""
    axis = [axis] if isinstance(axis, int) else axis
    reduce_all = axis is None or len(axis) == 0 or len(axis) == len(x.shape)
    if axis is None or len(axis) == 0:
        axis = [0]
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'logsumexp')
    helper = LayerHelper('logsumexp', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('logsumexp', {'X': [x]}, {'Out': [out]},
                     {'axis': list(axis), 'keepdim': keepdim, 'reduce_all': reduce_all})
    return out


def dot(x, y, name=None):
    """paddle.dot: the `dot` op ([N, 1] for 2-D inputs, [1] for 1-D in Paddle <= 2.4)."""
    return _math.dot(x, y, name)


def bmm(x, y, name=None):
    """paddle.bmm: fluid's `bmm` builder, plus 2.x's check that the batch sizes agree."""
    x_shape, y_shape = list(x.shape), list(y.shape)
    if len(x_shape) == len(y_shape) == 3 and x_shape[0] != y_shape[0]:
        raise ValueError("x's batch (shape[0]) must be equal with y's batch (shape[0]). But received x's shape: %s, "
                         "y's shape: %s" % (x_shape, y_shape))
    return _math.bmm(x, y, name=name)


def _bool_reduce(op_type: str, api: str, x, axis, keepdim, name):
    axis = [axis] if axis is not None and not isinstance(axis, (list, tuple)) else axis
    reduce_all = not axis or len(axis) == len(x.shape)
    check_variable_and_dtype(x, 'x', ('bool',), api)
    helper = LayerHelper(api, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]},
                     {'dim': list(axis) if axis else [0], 'keep_dim': keepdim, 'reduce_all': reduce_all})
    return out


def all(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """paddle.all: `reduce_all` of a bool tensor (helper `all`; dim [0] with reduce_all when axis is None)."""
    return _bool_reduce('reduce_all', 'all', x, axis, keepdim, name)


def any(x, axis=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """paddle.any: `reduce_any` of a bool tensor (helper `any`)."""
    return _bool_reduce('reduce_any', 'any', x, axis, keepdim, name)


def _classify(op_type: str, x, name):
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), op_type[:-3])
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(to_var_type('bool'))
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]})
    return out


def isfinite(x, name=None):
    """paddle.isfinite: `isfinite_v2`, elementwise bool."""
    return _classify('isfinite_v2', x, name)


def isnan(x, name=None):
    """paddle.isnan: `isnan_v2`, elementwise bool."""
    return _classify('isnan_v2', x, name)


def isinf(x, name=None):
    """paddle.isinf: `isinf_v2`, elementwise bool."""
    return _classify('isinf_v2', x, name)


__all__ += ['cumsum', 'log1p', 'erf', 'logsumexp', 'dot', 'bmm', 'all', 'any', 'isfinite', 'isnan', 'isinf']
