"""paddle.io: datasets, samplers and the DataLoader over them in static mode (feed_list, batch_size, shuffle,
drop_last, collate_fn, worker processes and threads, return_list), get_worker_info, and fluid's paths to them.
Sampler orders and collated batches marked 'Paddle 2.6.2' were recorded with it."""
import os

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.executor.config import read_environment, trainer_rank_and_count
from paddle_exec.framework import Program, program_guard
from paddle_exec.io import (
    BatchSampler,
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedBatchSampler,
    IterableDataset,
    RandomSampler,
    SequenceSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    get_worker_info,
    random_split,
)
from paddle_exec.io.dataloader import default_collate_fn


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return np.full([3], i, 'float32'), np.array([i * i], 'int64')

    def __len__(self):
        return self.n


class Stream(IterableDataset):
    """Shards itself over the workers with get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.n, step):
            yield np.full([3], i, 'float32'), np.array([i * i], 'int64')


class Failing(Squares):
    def __getitem__(self, i):
        if i == 5:
            raise KeyError('sample 5 is broken')
        return super().__getitem__(i)


def _program():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = paddle.static.data('x', [None, 3])
        y = paddle.static.data('y', [None, 1], 'int64')
        s = paddle.sum(x, axis=1)
    return main, x, y, s


def _run_all(loader, main, fetch):
    exe = paddle.static.Executor(paddle.CPUPlace())
    return [exe.run(main, feed=feed, fetch_list=[fetch])[0] for feed in loader()]


def test_samplers_and_their_lengths():
    d = Squares(11)
    assert list(SequenceSampler(d)) == list(range(11))
    np.random.seed(3)
    perm = list(RandomSampler(d))
    assert sorted(perm) == list(range(11)) and perm != list(range(11))
    draws = list(RandomSampler(d, replacement=True, num_samples=20))
    assert len(draws) == 20 and all(0 <= i < 11 for i in draws)
    with pytest.raises(ValueError, match='num_samples should not be specified while replacement is False'):
        RandomSampler(d, num_samples=3)
    assert sorted(SubsetRandomSampler([4, 7, 9])) == [4, 7, 9]
    w = WeightedRandomSampler([0.0, 0.0, 1.0], 6)
    assert list(w) == [2] * 6 and len(w) == 6
    with pytest.raises(ValueError, match='greater than the weights length'):
        WeightedRandomSampler([1.0, 2.0], 3, replacement=False)
    # Paddle 2.6.2: lengths 3 and 2 for 11 samples in batches of 4
    assert len(BatchSampler(d, batch_size=4)) == 3 and len(BatchSampler(d, batch_size=4, drop_last=True)) == 2
    assert list(BatchSampler(sampler=SequenceSampler(Squares(5)), batch_size=2)) == [[0, 1], [2, 3], [4]]
    with pytest.raises(AssertionError, match='should not set both dataset and sampler'):
        BatchSampler(d, sampler=SequenceSampler(d))
    with pytest.raises(AssertionError, match='batch_size should be a positive integer'):
        BatchSampler(d, batch_size=0)


def test_distributed_batch_sampler_deals_batches_as_paddle():
    d = Squares(11)
    # Paddle 2.6.2
    want = {0: [[0, 1], [6, 7]], 1: [[2, 3], [8, 9]], 2: [[4, 5], [10, 0]]}
    for rank, batches in want.items():
        s = DistributedBatchSampler(d, 2, num_replicas=3, rank=rank)
        assert list(s) == batches and len(s) == 2
    s = DistributedBatchSampler(d, 3, num_replicas=2, rank=1, shuffle=True, drop_last=True)
    s.set_epoch(5)
    assert list(s) == [[9, 0, 4], [10, 6, 3]] and len(s) == 2
    assert list(s) == [[6, 0, 7], [3, 9, 10]]           # the next epoch


def test_distributed_batch_sampler_reads_rank_and_count_from_the_environment():
    env = read_environment().with_values(PADDLE_TRAINER_ID='2', PADDLE_TRAINERS_NUM='3')
    assert trainer_rank_and_count(env) == (2, 3)
    assert trainer_rank_and_count(read_environment().with_values()) == (0, 1) or \
        'PADDLE_TRAINER_ID' in os.environ
    with pytest.raises(ValueError, match=r'PADDLE_TRAINER_ID \(3\) must be in'):
        trainer_rank_and_count(env.with_values(PADDLE_TRAINER_ID='3'))


def test_distributed_batch_sampler_defaults_come_from_the_environment(monkeypatch):
    monkeypatch.setenv('PADDLE_TRAINER_ID', '1')
    monkeypatch.setenv('PADDLE_TRAINERS_NUM', '3')
    s = DistributedBatchSampler(Squares(11), 2)
    assert (s.local_rank, s.nranks) == (1, 3) and list(s) == [[2, 3], [8, 9]]


def test_datasets_compose_concat_chain_subset_split():
    t = TensorDataset([np.arange(6).reshape(3, 2), np.array([7, 8, 9])])
    assert len(t) == 3 and [a.tolist() for a in t[1]] == [[2, 3], 8]
    with pytest.raises(AssertionError, match='same shape of the 1st dimension'):
        TensorDataset([np.zeros(3), np.zeros(4)])
    c = ConcatDataset([Squares(3), Squares(4)])
    assert len(c) == 7 and c[4][1].tolist() == [1] and c[-1][1].tolist() == [9]     # Paddle 2.6.2
    comp = ComposeDataset([Squares(3), Squares(3)])
    assert len(comp[2]) == 4 and comp[2][3].tolist() == [4]
    with pytest.raises(AssertionError, match='lengths of datasets should be same'):
        ComposeDataset([Squares(3), Squares(4)])
    chained = [int(s[0][0]) for s in ChainDataset([Stream(2), Stream(3)])]
    assert chained == [0, 1, 0, 1, 2]
    sub = Subset(Squares(10), [9, 2])
    assert len(sub) == 2 and sub[0][1].tolist() == [81]
    np.random.seed(0)
    a, b = random_split(Squares(10), [7, 3])
    assert sorted(a.indices + b.indices) == list(range(10)) and len(a) == 7
    a, b, c3 = random_split(Squares(10), [0.5, 0.3, 0.2])
    assert (len(a), len(b), len(c3)) == (5, 3, 2)
    with pytest.raises(ValueError, match='Sum of input lengths'):
        random_split(Squares(10), [3, 3])


def test_default_collate_fn_as_paddle():
    # Paddle 2.6.2: arrays stacked, ints -> int64, floats -> float64, dicts by key
    b = default_collate_fn([(np.ones(2, 'float32'), 1, {'a': 2.0}), (np.zeros(2, 'float32'), 2, {'a': 3.0})])
    assert b[0].dtype == np.float32 and b[0].tolist() == [[1, 1], [0, 0]]
    assert b[1].dtype == np.int64 and b[1].tolist() == [1, 2]
    assert b[2]['a'].dtype == np.float64 and b[2]['a'].tolist() == [2.0, 3.0]
    with pytest.raises(RuntimeError, match='fileds number not same'):
        default_collate_fn([(1, 2), (1,)])
    assert fluid.io.default_collate_fn([np.ones(2), np.zeros(2)])[0].shape == (2, 2)
    assert [a.tolist() for a in fluid.io.default_collate_fn([(1, 2.0), (3, 4.0)])] == [[1, 3], [2.0, 4.0]]


@pytest.mark.parametrize('num_workers,mode', [(0, 'process'), (2, 'process'), (2, 'thread')])
def test_map_style_loader_feeds_the_program(num_workers, mode):
    main, x, y, s = _program()
    loader = DataLoader(Squares(10), feed_list=[x, y], places=paddle.CPUPlace(), batch_size=4, return_list=False,
                        num_workers=num_workers, worker_mode=mode)
    assert len(loader) == 3
    got = _run_all(loader, main, s)
    assert [g.tolist() for g in got] == [[0, 3, 6, 9], [12, 15, 18, 21], [24, 27]]
    loader = DataLoader(Squares(10), feed_list=[x, y], batch_size=4, drop_last=True, return_list=False,
                        num_workers=num_workers, worker_mode=mode)
    assert len(loader) == 2 and len(_run_all(loader, main, s)) == 2


def test_shuffle_visits_every_sample_once_and_return_list_gives_fields():
    np.random.seed(1)
    loader = DataLoader(Squares(10), batch_size=3, shuffle=True, return_list=True)
    seen = []
    for xs, ys in loader():
        assert isinstance(xs, paddle.fluid.core.LoDTensor)
        seen += np.array(xs)[:, 0].astype(int).tolist()
        np.testing.assert_array_equal(np.array(ys)[:, 0], np.array(xs)[:, 0].astype(int) ** 2)
    assert sorted(seen) == list(range(10)) and seen != list(range(10))


@pytest.mark.parametrize('num_workers', [0, 2])
def test_iterable_dataset_loader(num_workers):
    main, x, y, s = _program()
    loader = DataLoader(Stream(10), feed_list=[x, y], batch_size=3, return_list=False, num_workers=num_workers)
    got = sorted(v for g in _run_all(loader, main, s) for v in (g / 3).astype(int).tolist())
    assert got == list(range(10))
    with pytest.raises(TypeError, match='no length'):
        len(loader)
    with pytest.raises(AssertionError, match='IterableDataset not support shuffle'):
        DataLoader(Stream(3), batch_size=2, shuffle=True)


def test_collate_fn_batch_sampler_and_unbatched_loading():
    main, x, y, s = _program()

    def collate(samples):
        xs = np.stack([a for a, _ in samples]) * 2
        return xs, np.stack([b for _, b in samples])

    sampler = BatchSampler(sampler=[9, 8, 7, 6, 5], batch_size=2)
    loader = DataLoader(Squares(10), feed_list=[x, y], batch_sampler=sampler, collate_fn=collate,
                        return_list=False)
    assert [g.tolist() for g in _run_all(loader, main, s)] == [[54, 48], [42, 36], [30]]
    unbatched = DataLoader(TensorDataset([np.arange(4).reshape(2, 2)]), batch_size=None, return_list=True)
    assert [np.array(f).tolist() for (f,) in unbatched()] == [[0, 1], [2, 3]]
    with pytest.raises(AssertionError, match='should not be set when batch_sampler is given'):
        DataLoader(Squares(4), batch_sampler=sampler, batch_size=2)
    with pytest.raises(ValueError, match='feed_list should be set when return_list=False'):
        DataLoader(Squares(4), return_list=False)
    with pytest.raises(ValueError, match='feed_list has 1 variables'):
        list(DataLoader(Squares(4), feed_list=[x], batch_size=2, return_list=False)())


def test_two_places_take_consecutive_batches():
    main, x, y, s = _program()
    loader = DataLoader(Squares(10), feed_list=[x, y], places=[paddle.CPUPlace(), paddle.CPUPlace()], batch_size=2,
                        return_list=False)
    steps = list(loader())
    assert len(steps) == 2 and all(len(step) == 2 for step in steps)      # 5 batches: the fifth is dropped
    assert np.array(steps[1][0]['x'])[:, 0].tolist() == [4, 5]


@pytest.mark.parametrize('mode', ['process', 'thread'])
def test_worker_errors_reach_the_caller(mode):
    loader = DataLoader(Failing(10), batch_size=2, num_workers=2, worker_mode=mode, return_list=True)
    with pytest.raises(KeyError, match='sample 5 is broken'):
        for _ in loader():
            pass


def test_worker_info_and_init_fn_in_workers():
    class WhoAmI(Dataset):
        def __getitem__(self, i):
            info = get_worker_info()
            return np.array([info.id, info.num_workers, i], 'int64')

        def __len__(self):
            return 6

    assert get_worker_info() is None
    loader = DataLoader(WhoAmI(), batch_size=1, num_workers=2, return_list=True,
                        worker_init_fn=lambda wid: np.random.seed(wid))
    rows = [np.array(f)[0].tolist() for (f,) in loader()]
    assert [r[2] for r in rows] == list(range(6))                          # in order
    assert {r[0] for r in rows} == {0, 1} and all(r[1] == 2 for r in rows)


def test_fluid_paths():
    assert fluid.io.DataLoader is paddle.io.DataLoader is fluid.reader.DataLoader
    assert fluid.dataloader.Dataset is Dataset and fluid.dataloader.BatchSampler is BatchSampler
    assert DataLoader.from_generator is not None


def test_pyreader_decorates_a_generator():
    main, startup = Program(), Program()
    with program_guard(main, startup):
        x = fluid.data('x', [None, 2])
        out = fluid.layers.reduce_sum(x)
    reader = fluid.io.PyReader(feed_list=[x], capacity=4, iterable=True)
    reader.decorate_sample_list_generator(lambda: iter([[(np.ones(2, 'float32'),)] * 3] * 2),
                                          places=fluid.CPUPlace())
    exe = fluid.Executor(fluid.CPUPlace())
    assert [float(exe.run(main, feed=f, fetch_list=[out])[0]) for f in reader()] == [6.0, 6.0]


def test_program_parameter_helpers_and_multiprocess_reader():
    main, startup = Program(), Program()
    with program_guard(main, startup), fluid.unique_name.guard():
        fluid.layers.fc(fluid.data('x', [None, 2]), 3)
    assert sorted(v.name for v in fluid.io.get_program_parameter(main)) == ['fc_0.b_0', 'fc_0.w_0']
    assert {v.name for v in fluid.io.get_program_persistable_vars(main)} >= {'fc_0.b_0', 'fc_0.w_0'}
    merged = fluid.io.multiprocess_reader([lambda: iter(range(3)), lambda: iter(range(10, 12))])
    assert sorted(merged()) == [0, 1, 2, 10, 11]

    def broken():
        yield 1
        raise IOError('disk gone')

    with pytest.raises(RuntimeError, match='disk gone'):
        list(fluid.io.multiprocess_reader([broken])())
