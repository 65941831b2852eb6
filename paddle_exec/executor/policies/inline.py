"""The inline policy (DeepRec's USE_INLINE_EXECUTOR): a whole run on the caller's thread, for high-concurrency serving.

    policy = InlinePolicy(num_threads=4)      # num_threads is accepted for a uniform interface; no thread is made
    policy.run(plan, values)                  # from any number of threads at once, each with its own `values`
    policy.close()

Ready-queue rule: dependency counting with a FIFO ready queue, as a one-thread scheduler runs it: start from
`plan.roots`; take the oldest ready node, run it, and append each successor whose last dependency that was. On a
data-parallel plan the ready queue is kept per place and the lowest place with a ready node goes first, so the places
run one after another (as far as the collectives that join them allow) instead of interleaving op by op.

On one thread that order depends on nothing but the plan, so it is worked out once per plan (`run_order`, kept on
the plan as `inline_order`) and a run is a plain loop over it: no hand-off, no lock, no counter per op. That is what
makes the policy cheap (the per-op cost is the sequential policy's) and safe for concurrent callers.

State: none per run beyond the caller's `values` list; shared between runs only each plan's cached order, computed
from read-only plan nodes (two threads computing the same order at once both get the same answer).
Many threads may call run() at once; numba kernels release the GIL, so callers really overlap. An executor running
this policy holds the GIL switch interval at 0.5 ms while it lives (policies/switch_interval.py, taken by its
runner): with more callers than cores, CPython's 5 ms made waiting callers sit out whole intervals. Its serving
lanes (requests that are one compiled segment, lanes.py) pass the admission gate first (policies/admission.py): at
most one request per core computes at once, and the callers beyond the cores sleep on the gate, not on the GIL;
the admitted ones take the GIL in turns (policies/serving_turn.py).

Failures: the first exception stops the run and is raised with the op and its variables named
(policies/base.py op_failure).
"""
from __future__ import annotations

import heapq
from collections import deque

from .base import math_threads, run_in_order

__all__ = ['InlinePolicy', 'run_order']


def run_order(plan) -> tuple:
    """The nodes of `plan` in the order a one-thread FIFO ready queue runs them (per-place queues, lowest place
    first). Raises ValueError when some node can never become ready (a dependency cycle)."""
    nodes = plan.nodes
    pending = [nd.n_deps for nd in nodes]
    places = {nd.place for nd in nodes}
    order = []
    if len(places) <= 1:
        ready = deque(plan.roots)
        while ready:
            i = ready.popleft()
            order.append(nodes[i])
            for s in nodes[i].successors:
                pending[s] -= 1
                if pending[s] == 0:
                    ready.append(s)
    else:
        # (place, order of readiness, index): FIFO within a place, lower places first
        ready = [(nodes[i].place, k, i) for k, i in enumerate(plan.roots)]
        heapq.heapify(ready)
        seq = len(ready)
        while ready:
            _, _, i = heapq.heappop(ready)
            order.append(nodes[i])
            for s in nodes[i].successors:
                pending[s] -= 1
                if pending[s] == 0:
                    heapq.heappush(ready, (nodes[s].place, seq, s))
                    seq += 1
    if len(order) != len(nodes):
        stuck = next(nd for nd, p in zip(nodes, pending) if p > 0)
        raise ValueError('the execution plan has a dependency cycle: %s never becomes ready' % stuck.describe())
    return tuple(order)


class InlinePolicy:
    """See the module docstring."""

    # a plan of one node runs as a plain call of its step (recipes.py calls it directly: no policy layer)
    runs_one_node_inline = True

    def __init__(self, num_threads: int = 1, **unused):
        if num_threads < 0:
            raise ValueError('num_threads must be >= 0, got %d' % num_threads)
        self.num_threads = num_threads          # kept for the common interface: this policy makes no thread
        self._closed = False

    @property
    def threads(self) -> list:
        """No worker threads, ever: every run executes on its caller's thread."""
        return []

    def order(self, plan) -> tuple:
        """The cached run order of `plan` (see `run_order`). Kept on the plan itself (`inline_order`: the order
        depends on nothing else), so a run finds it with one attribute read."""
        entry = getattr(plan, 'inline_order', None)
        if entry is None or entry[0] is not plan.nodes:
            entry = (plan.nodes, run_order(plan))
            plan.inline_order = entry         # one assignment: atomic; two threads compute the same order
        return entry[1]

    def run(self, plan, values: list) -> None:
        if self._closed:
            raise RuntimeError('this executor was closed')
        entry = getattr(plan, 'inline_order', None)
        order = entry[1] if entry is not None and entry[0] is plan.nodes else self.order(plan)
        with math_threads():            # FLAGS_paddle_num_threads BLAS threads on this caller (base.py)
            run_in_order(order, values)

    def close(self) -> None:
        """Later runs raise. There are no threads to stop; runs in progress finish."""
        self._closed = True
