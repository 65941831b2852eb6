"""Program rewrites of Paddle's collective training, op for op as Paddle inserts them.

    init_communicator(startup, rank, endpoints, current, ring_id, sync=True)  c_gen_nccl_id, c_comm_init
        (and Paddle 2.x's sync: fill_constant, c_allreduce_sum, c_sync_calc_stream)
    broadcast_params(startup, nrings)           c_broadcast of every parameter from trainer 0, c_sync_comm_stream
    scale_loss_grad(main, nranks)               `scale` 1/nranks after the loss@GRAD op
    allreduce_grads(main, nrings, sync_calc=False, sync_comm=False)
        c_allreduce_sum after the op that makes each gradient (Paddle 2.x's RawProgramOptimizer without fusion;
        with sync_calc / sync_comm, Paddle 1.8's GradAllReduce: c_sync_calc_stream before, c_sync_comm_stream
        before the first optimizer op)
    local_sgd(startup, main, nranks, nrings)    Paddle 1.8's LocalSGD: parameters averaged after every update
    gen_nccl_id(startup, endpoints, trainer_id, nccl_comm_num)   Paddle 1.8's nccl2 mode (the ParallelExecutor does
        the rest: BuildStrategy.num_trainers)

What the ops do on the CPU is in ops/collective.py; the executor fuses the gradient all-reduces into buckets
(executor/passes/collective.py), so the program holds one c_allreduce_sum per gradient as Paddle's does without
`coalesce_tensor`.
"""
from __future__ import annotations

from ...framework import unique_name
from ...framework.dtype import VarType
from ...framework.operator import OP_ROLE_ATTR, OP_ROLE_VAR_ATTR, OpRole

__all__ = ['init_communicator', 'broadcast_params', 'scale_loss_grad', 'allreduce_grads', 'local_sgd',
           'gen_nccl_id']

_FORWARD, _BACKWARD, _OPTIMIZE = int(OpRole.Forward), int(OpRole.Backward), int(OpRole.Optimize)
_LOSS_GRAD = int(OpRole.Backward | OpRole.Loss)


def _role(op) -> int:
    return int(op.attrs.get(OP_ROLE_ATTR, 0))


def init_communicator(startup, rank: int, endpoints: list, current_endpoint: str, ring_id: int,
                      sync: bool = True) -> None:
    block = startup.global_block()
    others = [e for e in endpoints if e != current_endpoint]
    comm_id = block.create_var(name=unique_name.generate('comm_id' if sync else 'nccl_id'), persistable=True,
                               type=VarType.RAW)
    block.append_op('c_gen_nccl_id', {}, {'Out': [comm_id]},
                    {'rank': rank, 'endpoint': current_endpoint, 'other_endpoints': others, 'ring_id': ring_id,
                     OP_ROLE_ATTR: _FORWARD})
    attrs = {'nranks': len(endpoints), 'rank': rank, 'ring_id': ring_id, OP_ROLE_ATTR: _FORWARD}
    if sync:
        attrs['endpoints'] = ','.join(endpoints)
    block.append_op('c_comm_init', {'X': [comm_id]}, {}, attrs)
    if sync:
        sync_var = block.create_var(name=unique_name.generate('sync_var'), dtype=VarType.INT32, persistable=False,
                                    stop_gradient=True)
        block.append_op('fill_constant', {}, {'Out': [sync_var]},
                        {'shape': [1], 'dtype': VarType.INT32, 'value': 1.0, 'force_cpu': False,
                         OP_ROLE_ATTR: _FORWARD})
        block.append_op('c_allreduce_sum', {'X': [sync_var]}, {'Out': [sync_var]},
                        {'ring_id': ring_id, 'use_calc_stream': True, OP_ROLE_ATTR: _FORWARD})
        block.append_op('c_sync_calc_stream', {'X': [sync_var]}, {'Out': [sync_var]}, {OP_ROLE_ATTR: _FORWARD})


def broadcast_params(startup, nrings: int = 1) -> None:
    block = startup.global_block()
    ring_id, param = -1, None
    for param in sorted(block.iter_parameters(), key=lambda p: p.name):     # Paddle's order: by name
        if getattr(param, 'is_distributed', False):
            continue
        ring_id = (ring_id + 1) % nrings
        block.append_op('c_broadcast', {'X': [param]}, {'Out': [param]},
                        {'ring_id': ring_id, 'root': 0, OP_ROLE_ATTR: _FORWARD})
    if param is None:
        return
    for ring_id in range(nrings):
        block.append_op('c_sync_comm_stream', {'X': [param]}, {'Out': [param]},
                        {'ring_id': ring_id, OP_ROLE_ATTR: _FORWARD})


def scale_loss_grad(main, nranks: int) -> None:
    block = main.global_block()
    for idx, op in reversed(list(enumerate(block.ops))):
        if _role(op) & _LOSS_GRAD == _LOSS_GRAD:
            loss_grad = op.output_arg_names[0]
            block._insert_op(idx + 1, 'scale', {'X': [loss_grad]}, {'Out': [loss_grad]},
                             {'scale': 1.0 / nranks, OP_ROLE_ATTR: _BACKWARD})


def _grad_pairs(op) -> list:
    names = op.attrs.get(OP_ROLE_VAR_ATTR) or []
    return [(names[i], names[i + 1]) for i in range(0, len(names) - 1, 2)]


def allreduce_grads(main, nrings: int = 1, sync_calc: bool = False, sync_comm: bool = False) -> int:
    """Inserts the gradient all-reduces (see the module docstring); returns how many."""
    block = main.global_block()
    ring_id, count, last_grad = -1, 0, None
    for idx, op in reversed(list(enumerate(block.ops))):
        if not _role(op) & _BACKWARD or not _grad_pairs(op):
            continue
        offset = idx + 1
        for param, grad in _grad_pairs(op):
            p = block._find_var_recursive(param)
            if p is not None and getattr(p, 'is_distributed', False):
                continue
            if sync_calc and offset == idx + 1:
                block._insert_op(offset, 'c_sync_calc_stream', {'X': [grad]}, {'Out': [grad]},
                                 {OP_ROLE_ATTR: _BACKWARD})
                offset += 1
            ring_id = (ring_id + 1) % nrings
            block._insert_op(offset, 'c_allreduce_sum', {'X': [grad]}, {'Out': [grad]},
                             {'ring_id': ring_id, OP_ROLE_ATTR: _BACKWARD})
            count += 1
            last_grad = grad
    if sync_comm and last_grad is not None:
        for idx, op in enumerate(block.ops):
            if _role(op) & _OPTIMIZE:
                for ring_id in range(nrings):
                    block._insert_op(idx + ring_id, 'c_sync_comm_stream', {'X': [last_grad]}, {'Out': [last_grad]},
                                     {'ring_id': ring_id, OP_ROLE_ATTR: _BACKWARD})
                break
    return count


def _is_update_op(op) -> bool:
    return 'Param' in op.inputs and 'Grad' in op.inputs and 'LearningRate' in op.inputs


def local_sgd(startup, main, nranks: int, nrings: int = 1) -> None:
    """Paddle 1.8's LocalSGD transpiler: every update is followed by averaging the parameters over the trainers."""
    snapshot_key = '@SNAPSHOT'
    sblock = startup.global_block()
    for param in [p for p in sblock.iter_parameters() if not getattr(p, 'is_distributed', False)]:
        snapshot = sblock.create_var(name=param.name + snapshot_key, shape=param.shape, dtype=param.dtype,
                                     persistable=True, stop_gradient=True)
        sblock.append_op('assign', {'X': [param]}, {'Out': [snapshot]}, {OP_ROLE_ATTR: _FORWARD})
    block = main.global_block()
    ordered, ring_id, param = [], -1, None
    for idx, op in reversed(list(enumerate(block.ops))):
        if not _is_update_op(op):
            continue
        param = block._var_recursive(op.input('Param')[0])
        if getattr(param, 'is_distributed', False):
            continue
        snapshot = block.create_var(name=param.name + snapshot_key, shape=param.shape, dtype=param.dtype,
                                    persistable=True, stop_gradient=True)
        block._insert_op(idx + 1, 'elementwise_sub', {'X': [snapshot], 'Y': [param]}, {'Out': [param]},
                         {OP_ROLE_ATTR: _OPTIMIZE})
        block._insert_op(idx + 2, 'c_sync_calc_stream', {'X': [param]}, {'Out': [param]}, {OP_ROLE_ATTR: _OPTIMIZE})
        ring_id = (ring_id + 1) % nrings
        block._insert_op(idx + 3, 'c_allreduce_sum', {'X': [param]}, {'Out': [param]},
                         {'ring_id': ring_id, OP_ROLE_ATTR: _OPTIMIZE})
        ordered.append((param, snapshot))
    if param is None:
        return
    for ring_id in range(nrings):
        block.append_op('c_sync_comm_stream', {'X': [param]}, {'Out': [param]},
                        {'ring_id': ring_id, OP_ROLE_ATTR: _OPTIMIZE})
    for param, snapshot in reversed(ordered):
        block.append_op('scale', {'X': [param]}, {'Out': [param]}, {'scale': 1.0 / nranks, OP_ROLE_ATTR: _OPTIMIZE})
        block.append_op('elementwise_sub', {'X': [snapshot], 'Y': [param]}, {'Out': [param]},
                        {OP_ROLE_ATTR: _OPTIMIZE})
        block.append_op('assign', {'X': [param]}, {'Out': [snapshot]}, {OP_ROLE_ATTR: _OPTIMIZE})


def gen_nccl_id(startup, endpoints: list, trainer_id: int, nccl_comm_num: int = 1) -> None:
    block = startup.global_block()
    var = block.create_var(name='NCCLID', persistable=True, type=VarType.RAW)
    for i in range(1, nccl_comm_num):
        block.create_var(name='NCCLID_%d' % i, persistable=True, type=VarType.RAW)
    block.append_op('gen_nccl_id', {}, {'NCCLID': [var]},
                    {'trainers': list(endpoints), 'trainer_id': trainer_id, 'nccl_comm_num': nccl_comm_num,
                     'use_hierarchical_allreduce': False, 'hierarchical_allreduce_inter_nranks': 0})
