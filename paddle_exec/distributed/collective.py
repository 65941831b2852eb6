"""paddle.distributed's collectives in static mode: each appends the op Paddle 2.x appends to the current program.

    dist.all_reduce(x)                 # c_allreduce_sum(X=x, Out=x), ring_id 0
    dist.all_reduce(x, op=dist.ReduceOp.MAX)
    dist.broadcast(x, src=0)           # c_broadcast
    dist.all_gather(parts, x)          # c_allgather, then `parts` holds one slice per trainer (split, unstack for 0-D)
    dist.barrier()                     # barrier on a one-element int32 tensor

The ops run when the program runs (ops/collective.py), on the job's process group.
"""
from __future__ import annotations

import enum

from ..framework.dtype import VarType
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from ..layers.manipulation import split, unstack
from .parallel import get_world_size

__all__ = ['ReduceOp', 'all_reduce', 'broadcast', 'all_gather', 'barrier']


class ReduceOp(enum.IntEnum):
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_OP_TYPES = {ReduceOp.SUM: 'c_allreduce_sum', ReduceOp.MAX: 'c_allreduce_max', ReduceOp.MIN: 'c_allreduce_min',
             ReduceOp.PROD: 'c_allreduce_prod'}


def _ring_id(group) -> int:
    ring_id = 0 if group is None else getattr(group, 'id', group)
    if not isinstance(ring_id, int):
        raise ValueError("The type of 'ring_id' for the collective should be int.")
    return ring_id


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True, use_calc_stream=False):
    """Reduces `tensor` over the trainers in place (its Variable is the op's input and output)."""
    try:
        op_type = _OP_TYPES[ReduceOp(op)]
    except (KeyError, ValueError):
        raise ValueError('all_reduce: op must be ReduceOp.SUM, MAX, MIN or PROD in static mode, got %r' % (op,)) \
            from None
    helper = LayerHelper(op_type)
    helper.append_op(type=op_type, inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                     attrs={'ring_id': _ring_id(group), 'use_calc_stream': sync_op})


def broadcast(tensor, src, group=None, sync_op=True, use_calc_stream=False):
    """`tensor` takes trainer `src`'s value."""
    helper = LayerHelper('c_broadcast')
    helper.append_op(type='c_broadcast', inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                     attrs={'ring_id': _ring_id(group), 'root': int(src), 'use_calc_stream': sync_op})


def all_gather(tensor_list, tensor, group=None, sync_op=True, use_calc_stream=False):
    """`tensor_list` becomes every trainer's `tensor`, in rank order."""
    helper = LayerHelper('c_allgather')
    out = helper.create_variable_for_type_inference(dtype=tensor.dtype)
    nranks = get_world_size()
    helper.append_op(type='c_allgather', inputs={'X': [tensor]}, outputs={'Out': [out]},
                     attrs={'ring_id': _ring_id(group), 'use_calc_stream': sync_op, 'nranks': nranks})
    tensor_list.clear()
    if nranks == 1:                     # fluid's split refuses one section; Paddle 2.x splits into one part
        tensor_list.append(out)
    elif len(tensor.shape) == 0:
        tensor_list.extend(unstack(out, 0))
    else:
        tensor_list.extend(split(out, nranks, 0))


def barrier(group=None):
    """Every trainer waits here for the others (when the program runs)."""
    barrier_tensor = fill_constant([1], VarType.INT32, 1)
    helper = LayerHelper('barrier')
    helper.append_op(type='barrier', inputs={'X': [barrier_tensor]}, outputs={'Out': [barrier_tensor]},
                     attrs={'ring_id': _ring_id(group)})
