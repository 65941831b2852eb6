"""fluid.dataset: InMemoryDataset / QueueDataset over MultiSlot text files, read through the pipe command and fed
by fluid.io.DataLoader.from_dataset."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from paddle_exec.framework.scope import LoDTensor


def _write(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text(''.join(rows))
    return str(path)


def _files(tmp_path):
    # slot x: 2 floats; slot y: 1 int64; slot ids: variable length (LoD)
    a = _write(tmp_path, 'part-0', ['2 0.5 1.5 1 1 2 7 8\n', '2 1.0 2.0 1 0 1 9\n'])
    b = _write(tmp_path, 'part-1', ['2 3.0 4.0 1 1 3 1 2 3\n'])
    return [a, b]


def _program():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 2], 'float32')
        y = fluid.data('y', [-1, 1], 'int64')
        ids = fluid.data('ids', [-1, 1], 'int64', lod_level=1)
        s = fluid.layers.reduce_sum(x, dim=1)
    return main, x, y, ids, s


def test_queue_dataset_streams_batches(tmp_path):
    main, x, y, ids, s = _program()
    dataset = fluid.DatasetFactory().create_dataset('QueueDataset')
    dataset.set_use_var([x, y, ids])
    dataset.set_batch_size(2)
    dataset.set_filelist(_files(tmp_path))
    dataset.set_thread(2)
    feeds = list(fluid.io.DataLoader.from_dataset(dataset, fluid.cpu_places(1), drop_last=False))
    assert len(feeds) == 2
    first = feeds[0][0]
    assert np.array(first['x']).tolist() == [[0.5, 1.5], [1.0, 2.0]]
    assert np.array(first['y']).dtype == np.int64 and np.array(first['y']).tolist() == [[1], [0]]
    assert isinstance(first['ids'], LoDTensor) and first['ids'].lod() == [[0, 2, 3]]
    assert np.array(first['ids']).ravel().tolist() == [7, 8, 9]
    exe = fluid.Executor(fluid.CPUPlace())
    sums = [exe.run(main, feed=f[0], fetch_list=[s], scope=Scope())[0].tolist() for f in feeds]
    assert sums == [[2.0, 3.0], [7.0]]
    assert len(list(fluid.io.DataLoader.from_dataset(dataset, fluid.cpu_places(1)))) == 1      # drop_last
    with pytest.raises(NotImplementedError, match='QueueDataset does not support local shuffle'):
        dataset.local_shuffle()
    assert 'uint64' in dataset.desc() and 'name: "x"' in dataset.desc()


def test_in_memory_dataset_loads_shuffles_and_pipes(tmp_path):
    main, x, y, ids, s = _program()
    dataset = fluid.dataset.DatasetFactory().create_dataset('InMemoryDataset')
    dataset.set_use_var([x, y, ids])
    dataset.set_batch_size(3)
    dataset.set_filelist(_files(tmp_path))
    dataset.set_pipe_command("awk '{print $0}'")
    with pytest.raises(RuntimeError, match='load_into_memory'):
        dataset.local_shuffle()
    dataset.preload_into_memory()
    dataset.wait_preload_done()
    assert dataset.get_memory_data_size() == 3
    np.random.seed(0)
    dataset.local_shuffle()
    (feed,), = list(fluid.io.DataLoader.from_dataset(dataset, fluid.cpu_places(1)))
    assert sorted(np.array(feed['x'])[:, 0].tolist()) == [0.5, 1.0, 3.0]
    dataset.release_memory()
    with pytest.raises(ValueError, match='does not exist'):
        fluid.dataset.DatasetFactory().create_dataset('NoSuchDataset')


def test_bad_lines_and_settings_say_what_is_wrong(tmp_path):
    main, x, y, ids, s = _program()
    dataset = fluid.dataset.DatasetFactory().create_dataset('InMemoryDataset')
    dataset.set_use_var([x, y])
    dataset.set_filelist([_write(tmp_path, 'bad', ['3 1 2 3 1 0\n'])])
    dataset.load_into_memory()
    with pytest.raises(ValueError, match="slot x has 3 values, but variable 'x' of shape \\[-1, 2\\] takes 2"):
        list(dataset._batches())
    dataset.set_filelist([_write(tmp_path, 'short', ['2 1.0\n'])])
    with pytest.raises(ValueError, match='slot x says 2 values, 1 follow'):
        dataset.load_into_memory()
    dataset.set_pipe_command('exit 3')
    with pytest.raises(RuntimeError, match='exit 3'):
        dataset.load_into_memory()
    with pytest.raises(NotImplementedError, match='local files only'):
        dataset.set_hdfs_config('hdfs://x', 'u,p')
    with pytest.raises(ValueError, match='float32 and dtype=int64'):
        with program_guard(Program(), Program()):
            dataset.set_use_var([fluid.data('d', [-1, 1], 'float64')])
    with pytest.raises(TypeError, match='DatasetBase'):
        fluid.io.DataLoader.from_dataset([1, 2], fluid.cpu_places(1))
