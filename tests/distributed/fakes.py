"""A process group for in-process tests: trainer `rank` of `nranks` whose peers hold exactly what it holds.

So a sum over the trainers is `nranks * value`, a broadcast returns the value, a gather repeats it: a job of
identical trainers, whose training must equal one process on the same data. Every call is recorded in `calls`
(kind, bytes or shape), and `events` interleaves the submissions and waits of asynchronous all-reduces.
"""
import contextlib

import numpy as np

from paddle_exec.framework import collective
from paddle_exec.framework.collective import ProcessGroup, Work


class _Recorded(Work):
    def __init__(self, result, group, tag):
        super().__init__(result)
        self.group, self.tag = group, tag

    def wait(self):
        self.group.events.append(('wait', self.tag))
        return self._result


class MirrorGroup(ProcessGroup):
    def __init__(self, nranks=2, rank=0, digests=None):
        self.nranks, self.rank = nranks, rank
        self.calls, self.events, self.buffers, self.overlaps = [], [], [], []
        self.digests = digests            # allgather_object answers, to fake another trainer's program

    def allreduce(self, array, op='sum'):
        self.calls.append(('allreduce', op, np.asarray(array).nbytes))
        return array * self.nranks if op == 'sum' else array ** self.nranks if op == 'prod' else array.copy()

    def allreduce_async(self, buffer, op='sum', inplace=False, overlap=True):
        self.overlaps.append(overlap)
        tag = len(self.calls)
        self.calls.append(('allreduce_async', op, buffer.nbytes))
        self.events.append(('submit', tag))
        self.buffers.append(id(buffer))
        if inplace:
            buffer *= self.nranks
            return _Recorded(buffer, self, tag)
        return _Recorded(buffer * self.nranks, self, tag)

    def broadcast(self, array, root=0):
        self.calls.append(('broadcast', root, np.asarray(array).shape))
        return np.array(array, copy=True)

    def allgather(self, array):
        self.calls.append(('allgather', np.asarray(array).shape))
        return [np.array(array, copy=True) for _ in range(self.nranks)]

    def allgather_async(self, array, overlap=True):
        return Work(self.allgather(array))

    def allgather_object(self, obj):
        self.calls.append(('allgather_object',))
        if self.digests is not None:
            answer = self.digests.pop(0)
            return answer if answer is not None else [obj] * self.nranks
        return [obj] * self.nranks

    def barrier(self):
        self.calls.append(('barrier',))


@contextlib.contextmanager
def mirrored(group):
    """Every ring's group is `group` inside the block (the factory of paddle_exec.distributed comes back after)."""
    previous = collective._factory
    collective.reset_groups()
    collective.set_group_factory(lambda ring_id: group)
    try:
        yield group
    finally:
        collective.reset_groups()
        collective.set_group_factory(previous)
