"""The ops of fluid.contrib.layers that mean something on a CPU executor, with their gradients.

    partial_concat   X (list of [N, D]) -> Out [N, len(X) * length]: columns [start_index, start_index + length)
                     of each input side by side (length -1: to the end)
    partial_sum      X (list of [N, D]) -> Out [N, length]: the sum of those column slices
    fused_elemwise_activation   X, Y -> Out, IntermediateOut; functor_list [f1, f2] with one binary functor
                     (elementwise_add, elementwise_mul) and one unary (relu, scale, tanh, sigmoid):
                     binary first: Out = f1(X, f2(Y)), IntermediateOut = f2(Y);
                     unary first:  Out = f1(f2(X, Y)), IntermediateOut = f2(X, Y).
                     Y is aligned with X from `axis` (-1: trailing dims), as elementwise ops broadcast.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule

# --- partial_concat / partial_sum ------------------------------------------------------------------------------

defop('partial_concat', ['X'], ['Out'], {'start_index': 0, 'length': -1}, duplicable=['X'],
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('partial_sum', ['X'], ['Out'], {'start_index': 0, 'length': -1}, duplicable=['X'],
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


def _columns(op_type: str, width: int, start: int, length: int) -> slice:
    if start < 0:
        start += width
    if not 0 <= start < width:
        raise ValueError("operator '%s': start_index %d is out of the inputs' %d columns" % (op_type, start, width))
    end = width if length < 0 else start + length
    if end > width:
        raise ValueError("operator '%s': start_index + length (%d) is larger than the inputs' %d columns"
                         % (op_type, end, width))
    return slice(start, end)


def _partial_shape(ctx, op_type: str):
    shapes = [tuple(v.shape) for v in ctx.input_vars('X')]
    if not shapes or any(len(s) != 2 for s in shapes):
        raise ValueError("operator '%s': every input must be 2-D [batch, width], got %s" % (op_type, shapes))
    width = shapes[0][1]
    if width < 0:
        cols = -1
    else:
        part = _columns(op_type, width, int(ctx.attr('start_index')), int(ctx.attr('length')))
        cols = part.stop - part.start
    out_cols = cols * len(shapes) if op_type == 'partial_concat' and cols >= 0 else cols
    ctx.set_output('Out', (shapes[0][0], out_cols), ctx.in_dtype('X'))


@shape_rule('partial_concat')
def _partial_concat_shape(ctx):
    _partial_shape(ctx, 'partial_concat')


@shape_rule('partial_sum')
def _partial_sum_shape(ctx):
    _partial_shape(ctx, 'partial_sum')


def _partial_kernel(op_type: str, spec):
    start, length = int(spec.attr('start_index')), int(spec.attr('length'))

    def run(xs):
        part = _columns(op_type, xs[0].shape[1], start, length)
        pieces = [x[:, part] for x in xs]
        if op_type == 'partial_concat':
            return (np.concatenate(pieces, axis=1),)
        out = pieces[0].copy()
        for p in pieces[1:]:
            out += p
        return (out,)
    return run


def _partial_grad_kernel(op_type: str, spec):
    start, length = int(spec.attr('start_index')), int(spec.attr('length'))

    def run(xs, dout):
        part = _columns(op_type, xs[0].shape[1], start, length)
        cols = part.stop - part.start
        grads = []
        for k, x in enumerate(xs):
            g = np.zeros_like(x)
            g[:, part] = dout[:, k * cols:(k + 1) * cols] if op_type == 'partial_concat' else dout
            grads.append(g)
        return (grads,)
    return run


@kernel_rule('partial_concat')
def _partial_concat_kernel(spec):
    return _partial_kernel('partial_concat', spec)


@kernel_rule('partial_sum')
def _partial_sum_kernel(spec):
    return _partial_kernel('partial_sum', spec)


@kernel_rule('partial_concat_grad')
def _partial_concat_grad_kernel(spec):
    return _partial_grad_kernel('partial_concat', spec)


@kernel_rule('partial_sum_grad')
def _partial_sum_grad_kernel(spec):
    return _partial_grad_kernel('partial_sum', spec)


# --- fused_elemwise_activation ---------------------------------------------------------------------------------

_BINARY = ('elementwise_add', 'elementwise_mul')
_UNARY = ('relu', 'scale', 'tanh', 'sigmoid')

defop('fused_elemwise_activation', ['X', 'Y'], ['Out', 'IntermediateOut'],
      {'functor_list': [], 'axis': -1, 'scale': 0.0, 'save_intermediate_out': False},
      grad=GradSpec(('X', 'Y', 'Out', 'IntermediateOut', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def _functors(functor_list) -> tuple[bool, str, str]:
    """(binary first?, binary functor, unary functor), or ValueError naming what is allowed."""
    functors = [str(f) for f in functor_list]
    if len(functors) != 2:
        raise ValueError("operator 'fused_elemwise_activation': functor_list must hold two functors, got %s"
                         % functors)
    if functors[0] in _BINARY and functors[1] in _UNARY:
        return True, functors[0], functors[1]
    if functors[0] in _UNARY and functors[1] in _BINARY:
        return False, functors[1], functors[0]
    raise ValueError("operator 'fused_elemwise_activation': functor_list must be one of %s and one of %s (either "
                     "order), got %s" % (list(_BINARY), list(_UNARY), functors))


@shape_rule('fused_elemwise_activation')
def _fused_shape(ctx):
    binary_first = _functors(ctx.attr('functor_list'))[0]
    x_shape, y_shape = ctx.in_shape('X'), ctx.in_shape('Y')
    ctx.set_output('Out', x_shape, ctx.in_dtype('X'))
    ctx.set_output('IntermediateOut', y_shape if binary_first else x_shape, ctx.in_dtype('X'))


def _align(y: np.ndarray, x_ndim: int, axis: int) -> np.ndarray:
    """y reshaped so numpy broadcasts it against x the way Paddle's elementwise `axis` does."""
    if y.ndim == x_ndim:
        return y
    axis = x_ndim - y.ndim if axis == -1 else axis
    return y.reshape((1,) * axis + y.shape + (1,) * (x_ndim - axis - y.ndim))


def _unary(name: str, v: np.ndarray, scale: float) -> np.ndarray:
    if name == 'relu':
        return np.maximum(v, 0)
    if name == 'scale':
        return v * v.dtype.type(scale)
    if name == 'tanh':
        return np.tanh(v)
    return 1 / (1 + np.exp(-v))


def _unary_grad(name: str, v: np.ndarray, out: np.ndarray, scale: float) -> np.ndarray:
    """d unary / d v, from its input v and its output `out`."""
    if name == 'relu':
        return (v > 0).astype(v.dtype)
    if name == 'scale':
        return np.full_like(v, scale)
    if name == 'tanh':
        return 1 - out * out
    return out * (1 - out)


def _reduce_to(g: np.ndarray, shape: tuple, x_ndim: int, axis: int) -> np.ndarray:
    aligned = _align(np.empty(shape, dtype=g.dtype), x_ndim, axis).shape
    sum_axes = tuple(i for i, (a, b) in enumerate(zip(aligned, g.shape)) if a == 1 and b != 1)
    return (g.sum(axis=sum_axes, keepdims=True) if sum_axes else g).reshape(shape)


@kernel_rule('fused_elemwise_activation')
def _fused_kernel(spec):
    binary_first, binary, unary = _functors(spec.attr('functor_list'))
    axis, scale = int(spec.attr('axis')), float(spec.attr('scale'))

    def run(x, y):
        yb = _align(y, x.ndim, axis)
        if binary_first:
            inter = _unary(unary, yb, scale)
            out = x + inter if binary == 'elementwise_add' else x * inter
            return out, inter.reshape(y.shape)
        inter = x + yb if binary == 'elementwise_add' else x * yb
        return _unary(unary, inter, scale), inter
    return run


@kernel_rule('fused_elemwise_activation_grad')
def _fused_grad_kernel(spec):
    binary_first, binary, unary = _functors(spec.attr('functor_list'))
    axis, scale = int(spec.attr('axis')), float(spec.attr('scale'))

    def run(x, y, out, inter, dout):
        yb = _align(y, x.ndim, axis)
        if binary_first:
            u = _unary(unary, yb, scale)
            du = _unary_grad(unary, yb, u, scale)
            if binary == 'elementwise_add':
                dx, dy = dout, dout * du
            else:
                dx, dy = dout * u, dout * x * du
        else:
            i = x + yb if binary == 'elementwise_add' else x * yb
            di = dout * _unary_grad(unary, i, _unary(unary, i, scale), scale)
            dx, dy = (di, di) if binary == 'elementwise_add' else (di * yb, di * x)
        return np.ascontiguousarray(dx, dtype=x.dtype), _reduce_to(np.asarray(dy, dtype=y.dtype), y.shape,
                                                                    x.ndim, axis)
    return run
