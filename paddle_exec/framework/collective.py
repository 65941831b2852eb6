"""Process groups: how collective ops and the executor reach the other trainers of a job.

    group = get_group(0)                       # ring 0: every trainer of the job
    total = group.allreduce(array, 'sum')      # blocking, returns a new array
    work = group.allreduce_async(buffer)       # started now; work.wait() gives the reduced buffer
    group.broadcast(array, root=0); group.allgather(array); group.barrier()

A ring id names a group, as Paddle's `ring_id` attribute does. The IR only states the interface: the group of a
ring is made on first use by the factory that `paddle_exec.distributed` installs (MPI, when the environment says
the job has several trainers), and without a factory, or for a job of one trainer, it is `LocalGroup`, on which
every collective is the identity. So a program with `c_allreduce_sum` ops runs unchanged in one process, and
nothing here imports MPI.

Every trainer issues the same collectives in the same order (the programs are the same: the executor checks it when
it first runs one, `check_same`); a group runs them in the order they are issued.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

__all__ = ['REDUCE_OPS', 'Work', 'ProcessGroup', 'LocalGroup', 'get_group', 'set_group_factory', 'reset_groups',
           'CollectiveSettings', 'settings_of', 'set_settings']

REDUCE_OPS = ('sum', 'max', 'min', 'prod')


class Work:
    """A collective under way; `wait()` returns its result (or raises what the collective raised)."""

    def __init__(self, result=None):
        self._result = result

    def wait(self):
        return self._result

    def done(self) -> bool:
        return True


class ProcessGroup:
    """The interface of a group of trainers (see the module docstring). `rank` is this trainer's index."""
    rank: int = 0
    nranks: int = 1

    def allreduce(self, array: np.ndarray, op: str = 'sum') -> np.ndarray:
        raise NotImplementedError

    def allreduce_async(self, buffer: np.ndarray, op: str = 'sum', inplace: bool = False,
                        overlap: bool = True) -> Work:
        """Started now; `wait()` gives the reduced buffer. `inplace`: the caller hands `buffer` over and the result
        may be written into it. `overlap` False: the caller will wait right away (nothing to overlap)."""
        raise NotImplementedError

    def broadcast(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        raise NotImplementedError

    def allgather(self, array: np.ndarray) -> list:
        """Every trainer's array, in rank order (their first dimensions may differ)."""
        raise NotImplementedError

    def allgather_async(self, array: np.ndarray, overlap: bool = True) -> Work:
        """`allgather`, started now; `wait()` gives the list."""
        raise NotImplementedError

    def allgather_object(self, obj) -> list:
        """Every trainer's picklable `obj`, in rank order."""
        raise NotImplementedError

    def barrier(self) -> None:
        raise NotImplementedError

    def abort(self, code: int = 1) -> None:
        """Ends every trainer of the job (a failed trainer must not leave the others waiting in a collective)."""
        raise SystemExit(code)


class LocalGroup(ProcessGroup):
    """A job of one trainer: every collective returns its input."""

    def __init__(self, rank: int = 0):
        self.rank = rank
        self.nranks = 1

    def allreduce(self, array, op='sum'):
        return array

    def allreduce_async(self, buffer, op='sum', inplace=False, overlap=True):
        return Work(buffer)

    def broadcast(self, array, root=0):
        return array

    def allgather(self, array):
        return [array]

    def allgather_async(self, array, overlap=True):
        return Work([array])

    def allgather_object(self, obj):
        return [obj]

    def barrier(self):
        pass


_factory = None
_groups: dict[int, ProcessGroup] = {}
_lock = threading.Lock()


def set_group_factory(factory) -> None:
    """`factory(ring_id) -> ProcessGroup` makes the group of a ring on its first use (paddle_exec.distributed)."""
    global _factory
    _factory = factory


def get_group(ring_id: int = 0) -> ProcessGroup:
    group = _groups.get(ring_id)
    if group is None:
        with _lock:
            group = _groups.get(ring_id)
            if group is None:
                group = _factory(ring_id) if _factory is not None else LocalGroup()
                _groups[ring_id] = group
    return group


def reset_groups() -> None:
    """Forgets the groups made so far (tests that swap factories)."""
    with _lock:
        _groups.clear()


# --- what a distributed optimizer tells the executor about a program ------------------------------------------

@dataclass(frozen=True)
class CollectiveSettings:
    """How the executor fuses a program's gradient all-reduces: into buckets of at most `fuse_grad_size_in_MB`
    megabytes when `fuse_all_reduce_ops` (Paddle's DistributedStrategy fields of the same names)."""
    fuse_all_reduce_ops: bool = True
    fuse_grad_size_in_MB: float = 32.0


def settings_of(program) -> CollectiveSettings | None:
    return getattr(program, '_collective_settings', None)


def set_settings(program, settings: CollectiveSettings) -> None:
    program._collective_settings = settings
