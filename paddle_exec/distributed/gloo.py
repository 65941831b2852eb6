"""Paddle's gloo functions (CPU barriers between the processes of a job), on the job's MPI group.

    dist.gloo_init_parallel_env(rank_id, rank_num, server_endpoint)   # this trainer joins the job's group
    dist.gloo_barrier()                                               # every trainer waits for the others
    dist.gloo_release()                                               # gloo_barrier refuses until the next init

Paddle starts a gloo context that meets at an HTTP store on `server_endpoint` (rank 0 serves it). paddle_exec's
trainers meet through mpiexec (docs/distributed.md), so the endpoint is not used; `rank_id` and `rank_num` must be
this process's trainer id and the job's size (the environment's, executor/config.py), since MPI already fixed
them. As in Paddle, gloo_barrier before gloo_init_parallel_env (or after gloo_release) is an error.
"""
from __future__ import annotations

from ..executor.config import trainer_environment
from ..framework.collective import get_group

__all__ = ['gloo_init_parallel_env', 'gloo_barrier', 'gloo_release']

_initialized = False


def gloo_init_parallel_env(rank_id: int, rank_num: int, server_endpoint: str) -> None:
    """Joins the job's group as trainer `rank_id` of `rank_num` (checked against the job mpiexec started)."""
    global _initialized
    if not isinstance(server_endpoint, str) or ':' not in server_endpoint:
        raise ValueError("server_endpoint must be 'ip:port', got %r" % (server_endpoint,))
    env = trainer_environment()
    if (int(rank_id), int(rank_num)) != (env.trainer_id, env.trainers_num):
        raise ValueError('gloo_init_parallel_env(rank_id=%d, rank_num=%d): this process is trainer %d of a job of %d '
                         '(paddle_exec\'s trainers are the processes mpiexec or paddle_exec.distributed.launch '
                         'started; pass dist.get_rank() and dist.get_world_size())'
                         % (rank_id, rank_num, env.trainer_id, env.trainers_num))
    get_group(0)
    _initialized = True


def gloo_barrier() -> None:
    """Waits until every trainer of the job reaches its gloo_barrier."""
    if not _initialized:
        raise AssertionError('gloo_init_parallel_env should be called first')
    get_group(0).barrier()


def gloo_release() -> None:
    """Ends this process's use of the gloo functions (the job's group stays for the other collectives)."""
    global _initialized
    _initialized = False
