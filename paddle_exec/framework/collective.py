"""Process groups: how collective ops and the executor reach the other trainers of a job.

    group = get_group(0)                       # ring 0: every trainer of the job
    total = group.allreduce(array, 'sum')      # blocking, returns a new array
    work = group.allreduce_async(buffer)       # started now; work.wait() gives the reduced buffer
    group.broadcast(array, root=0); group.allgather(array); group.barrier()
    group.reduce(array, 'sum', root=1); group.reduce_scatter(array); group.scatter(array, root=0)
    group.alltoall(array); group.send(array, peer=1); group.recv(peer=0, dtype, shape)

A ring id names a group, as Paddle's `ring_id` attribute does. The IR only states the interface: the group of a
ring is made on first use by the factory that `paddle_exec.distributed` installs (MPI, when the environment says
the job has several trainers), and without a factory, or for a job of one trainer, it is `LocalGroup`, on which
every collective is the identity. So a program with `c_allreduce_sum` ops runs unchanged in one process, and
nothing here imports MPI.

A ring spans every trainer of the job unless `set_ring_ranks` gave it a sub-group (paddle.distributed.new_group):
then its group holds just those trainers, ranked in the order of their job ranks, and `rank` / `root` / `peer`
are ranks inside it. `ring_ranks` tells the executor which rings are sub-groups (their collectives run on some
trainers only, so they are left out of the check that every trainer runs the same program).

Array collectives split and join along axis 0: `scatter`, `reduce_scatter` and `alltoall` cut the first dimension
into `nranks` equal parts, part k for trainer k. Point-to-point `send` never blocks the sender (the array is copied
and handed over; the receiver's `recv` waits for it), so two trainers may each send before they receive.

Every trainer issues the same collectives in the same order (the programs are the same: the executor checks it when
it first runs one, `check_same`); a group runs them in the order they are issued.
"""
from __future__ import annotations

import collections
import threading
from dataclasses import dataclass

import numpy as np

__all__ = ['REDUCE_OPS', 'Work', 'ProcessGroup', 'LocalGroup', 'get_group', 'set_group_factory', 'reset_groups',
           'set_ring_ranks', 'ring_ranks', 'forget_ring', 'split_parts', 'CollectiveSettings', 'settings_of',
           'set_settings']

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

    def reduce(self, array: np.ndarray, op: str = 'sum', root: int = 0) -> np.ndarray:
        """The reduction over the trainers on trainer `root`; every other trainer gets its own `array` back."""
        raise NotImplementedError

    def reduce_scatter(self, array: np.ndarray, op: str = 'sum') -> np.ndarray:
        """Part `rank` (of `nranks` along axis 0) of the reduction over the trainers."""
        raise NotImplementedError

    def scatter(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        """Part `rank` (of `nranks` along axis 0) of trainer `root`'s array; the others' arrays give only the
        shape and dtype."""
        raise NotImplementedError

    def alltoall(self, array: np.ndarray) -> np.ndarray:
        """Part k of `array` (of `nranks` along axis 0) goes to trainer k; the result joins the parts received, in
        rank order."""
        raise NotImplementedError

    def send(self, array: np.ndarray, peer: int, with_shape: bool = False) -> None:
        """Hands a copy of `array` to trainer `peer` without waiting for it to be received. `with_shape`: the shape
        travels too (Paddle's dynamic_shape; the receiver must ask for it)."""
        raise NotImplementedError

    def recv(self, peer: int, dtype, shape=None, with_shape: bool = False) -> np.ndarray:
        """The next array trainer `peer` sends to this one, of `dtype`; `shape` may hold one -1 (taken from the
        length received); `with_shape`: the sender sent the shape."""
        raise NotImplementedError

    def broadcast_object(self, obj, root: int = 0):
        """Trainer `root`'s picklable `obj`, on every trainer."""
        raise NotImplementedError

    def scatter_object(self, objs, root: int = 0):
        """Item `rank` of trainer `root`'s list `objs` (of `nranks` picklable items; ignored elsewhere)."""
        raise NotImplementedError

    def alltoall_object(self, objs: list) -> list:
        """Item k of `objs` goes to trainer k; the items received, in rank order."""
        raise NotImplementedError

    def release(self) -> None:
        """Frees what the group holds (a sub-group's communicator); it must not be used after."""

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

    def reduce(self, array, op='sum', root=0):
        return array

    def reduce_scatter(self, array, op='sum'):
        return split_parts(array, 1, 'reduce_scatter')[0]

    def scatter(self, array, root=0):
        return split_parts(array, 1, 'scatter')[0]

    def alltoall(self, array):
        return array

    def send(self, array, peer, with_shape=False):
        _check_peer(peer, self.nranks, 'send')
        self._mailbox().append(np.array(array, copy=True))

    def recv(self, peer, dtype, shape=None, with_shape=False):
        _check_peer(peer, self.nranks, 'recv')
        box = self._mailbox()
        if not box:
            raise RuntimeError('recv from trainer %d: nothing was sent to it (a job of one trainer receives only '
                               'what it sent itself before)' % peer)
        return box.popleft().astype(dtype, copy=False)

    def broadcast_object(self, obj, root=0):
        return obj

    def scatter_object(self, objs, root=0):
        return list(objs)[0]

    def alltoall_object(self, objs):
        return list(objs)

    def _mailbox(self) -> collections.deque:
        box = getattr(self, '_sent', None)
        if box is None:
            box = self._sent = collections.deque()
        return box


def _check_peer(peer: int, nranks: int, what: str) -> None:
    if not 0 <= peer < nranks:
        raise ValueError('%s: peer %d is not a trainer of this group (%d trainers)' % (what, peer, nranks))


def split_parts(array: np.ndarray, nranks: int, what: str) -> list:
    """`array` cut along axis 0 into `nranks` equal parts (views), as scatter, reduce_scatter and alltoall do."""
    array = np.asarray(array)
    if array.ndim == 0 or array.shape[0] % nranks:
        raise ValueError('%s: the first dimension of the tensor (shape %s) must be divisible by the number of '
                         'trainers (%d)' % (what, list(array.shape), nranks))
    step = array.shape[0] // nranks
    return [array[k * step:(k + 1) * step] for k in range(nranks)]


_factory = None
_groups: dict[int, ProcessGroup] = {}
_ring_ranks: dict[int, tuple] = {}
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


def set_ring_ranks(ring_id: int, ranks) -> None:
    """Ring `ring_id` is the sub-group of the trainers `ranks` (job ranks; paddle.distributed.new_group)."""
    with _lock:
        _ring_ranks[ring_id] = tuple(sorted(int(r) for r in ranks))


def ring_ranks(ring_id: int) -> tuple | None:
    """The job ranks of a sub-group ring, or None for a ring of every trainer."""
    return _ring_ranks.get(ring_id)


def forget_ring(ring_id: int) -> None:
    """Drops a ring's sub-group and releases its group if one was made (paddle.distributed.destroy_process_group);
    ring 0, every trainer, stays usable."""
    with _lock:
        sub = _ring_ranks.pop(ring_id, None)
        group = _groups.pop(ring_id, None)
    if group is not None and sub is not None:     # a ring of every trainer shares the job's group: keep it
        group.release()


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
