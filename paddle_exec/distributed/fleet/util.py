"""fleet.util: small helpers every trainer calls together (Paddle's UtilBase), on the job's process group.

    fleet.util.all_reduce(np.array([loss]), mode='sum')    # numpy in, numpy out, right away (not a program op)
    fleet.util.barrier()
    fleet.util.all_gather(value)                            # every trainer's value, in rank order
    fleet.util.get_file_shard(files)                        # this trainer's contiguous share of `files`
    fleet.util.print_on_rank('message', 0)
"""
from __future__ import annotations

import numpy as np

from ...framework.collective import get_group

__all__ = ['UtilBase']

_MODES = ('sum', 'max', 'min')


class UtilBase:
    def __init__(self, role_maker=None):
        self.role_maker = role_maker

    def _set_role_maker(self, role_maker) -> None:
        self.role_maker = role_maker

    def _check_world(self, comm_world: str) -> None:
        if comm_world not in ('worker', 'all'):
            raise ValueError("comm_world must be 'worker' or 'all' in collective training (no servers), got %r"
                             % comm_world)

    def all_reduce(self, input, mode: str = 'sum', comm_world: str = 'worker'):
        """`input` reduced over the trainers (mode 'sum', 'max' or 'min'), as a numpy array."""
        self._check_world(comm_world)
        if mode not in _MODES:
            raise ValueError("mode must be one of %s, got %r" % (_MODES, mode))
        return get_group(0).allreduce(np.ascontiguousarray(np.asarray(input)), mode)

    def barrier(self, comm_world: str = 'worker') -> None:
        self._check_world(comm_world)
        get_group(0).barrier()

    def all_gather(self, input, comm_world: str = 'worker') -> list:
        """Every trainer's `input` (any picklable value), in rank order."""
        self._check_world(comm_world)
        return get_group(0).allgather_object(input)

    def get_file_shard(self, files: list) -> list:
        """This trainer's block of `files`: contiguous blocks, the first `len % trainers` one file longer."""
        if not isinstance(files, list):
            raise TypeError('files should be a list of file need to be read.')
        trainer_id, trainers = self.role_maker._worker_index(), self.role_maker._worker_num()
        remainder, blocksize = len(files) % trainers, len(files) // trainers
        blocks = [blocksize + (1 if i < remainder else 0) for i in range(trainers)]
        begin = sum(blocks[:trainer_id])
        return files[begin:begin + blocks[trainer_id]]

    def print_on_rank(self, message, rank_id: int) -> None:
        if self.role_maker._worker_index() != rank_id:
            return
        print(message)
