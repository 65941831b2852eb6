"""ParallelExecutor benchmarks (issue 3, Speed): data parallelism, a wide graph on the thread pool, flat memory.

    python -m benchmarks --groups parallel           # through the runner (this module is auto-loaded)
    python -m benchmarks.bench_parallel              # this group alone; --json FILE writes the rows too
    parallel_rows(BenchOptions())                    # what the runner calls

Every timing row alternates its sides block by block in one process (`interleaved`: the order rotates every
round, each round's ratio is taken from its own blocks, the row reports the median), so a noisy neighbour on this
shared machine hits all sides alike. Ratio = subject cost / baseline cost.

Rows:
    models          the shared models (benchmarks/models.py, `opts.models`) trained by `fluid.ParallelExecutor` at
                    CPU_NUM=1 and CPU_NUM=2 against the plain Executor: per-step time ratios, the three sides
                    alternating. Every side starts from the same parameters, and the first losses must agree (a
                    PE at CPU_NUM=2 fetches one loss per place; their mean is the whole batch's loss) or the row is
                    marked LOSS DIFFERS. The MLP at CPU_NUM=1 carries the issue's goal: at most 10% more per step
                    than the Executor (ratio <= 1.1). CPU_NUM=2 has no goal: it splits the batch over two places,
                    and two cores shared with other work give less than twice one
    wide graph      BRANCHES independent ops of about BRANCH_SECONDS of nogil numba work each (the test-only op
                    `bench_busy_loop`, registered here) then `sums`, run by an Executor with ExecutionStrategy
                    num_threads 1 and 2; in the same rounds the same kernels on one bare thread and on two (the
                    caller and one persistent worker taking kernels from a shared list: what two threads can do
                    on this machine right now, with no executor). Rows: each pair's 2-against-1 time ratio, and
                    the executor's 2-thread speed-up as a share of the bare threads' speed-up (median over rounds
                    of the per-round share). Goal: share >= 90%, i.e. ratio = 1 / share <= 1 / 0.9. Read it
                    with the bare row: when other work holds the second core, bare threads gain nothing and the
                    share is about 1 whatever the executor does
    memory          peak RSS growth (psutil, sampled every step) over RSS_STEPS MLP training steps after
                    RSS_WARMUP untimed ones, default drop-scope setting (num_iteration_per_drop_scope = 100), for
                    the Executor and the PE at CPU_NUM=1 and 2, each in a fresh subprocess so earlier rows'
                    allocations do not count. Baseline column: the budget; goal growth < RSS_BUDGET_MB (ratio <= 1)

`opts.quick` (smoke tests) keeps every row but shortens the memory runs to a few steps.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable

import numba
import numpy as np

from .runner import ROOT, BenchOptions, Row, bench_group, cycling, environment, report_rows, settle

GROUP = 'parallel'
FEED_POOL = 4                 # pre-drawn batches cycled through by every side: data generation is not timed
PE_CPU1_GOAL = {'mlp': 1.10}  # the issue: PE at CPU_NUM=1 costs at most 10% more per step than the Executor
BRANCHES = 8
BRANCH_SECONDS = 1e-3
BRANCH_WIDTH = 1000           # float32 values each branch kernel sweeps per iteration
WIDE_SHARE_GOAL = 0.90
RSS_MODEL = 'mlp'
RSS_STEPS, RSS_WARMUP = 2000, 50
RSS_QUICK_STEPS, RSS_QUICK_WARMUP = 20, 3
RSS_BUDGET_MB = 5.0
RSS_MODES = ('Executor', 'PE CPU_NUM=1', 'PE CPU_NUM=2')


# --- measuring several sides at once ------------------------------------------------------------------------------

def _block(step: Callable[[], object], steps: int) -> float:
    """Seconds per step over one block of `steps` steps."""
    settle()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps


def interleaved(sides: dict, opts: BenchOptions) -> tuple[dict, int]:
    """label -> per-round seconds per step, and the steps per block, for `sides` (label -> step function).

    side_by_side (runner.py) for any number of sides: every side is warmed up (untimed) and timed once to size the
    blocks (long enough for the slowest side to take about `opts.block_seconds`, unless `opts.steps` fixes them);
    then `opts.rounds` rounds of one block per side, the order rotated every round so a drift in machine speed
    favours no side."""
    warm = max(1, opts.warmup)
    for step in sides.values():
        _block(step, warm)        # compiles kernels, builds plans, starts pools: never timed
    slowest = max(_block(step, warm) for step in sides.values())
    steps = opts.steps or max(3, int(opts.block_seconds / max(slowest, 1e-9)))
    labels = list(sides)
    times = {label: [] for label in labels}
    for r in range(opts.rounds):
        k = r % len(labels)
        for label in labels[k:] + labels[:k]:
            times[label].append(_block(sides[label], steps))
    return times, steps


def median_ratio(subject: list, baseline: list) -> float:
    return statistics.median(s / b for s, b in zip(subject, baseline))


def cpu_num(n: int):
    """CPU_NUM=n while a ParallelExecutor is made (it reads the number of places once, at construction)."""
    return environment('CPU_NUM', str(n))


# --- the shared models under the Executor and the ParallelExecutor --------------------------------------------

class ModelRun:
    """Model `name` of benchmarks/models.py built in its own programs and scope, trained by the plain Executor
    (`cpu_places` None) or by a ParallelExecutor at CPU_NUM = cpu_places. `run(feed)` is one training step and
    returns the fetched loss (one value per place for a PE)."""

    def __init__(self, name: str, cpu_places: int | None):
        import paddle_exec.fluid as fluid
        from paddle_exec.framework import unique_name

        from . import models
        builder, self.batch = models.MODELS[name]
        self.main, self.startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(self.main, self.startup), unique_name.guard():
            self.loss, self.draw = builder(fluid, self.batch)
        self.place = fluid.CPUPlace()
        self.scope = fluid.Scope()
        self.exe = fluid.Executor(self.place)
        self.exe.run(self.startup, scope=self.scope)
        self.pe = None
        if cpu_places is not None:
            with cpu_num(cpu_places):
                self.pe = fluid.ParallelExecutor(use_cuda=False, loss_name=self.loss.name, main_program=self.main,
                                                 scope=self.scope)

    def persistables(self) -> dict:
        names = [v.name for v in self.startup.global_block().vars.values() if v.persistable]
        return {n: np.array(self.scope.find_var(n).get_tensor()) for n in names if self.scope.find_var(n)}

    def load(self, values: dict) -> None:
        for name, value in values.items():
            self.scope.var(name).get_tensor().set(value.copy(), self.place)

    def run(self, feed: dict):
        if self.pe is not None:
            return self.pe.run(fetch_list=[self.loss.name], feed=feed)[0]
        return self.exe.run(self.main, feed=feed, fetch_list=[self.loss], scope=self.scope)[0]

    def close(self) -> None:
        if self.pe is not None:
            self.pe.close()
        self.exe.close()


def model_rows(name: str, opts: BenchOptions) -> list:
    sides = {'Executor': None, 'PE CPU_NUM=1': 1, 'PE CPU_NUM=2': 2}
    runs = {label: ModelRun(name, places) for label, places in sides.items()}
    try:
        start = runs['Executor'].persistables()
        for run in runs.values():
            run.load(start)             # one starting point, so the first losses must agree
        feeds = [runs['Executor'].draw() for _ in range(FEED_POOL)]
        first = {label: float(np.mean(run.run(feeds[0]))) for label, run in runs.items()}
        times, steps = interleaved({label: cycling(run.run, feeds) for label, run in runs.items()}, opts)
    finally:
        for run in runs.values():
            run.close()
    want = first['Executor']
    rows = []
    for label in ('PE CPU_NUM=1', 'PE CPU_NUM=2'):
        agree = abs(first[label] - want) <= 1e-4 * max(1.0, abs(want))
        row_name = '%s (batch %d)%s' % (name, runs[label].batch, '' if agree else ' LOSS DIFFERS')
        goal = PE_CPU1_GOAL.get(name) if label == 'PE CPU_NUM=1' else None
        rows.append(Row(GROUP, row_name, label, 'Executor', 1 / statistics.median(times[label]),
                        1 / statistics.median(times['Executor']), 'steps/s',
                        median_ratio(times[label], times['Executor']), goal=goal,
                        extra={'steps_per_block': steps, 'rounds': opts.rounds, 'first_loss': first[label],
                               'executor_first_loss': want, 'same_first_loss': agree}))
    return rows


# --- the wide graph -----------------------------------------------------------------------------------------------

@numba.njit(nogil=True, cache=True)
def busy_loop(x, iters):
    """`iters` sweeps of multiply-adds over x: pure CPU work with the GIL released."""
    acc = 0.0
    for _ in range(iters):
        for j in range(x.shape[0]):
            acc += x[j] * 1.0000001
    out = np.empty(1, np.float32)
    out[0] = acc
    return out


def _register_busy_op() -> None:
    """The test-only op `bench_busy_loop(X) -> Out[1]`, attribute `iters` (forward only)."""
    from paddle_exec.framework.registry import OPS, defop, kernel_rule, shape_rule
    if 'bench_busy_loop' in OPS:
        return
    defop('bench_busy_loop', ['X'], ['Out'], {'iters': 1})

    @shape_rule('bench_busy_loop')
    def _(ctx):
        ctx.set_output('Out', [1], ctx.in_dtype('X'))

    @kernel_rule('bench_busy_loop')
    def _(spec):
        iters = int(spec.attr('iters'))     # read once per plan, not per step

        def run(x):
            return (busy_loop(x.reshape(-1), iters),)
        return run


_register_busy_op()


def calibrate_iters(x: np.ndarray, seconds: float) -> int:
    """How many sweeps of busy_loop over x take about `seconds` (median of a few timings)."""
    busy_loop(x, 1)                 # compile (or load from numba's cache)
    iters = 1
    while True:
        took = statistics.median(_timed(busy_loop, x, iters) for _ in range(3))
        if took > seconds / 4:
            return max(1, round(iters * seconds / took))
        iters *= 4


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def wide_program(iters: int):
    """(program, feed name, fetched var): x -> BRANCHES x bench_busy_loop -> sums."""
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[BRANCH_WIDTH], dtype='float32', append_batch_size=False)
        block = main.global_block()
        outs = []
        for k in range(BRANCHES):
            out = block.create_var(name='branch_%d' % k, shape=[1], dtype='float32')
            block.append_op('bench_busy_loop', {'X': [x]}, {'Out': [out]}, {'iters': iters})
            outs.append(out)
        total = fluid.layers.sums(outs)
    return main, 'x', total


class BareThreads:
    """The wide graph's kernels with no executor: the caller and `n_threads - 1` persistent workers take kernels
    from one shared list until it is empty (`list.pop` is atomic), so a thread slowed by other work takes fewer."""

    def __init__(self, n_threads: int, kernel: Callable[[], object]):
        self.kernel = kernel
        self.done: queue.SimpleQueue = queue.SimpleQueue()
        self.inboxes = [queue.SimpleQueue() for _ in range(n_threads - 1)]
        self.workers = [threading.Thread(target=self._serve, args=(inbox,), daemon=True) for inbox in self.inboxes]
        for worker in self.workers:
            worker.start()

    def _drain(self, work: list) -> None:
        while True:
            try:
                work.pop()
            except IndexError:
                return
            self.kernel()

    def _serve(self, inbox: queue.SimpleQueue) -> None:
        while True:
            work = inbox.get()
            if work is None:
                return
            self._drain(work)
            self.done.put(None)

    def run(self) -> None:
        work = list(range(BRANCHES))
        for inbox in self.inboxes:
            inbox.put(work)
        self._drain(work)
        for _ in self.inboxes:
            self.done.get()

    def close(self) -> None:
        for inbox in self.inboxes:
            inbox.put(None)
        for worker in self.workers:
            worker.join()


def wide_rows(opts: BenchOptions) -> list:
    import paddle_exec.fluid as fluid
    x = np.random.RandomState(0).rand(BRANCH_WIDTH).astype(np.float32)
    iters = calibrate_iters(x, BRANCH_SECONDS)
    program, feed_name, total = wide_program(iters)
    feed = {feed_name: x}
    executors, bare = {}, {}
    for n in (1, 2):
        strategy = fluid.ExecutionStrategy()
        strategy.num_threads = n
        executors[n] = fluid.Executor(fluid.CPUPlace(), exec_strategy=strategy)
        bare[n] = BareThreads(n, lambda: busy_loop(x, iters))

    def executor_step(exe):
        return lambda: exe.run(program, feed=feed, fetch_list=[total])

    sides = {'executor 1 thr': executor_step(executors[1]), 'executor 2 thr': executor_step(executors[2]),
             'bare 1 thread': bare[1].run, 'bare 2 threads': bare[2].run}
    try:
        want = float(BRANCHES * busy_loop(x, iters)[0])
        got = float(np.asarray(sides['executor 2 thr']()).reshape(-1)[0])
        times, steps = interleaved(sides, opts)
    finally:
        for exe in executors.values():
            exe.close()
        for threads in bare.values():
            threads.close()
    e1, e2, b1, b2 = (times[k] for k in sides)
    shares = [(t1 / t2) / (u1 / u2) for t1, t2, u1, u2 in zip(e1, e2, b1, b2)]
    share = statistics.median(shares)
    extra = {'branches': BRANCHES, 'iters': iters, 'branch_ms': round(1e3 * statistics.median(b1) / BRANCHES, 3),
             'steps_per_block': steps, 'rounds': opts.rounds,
             'sum_right': abs(got - want) <= 1e-5 * abs(want)}
    name = 'wide %dx%gms' % (BRANCHES, BRANCH_SECONDS * 1e3)
    ms = lambda ts: 1e3 * statistics.median(ts)
    return [
        Row(GROUP, name, 'executor 2 thr', 'executor 1 thr', ms(e2), ms(e1), 'ms', median_ratio(e2, e1),
            extra=extra),
        Row(GROUP, name, 'bare 2 threads', 'bare 1 thread', ms(b2), ms(b1), 'ms', median_ratio(b2, b1), extra=extra),
        Row(GROUP, name + ' share', 'executor x', 'bare x', statistics.median(t1 / t2 for t1, t2 in zip(e1, e2)),
            statistics.median(u1 / u2 for u1, u2 in zip(b1, b2)), 'speedup', 1 / share, goal=1 / WIDE_SHARE_GOAL,
            extra={**extra, 'share_of_bare_speedup': share, 'per_round_shares': [round(s, 3) for s in shares]}),
    ]


# --- memory -------------------------------------------------------------------------------------------------------

def rss_child(mode: str, steps: int, warmup: int) -> dict:
    """In a fresh process: RSS before and peak RSS during `steps` training steps of RSS_MODEL after `warmup` steps,
    each step on a freshly drawn batch, as a training loop feeds it."""
    import psutil
    places = {'Executor': None, 'PE CPU_NUM=1': 1, 'PE CPU_NUM=2': 2}[mode]
    run = ModelRun(RSS_MODEL, places)
    for _ in range(warmup):
        run.run(run.draw())
    gc.collect()
    process = psutil.Process()
    start = peak = process.memory_info().rss
    for _ in range(steps):
        run.run(run.draw())
        peak = max(peak, process.memory_info().rss)
    end = process.memory_info().rss
    run.close()
    mb = 2.0 ** 20
    return {'start_mb': start / mb, 'peak_mb': peak / mb, 'end_mb': end / mb, 'growth_mb': (peak - start) / mb}


def start_rss_child(mode: str, steps: int, warmup: int, blas_threads: int | None) -> subprocess.Popen:
    """rss_child in a subprocess: python -m benchmarks.bench_parallel --rss-child MODE ..."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    env.pop('CPU_NUM', None)        # the child sets it for the PE it makes
    cmd = [sys.executable, '-m', 'benchmarks.bench_parallel', '--rss-child', mode, '--steps', str(steps),
           '--warmup', str(warmup)]
    if blas_threads is not None:
        cmd += ['--blas-threads', str(blas_threads)]
    return subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def rss_result(mode: str, proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError('the RSS run of %s failed:\n%s%s' % (mode, out, err))
    return json.loads(out.strip().splitlines()[-1])


def rss_rows(opts: BenchOptions) -> Iterable[Row]:
    steps, warmup = (RSS_QUICK_STEPS, RSS_QUICK_WARMUP) if opts.quick else (RSS_STEPS, RSS_WARMUP)
    # one child at a time, so none competes for the cores; smoke runs start them all at once (time counts there)
    started = {mode: start_rss_child(mode, steps, warmup, opts.blas_threads) for mode in RSS_MODES} if opts.quick \
        else {}
    for mode in RSS_MODES:
        proc = started.get(mode) or start_rss_child(mode, steps, warmup, opts.blas_threads)
        got = rss_result(mode, proc)
        yield Row(GROUP, 'RSS %d %s steps' % (steps, RSS_MODEL), mode, 'budget', got['growth_mb'], RSS_BUDGET_MB,
                  'MB', got['growth_mb'] / RSS_BUDGET_MB, goal=1.0,
                  extra={**{k: round(v, 2) for k, v in got.items()}, 'warmup_steps': warmup,
                         'num_iteration_per_drop_scope': 100})


# --- the group ----------------------------------------------------------------------------------------------------

@bench_group(GROUP, help='ParallelExecutor at CPU_NUM=1/2 against the Executor, a wide graph at 1/2 threads, RSS')
def parallel_rows(opts: BenchOptions) -> Iterable[Row]:
    """Every row of this module, in order."""
    for name in opts.models:
        yield from model_rows(name, opts)
    yield from wide_rows(opts)
    yield from rss_rows(opts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.bench_parallel', description=__doc__.split('\n')[0])
    parser.add_argument('--models', default='fc,mlp,deepfm', help='comma-separated models (default: %(default)s)')
    parser.add_argument('--rounds', type=int, default=7, help='timed blocks per side (default: %(default)s)')
    parser.add_argument('--blas-threads', type=int, default=None, help='cap the BLAS threads')
    parser.add_argument('--json', help='also write the rows to this JSON file')
    parser.add_argument('--check-goals', action='store_true', help='exit 1 when a row misses its goal')
    parser.add_argument('--rss-child', choices=RSS_MODES, help=argparse.SUPPRESS)    # measure_rss's subprocess
    parser.add_argument('--steps', type=int, default=RSS_STEPS, help=argparse.SUPPRESS)
    parser.add_argument('--warmup', type=int, default=RSS_WARMUP, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.blas_threads, user_api='blas'):
        if args.rss_child:
            print(json.dumps(rss_child(args.rss_child, args.steps, args.warmup)))
            return 0
        opts = BenchOptions(models=[m for m in args.models.split(',') if m], rounds=args.rounds,
                            blas_threads=args.blas_threads)
        return report_rows(parallel_rows(opts), opts, args.json, args.check_goals)

if __name__ == '__main__':
    sys.exit(main())
