"""Order statistics and counting ops: kthvalue, mode, nanmedian, histogram, bincount, searchsorted, unique (1.8's
first-appearance order and 2.x's sorted form with axis / indices / counts), unique_with_counts (1.8) and
unique_consecutive (2.x). Numerics are numpy's sorts and counts; output shapes with data-dependent sizes are -1
at compile time.

Paddle's rules kept (checked with Paddle 2.6.2 / 1.8.5):
    kthvalue(k, axis, keepdim)   the k-th smallest (1-based) and its index; gradient to that index
    mode(axis, keepdim)          the most frequent value, the smallest among equally frequent ones, with the index
                                 of its last occurrence; gradient to that index
    nanmedian(axis, keepdim)     the median of the non-nan elements (the mean of the two middle ones for an even
                                 count; nan when all are nan); MedianIndex holds both middle indices, and the
                                 gradient gives each half
    histogram(bins, min, max)    int64 counts of `bins` equal bins over [min, max] (the data's range when both
                                 are 0); the last bin includes max; values outside are not counted
    bincount(minlength)          counts (or sums of Weights) of each non-negative integer
    searchsorted(right, out_int32)  numpy's searchsorted on the last axis, sequences batched over leading dims
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import norm_axis
from .cumulative import add_at_indices

__all__ = ['unique_values']


def _reduced_shape(xs, axis: int, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i == axis else n for i, n in enumerate(xs))
    return tuple(n for i, n in enumerate(xs) if i != axis)


def _maybe_keep(a, axis: int, keepdim: bool):
    return np.expand_dims(a, axis) if keepdim else a


# --- kthvalue, mode ------------------------------------------------------------------------------------------------

defop('kthvalue', ['X'], ['Out', 'Indices'], {'k': 1, 'axis': -1, 'keepdim': False},
      grad=GradSpec(('X', 'Indices', 'Out@GRAD'), ('X@GRAD',)))
defop('mode', ['X'], ['Out', 'Indices'], {'axis': -1, 'keepdim': False},
      grad=GradSpec(('X', 'Indices', 'Out@GRAD'), ('X@GRAD',)))


def _selection_shape(ctx):
    xs = ctx.in_shape('X')
    axis = norm_axis(ctx.attr('axis'), len(xs), ctx.op.type) if xs else 0
    if ctx.op.type == 'kthvalue' and xs and 0 <= xs[axis] < ctx.attr('k'):
        raise ValueError('the k in the kthvalue must less equal than the elemenents number of the input X, but '
                         'received %d .' % ctx.attr('k'))
    out = _reduced_shape(xs, axis, ctx.attr('keepdim')) if xs else ()
    ctx.set_output('Out', out, ctx.in_dtype('X'))
    ctx.set_output('Indices', out, VarType.INT64)


shape_rule('kthvalue')(_selection_shape)
shape_rule('mode')(_selection_shape)


@kernel_rule('kthvalue')
def _kthvalue_kernel(spec):
    k, axis_attr, keepdim = spec.attr('k'), spec.attr('axis'), bool(spec.attr('keepdim'))

    def run(x):
        axis = norm_axis(axis_attr, x.ndim, 'kthvalue') if x.ndim else 0
        a = x.reshape(1) if x.ndim == 0 else x
        if not 1 <= k <= a.shape[axis]:
            raise ValueError('the k in the kthvalue must less equal than the elemenents number of the input X, '
                             'but received %d .' % k)
        order = np.argsort(a, axis=axis, kind='stable')
        idx = np.take(order, [k - 1], axis=axis)
        val = np.take_along_axis(a, idx, axis=axis)
        if not keepdim:
            idx, val = np.squeeze(idx, axis), np.squeeze(val, axis)
        return val.reshape(() if x.ndim == 0 else val.shape), idx.astype(np.int64)
    return run


@kernel_rule('mode')
def _mode_kernel(spec):
    axis_attr, keepdim = spec.attr('axis'), bool(spec.attr('keepdim'))

    def run(x):
        axis = norm_axis(axis_attr, x.ndim, 'mode') if x.ndim else 0
        a = x.reshape(1) if x.ndim == 0 else x
        lines = np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])
        vals = np.empty(lines.shape[0], x.dtype)
        idx = np.empty(lines.shape[0], np.int64)
        for r, line in enumerate(lines):
            uniq, counts = np.unique(line, return_counts=True)
            best = uniq[np.argmax(counts)]          # np.unique sorts: the smallest of the most frequent
            vals[r] = best
            idx[r] = np.flatnonzero(line == best)[-1]
        lead = np.moveaxis(a, axis, -1).shape[:-1]
        vals, idx = vals.reshape(lead), idx.reshape(lead)
        return _maybe_keep(vals, axis, keepdim), _maybe_keep(idx, axis, keepdim)
    return run


@kernel_rule('kthvalue_grad', 'mode_grad')
def _selection_grad_kernel(spec):
    axis_attr, keepdim = spec.attr('axis'), bool(spec.attr('keepdim'))

    def run(x, indices, dout):
        axis = norm_axis(axis_attr, x.ndim, spec.type) if x.ndim else 0
        idx = indices if keepdim else np.expand_dims(indices, axis)
        d = dout if keepdim else np.expand_dims(dout, axis)
        return (add_at_indices(x.shape, x.dtype, idx, d, axis),)
    return run


# --- nanmedian ------------------------------------------------------------------------------------------------------

defop('nanmedian', ['X'], ['Out', 'MedianIndex'], {'axis': [], 'keepdim': True},
      grad=GradSpec(('X', 'MedianIndex', 'Out@GRAD'), ('X@GRAD',)))


def _median_axes(axis, rank: int) -> tuple:
    axes = [axis] if isinstance(axis, int) else list(axis or [])
    return tuple(sorted({norm_axis(a, rank, 'nanmedian') for a in axes})) if axes else tuple(range(rank))


@shape_rule('nanmedian')
def _nanmedian_shape(ctx):
    xs = ctx.in_shape('X')
    axes = _median_axes(ctx.attr('axis'), len(xs))
    keep = ctx.attr('keepdim')
    out = tuple(1 if i in axes else n for i, n in enumerate(xs)) if keep else tuple(
        n for i, n in enumerate(xs) if i not in axes)
    ctx.set_output('Out', out or (1,), ctx.in_dtype('X'))
    ctx.set_output('MedianIndex', tuple(out) + (2,), VarType.INT64)


def _median_lines(x, axes):
    """x with the median axes moved last and flattened: (lines, the kept dims)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, rest + list(axes))
    kept = moved.shape[:len(rest)]
    return moved.reshape(int(np.prod(kept, dtype=np.int64)), -1), kept


@kernel_rule('nanmedian')
def _nanmedian_kernel(spec):
    axis_attr, keepdim = spec.attr('axis'), bool(spec.attr('keepdim'))

    def run(x):
        axes = _median_axes(axis_attr, x.ndim)
        lines, kept = _median_lines(x, axes)
        out = np.empty(lines.shape[0], x.dtype)
        index = np.full((lines.shape[0], 2), -1, np.int64)
        for r, line in enumerate(lines):
            valid = np.flatnonzero(~np.isnan(line))
            if valid.size == 0:
                out[r] = np.nan
                continue
            order = valid[np.argsort(line[valid], kind='stable')]
            lo, hi = order[(valid.size - 1) // 2], order[valid.size // 2]
            out[r] = (line[lo] + line[hi]) / 2 if lo != hi else line[lo]
            index[r] = (lo, hi)
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdim else kept
        return out.reshape(shape or (1,)), index.reshape(tuple(shape) + (2,))
    return run


@kernel_rule('nanmedian_grad')
def _nanmedian_grad_kernel(spec):
    axis_attr = spec.attr('axis')

    def run(x, median_index, dout):
        axes = _median_axes(axis_attr, x.ndim)
        lines, _ = _median_lines(x, axes)
        grads = np.zeros(lines.shape, x.dtype)
        index = median_index.reshape(-1, 2)
        d = np.asarray(dout).reshape(-1)
        for r in range(lines.shape[0]):
            lo, hi = index[r]
            if lo < 0:
                continue
            if lo == hi:
                grads[r, lo] += d[r]
            else:
                grads[r, lo] += d[r] / 2
                grads[r, hi] += d[r] / 2
        rest = [i for i in range(x.ndim) if i not in axes]
        moved_shape = tuple(x.shape[i] for i in rest + list(axes))
        return (np.transpose(grads.reshape(moved_shape), np.argsort(rest + list(axes))).astype(x.dtype),)
    return run


# --- histogram, bincount -------------------------------------------------------------------------------------------

defop('histogram', ['X'], ['Out'], {'bins': 100, 'min': 0, 'max': 0})


@shape_rule('histogram')
def _histogram_shape(ctx):
    ctx.set_output('Out', (ctx.attr('bins'),), VarType.INT64)


@kernel_rule('histogram')
def _histogram_kernel(spec):
    bins, lo_attr, hi_attr = int(spec.attr('bins')), float(spec.attr('min')), float(spec.attr('max'))

    def run(x):
        data = x.reshape(-1).astype(np.float64)
        lo, hi = lo_attr, hi_attr
        if lo == 0 and hi == 0 and data.size:
            lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        counts, _ = np.histogram(data, bins=bins, range=(lo, hi))
        return (counts.astype(np.int64),)
    return run


defop('bincount', ['X', 'Weights'], ['Out'], {'minlength': 0}, dispensable=['Weights'])


@shape_rule('bincount')
def _bincount_shape(ctx):
    dtype = ctx.in_dtype('Weights') if ctx.has_input('Weights') else ctx.in_dtype('X')
    ctx.set_output('Out', (-1,), dtype)


@kernel_rule('bincount')
def _bincount_kernel(spec):
    minlength = int(spec.attr('minlength'))

    def run(x, weights):
        flat = x.reshape(-1)
        if flat.size and flat.min() < 0:
            raise ValueError('The elements in input tensor must be non-negative ints')
        if weights is None:
            return (np.bincount(flat, minlength=minlength).astype(x.dtype),)
        return (np.bincount(flat, weights.reshape(-1), minlength=minlength).astype(weights.dtype),)
    return run


# --- searchsorted ---------------------------------------------------------------------------------------------------

defop('searchsorted', ['SortedSequence', 'Values'], ['Out'], {'right': False, 'out_int32': False})


@shape_rule('searchsorted')
def _searchsorted_shape(ctx):
    ss, vs = ctx.in_shape('SortedSequence'), ctx.in_shape('Values')
    if len(ss) > 1 and (len(ss) != len(vs) or any(a != b and a >= 0 and b >= 0 for a, b in zip(ss[:-1], vs[:-1]))):
        raise ValueError('The dimensions of sorted_sequence tensor ( %s ) and input values tensor ( %s ) can not '
                         'match. Because the input sorted_sequence tensor must be 1 dimension or the first N-1 '
                         'dimensions of sorted_sequence tensor and input values tensor must match.'
                         % (list(ss), list(vs)))
    ctx.set_output('Out', vs, VarType.INT32 if ctx.attr('out_int32') else VarType.INT64)


@kernel_rule('searchsorted')
def _searchsorted_kernel(spec):
    side = 'right' if spec.attr('right') else 'left'
    dtype = np.int32 if spec.attr('out_int32') else np.int64

    def run(seq, values):
        if seq.ndim == 1:
            return (np.searchsorted(seq, values, side=side).astype(dtype),)
        flat_seq = seq.reshape(-1, seq.shape[-1])
        flat_val = values.reshape(flat_seq.shape[0], -1)
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(flat_seq, flat_val)])
        return (out.reshape(values.shape).astype(dtype),)
    return run


# --- unique, unique_with_counts, unique_consecutive ----------------------------------------------------------------

defop('unique', ['X'], ['Out', 'Index', 'Indices', 'Counts'],
      {'dtype': int(VarType.INT32), 'return_index': False, 'return_inverse': False, 'return_counts': False,
       'axis': [], 'is_sorted': False})
defop('unique_with_counts', ['X'], ['Out', 'Index', 'Count'], {'dtype': int(VarType.INT32)})
defop('unique_consecutive', ['X'], ['Out', 'Index', 'Counts'],
      {'dtype': int(VarType.INT64), 'return_inverse': False, 'return_counts': False, 'axis': []})


def unique_values(x, axis, sorted_order: bool):
    """(unique, first indices, inverse, counts) of x, along `axis` (None: flattened); without `sorted_order`,
    the unique elements in the order they first appear (Paddle 1.8's unique)."""
    if axis is None:
        uniq, first, inverse, counts = np.unique(x.reshape(-1), return_index=True, return_inverse=True,
                                                 return_counts=True)
    else:
        uniq, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                                 axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted_order:
        order = np.argsort(first, kind='stable')
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        uniq = uniq[order] if axis is None else np.take(uniq, order, axis=axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return uniq, first, inverse, counts


def _axis_of(attr, rank: int):
    axes = list(attr or [])
    return None if not axes else norm_axis(axes[0], rank, 'unique')


def _unique_shape(ctx):
    xs = ctx.in_shape('X')
    axis = _axis_of(ctx.op.attrs.get('axis'), len(xs))
    index_dtype = VarType(int(ctx.attr('dtype')))
    out = (-1,) if axis is None else tuple(-1 if i == axis else n for i, n in enumerate(xs))
    ctx.set_output('Out', out, ctx.in_dtype('X'))
    inverse_len = (int(np.prod(xs)) if all(n >= 0 for n in xs) else -1) if axis is None else xs[axis]
    ctx.set_output('Index', (inverse_len,), index_dtype)
    for slot in ('Indices', 'Counts', 'Count'):
        if slot in ctx.op.outputs:
            ctx.set_output(slot, (-1,), index_dtype)


for _t in ('unique', 'unique_with_counts', 'unique_consecutive'):
    shape_rule(_t)(_unique_shape)


@kernel_rule('unique', 'unique_with_counts')
def _unique_kernel(spec):
    index_dtype = to_numpy(VarType(int(spec.attr('dtype'))))
    sorted_order = bool(spec.attr('is_sorted', False))
    with_counts_op = spec.type == 'unique_with_counts'

    def run(x):
        axis = _axis_of(spec.attr('axis'), x.ndim)
        uniq, first, inverse, counts = unique_values(x, axis, sorted_order)
        cast = [a.astype(index_dtype) for a in (inverse, first, counts)]
        if with_counts_op:
            return uniq, cast[0], cast[2]
        return uniq, cast[0], cast[1], cast[2]
    return run


@kernel_rule('unique_consecutive')
def _unique_consecutive_kernel(spec):
    index_dtype = to_numpy(VarType(int(spec.attr('dtype'))))

    def run(x):
        axis = _axis_of(spec.attr('axis'), x.ndim)
        a = x.reshape(-1) if axis is None else np.moveaxis(x, axis, 0)
        n = a.shape[0]
        if n == 0:
            return x.copy(), np.zeros(0, index_dtype), np.zeros(0, index_dtype)
        flat = a.reshape(n, -1)
        starts = np.ones(n, bool)
        starts[1:] = np.any(flat[1:] != flat[:-1], axis=1)
        inverse = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), n))
        out = a[starts]
        if axis is not None:
            out = np.moveaxis(out, 0, axis)
        return out, inverse.astype(index_dtype), counts.astype(index_dtype)
    return run
