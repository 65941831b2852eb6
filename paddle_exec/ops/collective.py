"""collective ops: the ops Paddle's collective training puts into programs, run on the job's process groups.

    c_allreduce_sum / _max / _min / _prod   Out = X reduced over the trainers of ring `ring_id`
    c_broadcast                             Out = X of the trainer `root`
    c_allgather                             Out = every trainer's X, concatenated along axis 0 in rank order
    barrier                                 waits for every trainer (Paddle 2.x's static `barrier`)
    allreduce, broadcast                    Paddle 1.x's `fluid.layers.collective` ops (reduce_type 0 sum, 1 prod,
                                            2 max, 3 min)
    c_gen_nccl_id, gen_nccl_id, c_comm_init, c_comm_init_all
                                            communicator setup: make the ring's group and check that the program
                                            was built for this job (rank and number of trainers)
    c_sync_comm_stream, c_sync_calc_stream, depend
                                            stream syncs and ordering edges: the identity on the CPU

The groups come from framework/collective.py (MPI when paddle_exec.distributed made one; in a job of one trainer
every collective is the identity). A SelectedRows value reduced by sum is gathered instead: every trainer's rows and
values concatenated in rank order (Paddle's sparse all-reduce). The executor's collective pass
(executor/passes/collective.py) replaces the gradient all-reduces of a training program by fused, non-blocking
buckets; these kernels are what every other collective runs.
"""
from __future__ import annotations

import numpy as np

from ..framework.collective import get_group
from ..framework.dtype import VarType
from ..framework.registry import defop, kernel_rule, shape_rule
from ..framework.scope import SelectedRows
from ._util import same_shape_as_x

__all__ = ['ALLREDUCE_OPS', 'CROSS_PROCESS_OPS', 'reduce_selected_rows']

ALLREDUCE_OPS = {'c_allreduce_sum': 'sum', 'c_allreduce_max': 'max', 'c_allreduce_min': 'min',
                 'c_allreduce_prod': 'prod'}
_REDUCE_TYPES = {0: 'sum', 1: 'prod', 2: 'max', 3: 'min'}
# ops that talk to the other trainers (the executor checks that every trainer runs the same ones)
CROSS_PROCESS_OPS = frozenset(ALLREDUCE_OPS) | {'c_broadcast', 'c_allgather', 'barrier', 'allreduce', 'broadcast',
                                                 'c_comm_init', 'gen_nccl_id'}

_STREAM = {'ring_id': 0, 'use_calc_stream': False}
for _type in ALLREDUCE_OPS:
    defop(_type, ['X', 'Cond'], ['Out'], {**_STREAM, 'use_model_parallel': False}, dispensable=['Cond'],
          stateful=True)
    shape_rule(_type)(same_shape_as_x)
defop('c_broadcast', ['X'], ['Out'], {**_STREAM, 'root': 0}, stateful=True)
shape_rule('c_broadcast')(same_shape_as_x)
defop('c_allgather', ['X'], ['Out'], {**_STREAM, 'nranks': 1}, stateful=True)
defop('barrier', ['X'], ['Out'], {'ring_id': 0}, dispensable=['X', 'Out'], stateful=True)
defop('allreduce', ['X'], ['Out'], {'reduce_type': 0, 'sync_mode': False}, stateful=True)
shape_rule('allreduce')(same_shape_as_x)
defop('broadcast', ['X'], ['Out'], {'root': 0, 'sync_mode': False}, stateful=True)
shape_rule('broadcast')(same_shape_as_x)
defop('c_sync_comm_stream', ['X'], ['Out'], {'ring_id': 0}, duplicable=['X', 'Out'], stateful=True)
defop('c_sync_calc_stream', ['X'], ['Out'], {}, duplicable=['X', 'Out'], stateful=True)
defop('depend', ['X', 'Dep'], ['Out'], {}, duplicable=['Dep'])
shape_rule('depend')(same_shape_as_x)
defop('c_gen_nccl_id', [], ['Out'], {'rank': 0, 'endpoint': '', 'other_endpoints': [], 'ring_id': 0},
      stateful=True)
defop('gen_nccl_id', [], ['NCCLID'], {'trainers': [], 'trainer_id': 0, 'nccl_comm_num': 1,
                                      'use_hierarchical_allreduce': False,
                                      'hierarchical_allreduce_inter_nranks': 0}, stateful=True)
defop('c_comm_init', ['X'], [], {'nranks': 1, 'rank': 0, 'ring_id': 0, 'device_id': -1, 'endpoints': ''},
      stateful=True)
defop('c_comm_init_all', [], [], {'ring_id': 0, 'devices': []}, stateful=True)


@shape_rule('c_allgather')
def _allgather_shape(ctx):
    shape = list(ctx.in_shape('X'))
    if shape and shape[0] >= 0:
        shape[0] *= int(ctx.attr('nranks'))
    ctx.set_output('Out', tuple(shape), ctx.in_dtype('X'))


@shape_rule('c_sync_comm_stream')
def _sync_shape(ctx):
    for k, v in enumerate(ctx.input_vars('X')):
        if v is not None:
            ctx.set_output('Out', v.shape, v.dtype, i=k)


shape_rule('c_sync_calc_stream')(_sync_shape)


@shape_rule('c_gen_nccl_id')
def _id_shape(ctx):
    ctx.set_output('Out', None, type=VarType.RAW)


@shape_rule('gen_nccl_id')
def _nccl_id_shape(ctx):
    ctx.set_output('NCCLID', None, type=VarType.RAW)


# --- kernels ----------------------------------------------------------------------------------------------------

def reduce_selected_rows(group, value: SelectedRows) -> SelectedRows:
    """A sparse gradient summed over the trainers: their rows and values concatenated in rank order."""
    rows = group.allgather(np.ascontiguousarray(value.rows, dtype=np.int64))
    values = group.allgather(np.ascontiguousarray(value.values))
    return SelectedRows(np.concatenate(rows), np.concatenate(values), value.height)


def _allreduce(group, op: str, name: str):
    def run(x, cond=None):
        if x is None:
            raise RuntimeError("The input '%s' of the all-reduce has no value: the op that computes it did not run"
                               % name)
        if isinstance(x, SelectedRows):
            if op != 'sum':
                raise NotImplementedError('a SelectedRows value can only be all-reduced by sum, not by %s (%s)'
                                          % (op, name))
            return (reduce_selected_rows(group, x),)
        return (group.allreduce(np.ascontiguousarray(x), op),)
    return run


@kernel_rule(*ALLREDUCE_OPS)
def _c_allreduce_kernel(spec):
    return _allreduce(get_group(int(spec.attr('ring_id'))), ALLREDUCE_OPS[spec.type], spec.op.input('X')[0])


@kernel_rule('allreduce')
def _allreduce_kernel(spec):
    reduce_type = int(spec.attr('reduce_type'))
    if reduce_type not in _REDUCE_TYPES:
        raise ValueError("allreduce: reduce_type must be 0 (sum), 1 (prod), 2 (max) or 3 (min), got %d" % reduce_type)
    return _allreduce(get_group(0), _REDUCE_TYPES[reduce_type], spec.op.input('X')[0])


def _broadcast(group, root: int):
    if not 0 <= root < group.nranks:
        raise ValueError('broadcast: root %d is not a trainer of this job (%d trainers)' % (root, group.nranks))
    return lambda x: (group.broadcast(np.ascontiguousarray(x), root),)


@kernel_rule('c_broadcast')
def _c_broadcast_kernel(spec):
    return _broadcast(get_group(int(spec.attr('ring_id'))), int(spec.attr('root')))


@kernel_rule('broadcast')
def _broadcast_kernel(spec):
    return _broadcast(get_group(0), int(spec.attr('root')))


@kernel_rule('c_allgather')
def _c_allgather_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    nranks = int(spec.attr('nranks'))
    if nranks != group.nranks:
        raise ValueError("c_allgather: the attribute nranks (%d) is not the number of trainers of ring %d (%d)"
                         % (nranks, spec.attr('ring_id'), group.nranks))
    return lambda x: (np.concatenate(group.allgather(np.ascontiguousarray(x)), axis=0),)


@kernel_rule('barrier')
def _barrier_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))

    def run(x=None):
        group.barrier()
        return (x,)
    return run


@kernel_rule('c_sync_comm_stream', 'c_sync_calc_stream')
def _sync_kernel(spec):
    return lambda xs: (xs,)


@kernel_rule('depend')
def _depend_kernel(spec):
    return lambda x, deps=None: (x,)


def _check_job(what: str, group, nranks: int, rank: int) -> None:
    if group.nranks != nranks or group.rank != rank:
        raise RuntimeError(
            '%s: the program was built for trainer %d of %d, but this process is trainer %d of %d. Start every '
            'trainer of the job with `python -m paddle_exec.distributed.launch --nproc_per_node N train.py` or '
            '`mpiexec -n N python train.py`, and build the program after fleet.init()'
            % (what, rank, nranks, group.rank, group.nranks))


@kernel_rule('c_gen_nccl_id')
def _c_gen_id_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    rank = int(spec.attr('rank'))
    _check_job('c_gen_nccl_id', group, group.nranks, rank)
    return lambda: (np.array([rank], dtype=np.int64),)


@kernel_rule('gen_nccl_id')
def _gen_id_kernel(spec):
    group = get_group(0)
    trainers = list(spec.attr('trainers') or [])
    _check_job('gen_nccl_id', group, len(trainers) or 1, int(spec.attr('trainer_id')))
    return lambda: (np.array([group.rank], dtype=np.int64),)


@kernel_rule('c_comm_init')
def _comm_init_kernel(spec):
    group = get_group(int(spec.attr('ring_id')))
    _check_job('c_comm_init', group, int(spec.attr('nranks')), int(spec.attr('rank')))
    return lambda x=None: ()


@kernel_rule('c_comm_init_all')
def _comm_init_all_kernel(spec):
    get_group(int(spec.attr('ring_id')))
    return lambda: ()
