"""The threaded policy (Paddle's native scheduler): dependency counting over the plan, ops on a thread pool.

    policy = ThreadedPolicy(num_threads=4)
    policy.run(plan, values)        # any number of times, from any number of threads at once
    policy.close()                  # or let the garbage collector do it

Threads. At most `num_threads` ops of a run execute at once: the calling thread runs ops itself and a pool of
`num_threads - 1` worker threads runs the ops it hands off. The pool is made at the first hand-off and kept until
close() or garbage collection (a weakref finalizer stops it; workers never hold a reference to the policy).
Workers block on one shared task queue (`queue.SimpleQueue`), never spin. Kernels are numba `nogil` functions or
BLAS calls, so ops on different threads really run at the same time. `num_threads <= 1`: no pool, the plan runs
in program order on the caller's thread. An ExecutionStrategy whose num_threads was left at 0 gets Paddle's 4 per
place capped at the usable cores (config.py policy_threads): ops beyond the cores only time-slice them.

The calling thread coordinates its run and alone owns the run's bookkeeping, so nothing is locked per op.

State of one run (local to `run`, so concurrent runs of one policy never interfere):
    pending     pending[i]: how many of node i's dependencies have not finished (from PlanNode.n_deps)
    ready       deque of nodes whose dependencies all finished, not yet looked at
    mine        deque of nodes the caller has decided to run itself
    handed      the tasks handed off and perhaps not yet started, oldest first
    in_flight   handed-off tasks not yet reported back
    done        this run's report queue: (node index, seconds taken or -1, exception or None)
    cancel      a one-item list read before a task starts: set after a failure so the run's unstarted tasks
                are skipped (and still reported, so every hand-off is accounted for)
    blas_limit  the BLAS threads the run holds while in_flight > 0 (0: none; see below)

A task is a one-item list holding (step, values, node index, done, cancel). Whoever pops the item first runs it:
a worker that dequeues it, or the caller stealing it back. `list.pop` is atomic, so a task runs exactly once
without a lock.

Shared between runs: the task queue, the workers, and each PlanNode's `cost`: its seconds as last measured by an
in-order run (the plan's first run, the in-order runs of each probe). A parallel run only ever lowers a cost:
there an op also waits for the GIL and shares the cores, and inflated costs would hand off ever cheaper ops.

Ready-queue rule, applied whenever the caller is free:
    1. with nothing in `mine` and several nodes ready, the caller keeps the ready node of highest critical rank
       (its cost plus the costliest path of measured costs after it; `_ModeChoice.critical_ranks`): the chain
       that decides the step's length (a backward pass's dX chain) then runs on the caller's thread and releases
       its successors with no report in between. Then look at the newly ready nodes in order: a node whose
       measured cost is at least `handoff_cost` is handed off if the caller has another node to run meanwhile
       (in `mine` or still in `ready`); every other node goes to `mine`. A lone ready node is never handed off,
       so a chain of ops runs on the caller's thread with no hand-off at all;
    2. run the first node of `mine`, release its successors, and take any reports that have arrived;
    3. nothing to run: steal back the oldest handed-off task no worker has started, or else wait for a report.
A node's cost is 0 until it has run once, so the first run of a plan is sequential and measures every node
(numba compiles there, too); later runs hand off what is worth handing off.

Intra-op splits. During a parallel run every thread that runs its nodes has a fork (kernels/intra_op.py;
`make_fork`): a kernel may queue half of its work for the pool and run the other half itself; its join takes the
half back and runs it when no worker has started it, so a fork never waits for a busy pool. A large 2-D `mul`
(its row halves) and a large table's sparse Adam (two row ranges) split this way, with the bits of the whole op.
In-order runs set no fork: there every kernel runs whole.

Sequential or parallel. Whether overlapping ops pays depends on the graph and the machine: a wide graph of
nogil kernels runs close to num_threads times faster, but a chain with a few side branches (an MLP on one place)
gains less from overlap than it loses to hand-offs, GIL hand-overs and BLAS running on fewer threads. So each
plan is probed: after its first run, `probe_runs` parallel and `probe_runs` in-order runs alternate, the mode with
the lower median time is kept for the next `hold_runs` runs, then the probe repeats (a changed load is noticed).
A plan whose compiled segments switch tiers (numpy twins to compiled code, segment_node.py) is probed again at
once: what was measured before no longer holds. A plan whose products the segment pass split for overlap
(passes/segment_split.py) runs its in-order runs on `plan.in_order_nodes`, the unsplit segments: the probe then
weighs the split step run in parallel against the step as one function. In-order runs measure node costs
too. `probe_runs = 0` turns
probing off (always parallel). Per-plan state: a
`_ModeChoice` in a WeakKeyDictionary keyed by the plan.

Memory. glibc gives every thread that calls malloc its own arena; arrays made on workers and freed on the caller
then keep several arenas half full and the process grows by megabytes before it levels off. When the first pool
starts, the process's arena count is capped at 2 (pool.py: `mallopt(M_ARENA_MAX, 2)`, glibc only) unless the user set
MALLOC_ARENA_MAX, which keeps the resident size flat over long training runs.

BLAS threads. A matrix product on a BLAS with its own threads (OpenBLAS spins them after each call) next to ops
on the pool oversubscribes the cores. While any run has handed-off nodes in flight, BLAS libraries are held to
min(FLAGS_paddle_num_threads, cores // min(num_threads, cores)) threads each (docs/architecture.md, Kernels; the
process-wide hold of kernels/blas.py, BLAS_THREADS); the run's hold ends when it has no work on the pool. The whole
run holds FLAGS_paddle_num_threads, as the sequential policy's does (base.py).

Failures. The first exception (on any thread) cancels the run: nothing new is dispatched, unstarted tasks are
skipped, the caller waits until every handed-off task has reported, then raises the exception with the op and
its variables named (policies/base.py op_failure). The pool is idle again and no worker keeps the failed run's
values.
"""
from __future__ import annotations

import queue
import time
import weakref
from collections import deque

from ...kernels import intra_op
from ...kernels.blas import BLAS_THREADS
from ..config import usable_cores
from .base import MATH_THREADS, math_threads, op_failure, run_in_order
from .pool import STOP, WorkerPool

_STOP = STOP             # the queue item that tells a worker to exit
RANK_RUNS = 16           # runs between two computations of a plan's critical ranks (_ModeChoice.critical_ranks)


def _run_payload(payload) -> None:
    """Runs one handed-off node and reports to its run's coordinator."""
    step, values, index, done, cancel = payload
    if cancel[0]:
        done.put((index, -1.0, None))
        return
    start = time.perf_counter()
    try:
        step(values)
    except BaseException as exc:  # noqa: BLE001 - every failure is reported to the run's coordinator
        done.put((index, -1.0, exc))
    else:
        done.put((index, time.perf_counter() - start, None))


def _run_half(payload) -> None:
    """Runs one half of a forked kernel (kernels/intra_op.py) and reports to the forking thread."""
    fn, done = payload
    try:
        fn()
    except BaseException as exc:  # noqa: BLE001 - the forking thread re-raises it
        done.put(exc)
    else:
        done.put(None)


def make_fork(tasks: queue.SimpleQueue):
    """The fork (kernels/intra_op.py) of the threads that run this pool's nodes: `fork(fn)` queues fn, `join()`
    takes it back and runs it here when no worker has started it, else waits for it."""
    def fork(fn):
        done: queue.SimpleQueue = queue.SimpleQueue()
        task = [(fn, done)]
        tasks.put(task)

        def join():
            try:
                task.pop()
            except IndexError:                 # a worker runs it: wait for its report
                exc = done.get()
                if exc is not None:
                    raise exc
            else:
                fn()
        return join
    return fork


def _worker_loop(tasks: queue.SimpleQueue) -> None:
    intra_op.set_fork(make_fork(tasks))      # a worker runs only parallel runs' nodes: its kernels may fork
    get = tasks.get
    while True:
        task = get()
        if task is _STOP:
            return
        try:
            payload = task.pop()
        except IndexError:       # the coordinator took it back
            continue
        finally:
            task = None
        if len(payload) == 2:
            _run_half(payload)
        else:
            _run_payload(payload)
        payload = None           # drop the run's references before blocking again, so its values can be freed


class ThreadedPolicy:
    """See the module docstring."""

    # seconds: a node measured cheaper than this always runs on the caller's thread (a hand-off costs about this)
    handoff_cost = 50e-6
    # runs of each mode in a probe, and runs between probes (see 'Sequential or parallel' in the module docstring);
    # probe_runs = 0: always parallel
    probe_runs = 4
    hold_runs = 200
    # a plan of one node always runs in order on the caller's thread (run() below), so recipes.py may call its step
    runs_one_node_inline = True

    def __init__(self, num_threads: int, cap_malloc_arenas: bool = True):
        if num_threads < 0:
            raise ValueError('num_threads must be >= 0, got %d' % num_threads)
        self.num_threads = max(1, int(num_threads))
        cores = usable_cores()
        self.blas_threads = max(1, cores // min(self.num_threads, cores))
        self._choices: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # plan -> _ModeChoice
        self._workers = WorkerPool(_worker_loop, self.num_threads - 1, 'pool', cap_malloc_arenas)

    # --- the pool -------------------------------------------------------------------------------------------
    def _pool(self) -> queue.SimpleQueue:
        return self._workers.tasks()

    @property
    def threads(self) -> list:
        """The pool's worker threads (none until the first hand-off)."""
        return list(self._workers.threads)

    def close(self) -> None:
        """Stops and joins the workers. Runs in progress finish first; later runs raise RuntimeError."""
        self._workers.close()

    def _fork(self, fn):
        """The calling thread's fork during a parallel run (kernels/intra_op.py; make_fork): the pool starts at the
        first fork, and the products of both halves keep to the BLAS threads a hand-off would hold them to."""
        limit = min(self.blas_threads, max(1, MATH_THREADS.n))
        if limit >= MATH_THREADS.n:
            return make_fork(self._pool())(fn)
        BLAS_THREADS.acquire(limit)
        try:
            join = make_fork(self._pool())(fn)
        except BaseException:
            BLAS_THREADS.release(limit)
            raise

        def join_and_release():
            try:
                join()
            finally:
                BLAS_THREADS.release(limit)
        return join_and_release

    # --- running --------------------------------------------------------------------------------------------
    def run(self, plan, values: list) -> None:
        if self._workers.closed:
            raise RuntimeError('this executor was closed: its thread pool is gone')
        with math_threads():            # the caller's products: FLAGS_paddle_num_threads BLAS threads (base.py)
            self._run(plan, values)

    def _run(self, plan, values: list) -> None:
        nodes = plan.nodes
        in_order = getattr(plan, 'in_order_nodes', None) or nodes     # a split plan's unsplit segments
        if self.num_threads <= 1 or len(nodes) < 2:
            run_in_order(in_order, values)
            return
        choice = self._choices.get(plan)
        if choice is None:
            choice = self._choices[plan] = _ModeChoice(self.probe_runs, self.hold_runs)
        changes = getattr(plan, 'tier_changes', None)       # compiled segments (segment_node.py)
        parallel = choice.next_mode(changes[0] if changes else 0)
        start = time.perf_counter()
        if parallel:
            previous = intra_op.set_fork(self._fork)        # this run's kernels may split (kernels/intra_op.py)
            try:
                self._run_parallel(nodes, choice.critical_ranks(nodes), plan.roots, values)
            finally:
                intra_op.set_fork(previous)
        else:
            _run_in_order_measuring(in_order, values)
        choice.record(parallel, time.perf_counter() - start)

    def _run_parallel(self, nodes, ranks: list, roots, values: list) -> None:
        pending = [nd.n_deps for nd in nodes]
        ready = deque(roots)
        mine: deque = deque()
        handed: deque = deque()
        done: queue.SimpleQueue = queue.SimpleQueue()
        cancel = [False]
        in_flight = 0
        failed = None                     # (node, exception) of the first failure
        handoff_cost = self.handoff_cost
        tasks = None
        perf = time.perf_counter
        push = ready.append
        blas_limit = 0                    # the BLAS threads this run holds while in_flight > 0 (0: none)
        try:
            while True:
                report = None
                if failed is None and ready:
                    if not mine and len(ready) > 1:                # rule 1: the caller keeps the critical node
                        best = max(ready, key=ranks.__getitem__)
                        ready.remove(best)
                        mine.append(best)
                    while ready:
                        i = ready.popleft()
                        nd = nodes[i]
                        if nd.cost >= handoff_cost and (mine or ready):
                            if tasks is None:
                                tasks = self._pool()
                            if not blas_limit:
                                blas_limit = min(self.blas_threads, max(1, MATH_THREADS.n))
                                BLAS_THREADS.acquire(blas_limit)
                            task = [(nd.step, values, i, done, cancel)]
                            tasks.put(task)
                            handed.append(task)
                            in_flight += 1
                        else:
                            mine.append(i)
                if failed is None and mine:                        # rule 2
                    nd = nodes[mine.popleft()]
                    start = perf()
                    try:
                        nd.step(values)
                    except Exception as exc:
                        failed = (nd, exc)
                        cancel[0] = True
                    else:
                        seconds = perf() - start
                        if seconds < nd.cost or not nd.cost:
                            nd.cost = seconds
                        for s in nd.successors:
                            pending[s] -= 1
                            if pending[s] == 0:
                                push(s)
                    if in_flight:
                        report = _poll(done)
                elif in_flight:                                    # rule 3
                    payload = _steal(handed)
                    if payload is None:
                        report = done.get()
                    else:
                        _run_payload(payload)
                        payload = None
                        report = _poll(done)
                else:
                    break
                while report is not None:
                    i, seconds, exc = report
                    in_flight -= 1
                    nd = nodes[i]
                    if seconds >= 0.0:
                        if seconds < nd.cost:
                            nd.cost = seconds
                        if failed is None:
                            for s in nd.successors:
                                pending[s] -= 1
                                if pending[s] == 0:
                                    push(s)
                    elif exc is not None and failed is None:
                        failed = (nd, exc)
                        cancel[0] = True
                    report = _poll(done) if in_flight else None
                if blas_limit and not in_flight:
                    BLAS_THREADS.release(blas_limit)
                    blas_limit = 0
        except BaseException:
            # interrupted while waiting (KeyboardInterrupt): the run's unstarted tasks are skipped by the workers
            cancel[0] = True
            raise
        finally:
            if blas_limit:
                BLAS_THREADS.release(blas_limit)
        if failed is not None:
            node, exc = failed
            raise op_failure(node, exc) from exc


def _poll(done: queue.SimpleQueue):
    try:
        return done.get_nowait()
    except queue.Empty:
        return None


def _steal(handed: deque):
    """The payload of the oldest handed-off task no worker has started, or None."""
    while handed:
        try:
            return handed.popleft().pop()
        except IndexError:
            continue
    return None


class _ModeChoice:
    """Per plan: run parallel or in order, whichever measured faster in the last probe."""

    __slots__ = ('probe', 'cycle', 'runs', 'parallel', 'times', 'epoch', 'ranks', 'ranked_at')

    def __init__(self, probe_runs: int, hold_runs: int):
        self.probe = 2 * probe_runs
        self.cycle = self.probe + hold_runs
        self.runs = -1                # run 0 (the plan's first) only measures its nodes
        self.parallel = True
        self.times: dict = {True: [], False: []}
        self.epoch = 0                # the plan's tier_changes the current choice was measured under
        self.ranks = None             # critical_ranks' last answer, and the run it was computed at
        self.ranked_at = 0

    def critical_ranks(self, nodes) -> list:
        """Per node: its measured cost plus the costliest path of measured costs after it (recomputed every
        RANK_RUNS runs, as costs are measured anew). The caller runs the ready node of highest rank itself, so
        a chain of costly nodes (the dX chain of a backward pass) runs on one thread with no hand-off."""
        if self.ranks is None or len(self.ranks) != len(nodes) or self.runs - self.ranked_at >= RANK_RUNS \
                or self.runs < self.ranked_at:
            ranks = [0.0] * len(nodes)
            for i in range(len(nodes) - 1, -1, -1):       # nodes are in a topological order
                nd = nodes[i]
                ranks[i] = nd.cost + max((ranks[s] for s in nd.successors), default=0.0)
            self.ranks, self.ranked_at = ranks, self.runs
        return self.ranks

    def _probe_index(self) -> int:
        """Where the current run is in its probe (parallel at even indices), or -1 outside a probe."""
        if self.runs < 1 or self.probe == 0:
            return -1
        k = (self.runs - 1) % self.cycle
        return k if k < self.probe else -1

    def next_mode(self, epoch: int = 0) -> bool:
        """The mode of this run; a new `epoch` (a segment of the plan now runs compiled: its costs changed)
        starts a new probe."""
        if epoch != self.epoch:
            self.epoch = epoch
            self.runs = 0
            self.times = {True: [], False: []}
        self.runs += 1
        k = self._probe_index()
        return self.parallel if k < 0 else k % 2 == 0

    def record(self, parallel: bool, seconds: float) -> None:
        k = self._probe_index()
        if k < 0:
            return
        self.times[parallel].append(seconds)
        if k == self.probe - 1:
            par, seq = sorted(self.times[True]), sorted(self.times[False])
            if par and seq:
                self.parallel = par[len(par) // 2] <= seq[len(seq) // 2]
            self.times = {True: [], False: []}


def _run_in_order_measuring(nodes, values: list) -> None:
    """Program order on the caller's thread, each node's cost measured for later parallel runs."""
    perf = time.perf_counter
    node = None
    try:
        for node in nodes:
            start = perf()
            node.step(values)
            node.cost = perf() - start
    except Exception as exc:
        raise op_failure(node, exc) from exc

