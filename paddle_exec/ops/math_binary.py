"""Two-input math ops of Paddle 2.x (and the fluid 1.8 ones among them): atan2, elementwise_fmax / fmin (nan
ignored), elementwise_heaviside, nextafter, bitwise_and / or / xor / not, lerp, isclose / allclose, equal_all,
kron, cross and dist.

All broadcast numpy-style (Paddle's axis -1). Numerics are numpy's ufuncs (they release the GIL and vectorize);
none of these carries a training step's time. Gradients, as Paddle's grad kernels define them (each summed back
to its operand's shape over broadcast dims):
    atan2(X1, X2)        dX1 = dout * x2 / (x1^2 + x2^2), dX2 = -dout * x1 / (x1^2 + x2^2)
    fmax / fmin          dout to X where x wins (x >= y for fmax, x <= y for fmin, or y is nan), else to Y
    heaviside            dX = 0, dY = dout where x == 0
    lerp(X, Y, Weight)   out = x + w (y - x): dX = dout (1 - w), dY = dout w, dWeight = dout (y - x)
    kron                 the sums of dout's blocks weighted by the other operand
    cross(dim)           dX = Y x dout, dY = dout x X
    dist(p)              d ||x - y||_p: sign(d) |d|^(p-1) / ||d||^(p-1) (p = inf / -inf: to the extreme elements,
                         p = 0: none)
bitwise ops, nextafter, isclose, allclose and equal_all have no gradient.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import sum_to_shape
from .math import elementwise_out_shape

__all__ = ['kron_value', 'cross_axis']


def _broadcast_shape(ctx, a: str, b: str) -> tuple:
    return elementwise_out_shape(ctx.in_shape(a), ctx.in_shape(b), -1, ctx.op.type)


# --- atan2 ---------------------------------------------------------------------------------------------------------

defop('atan2', ['X1', 'X2'], ['Out'], grad=GradSpec(('X1', 'X2', 'Out@GRAD'), ('X1@GRAD', 'X2@GRAD')))


@shape_rule('atan2')
def _atan2_shape(ctx):
    xs, ys = ctx.in_shape('X1'), ctx.in_shape('X2')
    if len(xs) != len(ys):
        raise ValueError('(InvalidArgument) The rank (%d) of X shall be same as rank (%d) of Y.' % (len(xs), len(ys)))
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a > b >= 0:
            raise ValueError('(InvalidArgument) The count (%d) of elements of X shall not greater than count (%d) of '
                             'elements of Y.' % (a, b))
    dtype = ctx.in_dtype('X1')
    # Paddle's integer atan2 computes in double
    ctx.set_output('Out', _broadcast_shape(ctx, 'X1', 'X2'),
                   VarType.FP64 if dtype in (VarType.INT32, VarType.INT64) else dtype)


@kernel_rule('atan2')
def _atan2_kernel(spec):
    def run(x1, x2):
        out = np.arctan2(x1, x2)
        return (out if x1.dtype.kind in 'iu' else out.astype(x1.dtype, copy=False),)
    return run


@kernel_rule('atan2_grad')
def _atan2_grad_kernel(spec):
    want1, want2 = spec.has_output('X1@GRAD'), spec.has_output('X2@GRAD')

    def run(x1, x2, dout):
        denom = x1 * x1 + x2 * x2
        d1 = sum_to_shape(dout * x2 / denom, x1.shape).astype(x1.dtype) if want1 else None
        d2 = sum_to_shape(-dout * x1 / denom, x2.shape).astype(x2.dtype) if want2 else None
        return d1, d2
    return run


# --- elementwise_fmax / fmin / heaviside ----------------------------------------------------------------------------

_FMINMAX = {'elementwise_fmax': np.fmax, 'elementwise_fmin': np.fmin}
for _t in list(_FMINMAX) + ['elementwise_heaviside']:
    defop(_t, ['X', 'Y'], ['Out'], {'axis': -1}, grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def _same_dtype_broadcast(ctx):
    ctx.set_output('Out', _broadcast_shape(ctx, 'X', 'Y'), ctx.in_dtype('X'))


for _t in list(_FMINMAX) + ['elementwise_heaviside']:
    shape_rule(_t)(_same_dtype_broadcast)


@kernel_rule(*_FMINMAX)
def _fminmax_kernel(spec):
    fn = _FMINMAX[spec.type]
    return lambda x, y: (fn(x, y),)


@kernel_rule(*(t + '_grad' for t in _FMINMAX))
def _fminmax_grad_kernel(spec):
    is_max = spec.type == 'elementwise_fmax_grad'
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        x_wins = ((x >= y) if is_max else (x <= y)) | np.isnan(y)
        dx = sum_to_shape(np.where(x_wins, dout, 0), x.shape).astype(x.dtype) if want_x else None
        dy = sum_to_shape(np.where(x_wins, 0, dout), y.shape).astype(y.dtype) if want_y else None
        return dx, dy
    return run


@kernel_rule('elementwise_heaviside')
def _heaviside_kernel(spec):
    return lambda x, y: (np.heaviside(x, y).astype(np.result_type(x, y), copy=False),)


@kernel_rule('elementwise_heaviside_grad')
def _heaviside_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        dx = np.zeros(x.shape, x.dtype) if want_x else None
        dy = sum_to_shape(np.where(x == 0, dout, 0), y.shape).astype(y.dtype) if want_y else None
        return dx, dy
    return run


# --- nextafter (2.x's lowercase slots), bitwise ops ----------------------------------------------------------------

defop('nextafter', ['x', 'y'], ['out'])


@shape_rule('nextafter')
def _nextafter_shape(ctx):
    ctx.set_output('out', elementwise_out_shape(ctx.in_shape('x'), ctx.in_shape('y'), -1, 'nextafter'),
                   ctx.in_dtype('x'))


@kernel_rule('nextafter')
def _nextafter_kernel(spec):
    return lambda x, y: (np.nextafter(x, y.astype(x.dtype, copy=False)),)


_BITWISE = {'bitwise_and': np.bitwise_and, 'bitwise_or': np.bitwise_or, 'bitwise_xor': np.bitwise_xor}
for _t in _BITWISE:
    defop(_t, ['X', 'Y'], ['Out'])
    shape_rule(_t)(_same_dtype_broadcast)
defop('bitwise_not', ['X'], ['Out'])


@shape_rule('bitwise_not')
def _bitwise_not_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule(*_BITWISE)
def _bitwise_kernel(spec):
    fn = _BITWISE[spec.type]
    return lambda x, y: (fn(x, y),)


@kernel_rule('bitwise_not')
def _bitwise_not_kernel(spec):
    return lambda x: (np.invert(x),)


# --- lerp ------------------------------------------------------------------------------------------------------------

defop('lerp', ['X', 'Y', 'Weight'], ['Out'],
      grad=GradSpec(('X', 'Y', 'Weight', 'Out', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('lerp')
def _lerp_shape(ctx):
    xy = _broadcast_shape(ctx, 'X', 'Y')
    ctx.set_output('Out', elementwise_out_shape(xy, ctx.in_shape('Weight'), -1, 'lerp'), ctx.in_dtype('X'))


@kernel_rule('lerp')
def _lerp_kernel(spec):
    def run(x, y, w):
        return ((x + w * (y - x)).astype(x.dtype, copy=False),)
    return run


@kernel_rule('lerp_grad')
def _lerp_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, w, out, dout):
        dx = sum_to_shape(dout * (1 - w), x.shape).astype(x.dtype) if want_x else None
        dy = sum_to_shape(dout * w, y.shape).astype(y.dtype) if want_y else None
        return dx, dy
    return run


# --- isclose / allclose (1.8: float attributes; 2.x: the same as strings, or Rtol / Atol tensors), equal_all --------

_CLOSE_ATTRS = {'rtol': '1e-05', 'atol': '1e-08', 'equal_nan': False}
for _t in ('isclose', 'allclose'):
    defop(_t, ['Input', 'Other', 'Rtol', 'Atol'], ['Out'], _CLOSE_ATTRS, dispensable=['Rtol', 'Atol'])


@shape_rule('isclose')
def _isclose_shape(ctx):
    ctx.set_output('Out', elementwise_out_shape(ctx.in_shape('Input'), ctx.in_shape('Other'), -1, 'isclose'),
                   VarType.BOOL)


@shape_rule('allclose')
def _allclose_shape(ctx):
    ctx.set_output('Out', (1,), VarType.BOOL)


def _tolerance(attr, tensor) -> float:
    return float(np.asarray(tensor).reshape(-1)[0]) if tensor is not None else float(attr)


@kernel_rule('isclose', 'allclose')
def _close_kernel(spec):
    rtol, atol, equal_nan = spec.attr('rtol'), spec.attr('atol'), bool(spec.attr('equal_nan'))
    whole = spec.type == 'allclose'

    def run(x, y, rtol_tensor, atol_tensor):
        # Paddle's formula: |x - y| <= atol + rtol * |y|, computed in double
        close = np.isclose(x.astype(np.complex128 if x.dtype.kind == 'c' else np.float64),
                           y.astype(np.complex128 if y.dtype.kind == 'c' else np.float64),
                           rtol=_tolerance(rtol, rtol_tensor), atol=_tolerance(atol, atol_tensor),
                           equal_nan=equal_nan)
        return (np.array([close.all()]) if whole else close,)
    return run


defop('equal_all', ['X', 'Y'], ['Out'])


@shape_rule('equal_all')
def _equal_all_shape(ctx):
    ctx.set_output('Out', (1,), VarType.BOOL)


@kernel_rule('equal_all')
def _equal_all_kernel(spec):
    return lambda x, y: (np.array([x.shape == y.shape and bool(np.all(x == y))]),)


# --- kron -----------------------------------------------------------------------------------------------------------

defop('kron', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('kron')
def _kron_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    n = max(len(xs), len(ys))
    xs, ys = (1,) * (n - len(xs)) + tuple(xs), (1,) * (n - len(ys)) + tuple(ys)
    ctx.set_output('Out', tuple(-1 if a < 0 or b < 0 else a * b for a, b in zip(xs, ys)), ctx.in_dtype('X'))


def kron_value(x, y):
    return np.kron(x, y)


@kernel_rule('kron')
def _kron_kernel(spec):
    return lambda x, y: (np.kron(x, y).astype(x.dtype, copy=False),)


@kernel_rule('kron_grad')
def _kron_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        n = max(x.ndim, y.ndim)
        xs, ys = (1,) * (n - x.ndim) + x.shape, (1,) * (n - y.ndim) + y.shape
        # dout[i*ys + j] -> blocks[i..., j...]: interleave (x dim, y dim) pairs
        blocks = dout.reshape(tuple(v for pair in zip(xs, ys) for v in pair))
        x_axes, y_axes = tuple(range(0, 2 * n, 2)), tuple(range(1, 2 * n, 2))
        x_full, y_full = x.reshape(xs), y.reshape(ys)
        dx = dy = None
        if want_x:
            expanded_y = y_full.reshape(tuple(v for d in ys for v in (1, d)))
            dx = (blocks * expanded_y).sum(axis=y_axes).reshape(x.shape).astype(x.dtype)
        if want_y:
            expanded_x = x_full.reshape(tuple(v for d in xs for v in (d, 1)))
            dy = (blocks * expanded_x).sum(axis=x_axes).reshape(y.shape).astype(y.dtype)
        return dx, dy
    return run


# --- cross ---------------------------------------------------------------------------------------------------------

_CROSS_DEFAULT = 9      # Paddle's kDefaultDim: the first dim of size 3
defop('cross', ['X', 'Y'], ['Out'], {'dim': _CROSS_DEFAULT},
      grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def cross_axis(shape, dim: int, op_type: str = 'cross') -> int:
    if dim == _CROSS_DEFAULT:
        for i, n in enumerate(shape):
            if n == 3:
                return i
        raise ValueError("%s: no dim of size 3 in the input's shape %s" % (op_type, list(shape)))
    axis = dim + len(shape) if dim < 0 else dim
    if not 0 <= axis < len(shape) or shape[axis] not in (3, -1):
        raise ValueError("Input(X/Y).dims()[dim] should be equal to 3. But received: Input(X/Y).dims()[dim] = "
                         "%s." % (shape[axis] if 0 <= axis < len(shape) else 'out of range'))
    return axis


@shape_rule('cross')
def _cross_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(xs) != len(ys):
        raise ValueError("The 'shape' of Input(X) should be equal to the 'shape' of Input(Y). But received "
                         "Input(X).dimensions = [%d], Input(Y).dimensions = [%d]" % (len(xs), len(ys)))
    cross_axis(xs, ctx.attr('dim'))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('cross')
def _cross_kernel(spec):
    dim = spec.attr('dim')
    return lambda x, y: (np.cross(x, y, axis=cross_axis(x.shape, dim)).astype(x.dtype, copy=False),)


@kernel_rule('cross_grad')
def _cross_grad_kernel(spec):
    dim = spec.attr('dim')
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        axis = cross_axis(x.shape, dim)
        dx = np.cross(y, dout, axis=axis).astype(x.dtype) if want_x else None
        dy = np.cross(dout, x, axis=axis).astype(y.dtype) if want_y else None
        return dx, dy
    return run


# --- dist: ||x - y||_p over all elements ---------------------------------------------------------------------------

defop('dist', ['X', 'Y'], ['Out'], {'p': 2.0}, grad=GradSpec(('X', 'Y', 'Out', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('dist')
def _dist_shape(ctx):
    _broadcast_shape(ctx, 'X', 'Y')
    ctx.set_output('Out', (1,), ctx.in_dtype('X'))


def _p_norm(d, p: float):
    a = np.abs(d)
    if p == 0:
        return np.float64(np.count_nonzero(a))        # numpy < 2.3 returns a Python int here
    if p == np.inf:
        return a.max()
    if p == -np.inf:
        return a.min()
    return np.sum(a ** p) ** (1.0 / p)


@kernel_rule('dist')
def _dist_kernel(spec):
    p = float(spec.attr('p'))
    return lambda x, y: (np.array([_p_norm(x - y, p)], dtype=x.dtype),)


@kernel_rule('dist_grad')
def _dist_grad_kernel(spec):
    p = float(spec.attr('p'))
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, out, dout):
        d = x - y
        norm = float(np.asarray(out).reshape(-1)[0])
        g = float(np.asarray(dout).reshape(-1)[0])
        if p == 0 or norm == 0:
            grad = np.zeros(d.shape, d.dtype)
        elif np.isinf(p):
            grad = np.where(np.abs(d) == norm, np.sign(d), 0) * g
        else:
            grad = np.sign(d) * np.abs(d) ** (p - 1) / norm ** (p - 1) * g
        dx = sum_to_shape(grad, x.shape).astype(x.dtype) if want_x else None
        dy = sum_to_shape(-grad, y.shape).astype(y.dtype) if want_y else None
        return dx, dy
    return run
