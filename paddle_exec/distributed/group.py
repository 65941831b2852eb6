"""Groups of trainers: the job's group, sub-groups made by new_group, and the stream syncs of a group's work.

    group = dist.new_group([0, 1])          # ring 10 (Paddle's first static ring id), the trainers 0 and 1
    dist.all_reduce(x, group=group)         # c_allreduce_sum with ring_id 10 (dist.reduce, scatter, send: the same)
    group.rank, group.ranks, group.nranks   # this trainer's rank in it (-1 outside it), the members' job ranks
    dist.destroy_process_group(group)       # its communicator is freed; destroy_process_group() frees them all
    dist.wait(x)                            # c_sync_calc_stream (use_calc_stream=False: c_sync_comm_stream)

A group is a ring id plus its members. new_group registers the members in framework/collective.py
(`set_ring_ranks`); the ring's process group (an MPI communicator over the members, communicator.py) is made when
a program first runs one of its collectives, on the members only. Ring ids of Paddle 2.6.2's static mode: the job's
group is 0, new groups count on from 10 (`len(groups) + max(nrings, 9)`). Like Paddle, new_group appends a
synchronising all-reduce (of an empty int32 tensor, ring 0) and a c_sync_calc_stream to the current main program
on the members of a group of two or more.

Paddle 2.6.2's static collectives accept no group (they assert `group is None`); here they take one, as its
dygraph functions do: a trainer outside the group appends nothing (Paddle warns and returns), and source /
destination ranks are job ranks, turned into ranks inside the group for the ops' `root` / `peer` attributes.
Every backend name (nccl, gloo, mpi) means the job's MPI.
"""
from __future__ import annotations

import datetime
import threading
import warnings

from ..executor.config import trainer_environment
from ..framework import collective as _collective
from ..framework.dtype import VarType
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from . import parallel

__all__ = ['Group', 'new_group', 'get_group', 'destroy_process_group', 'wait', 'ring_and_rank']

_BACKENDS = (None, 'nccl', 'gloo', 'mpi', 'bkcl', 'xccl')
_groups: dict[int, 'Group'] = {}
_lock = threading.Lock()


class Group:
    """Paddle's Group: `rank` is this trainer's rank inside the group (-1 outside it), `ranks` the members' job
    ranks, `id` the ring id its ops carry."""

    def __init__(self, rank_in_group: int, id: int, ranks, pg=None, name=None):
        self._rank_in_group = rank_in_group
        self._id = id
        self._ranks = list(ranks)
        self._name = name

    @property
    def rank(self) -> int:
        return self._rank_in_group

    @property
    def ranks(self) -> list:
        return self._ranks

    @property
    def nranks(self) -> int:
        return len(self._ranks)

    @property
    def world_size(self) -> int:
        return len(self._ranks) if self._rank_in_group >= 0 else -1

    @property
    def id(self) -> int:
        return self._id

    @property
    def name(self):
        return self._name

    @property
    def backend(self) -> str:
        return 'MPI' if trainer_environment().distributed else 'LOCAL'

    @property
    def process_group(self):
        """The ring's process group (made now if no program has used it yet; a member only)."""
        if not self.is_member():
            raise RuntimeError('trainer %d is not a member of group %d (trainers %s)'
                               % (trainer_environment().trainer_id, self._id, self._ranks))
        return _collective.get_group(self._id)

    def is_member(self) -> bool:
        return self._rank_in_group >= 0

    def get_group_rank(self, rank: int) -> int:
        """The rank inside this group of the job's trainer `rank`, or -1."""
        return self._ranks.index(rank) if self.is_member() and rank in self._ranks else -1

    def __repr__(self):
        return 'rank: %d, nranks: %d, id: %d, ranks: %s; name: %s' % (
            self.rank, self.nranks, self.id, ', '.join(map(str, self.ranks)), self.name if self.name else 'None')


def _world_group(ring_id: int = 0) -> Group:
    env = trainer_environment()
    return Group(env.trainer_id, ring_id, range(env.trainers_num))


def get_group(id: int = 0) -> Group:
    """The group of ring `id`: a group new_group made, else every trainer of the job under that ring id."""
    group = _groups.get(id)
    return group if group is not None else _world_group(id)


def new_group(ranks=None, backend=None, timeout=datetime.timedelta(seconds=1800)) -> Group:
    """A group of the trainers `ranks` (job ranks; all of them when None) on a new ring id (see the module
    docstring)."""
    if backend not in _BACKENDS:
        raise ValueError('Unsupported backend: %s. (paddle_exec runs every group on MPI: pass None, nccl, gloo or '
                         'mpi)' % backend)
    env = trainer_environment()
    ranks = sorted(int(r) for r in (range(env.trainers_num) if ranks is None else ranks))
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < env.trainers_num for r in ranks):
        raise ValueError('new_group: ranks %s must be distinct trainers of this job (0 to %d)'
                         % (ranks, env.trainers_num - 1))
    with _lock:
        ring_id = len(_groups) + 1 + 9          # Paddle: len(group map, the job's group included) + max(nrings, 9)
        while ring_id in _groups:
            ring_id += 1
        rank = ranks.index(env.trainer_id) if env.trainer_id in ranks else -1
        group = Group(rank, ring_id, ranks)
        _groups[ring_id] = group
    _collective.set_ring_ranks(ring_id, ranks)
    if rank >= 0 and len(ranks) >= 2:
        _append_sync()
    return group


def _append_sync() -> None:
    """What Paddle's static new_group appends: an all-reduce of an empty int32 tensor, then a calc-stream sync."""
    tmp = fill_constant([0], VarType.INT32, 1)
    helper = LayerHelper('c_allreduce_sum')
    helper.append_op(type='c_allreduce_sum', inputs={'X': [tmp]}, outputs={'Out': [tmp]},
                     attrs={'ring_id': 0, 'use_calc_stream': True})
    wait(tmp)


def destroy_process_group(group=None) -> None:
    """Frees `group`'s communicator and forgets it; with None, every group new_group made, and the job's group
    counts as not initialised until init_parallel_env or a collective joins it again (MPI itself stays up: it
    cannot start twice in one process)."""
    if group is None:
        with _lock:
            ids = list(_groups)
            _groups.clear()
        for ring_id in ids:
            _collective.forget_ring(ring_id)
        parallel.leave()
        return
    with _lock:
        if group.id not in _groups:
            raise AssertionError('Destroy group with id %d is invalid.' % group.id)
        del _groups[group.id]
    _collective.forget_ring(group.id)


def ring_and_rank(group, rank: int | None, what: str):
    """(ring id, `rank` as a rank inside `group`) for a collective's attributes, or None when this trainer is not a
    member (it then appends nothing, as Paddle's dygraph collectives return)."""
    if group is None:
        return 0, rank
    if not isinstance(group, Group):
        if isinstance(group, int):
            return group, rank
        raise TypeError('%s: group must be a paddle.distributed Group (new_group, get_group) or None, got %s'
                        % (what, type(group).__name__))
    if not group.is_member():
        warnings.warn('Current global rank %d is not in group %s' % (trainer_environment().trainer_id, group.name))
        return None
    if rank is None:
        return group.id, None
    inside = group.get_group_rank(rank)
    if inside < 0:
        raise AssertionError('The input rank %d can not be found inside the group %s' % (rank, group.name))
    return group.id, inside


def wait(tensor, group=None, use_calc_stream=True) -> None:
    """Paddle's stream sync of `tensor`: c_sync_calc_stream, or c_sync_comm_stream on the group's ring. Ops run in
    program order on the CPU, so both only order the program."""
    if group is not None and not group.is_member():
        return
    if use_calc_stream:
        helper = LayerHelper('c_sync_calc_stream')
        helper.append_op(type='c_sync_calc_stream', inputs={'X': [tensor]}, outputs={'Out': [tensor]})
    else:
        helper = LayerHelper('c_sync_comm_stream')
        helper.append_op(type='c_sync_comm_stream', inputs={'X': [tensor]}, outputs={'Out': [tensor]},
                         attrs={'ring_id': 0 if group is None else group.id})
