"""Joining and splitting ops: concat, split, stack, unstack, with Paddle's slots, attributes and shape rules.

    concat(X[], AxisTensor?) -> Out       grad concat_grad(X[], Out@GRAD, AxisTensor?) -> X@GRAD[]
    split(X, AxisTensor?, SectionsTensorList?) -> Out[]     attrs num or sections (one -1 inferred), axis;
                                          its gradient is a concat of the outputs' gradients (SplitGradMaker)
    stack(X[]) -> Y, unstack(X) -> Y[]    grads stack_grad / unstack_grad, the reverse operation

Gradients of duplicable inputs (concat_grad, stack_grad) keep Paddle's `@EMPTY@` entries for inputs that need no
gradient; the kernels skip those parts. split's outputs are views of X unless X is persistable.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, _grad_shape_rule, defop, grad_rule, kernel_rule, segment_rule, shape_rule
from ..framework.variable import EMPTY_VAR_NAME
from ..kernels.segment import tensor as ST
from ._util import dims_text, must_copy, norm_axis, runtime_int, runtime_ints, segment_op, var_rank

__all__ = ['concat_shape', 'split_sizes']


def _wanted(grad_names: list[str]) -> list[bool]:
    """Which entries of a duplicable gradient output someone wants (not `@EMPTY@`)."""
    return [g != EMPTY_VAR_NAME for g in grad_names]


# --- concat -----------------------------------------------------------------------------------------------------------

defop('concat', ['X', 'AxisTensor'], ['Out'], {'axis': 0, 'use_mkldnn': False, 'use_quantizer': False},
      duplicable=['X'], dispensable=['AxisTensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'AxisTensor'), ('X@GRAD',)))


def concat_shape(shapes, axis: int) -> tuple:
    out = list(shapes[0])
    for k, s in enumerate(shapes[1:], 1):
        if len(s) != len(out):
            raise ValueError("The shape of input[0] and input[%d] is expected to be equal. But received input[0]'s "
                             "shape = [%s], input[%d]'s shape = [%s]." % (k, dims_text(shapes[0]), k, dims_text(s)))
        for j, d in enumerate(s):
            if j == axis:
                out[j] = -1 if out[j] < 0 or d < 0 else out[j] + d
            elif out[j] >= 0 and d >= 0 and out[j] != d:
                raise ValueError("The shape of input[0] and input[%d] is expected to be equal. But received "
                                 "input[0]'s shape = [%s], input[%d]'s shape = [%s]."
                                 % (k, dims_text(shapes[0]), k, dims_text(s)))
            elif out[j] < 0:
                out[j] = d
    return tuple(out)


@shape_rule('concat')
def _concat_shape(ctx):
    xs = ctx.input_vars('X')
    if not xs:
        raise ValueError("Inputs(X) of ConcatOp should not be empty.")
    rank = len(xs[0].shape)
    if ctx.has_input('AxisTensor'):
        return ctx.set_output('Out', (-1,) * rank, xs[0].dtype)
    axis = norm_axis(ctx.attr('axis'), rank, 'concat')
    ctx.set_output('Out', concat_shape([v.shape for v in xs], axis), xs[0].dtype)


@kernel_rule('concat')
def _concat(spec):
    axis = spec.attr('axis')

    def run(xs, axis_tensor):
        ax = axis if axis_tensor is None else runtime_int(axis_tensor)
        return (np.concatenate(xs, axis=ax),)
    return run


def _split_parts(dout, sizes, axis):
    bounds = np.cumsum(sizes)[:-1]
    return np.split(dout, bounds, axis=axis)


@kernel_rule('concat_grad')
def _concat_grad(spec):
    axis = spec.attr('axis')
    wanted = _wanted(spec.op.output('X@GRAD'))

    def run(xs, dout, axis_tensor):
        ax = axis if axis_tensor is None else runtime_int(axis_tensor)
        ax = ax + dout.ndim if ax < 0 else ax
        parts = _split_parts(dout, [x.shape[ax] for x in xs], ax)
        return ([np.ascontiguousarray(p) if w else None for p, w in zip(parts, wanted)],)
    return run


# --- split -----------------------------------------------------------------------------------------------------------

defop('split', ['X', 'AxisTensor', 'SectionsTensorList'], ['Out'], {'sections': [], 'num': 0, 'axis': 0},
      duplicable=['Out', 'SectionsTensorList'], dispensable=['AxisTensor', 'SectionsTensorList'])


def split_sizes(dim: int, num: int, sections, n_out: int, runtime: bool) -> list[int]:
    """The sizes of split's outputs along the axis (-1 where unknown at compile time)."""
    if num > 0:
        if dim < 0:
            return [-1] * num
        if dim % num:
            raise ValueError("The input's size along the split dimension must be evenly divisible by "
                             "Attr(num_or_sections). But received Attr(num_or_sections) = %d, input(X)'s size "
                             "along the axis = %d." % (num, dim))
        return [dim // num] * num
    sections = [int(s) for s in sections]
    if len(sections) != n_out:
        raise ValueError('split: %d sections for %d outputs' % (len(sections), n_out))
    if dim < 0:
        return sections
    unknown = [i for i, s in enumerate(sections) if s < 0]
    if len(unknown) > 1:
        if runtime:
            raise ValueError("Only one dimension value of Attr(num_or_sections) in SplitOp can be -1. But received "
                             "Attr(num_or_sections) = [%s]." % dims_text(sections))
        return sections
    known = sum(s for s in sections if s >= 0)
    if unknown:
        if known > dim:
            raise ValueError("The sum of Attr(num_or_sections) (%d) exceeds the input's size along the split axis "
                             "(%d)" % (known, dim))
        sections[unknown[0]] = dim - known
    elif known != dim:
        raise ValueError("The sum of Attr(num_or_sections) must be equal to the length of input's dimension along "
                         "the split axis. But received sum of Attr(num_or_sections) is %d, input's dimension is %d."
                         % (known, dim))
    return sections


@shape_rule('split')
def _split_shape(ctx):
    xs = ctx.in_shape('X')
    n_out = len(ctx.op.output('Out'))
    dtype = ctx.in_dtype('X')
    if ctx.has_input('AxisTensor'):
        for i in range(n_out):
            ctx.set_output('Out', (-1,) * len(xs), dtype, i=i)
        return
    axis = norm_axis(ctx.attr('axis'), len(xs), 'split')
    sections = ctx.attr('sections')
    if ctx.attr('num') > 0 and ctx.attr('num') != n_out:
        raise ValueError("operator 'split' on %r: Attr(num) is %d but there are %d outputs"
                         % (ctx.op.input('X')[0], ctx.attr('num'), n_out))
    if ctx.has_input('SectionsTensorList'):
        sections = [-1] * n_out
    sizes = split_sizes(xs[axis], ctx.attr('num'), sections, n_out, runtime=False)
    for i, size in enumerate(sizes):
        ctx.set_output('Out', xs[:axis] + (size,) + xs[axis + 1:], dtype, i=i)


@kernel_rule('split')
def _split(spec):
    axis, num, sections = spec.attr('axis'), spec.attr('num'), spec.attr('sections')
    n_out = len(spec.op.output('Out'))
    copy = must_copy(spec, 'X')

    def run(x, axis_tensor, sections_list):
        ax = axis if axis_tensor is None else runtime_int(axis_tensor)
        ax = ax + x.ndim if ax < 0 else ax
        secs = sections if sections_list is None else runtime_ints(sections_list)
        parts = _split_parts(x, split_sizes(x.shape[ax], num, secs, n_out, runtime=True), ax)
        return ([p.copy() if copy else np.ascontiguousarray(p) for p in parts],)
    return run


@grad_rule('split')
def _split_grad_maker(g):
    # Paddle's SplitGradMaker: the gradient of split is a concat of the outputs' gradients
    return [('concat', {'X': g.output_grad('Out'), 'AxisTensor': g.input('AxisTensor')},
             {'Out': g.input_grad('X')}, {'axis': g.attrs['axis']})]


# --- stack / unstack -------------------------------------------------------------------------------------------------

defop('stack', ['X'], ['Y'], {'axis': 0}, duplicable=['X'])
defop('stack_grad', ['Y@GRAD'], ['X@GRAD'], {'axis': 0}, duplicable=['X@GRAD'], dispensable=['X@GRAD'])


def _stack_axis(axis: int, rank: int, op_type: str) -> int:
    if not -(rank + 1) <= axis < rank + 1:
        raise ValueError("Attr(axis) of operator '%s' must be inside [-(rank+1), rank+1), where rank = %d, but "
                         "received axis is:%d." % (op_type, rank, axis))
    return axis + rank + 1 if axis < 0 else axis


@shape_rule('stack')
def _stack_shape(ctx):
    xs = ctx.input_vars('X')
    if not xs:
        raise ValueError('Number of Inputs(X) of stack must be larger than 0')
    first = list(xs[0].shape)
    for k, v in enumerate(xs[1:], 1):
        s = v.shape
        if len(s) != len(first) or any(a >= 0 and b >= 0 and a != b for a, b in zip(first, s)):
            raise ValueError('Dims of all Inputs(X) must be the same, but received input %d has shape = [%s], input '
                             '0 has shape = [%s].' % (k, dims_text(s), dims_text(first)))
        first = [b if a < 0 else a for a, b in zip(first, s)]
    axis = _stack_axis(ctx.attr('axis'), len(first), 'stack')
    ctx.set_output('Y', tuple(first[:axis]) + (len(xs),) + tuple(first[axis:]), xs[0].dtype)


@kernel_rule('stack')
def _stack(spec):
    axis = spec.attr('axis')
    return lambda xs: (np.stack(xs, axis=_stack_axis(axis, xs[0].ndim, 'stack')),)


@grad_rule('stack')
def _stack_grad_maker(g):
    return [('stack_grad', {'Y@GRAD': g.output_grad('Y')}, {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


shape_rule('stack_grad')(_grad_shape_rule)


def _unstack_parts(y, axis):
    return [np.ascontiguousarray(np.take(y, i, axis=axis)) for i in range(y.shape[axis])]


@kernel_rule('stack_grad')
def _stack_grad(spec):
    axis = spec.attr('axis')
    wanted = _wanted(spec.op.output('X@GRAD'))

    def run(dy):
        ax = _stack_axis(axis, dy.ndim - 1, 'stack_grad')
        return ([np.ascontiguousarray(np.take(dy, i, axis=ax)) if w else None for i, w in enumerate(wanted)],)
    return run


defop('unstack', ['X'], ['Y'], {'axis': 0, 'num': 0}, duplicable=['Y'])
defop('unstack_grad', ['Y@GRAD'], ['X@GRAD'], {'axis': 0, 'num': 0}, duplicable=['Y@GRAD'])


@shape_rule('unstack')
def _unstack_shape(ctx):
    xs = ctx.in_shape('X')
    axis = norm_axis(ctx.attr('axis'), len(xs), 'unstack')
    n = len(ctx.op.output('Y'))
    if xs[axis] >= 0 and xs[axis] != n:
        raise ValueError('Number of Outputs(Y) of unstack is wrong: %d outputs for dimension %d of size %d'
                         % (n, axis, xs[axis]))
    for i in range(n):
        ctx.set_output('Y', xs[:axis] + xs[axis + 1:], ctx.in_dtype('X'), i=i)


@kernel_rule('unstack')
def _unstack(spec):
    axis = spec.attr('axis')
    return lambda x: (_unstack_parts(x, norm_axis(axis, x.ndim, 'unstack')),)


@grad_rule('unstack')
def _unstack_grad_maker(g):
    return [('unstack_grad', {'Y@GRAD': g.output_grad('Y')}, {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


shape_rule('unstack_grad')(_grad_shape_rule)


@kernel_rule('unstack_grad')
def _unstack_grad(spec):
    axis = spec.attr('axis')
    return lambda dys: (np.stack(dys, axis=_stack_axis(axis, dys[0].ndim, 'unstack_grad')),)


# --- segment rules: concat by its attribute axis ---------------------------------------------------------------------

def _concat_axis(spec, slot: str) -> int | None:
    ranks = {var_rank(spec, slot, i) for i in range(len(spec.op.inputs.get(slot) or []))}
    if spec.has_input('AxisTensor') or len(ranks) != 1 or None in ranks:
        return None
    rank = ranks.pop()
    axis = int(spec.attr('axis'))
    return axis + rank if -rank <= axis < 0 else axis if 0 <= axis < rank else None


@segment_rule('concat')
def _concat_segment(spec):
    axis = _concat_axis(spec, 'X')
    if axis is None:
        return None
    return segment_op(ST.concat, ['X'], ['Out'], (axis, var_rank(spec, 'X')))


@segment_rule('concat_grad')
def _concat_grad_segment(spec):
    axis = _concat_axis(spec, 'X')
    if axis is None:
        return None
    return segment_op(ST.concat_grad, ['X', 'Out@GRAD'], ['X@GRAD'], (axis,))
