"""Slicing ops: slice, strided_slice, reverse and flip, with Paddle's slots, attributes and shape rules.

    slice(Input, StartsTensor?, EndsTensor?, StartsTensorList?, EndsTensorList?) -> Out
        attrs axes, starts, ends (negative: from the end, clamped), infer_flags, decrease_axis
    strided_slice(Input, ... StridesTensor?, StridesTensorList?) -> Out     attr strides as well
    reverse(X) -> Out (fluid, attr axis), flip(X) -> Out (attr axis in 2.x, dims in 1.8)

Runtime tensors win over the attributes (a tensor list first, then a whole tensor). The grads of slice and
strided_slice scatter Out@GRAD into zeros shaped like Input; the gradient of reverse / flip is the same op.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ._util import must_copy, norm_axis, runtime_list, same_shape_as_x

__all__ = ['slice_bounds', 'strided_slice_index']


def slice_bounds(start: int, end: int, dim: int) -> tuple[int, int]:
    """Paddle's slice bounds (negative = from the end, clamped to [0, dim]); end < start is an error."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    if end < start:
        raise ValueError('end should greater than start, but received end = %d, start = %d' % (end, start))
    return start, end


def _decrease(shape, decrease_axis, runtime: bool):
    if not decrease_axis:
        return tuple(shape)
    drop = set()
    for a in decrease_axis:
        if runtime and shape[a] != 1:
            raise ValueError('decrease dim should be 1, but received dimension %d of size %d' % (a, shape[a]))
        drop.add(a)
    out = tuple(d for i, d in enumerate(shape) if i not in drop)
    return out or (1,)


_SLICE_TENSORS = ['StartsTensor', 'EndsTensor', 'StartsTensorList', 'EndsTensorList']
defop('slice', ['Input'] + _SLICE_TENSORS, ['Out'],
      {'axes': [], 'starts': [], 'ends': [], 'infer_flags': [], 'decrease_axis': []},
      duplicable=['StartsTensorList', 'EndsTensorList'], dispensable=_SLICE_TENSORS,
      grad=GradSpec(('Input', *_SLICE_TENSORS, 'Out@GRAD'), ('Input@GRAD',)))


def _slice_attrs_check(axes, starts, ends, rank, op_type):
    if len(starts) != len(axes) or len(ends) != len(axes):
        raise ValueError("operator '%s': axes, starts and ends must have one entry each per sliced axis, got axes=%s "
                         "starts=%s ends=%s" % (op_type, list(axes), list(starts), list(ends)))
    for a in axes:
        if not 0 <= a < rank:
            raise ValueError("operator '%s': the axis %d is out of range for an input of rank %d" % (op_type, a, rank))


@shape_rule('slice')
def _slice_shape(ctx):
    xs = list(ctx.in_shape('Input'))
    axes, starts, ends = ctx.attr('axes'), ctx.attr('starts'), ctx.attr('ends')
    flags = ctx.attr('infer_flags') or [1] * len(axes)
    whole_tensor = ctx.has_input('StartsTensor') or ctx.has_input('EndsTensor')
    if not whole_tensor:
        _slice_attrs_check(axes, starts, ends, len(xs), 'slice')
    for i, a in enumerate(axes):
        if whole_tensor or flags[i] == -1 or xs[a] < 0:
            xs[a] = -1
        else:
            s, e = slice_bounds(starts[i], ends[i], xs[a])
            xs[a] = e - s
    ctx.set_output('Out', _decrease(xs, ctx.attr('decrease_axis'), runtime=False), ctx.in_dtype('Input'))


def _slice_index(axes, starts, ends, shape):
    index = [slice(None)] * len(shape)
    for a, s, e in zip(axes, starts, ends):
        lo, hi = slice_bounds(s, e, shape[a])
        index[a] = slice(lo, hi)
    return tuple(index)


@kernel_rule('slice')
def _slice(spec):
    axes, starts, ends = spec.attr('axes'), spec.attr('starts'), spec.attr('ends')
    decrease = spec.attr('decrease_axis')
    copy = must_copy(spec, 'Input')

    def run(x, st, et, stl, etl):
        index = _slice_index(axes, runtime_list(starts, st, stl), runtime_list(ends, et, etl), x.shape)
        out = x[index]
        if decrease:
            out = out.reshape(_decrease(out.shape, decrease, runtime=True))
        return (out.copy() if copy else np.ascontiguousarray(out),)
    return run


@kernel_rule('slice_grad')
def _slice_grad(spec):
    axes, starts, ends = spec.attr('axes'), spec.attr('starts'), spec.attr('ends')

    def run(x, st, et, stl, etl, dout):
        index = _slice_index(axes, runtime_list(starts, st, stl), runtime_list(ends, et, etl), x.shape)
        dx = np.zeros(x.shape, dtype=dout.dtype)
        dx[index] = dout.reshape(dx[index].shape)
        return (dx,)
    return run


# --- strided_slice: Python slicing per axis (an end of -1 with a negative stride runs to the front) -----------------

_STRIDED_TENSORS = ['StartsTensor', 'EndsTensor', 'StridesTensor', 'StartsTensorList', 'EndsTensorList',
                    'StridesTensorList']
defop('strided_slice', ['Input'] + _STRIDED_TENSORS, ['Out'],
      {'axes': [], 'starts': [], 'ends': [], 'strides': [], 'infer_flags': [], 'decrease_axis': []},
      duplicable=['StartsTensorList', 'EndsTensorList', 'StridesTensorList'], dispensable=_STRIDED_TENSORS,
      grad=GradSpec(('Input', *_STRIDED_TENSORS, 'Out@GRAD'), ('Input@GRAD',)))


def strided_slice_index(axes, starts, ends, strides, shape) -> tuple:
    """The numpy index of a strided_slice. Paddle 2.x's semantics are Python's, except that an end of -1 with a
    negative stride means 'through index 0'. (Paddle 1.8 shifted negative-stride slices whose length is not a
    multiple of the stride by one element; 2.x fixed it; this follows 2.x.)"""
    index = [slice(None)] * len(shape)
    for a, s, e, k in zip(axes, starts, ends, strides):
        if k == 0:
            raise ValueError('The stride of strided_slice must not be 0 (axis %d)' % a)
        index[a] = slice(s, None if (k < 0 and e == -1) else e, k)
    return tuple(index)


@shape_rule('strided_slice')
def _strided_slice_shape(ctx):
    xs = list(ctx.in_shape('Input'))
    axes, starts, ends, strides = ctx.attr('axes'), ctx.attr('starts'), ctx.attr('ends'), ctx.attr('strides')
    flags = ctx.attr('infer_flags') or [1] * len(axes)
    whole_tensor = any(ctx.has_input(s) for s in ('StartsTensor', 'EndsTensor', 'StridesTensor'))
    if not whole_tensor:
        _slice_attrs_check(axes, starts, ends, len(xs), 'strided_slice')
    for i, a in enumerate(axes):
        if whole_tensor or flags[i] == -1 or xs[a] < 0:
            xs[a] = -1
        else:
            sl = strided_slice_index([a], [starts[i]], [ends[i]], [strides[i]], xs)[a]
            xs[a] = len(range(*sl.indices(xs[a])))
    ctx.set_output('Out', _decrease(xs, ctx.attr('decrease_axis'), runtime=False), ctx.in_dtype('Input'))


def _strided_runtime_index(attrs, x_shape, tensors):
    axes, starts, ends, strides = attrs
    st, et, kt, stl, etl, ktl = tensors
    return strided_slice_index(axes, runtime_list(starts, st, stl), runtime_list(ends, et, etl),
                               runtime_list(strides, kt, ktl), x_shape)


@kernel_rule('strided_slice')
def _strided_slice(spec):
    attrs = (spec.attr('axes'), spec.attr('starts'), spec.attr('ends'), spec.attr('strides'))
    decrease = spec.attr('decrease_axis')
    copy = must_copy(spec, 'Input')

    def run(x, *tensors):
        out = x[_strided_runtime_index(attrs, x.shape, tensors)]
        if decrease:
            out = out.reshape(_decrease(out.shape, decrease, runtime=True))
        return (out.copy() if copy else np.ascontiguousarray(out),)
    return run


@kernel_rule('strided_slice_grad')
def _strided_slice_grad(spec):
    attrs = (spec.attr('axes'), spec.attr('starts'), spec.attr('ends'), spec.attr('strides'))

    def run(x, *rest):
        tensors, dout = rest[:-1], rest[-1]
        index = _strided_runtime_index(attrs, x.shape, tensors)
        dx = np.zeros(x.shape, dtype=dout.dtype)
        dx[index] = dout.reshape(dx[index].shape)
        return (dx,)
    return run


# --- reverse (fluid, attr `axis`) and flip (attr `axis` in 2.x, `dims` in 1.8): the gradient is the same op --------

defop('reverse', ['X'], ['Out'], {'axis': []})
defop('flip', ['X'], ['Out'], {'axis': [], 'dims': []})
shape_rule('reverse')(same_shape_as_x)
shape_rule('flip')(same_shape_as_x)


@kernel_rule('reverse', 'flip')
def _reverse(spec):
    axes = tuple(spec.attr('axis') or spec.attr('dims') or [])

    def run(x):
        for a in axes:
            norm_axis(a, x.ndim, spec.type)
        return (np.ascontiguousarray(np.flip(x, axis=axes)),)
    return run


def _self_grad_maker(type):
    def maker(g):
        return [(type, {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')}, dict(g.attrs))]
    return maker


grad_rule('reverse')(_self_grad_maker('reverse'))
grad_rule('flip')(_self_grad_maker('flip'))
