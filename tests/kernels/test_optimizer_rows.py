"""Sparse Adam in one numba call (kernels/optimizer_rows.py) against a numpy reference of Paddle 1.8.5's
SparseAdamFunctor: MergeAdd (duplicates summed in input order onto zeros), then lazy (rows present) or every row
(absent rows: mom1 = beta1 * mom1, mom2 = beta2 * mom2, the parameter still moves)."""
import numpy as np
import pytest

from paddle_exec.kernels import optimizer as K
from paddle_exec.kernels.optimizer_rows import adam_rows

F = np.float32


def ref_adam_rows(p, m1, m2, rows, values, lr_t, b1, b2, eps, lazy):
    p, m1, m2 = p.copy(), m1.copy(), m2.copy()
    merged = {}
    for r, v in zip(rows, values):
        merged[r] = (merged[r] if r in merged else np.zeros_like(v)) + v
    for r in range(p.shape[0]):
        if r in merged:
            g = merged[r]
            m1[r] = F(b1) * m1[r] + F(1 - F(b1)) * g
            m2[r] = F(b2) * m2[r] + F(1 - F(b2)) * g * g
        elif lazy:
            continue
        else:
            m1[r] = F(b1) * m1[r]
            m2[r] = F(b2) * m2[r]
        p[r] = p[r] - F(lr_t) * (m1[r] / (np.sqrt(m2[r]) + F(eps)))
    return p, m1, m2


@pytest.mark.parametrize('width', [1, 3, 16])
@pytest.mark.parametrize('lazy', [False, True])
def test_adam_rows_matches_the_reference(width, lazy):
    rng = np.random.RandomState(width)
    height = 40
    p = rng.randn(height, width).astype(F)
    m1 = (0.1 * rng.randn(height, width)).astype(F)
    m2 = np.abs(0.1 * rng.randn(height, width)).astype(F)
    rows = rng.randint(0, height, 60).astype(np.int64)          # duplicates, unsorted
    values = rng.randn(60, width).astype(F)
    want = ref_adam_rows(p, m1, m2, rows, values, 0.01, 0.9, 0.999, 1e-8, lazy)
    adam_rows(p, m1, m2, rows, values, F(0.01), F(0.9), F(0.999), F(1) - F(0.9), F(1) - F(0.999), F(1e-8), lazy)
    for got, ref in zip((p, m1, m2), want):
        np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-7)
    untouched = np.setdiff1d(np.arange(height), rows)
    assert len(untouched)
    if lazy:
        np.testing.assert_array_equal(p[untouched], want[0][untouched])


def test_adam_rows_rejects_a_row_out_of_range_before_writing():
    p = np.ones((4, 2), F)
    m1, m2 = np.zeros_like(p), np.zeros_like(p)
    with pytest.raises(IndexError, match='out of range'):
        adam_rows(p, m1, m2, np.array([1, 4], np.int64), np.ones((2, 2), F), F(0.1), F(0.9), F(0.999), F(0.1),
                  F(0.001), F(1e-8), False)
    np.testing.assert_array_equal(p, 1)


def test_adam_sparse_equals_dense_adam_of_the_merged_gradient_to_the_bit():
    # non-lazy with every row present once and in order is exactly the dense update
    rng = np.random.RandomState(3)
    p = rng.randn(50, 4).astype(F)
    g = rng.randn(50, 4).astype(F)
    p1, p2 = p.copy(), p.copy()
    a1, a2, b1, b2 = (np.zeros_like(p) for _ in range(4))
    rows = np.arange(50, dtype=np.int64)
    half = g / 2                              # each row's gradient in two halves: a merge, summed in input order
    for step in range(1, 3):
        pw1, pw2 = np.array([0.9 ** step], F), np.array([0.999 ** step], F)
        K.adam(p1, (F(0) + half) + half, a1, b1, np.array([0.01], F), pw1, pw2)
        K.adam_sparse(p2, np.concatenate([rows[::-1], rows]), np.concatenate([half[::-1], half]), a2, b2,
                      np.array([0.01], F), pw1.copy(), pw2.copy())
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)


def test_the_lazy_update_merges_by_sorting_and_gives_the_position_maps_bits():
    """On a table of more than SORT_RATIO rows per gradient row, lazy_mode's merge is a stable sort of the gradient's
    rows (its cost the gradient's size, not the table's): the same sums in input order and the same update as the
    position map of the other path, to the bit."""
    from paddle_exec.kernels.optimizer_rows import SORT_RATIO, adam_row_range, merge_table_rows
    rng = np.random.RandomState(7)
    height, width, n = 5000, 5, 100
    assert height > SORT_RATIO * n
    p = rng.randn(height, width).astype(F)
    m1 = (0.1 * rng.randn(height, width)).astype(F)
    m2 = np.abs(0.1 * rng.randn(height, width)).astype(F)
    rows = rng.choice(rng.permutation(height)[:60], n).astype(np.int64)     # duplicates, unsorted
    values = rng.randn(n, width).astype(F)
    scalars = (F(0.01), F(0.9), F(0.999), F(1) - F(0.9), F(1) - F(0.999), F(1e-8))
    want = [a.copy() for a in (p, m1, m2)]
    pos, merged = merge_table_rows(rows, values, height)
    adam_row_range(*want, pos, merged, 0, height, *scalars, True)
    reference = ref_adam_rows(p, m1, m2, rows, values, 0.01, 0.9, 0.999, 1e-8, True)
    adam_rows(p, m1, m2, rows, values, *scalars, True)
    for got, ref, ref2 in zip((p, m1, m2), want, reference):
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_allclose(got, ref2, rtol=2e-6, atol=1e-7)


def test_the_sorted_lazy_update_rejects_a_row_out_of_range_before_writing():
    p = np.ones((400, 2), F)
    m1, m2 = np.zeros_like(p), np.zeros_like(p)
    for bad in (400, -1):
        with pytest.raises(IndexError, match='out of range'):
            adam_rows(p, m1, m2, np.array([1, bad], np.int64), np.ones((2, 2), F), F(0.1), F(0.9), F(0.999),
                      F(0.1), F(0.001), F(1e-8), True)
    np.testing.assert_array_equal(p, 1)
