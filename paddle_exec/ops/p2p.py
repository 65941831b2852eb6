"""Point-to-point ops: a tensor from one trainer of a ring to another (paddle.distributed.send / recv).

    send_v2   X goes to trainer `peer` of ring `ring_id` (no output); the sender does not wait for the receiver
    recv_v2   Out = the next tensor trainer `peer` sends to this one, of `dtype` and `out_shape` (one -1 allowed: it
              is taken from the length received); `dynamic_shape`: the shape travels with the tensor, as it does
              between Paddle's send_v2 / recv_v2 with that attribute

Paddle 2.6.2's slots and attributes; its CPU build refuses both ("Do not support send for cpu kernel now"), here
they run on the ring's process group (framework/collective.py: MPI isend / probe + recv, or a mailbox in a job of
one trainer). No gradient (Paddle 2.6.2 registers none). The two ends of a pair are in different programs (trainer
0 sends, trainer 1 receives), so the executor leaves them out of its same-program check, and runs them on one place.
"""
from __future__ import annotations

import numpy as np

from ..framework.collective import get_group
from ..framework.dtype import VarType, to_numpy, to_var_type
from ..framework.registry import defop, kernel_rule, shape_rule
from ..framework.scope import SelectedRows
from .collective import check_root

__all__ = []

_P2P = {'ring_id': 0, 'peer': 0, 'use_calc_stream': False, 'dynamic_shape': False}
defop('send_v2', ['X'], [], dict(_P2P), stateful=True)
defop('recv_v2', [], ['Out'], {**_P2P, 'out_shape': [], 'dtype': int(VarType.FP32)}, stateful=True)


@shape_rule('recv_v2')
def _recv_shape(ctx):
    ctx.set_output('Out', tuple(int(d) for d in ctx.attr('out_shape')), to_var_type(ctx.attr('dtype')))


@kernel_rule('send_v2')
def _send_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    peer = check_root('send_v2', group, int(spec.attr('peer')), 'peer')
    with_shape, name = bool(spec.attr('dynamic_shape')), spec.op.input('X')[0]

    def run(x):
        if x is None:
            raise RuntimeError("The input '%s' of send_v2 has no value: the op that computes it did not run" % name)
        if isinstance(x, SelectedRows):
            raise NotImplementedError('send_v2: %s is a SelectedRows value; send its rows and values as two tensors'
                                      % name)
        group.send(np.asarray(x), peer, with_shape)
        return ()
    return run


@kernel_rule('recv_v2')
def _recv_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    peer = check_root('recv_v2', group, int(spec.attr('peer')), 'peer')
    dtype = to_numpy(to_var_type(spec.attr('dtype')))
    shape = [int(d) for d in spec.attr('out_shape')] or None
    with_shape = bool(spec.attr('dynamic_shape'))
    return lambda: (group.recv(peer, dtype, shape, with_shape),)
