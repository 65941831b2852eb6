"""The plain Executor: runs a Program's global block on one place.

    exe = Executor(CPUPlace())
    exe.run(startup_program)
    loss, = exe.run(main_program, feed={'x': x, 'y': y}, fetch_list=[avg_loss])

It is the one-place case of the Runner (runner.py): at the first run it reads the environment and its
`exec_strategy` into a RunConfig (config.py) and makes its Runner, which compiles each (program version, fed names,
fetched names) once into an ExecutionPlan and runs it with the configured policy. Temporaries live in the run's
slots and never enter the scope. A CompiledProgram is handed to its own data-parallel runner (parallel.py).

Without an `exec_strategy` the nodes run in program order on the caller's thread, as Paddle's plain Executor does,
unless USE_INLINE_EXECUTOR / USE_COST_MODEL_EXECUTOR select a DeepRec policy. With one, the strategy's policy runs
them (the default is the threaded policy, with num_threads threads, 0 meaning 4), made at the first run and stopped
by close().
"""
from __future__ import annotations

import threading

from ..framework.program import Program, default_main_program
from ..framework.scope import global_scope
from .config import RunConfig
from .runner import Runner
from .strategy import resolve_num_threads

__all__ = ['Executor']


class Executor:
    def __init__(self, place=None, exec_strategy=None):
        self.place = place
        self.exec_strategy = exec_strategy
        self._runner: Runner | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def runner(self) -> Runner:
        """The Runner (made at the first run, from the strategy and the environment of that moment)."""
        runner = self._runner
        if runner is None:
            with self._lock:
                if self._runner is None:
                    if self.exec_strategy is not None:
                        resolve_num_threads(self.exec_strategy, 1)
                    self._runner = Runner(RunConfig.for_executor(self.exec_strategy))
                runner = self._runner
        return runner

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name='feed', fetch_var_name='fetch',
            scope=None, return_numpy=True, use_program_cache=False, return_merged=True, use_prune=False):
        if self._closed:
            raise RuntimeError('Attempted to use a closed Executor')
        if program is None:
            program = default_main_program()
        if getattr(program, '_graph', None) is not None:   # a program a distributed optimizer compiled (Paddle 2.x)
            program = program._graph
        if hasattr(program, '_run_with'):          # CompiledProgram
            return program._run_with(self, feed=feed, fetch_list=fetch_list, scope=scope,
                                     return_numpy=return_numpy, return_merged=return_merged)
        if not isinstance(program, Program):
            raise TypeError('Executor.run expects a Program or CompiledProgram, got %s' % type(program).__name__)
        runner = self._runner or self.runner
        return runner.run(program, feed, fetch_list, global_scope() if scope is None else scope, return_numpy)

    def cost_model(self):
        """The cost-model policy's table {(op index, op type): (cost, priority, short)}, None before its statistics
        window closes or under another policy."""
        return cost_model_of(self._runner)

    def close(self) -> None:
        self._closed = True
        if self._runner is not None:
            self._runner.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def cost_model_of(runner: Runner | None):
    """The cost model table of a runner's policy, or None (no runner yet, another policy, window still open)."""
    policy = runner.made_policy if runner is not None else None
    table = getattr(policy, 'cost_model', None)
    return table() if table is not None else None
