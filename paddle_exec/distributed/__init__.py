"""paddle.distributed: training across processes and machines, on MPI (the `[distributed]` extra).

    import paddle_exec.distributed as dist
    import paddle_exec.distributed.fleet as fleet
    python -m paddle_exec.distributed.launch --nproc_per_node 2 train.py     # or: mpiexec -n 2 python train.py

Modules: parallel.py (the job: rank, world size, ParallelEnv, the process-group factory), communicator.py (the MPI
group, imported only for a job of several trainers), group.py (Group, new_group, destroy_process_group, wait),
collective.py (static-mode all_reduce, broadcast, all_gather, reduce, reduce_scatter, scatter, gather, alltoall,
barrier), p2p.py (send, recv, isend, irecv), objects.py (the object collectives), gloo.py (Paddle's gloo
barrier on the MPI group), checkpoint.py (save_state_dict / load_state_dict), io.py, modes.py (ParallelMode,
ReduceType), fleet/ (fleet API, DistributedStrategy, role makers, util, the program rewrites, the 2.x datasets and
data generators), launch/ (the launcher).
Importing this package installs the group factory of framework/collective.py and loads no MPI. Names Paddle has
here that cannot mean anything on this executor (auto-parallel, parameter-server entries) raise AttributeError
saying why (paddle_exec/_declined.py). `__all__` is Paddle 2.6.2's list less those; `fleet` and `Group` are here
too, as in Paddle, outside its `__all__`.
"""
from .._declined import declined_getattr as _declined_getattr
from . import fleet, io, launch
from .checkpoint import load_state_dict, save_state_dict
from .collective import (
    ReduceOp,
    all_gather,
    all_reduce,
    alltoall,
    alltoall_single,
    barrier,
    broadcast,
    gather,
    reduce,
    reduce_scatter,
    scatter,
)
from .fleet.dataset import InMemoryDataset, QueueDataset
from .gloo import gloo_barrier, gloo_init_parallel_env, gloo_release
from .group import Group, destroy_process_group, get_group, new_group, wait
from .modes import ParallelMode, ReduceType
from .objects import all_gather_object, broadcast_object_list, scatter_object_list
from .p2p import irecv, isend, recv, send
from .parallel import (
    ParallelEnv,
    get_backend,
    get_rank,
    get_world_size,
    init_parallel_env,
    is_available,
    is_initialized,
)
from .spawn import spawn

__all__ = ['launch', 'ReduceOp', 'all_reduce', 'broadcast', 'all_gather', 'barrier', 'reduce',
           'reduce_scatter', 'scatter', 'gather', 'alltoall', 'alltoall_single', 'send', 'recv', 'isend', 'irecv',
           'new_group', 'destroy_process_group', 'get_group', 'wait', 'all_gather_object',
           'broadcast_object_list', 'scatter_object_list', 'ParallelEnv', 'get_rank', 'get_world_size',
           'init_parallel_env', 'is_initialized', 'is_available', 'get_backend', 'io', 'ParallelMode', 'ReduceType',
           'gloo_init_parallel_env', 'gloo_barrier', 'gloo_release', 'InMemoryDataset', 'QueueDataset',
           'save_state_dict', 'load_state_dict', 'spawn']

__getattr__ = _declined_getattr(__name__)
