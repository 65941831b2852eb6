"""The `sparse` group: sparse (SelectedRows) optimizer updates of a large embedding table.

    python -m benchmarks --groups sparse

Rows:
  `lazy adam, 4M x 16 table, 13,312 gradient rows`   Adam with lazy_mode=True on a CTR-sized table and a DeepFM
        batch's gradient (512 x 26 ids, duplicates among them): kernels/optimizer_rows.py `adam_rows`, whose merge
        is a stable sort of the gradient's rows on a table this much larger than the gradient, against the position
        map every lazy update used before (`merge_table_rows` + `adam_row_range`: a table-sized map filled and
        walked each step). Both give the same bits (tests/kernels/test_optimizer_rows.py). Goal: the sorted merge
        at most half the map's time (ratio <= 0.5).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .runner import BenchOptions, Row, bench_group, side_by_side

GROUP = 'sparse'
HEIGHT, WIDTH, IDS = 4_000_000, 16, 512 * 26
QUICK_HEIGHT, QUICK_IDS = 200_000, 1000


def _lazy_adam_steps(height: int, n_ids: int):
    from paddle_exec.kernels.optimizer_rows import adam_row_range, adam_rows, merge_table_rows

    rng = np.random.RandomState(0)
    p = rng.rand(height, WIDTH).astype(np.float32)
    m1, m2 = np.zeros_like(p), np.zeros_like(p)
    rows = rng.randint(0, height, n_ids).astype(np.int64)
    values = rng.rand(n_ids, WIDTH).astype(np.float32)
    f = np.float32
    scalars = (f(1e-3), f(0.9), f(0.999), f(1) - f(0.9), f(1) - f(0.999), f(1e-8))

    def sorted_merge():
        adam_rows(p, m1, m2, rows, values, *scalars, True)

    def position_map():
        pos, merged = merge_table_rows(rows, values, height)
        adam_row_range(p, m1, m2, pos, merged, 0, height, *scalars, True)
    return sorted_merge, position_map


@bench_group(GROUP, help='lazy_mode Adam on a 4M-row embedding table: the sorted merge against the position map',
             default=False)
def sparse_rows(opts: BenchOptions) -> Iterable[Row]:
    height, n_ids = (QUICK_HEIGHT, QUICK_IDS) if opts.quick else (HEIGHT, IDS)
    sorted_merge, position_map = _lazy_adam_steps(height, n_ids)
    yield side_by_side(GROUP, 'lazy adam, %s x %d table, %d gradient rows' % (format(height, ','), WIDTH, n_ids),
                       ('sorted merge', sorted_merge), ('position map', position_map), opts, goal=0.5,
                       extra={'height': height, 'width': WIDTH, 'gradient_rows': n_ids})
