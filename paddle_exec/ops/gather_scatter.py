"""Gather / scatter ops of Paddle 2.x (and fluid 1.8's index_sample, multiplex, shard_index): take_along_axis,
put_along_axis, index_sample, index_add, index_put, masked_select, multiplex, shard_index, repeat_interleave.

Slots and attributes are Paddle's (2.6.2): take_along_axis(Input, Index) -> Result with attr `Axis`,
put_along_axis(Input, Index, Value) -> Result with `Axis`, `Reduce`, `include_self`, index_put's lowercase
x / indices / value -> out, masked_select(X, Mask) -> Y. Numerics are numpy's fancy indexing, put_along_axis's
loops kernels/scatter.py's. Gradients as Paddle's:
    take_along_axis / index_sample   dout added back at the indices
    put_along_axis                   see kernels/scatter.py (assign / add / mul / mean)
    index_add(X, Index, AddValue)    dX = dout, dAddValue = dout's slices at Index
    index_put(x, indices, value)     dx = dout, zero where written unless accumulate; dvalue = dout at the indices,
                                     summed back to value's shape
    masked_select                    dout scattered back to the selected places
    multiplex(X..., Ids)             each row of dout to the input its id chose
    repeat_interleave                the repeated copies summed
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ..kernels import scatter as KS
from ._util import norm_axis, sum_to_shape
from .cumulative import add_at_indices

__all__: list = []


# --- take_along_axis / put_along_axis --------------------------------------------------------------------------------

defop('take_along_axis', ['Input', 'Index'], ['Result'], {'Axis': 0},
      grad=GradSpec(('Input', 'Index', 'Result@GRAD'), ('Input@GRAD',)))


@shape_rule('take_along_axis')
def _take_along_axis_shape(ctx):
    xs, idx = ctx.in_shape('Input'), ctx.in_shape('Index')
    if len(xs) != len(idx):
        raise ValueError("The rank of index (%d) and input (%d) must be the same in take_along_axis"
                         % (len(idx), len(xs)))
    norm_axis(ctx.attr('Axis'), len(xs), 'take_along_axis')
    ctx.set_output('Result', idx, ctx.in_dtype('Input'))


def _wrapped(index, n: int):
    index = np.asarray(index, np.int64)
    return np.where(index < 0, index + n, index)


@kernel_rule('take_along_axis')
def _take_along_axis_kernel(spec):
    axis_attr = spec.attr('Axis')

    def run(x, index):
        axis = norm_axis(axis_attr, x.ndim, 'take_along_axis')
        return (np.take_along_axis(x, _wrapped(index, x.shape[axis]), axis=axis),)
    return run


@kernel_rule('take_along_axis_grad')
def _take_along_axis_grad_kernel(spec):
    axis_attr = spec.attr('Axis')

    def run(x, index, dout):
        axis = norm_axis(axis_attr, x.ndim, 'take_along_axis')
        return (add_at_indices(x.shape, x.dtype, _wrapped(index, x.shape[axis]), dout, axis),)
    return run


defop('put_along_axis', ['Input', 'Index', 'Value'], ['Result'],
      {'Axis': 0, 'Reduce': 'assign', 'Include_self': True},
      grad=GradSpec(('Input', 'Index', 'Value', 'Result', 'Result@GRAD'), ('Input@GRAD', 'Value@GRAD')))


@shape_rule('put_along_axis')
def _put_along_axis_shape(ctx):
    if ctx.attr('Reduce') not in KS.REDUCE_CODES:
        raise ValueError("Reduce of put_along_axis should be one of %s, but received %r"
                         % (sorted(KS.REDUCE_CODES), ctx.attr('Reduce')))
    ctx.set_output('Result', ctx.in_shape('Input'), ctx.in_dtype('Input'))


def _put_layout(x, index, values, axis: int):
    """x as (A, N, B) and index / values as (A, M, B) (values broadcast to the index's shape)."""
    index = np.asarray(index, np.int64)
    if index.ndim != x.ndim or any(i != n for k, (i, n) in enumerate(zip(index.shape, x.shape)) if k != axis):
        raise ValueError('put_along_axis: the index shape %s must equal the input shape %s except along the axis '
                         '(Paddle broadcasts them first)' % (list(index.shape), list(x.shape)))
    a = int(np.prod(x.shape[:axis], dtype=np.int64))
    b = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    values = np.broadcast_to(np.asarray(values, x.dtype), index.shape)
    return (np.ascontiguousarray(x).reshape(a, x.shape[axis], b), np.ascontiguousarray(index).reshape(a, -1, b),
            np.ascontiguousarray(values).reshape(a, -1, b))


@kernel_rule('put_along_axis')
def _put_along_axis_kernel(spec):
    axis_attr, reduce = spec.attr('Axis'), KS.REDUCE_CODES[spec.attr('Reduce')]
    include_self = bool(spec.attr('Include_self'))

    def run(x, index, value):
        axis = norm_axis(axis_attr, x.ndim, 'put_along_axis')
        arr, idx, vals = _put_layout(x, index, value, axis)
        out = arr.copy()
        counts = np.zeros(arr.shape, np.int64)
        KS.put_along_axis(arr, idx, vals, out, counts, reduce, include_self)
        return (out.reshape(x.shape),)
    return run


@kernel_rule('put_along_axis_grad')
def _put_along_axis_grad_kernel(spec):
    axis_attr, reduce_name = spec.attr('Axis'), spec.attr('Reduce')
    reduce, include_self = KS.REDUCE_CODES[reduce_name], bool(spec.attr('Include_self'))
    want_x, want_v = spec.has_output('Input@GRAD'), spec.has_output('Value@GRAD')

    def run(x, index, value, result, dout):
        if reduce in (KS.AMAX, KS.AMIN):
            raise NotImplementedError("the gradient of put_along_axis with reduce=%r is not implemented in "
                                      "paddle_exec" % reduce_name)
        axis = norm_axis(axis_attr, x.ndim, 'put_along_axis')
        arr, idx, vals = _put_layout(x, index, value, axis)
        counts = np.zeros(arr.shape, np.int64)
        KS.put_along_axis(arr, idx, vals, arr.copy(), counts, reduce, include_self)
        dx = np.ascontiguousarray(dout, x.dtype).reshape(arr.shape).copy()
        dv = np.zeros(vals.shape, x.dtype)
        KS.put_along_axis_grad(arr, idx, vals, dout.reshape(arr.shape), counts, reduce, include_self, dx, dv)
        d_value = None
        if want_v:
            value_arr = np.asarray(value)
            d_value = sum_to_shape(dv.reshape(np.shape(index)), value_arr.shape).astype(value_arr.dtype)
        return (dx.reshape(x.shape) if want_x else None), d_value
    return run


# --- index_sample (fluid 1.8 and 2.x): out[i, j] = x[i, index[i, j]] --------------------------------------------------

defop('index_sample', ['X', 'Index'], ['Out'], grad=GradSpec(('X', 'Index', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('index_sample')
def _index_sample_shape(ctx):
    xs, ids = ctx.in_shape('X'), ctx.in_shape('Index')
    if len(xs) != 2 or len(ids) != 2:
        raise ValueError('Inputs(X) and Inputs(Index) of IndexSampleOp should be 2-D, but received X %s and '
                         'Index %s' % (list(xs), list(ids)))
    ctx.set_output('Out', ids, ctx.in_dtype('X'))


@kernel_rule('index_sample')
def _index_sample_kernel(spec):
    return lambda x, index: (np.take_along_axis(x, np.asarray(index, np.int64), axis=1),)


@kernel_rule('index_sample_grad')
def _index_sample_grad_kernel(spec):
    return lambda x, index, dout: (add_at_indices(x.shape, x.dtype, index, dout, 1),)


# --- index_add (X, Index, AddValue; axis) ----------------------------------------------------------------------------

defop('index_add', ['X', 'Index', 'AddValue'], ['Out'], {'axis': 0},
      grad=GradSpec(('Index', 'AddValue', 'Out@GRAD'), ('X@GRAD', 'AddValue@GRAD')))


@shape_rule('index_add')
def _index_add_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('index_add')
def _index_add_kernel(spec):
    axis_attr = spec.attr('axis')

    def run(x, index, add_value):
        axis = norm_axis(axis_attr, x.ndim, 'index_add')
        out = x.copy()
        np.add.at(np.moveaxis(out, axis, 0), _wrapped(index, x.shape[axis]).reshape(-1),
                  np.moveaxis(add_value.astype(x.dtype, copy=False), axis, 0))
        return (out,)
    return run


@kernel_rule('index_add_grad')
def _index_add_grad_kernel(spec):
    axis_attr = spec.attr('axis')
    want_x, want_v = spec.has_output('X@GRAD'), spec.has_output('AddValue@GRAD')

    def run(index, add_value, dout):
        axis = norm_axis(axis_attr, dout.ndim, 'index_add')
        dv = np.take(dout, _wrapped(index, dout.shape[axis]).reshape(-1), axis=axis).astype(add_value.dtype)
        return (dout.copy() if want_x else None), (dv if want_v else None)
    return run


# --- index_put (x, indices..., value; accumulate) -------------------------------------------------------------------

defop('index_put', ['x', 'indices', 'value'], ['out'], {'accumulate': False}, duplicable=['indices'],
      grad=GradSpec(('x', 'indices', 'value', 'out@GRAD'), ('x@GRAD', 'value@GRAD')))


@shape_rule('index_put')
def _index_put_shape(ctx):
    ctx.set_output('out', ctx.in_shape('x'), ctx.in_dtype('x'))


def _index_tuple(x, indices):
    """Paddle's indices: one int tensor per leading dim, or a single bool mask."""
    indices = [np.asarray(i) for i in indices]
    if len(indices) == 1 and indices[0].dtype == np.bool_:
        return np.nonzero(indices[0])
    return tuple(i.astype(np.int64) for i in np.broadcast_arrays(*indices))


@kernel_rule('index_put')
def _index_put_kernel(spec):
    accumulate = bool(spec.attr('accumulate'))

    def run(x, indices, value):
        out = x.copy()
        where = _index_tuple(x, indices)
        value = np.asarray(value, x.dtype)
        if accumulate:
            np.add.at(out, where, np.broadcast_to(value, out[where].shape))
        else:
            out[where] = value
        return (out,)
    return run


@kernel_rule('index_put_grad')
def _index_put_grad_kernel(spec):
    accumulate = bool(spec.attr('accumulate'))
    want_x, want_v = spec.has_output('x@GRAD'), spec.has_output('value@GRAD')

    def run(x, indices, value, dout):
        where = _index_tuple(x, indices)
        dx = None
        if want_x:
            dx = dout.copy()
            if not accumulate:
                dx[where] = 0
        dv = sum_to_shape(dout[where], np.shape(value)).astype(np.asarray(value).dtype) if want_v else None
        return dx, dv
    return run


@grad_rule('index_put')
def _index_put_grad(g):
    return [('index_put_grad', {'x': g.input('x'), 'indices': g.input('indices'), 'value': g.input('value'),
                                'out@GRAD': g.output_grad('out')},
             {'x@GRAD': g.input_grad('x'), 'value@GRAD': g.input_grad('value')}, dict(g.attrs))]


# --- masked_select ----------------------------------------------------------------------------------------------------

defop('masked_select', ['X', 'Mask'], ['Y'], grad=GradSpec(('X', 'Mask', 'Y@GRAD'), ('X@GRAD',)))


@shape_rule('masked_select')
def _masked_select_shape(ctx):
    ctx.set_output('Y', (-1,), ctx.in_dtype('X'))


@kernel_rule('masked_select')
def _masked_select_kernel(spec):
    def run(x, mask):
        xb, mb = np.broadcast_arrays(x, mask.astype(bool, copy=False))
        return (xb[mb],)
    return run


@kernel_rule('masked_select_grad')
def _masked_select_grad_kernel(spec):
    def run(x, mask, dout):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        full = np.zeros(shape, x.dtype)
        full[np.broadcast_to(mask.astype(bool, copy=False), shape)] = dout
        return (sum_to_shape(full, x.shape),)
    return run


# --- multiplex (X list, Ids) ----------------------------------------------------------------------------------

defop('multiplex', ['X', 'Ids'], ['Out'], duplicable=['X'], grad=GradSpec(('Ids', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('multiplex')
def _multiplex_shape(ctx):
    first = ctx.input_var('X')
    ctx.set_output('Out', tuple(first.shape), first.dtype)


@kernel_rule('multiplex')
def _multiplex_kernel(spec):
    def run(xs, ids):
        ids = np.asarray(ids).reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= len(xs)):
            raise ValueError('index of multiplex must be in [0, %d), but received %s' % (len(xs), ids.tolist()))
        stacked = np.stack(xs)
        return (stacked[ids, np.arange(ids.size)],)
    return run


@kernel_rule('multiplex_grad')
def _multiplex_grad_kernel(spec):
    wanted = [spec.has_output('X@GRAD') and n != '@EMPTY@' for n in spec.op.output('X@GRAD')]

    def run(ids, dout):
        ids = np.asarray(ids).reshape(-1)
        outs = []
        for k, want in enumerate(wanted):
            if not want:
                outs.append(None)
                continue
            g = np.zeros(dout.shape, dout.dtype)
            g[ids == k] = dout[ids == k]
            outs.append(g)
        return (outs,)
    return run


# --- shard_index -----------------------------------------------------------------------------------------------------

defop('shard_index', ['X'], ['Out'], {'index_num': 0, 'nshards': 1, 'shard_id': 0, 'ignore_value': -1})


@shape_rule('shard_index')
def _shard_index_shape(ctx):
    xs = ctx.in_shape('X')
    if not xs or xs[-1] not in (1, -1):
        raise ValueError('The last dimension of Input(X) should be 1, but received %s' % list(xs))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('shard_index')
def _shard_index_kernel(spec):
    index_num, nshards = int(spec.attr('index_num')), int(spec.attr('nshards'))
    shard_id, ignore = int(spec.attr('shard_id')), int(spec.attr('ignore_value'))
    size = (index_num + nshards - 1) // nshards

    def run(x):
        if x.size and (x.min() < 0 or x.max() >= index_num):
            raise ValueError('The input_index for Op(shard_index) must be in [0, %d), but received %s'
                             % (index_num, x.reshape(-1).tolist()))
        return (np.where(x // size == shard_id, x % size, ignore).astype(x.dtype),)
    return run


# --- repeat_interleave (X, RepeatsTensor; Repeats, dim) -----------------------------------------------------------

defop('repeat_interleave', ['X', 'RepeatsTensor'], ['Out'], {'Repeats': 0, 'dim': 0}, dispensable=['RepeatsTensor'],
      grad=GradSpec(('X', 'RepeatsTensor', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('repeat_interleave')
def _repeat_interleave_shape(ctx):
    xs = list(ctx.in_shape('X'))
    dim = norm_axis(ctx.attr('dim'), len(xs), 'repeat_interleave')
    if ctx.has_input('RepeatsTensor'):
        xs[dim] = -1
    elif xs[dim] >= 0:
        xs[dim] *= int(ctx.attr('Repeats'))
    ctx.set_output('Out', tuple(xs), ctx.in_dtype('X'))


def _repeats(spec, repeats_tensor):
    return np.asarray(repeats_tensor).reshape(-1) if repeats_tensor is not None else int(spec.attr('Repeats'))


@kernel_rule('repeat_interleave')
def _repeat_interleave_kernel(spec):
    def run(x, repeats_tensor):
        dim = norm_axis(spec.attr('dim'), x.ndim, 'repeat_interleave')
        return (np.repeat(x, _repeats(spec, repeats_tensor), axis=dim),)
    return run


@kernel_rule('repeat_interleave_grad')
def _repeat_interleave_grad_kernel(spec):
    def run(x, repeats_tensor, dout):
        dim = norm_axis(spec.attr('dim'), x.ndim, 'repeat_interleave')
        reps = np.broadcast_to(_repeats(spec, repeats_tensor), (x.shape[dim],))
        starts = np.concatenate([[0], np.cumsum(reps)[:-1]]).astype(np.int64)
        summed = np.add.reduceat(dout, starts, axis=dim) if dout.shape[dim] else np.zeros(x.shape, x.dtype)
        empty = reps == 0    # reduceat copies the next slice for empty groups: zero them
        if empty.any():
            summed = np.moveaxis(summed, dim, 0)
            summed[empty] = 0
            summed = np.moveaxis(summed, 0, dim)
        return (summed.astype(x.dtype),)
    return run

