"""paddle.distributed's collectives in static mode: each appends the ops Paddle 2.x appends to the current program.

    dist.all_reduce(x)                       # c_allreduce_sum(X=x, Out=x), ring_id 0
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    dist.broadcast(x, src=0)                 # c_broadcast
    dist.all_gather(parts, x)                # c_allgather, then `parts` holds one slice per trainer (split)
    dist.reduce(x, dst=1)                    # c_reduce_sum: trainer 1's x becomes the sum
    dist.reduce_scatter(out, x)              # reduce_scatter: out = part `rank` of the sum of every trainer's x
    dist.scatter(out, [a, b], src=0)         # concat, c_scatter: out = trainer 0's a on trainer 0, its b on 1
    dist.gather(x, parts, dst=0)             # c_allgather + split; `parts` is filled on trainer 0 only
    dist.alltoall([a, b], outs)              # concat, alltoall, split: outs[k] = what trainer k sent here
    dist.alltoall_single(x, out)             # alltoall of equal parts of x, into out
    dist.barrier()                           # barrier on a one-element int32 tensor

The ops run when the program runs (ops/collective.py, ops/collective_parts.py), on the job's process group or the
sub-group a `group` names (group.py). Paddle 2.6.2 refuses gather and alltoall_single in static mode (dygraph
only); here gather is an all-gather whose parts only `dst` keeps (the same program on every trainer), and
alltoall_single the alltoall op when the parts are equal (the op cannot move unequal ones). Send and receive are in
p2p.py, the object collectives in objects.py.
"""
from __future__ import annotations

import enum

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from ..layers.manipulation import concat, split, stack, unstack
from .group import ring_and_rank, wait
from .parallel import get_rank, get_world_size

__all__ = ['ReduceOp', 'all_reduce', 'broadcast', 'all_gather', 'barrier', 'reduce', 'reduce_scatter', 'scatter',
           'gather', 'alltoall', 'alltoall_single']

_TYPES = ['float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool']


class ReduceOp(enum.IntEnum):
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_SUFFIX = {ReduceOp.SUM: 'sum', ReduceOp.MAX: 'max', ReduceOp.MIN: 'min', ReduceOp.PROD: 'prod'}


def _op_type(op, func_name: str, what: str) -> str:
    try:
        return 'c_%s_%s' % (func_name, _SUFFIX[ReduceOp(op)])
    except (KeyError, ValueError):
        raise ValueError('%s: op must be ReduceOp.SUM, MAX, MIN or PROD in static mode, got %r' % (what, op)) \
            from None


def _nranks(group) -> int:
    return get_world_size() if group is None or isinstance(group, int) else group.nranks


def _join(tensors, what: str):
    """A list of tensors as one (concat, or stack for 0-D ones), as Paddle's static scatter / alltoall do."""
    if not tensors:
        raise RuntimeError('The tensor_list of %s should not be empty.' % what)
    return stack(tensors, axis=0) if len(tensors[0].shape) == 0 else concat(tensors, axis=0)


def _parts(out, nranks: int, zero_dim: bool) -> list:
    if zero_dim:
        return unstack(out, 0)
    if nranks == 1:                     # fluid's split refuses one section; Paddle 2.x splits into one part
        return [out]
    return split(out, nranks, 0)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False):
    """Reduces `tensor` over the trainers in place (its Variable is the op's input and output)."""
    op_type = _op_type(op, 'allreduce', 'all_reduce')
    where = ring_and_rank(group, None, 'all_reduce')
    if where is None:
        return
    helper = LayerHelper(op_type)
    helper.append_op(type=op_type, inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                     attrs={'ring_id': where[0], 'use_calc_stream': sync_op})


def broadcast(tensor, src, group=None, sync_op=True, use_calc_stream=False):
    """`tensor` takes trainer `src`'s value."""
    where = ring_and_rank(group, int(src), 'broadcast')
    if where is None:
        return
    check_variable_and_dtype(tensor, 'tensor', _TYPES, 'broadcast')
    helper = LayerHelper('c_broadcast')
    helper.append_op(type='c_broadcast', inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                     attrs={'root': where[1], 'use_calc_stream': sync_op, 'ring_id': where[0]})


def all_gather(tensor_list, tensor, group=None, sync_op=True, use_calc_stream=False):
    """`tensor_list` becomes every trainer's `tensor`, in rank order."""
    where = ring_and_rank(group, None, 'all_gather')
    if where is None:
        return
    helper = LayerHelper('c_allgather')
    out = helper.create_variable_for_type_inference(dtype=tensor.dtype)
    nranks = _nranks(group)
    helper.append_op(type='c_allgather', inputs={'X': [tensor]}, outputs={'Out': [out]},
                     attrs={'ring_id': where[0], 'use_calc_stream': sync_op, 'nranks': nranks})
    tensor_list.clear()
    tensor_list.extend(_parts(out, nranks, len(tensor.shape) == 0))


def barrier(group=None):
    """Every trainer waits here for the others (when the program runs)."""
    where = ring_and_rank(group, None, 'barrier')
    if where is None:
        return
    barrier_tensor = fill_constant([1], VarType.INT32, 1)
    helper = LayerHelper('barrier')
    helper.append_op(type='barrier', inputs={'X': [barrier_tensor]}, outputs={'Out': [barrier_tensor]},
                     attrs={'ring_id': where[0]})


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, sync_op=True):
    """Trainer `dst`'s `tensor` becomes the reduction over the trainers; the others' stay as they are."""
    op_type = _op_type(op, 'reduce', 'reduce')
    where = ring_and_rank(group, int(dst), 'reduce')
    if where is None:
        return
    check_variable_and_dtype(tensor, 'tensor', _TYPES, 'reduce')
    helper = LayerHelper(op_type)
    helper.append_op(type=op_type, inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                     attrs={'ring_id': where[0], 'use_calc_stream': sync_op, 'root_id': where[1]})


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """`tensor` becomes part `rank` of the sum over the trainers of `tensor_list` (a tensor cut along axis 0 into
    one part per trainer, or a list of the parts, joined first)."""
    if ReduceOp(op) != ReduceOp.SUM:
        raise ValueError('reduce_scatter: static mode sums (Paddle\'s reduce_scatter op has no other reduction), '
                         'got %r' % (op,))
    where = ring_and_rank(group, None, 'reduce_scatter')
    if where is None:
        return
    check_variable_and_dtype(tensor, 'tensor', _TYPES + ['uint16'], 'reduce_scatter')
    source = _join(list(tensor_list), 'reduce_scatter') if isinstance(tensor_list, (list, tuple)) else tensor_list
    helper = LayerHelper('reduce_scatter')
    helper.append_op(type='reduce_scatter', inputs={'x': [source]}, outputs={'out': [tensor]},
                     attrs={'ring_id': where[0], 'nranks': _nranks(group)})


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """`tensor` becomes part `rank` of trainer `src`'s `tensor_list` (one tensor per trainer, or one tensor cut
    along axis 0). Only `src`'s list counts: elsewhere it is replaced by `tensor` repeated, as Paddle does."""
    where = ring_and_rank(group, int(src), 'scatter')
    if where is None:
        return
    nranks = _nranks(group)
    source = tensor_list
    if isinstance(tensor_list, (list, tuple)) or tensor_list is None:
        parts = list(tensor_list or []) if get_rank() == src else [tensor] * nranks
        source = _join(parts, 'scatter')
    check_variable_and_dtype(tensor, 'tensor', _TYPES, 'scatter')
    helper = LayerHelper('c_scatter')
    helper.append_op(type='c_scatter', inputs={'X': [source]}, outputs={'Out': [tensor]},
                     attrs={'ring_id': where[0], 'root': where[1], 'use_calc_stream': sync_op, 'nranks': nranks})


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Trainer `dst`'s `gather_list` becomes every trainer's `tensor`, in rank order (c_allgather + split: every
    trainer runs the same ops; only `dst` keeps the parts)."""
    where = ring_and_rank(group, int(dst), 'gather')
    if where is None:
        return
    parts: list = []
    all_gather(parts, tensor, group, sync_op)
    if get_rank() == dst:
        if gather_list is None:
            raise AssertionError('gather_list must not be none for dst rank')
        gather_list.clear()
        gather_list.extend(parts)


def alltoall(in_tensor_list, out_tensor_list, group=None, sync_op=True):
    """out_tensor_list[k] becomes trainer k's in_tensor_list[rank]."""
    where = ring_and_rank(group, None, 'alltoall')
    if where is None:
        return
    if in_tensor_list is None or out_tensor_list is None:
        raise RuntimeError('The output and input should be specified.')
    nranks = _nranks(group)
    helper = LayerHelper('alltoall')
    source = in_tensor_list
    if isinstance(in_tensor_list, (list, tuple)):
        if len(in_tensor_list) == 0:
            raise RuntimeError('The input tensor_list should not be empty.')
        source = _join(list(in_tensor_list), 'alltoall')
    out = out_tensor_list
    if isinstance(out_tensor_list, list):
        if out_tensor_list:
            raise ValueError("The 'out_tensor_list' for all_to_all must be an empty list.")
        out = helper.create_variable_for_type_inference(dtype=source.dtype)
    check_variable_and_dtype(source, 'in_tensor', ['float16', 'float32', 'float64', 'int32', 'int64'], 'all_to_all')
    helper.append_op(type='alltoall', inputs={'X': [source]}, outputs={'Out': [out]},
                     attrs={'ring_id': where[0], 'use_calc_stream': sync_op})
    if isinstance(out_tensor_list, list):
        if not sync_op:
            wait(out, use_calc_stream=False)
        zero_dim = isinstance(in_tensor_list, (list, tuple)) and len(in_tensor_list[0].shape) == 0
        out_tensor_list.extend(_parts(out, nranks, zero_dim))


def alltoall_single(in_tensor, out_tensor, in_split_sizes=None, out_split_sizes=None, group=None, sync_op=True):
    """`out_tensor` joins part `rank` of every trainer's `in_tensor` (cut along axis 0 into equal parts)."""
    nranks = _nranks(group)
    for what, sizes in (('in_split_sizes', in_split_sizes), ('out_split_sizes', out_split_sizes)):
        if sizes and len(set(int(s) for s in sizes)) > 1:
            raise NotImplementedError('alltoall_single: %s %s are unequal; in static mode the alltoall op moves '
                                      'equal parts only (Paddle 2.6.2 has alltoall_single in dygraph only)'
                                      % (what, list(sizes)))
        if sizes and len(sizes) != nranks:
            raise ValueError('alltoall_single: %s must give one size per trainer (%d), got %s'
                             % (what, nranks, list(sizes)))
    if not isinstance(in_tensor, Variable) or not isinstance(out_tensor, Variable):
        raise TypeError('alltoall_single: in_tensor and out_tensor must be Variables of the program')
    alltoall(in_tensor, out_tensor, group, sync_op)
