"""fluid.dataset's InMemoryDataset / QueueDataset (Paddle 1.8) on plain file reading: the MultiSlot text format
read through the dataset's pipe command, cut into batches of the `use_var` variables.

    dataset = fluid.DatasetFactory().create_dataset('InMemoryDataset')
    dataset.set_use_var([ids, label])          # one slot per variable, in this order
    dataset.set_batch_size(32)
    dataset.set_filelist(['part-0', 'part-1'])
    dataset.set_pipe_command('cat')            # each file goes through this shell command
    dataset.load_into_memory(); dataset.local_shuffle()
    for feed in fluid.io.DataLoader.from_dataset(dataset, fluid.cpu_places(1)):
        exe.run(main, feed=feed, fetch_list=[loss])

A line is one instance: for each slot, a count n then n values (`2 17 42 1 0`: a slot [17, 42], a slot [0]); int64
variables read integers (Paddle's uint64 feasigns), float32 ones floats. A slot of a variable without LoD must
fill its shape exactly (shape[1:] elements); a LoD variable (lod_level 1) takes any count and its batch is a
LoDTensor with the offsets. QueueDataset streams the files; InMemoryDataset loads every instance first and can
shuffle them (numpy's global generator). Files are read in order, `set_thread` threads reading them at once.

Paddle's C++ trainers (exe.train_from_dataset with device workers), HDFS and the fleet's global shuffle are not
here: global_shuffle shuffles locally (one trainer), set_hdfs_config is refused.
"""
from __future__ import annotations

import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.scope import LoDTensor
from ..framework.variable import Variable

__all__ = ['DatasetFactory', 'DatasetBase', 'InMemoryDataset', 'QueueDataset', 'FileInstantDataset']


class DatasetBase:
    """The settings every dataset shares, and the MultiSlot parsing."""

    def __init__(self):
        self.proto_desc = {'name': 'MultiSlotDataFeed', 'batch_size': 1, 'pipe_command': 'cat'}
        self.dataset_type = type(self).__name__
        self.thread_num = 1
        self.filelist: list[str] = []
        self.use_vars: list[Variable] = []

    def set_pipe_command(self, pipe_command: str) -> None:
        self.proto_desc['pipe_command'] = pipe_command

    def set_batch_size(self, batch_size: int) -> None:
        self.proto_desc['batch_size'] = int(batch_size)

    def set_thread(self, thread_num: int) -> None:
        self.thread_num = max(1, int(thread_num))

    def set_filelist(self, filelist) -> None:
        self.filelist = list(filelist)

    def set_use_var(self, var_list) -> None:
        for var in var_list:
            if not isinstance(var, Variable):
                raise TypeError('set_use_var needs Variables, got %s' % type(var).__name__)
            if var.dtype not in (VarType.FP32, VarType.INT64):
                raise ValueError('Currently, fluid.dataset only supports dtype=float32 and dtype=int64')
        self.use_vars = list(var_list)

    def set_rank_offset(self, rank_offset: str) -> None:
        self.proto_desc['rank_offset'] = rank_offset

    def set_pv_batch_size(self, pv_batch_size: int) -> None:
        self.proto_desc['pv_batch_size'] = int(pv_batch_size)

    def set_fea_eval(self, record_candidate_size, fea_eval=True) -> None:
        self.proto_desc['fea_eval'] = (record_candidate_size, fea_eval)

    def set_download_cmd(self, download_cmd: str) -> None:
        self.proto_desc['download_cmd'] = download_cmd

    def set_hdfs_config(self, fs_name, fs_ugi) -> None:
        raise NotImplementedError('paddle_exec reads local files only (no Hadoop client): copy the files to a '
                                  'local path and pass those to set_filelist')

    def desc(self) -> str:
        """The data feed description, as text (Paddle prints its protobuf)."""
        lines = ['name: "%s"' % self.proto_desc['name'], 'batch_size: %d' % self.proto_desc['batch_size'],
                 'multi_slot_desc {']
        for var in self.use_vars:
            lines += ['  slots {', '    name: "%s"' % var.name,
                      '    type: "%s"' % ('uint64' if var.dtype == VarType.INT64 else 'float'),
                      '    is_dense: %s' % ('false' if var.lod_level else 'true'), '    is_used: true', '  }']
        lines += ['}', 'pipe_command: "%s"' % self.proto_desc['pipe_command']]
        return '\n'.join(lines) + '\n'

    # --- reading ---------------------------------------------------------------------------------------------------
    def _lines_of(self, path: str) -> list[str]:
        command = self.proto_desc['pipe_command'].strip()
        if command in ('cat', ''):
            with open(path) as f:
                return f.read().splitlines()
        with open(path, 'rb') as f:
            done = subprocess.run(command, shell=True, stdin=f, capture_output=True, check=False)
        if done.returncode != 0:
            raise RuntimeError('pipe_command %s failed on %s (exit %d): %s'
                               % (shlex.quote(command), path, done.returncode,
                                  done.stderr.decode(errors='replace').strip()))
        return done.stdout.decode().splitlines()

    def _parse(self, line: str, path: str, number: int) -> list[list]:
        fields = line.split()
        slots, pos = [], 0
        for var in self.use_vars:
            if pos >= len(fields):
                raise ValueError('%s line %d: the instance ends before slot %s' % (path, number, var.name))
            n = int(fields[pos])
            values = fields[pos + 1:pos + 1 + n]
            if len(values) != n:
                raise ValueError('%s line %d: slot %s says %d values, %d follow' % (path, number, var.name, n,
                                                                                 len(values)))
            if n == 0:
                raise ValueError('%s line %d: slot %s is empty (each slot needs at least one value)'
                                 % (path, number, var.name))
            slots.append([int(v) for v in values] if var.dtype == VarType.INT64 else [float(v) for v in values])
            pos += 1 + n
        return slots

    def _instances_of_file(self, path: str) -> list[list]:
        return [self._parse(line, path, k + 1) for k, line in enumerate(self._lines_of(path)) if line.strip()]

    def _read_files(self):
        """Instances of every file, file by file in order, thread_num files being read at once."""
        if not self.use_vars:
            raise ValueError('dataset: call set_use_var before reading')
        if self.thread_num == 1:
            for path in self.filelist:
                yield from self._instances_of_file(path)
            return
        with ThreadPoolExecutor(self.thread_num) as pool:
            for instances in pool.map(self._instances_of_file, self.filelist):
                yield from instances

    def _batch(self, instances: list) -> dict:
        feed = {}
        for k, var in enumerate(self.use_vars):
            dtype = to_numpy(var.dtype)
            rows = [inst[k] for inst in instances]
            if var.lod_level:
                flat = np.asarray([v for row in rows for v in row], dtype=dtype).reshape(-1, 1)
                tensor = LoDTensor()
                tensor.set(flat)
                tensor.set_lod([np.cumsum([0] + [len(r) for r in rows]).tolist()])
                feed[var.name] = tensor
                continue
            tail = [d for d in var.shape[1:]]
            want = int(np.prod(tail)) if tail else 1
            for row in rows:
                if len(row) != want:
                    raise ValueError("dataset: slot %s has %d values, but variable '%s' of shape %s takes %d per "
                                     "instance (a variable-length slot needs lod_level=1)"
                                     % (var.name, len(row), var.name, list(var.shape), want))
            feed[var.name] = np.asarray(rows, dtype=dtype).reshape([len(rows)] + (tail or [1]))
        return feed

    def _instances(self):
        return self._read_files()

    def _batches(self, drop_last: bool = False):
        """Feed dicts of batch_size instances (the last, shorter one unless drop_last)."""
        size = self.proto_desc['batch_size']
        group = []
        for inst in self._instances():
            group.append(inst)
            if len(group) == size:
                yield self._batch(group)
                group = []
        if group and not drop_last:
            yield self._batch(group)


class InMemoryDataset(DatasetBase):
    """Loads every instance into memory (load_into_memory) and can shuffle them."""

    def __init__(self):
        super().__init__()
        self.proto_desc['name'] = 'MultiSlotInMemoryDataFeed'
        self._memory: list | None = None
        self._preload: ThreadPoolExecutor | None = None
        self._preload_result = None

    def load_into_memory(self) -> None:
        self._memory = list(self._read_files())

    def preload_into_memory(self, thread_num=None) -> None:
        """Starts loading on a background thread; wait_preload_done() waits for it."""
        if thread_num:
            self.set_thread(thread_num)
        self._preload = ThreadPoolExecutor(1)
        self._preload_result = self._preload.submit(lambda: list(self._read_files()))

    def wait_preload_done(self) -> None:
        if self._preload_result is None:
            raise RuntimeError('wait_preload_done: preload_into_memory was not called')
        self._memory = self._preload_result.result()
        self._preload.shutdown()
        self._preload = self._preload_result = None

    def local_shuffle(self) -> None:
        self._loaded()
        order = np.random.permutation(len(self._memory))
        self._memory = [self._memory[i] for i in order]

    def global_shuffle(self, fleet=None, thread_num=12) -> None:
        """With one trainer the global shuffle is the local one."""
        self.local_shuffle()

    def release_memory(self) -> None:
        self._memory = None

    def get_memory_data_size(self, fleet=None) -> int:
        return len(self._loaded())

    def get_shuffle_data_size(self, fleet=None) -> int:
        return len(self._loaded())

    def _loaded(self) -> list:
        if self._memory is None:
            raise RuntimeError('InMemoryDataset: call load_into_memory() first')
        return self._memory

    def _instances(self):
        return iter(self._loaded())

    # switches of the C++ in-memory feed that change nothing when one process reads local files
    def set_queue_num(self, queue_num) -> None:
        self.proto_desc['queue_num'] = queue_num

    def set_parse_ins_id(self, parse_ins_id) -> None:
        self.proto_desc['parse_ins_id'] = parse_ins_id

    def set_parse_content(self, parse_content) -> None:
        self.proto_desc['parse_content'] = parse_content

    def set_fleet_send_batch_size(self, fleet_send_batch_size=1024) -> None:
        self.proto_desc['fleet_send_batch_size'] = fleet_send_batch_size

    def set_fleet_send_sleep_seconds(self, fleet_send_sleep_seconds=0) -> None:
        self.proto_desc['fleet_send_sleep_seconds'] = fleet_send_sleep_seconds

    def set_merge_by_lineid(self, merge_size=2) -> None:
        self.proto_desc['merge_size'] = merge_size


class QueueDataset(DatasetBase):
    """Streams the files once per pass (no shuffling)."""

    def __init__(self):
        super().__init__()
        self.proto_desc['name'] = 'MultiSlotDataFeed'

    def local_shuffle(self) -> None:
        raise NotImplementedError('QueueDataset does not support local shuffle, please use InMemoryDataset for '
                                  'local_shuffle')

    def global_shuffle(self, fleet=None) -> None:
        raise NotImplementedError('QueueDataset does not support global shuffle, please use InMemoryDataset for '
                                  'global_shuffle')


class FileInstantDataset(QueueDataset):
    """1.8's FileInstantDataset: a QueueDataset whose feed reads each file as it comes."""

    def __init__(self):
        super().__init__()
        self.proto_desc['name'] = 'MultiSlotFileInstantDataFeed'


class DatasetFactory:
    """create_dataset('QueueDataset' | 'InMemoryDataset' | 'FileInstantDataset')."""

    def create_dataset(self, datafeed_class: str = 'QueueDataset') -> DatasetBase:
        classes = {'QueueDataset': QueueDataset, 'InMemoryDataset': InMemoryDataset,
                   'FileInstantDataset': FileInstantDataset}
        if datafeed_class not in classes:
            raise ValueError('datafeed class %s does not exist' % datafeed_class)
        return classes[datafeed_class]()
