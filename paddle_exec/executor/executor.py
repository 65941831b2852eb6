"""The plain Executor: runs a Program's global block on one place.

    exe = Executor(CPUPlace())
    exe.run(startup_program)
    loss, = exe.run(main_program, feed={'x': x, 'y': y}, fetch_list=[avg_loss])

A run looks up (or builds once) the ExecutionPlan for (program, program version, feed names, fetch names), binds
the feeds and the scope's values to slots, lets the policy run the nodes, writes persistables back to the scope
and returns the fetched values. Temporaries never enter the scope, so there is nothing to drop between runs.
A CompiledProgram is handed to its own runner (data parallel, see parallel.py).

Without an `exec_strategy` the nodes run in program order on the caller's thread (policies/sequential.py), as
Paddle's plain Executor does, unless USE_INLINE_EXECUTOR / USE_COST_MODEL_EXECUTOR select a DeepRec policy. With
one, the strategy's policy runs them (strategy.make_policy; the default is the threaded policy,
policies/threaded.py, with num_threads threads, 0 meaning 4), made at the first run and stopped by close().
"""
from __future__ import annotations

import threading

from ..framework.program import Program, default_main_program
from ..framework.scope import global_scope
from . import feed as feeding
from . import stage
from .feed import bind_scope_inputs, write_scope_outputs
from .plan import build_plan
from .policies.sequential import run_sequential
from .strategy import make_policy


class _SequentialPolicy:
    """Program order on the caller's thread (policies/sequential.py), as a policy object."""

    @staticmethod
    def run(plan, values) -> None:
        run_sequential(plan, values)

    @staticmethod
    def close() -> None:
        pass


_SEQUENTIAL = _SequentialPolicy()


def _cost_model_of(policy):
    table = getattr(policy, 'cost_model', None)
    return table() if table is not None else None


class Executor:
    def __init__(self, place=None, exec_strategy=None):
        self.place = place
        self.exec_strategy = exec_strategy
        self._plans: dict = {}
        self._lock = threading.Lock()
        self._closed = False
        self._policy = None

    # --- plan cache -----------------------------------------------------------------------------------------
    def _planned(self, program: Program, feed_names: tuple, fetch_names: tuple):
        """(plan, feed binding) for these feed and fetch names, built once per program version."""
        key = (program._id, feed_names, fetch_names)
        entry = self._plans.get(key)
        if entry is None or entry[0] != program._version:
            # a fetched name the program lacks is read from the scope at run time (or reported missing there)
            block = program.global_block()
            plan = build_plan(block, feed_names, fetch_names)
            entry = (program._version, plan, feeding.FeedBinding(block, plan.feed_slots))
            with self._lock:
                self._plans[key] = entry
        return entry[1], entry[2]

    def _plan(self, program: Program, feed_names: tuple, fetch_names: tuple):
        return self._planned(program, feed_names, fetch_names)[0]

    # --- running --------------------------------------------------------------------------------------------
    def run(self, program=None, feed=None, fetch_list=None, feed_var_name='feed', fetch_var_name='fetch',
            scope=None, return_numpy=True, use_program_cache=False, return_merged=True, use_prune=False):
        if self._closed:
            raise RuntimeError('Attempted to use a closed Executor')
        if program is None:
            program = default_main_program()
        if hasattr(program, '_run_with'):          # CompiledProgram
            return program._run_with(self, feed=feed, fetch_list=fetch_list, scope=scope,
                                     return_numpy=return_numpy, return_merged=return_merged)
        if not isinstance(program, Program):
            raise TypeError('Executor.run expects a Program or CompiledProgram, got %s' % type(program).__name__)
        scope = global_scope() if scope is None else scope
        # stage/SmartStage (stage.py): a program with `staged` runs as its consumer side while background threads
        # run its producer side ahead; any other program comes back as it is
        program = stage.prepare(self, program, scope)
        feed = {} if feed is None else feed
        if isinstance(feed, (list, tuple)):
            if len(feed) != 1:
                raise ValueError('a list of feed dicts needs a data-parallel CompiledProgram; the plain Executor '
                                 'takes one dict')
            feed = feed[0]
        feed = feeding.known_feeds(program.global_block(), feed)
        names = feeding.fetch_names(fetch_list)
        plan, binding = self._planned(program, tuple(feed), tuple(names))
        values = plan.new_values()
        binding.bind(feed, values, scope)
        bind_scope_inputs(plan.scope_inputs, values, scope)
        self._run_plan(plan, values)
        write_scope_outputs(plan.scope_outputs, values, scope)
        return [feeding.as_fetch_result(values[s], return_numpy, copy)
                for s, copy in zip(plan.fetch_slots, plan.analysis.fetch_copy)]

    def _run_plan(self, plan, values) -> None:
        policy = self._policy
        if policy is None:
            with self._lock:
                if self._policy is None:
                    # None (no strategy, no USE_*_EXECUTOR switch): Paddle's sequential plain Executor
                    self._policy = make_policy(self.exec_strategy, 1) or _SEQUENTIAL
                policy = self._policy
        policy.run(plan, values)

    def cost_model(self):
        """The cost-model policy's table {(op index, op type): (cost, priority, short)}, None before its statistics
        window closes or under another policy."""
        return _cost_model_of(self._policy)

    def close(self) -> None:
        self._closed = True
        self._plans.clear()
        stage.close_stages(self)
        if self._policy is not None:
            self._policy.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
