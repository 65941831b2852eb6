"""The Runner: the one run loop of every executor, over N places with one policy.

    runner = Runner(config)                               # the plain Executor: one place, scope given per run
    runner = Runner(config, scope, share_from=None)       # data parallel: owns the place scopes
    results = runner.run(program, feed, fetch_list, scope, return_numpy, return_merged)
    runner.close()

`Executor` is the one-place case; `CompiledProgram` / `ParallelExecutor` (parallel.py) hold a data-parallel
Runner. A run:
  1. the fetched names; data parallel: Paddle's up-front check that each names a program variable (or a feed);
  2. the scopes: the plain Executor runs in the scope passed to run(); a data-parallel runner in its place scopes
     (place 0 is the user's scope, places 1.. kid scopes of it, or those of `share_from`), persistables broadcast
     from place 0 (and first from trainer 0, with several trainers) at the first run (copied; shared under Reduce
     for what only run-once optimizer ops write);
  3. the feeds: one dict (names the program lacks are dropped with Paddle's warning), or, data parallel, split
     over the places (feed.split_feeds: ceil rule, per-device checks, persistable feeds, partial inference runs);
  4. the plan, from the runner's one bounded PlanCache (compile.py), keyed also by which feeds carry LoD;
  5. num_iteration_per_run times: fresh values; each place's feeds (FeedBinding) and scope inputs bound; the
     policy runs the nodes; persistables written back to each place's scope;
  6. the fetches of the last iteration (feed.fetch_results); data parallel: Paddle's drop-scope counting, which
     counts every run, failed ones too.

State across runs (owned by the runner, made once):
    policy            made at the first run from config (policies/registry.py); its threads live until close()
    plans             the PlanCache
    stages            program id -> StageRuntime (stage.py) of a staged program's current version
    runs              how many runs were counted (data parallel: the drop-scope counter, reset by dropping)
    local_exec_scopes Paddle's local execution scopes (data parallel: one kid scope per place per period, made when
                      first read; DropScopeCounter works both out from its ticks)
    place_indices     per place, the PlaceIndex the place-aware reader ops and `unstage` read from its scope

Threads. Many threads may call run() on one runner. The plain Executor's runs proceed at once: a run's state is its
own `values` list, and what runs share (the PlanCache, the policy's pool) is guarded where it changes, so each call
gets its own feeds' fetches (the inline policy's serving case). A data-parallel runner's runs take turns (one lock):
they share the place scopes, the broadcast and Paddle's drop-scope counter, so each run is whole and each call still
gets its own fetches. Concurrent first runs of a CompiledProgram make one runner (parallel.py).
"""
from __future__ import annotations

import itertools
import threading
import time
import weakref

import numpy as np

from ..framework.scope import Scope, SelectedRows
from ..ops.reader import PlaceIndex
from . import feed as feeding
from .compile import PlanCache
from .config import ExecutorPolicy, RunConfig
from .flags import load_flags
from .instrument import INSTRUMENTS, PLAIN_PHASES, instrumented, phases
from .lanes import LANE_CACHE_SIZE, make_lane
from .passes.collective import sync_persistables
from .passes.data_parallel import shared_persistables
from .passes.stage import PLACE_VAR, STAGE_VAR
from .policies.admission import serving_gate
from .policies.base import MATH_THREADS
from .policies.registry import policy_for_config
from .policies.switch_interval import SWITCH_INTERVAL
from .recipes import RecipeCache, RunRecipe, can_keep, feed_signature
from .stage import StageRuntime

__all__ = ['Runner']


def _copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, SelectedRows):
        return SelectedRows(value.rows.copy(), None if value.values is None else value.values.copy(), value.height)
    return value


def _closed_check(runner_ref):
    """A callable telling a stage runtime whether its runner is closed or gone (it must not keep it alive)."""
    def closed() -> bool:
        runner = runner_ref()
        return runner is None or runner.closed
    return closed


def _release_leases(*leases) -> None:
    for lease in leases:
        if lease is not None:
            lease.release()


def _run_counter(runner_ref):
    def runs():
        runner = runner_ref()
        return runner.runs if runner is not None else None
    return runs


class DropScopeCounter:
    """Paddle's drop-scope counting of a data-parallel runner: the local execution scopes are made at count 0 and
    dropped every `every` runs (never when `every` < 1). Its own object (not the runner's fields) so a lane
    (lanes.py) can count without holding the runner. A run counts by taking one tick of an itertools.count (`count`,
    or the lane's bound `ticks.__next__`: atomic under the GIL, no lock, so concurrent serving threads each count
    once); what Paddle lets a user see of the count is worked out from the ticks when read: `runs` (what
    need_create_local_exe_scopes reads) and `local_exec_scopes` (one list of kid scopes per period, made at its
    first read; none after a drop at the period's end). `drop` moves the count's origin, never the count."""
    __slots__ = ('scopes', 'every', 'ticks', '_origin', '_period', '_local')

    def __init__(self, scopes: list, every: int):
        self.scopes = scopes
        self.every = every
        self.ticks = itertools.count()
        self._origin = 0            # the tick at the last drop
        self._period = None         # the period `_local` was made for
        self._local: list[Scope] = []

    def _taken(self) -> int:
        """Ticks taken so far (itertools.count shows its next value only in its repr, `count(n)`)."""
        return int(repr(self.ticks)[6:-1])

    def counted(self) -> int:
        """Runs counted since the last drop."""
        return self._taken() - self._origin

    @property
    def runs(self) -> int:
        n = self.counted()
        return n if self.every < 1 else n % self.every

    @property
    def local_exec_scopes(self) -> list:
        n, every = self.counted(), self.every
        if n == 0 or every == 1 or (every > 1 and n % every == 0):
            return []                   # none made yet, or dropped at the end of the last run's period
        period = 0 if every < 1 else (n - 1) // every
        if self._period != period:
            self._local, self._period = [Scope(parent=s) for s in self.scopes], period
        return self._local

    def start(self) -> None:
        """Before a run: nothing to do (the scopes of a period are made when read)."""

    def finish(self) -> None:
        """After a run (failed ones too): counted."""
        next(self.ticks)

    count = finish                  # a whole run's counting at once (a run by recipe or lane)

    def drop(self) -> None:
        self._origin = self._taken()
        self._period = None
        self._local = []


class Runner:
    """See the module docstring."""

    def __init__(self, config: RunConfig, scope: Scope | None = None, share_from: Runner | None = None):
        load_flags()                            # FLAGS_* from the environment take effect from the first run
        self.config = config
        self.closed = False
        self.plans = PlanCache()
        self.recipes = RecipeCache()          # the lean run() (recipes.py)
        self.lanes: dict = {}                   # program id -> lane (lanes.py): the last recipe it ran by
        self.stages: dict = {}
        self.scopes: list[Scope] = []
        self.drops = DropScopeCounter(self.scopes, config.num_iteration_per_drop_scope)
        self._policy = None
        self._lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._fetch_checked: set = set()
        self._math_lease = None                 # this runner's share of the BLAS threads hold (policies/base.py)
        self._release_holds = None              # ends it, and the switch interval lease of an inline runner
        self._needs_broadcast = False
        # runs that may take a recipe (recipes.py): one place, not a dry run (the instruments are checked per run)
        self._lean = config.n_places == 1 and not config.dry_run
        if config.data_parallel:
            if share_from is not None:
                if share_from.config.n_places != config.n_places:
                    raise ValueError('share_vars_from: the shared program runs on %d places, this one on %d; both '
                                     'must use the same places' % (share_from.config.n_places, config.n_places))
                self.scopes = share_from.scopes
            else:
                self.scopes = [scope] + [scope.new_scope() for _ in range(config.n_places - 1)]
            self.drops.scopes = self.scopes
            self._needs_broadcast = share_from is None and (config.n_places > 1 or config.n_trainers > 1)
        runs = _run_counter(weakref.ref(self))
        self.place_indices = [PlaceIndex(p, runs) for p in range(config.n_places)]

    # --- the policy ---------------------------------------------------------------------------------------------
    @property
    def policy(self):
        policy = self._policy
        if policy is None:
            with self._lock:
                if self._policy is None:
                    self._policy = policy_for_config(self.config)
                policy = self._policy
        return policy

    def use_policy(self, policy) -> None:
        """Runs with `policy` (any object with run(plan, values) and close()) instead of the configured one: how
        benchmarks and tests drive one executor with a policy object of their own."""
        with self._lock:
            self._policy = policy
            self.lanes = {}                 # lanes call the policy they were made with

    # --- process holds: BLAS threads (policies/base.py, 'Math threads'), switch interval (switch_interval.py) ---
    def _hold_process_settings(self) -> None:
        """At the first run: this runner's lease on the executors' BLAS hold, and an inline-policy runner's on the
        GIL switch interval hold (policies/switch_interval.py), both ended by close() or when the runner is
        collected; at any run: the BLAS hold moved to FLAGS_paddle_num_threads if the flag changed."""
        if self._math_lease is None:
            with self._lock:
                if self._math_lease is None and not self.closed:
                    lease = MATH_THREADS.join()
                    config = self.config
                    switch = None
                    if config.policy is ExecutorPolicy.USE_INLINE_EXECUTOR and config.switch_interval is not None:
                        switch = SWITCH_INTERVAL.join(config.switch_interval)
                    self._release_holds = weakref.finalize(self, _release_leases, lease, switch)
                    self._release_holds.atexit = False       # nothing to give back to a process that is ending
                    self._math_lease = lease
        if MATH_THREADS.held != MATH_THREADS.n:
            MATH_THREADS.sync()

    def _serving_gate(self):
        """The admission gate an inline-policy runner's serving lanes pass (policies/admission.py), or None."""
        config = self.config
        if config.policy is ExecutorPolicy.USE_INLINE_EXECUTOR and config.serving_slots is not None:
            return serving_gate(config.serving_slots, config.serving_spin)
        return None

    @property
    def made_policy(self):
        """The policy if a run has made it, else None."""
        return self._policy

    # --- Paddle's drop-scope bookkeeping (data parallel) -------------------------------------------------------------
    @property
    def runs(self) -> int:
        return self.drops.runs

    @property
    def local_exec_scopes(self) -> list:
        return self.drops.local_exec_scopes

    def drop_local_exe_scopes(self) -> None:
        self.drops.drop()

    def need_create_local_exe_scopes(self) -> bool:
        return self.drops.runs == 0

    # --- running ----------------------------------------------------------------------------------------------------
    def run(self, program, feed, fetch_list, scope: Scope | None = None, return_numpy: bool = True,
            return_merged: bool = True) -> list:
        lane = self.lanes.get(program._id)
        if lane is not None and return_merged:      # a repeated run (lanes.py); None when a check fails
            results = lane(program, feed, fetch_list, scope, return_numpy)
            if results is not None:
                return results
        if self.closed:
            raise RuntimeError('Attempted to use a closed Executor')
        if self._math_lease is None or MATH_THREADS.held != MATH_THREADS.n:
            self._hold_process_settings()
        config = self.config
        names = feeding.fetch_names(fetch_list)
        if not config.data_parallel:
            return self._run_one_place(program, feed, names, scope, return_numpy)
        # by recipe: not under the instruments, nor for per-place fetches (return_merged=False: lists per place)
        sig = feed_signature(feed) if self._lean and return_merged and not INSTRUMENTS.on else None
        if sig is not None:
            recipe = self.recipes.get(program, tuple(names), sig)
            if recipe is not None:              # made after a run that passed the fetch check below
                # a data-parallel run on one place by its recipe: Paddle's drop-scope counting as below; the run
                # lock only when the run writes the scope (an inference run needs none, so serving threads run at
                # once); then the program's lane, so the next run with this feed is the lane's
                self.drops.count()
                policy = self._policy or self.policy
                if recipe.scope_outputs:
                    with self._run_lock:
                        results = recipe.run(policy, feed, self.scopes[0], return_numpy)
                else:
                    results = recipe.run(policy, feed, self.scopes[0], return_numpy)
                self._keep_lane(program, recipe, sig, names, policy, self.drops, self.scopes[0])
                return results
        self._check_fetch(program, names, feed)
        with self._run_lock:                # see 'Threads' in the module docstring
            if self._needs_broadcast:
                self._broadcast(program)
            self.drops.start()
            try:
                results = self._run(program, feed, names, self.scopes, return_numpy, return_merged)
                if sig is not None and config.num_iteration_per_run == 1:
                    self._keep_recipe(program, names, sig, feed)
                return results
            finally:
                self.drops.finish()

    def _run(self, program, feed, names: list, scopes: list, return_numpy: bool, return_merged: bool) -> list:
        """A data-parallel run (steps 3 to 6 of the module docstring)."""
        config = self.config
        is_inference = self.plans.physical(program, config).is_inference
        block = program.global_block()
        place_feeds, n_run, place_lods = feeding.split_feeds(block, feed, config.n_places, is_inference, scopes)
        if config.dry_run:
            return [None] * len(names)
        feed_lod = tuple((name, len(lod)) for name, lod in place_lods[0].items()) if place_lods else ()
        plan = self.plans.plan(program, tuple(place_feeds[0]) if place_feeds else (), tuple(names), n_run, config,
                               feed_lod)
        return self._execute(program, plan, place_feeds, n_run, scopes, names, return_numpy, return_merged,
                             place_lods)

    def _execute(self, program, plan, place_feeds: list, n_run: int, scopes: list, names: list, return_numpy: bool,
                 return_merged: bool, place_lods: list | None = None) -> list:
        """Steps 5 and 6 of a run: bind (feeds, scope values, LoDs), let the policy run the nodes, write back, fetch;
        with the instruments that are on (instrument.py: the profiler's events, FLAGS_check_nan_inf)."""
        config = self.config
        if plan.binds_runtimes:
            self._bind_runtimes(program, plan, scopes)
        ph, recorder = PLAIN_PHASES, None
        if INSTRUMENTS.on:
            plan, ph, recorder = instrumented(plan), phases(), INSTRUMENTS.recorder
        start = time.perf_counter_ns()
        policy = self.policy
        places, bindings = plan.places, plan.feed_bindings
        values = None
        for _ in range(config.num_iteration_per_run):
            values = plan.new_values()
            for p in range(n_run):
                place = places[p]
                if bindings:
                    ph.bind_feed(bindings[p], place_feeds[p], values, scopes[p])
                else:
                    ph.assign_feed(place.feed_slots, place_feeds[p], values)
                ph.bind_scope_inputs(place.scope_inputs, values, scopes[p])
                if place.lod is not None:
                    feeding.bind_lods(place.lod, place_lods[p] if place_lods else None, values, scopes[p])
            policy.run(plan, values)
            for p in range(n_run):
                ph.write_scope_outputs(places[p].scope_outputs, values, scopes[p])
                if places[p].lod is not None:
                    feeding.write_scope_lods(places[p].lod.scope_outputs, values, scopes[p])
        results = feeding.fetch_results(plan, values, names, n_run, return_numpy, return_merged,
                                        config.data_parallel, ph.as_fetch_result)
        if recorder is not None:
            recorder.add('run', 'run', start, time.perf_counter_ns(), args={'places': n_run})
        return results

    def _keep_recipe(self, program, names: list, sig: tuple, feed: dict) -> None:
        """After a checked run: the recipe for later runs with the same feed signature (recipes.py)."""
        plan = self.plans.plan(program, tuple(feed), tuple(names), 1, self.config)
        if can_keep(plan, program.global_block(), feed):
            self.recipes.put(program, tuple(names), sig, RunRecipe(plan, tuple(feed)))

    def _keep_lane(self, program, recipe: RunRecipe, sig: tuple, names: list, policy, drops, scope) -> None:
        """After a run by recipe: the program's lane (lanes.py) for the next runs like it, when the recipe keeps
        the scope's holders (a run whose variables are a parent scope's takes the recipe's path every time)."""
        if recipe.bound is None or self.closed:
            return
        lane = recipe.lane
        bound, made_for = recipe.lane_key
        if lane is None or bound is not recipe.bound or made_for is not policy:
            # made once per binding: runs alternating between feed signatures (batch sizes) switch lanes, not make
            lane = make_lane(recipe, program._version, sig, names, policy, drops, self._run_lock, scope,
                             self._serving_gate())
            recipe.lane, recipe.lane_key = lane, (recipe.bound, policy)
        lanes = self.lanes
        if len(lanes) >= LANE_CACHE_SIZE:
            lanes = self.lanes = {}
        lanes[program._id] = lane

    def _run_one_place(self, program, feed, names: list, scope: Scope, return_numpy: bool) -> list:
        """The plain Executor's run: the same steps on one place, without the per-place loops (its per-call cost
        is what serving small models pays). A feed signature seen before runs by its recipe (recipes.py)."""
        sig = None if INSTRUMENTS.on else feed_signature(feed)     # the instruments need the full path
        if sig is not None:
            recipe = self.recipes.get(program, tuple(names), sig)
            if recipe is not None:
                policy = self._policy or self.policy
                results = recipe.run(policy, feed, scope, return_numpy)
                self._keep_lane(program, recipe, sig, names, policy, None, None)
                return results
        if type(feed) is not dict:
            if isinstance(feed, (list, tuple)):
                if len(feed) != 1:
                    raise ValueError('a list of feed dicts needs a data-parallel CompiledProgram; the plain Executor '
                                     'takes one dict')
                feed = feed[0]
            elif feed is None:
                feed = {}
        block = program.global_block()
        feed = feeding.known_feeds(block, feed)
        plan = self.plans.plan(program, tuple(feed), tuple(names), 1, self.config,
                               feeding.feed_lod_levels(block, feed))
        if plan.binds_runtimes or INSTRUMENTS.on:
            return self._execute(program, plan, [feed], 1, [scope], names, return_numpy, True)
        place = plan.places[0]
        values = plan.new_values()
        plan.feed_bindings[0].bind(feed, values, scope)
        feeding.bind_scope_inputs(place.scope_inputs, values, scope)
        if place.lod is not None:
            feeding.bind_lods(place.lod, None, values, scope)
        self.policy.run(plan, values)
        feeding.write_scope_outputs(place.scope_outputs, values, scope)
        if place.lod is not None:
            feeding.write_scope_lods(place.lod.scope_outputs, values, scope)
            return feeding.fetch_results(plan, values, names, 1, return_numpy, True, False)
        results = [feeding.as_fetch_result(values[s], return_numpy, copy)
                   for s, copy in zip(place.fetch_slots, plan.analysis.fetch_copy)]
        if sig is not None and can_keep(plan, program.global_block(), feed):
            self.recipes.put(program, tuple(names), sig, RunRecipe(plan, tuple(feed)))
        return results

    # --- what a run binds besides feeds and persistables --------------------------------------------------------
    def _bind_runtimes(self, program, plan, scopes: list) -> None:
        """The stage runtime of a staged program (a weak reference, under STAGE_VAR) and, on several places, each
        place's PlaceIndex (under PLACE_VAR), in every place's scope."""
        if plan.stage is not None:
            runtime = self._stage_runtime(program, plan.stage)
            runtime.scope = scopes[0]
            ref = weakref.ref(runtime)
            for s in scopes:
                s.var(STAGE_VAR).set_value(ref)
        if len(scopes) > 1:
            for s, index in zip(scopes, self.place_indices):
                s.var(PLACE_VAR).set_value(index)

    def _stage_runtime(self, program, spec) -> StageRuntime:
        with self._lock:
            entry = self.stages.get(program._id)
            if entry is not None and entry.spec is not spec:        # the program changed since
                entry.close()
                entry = None
            if entry is None:
                entry = self.stages[program._id] = StageRuntime(spec, _closed_check(weakref.ref(self)))
                weakref.finalize(self, entry.close)
        return entry

    def _broadcast(self, program) -> None:
        """Persistables from the user's scope to the other places, and from trainer 0 to the other trainers
        (Paddle's BCastParamsToDevices)."""
        config = self.config
        shared = shared_persistables(program, config.n_places, config.loss_name, config.reduce_mode,
                                     config.gradient_scale)
        names = sorted({v.name for v in program.list_vars() if v.persistable})
        main = self.scopes[0]
        if config.n_trainers > 1:           # trainer 0's values first (across the processes)
            sync_persistables(names, main)
        for name in names:
            sv = main.find_var(name)
            if sv is None or sv.tensor.value is None:
                continue
            value = sv.tensor.value
            for scope in self.scopes[1:]:
                scope.var(name).set_value(value if name in shared else _copy(value))
        self._needs_broadcast = False

    def _check_fetch(self, program, names: list, feed) -> None:
        key = (program._id, tuple(names), program._version)
        if key in self._fetch_checked:
            return
        block = program.global_block()
        if all(block._find_var_recursive(name) is not None for name in names):
            self._fetch_checked.add(key)       # program variables only: the answer cannot change with the feed
            return
        fed = set()
        if isinstance(feed, dict):
            fed = set(feed)
        elif isinstance(feed, (list, tuple)):
            fed = {k for each in feed if isinstance(each, dict) for k in each}
        for name in names:
            if block._find_var_recursive(name) is None and name not in fed:
                raise RuntimeError(
                    'Cannot find fetched variable(%s) in current computation graph. Possible reasons are:\n'
                    '  1. The variable to be fetched is not defined in main program.\n'
                    '  2. The variable to be fetched is not an input or output of any operator.\n'
                    "  3. Confirm that you have used the fetch `Variable` format instead of the string literal('%s') "
                    'in `fetch_list` parameter when using `executor.run` method. In other words, the format of '
                    '`executor.run(fetch_list=[fetch_var])`(fetch_var is a Variable) is recommended.' % (name, name))

    # --- closing ------------------------------------------------------------------------------------------------
    def close(self) -> None:
        """Stops the policy's threads and the stage producers; later runs raise."""
        self.closed = True
        self.lanes = {}
        self.plans.clear()
        self.recipes.clear()
        if self._release_holds is not None:
            self._release_holds()           # this runner's leases on the process holds (once; also when collected)
        with self._lock:
            stages, self.stages = list(self.stages.values()), {}
        for runtime in stages:
            runtime.close()
        if self._policy is not None:
            self._policy.close()
