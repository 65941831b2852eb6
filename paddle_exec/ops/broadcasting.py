"""Broadcasting ops: expand (fluid: repeat counts), tile (2.x: repeat counts), expand_v2 (2.x: target shape).

    expand(X, ExpandTimes?, expand_times_tensor?) -> Out       attr expand_times (one per dim of X)
    tile(X, RepeatTimes?, repeat_times_tensor?) -> Out         attr repeat_times (X left-padded with 1s)
    expand_v2(X, Shape?, expand_shapes_tensor?) -> Out         attr shape (-1 keeps X's dim)

Runtime tensors win over the attributes. Each gradient sums Out@GRAD back down to X's shape.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import prod, runtime_list

__all__ = ['repeat_shape', 'expand_v2_shape']


def _unbroadcast_sum(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sums `g` (broadcast from `shape`, leading dims allowed) back down to `shape`."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    return (g.sum(axis=axes) if axes else g).reshape(shape)


def _tile_grad(dout: np.ndarray, x_shape: tuple, reps) -> np.ndarray:
    """Gradient of np.tile: each output dim i is reps[i] copies of x dim i, summed back."""
    reps = list(reps)
    px = (1,) * (len(reps) - len(x_shape)) + tuple(x_shape)
    reps = [1] * (len(px) - len(reps)) + reps
    inter = [v for pair in zip(reps, px) for v in pair]
    return dout.reshape(inter).sum(axis=tuple(range(0, 2 * len(px), 2))).reshape(x_shape)


defop('expand', ['X', 'ExpandTimes', 'expand_times_tensor'], ['Out'], {'expand_times': []},
      duplicable=['expand_times_tensor'], dispensable=['ExpandTimes', 'expand_times_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'ExpandTimes', 'expand_times_tensor'), ('X@GRAD',)))
defop('tile', ['X', 'RepeatTimes', 'repeat_times_tensor'], ['Out'], {'repeat_times': []},
      duplicable=['repeat_times_tensor'], dispensable=['RepeatTimes', 'repeat_times_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'RepeatTimes', 'repeat_times_tensor'), ('X@GRAD',)))
defop('expand_v2', ['X', 'Shape', 'expand_shapes_tensor'], ['Out'], {'shape': []},
      duplicable=['expand_shapes_tensor'], dispensable=['Shape', 'expand_shapes_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'Shape', 'expand_shapes_tensor'), ('X@GRAD',)))


def repeat_shape(in_dims, reps, op_type: str) -> tuple:
    """expand/tile output dims: x's dims (left-padded with 1) times the repeat counts (left-padded with 1)."""
    if op_type == 'expand' and len(reps) != len(in_dims):
        raise ValueError("The number of elements (%d) of 'expand_times' for Op(expand) must be equal to the number "
                         "of dimensions (%d) of the input." % (len(reps), len(in_dims)))
    n = max(len(in_dims), len(reps))
    px = (1,) * (n - len(in_dims)) + tuple(in_dims)
    pr = [1] * (n - len(reps)) + list(reps)
    return tuple(-1 if d < 0 or r < 0 else d * r for d, r in zip(px, pr))


def expand_v2_shape(in_dims, shape) -> tuple:
    """expand_v2: `shape` (at least x's rank) with -1 keeping x's dim; x's dims must be 1 or equal."""
    shape = list(shape)
    if len(shape) < len(in_dims):
        raise ValueError("The number of elements (%d) of 'shape' for expand_v2 op must be greater than or equal to "
                         "the rank (%d) of the input." % (len(shape), len(in_dims)))
    px = [1] * (len(shape) - len(in_dims)) + list(in_dims)
    lead = len(shape) - len(in_dims)
    out = []
    for i, (d, t) in enumerate(zip(px, shape)):
        if t == -1:
            if i < lead:
                raise ValueError('expand_v2: the value -1 in shape keeps an existing dimension of x; it is not '
                                 'allowed for the new leading dimension %d' % i)
            out.append(d)
        elif t < -1:
            out.append(-1)
        else:
            if d >= 0 and d != 1 and d != t:
                raise ValueError('The value (%d) of the non-singleton dimension does not match the corresponding '
                                 'value (%d) in shape for expand_v2 op.' % (d, t))
            out.append(t)
    return tuple(out)


@shape_rule('expand')
def _expand_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('ExpandTimes'):
        return ctx.set_output('Out', (-1,) * len(xs), ctx.in_dtype('X'))
    ctx.set_output('Out', repeat_shape(xs, ctx.attr('expand_times'), 'expand'), ctx.in_dtype('X'))


@shape_rule('tile')
def _tile_shape(ctx):
    xs = ctx.in_shape('X')
    reps = ctx.attr('repeat_times')
    if ctx.has_input('RepeatTimes'):
        reps = [-1] * max(prod(ctx.in_shape('RepeatTimes')), len(xs))
    elif ctx.has_input('repeat_times_tensor') and not reps:
        reps = [-1] * len(ctx.op.input('repeat_times_tensor'))
    ctx.set_output('Out', repeat_shape(xs, reps, 'tile'), ctx.in_dtype('X'))


@shape_rule('expand_v2')
def _expand_v2_shape(ctx):
    xs = ctx.in_shape('X')
    shape = ctx.attr('shape')
    if ctx.has_input('Shape'):
        shape = [-2] * max(prod(ctx.in_shape('Shape')), 1)
    elif ctx.has_input('expand_shapes_tensor') and not shape:
        shape = [-2] * len(ctx.op.input('expand_shapes_tensor'))
    if not shape:
        shape = [-1] * len(xs)
    ctx.set_output('Out', expand_v2_shape(xs, shape), ctx.in_dtype('X'))


def _repeat_counts(attr, tensor, tensor_list):
    return runtime_list(attr, tensor, tensor_list)


@kernel_rule('expand', 'tile')
def _expand(spec):
    attr = spec.attr('expand_times' if spec.type == 'expand' else 'repeat_times')
    op_type = spec.type

    def run(x, reps_tensor, reps_list):
        reps = _repeat_counts(attr, reps_tensor, reps_list)
        if op_type == 'expand':
            repeat_shape(x.shape, reps, op_type)
        return (np.tile(x, reps),)
    return run


@kernel_rule('expand_grad', 'tile_grad')
def _expand_grad(spec):
    attr = spec.attr('expand_times' if spec.type == 'expand_grad' else 'repeat_times')

    def run(x, dout, reps_tensor, reps_list):
        return (_tile_grad(dout, x.shape, _repeat_counts(attr, reps_tensor, reps_list)).astype(x.dtype, copy=False),)
    return run


def _expand_v2_target(attr, x, shape_tensor, shape_list):
    shape = runtime_list(attr, shape_tensor, shape_list)
    if shape_list is not None and attr and len(attr) == len(shape):
        shape = [s if a == -2 else a for s, a in zip(shape, attr)]
    return expand_v2_shape(x.shape, shape or [-1] * x.ndim)


@kernel_rule('expand_v2')
def _expand_v2(spec):
    attr = spec.attr('shape')

    def run(x, shape_tensor, shape_list):
        target = _expand_v2_target(attr, x, shape_tensor, shape_list)
        return (np.array(np.broadcast_to(x.reshape((1,) * (len(target) - x.ndim) + x.shape), target)),)
    return run


@kernel_rule('expand_v2_grad')
def _expand_v2_grad(spec):
    return lambda x, dout, shape_tensor, shape_list: (_unbroadcast_sum(dout, x.shape).astype(x.dtype, copy=False),)
