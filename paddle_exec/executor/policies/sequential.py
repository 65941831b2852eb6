"""The sequential policy: run the plan's nodes in program order on the caller's thread.

Ready-queue rule: none needed; `plan.nodes` is a topological order. State: only the per-run `values` list, so
concurrent callers with their own `values` never interfere. This is what the plain Executor does by default
(RunConfig.policy None) and what BuildStrategy.enable_sequential_execution selects. A run's BLAS products get
FLAGS_paddle_num_threads threads (base.py, `math_threads`).
"""
from __future__ import annotations

from .base import math_threads, run_in_order

__all__ = ['SequentialPolicy', 'run_sequential']


def run_sequential(plan, values: list) -> None:
    with math_threads():
        run_in_order(plan.nodes, values)


class SequentialPolicy:
    """Program order on the caller's thread, as a policy object. Makes no thread."""

    num_threads = 1
    threads: list = []
    runs_one_node_inline = True       # recipes.py may call a one-node plan's step itself

    def __init__(self, num_threads: int = 1, **unused):
        pass

    @staticmethod
    def run(plan, values: list) -> None:
        with math_threads():
            run_in_order(plan.nodes, values)

    @staticmethod
    def close() -> None:
        pass
