"""Executor-policy benchmarks: inline and cost-model (DeepRec's modes) against the native threaded policy.

    python -m benchmarks.policies                    # prints the rows; --json FILE writes them too
    policy_rows(BenchOptions())                      # what the runner calls (group 'policies')

Rows (each figure measured side by side in one run, ratio = subject cost / baseline cost):
    per-op overhead   the slope of a run's time over the length of a chain of `assign` ops (chains of CHAIN_SHORT
                      and CHAIN_LONG ops timed in alternating blocks, so the fixed cost per run cancels), calling
                      policy.run(plan, values) directly. The baseline column is the budget of the issue (inline
                      2 us/op, native 10 us/op): the ratio is the share of the budget used, goal <= 1
    serving           8 threads calling Executor.run on one executor of the fit-a-line inference program
                      (x -> fc(13 -> 1)), one request of SERVING_BATCH rows each: requests/s of inline against
                      native; the goal (inline >= 2x native) is ratio <= 0.5. The same on a wider inference graph
                      (four fc towers) where the native policy really hands ops to its pool. A reference row (no
                      goal) puts inline against HandOffEveryOp, every op handed to a pool thread while the caller
                      waits: the native executor of TensorFlow/DeepRec, which DeepRec's 2x claim is measured against
    kernel GIL        inline serving (8 threads) with kernels compiled holding the GIL (PADDLE_EXEC_KERNEL_GIL=hold)
                      against the default, which releases it; the mode is process-wide, so each timed block runs
                      in a child process, the two modes alternating (no goal)
    imbalanced graph  2 threads; MEDIUM_OPS independent ops sleeping MEDIUM_SECONDS (released GIL, no core used:
                      IO-like) declared before a chain of CHAIN_OPS ops sleeping CHAIN_SECONDS, then one cheap op
                      (a metric on the input). Makespan of the cost model (after its window) against the native
                      policy (goal >= 1.3x faster: ratio <= 1/1.3) and against the lower bound
                      max(critical path, total work / 2) from the measured op times (goal within 15%: <= 1.15).
                      A last row drops the trailing cheap op: the native policy keeps the last ready op on the
                      caller's thread, so a chain declared last gets a head start by luck there.
"""
from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from typing import Iterable

import numpy as np

from .runner import ROOT, BenchOptions, Row, bench_group, report_rows, settle

GROUP = 'policies'
CHAIN_SHORT, CHAIN_LONG = 20, 420
INLINE_BUDGET_US, NATIVE_BUDGET_US = 2.0, 10.0
SERVING_THREADS, SERVING_BATCH, SERVING_REQUESTS = 8, 4, 300      # requests per thread per timed block
MEDIUM_OPS, MEDIUM_SECONDS, CHAIN_OPS, CHAIN_SECONDS = 20, 0.002, 10, 0.004


def _fluid():
    import paddle_exec.fluid as fluid
    return fluid


def _policies(num_threads: int, window=(1, 4)) -> dict:
    from paddle_exec.executor.policies.cost_model import CostModelPolicy
    from paddle_exec.executor.policies.inline import InlinePolicy
    from paddle_exec.executor.policies.threaded import ThreadedPolicy
    return {'inline': lambda: InlinePolicy(num_threads),
            'native': lambda: ThreadedPolicy(num_threads),
            'cost model': lambda: CostModelPolicy(num_threads, start_step=window[0], stop_step=window[1])}


def _median_block(fn, steps: int) -> float:
    settle()
    start = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - start) / steps


# --- per-op overhead ----------------------------------------------------------------------------------------------

def chain_plan(length: int):
    """The plan of x -> assign -> assign -> ... (`length` ops) on a [1] float32 value."""
    from paddle_exec.executor.plan import build_plan
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        h = x = fluid.layers.data(name='x', shape=[1], dtype='float32', append_batch_size=False)
        for _ in range(length):
            h = fluid.layers.assign(h)
    return build_plan(main.global_block(), [x.name], [h.name])


def _plan_runner(policy, plan, feed: dict):
    slots = [(plan.feed_slots[name], value) for name, value in feed.items()]

    def run():
        values = plan.new_values()
        for slot, value in slots:
            values[slot] = value
        policy.run(plan, values)
        return values
    return run


def per_op_slopes(policies: dict, opts: BenchOptions, steps: int = 200) -> dict:
    """label -> seconds per op: (t(long chain) - t(short chain)) / (CHAIN_LONG - CHAIN_SHORT), each a median over
    rounds in which every policy's blocks run next to each other (order rotated), so load hits all alike."""
    feed = {'x': np.ones([1], np.float32)}
    plans = chain_plan(CHAIN_SHORT), chain_plan(CHAIN_LONG)
    runners = {label: [_plan_runner(policy, plan, feed) for plan in plans] for label, policy in policies.items()}
    for _ in range(max(3, opts.warmup)):
        for short, long in runners.values():
            short()                     # interleaved: a cost model's window measures both plans
            long()
    labels = list(runners)
    slopes = {label: [] for label in labels}
    for r in range(max(opts.rounds, 5)):
        for label in labels[r % len(labels):] + labels[:r % len(labels)]:
            short, long = runners[label]
            t_short, t_long = _median_block(short, steps), _median_block(long, steps)
            slopes[label].append((t_long - t_short) / (CHAIN_LONG - CHAIN_SHORT))
    return {label: statistics.median(v) for label, v in slopes.items()}


def overhead_rows(opts: BenchOptions) -> Iterable[Row]:
    from paddle_exec.executor.policies.sequential import run_sequential

    class Sequential:
        def run(self, plan, values):
            run_sequential(plan, values)

        def close(self):
            pass

    makers = _policies(4)
    policies = {'sequential': Sequential(), **{label: makers[label]() for label in ('inline', 'native', 'cost model')}}
    try:
        us = {label: slope * 1e6 for label, slope in per_op_slopes(policies, opts).items()}
    finally:
        for policy in policies.values():
            policy.close()
    floor = us['sequential']
    extra = {'sequential_us_per_op': floor, 'chain_lengths': [CHAIN_SHORT, CHAIN_LONG], 'op': 'assign'}
    for label, budget in (('inline', INLINE_BUDGET_US), ('native', NATIVE_BUDGET_US)):
        yield Row(GROUP, 'per-op overhead', label, 'budget', us[label], budget, 'us/op', us[label] / budget,
                  goal=1.0, extra=extra)
    for label in ('inline', 'native', 'cost model'):
        yield Row(GROUP, 'per-op vs sequential', label, 'sequential', us[label], floor, 'us/op', us[label] / floor,
                  extra=extra)


# --- serving ------------------------------------------------------------------------------------------------------

def fit_a_line_inference():
    """(inference program, startup program, feed name, fetch var): the book's fit-a-line network for testing."""
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name='x', shape=[13], dtype='float32')
        y_predict = fluid.layers.fc(input=x, size=1, act=None)
    return main.clone(for_test=True), startup, 'x', y_predict


def towers_inference(towers: int = 4, width: int = 256):
    """A wider inference graph: `towers` independent fc(13 -> width, relu) -> fc(width -> 1) towers, summed."""
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name='x', shape=[13], dtype='float32')
        outs = [fluid.layers.fc(input=fluid.layers.fc(input=x, size=width, act='relu'), size=1)
                for _ in range(towers)]
        total = fluid.layers.sums(outs)
    return main.clone(for_test=True), startup, 'x', total


class HandOffEveryOp:
    """Reference only, not a paddle_exec policy: the native scheduler as TensorFlow/DeepRec run it for a request,
    every op handed to a pool thread while the caller waits (the baseline DeepRec's inline executor is measured
    against). Our native policy keeps cheap ops and chains on the caller's thread instead (policies/threaded.py)."""

    def __init__(self, num_threads: int):
        self.tasks = queue.SimpleQueue()
        self.num_threads = num_threads
        for _ in range(num_threads):
            threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        while True:
            task = self.tasks.get()
            if task is None:
                return
            step, values, done = task
            step(values)
            done.set()

    def run(self, plan, values) -> None:
        for node in plan.nodes:
            done = threading.Event()
            self.tasks.put((node.step, values, done))
            done.wait()

    def close(self) -> None:
        for _ in range(self.num_threads):
            self.tasks.put(None)


def executor_with(policy):
    """A plain Executor whose runs go through `policy` (what ExecutionStrategy.executor_policy selects)."""
    fluid = _fluid()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.runner.use_policy(policy)
    return exe


class ServingClients:
    """SERVING_THREADS threads calling run() on one executor (driven by `policy`) of an inference program, each
    with its own request; `block(n)` times n requests per thread and checks every thread's last answer."""

    def __init__(self, policy, program, startup, feed_name: str, fetch, batch: int):
        fluid = _fluid()
        self.scope = fluid.Scope()
        self.exe = executor_with(policy)
        self.exe.run(startup, scope=self.scope)
        self.program, self.feed_name, self.fetch = program, feed_name, fetch
        rng = np.random.RandomState(0)
        self.feeds = [rng.uniform(-0.5, 0.5, (batch, 13)).astype(np.float32) for _ in range(SERVING_THREADS)]
        plain = fluid.Executor(fluid.CPUPlace())
        self.want = [plain.run(program, feed={feed_name: f}, fetch_list=[fetch], scope=self.scope)[0]
                     for f in self.feeds]
        self.right = True

    def _client(self, k: int, n: int, barrier) -> None:
        feed = {self.feed_name: self.feeds[k]}
        barrier.wait()
        for _ in range(n):
            got, = self.exe.run(self.program, feed=feed, fetch_list=[self.fetch], scope=self.scope)
        if not np.array_equal(got, self.want[k]):
            self.right = False

    def block(self, n: int) -> float:
        """Seconds for SERVING_THREADS * n requests."""
        barrier = threading.Barrier(SERVING_THREADS + 1)
        threads = [threading.Thread(target=self._client, args=(k, n, barrier)) for k in range(SERVING_THREADS)]
        for t in threads:
            t.start()
        settle()
        barrier.wait()
        start = time.perf_counter()
        for t in threads:
            t.join()
        return time.perf_counter() - start


def serving_rows(opts: BenchOptions) -> Iterable[Row]:
    makers = dict(_policies(4), **{'hand-off every op': lambda: HandOffEveryOp(4)})
    for name, build, labels in (('serving fit-a-line', fit_a_line_inference, ('inline', 'native', 'hand-off every op')),
                                ('serving 4 towers', towers_inference, ('inline', 'native'))):
        program, startup, feed_name, fetch = build()
        policies = {label: makers[label]() for label in labels}
        clients = {label: ServingClients(policy, program, startup, feed_name, fetch, SERVING_BATCH)
                   for label, policy in policies.items()}
        for c in clients.values():
            c.block(20)                  # plans, first (measuring) runs, threads
        times = {label: [] for label in labels}
        for r in range(max(opts.rounds, 5)):
            for label in (labels if r % 2 == 0 else labels[::-1]):
                times[label].append(clients[label].block(SERVING_REQUESTS))
        for policy in policies.values():
            policy.close()
        ok = all(c.right for c in clients.values())
        for baseline in labels[1:]:
            ratio = statistics.median(i / n for i, n in zip(times['inline'], times[baseline]))
            i_rps, b_rps = (SERVING_THREADS * SERVING_REQUESTS / statistics.median(times[k])
                            for k in ('inline', baseline))
            row = name if baseline == 'native' else name + ' (reference: TF-style pool)'
            yield Row(GROUP, row if ok else row + ' WRONG ANSWERS', 'inline', baseline, i_rps, b_rps, 'req/s', ratio,
                      goal=0.5 if baseline == 'native' else None,
                      extra={'threads': SERVING_THREADS, 'batch': SERVING_BATCH, 'answers_right': ok,
                             'inline_over_baseline': 1 / ratio})


# --- kernels holding the GIL (PADDLE_EXEC_KERNEL_GIL=hold) -------------------------------------------------------

GIL_ENV = 'PADDLE_EXEC_KERNEL_GIL'          # paddle_exec/kernels/jit.py: 'hold' compiles kernels holding the GIL
GIL_PROGRAMS = {'fit-a-line': fit_a_line_inference, '4 towers': towers_inference}


def serving_child(program: str, requests: int) -> float:
    """In a child process (the kernel GIL mode is process-wide): seconds for SERVING_THREADS * requests inline
    requests on `program`, after a warm-up block."""
    from paddle_exec.executor.policies.inline import InlinePolicy
    built = GIL_PROGRAMS[program]()
    clients = ServingClients(InlinePolicy(4), *built, SERVING_BATCH)
    clients.block(20)
    seconds = clients.block(requests)
    if not clients.right:
        raise AssertionError('wrong answers under PADDLE_EXEC_KERNEL_GIL=%s' % os.environ.get(GIL_ENV, 'release'))
    return seconds



def _child_seconds(program: str, mode: str, requests: int, blas_threads: int | None) -> float:
    env = dict(os.environ, **{GIL_ENV: mode})
    if blas_threads:                     # the runner's --blas-threads cap, which a child would not inherit
        env.update(OPENBLAS_NUM_THREADS=str(blas_threads), OMP_NUM_THREADS=str(blas_threads),
                   MKL_NUM_THREADS=str(blas_threads))
    cmd = [sys.executable, '-m', 'benchmarks.policies', '--serving-child', program, '--requests', str(requests)]
    out = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError('serving child (%s, %s) failed:\n%s' % (program, mode, out.stderr[-2000:]))
    return float(out.stdout.strip().splitlines()[-1])


def gil_mode_rows(opts: BenchOptions) -> Iterable[Row]:
    """Inline serving with kernels holding the GIL against releasing it, each side in its own child processes,
    alternating (the mode is fixed at import)."""
    for program, requests in (('fit-a-line', SERVING_REQUESTS), ('4 towers', SERVING_REQUESTS // 2)):
        times = {'hold': [], 'release': []}
        for r in range(max(3, opts.rounds // 2)):
            for mode in (('hold', 'release') if r % 2 == 0 else ('release', 'hold')):
                times[mode].append(_child_seconds(program, mode, requests, opts.blas_threads))
        ratio = statistics.median(h / rel for h, rel in zip(times['hold'], times['release']))
        rps = {m: SERVING_THREADS * requests / statistics.median(t) for m, t in times.items()}
        yield Row(GROUP, 'serving %s, kernel GIL' % program, 'hold', 'release', rps['hold'], rps['release'],
                  'req/s', ratio, extra={'threads': SERVING_THREADS, 'batch': SERVING_BATCH,
                                         'hold_over_release': 1 / ratio})


# --- imbalanced graph ---------------------------------------------------------------------------------------------

def imbalanced_plan(trailing_cheap_op: bool = True):
    """MEDIUM_OPS independent sleeping ops, then a chain of CHAIN_OPS sleeping ops, then (optionally) one cheap
    independent op; all read the fed x."""
    from paddle_exec.executor.plan import build_plan
    fluid = _fluid()
    from paddle_exec import static

    def sleeper(seconds: float):
        def wait(a):
            time.sleep(seconds)          # like IO: the GIL is released and no core is busy
            return a
        return wait

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        block = main.global_block()
        x = fluid.layers.data(name='x', shape=[1], dtype='float32', append_batch_size=False)
        fetch = []
        for k in range(MEDIUM_OPS):
            out = block.create_var(name='medium_%d' % k, shape=[1], dtype='float32')
            static.py_func(sleeper(MEDIUM_SECONDS), x, out)
            fetch.append(out.name)
        h = x
        for k in range(CHAIN_OPS):
            out = block.create_var(name='chain_%d' % k, shape=[1], dtype='float32')
            static.py_func(sleeper(CHAIN_SECONDS), h, out)
            h = out
        fetch.append(h.name)
        if trailing_cheap_op:
            fetch.append(fluid.layers.scale(x, scale=2.0).name)
    return build_plan(block, [x.name], fetch)


def imbalanced_rows(opts: BenchOptions) -> Iterable[Row]:
    from paddle_exec.executor.policies.cost_model import CostModelPolicy
    from paddle_exec.executor.policies.threaded import ThreadedPolicy
    feed = {'x': np.ones([1], np.float32)}
    for trailing in (True, False):
        plan = imbalanced_plan(trailing)
        model_policy = CostModelPolicy(2, start_step=1, stop_step=4)
        native = ThreadedPolicy(2)
        run_model, run_native = _plan_runner(model_policy, plan, feed), _plan_runner(native, plan, feed)
        for _ in range(model_policy.stop_step):
            run_model()                  # before and in the window
        for _ in range(3):
            run_native()                 # its first run is sequential: it measures the ops
        table = model_policy.cost_model(plan)
        critical = max(entry.priority for entry in table.values())
        total = sum(entry.cost for entry in table.values())
        bound = max(critical, total / 2)
        t_model, t_native = [], []
        for r in range(max(opts.rounds, 5)):
            pair = ((run_model, t_model), (run_native, t_native))
            for fn, times in (pair if r % 2 == 0 else pair[::-1]):
                times.append(_median_block(fn, 1))
        model_policy.close()
        native.close()
        m, n = statistics.median(t_model), statistics.median(t_native)
        extra = {'threads': 2, 'critical_path_ms': critical * 1e3, 'total_work_ms': total * 1e3,
                 'lower_bound_ms': bound * 1e3, 'speedup_over_native': n / m,
                 'graph': '%d x %.0f ms independent, then a chain of %d x %.0f ms%s' % (
                     MEDIUM_OPS, MEDIUM_SECONDS * 1e3, CHAIN_OPS, CHAIN_SECONDS * 1e3,
                     ', then a cheap op' if trailing else '')}
        suffix = '' if trailing else ' (chain last)'
        yield Row(GROUP, 'imbalanced' + suffix, 'cost model', 'native', m * 1e3, n * 1e3, 'ms', m / n,
                  goal=1 / 1.3 if trailing else None, extra=extra)
        if trailing:
            yield Row(GROUP, 'imbalanced vs bound', 'cost model', 'lower bound', m * 1e3, bound * 1e3, 'ms',
                      m / bound, goal=1.15, extra=extra)


# --- the group ----------------------------------------------------------------------------------------------------

@bench_group(GROUP, help='inline and cost-model policies against the native one (per-op cost, serving, imbalance)')
def policy_rows(opts: BenchOptions) -> Iterable[Row]:
    """Every row of this module, in order."""
    yield from overhead_rows(opts)
    yield from serving_rows(opts)
    yield from gil_mode_rows(opts)
    yield from imbalanced_rows(opts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.policies', description=__doc__.split('\n')[0])
    parser.add_argument('--rounds', type=int, default=7, help='timed blocks per side (default: %(default)s)')
    parser.add_argument('--json', help='also write the rows to this JSON file')
    parser.add_argument('--check-goals', action='store_true', help='exit 1 when a row misses its goal')
    parser.add_argument('--serving-child', choices=sorted(GIL_PROGRAMS), help=argparse.SUPPRESS)
    parser.add_argument('--requests', type=int, default=SERVING_REQUESTS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serving_child:
        print(serving_child(args.serving_child, args.requests))
        return 0
    opts = BenchOptions(rounds=args.rounds)
    return report_rows(policy_rows(opts), opts, args.json, args.check_goals)


if __name__ == '__main__':
    sys.exit(main())
