"""The job: which trainer this process is, and the process group collectives run on.

    import paddle_exec.distributed as dist
    dist.init_parallel_env()                   # makes the group now (it is otherwise made at the first collective)
    dist.get_rank(), dist.get_world_size()     # from the environment: no MPI needed to ask
    env = dist.ParallelEnv()                   # rank, world_size, current_endpoint, trainer_endpoints, ...

A job of several trainers is started by `python -m paddle_exec.distributed.launch` (PADDLE_TRAINER_ID, ...) or by a
plain `mpiexec -n N` (the MPI rank and size); executor/config.py reads both (`trainer_environment`). `make_group`
is the factory framework/collective.py calls for a ring's group: for a job of one trainer, the local group (no MPI);
otherwise the MPI group of communicator.py (imported then, not before), shared by every ring id, with uncaught
exceptions ending the whole job. It checks that MPI's view of the job is the environment's.
"""
from __future__ import annotations

import importlib.util
import threading

from ..executor.config import TrainerEnvironment, trainer_environment
from ..framework import collective as _collective
from ..framework.collective import LocalGroup, ProcessGroup, set_group_factory

__all__ = ['init_parallel_env', 'get_rank', 'get_world_size', 'ParallelEnv', 'make_group', 'leave', 'is_initialized',
           'is_available', 'get_backend']

_world: ProcessGroup | None = None
_joined = False          # is_initialized(): the job's group was made and not destroyed since
_lock = threading.Lock()


def _mpi_world(env: TrainerEnvironment) -> ProcessGroup:
    global _world, _joined
    with _lock:
        _joined = True
        if _world is None:
            if env.mpi_size is None:
                raise RuntimeError(
                    'This process is trainer %d of %d (PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM), but it was not '
                    'started by mpiexec, which paddle_exec uses to reach the other trainers. Start the job with '
                    '`python -m paddle_exec.distributed.launch --nproc_per_node %d train.py` or `mpiexec -n %d '
                    'python train.py` (pip install paddle_exec[distributed] brings both)'
                    % (env.trainer_id, env.trainers_num, env.trainers_num, env.trainers_num))
            from . import communicator  # MPI is loaded here, only for a job of several trainers
            group = communicator.MPIGroup()
            if group.nranks != env.trainers_num or group.rank != env.trainer_id:
                raise RuntimeError(
                    'The environment says this process is trainer %d of %d (PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM)'
                    ', but MPI started it as rank %d of %d: start every trainer with the same mpiexec (the '
                    'launcher does), one MPI process per trainer' % (env.trainer_id, env.trainers_num, group.rank,
                                                                     group.nranks))
            communicator.abort_on_error(group)
            _world = group
    return _world


def make_group(ring_id: int = 0) -> ProcessGroup:
    """The group of `ring_id`: the sub-group new_group registered for it (its members only), else every trainer of
    the job (Paddle's rings of one job)."""
    env = trainer_environment()
    ranks = _collective.ring_ranks(ring_id)
    if ranks is not None and env.trainer_id not in ranks:
        raise RuntimeError('Ring %d is the group of trainers %s (paddle.distributed.new_group); trainer %d is not one '
                           'of them and cannot run its collectives' % (ring_id, list(ranks), env.trainer_id))
    if not env.distributed:
        return LocalGroup(env.trainer_id)
    world = _mpi_world(env)
    if ranks is None or len(ranks) == world.nranks:
        return world
    if len(ranks) == 1:
        return LocalGroup(0)
    return world.subgroup(ranks)


def leave() -> None:
    """destroy_process_group(): forget the rings' groups; is_initialized() is False until the job's group is
    needed again (the MPI group itself stays: MPI cannot start twice in one process)."""
    global _joined
    _collective.reset_groups()
    _joined = False


set_group_factory(make_group)


def is_initialized() -> bool:
    """Whether this process has joined the job's MPI group (and not destroyed it since)."""
    return _joined


def init_parallel_env():
    """Joins the job now (Paddle 2.x): MPI is started when the job has several trainers. Returns the ParallelEnv."""
    _collective.get_group(0)
    return ParallelEnv()


def is_available() -> bool:
    """Whether jobs of several trainers can run here: the [distributed] extra (mpi4py) is installed."""
    return importlib.util.find_spec('mpi4py') is not None


def get_backend(group=None) -> str:
    """The communication backend: MPI for a job of several trainers, else none is needed ('LOCAL')."""
    return 'MPI' if trainer_environment().distributed else 'LOCAL'


def get_rank(group=None) -> int:
    """This trainer's index in the job (0 in a job of one), or in `group` (-1 outside it)."""
    return trainer_environment().trainer_id if group is None else group.rank


def get_world_size(group=None) -> int:
    """The number of trainers of the job, or of `group` (-1 outside it)."""
    return trainer_environment().trainers_num if group is None else group.world_size


class ParallelEnv:
    """Paddle's ParallelEnv: the job as the environment describes it."""

    def __init__(self):
        self._env = trainer_environment()

    @property
    def rank(self) -> int:
        return self._env.trainer_id

    @property
    def world_size(self) -> int:
        return self._env.trainers_num

    @property
    def device_id(self) -> int:
        return 0

    @property
    def device_type(self) -> str:
        return 'cpu'

    @property
    def current_endpoint(self) -> str:
        return self._env.current_endpoint

    @property
    def trainer_endpoints(self) -> list:
        return list(self._env.endpoints)

    @property
    def nrings(self) -> int:
        return 1

    # Paddle's older names
    local_rank = rank
    nranks = world_size
    dev_id = device_id
