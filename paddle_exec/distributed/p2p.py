"""paddle.distributed's point-to-point functions in static mode: send_v2 / recv_v2 ops in the current program.

    if dist.get_rank() == 0:
        dist.send(x, dst=1)               # send_v2(X=x), peer 1
    else:
        dist.recv(x, src=0)               # recv_v2(Out=x), peer 0, out_shape and dtype of x
    task = dist.isend(x, dst=1)           # the same op, use_calc_stream False
    task.wait()                           # c_sync_comm_stream on x (Paddle's static wait after async communication)

The two ends are in different programs, as in Paddle. A send never waits for its receiver (the tensor is copied),
so trainers may exchange tensors by both sending first. Paddle 2.6.2's static isend / irecv return None; here they
return a StaticTask whose wait() appends the stream sync, so scripts written for dygraph's task.wait() build.
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from .group import ring_and_rank, wait

__all__ = ['send', 'recv', 'isend', 'irecv', 'StaticTask']

_TYPES = ['float16', 'float32', 'float64', 'int32', 'int64']


class StaticTask:
    """The communication an isend / irecv appended: it runs with the program; wait() orders the program after it."""

    def __init__(self, tensor, group):
        self._tensor, self._group = tensor, group

    def wait(self) -> None:
        wait(self._tensor, self._group, use_calc_stream=False)


def _peer(rank, what: str) -> int:
    if rank is None:
        raise ValueError('%s: the peer rank must be given (src / dst)' % what)
    return int(rank)


def send(tensor, dst=0, group=None, sync_op=True):
    """Sends `tensor` to trainer `dst` when the program runs."""
    where = ring_and_rank(group, _peer(dst, 'send'), 'send')
    if where is None:
        return None
    check_variable_and_dtype(tensor, 'tensor', _TYPES, 'send')
    helper = LayerHelper('send_v2')
    helper.append_op(type='send_v2', inputs={'X': [tensor]},
                     attrs={'ring_id': where[0], 'peer': where[1], 'use_calc_stream': sync_op})
    return None if sync_op else StaticTask(tensor, group)


def recv(tensor, src=0, group=None, sync_op=True):
    """`tensor` becomes what trainer `src` sends, when the program runs."""
    where = ring_and_rank(group, _peer(src, 'recv'), 'recv')
    if where is None:
        return None
    check_variable_and_dtype(tensor, 'tensor', _TYPES, 'recv')
    helper = LayerHelper('recv_v2')
    helper.append_op(type='recv_v2', outputs={'Out': [tensor]},
                     attrs={'ring_id': where[0], 'peer': where[1], 'out_shape': list(tensor.shape),
                            'dtype': int(to_var_type(tensor.dtype)), 'use_calc_stream': sync_op})
    return None if sync_op else StaticTask(tensor, group)


def isend(tensor, dst, group=None):
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    return recv(tensor, src, group, sync_op=False)
