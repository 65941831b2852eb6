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

__all__ = ['init_parallel_env', 'get_rank', 'get_world_size', 'ParallelEnv', 'make_group', 'is_initialized',
           'is_available', 'get_backend', 'get_group', 'Group', 'wait']

_world: ProcessGroup | None = None
_lock = threading.Lock()


def _mpi_world(env: TrainerEnvironment) -> ProcessGroup:
    global _world
    with _lock:
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
    """The group of `ring_id`: every ring spans all the trainers of the job (Paddle's rings of one job)."""
    env = trainer_environment()
    if not env.distributed:
        return LocalGroup(env.trainer_id)
    return _mpi_world(env)


set_group_factory(make_group)


def is_initialized() -> bool:
    """Whether this process has joined the job's MPI group."""
    return _world is not None


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


class Group:
    """Paddle's Group of a ring: every trainer of the job (`id` is the ring id)."""

    def __init__(self, ring_id: int = 0):
        self.id = ring_id
        env = trainer_environment()
        self.rank, self.nranks = env.trainer_id, env.trainers_num
        self.ranks = list(range(env.trainers_num))

    @property
    def world_size(self) -> int:
        return self.nranks

    def is_member(self) -> bool:
        return True

    def get_group_rank(self, rank: int) -> int:
        return rank if 0 <= rank < self.nranks else -1

    def __repr__(self):
        return 'rank: %d, nranks: %d, id: %d, ranks: %s' % (self.rank, self.nranks, self.id, self.ranks)


def get_group(id: int = 0) -> Group:
    return Group(id)


def wait(tensor, group=None, use_calc_stream=True) -> None:
    """Paddle's stream sync: collectives here complete before the next op reads their result."""


def get_rank() -> int:
    """This trainer's index in the job (0 in a job of one)."""
    return trainer_environment().trainer_id


def get_world_size() -> int:
    """The number of trainers of the job."""
    return trainer_environment().trainers_num


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
