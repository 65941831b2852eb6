"""The cost-model policy (DeepRec's USE_COST_MODEL_EXECUTOR): measure every op for a while, then schedule the
critical path first and run short ops in batches.

    policy = CostModelPolicy(num_threads=4)             # window from START_NODE_STATS_STEP / STOP_NODE_STATS_STEP
    policy.run(plan, values)                            # any number of times, from any number of threads at once
    policy.cost_model()                                 # None until the window closes, then {(index, type): entry}
    policy.close()

Threads. `num_threads` threads run ops: the caller of run() and `num_threads - 1` pool workers, made at the first
run that hands work off and kept until close() or garbage collection (workers never hold a reference to the
policy). Workers block on the pool's token queue and callers on their run's condition: nobody spins.

Phases, by run number (runs are numbered 0, 1, 2, ... per policy, so per executor, in the order run() is called):
    before the window   runs < START_NODE_STATS_STEP: FIFO ready queue, like the native policy
    the window          runs in [START_NODE_STATS_STEP, STOP_NODE_STATS_STEP): FIFO, and each node's step is timed
                        with time.perf_counter; a run's times are added to its plan's sums when the run ends
    after the window    when the last run of the window has ended, every plan measured in it gets its cost model:
                        each op's average time and its priority, the bottom level = the longest time-weighted path
                        from the op to the end of the graph, the op included. Runs of a modelled plan use the
                        priority rule below.
    a late plan         a plan that has no model once that window has closed (first built afterwards: an edited
                        program, a new fetch list, a test program first run late) is measured in the same window
                        counted over its own runs (runs START..STOP-1 of that plan), as DeepRec's executor per
                        graph signature counts its own steps; then it gets its model, the others keep theirs.
The window is on when both numbers are positive and STOP > START (defaults 100 and 200). Otherwise the policy
warns once, at construction, saying why, and every run is the native policy's (policies/threaded.py).

Ready-queue rule with a model, applied by whichever thread finished an op (so successors start where their input
was made, as in DeepRec/TensorFlow, without a coordinator):
    - the newly ready ops are sorted by priority, highest first;
    - short ops (average < `short_op_seconds`, default 5 us) are grouped, in that order, into batches of about
      `batch_seconds` (5 us) of measured work, at most `batch_max_ops` (100) ops; a batch is run back to back by one
      thread. The first batch stays on the current thread;
    - when no batch stays, the most critical expensive op continues on the current thread;
    - every other batch or op goes on the run's ready heap (highest priority first) and a pool worker is woken.
A thread whose own next item is done takes the highest-priority item of the heap; a worker with nothing left goes
back to the pool, the caller waits for the run to end. Without a model every ready op goes on the heap in the
order it became ready (FIFO) and each is its own item.

State of one run (`_Run`, shared only by the threads working on that run, guarded by its condition `cond`):
    pending     pending[i]: dependencies of node i not yet finished
    heap        (key, item) ready items; key = priority rank with a model, order of readiness without
    remaining   nodes not yet finished;  active  items claimed by a thread and not finished
    failed      (node, exception) of the first failure: the heap is emptied, no new item starts
    times       per-node seconds of this run, inside the window (each node writes its own entry)
Shared with other runs: the pool and, per plan, the window's sums and the model (replaced whole, never mutated).
"""
from __future__ import annotations

import heapq
import queue
import threading
import time
import warnings
import weakref
from typing import NamedTuple

from ..config import DEFAULT_START_NODE_STATS_STEP, DEFAULT_STOP_NODE_STATS_STEP, stats_window
from .base import math_threads, op_failure
from .pool import WorkerPool
from .threaded import ThreadedPolicy

__all__ = ['CostModelPolicy', 'CostModel', 'CostEntry', 'bottom_levels', 'split_ready', 'route_ready', 'stats_window',
           'DEFAULT_START_NODE_STATS_STEP', 'DEFAULT_STOP_NODE_STATS_STEP']


# --- the model ----------------------------------------------------------------------------------------------------

def topological_order(plan) -> list[int]:
    nodes = plan.nodes
    pending = [nd.n_deps for nd in nodes]
    order = list(plan.roots)
    for i in order:                       # the list grows while it is walked
        for s in nodes[i].successors:
            pending[s] -= 1
            if pending[s] == 0:
                order.append(s)
    if len(order) != len(nodes):
        raise ValueError('the execution plan has a dependency cycle: its ops cannot be ordered')
    return order


def bottom_levels(plan, costs) -> list[float]:
    """Each node's bottom level: its cost plus the largest bottom level among its successors, i.e. the longest
    cost-weighted path from the node to the end of the graph, the node included."""
    nodes = plan.nodes
    level = [0.0] * len(nodes)
    for i in reversed(topological_order(plan)):
        tail = 0.0
        for s in nodes[i].successors:
            if level[s] > tail:
                tail = level[s]
        level[i] = costs[i] + tail
    return level


class CostEntry(NamedTuple):
    """One op of the cost model: average seconds per run, priority (bottom level, seconds), batched or not."""
    cost: float
    priority: float
    short: bool


class CostModel:
    """Per-node average cost, priority (bottom level) and shortness of one plan; immutable once built.

    `rank[i]` is node i's place in the order (priority descending, then program order): the heap key."""

    def __init__(self, plan, costs, short_op_seconds: float):
        if len(costs) != len(plan.nodes):
            raise ValueError('a cost model needs one cost per node: the plan has %d nodes, %d costs were given'
                             % (len(plan.nodes), len(costs)))
        self.costs = [float(c) for c in costs]
        self.priority = bottom_levels(plan, self.costs)
        self.short = [c < short_op_seconds for c in self.costs]
        self.short_op_seconds = short_op_seconds
        by_priority = sorted(range(len(self.costs)), key=lambda i: (-self.priority[i], i))
        self.rank = [0] * len(self.costs)
        for r, i in enumerate(by_priority):
            self.rank[i] = r
        self.keys = [(nd.index, nd.op.type if nd.op is not None else nd.label) for nd in plan.nodes]

    def table(self) -> dict:
        """{(op index, op type): CostEntry}, in program order."""
        return {key: CostEntry(c, p, s) for key, c, p, s in zip(self.keys, self.costs, self.priority, self.short)}


def split_ready(model: CostModel, ready: list, batch_seconds: float, batch_max_ops: int) -> tuple[list, list]:
    """(batches of short ops, expensive ops) of `ready`, which is sorted highest priority first. Short ops are
    grouped in that order; a batch closes once its measured work reaches `batch_seconds` or it holds
    `batch_max_ops` ops."""
    short, costs = model.short, model.costs
    batches, expensive = [], []
    batch, work = [], 0.0
    for i in ready:
        if short[i]:
            batch.append(i)
            work += costs[i]
            if work >= batch_seconds - 1e-12 or len(batch) >= batch_max_ops:     # (5 x 1 us counts as 5 us)
                batches.append(tuple(batch))
                batch, work = [], 0.0
        else:
            expensive.append(i)
    if batch:
        batches.append(tuple(batch))
    return batches, expensive


def route_ready(model: CostModel, ready: list, batch_seconds: float, batch_max_ops: int) -> tuple:
    """Where newly ready nodes go: (the item the current thread runs next, or None; the items for the ready heap).
    An item is a tuple of node indices run back to back. The first batch of short ops stays; without one, the most
    critical expensive op stays; everything else goes to the heap. Sorts `ready` highest priority first."""
    if len(ready) > 1:
        ready.sort(key=model.rank.__getitem__)
    batches, expensive = split_ready(model, ready, batch_seconds, batch_max_ops)
    items = batches + [(i,) for i in expensive]
    if not items:
        return None, []
    return items[0], items[1:]


class _PlanStats:
    """What the policy keeps per plan: dependency counts to copy per run, the window's sums (`runs`: how many
    measured runs they hold), how many times the plan has run (`seen`), the model."""
    __slots__ = ('nodes', 'n_deps', 'roots', 'seconds', 'counts', 'runs', 'seen', 'model')

    def __init__(self, plan):
        self.nodes = plan.nodes
        self.n_deps = [nd.n_deps for nd in plan.nodes]
        self.roots = list(plan.roots)
        self.seconds = [0.0] * len(plan.nodes)
        self.counts = [0] * len(plan.nodes)
        self.runs = 0
        self.seen = 0
        self.model: CostModel | None = None


# --- one run ------------------------------------------------------------------------------------------------------

class _Run:
    """The state of one run; see the module docstring."""
    __slots__ = ('nodes', 'values', 'pending', 'heap', 'cond', 'remaining', 'active', 'failed', 'times', 'seq',
                 'model', 'batch_seconds', 'batch_max_ops', 'tasks', 'n_workers')

    def __init__(self, stats: _PlanStats, values: list, model, times, policy):
        self.nodes = stats.nodes
        self.values = values
        self.pending = list(stats.n_deps)
        self.heap: list = []
        self.cond = threading.Condition(threading.Lock())
        self.remaining = len(stats.nodes)
        self.active = 0
        self.failed = None
        self.times = times
        self.seq = 0
        self.model = model
        self.batch_seconds = policy.batch_seconds
        self.batch_max_ops = policy.batch_max_ops
        self.tasks = None
        self.n_workers = policy.num_threads - 1

    def dispatch(self, ready: list):
        """Queues newly ready nodes (the caller holds `cond`). Returns (the item this thread runs next or None,
        how many items went on the heap)."""
        heap = self.heap
        model = self.model
        if model is None:
            seq = self.seq
            for i in ready:
                heapq.heappush(heap, (seq, (i,)))
                seq += 1
            self.seq = seq
            return None, len(ready)
        if len(ready) == 1:             # a chain: short or not, the one ready op stays on this thread
            self.active += 1
            return (ready[0],), 0
        mine, others = route_ready(model, ready, self.batch_seconds, self.batch_max_ops)
        rank = model.rank
        for item in others:
            heapq.heappush(heap, (rank[item[0]], item))
        if mine is not None:
            self.active += 1
        return mine, len(others)


def _wake_workers(run: _Run, pushed: int, kept: bool) -> None:
    """One pool token per item others should pick up now (capped at the pool size): when this thread keeps no
    item it takes one from the heap itself."""
    wanted = min(run.n_workers, pushed - (0 if kept else 1))
    if wanted <= 0:
        return
    tasks = run.tasks
    for _ in range(wanted):
        tasks.put(run)


def _participate(run: _Run, mine, is_caller: bool) -> None:
    """Runs items of `run` on this thread: `mine` first, then whatever the heap offers, until nothing is left for
    this thread (a worker) or the run is over (the caller)."""
    cond, heap, nodes, pending = run.cond, run.heap, run.nodes, run.pending
    perf = time.perf_counter
    while True:
        if mine is None:
            with cond:
                while True:
                    if heap and run.failed is None:
                        mine = heapq.heappop(heap)[1]
                        run.active += 1
                        break
                    if not is_caller or run.remaining == 0 or (run.failed is not None and run.active == 0):
                        return
                    cond.wait()
        item, mine = mine, None
        values, times = run.values, run.times
        i = item[0]
        try:
            if times is None:
                for i in item:
                    nodes[i].step(values)
            else:
                for i in item:
                    start = perf()
                    nodes[i].step(values)
                    times[i] = perf() - start
        except BaseException as exc:  # noqa: BLE001 - every failure ends the run and is raised by its caller
            values = None
            with cond:
                run.active -= 1
                if run.failed is None:
                    run.failed = (nodes[i], exc)
                    heap.clear()
                if run.active == 0:
                    cond.notify()
            continue
        values = None
        pushed = 0
        with cond:
            run.active -= 1
            if run.failed is not None:
                if run.active == 0:
                    cond.notify()
                continue
            ready = []
            for i in item:
                for s in nodes[i].successors:
                    left = pending[s] - 1
                    pending[s] = left
                    if left == 0:
                        ready.append(s)
            run.remaining -= len(item)
            if ready:
                mine, pushed = run.dispatch(ready)
            if pushed or run.remaining == 0:
                cond.notify()
        if pushed and run.tasks is not None:
            _wake_workers(run, pushed, mine is not None)


def _worker_loop(tasks: queue.SimpleQueue) -> None:
    get = tasks.get
    while True:
        run = get()
        if run is None:
            return
        with math_threads():            # FLAGS_paddle_num_threads BLAS threads for this worker's ops (base.py)
            _participate(run, None, False)
        run = None                      # a finished run's state is not kept alive by an idle worker


# --- the policy ---------------------------------------------------------------------------------------------------

class CostModelPolicy:
    """See the module docstring."""

    def __init__(self, num_threads: int, start_step: int | None = None, stop_step: int | None = None,
                 short_op_seconds: float = 5e-6, batch_seconds: float = 5e-6, batch_max_ops: int = 100,
                 cap_malloc_arenas: bool = True):
        if num_threads < 0:
            raise ValueError('num_threads must be >= 0, got %d' % num_threads)
        if batch_max_ops < 1:
            raise ValueError('batch_max_ops must be >= 1, got %d' % batch_max_ops)
        self.num_threads = max(1, int(num_threads))
        self.short_op_seconds = float(short_op_seconds)
        self.batch_seconds = float(batch_seconds)
        self.batch_max_ops = int(batch_max_ops)
        self.start_step, self.stop_step, why = stats_window(start_step, stop_step)
        self.enabled = why is None
        self._native = None
        if not self.enabled:
            warnings.warn('USE_COST_MODEL_EXECUTOR: op statistics are not collected, so no cost model is built and '
                          'the executor stays native: %s' % why, RuntimeWarning, stacklevel=2)
            self._native = ThreadedPolicy(num_threads, cap_malloc_arenas)
        self._lock = threading.Lock()
        self._runs = 0
        self._window_left = self.stop_step - self.start_step if self.enabled else 0
        self._window_closed = False
        self._stats: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._workers = WorkerPool(_worker_loop, self.num_threads - 1, 'costmodel', cap_malloc_arenas)

    # --- the pool -------------------------------------------------------------------------------------------
    def _pool(self) -> queue.SimpleQueue:
        return self._workers.tasks()

    @property
    def threads(self) -> list:
        """The worker threads (the native policy's when the window is off; empty until first needed)."""
        if self._native is not None:
            return self._native.threads
        return list(self._workers.threads)

    def close(self) -> None:
        """Stops and joins the workers. Later runs raise."""
        self._workers.close()
        if self._native is not None:
            self._native.close()

    # --- the model ------------------------------------------------------------------------------------------
    @property
    def runs(self) -> int:
        """How many runs have started."""
        return self._runs

    def _plan_stats(self, plan) -> _PlanStats:
        stats = self._stats.get(plan)
        if stats is None or stats.nodes is not plan.nodes:
            stats = self._stats[plan] = _PlanStats(plan)
        return stats

    def _end_window_run(self, plan, stats: _PlanStats, times: list, late: bool) -> None:
        with self._lock:
            seconds, counts = stats.seconds, stats.counts
            for i, t in enumerate(times):
                if t >= 0.0:
                    seconds[i] += t
                    counts[i] += 1
            stats.runs += 1
            if late:                  # the plan's own window (see 'Phases'): it alone gets its model
                if stats.runs == self.stop_step - self.start_step and stats.model is None:
                    stats.model = self._build(plan, stats)
                return
            self._window_left -= 1
            if self._window_left == 0:
                for plan, st in list(self._stats.items()):
                    if st.runs and st.model is None:
                        st.model = self._build(plan, st)
                self._window_closed = True

    def _build(self, plan, stats: _PlanStats) -> CostModel:
        costs = [s / c if c else 0.0 for s, c in zip(stats.seconds, stats.counts)]
        return CostModel(plan, costs, self.short_op_seconds)

    def load_cost_model(self, plan, costs) -> None:
        """Uses `costs` (seconds, one per node of `plan`) as `plan`'s cost model from the next run on, as if the
        window had measured them: to reuse a model measured earlier, or to set known costs."""
        model = CostModel(plan, costs, self.short_op_seconds)
        with self._lock:
            self._plan_stats(plan).model = model

    def models(self) -> list:
        """(plan, CostModel) of every plan that has a model now."""
        with self._lock:
            return [(plan, st.model) for plan, st in list(self._stats.items()) if st.model is not None]

    def cost_model(self, plan=None) -> dict | None:
        """{(op index, op type): CostEntry(cost, priority, short)} of `plan` (default: the plan the window measured
        most), or None before the window has closed (or when that plan has no model)."""
        with self._lock:
            if plan is not None:
                stats = self._stats.get(plan)
                model = stats.model if stats is not None else None
            elif not self._window_closed:
                model = None
            else:
                measured = [st for st in self._stats.values() if st.model is not None]
                model = max(measured, key=lambda st: st.runs).model if measured else None
        return model.table() if model is not None else None

    # --- running --------------------------------------------------------------------------------------------
    def run(self, plan, values: list) -> None:
        if self._workers.closed:
            raise RuntimeError('this executor was closed: its thread pool is gone')
        if self._native is not None:
            self._native.run(plan, values)
            return
        with math_threads():            # FLAGS_paddle_num_threads BLAS threads for the caller's ops (base.py)
            self._run(plan, values)

    def _run(self, plan, values: list) -> None:
        with self._lock:
            number = self._runs
            self._runs += 1
            stats = self._plan_stats(plan)
            # a plan still without a model once the executor's window has closed is measured in the same window
            # counted over its own runs
            late = self._window_closed and stats.model is None
            if late:
                number = stats.seen
            stats.seen += 1
        in_window = self.start_step <= number < self.stop_step
        times = [-1.0] * len(plan.nodes) if in_window else None
        try:
            if plan.nodes:
                self._execute(stats, values, None if in_window else stats.model, times)
        finally:
            if in_window:
                self._end_window_run(plan, stats, times, late)

    def _execute(self, stats: _PlanStats, values: list, model, times) -> None:
        run = _Run(stats, values, model, times, self)
        if self.num_threads > 1:
            run.tasks = self._pool()
        with run.cond:
            mine, pushed = run.dispatch(list(stats.roots))
        if pushed and run.tasks is not None:
            _wake_workers(run, pushed, mine is not None)
        try:
            _participate(run, mine, True)
        except BaseException:
            # interrupted while waiting (KeyboardInterrupt): nothing new starts; items in flight finish
            with run.cond:
                if run.failed is None:
                    run.failed = (None, None)
                run.heap.clear()
            raise
        finally:
            run.values = None
        if run.failed is not None:
            node, exc = run.failed
            raise op_failure(node, exc) from exc
