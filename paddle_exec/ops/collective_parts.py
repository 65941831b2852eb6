"""Collective ops that reduce to one trainer or move parts of a tensor between the trainers of a ring.

    c_reduce_sum / _max / _min / _prod   Out = X reduced over the trainers, on trainer `root_id`; on every other
                                         trainer Out keeps X (NCCL's reduce leaves the senders' buffers alone)
    c_reducescatter, reduce_scatter      Out = part `rank` of X summed over the trainers (X cut along axis 0 into
                                         `nranks` equal parts); reduce_scatter is Paddle 2.6's op of
                                         dist.reduce_scatter (slots x / out), c_reducescatter the older one
    c_scatter                            Out = part `rank` of trainer `root`'s X
    alltoall                             part k of X goes to trainer k; Out joins the parts received in rank order

These are the ops paddle.distributed.reduce, reduce_scatter, scatter and alltoall append in static mode, with
Paddle 2.6.2's slots and attributes. They run on the ring's process group (framework/collective.py: MPI, or the
identity in a job of one trainer). Paddle 2.6.2 registers no gradient for any of them (checked with
core.get_grad_op_desc), so none is registered here. Over several places of one trainer only the c_reduce ops have a
meaning (places first, as the all-reduces); the others run on one place (ONE_PLACE_OPS, refused by the executor's
collective pass on more).
"""
from __future__ import annotations

import numpy as np

from ..framework.collective import get_group, split_parts
from ..framework.registry import defop, kernel_rule, shape_rule
from ..framework.scope import SelectedRows
from ._util import same_shape_as_x
from .collective import ROOT_REDUCE_OPS, check_root

__all__ = []

_STREAM = {'ring_id': 0, 'use_calc_stream': False}
for _type in ROOT_REDUCE_OPS:
    defop(_type, ['X'], ['Out'], {**_STREAM, 'root_id': 0}, stateful=True)
    shape_rule(_type)(same_shape_as_x)
defop('c_reducescatter', ['X'], ['Out'], {**_STREAM, 'nranks': 1}, stateful=True)
defop('reduce_scatter', ['x'], ['out'], {'ring_id': 0, 'nranks': 1}, stateful=True)
defop('c_scatter', ['X'], ['Out'], {**_STREAM, 'root': 0, 'nranks': 1}, stateful=True)
defop('alltoall', ['X'], ['Out'], dict(_STREAM), stateful=True)
shape_rule('alltoall')(same_shape_as_x)


def _part_shape(in_slot: str, out_slot: str):
    def rule(ctx):
        shape = list(ctx.in_shape(in_slot))
        nranks = int(ctx.attr('nranks'))
        if nranks < 1:
            raise ValueError('%s: nranks must be at least 1, got %d' % (ctx.op.type, nranks))
        if shape and shape[0] >= 0:
            if shape[0] % nranks:
                raise ValueError('%s: the first dimension of %s (shape %s) must be divisible by nranks (%d)'
                                 % (ctx.op.type, ctx.op.input(in_slot)[0], shape, nranks))
            shape[0] //= nranks
        ctx.set_output(out_slot, tuple(shape), ctx.in_dtype(in_slot))
    return rule


shape_rule('c_reducescatter')(_part_shape('X', 'Out'))
shape_rule('reduce_scatter')(_part_shape('x', 'out'))
shape_rule('c_scatter')(_part_shape('X', 'Out'))


def _dense(x, op_type: str, name: str) -> np.ndarray:
    if x is None:
        raise RuntimeError("The input '%s' of %s has no value: the op that computes it did not run" % (name, op_type))
    if isinstance(x, SelectedRows):
        raise NotImplementedError('%s: a SelectedRows value (%s) cannot be reduced to one trainer or cut into '
                                  'parts; convert it with get_tensor_from_selected_rows first' % (op_type, name))
    return np.ascontiguousarray(x)


def _parts_of(x, op_type: str, name: str, nranks: int) -> np.ndarray:
    """`x` dense, its first dimension checked to cut into `nranks` parts (here, whatever the group does)."""
    x = _dense(x, op_type, name)
    split_parts(x, nranks, op_type)
    return x


def _check_nranks(spec, group) -> None:
    nranks = int(spec.attr('nranks'))
    if nranks != group.nranks:
        raise ValueError('%s: the attribute nranks (%d) is not the number of trainers of ring %d (%d)'
                         % (spec.type, nranks, spec.attr('ring_id'), group.nranks))


@kernel_rule(*ROOT_REDUCE_OPS)
def _reduce_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    root = check_root(spec.type, group, int(spec.attr('root_id')), 'root_id')
    op, name = ROOT_REDUCE_OPS[spec.type], spec.op.input('X')[0]
    return lambda x: (group.reduce(_dense(x, spec.type, name), op, root),)


@kernel_rule('c_reducescatter', 'reduce_scatter')
def _reduce_scatter_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    _check_nranks(spec, group)
    name = spec.op.input('X' if spec.type == 'c_reducescatter' else 'x')[0]
    return lambda x: (group.reduce_scatter(_parts_of(x, spec.type, name, group.nranks), 'sum'),)


@kernel_rule('c_scatter')
def _scatter_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    _check_nranks(spec, group)
    root, name = check_root('c_scatter', group, int(spec.attr('root'))), spec.op.input('X')[0]
    return lambda x: (group.scatter(_parts_of(x, 'c_scatter', name, group.nranks), root),)


@kernel_rule('alltoall')
def _alltoall_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    name = spec.op.input('X')[0]
    return lambda x: (group.alltoall(_parts_of(x, 'alltoall', name, group.nranks)),)
