"""The cost model's measured costs as a chrome trace: what the cost-model executor expects a run to look like.

    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)    # es.executor_policy = USE_COST_MODEL_EXECUTOR
    ... runs past STOP_NODE_STATS_STEP ...
    paddle.profiler.export_cost_model(exe, 'cost_model.json')

For each plan with a model, the ops are laid out by the policy's own rule (policies/cost_model.py): a list schedule
on `num_threads` threads, the ready op with the highest priority (bottom level) first, each lasting its measured
average. Every event carries its op index, cost, priority and whether it counts as short (batched).
"""
from __future__ import annotations

import heapq
import json
import os

__all__ = ['export_cost_model', 'simulated_schedule']


def simulated_schedule(plan, model, num_threads: int) -> list[tuple]:
    """(node index, thread, start seconds, end seconds): an event-driven list schedule on `num_threads` threads,
    an idle thread taking the ready node of highest priority (lowest rank)."""
    nodes = plan.nodes
    pending = [nd.n_deps for nd in nodes]
    ready = [(model.rank[i], i) for i in plan.roots]
    heapq.heapify(ready)
    idle = list(range(max(1, num_threads)))
    running: list = []                       # (end, thread, node)
    now, out = 0.0, []
    while ready or running:
        while ready and idle:
            _, i = heapq.heappop(ready)
            thread = idle.pop(0)
            end = now + model.costs[i]
            heapq.heappush(running, (end, thread, i))
            out.append((i, thread, now, end))
        now, thread, i = heapq.heappop(running)
        idle.append(thread)
        idle.sort()
        for s in nodes[i].successors:
            pending[s] -= 1
            if pending[s] == 0:
                heapq.heappush(ready, (model.rank[s], s))
    return out


def export_cost_model(executor, path: str) -> str:
    """Writes the cost model of `executor` (an Executor, ParallelExecutor or a run CompiledProgram using the
    cost-model policy) as a chrome trace to `path`; raises ValueError when there is no model yet."""
    runner = getattr(executor, '_runner', None)
    if runner is None:
        compiled = getattr(executor, '_compiled_program', executor)
        runner = getattr(compiled, '_executor', None)
    policy = runner.made_policy if runner is not None else None
    if policy is None or not hasattr(policy, 'models'):
        raise ValueError('export_cost_model: the executor does not run the cost-model policy '
                         '(ExecutionStrategy.executor_policy = USE_COST_MODEL_EXECUTOR)')
    models = policy.models()
    if not models:
        raise ValueError('export_cost_model: no cost model yet: the statistics window (START_NODE_STATS_STEP to '
                         'STOP_NODE_STATS_STEP runs) has not closed')
    trace = [{'name': 'process_name', 'ph': 'M', 'pid': k, 'args': {'name': 'cost model of plan %d' % k}}
             for k in range(len(models))]
    for k, (plan, model) in enumerate(models):
        for i, thread, start, end in simulated_schedule(plan, model, policy.num_threads):
            nd = plan.nodes[i]
            trace.append({'name': nd.op.type if nd.op is not None else nd.label, 'cat': 'cost_model', 'ph': 'X',
                          'ts': start * 1e6, 'dur': (end - start) * 1e6, 'pid': k, 'tid': thread,
                          'args': {'index': nd.index, 'cost_us': model.costs[i] * 1e6,
                                   'priority_us': model.priority[i] * 1e6, 'short': model.short[i]}})
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, 'w') as f:
        json.dump({'traceEvents': trace, 'displayTimeUnit': 'ms'}, f)
    return path
