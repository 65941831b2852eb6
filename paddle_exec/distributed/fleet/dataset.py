"""paddle.distributed.InMemoryDataset / QueueDataset: Paddle 2.x's interface (init / update_settings keywords) over
fluid.dataset's classes (io/multislot.py: the MultiSlot text format through a pipe command, in batches).

    dataset = paddle.distributed.InMemoryDataset()
    dataset.init(batch_size=32, thread_num=2, use_var=[ids, label], pipe_command='python my_generator.py')
    dataset.set_filelist(['part-0', 'part-1'])
    dataset.load_into_memory(is_shuffle=True)
    for feed in paddle.io.DataLoader.from_dataset(dataset, static.cpu_places(1)): exe.run(main, feed=feed, ...)

The pipe command is where a fleet.MultiSlotDataGenerator script goes (fleet/data_generator.py). Each trainer reads
the files it is given (fleet.util.get_file_shard splits a list between them); with a `fleet`, global_shuffle
shuffles locally and get_memory_data_size / get_shuffle_data_size sum the trainers' counts. Keywords of the
parameter-server / GPU-PS feeds that change nothing when one process reads local files are accepted and kept.
"""
from __future__ import annotations

import numpy as np

from ...framework.collective import get_group
from ...io import multislot as _fluid

__all__ = ['InMemoryDataset', 'QueueDataset']

_KEPT = ('input_type', 'data_feed_type', 'queue_num', 'merge_size', 'parse_ins_id', 'parse_content',
         'fleet_send_batch_size', 'fleet_send_sleep_seconds', 'fea_eval', 'candidate_size', 'use_ps_gpu')


class _Settings:
    """Paddle 2.x's keyword settings, mapped onto fluid's setters."""

    def _apply(self, kwargs: dict, what: str) -> None:
        setters = {'batch_size': self.set_batch_size, 'thread_num': self.set_thread, 'use_var': self.set_use_var,
                   'pipe_command': self.set_pipe_command, 'download_cmd': self.set_download_cmd}
        for key, value in kwargs.items():
            if key in setters:
                setters[key](value)
            elif key in ('fs_name', 'fs_ugi'):
                if value:
                    self.set_hdfs_config(kwargs.get('fs_name'), kwargs.get('fs_ugi'))
            elif key in _KEPT:
                self.proto_desc[key] = value
            else:
                raise TypeError("%s() got an unexpected keyword argument '%s'" % (what, key))

    def init(self, **kwargs) -> None:
        """Sets batch_size, thread_num, use_var, pipe_command, download_cmd (and fluid's feed keywords)."""
        self._apply(kwargs, 'init')

    # Paddle 2.x's private setters, which scripts call
    def _set_batch_size(self, batch_size):
        self.set_batch_size(batch_size)

    def _set_thread(self, thread_num):
        self.set_thread(thread_num)

    def _set_use_var(self, var_list):
        self.set_use_var(var_list)

    def _set_pipe_command(self, pipe_command):
        self.set_pipe_command(pipe_command)


class InMemoryDataset(_Settings, _fluid.InMemoryDataset):
    """fluid's InMemoryDataset with Paddle 2.x's init / update_settings / load_into_memory(is_shuffle)."""

    def _init_distributed_settings(self, **kwargs) -> None:
        self._apply(kwargs, '_init_distributed_settings')

    def update_settings(self, **kwargs) -> None:
        self._apply(kwargs, 'update_settings')

    def load_into_memory(self, is_shuffle: bool = False) -> None:
        super().load_into_memory()
        if is_shuffle:
            self.local_shuffle()

    def get_memory_data_size(self, fleet=None) -> int:
        return _job_total(len(self._loaded()), fleet)

    def get_shuffle_data_size(self, fleet=None) -> int:
        return _job_total(len(self._loaded()), fleet)


class QueueDataset(_Settings, _fluid.QueueDataset):
    """fluid's QueueDataset (streams the files) with Paddle 2.x's init."""


def _job_total(count: int, fleet) -> int:
    """`count` summed over the trainers when a fleet is given (Paddle all-reduces through the fleet's role maker)."""
    if fleet is None:
        return count
    return int(get_group(0).allreduce(np.array([count], dtype=np.int64), 'sum')[0])
