"""Stage and SmartStage benchmarks: a training pipeline whose IO side costs about what its compute side costs.

    python -m benchmarks.stage                       # prints the rows; --json FILE writes them too
    stage_rows(BenchOptions())                       # what the runner calls (group 'stage')

The pipeline (one training step per run; the data never ends, so no epoch boundary is timed):
    fetch      a py_func with no inputs: the next BATCH csv records from a "remote store" that answers after
               READ_SECONDS (a sleep: the thread waits, no core is used)
    decode     decode_csv into user, item and DENSE float columns, then a py_func that turns the float columns
               into the dense feature matrix: waiting DECODE_SECONDS on IO (variant `io`), or computing for about
               as long in a numba nogil loop (variant `cpu`)
    hash       string_to_hash_bucket of user and item
    compute    two embedding lookups, concat with the dense features, fc(HIDDEN, relu) x 2, fc(1), square loss,
               SGD: about READ_SECONDS + DECODE_SECONDS of numpy/BLAS work (BLAS capped at one thread)

Rows (each measured side by side in one run: ratio = subject time per step / baseline time per step, so the
speed-up is 1 / ratio):
    staged vs unstaged          one `staged` after hashing (the whole IO side ahead) against no stage.
                                Goal >= 1.6x faster (ratio <= 1 / 1.6)
    SmartStage vs reader stage  a `staged` placed right after the fetch with SmartStage on (decode and hashing
                                move in front of it) against the same hand-placed stage without SmartStage (decode
                                and hashing stay in the step). Goal >= 1.2x faster (ratio <= 1 / 1.2)
    cpu decode staged           the `cpu` variant, staged against unstaged: two cores cannot give both sides a
                                full core each while the BLAS and the decode loop compete, so there is no goal;
                                `overlap` (in extra) is the share of the smaller side hidden behind the larger:
                                (t_unstaged - t_staged) / min(t_io, t_compute), with t_io and t_compute timed alone
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import replace
from typing import Iterable

import numba
import numpy as np

from .runner import BenchOptions, Row, bench_group, format_row, report_rows, side_by_side

GROUP = 'stage'
READ_SECONDS = 0.004
DECODE_SECONDS = 0.004
BATCH = 256
DENSE = 8
VOCAB = 5000
EMB = 16
HIDDEN = 576
POOL = 16                     # distinct batches the fetch cycles through
MODES = ('unstaged', 'staged', 'reader_stage', 'smart')


def _records(seed: int = 0) -> list:
    rng = np.random.RandomState(seed)
    pool = []
    for _ in range(POOL):
        users = rng.randint(0, 10 * VOCAB, BATCH)
        items = rng.randint(0, 10 * VOCAB, BATCH)
        dense = rng.rand(BATCH, DENSE)
        lines = np.empty(BATCH, dtype=object)
        lines[:] = ['u%d,i%d,%s' % (u, i, ','.join('%.4f' % v for v in row)) for u, i, row in zip(users, items, dense)]
        pool.append(lines)
    return pool


@numba.njit(nogil=True, cache=True)
def _busy_decode(columns, rounds):
    """A CPU-bound decode: `rounds` passes of arithmetic over the dense columns (releases the GIL)."""
    n, d = columns.shape
    out = np.empty((n, d), np.float32)
    for i in range(n):
        for j in range(d):
            v = columns[i, j]
            acc = v
            for _ in range(rounds):
                acc = np.sqrt(acc * acc + 1e-3) * 0.999 + v * 0.001
            out[i, j] = acc
    return out


def _calibrate_rounds(seconds: float) -> int:
    """How many rounds of _busy_decode take about `seconds` on one batch."""
    cols = np.random.RandomState(1).rand(BATCH, DENSE)
    _busy_decode(cols, 10)
    rounds = 100
    while True:
        start = time.perf_counter()
        _busy_decode(cols, rounds)
        took = time.perf_counter() - start
        if took > seconds / 4:
            return max(1, int(rounds * seconds / took))
        rounds *= 4


class Pipeline:
    """One program of the benchmark (see the module docstring) with its executor, scope and step function."""

    def __init__(self, mode: str, decode: str = 'io', rounds: int = 0):
        import paddle_exec.fluid as fluid
        import paddle_exec.static as static
        from paddle_exec.framework import unique_name

        self.fluid = fluid
        pool = _records()
        counter = iter(range(10 ** 12))
        lock = threading.Lock()

        def fetch():
            with lock:
                k = next(counter)
            time.sleep(READ_SECONDS)
            return pool[k % POOL]

        def decode_dense(*columns):
            cols = np.stack([np.asarray(c, np.float64) for c in columns], axis=1)
            if decode == 'io':
                time.sleep(DECODE_SECONDS)
                return cols.astype(np.float32)
            return _busy_decode(cols, rounds)

        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 11
        with fluid.program_guard(main, startup), unique_name.guard():
            block = main.current_block()
            lines = block.create_var(name='records', shape=[-1], dtype='string')
            static.py_func(fetch, None, lines)
            if mode in ('reader_stage', 'smart'):
                lines = static.staged(lines)
            user, item, *columns = static.decode_csv(lines, [[''], ['']] + [[0.0]] * DENSE)
            dense = block.create_var(name='dense', shape=[-1, DENSE], dtype='float32')
            static.py_func(decode_dense, columns, dense)
            uid = static.string_to_hash_bucket(user, VOCAB)
            iid = static.string_to_hash_bucket(item, VOCAB)
            if mode == 'staged':
                uid, iid, dense = static.staged([uid, iid, dense])
            feat = fluid.layers.concat([fluid.embedding(uid, size=[VOCAB, EMB]),
                                        fluid.embedding(iid, size=[VOCAB, EMB]), dense], axis=1)
            hidden = fluid.layers.fc(fluid.layers.fc(feat, HIDDEN, act='relu'), HIDDEN, act='relu')
            target = fluid.layers.reduce_mean(dense, dim=1, keep_dim=True)
            self.loss = fluid.layers.mean(fluid.layers.square(fluid.layers.fc(hidden, 1) - target))
            fluid.optimizer.SGD(0.01).minimize(self.loss)
        if mode == 'smart':
            static.enable_smart_stage(main)
        self.main = main
        self.scope = fluid.Scope()
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.exe.run(startup, scope=self.scope)

    def step(self) -> None:
        self.exe.run(self.main, fetch_list=[self.loss], scope=self.scope)

    def close(self) -> None:
        self.exe.close()


def _compute_only_seconds(pipeline: Pipeline, steps: int = 20) -> float:
    """The compute side alone: the unstaged step minus what its IO ops took, from per-op timings."""
    plan = next(plan for plan in pipeline.exe.runner.plans.plans()
                if any(node.op.type == 'py_func' for node in plan.nodes))
    io_types = {'py_func', 'decode_csv', 'string_to_hash_bucket'}
    totals = {'io': 0.0, 'compute': 0.0}
    from paddle_exec.executor.feed import bind_scope_inputs, write_scope_outputs
    for _ in range(steps):
        values = plan.new_values()
        bind_scope_inputs(plan.scope_inputs, values, pipeline.scope)
        for node in plan.nodes:
            start = time.perf_counter()
            node.step(values)
            kind = 'io' if node.op.type in io_types and not node.op.type.endswith('_grad') else 'compute'
            totals[kind] += time.perf_counter() - start
        write_scope_outputs(plan.scope_outputs, values, pipeline.scope)
    return totals['io'] / steps, totals['compute'] / steps


def _pair_row(name, subject, baseline, opts, goal, extra=None) -> Row:
    try:
        return side_by_side(GROUP, name, (subject.label, subject.step), (baseline.label, baseline.step), opts,
                            goal=goal, extra=extra)
    finally:
        subject.close()
        baseline.close()


def _pipeline(mode: str, label: str, **kwargs) -> Pipeline:
    p = Pipeline(mode, **kwargs)
    p.label = label
    return p


@bench_group(GROUP, help='stage and SmartStage against unstaged and hand-placed stages (IO-bound and CPU-bound)')
def stage_rows(opts: BenchOptions) -> Iterable[Row]:
    from threadpoolctl import threadpool_limits
    # blocks long enough that the batches a staged side buffered during the other side's block hardly count
    opts = replace(opts, block_seconds=max(opts.block_seconds, 1.5), rounds=min(opts.rounds, 5))
    with threadpool_limits(limits=1, user_api='blas'):
        yield _pair_row('staged vs unstaged', _pipeline('staged', 'staged'), _pipeline('unstaged', 'unstaged'),
                        opts, goal=1 / 1.6)
        yield _pair_row('SmartStage vs reader stage', _pipeline('smart', 'SmartStage'),
                        _pipeline('reader_stage', 'reader stage'), opts, goal=1 / 1.2)
        rounds = _calibrate_rounds(DECODE_SECONDS)
        unstaged = _pipeline('unstaged', 'unstaged', decode='cpu', rounds=rounds)
        for _ in range(5):
            unstaged.step()
        t_io, t_compute = _compute_only_seconds(unstaged)
        row = _pair_row('cpu decode staged', _pipeline('staged', 'staged', decode='cpu', rounds=rounds),
                        unstaged, opts, goal=None)
        t_staged, t_unstaged = 1 / row.subject_value, 1 / row.baseline_value
        row.extra.update(t_io_ms=round(t_io * 1e3, 2), t_compute_ms=round(t_compute * 1e3, 2),
                         overlap=round((t_unstaged - t_staged) / min(t_io, t_compute), 3))
        yield row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.stage', description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=5, help='timed blocks per side (default: %(default)s)')
    parser.add_argument('--json', help='also write the rows to this JSON file')
    parser.add_argument('--check-goals', action='store_true', help='exit 1 when a row misses its goal')
    args = parser.parse_args(argv)
    opts = BenchOptions(rounds=args.rounds)

    def describe(row: Row) -> str:
        return '%s  speed-up %.2fx %s' % (format_row(row), 1 / row.ratio, row.extra if 'overlap' in row.extra else '')
    return report_rows(stage_rows(opts), opts, args.json, args.check_goals, describe)


if __name__ == '__main__':
    sys.exit(main())
