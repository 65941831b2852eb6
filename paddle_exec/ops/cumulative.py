"""Cumulative ops of Paddle 2.x: cumprod (X -> Out, attr dim), cummax / cummin (x -> out, indices; attrs axis,
dtype), logcumsumexp (X -> Out; attrs axis, flatten, exclusive, reverse). The loops are kernels/cumulative.py's
numba kernels on the input with the op's axis moved last.

Gradients, as Paddle's: cumprod_grad(X, Out, Out@GRAD) (exact at zeros), cummax_grad / cummin_grad(x, indices,
out@GRAD) add each output gradient to the element the running extreme came from, logcumsumexp_grad(X, Out,
Out@GRAD) (kernels/cumulative.py has the formulas). cummax / cummin with an axis of size 0 or indices of dtype
int32 work as in Paddle (dtype 2 = int32, 3 = int64).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import cumulative as KC
from ._util import norm_axis, prod


def _lines(a, axis: int):
    """a with `axis` moved last, as a C-contiguous (m, n) array, and how to undo it."""
    moved = np.moveaxis(a, axis, -1)
    n = moved.shape[-1] if moved.ndim else 1
    return np.ascontiguousarray(moved).reshape(-1, n), moved.shape


def _unlines(flat, moved_shape, axis: int):
    return np.moveaxis(flat.reshape(moved_shape), -1, axis)


# --- cumprod -----------------------------------------------------------------------------------------------------

defop('cumprod', ['X'], ['Out'], {'dim': -1}, grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('cumprod')
def _cumprod_shape(ctx):
    xs = ctx.in_shape('X')
    norm_axis(ctx.attr('dim'), len(xs), 'cumprod', 'dim')
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('cumprod')
def _cumprod_kernel(spec):
    dim = spec.attr('dim')
    return lambda x: (np.cumprod(x, axis=norm_axis(dim, x.ndim, 'cumprod', 'dim')).astype(x.dtype, copy=False),)


@kernel_rule('cumprod_grad')
def _cumprod_grad_kernel(spec):
    dim = spec.attr('dim')

    def run(x, out, dout):
        axis = norm_axis(dim, x.ndim, 'cumprod', 'dim')
        if x.size == 0:
            return (np.zeros(x.shape, x.dtype),)
        if x.dtype.kind == 'c':      # complex: conjugates, as Paddle's complex cumprod grad
            xs, shape = _lines(x, axis)
            ds, _ = _lines(dout, axis)
            dx = _cumprod_grad_numpy(np.conj(xs), ds)
            return (_unlines(dx, shape, axis).astype(x.dtype),)
        xs, shape = _lines(x, axis)
        ds, _ = _lines(dout.astype(x.dtype, copy=False), axis)
        dx = np.empty_like(xs)
        KC.cumprod_grad(xs, ds, dx)
        return (_unlines(dx, shape, axis),)
    return run


def _cumprod_grad_numpy(xs, ds):
    dx = np.empty_like(ds)
    tail = ds[:, -1].copy()
    tails = [tail]
    for i in range(ds.shape[1] - 2, -1, -1):
        tail = ds[:, i] + xs[:, i + 1] * tail
        tails.append(tail)
    tails = tails[::-1]
    prefix = np.ones(ds.shape[0], ds.dtype)
    for i in range(ds.shape[1]):
        dx[:, i] = prefix * tails[i]
        prefix = prefix * xs[:, i]
    return dx


# --- cummax / cummin ----------------------------------------------------------------------------------------------

for _t in ('cummax', 'cummin'):
    defop(_t, ['x'], ['out', 'indices'], {'axis': -1, 'dtype': int(VarType.INT64)},
          grad=GradSpec(('x', 'indices', 'out@GRAD'), ('x@GRAD',)))


def _cum_extreme_shape(ctx):
    xs = ctx.in_shape('x')
    norm_axis(ctx.attr('axis'), len(xs), ctx.op.type)
    ctx.set_output('out', xs, ctx.in_dtype('x'))
    ctx.set_output('indices', xs, VarType(int(ctx.attr('dtype'))))


for _t in ('cummax', 'cummin'):
    shape_rule(_t)(_cum_extreme_shape)


@kernel_rule('cummax', 'cummin')
def _cum_extreme_kernel(spec):
    axis_attr, is_max = spec.attr('axis'), spec.type == 'cummax'
    index_dtype = to_numpy(VarType(int(spec.attr('dtype'))))

    def run(x):
        axis = norm_axis(axis_attr, x.ndim, spec.type)
        if x.size == 0:
            return np.empty(x.shape, x.dtype), np.empty(x.shape, index_dtype)
        xs, shape = _lines(x, axis)
        out, idx = np.empty_like(xs), np.empty(xs.shape, np.int64)
        KC.cum_extreme(xs, out, idx, is_max)
        return _unlines(out, shape, axis), _unlines(idx, shape, axis).astype(index_dtype)
    return run


def add_at_indices(shape, dtype, indices, values, axis: int):
    """A zero array of `shape` with values[..., j, ...] added at indices[..., j, ...] along `axis` (the gradient of
    a gather along an axis: take_along_axis, cummax, kthvalue, mode)."""
    out = np.zeros(shape, dtype)
    idx = np.moveaxis(np.asarray(indices, np.int64), axis, -1)
    vals = np.moveaxis(np.asarray(values), axis, -1)
    target = np.moveaxis(out, axis, -1)
    lead = np.indices(idx.shape[:-1], sparse=False)
    lead = [np.broadcast_to(g[..., None], idx.shape) for g in lead]
    np.add.at(target, tuple(lead) + (idx,), vals)
    return out


@kernel_rule('cummax_grad', 'cummin_grad')
def _cum_extreme_grad_kernel(spec):
    axis_attr = spec.attr('axis')

    def run(x, indices, dout):
        axis = norm_axis(axis_attr, x.ndim, spec.type)
        return (add_at_indices(x.shape, x.dtype, indices, dout, axis),)
    return run


# --- logcumsumexp -------------------------------------------------------------------------------------------------

defop('logcumsumexp', ['X'], ['Out'], {'axis': -1, 'flatten': False, 'exclusive': False, 'reverse': False},
      grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('logcumsumexp')
def _logcumsumexp_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.attr('flatten'):
        ctx.set_output('Out', (prod(xs),), ctx.in_dtype('X'))
        return
    norm_axis(ctx.attr('axis'), len(xs), 'logcumsumexp')
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


def _logcumsumexp_layout(spec, x):
    """x as the kernel sees it: flattened when `flatten`, reversed along the axis when `reverse`."""
    if spec.attr('flatten'):
        x, axis = x.reshape(-1), 0
    else:
        axis = norm_axis(spec.attr('axis'), x.ndim, 'logcumsumexp')
    return (np.flip(x, axis) if spec.attr('reverse') else x), axis


@kernel_rule('logcumsumexp')
def _logcumsumexp_kernel(spec):
    exclusive, reverse = bool(spec.attr('exclusive')), bool(spec.attr('reverse'))

    def run(x):
        a, axis = _logcumsumexp_layout(spec, x)
        lines, shape = _lines(a, axis)
        out = np.empty_like(lines)
        if lines.size:
            if exclusive:      # out_j = logsumexp(x_0 .. x_{j-1}), -inf first
                shifted = np.concatenate([np.full((lines.shape[0], 1), -np.inf, lines.dtype), lines[:, :-1]], 1)
                KC.logcumsumexp(np.ascontiguousarray(shifted), out)
            else:
                KC.logcumsumexp(lines, out)
        out = _unlines(out, shape, axis)
        return (np.ascontiguousarray(np.flip(out, axis) if reverse else out),)
    return run


@kernel_rule('logcumsumexp_grad')
def _logcumsumexp_grad_kernel(spec):
    if spec.attr('exclusive'):
        raise NotImplementedError("the gradient of logcumsumexp with exclusive=True is not implemented in "
                                  "paddle_exec (Paddle's builders never set it)")
    reverse = bool(spec.attr('reverse'))

    def run(x, out, dout):
        a, axis = _logcumsumexp_layout(spec, x)
        o, _ = _logcumsumexp_layout(spec, out.reshape(a.shape) if spec.attr('flatten') else out)
        d, _ = _logcumsumexp_layout(spec, dout.reshape(a.shape) if spec.attr('flatten') else dout)
        xs, shape = _lines(a, axis)
        dx = np.empty_like(xs)
        if xs.size:
            KC.logcumsumexp_grad(xs, _lines(o, axis)[0], _lines(d.astype(x.dtype, copy=False), axis)[0], dx)
        dx = _unlines(dx, shape, axis)
        dx = np.flip(dx, axis) if reverse else dx
        return (np.ascontiguousarray(dx).reshape(x.shape),)
    return run


__all__ = ['add_at_indices']
