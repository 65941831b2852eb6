"""Search ops: arg_max, arg_min, argsort, where (select) and where_index, on kernels/search.py.

    arg_max(X) / arg_min(X) -> Out        attrs axis, keepdims, flatten, dtype (int32 or int64, -1: int64)
    argsort(X) -> Out, Indices            attrs axis, descending; stable; grad scatters Out@GRAD back
    where(Condition, X, Y) -> Out         same-shaped inputs; grad routes Out@GRAD to X or Y
    where_index(Condition) -> Out         the coordinates of true elements, int64 [n, rank]
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import search as K
from ._util import dims_text, norm_axis

__all__ = ['arg_out_shape']


for _t in ('arg_max', 'arg_min'):
    defop(_t, ['X'], ['Out'], {'axis': -1, 'keepdims': False, 'flatten': False, 'dtype': -1})


def _arg_out_dtype(dtype: int, op_type: str) -> VarType:
    if dtype is None or dtype < 0 or dtype == VarType.INT64:
        return VarType.INT64
    if dtype == VarType.INT32:
        return VarType.INT32
    raise ValueError("The attribute of dtype in %s must be [int32] or [int64], but received [%s]"
                     % (op_type, VarType(dtype).name))


def arg_out_shape(in_dims, axis: int, keepdims: bool, flatten: bool, op_type: str) -> tuple:
    rank = len(in_dims)
    if flatten:
        return (1,) * rank if keepdims else (1,)
    if not -rank <= axis < rank:
        raise ValueError("'axis'(%d) of %s must be in the range [-Rank(X), Rank(X)) = [%d, %d)"
                         % (axis, op_type, -rank, rank))
    axis = axis + rank if axis < 0 else axis
    return tuple(in_dims[:axis]) + ((1,) if keepdims else ()) + tuple(in_dims[axis + 1:])


@shape_rule('arg_max')
@shape_rule('arg_min')
def _arg_shape(ctx):
    out = arg_out_shape(ctx.in_shape('X'), ctx.attr('axis'), ctx.attr('keepdims'), ctx.attr('flatten'), ctx.op.type)
    ctx.set_output('Out', out, _arg_out_dtype(ctx.attr('dtype'), ctx.op.type))


@kernel_rule('arg_max', 'arg_min')
def _arg(spec):
    axis, keepdims, flatten = spec.attr('axis'), spec.attr('keepdims'), spec.attr('flatten')
    dtype = to_numpy(_arg_out_dtype(spec.attr('dtype'), spec.type))
    want_max = spec.type == 'arg_max'
    op_type = spec.type

    def run(x):
        shape = arg_out_shape(x.shape, axis, keepdims, flatten, op_type)
        if flatten:
            out = K.arg_extreme(x.reshape(-1), 0, want_max)
        else:
            out = K.arg_extreme(x, axis + x.ndim if axis < 0 else axis, want_max)
        return (out.reshape(shape).astype(dtype, copy=False),)
    return run


defop('argsort', ['X'], ['Out', 'Indices'], {'axis': -1, 'descending': False},
      grad=GradSpec(('Indices', 'X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('argsort')
def _argsort_shape(ctx):
    xs = ctx.in_shape('X')
    norm_axis(ctx.attr('axis'), len(xs), 'argsort')
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('Indices', xs, VarType.INT64)


@kernel_rule('argsort')
def _argsort(spec):
    axis, descending = spec.attr('axis'), spec.attr('descending')
    return lambda x: K.argsort(x, norm_axis(axis, x.ndim, 'argsort'), descending)


@kernel_rule('argsort_grad')
def _argsort_grad(spec):
    axis = spec.attr('axis')
    return lambda indices, x, dout: (K.argsort_backward(indices, dout, norm_axis(axis, x.ndim, 'argsort_grad')),)


# --- where (select) and where_index (the coordinates of true elements) -----------------------------------------------

defop('where', ['Condition', 'X', 'Y'], ['Out'],
      grad=GradSpec(('Condition', 'X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('where')
def _where_shape(ctx):
    cs, xs, ys = ctx.in_shape('Condition'), ctx.in_shape('X'), ctx.in_shape('Y')

    def same(a, b):
        return len(a) == len(b) and all(p < 0 or q < 0 or p == q for p, q in zip(a, b))
    if not same(cs, xs):
        raise ValueError("The dims of Inputs(Condition) and Inputs(X) should be same. But received Condition's shape "
                         "is [%s], X's shape is [%s]" % (dims_text(cs), dims_text(xs)))
    if not same(xs, ys):
        raise ValueError("The dims of Inputs(X) and Inputs(Y) should be same. But received X's shape is [%s], Y's "
                         "shape is [%s]" % (dims_text(xs), dims_text(ys)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('where')
def _where(spec):
    def run(cond, x, y):
        if cond.shape != x.shape or x.shape != y.shape:
            raise ValueError("where: Condition %s, X %s and Y %s must have one shape" % (cond.shape, x.shape, y.shape))
        return (K.where_forward(cond, x, y),)
    return run


@kernel_rule('where_grad')
def _where_grad(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(cond, x, y, dout):
        dx, dy = K.where_backward(cond, dout)
        return (dx.astype(x.dtype, copy=False) if want_x else None, dy.astype(y.dtype, copy=False) if want_y else None)
    return run


defop('where_index', ['Condition'], ['Out'])


@shape_rule('where_index')
def _where_index_shape(ctx):
    ctx.set_output('Out', (-1, len(ctx.in_shape('Condition'))), VarType.INT64)


@kernel_rule('where_index')
def _where_index(spec):
    return lambda cond: (np.argwhere(np.asarray(cond)).astype(np.int64),)
