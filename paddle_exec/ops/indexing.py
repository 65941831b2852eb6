"""Indexing ops with Paddle's op types, slots and attributes: gather, gather_nd, scatter, scatter_nd_add, index_select,
roll, tril_triu, cumsum (flip is in ops/slicing.py). Kernels: kernels/indexing.py; gather's are shared with the
embedding family (kernels/embedding.py).

    gather(X, Index, Axis?) -> Out        Out = X[Index] along attr axis (an Axis tensor wins); grad scatters
                                          Out@GRAD back (attr overwrite: last duplicate wins, or summed)
    gather_nd(X, Index) -> Out            Out = X[Index[..., :k]], shape Index.shape[:-1] + X.shape[k:]
    scatter(X, Ids, Updates) -> Out       attr overwrite (True: last duplicate wins; False: duplicates summed)
    scatter_nd_add(X, Index, Updates)     X with Updates added at Index (duplicates accumulate)
    index_select(X, Index) -> Out         attr dim (negative allowed)
    roll(X, ShiftsTensor?) -> Out         attrs shifts and axis (2.x) / dims (1.8); no axis: the flattened tensor
    tril_triu(X) -> Out                   attrs diagonal, lower
    cumsum(X) -> Out                      attrs axis, exclusive, reverse, flatten (2.x: axis None)

Gradients, as Paddle makes them:
    gather_nd_grad(X, Index, Out@GRAD)                  scatter_nd_add of Out@GRAD into zeros shaped like X
    scatter_grad(Ids, Updates, Out@GRAD)                Paddle 2.x's: X@GRAD = Out@GRAD with the Ids rows zeroed,
                                                        Updates@GRAD = Out@GRAD[Ids] (for either overwrite)
    scatter_nd_add_grad(Index, Updates, Out@GRAD)       X@GRAD = Out@GRAD, Updates@GRAD = gather_nd(Out@GRAD)
    index_select_grad(X, Index, Out@GRAD)               Out@GRAD slices added back at Index
    roll_grad(X, ShiftsTensor?, Out@GRAD)               roll by the negated shifts
    tril_triu_grad(Out@GRAD)                            the same triangle of Out@GRAD
    cumsum: a `cumsum` of Out@GRAD with `reverse` flipped (Paddle 1.8 - 2.4's grad maker); with flatten, Paddle
    2.5+'s cumsum_grad(X, Out@GRAD), which restores X's shape (the plain cumsum grad would leave it 1-D).

Deliberate difference: Paddle 1.8's scatter_grad passed Out@GRAD through to X@GRAD unchanged (rows overwritten by
the scatter got gradient too); this follows 2.x, which zeroes them.
Indices are never wrapped: a negative or too large index raises with Paddle's wording and exception type.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ..kernels import embedding as embedding_kernels
from ..kernels import indexing as K
from ._util import dims_text, norm_axis, prod, runtime_int, same_shape_as_x

__all__ = ['gather_nd_shape']


# --- gather_nd / scatter_nd_add -------------------------------------------------------------------------------------

defop('gather_nd', ['X', 'Index'], ['Out'], grad=GradSpec(('X', 'Index', 'Out@GRAD'), ('X@GRAD',)))
defop('scatter_nd_add', ['X', 'Index', 'Updates'], ['Out'],
      grad=GradSpec(('Index', 'Updates', 'Out@GRAD'), ('X@GRAD', 'Updates@GRAD')))


def gather_nd_shape(x_shape, index_shape, op_type: str = 'gather_nd') -> tuple:
    """Index.shape[:-1] + X.shape[k:] with k = Index.shape[-1] (all unknown when k is)."""
    if not index_shape:
        raise ValueError("Input(Index) of operator '%s' must have at least one dimension" % op_type)
    k = index_shape[-1]
    if k < 0:       # the output's rank depends on k: keep Index's leading dims and one unknown dim
        return tuple(index_shape[:-1]) + (-1,)
    if k > len(x_shape):
        raise ValueError("The last dimension of Input(Index)'s shape (%d) of operator '%s' must be <= the rank of "
                         'Input(X) (%d)' % (k, op_type, len(x_shape)))
    return tuple(index_shape[:-1]) + tuple(x_shape[k:])


@shape_rule('gather_nd')
def _gather_nd_shape(ctx):
    ctx.set_output('Out', gather_nd_shape(ctx.in_shape('X'), ctx.in_shape('Index')), ctx.in_dtype('X'))


@shape_rule('scatter_nd_add')
def _scatter_nd_add_shape(ctx):
    xs, us = ctx.in_shape('X'), ctx.in_shape('Updates')
    want = gather_nd_shape(xs, ctx.in_shape('Index'), 'scatter_nd_add')
    if len(want) != len(us) or any(a >= 0 and b >= 0 and a != b for a, b in zip(want, us)):
        raise ValueError('Input(Updates) of operator scatter_nd_add has shape [%s]; it must be Index.shape[:-1] + '
                         'X.shape[Index.shape[-1]:] = [%s]' % (dims_text(us), dims_text(want)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('gather_nd')
def _gather_nd(spec):
    return lambda x, index: (K.gather_nd_forward(x, index),)


@kernel_rule('gather_nd_grad')
def _gather_nd_grad(spec):
    return lambda x, index, dout: (K.gather_nd_backward(x.shape, index, dout).astype(x.dtype, copy=False),)


@kernel_rule('scatter_nd_add')
def _scatter_nd_add(spec):
    return lambda x, index, updates: (K.scatter_nd_add_forward(x, index, updates),)


@kernel_rule('scatter_nd_add_grad')
def _scatter_nd_add_grad(spec):
    want_x, want_u = spec.has_output('X@GRAD'), spec.has_output('Updates@GRAD')

    def run(index, updates, dout):
        return (dout.copy() if want_x else None,
                K.gather_nd_forward(dout, index).astype(updates.dtype, copy=False) if want_u else None)
    return run


# --- scatter ---------------------------------------------------------------------------------------------------------

defop('scatter', ['X', 'Ids', 'Updates'], ['Out'], {'overwrite': True},
      grad=GradSpec(('Ids', 'Updates', 'Out@GRAD'), ('X@GRAD', 'Updates@GRAD')))


@shape_rule('scatter')
def _scatter_shape(ctx):
    xs, ids, us = ctx.in_shape('X'), ctx.in_shape('Ids'), ctx.in_shape('Updates')
    if len(ids) not in (1, 2) or (len(ids) == 2 and ids[1] not in (1, -1)):
        raise ValueError("The Ids of operator 'scatter' should be 1-D or [N, 1], but received shape [%s]"
                         % dims_text(ids))
    if len(us) != len(xs) or any(a >= 0 and b >= 0 and a != b for a, b in zip(us[1:], xs[1:])):
        raise ValueError("Input(Updates) of operator 'scatter' has shape [%s]; its dims after the first must be X's "
                         '[%s]' % (dims_text(us), dims_text(xs[1:])))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('scatter')
def _scatter(spec):
    overwrite = bool(spec.attr('overwrite'))
    return lambda x, ids, updates: (K.scatter_forward(x, ids, updates, overwrite),)


@kernel_rule('scatter_grad')
def _scatter_grad(spec):
    want_x, want_u = spec.has_output('X@GRAD'), spec.has_output('Updates@GRAD')

    def run(ids, updates, dout):
        dx, du = K.scatter_backward(ids, dout, want_x, want_u)
        return dx, (du.astype(updates.dtype, copy=False) if du is not None else None)
    return run


# --- index_select -----------------------------------------------------------------------------------------------------

defop('index_select', ['X', 'Index'], ['Out'], {'dim': 0}, grad=GradSpec(('X', 'Index', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('index_select')
def _index_select_shape(ctx):
    xs, idx = ctx.in_shape('X'), ctx.in_shape('Index')
    dim = norm_axis(ctx.attr('dim'), len(xs), 'index_select', 'dim')
    if len(idx) != 1 and not (len(idx) == 2 and idx[1] == 1):
        raise ValueError("The 'shape' of Input(Index) of operator index_select must be 1-D or [N, 1], but received "
                         'shape [%s]' % dims_text(idx))
    ctx.set_output('Out', xs[:dim] + (idx[0],) + xs[dim + 1:], ctx.in_dtype('X'))


@kernel_rule('index_select')
def _index_select(spec):
    dim = spec.attr('dim')
    return lambda x, index: (K.index_select_forward(x, index, norm_axis(dim, x.ndim, 'index_select', 'dim')),)


@kernel_rule('index_select_grad')
def _index_select_grad(spec):
    dim = spec.attr('dim')

    def run(x, index, dout):
        axis = norm_axis(dim, x.ndim, 'index_select_grad', 'dim')
        return (K.index_select_backward(x.shape, index, dout, axis).astype(x.dtype, copy=False),)
    return run


# --- roll -------------------------------------------------------------------------------------------------------------

# `axis` is 2.x's attribute, `dims` 1.8's: the op honours whichever is set (as flip does)
defop('roll', ['X', 'ShiftsTensor'], ['Out'], {'shifts': [], 'axis': [], 'dims': []}, dispensable=['ShiftsTensor'],
      grad=GradSpec(('X', 'ShiftsTensor', 'Out@GRAD'), ('X@GRAD',)))


def _roll_axes(attrs_of) -> list:
    return list(attrs_of('axis') or attrs_of('dims') or [])


def _check_roll(shifts, axes, rank: int) -> None:
    for a in axes:
        norm_axis(a, rank, 'roll', 'axis')
    if axes and len(shifts) != len(axes):
        raise ValueError('When dims.size() != 1, dims.size() should be equal to shifts.size(). But received '
                         'dims.size() = %d, shifts.size() = %d' % (len(axes), len(shifts)))
    if not axes and len(shifts) != 1:
        raise ValueError('shifts.size() should be equal to 1 when Attr(axis).size() == 0, but received '
                         'shifts.size() = %d' % len(shifts))


@shape_rule('roll')
def _roll_shape(ctx):
    xs = ctx.in_shape('X')
    if not ctx.has_input('ShiftsTensor'):
        _check_roll(ctx.attr('shifts'), _roll_axes(ctx.attr), len(xs))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


def _roll_kernel(spec, sign: int):
    axes, attr_shifts = _roll_axes(spec.attr), list(spec.attr('shifts'))

    def run(x, shifts_tensor, *dout):
        shifts = attr_shifts if shifts_tensor is None else [int(v) for v in np.asarray(shifts_tensor).reshape(-1)]
        _check_roll(shifts, axes, x.ndim)
        src = dout[0] if dout else x
        return (K.roll_forward(src, [sign * s for s in shifts], axes),)
    return run


kernel_rule('roll')(lambda spec: _roll_kernel(spec, 1))
kernel_rule('roll_grad')(lambda spec: _roll_kernel(spec, -1))


# --- tril_triu -------------------------------------------------------------------------------------------------------

defop('tril_triu', ['X'], ['Out'], {'diagonal': 0, 'lower': False}, grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('tril_triu')
def _tril_triu_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) < 2:
        raise ValueError("Input(X)'s rank must be at least 2 in TrilTriuOp, but received rank %d" % len(xs))
    same_shape_as_x(ctx)


@kernel_rule('tril_triu', 'tril_triu_grad')
def _tril_triu(spec):
    diagonal, lower = int(spec.attr('diagonal')), bool(spec.attr('lower'))
    return lambda x: (K.tril_triu(x, diagonal, lower),)


# --- cumsum -----------------------------------------------------------------------------------------------------------

defop('cumsum', ['X'], ['Out'], {'axis': -1, 'exclusive': False, 'reverse': False, 'flatten': False})
defop('cumsum_grad', ['X', 'Out@GRAD'], ['X@GRAD'], {'axis': -1, 'exclusive': False, 'reverse': False,
                                                     'flatten': False})


@shape_rule('cumsum')
def _cumsum_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.attr('flatten'):
        return ctx.set_output('Out', (prod(xs),), ctx.in_dtype('X'))
    norm_axis(ctx.attr('axis'), len(xs), 'cumsum')
    same_shape_as_x(ctx)


@shape_rule('cumsum_grad')
def _cumsum_grad_shape(ctx):
    ctx.set_output('X@GRAD', ctx.in_shape('X'), ctx.in_dtype('X'))


def _cumsum_run(x, axis, exclusive, reverse, flatten):
    if flatten:
        return K.cumsum(x.reshape(-1), 0, exclusive, reverse)
    return K.cumsum(x, norm_axis(axis, x.ndim, 'cumsum'), exclusive, reverse)


@kernel_rule('cumsum')
def _cumsum(spec):
    args = (spec.attr('axis'), spec.attr('exclusive'), spec.attr('reverse'), spec.attr('flatten'))
    return lambda x: (_cumsum_run(x, *args),)


@kernel_rule('cumsum_grad')
def _cumsum_grad(spec):
    axis, exclusive, reverse = spec.attr('axis'), spec.attr('exclusive'), not spec.attr('reverse')
    return lambda x, dout: (_cumsum_run(dout, axis, exclusive, reverse, True).reshape(x.shape),)


@grad_rule('cumsum')
def _cumsum_grad_maker(g):
    attrs = dict(g.attrs)
    if attrs.get('flatten'):
        return [('cumsum_grad', {'X': g.input('X'), 'Out@GRAD': g.output_grad('Out')}, {'X@GRAD': g.input_grad('X')},
                 attrs)]
    attrs['reverse'] = not attrs.get('reverse', False)
    return [('cumsum', {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')}, attrs)]


# --- gather: Out = X[Index] along `axis` (kernels shared with the embedding family) -----------------------------------

defop('gather', ['X', 'Index', 'Axis'], ['Out'], {'overwrite': True, 'axis': 0}, dispensable=['Axis'],
      grad=GradSpec(('X', 'Index', 'Axis', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('gather')
def _gather_shape(ctx):
    xs, idx = ctx.in_shape('X'), ctx.in_shape('Index')
    if len(idx) == 2 and idx[1] >= 0 and idx[1] != 1:
        raise ValueError('The last dim of index should be 1 when it is 2D, but we get %d' % idx[1])
    if len(idx) not in (1, 2):
        raise ValueError('The index should be 1D, when it is not 2D, but we get %d' % len(idx))
    if ctx.has_input('Axis'):
        return ctx.set_output('Out', (-1,) * len(xs), ctx.in_dtype('X'))
    axis = norm_axis(ctx.attr('axis'), len(xs), 'gather')
    ctx.set_output('Out', xs[:axis] + (idx[0],) + xs[axis + 1:], ctx.in_dtype('X'))


@kernel_rule('gather')
def _gather(spec):
    axis = spec.attr('axis')

    def run(x, index, axis_tensor):
        ax = axis if axis_tensor is None else runtime_int(axis_tensor)
        return (embedding_kernels.gather_forward(x, index, ax),)
    return run


@kernel_rule('gather_grad')
def _gather_grad(spec):
    axis, overwrite = spec.attr('axis'), spec.attr('overwrite')

    def run(x, index, axis_tensor, dout):
        ax = axis if axis_tensor is None else runtime_int(axis_tensor)
        return (embedding_kernels.gather_backward(x.shape, index, dout, ax, overwrite).astype(x.dtype, copy=False),)
    return run
