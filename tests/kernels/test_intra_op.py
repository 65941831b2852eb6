"""Intra-op splits (kernels/intra_op.py): a product's row halves and a sparse Adam's row ranges computed on two
threads give the bits of the whole op; without a fork everything runs whole, as before."""
import threading

import numpy as np
import pytest

from paddle_exec.kernels import intra_op
from paddle_exec.kernels import optimizer as K


class ThreadFork:
    """A fork that runs each half on a new thread, and counts the halves and the threads they ran on."""

    def __init__(self):
        self.calls = 0
        self.threads = set()

    def __call__(self, fn):
        self.calls += 1
        failed = []

        def half():
            self.threads.add(threading.get_ident())
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - handed to join, as the pool's fork does
                failed.append(exc)
        t = threading.Thread(target=half)
        t.start()

        def join():
            t.join()
            if failed:
                raise failed[0]
        return join


@pytest.fixture
def fork():
    f = ThreadFork()
    previous = intra_op.set_fork(f)
    yield f
    intra_op.set_fork(previous)


def test_split_points_are_aligned_and_leave_both_halves_rows():
    assert intra_op.split_point(512) == 256
    assert intra_op.split_point(100) == 48
    assert intra_op.split_point(33) == 16 and intra_op.split_point(32) == 16
    assert intra_op.split_point(31) == 0 and intra_op.split_point(1) == 0


@pytest.mark.parametrize('m,k,n', [(512, 429, 400), (512, 400, 400), (1000, 300, 257), (64, 128, 128),
                                   (37, 19, 65), (33, 1000, 10), (512, 400, 1)])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_row_halves_on_two_threads_equal_the_whole_product_bit_for_bit(m, k, n, dtype, fork, monkeypatch):
    monkeypatch.setattr(intra_op, 'MIN_PRODUCT', 0)
    rng = np.random.RandomState(m + k + n)
    x, y = rng.randn(m, k).astype(dtype), rng.randn(k, n).astype(dtype)
    for _ in range(2):      # the first product of a shape is checked against the whole one, the second is not
        got = intra_op.matmul_rows(x, y)
        assert got.dtype == x.dtype and got.flags.c_contiguous
        np.testing.assert_array_equal(got, x @ y)
    assert fork.calls >= 1 and threading.get_ident() not in fork.threads
    if dtype == 'float32' and k >= 400:     # DeepFM's products: their halves hold, so both calls split
        assert fork.calls == 2


class HalfLostFork(ThreadFork):
    """A fork whose half never runs: the split product cannot have the whole product's bits."""

    def __call__(self, fn):
        self.calls += 1
        return lambda: None


def test_a_shape_whose_halves_differ_is_computed_whole_from_then_on(monkeypatch):
    monkeypatch.setattr(intra_op, '_same_bits', {})
    rng = np.random.RandomState(1)
    x, y = rng.rand(96, 40).astype('float32') + 1, rng.rand(40, 24).astype('float32') + 1
    fork = HalfLostFork()
    previous = intra_op.set_fork(fork)
    try:
        monkeypatch.setattr(intra_op, 'MIN_PRODUCT', 0)
        np.testing.assert_array_equal(intra_op.matmul_rows(x, y), x @ y)     # checked: the whole product wins
        assert fork.calls == 1
        np.testing.assert_array_equal(intra_op.matmul_rows(x, y), x @ y)
        assert fork.calls == 1                                               # not split again
    finally:
        intra_op.set_fork(previous)


def test_without_a_fork_the_product_is_numpys(monkeypatch):
    monkeypatch.setattr(intra_op, 'MIN_PRODUCT', 0)
    assert intra_op.current_fork() is None
    x, y = np.ones((64, 8), 'float32'), np.ones((8, 4), 'float32')
    np.testing.assert_array_equal(intra_op.matmul_rows(x, y), x @ y)


def test_small_views_and_integers_are_not_split(fork):
    x, y = np.ones((64, 8), 'float32'), np.ones((8, 4), 'float32')
    intra_op.matmul_rows(x, y)                                   # under MIN_PRODUCT
    big = np.ones((1024, 256), 'float32')
    w = np.ones((256, 128), 'float32')
    intra_op.matmul_rows(big[:, :255], w[:255])                  # a view: not C-contiguous
    intra_op.matmul_rows(big.astype('int64'), w.astype('int64'))
    intra_op.matmul_rows(big, w.astype('float64'))
    assert fork.calls == 0
    intra_op.matmul_rows(big, w)
    assert fork.calls == 1


def test_both_runs_each_half_once_and_raises_the_forked_halfs_error(fork):
    ran = []
    intra_op.both(lambda: ran.append('first'), lambda: ran.append('second'))
    assert sorted(ran) == ['first', 'second'] and fork.calls == 1

    def bad():
        raise ValueError('half failed')
    with pytest.raises(ValueError, match='half failed'):
        intra_op.both(lambda: None, bad)


def sparse_case(height=20000, width=16, n=3000, seed=0):
    rng = np.random.RandomState(seed)
    param = rng.randn(height, width).astype('float32')
    m1 = rng.rand(height, width).astype('float32') * 0.1
    m2 = rng.rand(height, width).astype('float32') * 0.01
    rows = rng.randint(0, height, n).astype('int64')          # duplicates included
    values = rng.randn(n, width).astype('float32')
    return param, m1, m2, rows, values


def adam_sparse(case, lazy=False):
    param, m1, m2, rows, values = [a.copy() for a in case]
    b1p, b2p = np.array([0.9 ** 3], 'float32'), np.array([0.999 ** 3], 'float32')
    K.adam_sparse(param, rows, values, m1, m2, np.array([0.001], 'float32'), b1p, b2p, lazy_mode=lazy,
                  update_beta_pow=True)
    return param, m1, m2, b1p, b2p


def test_a_large_tables_sparse_adam_on_two_threads_equals_the_whole_update_bit_for_bit(fork):
    case = sparse_case()
    assert case[0].size >= intra_op.MIN_UPDATE
    split = adam_sparse(case)
    assert fork.calls == 1
    intra_op.set_fork(None)
    whole = adam_sparse(case)
    for a, b in zip(split, whole):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(split[0], case[0])               # the update did something


def test_lazy_and_small_sparse_adams_run_whole(fork):
    adam_sparse(sparse_case(), lazy=True)
    adam_sparse(sparse_case(height=1000))
    assert fork.calls == 0


def test_a_row_out_of_range_raises_before_anything_is_written(fork):
    case = sparse_case()
    case[3][5] = 20000
    param = case[0].copy()
    with pytest.raises(IndexError):
        K.adam_sparse(param, case[3], case[4], case[1].copy(), case[2].copy(), np.array([0.001], 'float32'),
                      np.array([0.9], 'float32'), np.array([0.999], 'float32'))
    np.testing.assert_array_equal(param, case[0])
