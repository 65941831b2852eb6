"""Math layers with Paddle 1.8's fluid.layers signatures: elementwise_*, matmul, mul, dot, bmm, the reduce_* family
(reduce_all / reduce_any included), scale, mean, sums / sum, cumsum, clip, the comparison and logical ops, sign,
increment, and the whole-tensor checks isfinite / has_nan / has_inf.

Each builder appends the ops Paddle 1.8.5 appends, with its attributes and names (checked side by side with
fluid 1.8.5): a helper named after the layer (`matmul_0`), temporaries `matmul_0.tmp_0`, or `<name>.tmp_0` when
the caller passes `name`. Two details 1.8 has: reduce_* set `reduce_all` only for dim=None / [] (a dim list
naming every dim keeps reduce_all False, the shape is the same), and the comparisons' outputs are stop_gradient.
`unary` is the shared one-input, one-output builder the activation layers and paddle.* functions use.
"""
from __future__ import annotations

import sys

from ..framework import unique_name
from ..framework.dtype import VarType
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .creation import assign
from .helper import LayerHelper, named_output

_FLOATS = ('float16', 'float32', 'float64')
_NUMBERS = ('float32', 'float64', 'int32', 'int64')


def unary(op_type, x, attrs=None, name=None, helper_name=None, out_dtype=None):
    """Appends `op_type(X=x) -> Out` and returns Out (helper for one-input, one-output layers)."""
    helper = LayerHelper(helper_name or op_type, name=name)
    out = helper.create_variable_for_type_inference(out_dtype or x.dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]}, attrs or {})
    return out


def mean(x, name=None):
    check_variable_and_dtype(x, 'x', _FLOATS, 'mean')
    return unary('mean', x, name=name)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    check_variable_and_dtype(x, 'x', _FLOATS + ('int8', 'int16', 'int32', 'int64', 'uint8'), 'scale')
    helper = LayerHelper('scale', name=name, act=act)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x]}
    attrs = {'bias': float(bias), 'bias_after_scale': bias_after_scale}
    if isinstance(scale, Variable):
        inputs['ScaleTensor'] = [scale]
    else:
        attrs['scale'] = float(scale)
    helper.append_op('scale', inputs, {'Out': [out]}, attrs)
    return helper.append_activation(out)


# --- elementwise -----------------------------------------------------------------------------------------------------

def _elementwise(op_type, x, y, axis=-1, act=None, name=None):
    check_variable_and_dtype(x, 'x', _FLOATS + ('int32', 'int64'), op_type)
    check_variable_and_dtype(y, 'y', _FLOATS + ('int32', 'int64'), op_type)
    helper = LayerHelper(op_type, name=name, act=act)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x], 'Y': [y]}, {'Out': [out]}, {'axis': axis, 'use_mkldnn': False})
    return helper.append_activation(out)


def elementwise_add(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_add', x, y, axis, act, name)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_sub', x, y, axis, act, name)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_mul', x, y, axis, act, name)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_div', x, y, axis, act, name)


def elementwise_max(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_max', x, y, axis, act, name)


def elementwise_min(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_min', x, y, axis, act, name)


def elementwise_pow(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_pow', x, y, axis, act, name)


def elementwise_floordiv(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_floordiv', x, y, axis, act, name)


def elementwise_mod(x, y, axis=-1, act=None, name=None):
    return _elementwise('elementwise_mod', x, y, axis, act, name)


# --- sums ---------------------------------------------------------------------------------------------------------

def sums(input, out=None):
    """fluid.layers.sums: one `sum` op over a list of tensors (into `out` when given)."""
    inputs = [input] if isinstance(input, Variable) else list(input)
    helper = LayerHelper('sum')
    if out is None:
        out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op('sum', {'X': inputs}, {'Out': [out]}, {'use_mkldnn': False})
    return out


def sum(x):  # noqa: A001 - fluid.layers.sum is Paddle's name
    """fluid.layers.sum: as `sums`, for one tensor or a list."""
    inputs = [x] if isinstance(x, Variable) else list(x)
    for v in inputs:
        check_variable_and_dtype(v, 'x', _NUMBERS, 'sum')
    return sums(inputs)


# --- matrix products ------------------------------------------------------------------------------------------------

def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    check_variable_and_dtype(x, 'x', _FLOATS, 'mul')
    check_variable_and_dtype(y, 'y', _FLOATS, 'mul')
    helper = LayerHelper('mul', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('mul', {'X': [x], 'Y': [y]}, {'Out': [out]},
                     {'x_num_col_dims': x_num_col_dims, 'y_num_col_dims': y_num_col_dims})
    return out


def _check_matmul_shapes(x, y, transpose_x: bool, transpose_y: bool) -> None:
    """fluid 1.8's matmul checks: the inner dims agree after the transposes, batch dims agree (unknown dims pass)."""
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) == 1:
        xs = [1] + xs
    if len(ys) == 1:
        ys = ys + [1]
    if transpose_x:
        xs[-2], xs[-1] = xs[-1], xs[-2]
    if transpose_y:
        ys[-2], ys[-1] = ys[-1], ys[-2]
    if xs[-1] != ys[-2] and xs[-1] != -1 and ys[-2] != -1:
        raise ValueError("After performing an optional transpose, Input X's width should be equal to Y's width for "
                         "multiplication prerequisites. But received X's shape: %s, Y's shape: %s" % (xs, ys))
    if len(xs) > 2 and len(ys) > 2:
        for i, dim_x in enumerate(xs[:-2]):
            if dim_x < 0 or ys[i] < 0:
                continue
            if dim_x != ys[i]:
                raise ValueError("When the matrix is larger than 2 dimensions, the higher dimensional values of the "
                                 "two matrices need to be equal. But received x_shape[%d] != y_shape[%d]. X's "
                                 "shape: %s, Y's shape: %s." % (i, i, xs, ys))


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """fluid.layers.matmul: the `matmul` op (1.x); paddle.matmul (2.x) is `matmul_v2`."""
    for arg, v in (('x', x), ('y', y)):
        check_variable_and_dtype(v, arg, _FLOATS, 'matmul')
    _check_matmul_shapes(x, y, transpose_x, transpose_y)
    helper = LayerHelper('matmul', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('matmul', {'X': [x], 'Y': [y]}, {'Out': [out]},
                     {'transpose_X': transpose_x, 'transpose_Y': transpose_y, 'alpha': float(alpha)})
    return out


# --- reductions -----------------------------------------------------------------------------------------------------

def reduce_op(op_type: str, input, dim, keep_dim: bool, name=None, helper_name=None, reduce_all=None):
    """Appends `op_type` with Paddle 1.8's attributes: dim [0] and reduce_all=True when dim is None or []."""
    if dim is not None and not isinstance(dim, list):
        dim = list(dim) if isinstance(dim, tuple) else [dim]
    if reduce_all is None:
        reduce_all = dim is None or dim == []
    helper = LayerHelper(helper_name or op_type, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, {'X': [input]}, {'Out': [out]},
                     {'dim': dim if dim else [0], 'keep_dim': keep_dim, 'reduce_all': reduce_all})
    return out


def reduce_sum(input, dim=None, keep_dim=False, name=None):
    check_variable_and_dtype(input, 'input', _NUMBERS, 'reduce_sum')
    return reduce_op('reduce_sum', input, dim, keep_dim, name)


def reduce_mean(input, dim=None, keep_dim=False, name=None):
    check_variable_and_dtype(input, 'input', _NUMBERS, 'reduce_mean')
    return reduce_op('reduce_mean', input, dim, keep_dim, name)


def reduce_max(input, dim=None, keep_dim=False, name=None):
    return reduce_op('reduce_max', input, dim, keep_dim, name)


def reduce_min(input, dim=None, keep_dim=False, name=None):
    return reduce_op('reduce_min', input, dim, keep_dim, name)


def reduce_prod(input, dim=None, keep_dim=False, name=None):
    return reduce_op('reduce_prod', input, dim, keep_dim, name)


# --- clip -----------------------------------------------------------------------------------------------------------

def clip(x, min, max, name=None):  # noqa: A002 - Paddle's argument names
    """fluid.layers.clip: the output is named `name` itself when given (not `name.tmp_0`), as in 1.8."""
    check_variable_and_dtype(x, 'x', _FLOATS, 'clip')
    helper = LayerHelper('clip', name=name)
    if name is None:
        name = unique_name.generate_with_ignorable_key(helper.name + '.tmp')
    out = helper.create_variable(type=x.type, name=name, dtype=x.dtype, persistable=False)
    helper.append_op('clip', {'X': [x]}, {'Out': [out]}, {'min': float(min), 'max': float(max)})
    return out


def clamp(input, min=None, max=None, output=None, name=None):  # noqa: A002 - Paddle's argument names
    """fluid 1.8's clamp: a `clip`; an unset bound is sys.float_info.min / max as in 1.8 (so an unset min is the
    smallest positive double, 0 once stored as a float32 attribute); tensor bounds become Min / Max."""
    if min is None and max is None:
        raise AssertionError('either min or max should be defined.')
    inputs = {'X': [input]}
    attrs = {'min': sys.float_info.min, 'max': sys.float_info.max}
    for slot, attr, v in (('Min', 'min', min), ('Max', 'max', max)):
        if isinstance(v, Variable):
            v.stop_gradient = True
            inputs[slot] = [v]
        elif v is not None:
            if not isinstance(v, float):
                raise TypeError("The type of '%s' in clamp must be (float, Variable), but received %s"
                                % (attr, type(v)))
            attrs[attr] = v
    helper = LayerHelper('clamp', name=name)
    if output is None:
        output = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('clip', inputs, {'Out': [output]}, attrs)
    return output


# --- comparisons and logical ops ------------------------------------------------------------------------------------

def compare_op(op_type: str, x, y, cond=None, attrs=None, name=None):
    """Appends a comparison writing a bool tensor (stop_gradient) or `cond`."""
    check_variable_and_dtype(x, 'x', _NUMBERS + ('bool', 'float16'), op_type)
    check_variable_and_dtype(y, 'y', _NUMBERS + ('bool', 'float16'), op_type)
    if cond is not None and not isinstance(cond, Variable):
        raise TypeError("The type of 'cond' in %s must be Variable, but received %s" % (op_type, type(cond)))
    helper = LayerHelper(op_type, name=name)
    if cond is None:
        cond = helper.create_variable_for_type_inference(VarType.BOOL)
        cond.stop_gradient = True
    helper.append_op(op_type, {'X': [x], 'Y': [y]}, {'Out': [cond]}, attrs or {})
    return cond


def less_than(x, y, force_cpu=None, cond=None):
    if force_cpu is not None and not isinstance(force_cpu, bool):
        raise TypeError("The type of 'force_cpu' in less_than must be bool, but received %s" % type(force_cpu))
    return compare_op('less_than', x, y, cond, {} if force_cpu is None else {'force_cpu': force_cpu})


def less_equal(x, y, cond=None):
    return compare_op('less_equal', x, y, cond)


def greater_than(x, y, cond=None):
    return compare_op('greater_than', x, y, cond)


def greater_equal(x, y, cond=None):
    return compare_op('greater_equal', x, y, cond)


def equal(x, y, cond=None):
    return compare_op('equal', x, y, cond)


def not_equal(x, y, cond=None):
    return compare_op('not_equal', x, y, cond)


def logical_op(op_type: str, x, y=None, out=None, name=None):
    check_variable_and_dtype(x, 'x', ('bool',), op_type)
    if y is not None:
        check_variable_and_dtype(y, 'y', ('bool',), op_type)
    helper = LayerHelper(op_type, name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {'X': [x]} if y is None else {'X': [x], 'Y': [y]}
    helper.append_op(op_type, inputs, {'Out': [out]})
    return out


def logical_and(x, y, out=None, name=None):
    return logical_op('logical_and', x, y, out, name)


def logical_or(x, y, out=None, name=None):
    return logical_op('logical_or', x, y, out, name)


def logical_xor(x, y, out=None, name=None):
    return logical_op('logical_xor', x, y, out, name)


def logical_not(x, out=None, name=None):
    return logical_op('logical_not', x, None, out, name)


# --- sign, increment ------------------------------------------------------------------------------------------------

def sign(x):
    """fluid.layers.sign (a numpy array is first turned into a variable with `assign`)."""
    if not isinstance(x, Variable):
        x = assign(x)
    check_variable_and_dtype(x, 'x', _FLOATS, 'sign')
    return unary('sign', x)


def increment(x, value=1.0, in_place=True):
    """fluid.layers.increment: x + value for a one-element tensor, written back into x when in_place."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'increment')
    helper = LayerHelper('increment')
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('increment', {'X': [x]}, {'Out': [out]}, {'step': float(value)})
    return out


# --- cumsum, dot, bmm, all / any, isfinite / has_nan / has_inf --------------------------------------------------------

def cumsum(x, axis=None, exclusive=None, reverse=None) -> Variable:
    """fluid.layers.cumsum: `cumsum` along `axis` (-1 when None)."""
    helper = LayerHelper('cumsum')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('cumsum', {'X': [x]}, {'Out': [out]},
                     {'axis': -1 if axis is None else axis, 'exclusive': bool(exclusive), 'reverse': bool(reverse)})
    return out


def dot(x, y, name=None) -> Variable:
    """fluid.layers.dot: `dot`, the sum of x * y over the last axis, kept as 1 ([N, 1] or [1])."""
    for arg, v in (('x', x), ('y', y)):
        check_variable_and_dtype(v, arg, ['float32', 'float64', 'int32', 'int64'], 'dot')
    helper = LayerHelper('dot', name=name)
    out = named_output(helper, x.dtype, name)
    helper.append_op('dot', {'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def bmm(x, y, name=None) -> Variable:
    """fluid.layers.bmm: `bmm` of [B, M, K] and [B, K, N]."""
    x_shape, y_shape = list(x.shape), list(y.shape)
    if not len(x_shape) == len(y_shape) == 3:
        raise ValueError("x and y should be 3-dimensional. But received x's dimention: %s, y's dimention: %s"
                         % (x_shape, y_shape))
    if x_shape[2] != y_shape[1]:
        raise ValueError("x's width must be equal with y's height. But received x's shape: %s, y's shape: %s"
                         % (x_shape, y_shape))
    helper = LayerHelper('bmm', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('bmm', {'X': [x], 'Y': [y]}, {'Out': [out]})
    return out


def reduce_all(input, dim=None, keep_dim=False, name=None) -> Variable:
    """fluid.layers.reduce_all: `reduce_all` (dim [0] and reduce_all=True when dim is None or [])."""
    return reduce_op('reduce_all', input, dim, keep_dim, name)


def reduce_any(input, dim=None, keep_dim=False, name=None) -> Variable:
    """fluid.layers.reduce_any: `reduce_any`, attributes as reduce_all."""
    return reduce_op('reduce_any', input, dim, keep_dim, name)


def isfinite(x) -> Variable:
    """fluid.layers.isfinite: a bool [1], whether every element of x is finite (`isfinite`)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], 'isfinite')
    helper = LayerHelper('isfinite')
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op('isfinite', {'X': [x]}, {'Out': [out]})
    return out


def _overflow(op_type: str, x) -> Variable:
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x]}, {'Out': [out]})
    return out


def has_nan(x) -> Variable:
    """fluid.layers.has_nan: a bool [1], whether x holds a nan (`isnan`)."""
    return _overflow('isnan', x)


def has_inf(x) -> Variable:
    """fluid.layers.has_inf: a bool [1], whether x holds an inf (`isinf`)."""
    return _overflow('isinf', x)
