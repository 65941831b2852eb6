"""Matrix and comparison layers with Paddle 1.8's fluid.layers signatures: addcmul, addmm, allclose, cross, diag,
diag_embed, dist, elementwise_equal, kron, t, trace.

Each appends what 1.8.5 appends (checked side by side): trace's axes are the attributes dim1 / dim2 (2.x renamed
them axis1 / axis2; the op reads either), allclose's tolerances are float attributes (2.x writes strings), diag
is the `diag` op of a vector (2.x: diag_v2) and, like diag_embed, gives a stop_gradient output, addcmul is
elementwise_mul, scale and elementwise_add. The 2.x functions with the same meaning call these (tensor/matrix.py).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .creation import assign
from .helper import LayerHelper
from .math import elementwise_add, elementwise_mul, scale

_FLOATS = ('float32', 'float64')
_NUMBERS = ('float16', 'float32', 'float64', 'int32', 'int64')


def _one_out(op_type: str, inputs: dict, dtype, attrs=None, name=None, out=None, helper_name=None):
    helper = LayerHelper(helper_name or op_type, name=name)
    if out is None:
        out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op_type, {k: [v] if isinstance(v, Variable) else v for k, v in inputs.items()}, {'Out': [out]},
                     attrs or {})
    return out


def addcmul(input, tensor1, tensor2, value=1.0, out=None, name=None):  # noqa: A002 - Paddle's argument name
    """fluid.layers.addcmul: input + value * tensor1 * tensor2."""
    for arg, v in (('input', input), ('tensor1', tensor1), ('tensor2', tensor2)):
        check_variable_and_dtype(v, arg, ('float32', 'float64', 'int32', 'int64'), 'addcmul')
    kind = float if convert_dtype(input.dtype) in _FLOATS else int
    if not isinstance(value, kind):
        raise TypeError("The type of 'value' in addcmul must be %s, but received %s. " % (kind, type(value)))
    result = elementwise_add(input, scale(elementwise_mul(tensor1, tensor2), float(value)))
    return assign(result, out) if out is not None else result


def addmm(input, x, y, alpha=1.0, beta=1.0, name=None):  # noqa: A002 - Paddle's argument name
    """fluid.layers.addmm: beta * input + alpha * (x @ y) (`addmm`)."""
    for arg, v in (('Input', x), ('X', x), ('Y', y)):     # 1.8 checks x twice, not input
        check_variable_and_dtype(v, arg, _FLOATS, 'addmm')
    return _one_out('addmm', {'Input': input, 'X': x, 'Y': y}, x.dtype, {'Alpha': float(alpha), 'Beta': float(beta)},
                    name)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):  # noqa: A002
    """fluid.layers.allclose: one bool, whether |input - other| <= atol + rtol |other| everywhere."""
    for arg, v, kind in (('rtol', rtol, float), ('atol', atol, float), ('equal_nan', equal_nan, bool)):
        if not isinstance(v, kind):
            raise TypeError("The type of '%s' in allclose must be %s, but received %s. " % (arg, kind, type(v)))
    return _one_out('allclose', {'Input': input, 'Other': other}, VarType.BOOL,
                    {'rtol': float(rtol), 'atol': float(atol), 'equal_nan': equal_nan}, name)


def cross(input, other, dim=None):  # noqa: A002 - Paddle's argument name
    """fluid.layers.cross: the cross product along dim (the first axis of size 3 when dim is None)."""
    return _one_out('cross', {'X': input, 'Y': other}, input.dtype, {'dim': dim} if dim else {})


def diag(diagonal):
    """fluid.layers.diag: the square matrix with `diagonal` on its diagonal (`diag`; a numpy array is assigned
    first); the output stops gradients."""
    if not isinstance(diagonal, (Variable, np.ndarray)):
        raise TypeError("The type of 'diagonal' in diag must be (Variable, numpy.ndarray), but received %s. "
                        % type(diagonal))
    if convert_dtype(diagonal.dtype) not in ('float32', 'float64', 'int32', 'int64'):
        raise TypeError("The data type of 'diagonal' in diag must be ['float32', 'float64', 'int32', 'int64'], but "
                        "received %s. " % convert_dtype(diagonal.dtype))
    if not isinstance(diagonal, Variable):
        diagonal = assign(diagonal)
    helper = LayerHelper('diag')
    out = helper.create_variable_for_type_inference(diagonal.dtype)
    helper.append_op('diag', {'Diagonal': [diagonal]}, {'Out': [out]})
    out.stop_gradient = True
    return out


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's argument name
    """fluid.layers.diag_embed: the last axis on the diagonals of new dim1 / dim2 axes; stop_gradient output."""
    if not isinstance(input, Variable):
        input = assign(input)
    if convert_dtype(input.dtype) not in ('int32', 'int64', 'float16', 'float32', 'float64'):
        raise TypeError("The data type of 'Input' in diag_embed must be ['int32', 'int64', 'float16', 'float32', "
                        "'float64'], but received %s. " % convert_dtype(input.dtype))
    rank = len(input.shape)
    for k, d in (('Dim1', dim1), ('Dim2', dim2)):
        if abs(d) > rank:
            raise AssertionError('%s is out of range (expected to be in range of [%d, %d], but got %d).\n'
                                 % (k, -(rank + 1), rank, d))
    d1 = dim1 if dim1 >= 0 else rank + dim1 + 1
    d2 = dim2 if dim2 >= 0 else rank + dim2 + 1
    if d1 == d2:
        raise AssertionError('dim1 and dim2 cannot be the same dimension.But received dim1 = %d, dim2 = %d\n'
                             % (dim1, dim2))
    out = _one_out('diag_embed', {'Input': input}, input.dtype, {'offset': offset, 'dim1': dim1, 'dim2': dim2})
    out.stop_gradient = True
    return out


def dist(x, y, p=2):
    """fluid.layers.dist: the p-norm of x - y."""
    check_variable_and_dtype(x, 'dtype', _FLOATS, 'dist')
    check_variable_and_dtype(y, 'dtype', _FLOATS, 'dist')
    if not isinstance(p, (float, int)):
        raise TypeError("The type of 'p' in dist must be (float, int), but received %s. " % type(p))
    return _one_out('dist', {'X': x, 'Y': y}, x.dtype, {'p': float(p)})


def elementwise_equal(x, y, name=None):
    """fluid.layers.elementwise_equal: `equal` into a bool output named after the layer."""
    helper = LayerHelper('elementwise_equal', name=name)
    out = helper.create_variable_for_type_inference(VarType.BOOL)
    out.stop_gradient = True
    helper.append_op('equal', {'X': [x], 'Y': [y]}, {'Out': [out]}, {'force_cpu': False})
    return out


def kron(x, y, out=None, name=None):
    """fluid.layers.kron (and paddle.kron): the Kronecker product."""
    check_variable_and_dtype(x, 'x', _NUMBERS, 'kron')
    check_variable_and_dtype(y, 'y', _NUMBERS, 'kron')
    if out is not None:
        check_variable_and_dtype(out, 'out', _NUMBERS, 'kron')
    return _one_out('kron', {'X': x, 'Y': y}, x.dtype, name=name, out=out)


def t(input, name=None):  # noqa: A002 - Paddle's argument name
    """fluid.layers.t: the transpose of a tensor of at most 2 dims (transpose2, helper `t`); 1-D is returned."""
    if len(input.shape) > 2:
        raise ValueError("Input(input) only support N-D (N<=2) tensor, but received length of Input(input) is %s. "
                         "Perhaps you can use paddle.tensor.transpose() instead." % len(input.shape))
    check_variable_and_dtype(input, 'input', _NUMBERS, 'transpose')
    helper = LayerHelper('t', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    xshape = helper.create_variable_for_type_inference(input.dtype)
    if len(input.shape) == 1:
        return input
    helper.append_op('transpose2', {'X': [input]}, {'Out': [out], 'XShape': [xshape]}, {'axis': [1, 0]})
    return out


def trace(input, offset=0, dim1=0, dim2=1, out=None, name=None):  # noqa: A002 - Paddle's argument name
    """fluid.layers.trace: the sum of the (offset) diagonal over dim1 / dim2 (1.8's attribute names)."""
    if convert_dtype(input.dtype) not in ('int32', 'int64', 'float16', 'float32', 'float64'):
        raise TypeError("The data type of 'Input' in trace must be ['int32', 'int64', 'float16', 'float32', "
                        "'float64'], but received %s. " % convert_dtype(input.dtype))
    rank = len(input.shape)
    if rank < 2:
        raise AssertionError("The input must be at least 2-dimensional, But received Input's dimensional: %s.\n"
                             % rank)
    d1 = dim1 if dim1 >= 0 else rank + dim1
    d2 = dim2 if dim2 >= 0 else rank + dim2
    for name_, d, raw in (('dim1', d1, dim1), ('dim2', d2, dim2)):
        if d >= rank:
            raise AssertionError('The argument %s is out of range (expected to be in range of [%d, %d], but got '
                                 '%d).\n' % (name_, -rank, rank - 1, raw))
    if d1 == d2:
        raise AssertionError('dim1 and dim2 cannot be the same dimension.But received dim1 = %d, dim2 = %d\n'
                             % (dim1, dim2))
    return _one_out('trace', {'Input': input}, input.dtype, {'offset': offset, 'dim1': dim1, 'dim2': dim2}, name,
                    out=out)
