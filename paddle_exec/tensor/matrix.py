"""Matrix functions of the paddle namespace (2.x): kron, cross, dist, trace, diagonal, diag, diag_embed, diagflat,
mv, addmm, inner, outer, tensordot, cdist, t, multi_dot.

One op each where 2.6.2 appends one (kron, cross, dist, trace, diagonal, diag_v2, diag_embed, mv, addmm,
multi_dot), the compositions 2.6.2 builds otherwise: diagflat is flatten + diag_v2, inner / outer / tensordot
are reshapes and transposes around one matmul_v2, cdist is unsqueeze + subtract + p_norm over the last axis,
t is a transpose2 (helper `t`).
"""
from __future__ import annotations

from ..framework.variable import Variable
from ..layers import linalg as _linalg
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from ._append import append_op
from .manipulation import reshape, transpose, unsqueeze
from .math import matmul

__all__ = ['kron', 'cross', 'dist', 'trace', 'diagonal', 'diag', 'diag_embed', 'diagflat', 'mv', 'addmm', 'inner',
           'outer', 'tensordot', 'cdist', 't', 'multi_dot']

_FLOATS = ('float16', 'float32', 'float64')
_NUMBERS = _FLOATS + ('int32', 'int64')


def kron(x, y, name=None):
    """paddle.kron: the Kronecker product (fluid's builder, the same `kron` op)."""
    return _linalg.kron(x, y, name=name)


def cross(x, y, axis=9, name=None):
    """paddle.cross: the cross product along `axis` (9: the first axis of size 3)."""
    return append_op('cross', {'X': x, 'Y': y}, {'Out': x.dtype}, {'dim': axis}, name=name)


def dist(x, y, p=2, name=None):
    """paddle.dist: the p-norm of x - y (broadcast), one value."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64'), 'dist')
    check_variable_and_dtype(y, 'y', ('float16', 'float32', 'float64'), 'dist')
    return append_op('dist', {'X': x, 'Y': y}, {'Out': x.dtype}, {'p': float(p)}, name=name)


def _check_axes(x, offset, axis1, axis2, api: str):
    rank = len(x.shape)
    if rank < 2:
        raise ValueError("The x must be at least 2-dimensional, But received Input x's dimensional: %s.\n" % rank)
    a1 = axis1 + rank if axis1 < 0 else axis1
    a2 = axis2 + rank if axis2 < 0 else axis2
    if not (0 <= a1 < rank and 0 <= a2 < rank):
        raise ValueError("The argument axis1 and axis2 are out of range (expected to be in range of [%d, %d]), but "
                         "received axis1 = %d, axis2 = %d\n" % (-rank, rank - 1, axis1, axis2))
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same axis.But received axis1 = %d, axis2 = %d\n"
                         % (axis1, axis2))


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """paddle.trace: the sum of the (offset) diagonal over axis1 / axis2."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'trace')
    _check_axes(x, offset, axis1, axis2, 'trace')
    return append_op('trace', {'Input': x}, {'Out': x.dtype}, {'offset': offset, 'axis1': axis1, 'axis2': axis2},
                     name=name)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """paddle.diagonal: the (offset) diagonal over axis1 / axis2, as the last axis."""
    check_variable_and_dtype(x, 'x', ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'), 'diagonal')
    _check_axes(x, offset, axis1, axis2, 'diagonal')
    return append_op('diagonal', {'Input': x}, {'Out': x.dtype}, {'offset': offset, 'axis1': axis1, 'axis2': axis2},
                     name=name)


def diag(x, offset=0, padding_value=0, name=None):
    """paddle.diag: a vector's diagonal matrix (padding_value elsewhere) or a matrix's diagonal (`diag_v2`)."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'diag_v2')
    if len(x.shape) not in (1, 2):
        raise ValueError("The dimension of input x must be either 1 or 2, but received %d" % len(x.shape))
    return append_op('diag_v2', {'X': x}, {'Out': x.dtype}, {'offset': offset, 'padding_value': float(padding_value)},
                     name=name)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's argument name
    """paddle.diag_embed: the last axis placed on the diagonals of new dim1 / dim2 axes."""
    check_variable_and_dtype(input, 'input', ('int32', 'int64', 'float16', 'float32', 'float64'), 'diag_embed')
    return append_op('diag_embed', {'Input': input}, {'Out': input.dtype},
                     {'offset': offset, 'dim1': dim1, 'dim2': dim2})


def diagflat(x, offset=0, name=None):
    """paddle.diagflat: the flattened x on a diagonal (flatten_contiguous_range + diag_v2, helper `diagflat`)."""
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64', 'int32', 'int64'), 'diagflat')
    helper = LayerHelper('diagflat', name=name)
    flat = x
    if len(x.shape) != 1:
        flat = helper.create_variable_for_type_inference(x.dtype)
        xshape = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op('flatten_contiguous_range', {'X': [x]}, {'Out': [flat], 'XShape': [xshape]},
                         {'start_axis': 0, 'stop_axis': -1})
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('diag_v2', {'X': [flat]}, {'Out': [out]}, {'offset': offset, 'padding_value': 0.0})
    return out


def mv(x, vec, name=None):
    """paddle.mv: a matrix times a vector (`mv`)."""
    check_variable_and_dtype(x, 'x', _FLOATS, 'mv')
    check_variable_and_dtype(vec, 'vec', _FLOATS, 'mv')
    if len(x.shape) != 2 or len(vec.shape) != 1:
        raise ValueError("x should be 2-D and vec 1-D, but received x's shape: %s, vec's shape: %s"
                         % (list(x.shape), list(vec.shape)))
    return append_op('mv', {'X': x, 'Vec': vec}, {'Out': x.dtype}, name=name)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002 - Paddle's argument name
    """paddle.addmm: beta * input + alpha * (x @ y) (`addmm`); input broadcasts to the product's shape."""
    ins, xs, ys = list(input.shape), list(x.shape), list(y.shape)
    if len(xs) != 2 or len(ys) != 2:
        raise ValueError("The dimention of x, y should be 2 but receive x's shape: %s, y's shape: %s" % (xs, ys))
    if xs[1] != ys[0]:
        raise ValueError("The input Variable x's width must be equal with Variable y' height. But received x's "
                         "shape = %s, y's shape = %s." % (xs, ys))
    if len(ins) == 2:
        if ins[0] != xs[0] and ins[0] != 1:
            raise ValueError("When x's dimension[0] is not equal with input's dimension[0], input's dimension[0] "
                             "must be 1 but got %s" % ins[0])
        if ins[1] != ys[1] and ins[1] != 1:
            raise ValueError("When y's dimension[1] is not equal with input's dimension[1], input's dimension[1] "
                             "must be 1 but got %s" % ins[1])
    for arg, v in (('Input', input), ('X', x), ('Y', y)):
        check_variable_and_dtype(v, arg, ('float32', 'float64'), 'addmm')
    return append_op('addmm', {'Input': input, 'X': x, 'Y': y}, {'Out': x.dtype},
                     {'Alpha': float(alpha), 'Beta': float(beta)}, name=name)


def inner(x, y, name=None):
    """paddle.inner: sums over the last axes, x.reshape(-1, k) @ y.reshape(-1, k)^T reshaped (as 2.6.2)."""
    if len(x.shape) == 0 or len(y.shape) == 0:
        return x * y
    xs, ys = list(x.shape), list(y.shape)
    if xs[-1] != ys[-1]:
        raise ValueError("After performing an optional transpose, Input X's last dim should be equal to Y's last "
                         "dim for multiplication prerequisites. But received X's shape: %s, Y's shape: %s"
                         % (xs, ys))
    nx = reshape(x, [-1, xs[-1]])
    ny = reshape(y, [-1, ys[-1]])
    out = matmul(nx, transpose(ny, [1, 0]), name=None)
    return reshape(out, xs[:-1] + ys[:-1]) if xs[:-1] + ys[:-1] else reshape(out, [1])


def outer(x, y, name=None):
    """paddle.outer: x.reshape(-1, 1) @ y.reshape(1, -1)."""
    return matmul(reshape(x, [-1, 1]), reshape(y, [1, -1]), name=name)


def tensordot(x, y, axes=2, name=None):
    """paddle.tensordot: contraction over `axes` (an int: the last / first `axes` dims; or two lists), one
    matmul_v2 between transposed and reshaped operands."""
    xs, ys = list(x.shape), list(y.shape)
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError("The 'axes' with type int should be non-negative, but received axes = %d." % axes)
        ax = list(range(len(xs) - axes, len(xs)))
        ay = list(range(axes))
    elif isinstance(axes, Variable):
        raise TypeError("tensordot: a Tensor 'axes' is not supported in a static graph; pass ints or lists")
    else:
        axes = list(axes)
        if not axes or isinstance(axes[0], int):      # one list: the same axes of x and y
            ax, ay = list(axes), list(axes)
        else:
            ax = list(axes[0])
            ay = list(axes[1]) if len(axes) > 1 else list(ax)
        # the shorter list is completed from the longer one, as 2.6.2 does
        if len(ay) < len(ax):
            ay = ay + ax[len(ay):]
        elif len(ax) < len(ay):
            ax = ax + ay[len(ax):]
    ax = [a + len(xs) if a < 0 else a for a in ax]
    ay = [a + len(ys) if a < 0 else a for a in ay]
    for a, b in zip(ax, ay):
        if xs[a] != ys[b] and xs[a] >= 0 and ys[b] >= 0:
            raise ValueError("The dimensions of axes of x and y must be equal, got x dim %d = %d, y dim %d = %d"
                             % (a, xs[a], b, ys[b]))
    free_x = [i for i in range(len(xs)) if i not in ax]
    free_y = [i for i in range(len(ys)) if i not in ay]
    k = 1
    for a in ax:
        k *= xs[a]
    px = transpose(x, free_x + ax)
    py = transpose(y, ay + free_y)
    mx = reshape(px, [-1 if not free_x else _prod([xs[i] for i in free_x]), k])
    my = reshape(py, [k, -1 if not free_y else _prod([ys[i] for i in free_y])])
    out = matmul(mx, my)
    shape = [xs[i] for i in free_x] + [ys[i] for i in free_y]
    return reshape(out, shape or [1], name=name)


def _prod(dims) -> int:
    out = 1
    for d in dims:
        if d < 0:
            return -1
        out *= d
    return out


def cdist(x, y, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary', name=None):
    """paddle.cdist: the p-norm distance between each pair of rows (x: [..., P, M], y: [..., R, M])."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64'), 'cdist')
    check_variable_and_dtype(y, 'y', ('float32', 'float64'), 'cdist')
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) < 2 or len(ys) < 2 or xs[-1] != ys[-1]:
        raise ValueError("The x and y must be at least 2-D with the same last dim, but received x's shape %s, y's "
                         "shape %s" % (xs, ys))
    diff = unsqueeze(x, [-2]) - unsqueeze(y, [-3])
    return append_op('p_norm', {'X': diff}, {'Out': x.dtype},
                     {'porder': float(p), 'axis': -1, 'epsilon': 1e-12, 'keepdim': False, 'asvector': False},
                     name=name)


def t(input, name=None):  # noqa: A002 - Paddle's argument name
    """paddle.t: the transpose of a tensor of at most 2 dims (transpose2, helper `t`)."""
    if len(input.shape) > 2:
        raise ValueError("Input(input) only support N-D (N<=2) tensor, but received length of Input(input) is %s. "
                         "Perhaps you can use paddle.tensor.transpose() instead." % len(input.shape))
    if len(input.shape) < 2:
        return input
    helper = LayerHelper('t', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    xshape = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('transpose2', {'X': [input]}, {'Out': [out], 'XShape': [xshape]}, {'axis': [1, 0]})
    return out


def multi_dot(x, name=None):
    """paddle.linalg.multi_dot: the product of a chain of matrices (the first / last may be vectors)."""
    if not isinstance(x, (list, tuple)):
        raise TypeError("The type of 'x' in multi_dot must be (list, tuple), but received %s" % type(x))
    for i, item in enumerate(x):
        check_variable_and_dtype(item, 'x[%d]' % i, _FLOATS, 'multi_dot')
        if item.dtype != x[0].dtype:
            raise TypeError('All the Tensors in the input must have the same data type.')
    return append_op('multi_dot', {'X': list(x)}, {'Out': x[0].dtype}, name=name)

