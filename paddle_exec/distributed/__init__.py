"""paddle.distributed: training across processes and machines, on MPI (the `[distributed]` extra).

    import paddle_exec.distributed as dist
    import paddle_exec.distributed.fleet as fleet
    python -m paddle_exec.distributed.launch --nproc_per_node 2 train.py     # or: mpiexec -n 2 python train.py

Modules: parallel.py (the job: rank, world size, ParallelEnv, the process-group factory), communicator.py (the MPI
group, imported only for a job of several trainers), collective.py (static-mode all_reduce, broadcast, all_gather,
barrier), fleet/ (fleet API, DistributedStrategy, role makers, util, the program rewrites), launch/ (the launcher).
Importing this package installs the group factory of framework/collective.py and loads no MPI.
"""
from . import fleet, launch
from .collective import ReduceOp, all_gather, all_reduce, barrier, broadcast
from .parallel import (
    Group,
    ParallelEnv,
    get_backend,
    get_group,
    get_rank,
    get_world_size,
    init_parallel_env,
    is_available,
    is_initialized,
    wait,
)

__all__ = ['fleet', 'launch', 'ReduceOp', 'all_reduce', 'broadcast', 'all_gather', 'barrier', 'ParallelEnv',
           'get_rank', 'get_world_size', 'init_parallel_env', 'is_initialized', 'is_available', 'get_backend',
           'get_group', 'Group', 'wait']
