"""The 'fetch' group: what the FetchedArray view (framework/fetched_array.py) costs on the fetch path.

Every fetched array is handed back as a FetchedArray view so that `float(loss)` and `'%.2f' % row` work on numpy
>= 2.3 (issue 14). The rows measure that view against the same code with it switched off (`fetched_view` replaced
by the identity in executor/feed.py), side by side:

    fit_a_line step    Executor.run of the book's fit-a-line training step (batch 20, fetching the [1] loss and
                       the [20, 1] prediction): goal invisible next to a step, ratio <= 1.05
    as_fetch_result    the conversion of one fetched [1] array alone (a copy, then the view), in us per call
                       including the switch both sides pay (no goal: the difference is what the docs quote)
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

import paddle_exec.fluid as fluid
from paddle_exec.executor import feed as feeding
from paddle_exec.framework import unique_name

from .runner import BenchOptions, Row, bench_group, side_by_side

GROUP = 'fetch'


_VIEW = feeding.fetched_view


def _plain(array):
    return array


def _switching(step, enabled: bool):
    """`step` with the view on or off: one module-global assignment per call, the same work on both sides."""
    view = _VIEW if enabled else _plain

    def run():
        feeding.fetched_view = view
        try:
            return step()
        finally:
            feeding.fetched_view = _VIEW
    return run


def fit_a_line_step():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[13], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        pred = fluid.layers.fc(x, size=1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.SGD(0.001).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
    rng = np.random.RandomState(0)
    feed = {'x': rng.rand(20, 13).astype('float32'), 'y': rng.rand(20, 1).astype('float32')}

    def step():
        with fluid.scope_guard(scope):
            return exe.run(main, feed=feed, fetch_list=[loss, pred])
    return step


@bench_group(GROUP, help='the FetchedArray view on the fetch path against no view (fit-a-line step, one conversion)')
def fetch_rows(opts: BenchOptions) -> Iterable[Row]:
    step = fit_a_line_step()
    yield side_by_side(GROUP, 'fit_a_line step', ('FetchedArray', _switching(step, True)),
                       ('plain ndarray', _switching(step, False)), opts, goal=1.05)
    value = np.full((1,), 0.5, np.float32)
    convert = lambda: feeding.as_fetch_result(value, True, True)
    row = side_by_side(GROUP, 'as_fetch_result', ('FetchedArray', _switching(convert, True)),
                       ('plain ndarray', _switching(convert, False)), opts)
    # steps/s -> microseconds per call, the unit the docs quote
    row.subject_value, row.baseline_value, row.unit = 1e6 / row.subject_value, 1e6 / row.baseline_value, 'us'
    yield row
