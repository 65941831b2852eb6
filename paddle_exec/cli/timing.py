"""Timing training steps under a setting of the strategy knobs: what `bench` and `tune` measure with.

A `Setting` is one value for every knob a user of Paddle's data-parallel executor sets by hand:
    CPU_NUM                         places, given as `places=static.cpu_places(n)` (the environment is not touched)
    ExecutionStrategy               num_threads (0: Paddle's default, 4 per place), executor_policy,
                                    num_iteration_per_drop_scope, num_iteration_per_run
    BuildStrategy                   reduce_strategy, enable_sequential_execution, do_smart_stage, and the fusion
                                    and memory switches (fuse_elewise_add_act_ops, fuse_all_optimizer_ops,
                                    memory_optimize)
`TrainingRun` builds a model in programs and a scope of its own, compiles it with
`CompiledProgram(main).with_data_parallel(loss_name, build_strategy, exec_strategy, places)` (the public API, as a
user would) and runs training steps: each `exe.run` call fetches the loss, as a training loop does, and counts as
`num_iteration_per_run` steps. Feeds are drawn before timing (a pool of batches, cycled).

`measure` times several settings side by side: each built twice (two independent executors take turns, since an
executor's own adaptive choices can make one instance steadily faster than another), after a warm-up (numba
compiles, plans, a cost-model policy's statistics window), `repeats` rounds of `steps` steps each, the settings in
a rotated order every round, so a load change on the shared machine hits every setting alike. A `Measurement`
keeps every round's steps/s: the median is the figure, the middle half of the rounds (the quartiles) is the noise,
and two settings whose middle halves overlap are a tie (neither is shown faster).
"""
from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass, fields, replace

from .. import fluid
from .common import progress
from .models import ModelSpec

__all__ = ['Setting', 'DEFAULT', 'TrainingRun', 'Measurement', 'measure', 'POLICIES', 'profile_ops']

POLICIES = {'normal': 'USE_NORMAL_EXECUTOR', 'inline': 'USE_INLINE_EXECUTOR', 'cost_model': 'USE_COST_MODEL_EXECUTOR'}
FEED_POOL = 8
COST_MODEL_WINDOW_STOP = 200      # the cost-model policy's statistics window ends at this run by default
COST_MODEL_WARMUP_CAP = 1000      # runs the per-op profile waits for the window to close
INSTANCES = 2                     # independent builds of each setting, taking turns over the rounds


@dataclass(frozen=True)
class Setting:
    cpu_num: int = 1
    num_threads: int = 0
    policy: str = 'normal'
    drop_scope: int = 100
    per_run: int = 1
    reduce: str = 'AllReduce'
    sequential: bool = False
    smart_stage: bool = False
    fuse_elewise_add_act: bool = False
    fuse_all_optimizer: bool = False
    memory_optimize: bool | None = None

    @property
    def threads(self) -> int:
        """num_threads as the executor resolves it (0 -> 4 per place)."""
        return self.num_threads or 4 * self.cpu_num

    def exec_strategy(self) -> fluid.ExecutionStrategy:
        es = fluid.ExecutionStrategy()
        es.num_threads = self.num_threads
        es.executor_policy = fluid.ExecutorPolicy[POLICIES[self.policy]]
        es.num_iteration_per_drop_scope = self.drop_scope
        es.num_iteration_per_run = self.per_run
        return es

    def build_strategy(self) -> fluid.BuildStrategy:
        bs = fluid.BuildStrategy()
        bs.reduce_strategy = fluid.BuildStrategy.ReduceStrategy[self.reduce]
        bs.enable_sequential_execution = self.sequential
        bs.do_smart_stage = self.smart_stage
        bs.fuse_elewise_add_act_ops = self.fuse_elewise_add_act
        bs.fuse_all_optimizer_ops = self.fuse_all_optimizer
        bs.memory_optimize = self.memory_optimize
        return bs

    def changes(self, base: Setting | None = None) -> dict:
        """{field: value} where this setting differs from `base` (default: Paddle's defaults)."""
        base = base or DEFAULT
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != getattr(base, f.name)}

    def build_text(self) -> str:
        """The BuildStrategy part, short: '-' when everything is Paddle's default."""
        parts = []
        if self.reduce != 'AllReduce':
            parts.append('Reduce')
        if self.sequential:
            parts.append('sequential')
        if self.smart_stage:
            parts.append('smart_stage')
        if self.fuse_elewise_add_act:
            parts.append('fuse_elewise_add_act')
        if self.fuse_all_optimizer:
            parts.append('fuse_all_optimizer')
        if self.memory_optimize is not None:
            parts.append('memory_optimize=%s' % self.memory_optimize)
        return ','.join(parts) or '-'

    def python_lines(self) -> list:
        """The lines a user pastes to get this setting (only what differs from Paddle's defaults is set)."""
        es = ['exec_strategy = fluid.ExecutionStrategy()']
        if self.num_threads:
            es.append('exec_strategy.num_threads = %d' % self.num_threads)
        if self.policy != 'normal':
            es.append('exec_strategy.executor_policy = fluid.ExecutorPolicy.%s' % POLICIES[self.policy])
        if self.drop_scope != DEFAULT.drop_scope:
            es.append('exec_strategy.num_iteration_per_drop_scope = %d' % self.drop_scope)
        if self.per_run != 1:
            es.append('exec_strategy.num_iteration_per_run = %d   # each run() trains %d iterations; with feed= they '
                      'reuse the fed batch' % (self.per_run, self.per_run))
        bs = ['build_strategy = fluid.BuildStrategy()']
        if self.reduce != 'AllReduce':
            bs.append('build_strategy.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.%s' % self.reduce)
        for flag, name in ((self.sequential, 'enable_sequential_execution'), (self.smart_stage, 'do_smart_stage'),
                           (self.fuse_elewise_add_act, 'fuse_elewise_add_act_ops'),
                           (self.fuse_all_optimizer, 'fuse_all_optimizer_ops')):
            if flag:
                bs.append('build_strategy.%s = True' % name)
        if self.memory_optimize is not None:
            bs.append('build_strategy.memory_optimize = %s' % self.memory_optimize)
        lines = ['import os', "os.environ['CPU_NUM'] = '%d'        # before the executor is made" % self.cpu_num]
        lines += es + bs
        lines.append('compiled = fluid.CompiledProgram(main_program).with_data_parallel(')
        lines.append('    loss_name=loss.name, build_strategy=build_strategy, exec_strategy=exec_strategy)')
        return lines


DEFAULT = Setting()


class TrainingRun:
    """One model built and compiled under one Setting; `run_steps(n)` trains about n steps (whole run() calls)."""

    def __init__(self, spec: ModelSpec, setting: Setting, seed: int = 1):
        self.spec, self.setting = spec, setting
        self.main, self.startup = fluid.Program(), fluid.Program()
        self.main.random_seed = self.startup.random_seed = seed
        with fluid.program_guard(self.main, self.startup), fluid.unique_name.guard():
            self.loss, draw = spec.build(fluid)
        self.has_stage = any(op.type == 'stage' for op in self.main.global_block().ops)
        self.scope = fluid.Scope()
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.exe.run(self.startup, scope=self.scope)
        self.feeds = [draw() for _ in range(FEED_POOL)]
        self.compiled = fluid.CompiledProgram(self.main).with_data_parallel(
            loss_name=self.loss.name, build_strategy=setting.build_strategy(),
            exec_strategy=setting.exec_strategy(), places=fluid.cpu_places(setting.cpu_num))
        self._i = 0
        self.last_loss = None

    def run_steps(self, steps: int) -> int:
        """Run ceil(steps / per_run) run() calls; returns the number of training steps they made."""
        calls = max(1, -(-steps // self.setting.per_run))
        exe, compiled, feeds, fetch, scope = self.exe, self.compiled, self.feeds, [self.loss.name], self.scope
        for _ in range(calls):
            self.last_loss = exe.run(compiled, feed=feeds[self._i % len(feeds)], fetch_list=fetch, scope=scope)[0]
            self._i += 1
        return calls * self.setting.per_run

    def warm_up(self, steps: int) -> None:
        self.run_steps(steps)

    def close(self) -> None:
        self.exe.close()
        self.compiled = None        # the data-parallel runner and its thread pool go with it (stopped when collected)


@dataclass
class Measurement:
    """steps/s of every timed round of one setting. The spread that counts is the middle half of the rounds
    (`low`..`high`, the quartiles): on a shared machine a single round can be several times slower or faster than
    the rest (another process took the cores, or left), and the full range would then call everything a tie."""
    rates: list

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    def _quartiles(self) -> tuple[float, float]:
        if len(self.rates) == 1:
            return self.rates[0], self.rates[0]
        q1, _, q3 = statistics.quantiles(self.rates, n=4, method='inclusive')
        return q1, q3

    @property
    def low(self) -> float:
        return self._quartiles()[0]

    @property
    def high(self) -> float:
        return self._quartiles()[1]

    @property
    def noise(self) -> float:
        """Half the middle half's spread, relative to the median (0.03 = +-3%)."""
        return (self.high - self.low) / 2 / self.median if self.median else 0.0

    def ties(self, other: Measurement) -> bool:
        """The middle halves overlap: the rounds cannot tell which is faster."""
        return self.low <= other.high and other.low <= self.high

    def clearly_faster(self, other: Measurement) -> bool:
        return self.low > other.high


def measure(spec: ModelSpec, settings: list, steps: int, repeats: int, warmup: int | None = None,
            desc: str = 'timing', instances: int = INSTANCES) -> list:
    """A Measurement per setting (in order), timed side by side as the module docstring says. Each setting is
    built `instances` times (independent programs, scopes and executors) and round r runs instance r % instances:
    an executor makes choices of its own while it runs (the native policy probes parallel against in-order runs
    and keeps the faster mode for 200 runs), so one instance alone can be persistently faster or slower than
    another of the same setting, and that difference belongs in the noise, not in the comparison."""
    runs = []
    try:
        for setting in settings:
            runs.append([TrainingRun(spec, setting) for _ in range(instances)])
        bar = progress(total=len(runs) * (instances + repeats), desc=desc)
        for copies in runs:
            for run in copies:
                run.warm_up(warmup if warmup is not None else max(5, steps // 5))
                if run.setting.policy == 'cost_model':
                    _close_cost_model_window(run)
                _tick(bar)
        rates = [[] for _ in runs]
        for r in range(repeats):
            order = list(range(len(runs)))
            order = order[r % len(order):] + order[:r % len(order)]
            for i in order:
                run = runs[i][r % instances]
                start = time.perf_counter()
                done = run.run_steps(steps)
                rates[i].append(done / (time.perf_counter() - start))
                _tick(bar)
        _close_bar(bar)
    finally:
        for copies in runs:
            for run in copies:
                run.close()
        runs.clear()
        gc.collect()
    return [Measurement(r) for r in rates]


def _tick(bar) -> None:
    if hasattr(bar, 'update'):
        bar.update(1)


def _close_bar(bar) -> None:
    if hasattr(bar, 'close'):
        bar.close()


def _close_cost_model_window(run: TrainingRun) -> None:
    """Train past the cost-model policy's statistics window (runs 100..199 unless START_NODE_STATS_STEP /
    STOP_NODE_STATS_STEP say otherwise), so what is timed is the policy with its model, not the measuring."""
    run.run_steps(COST_MODEL_WINDOW_STOP * run.setting.per_run)


def profile_ops(spec: ModelSpec) -> dict:
    """Per-op average times of one training step, measured by the cost-model policy's statistics window on one
    place and one thread (ops run one at a time on the caller, so each time is the op alone), and the step time
    measured around the same runs. Compiled segments are off for this run: with them on, the window would time
    whole segments (one row for a dozen ops) instead of ops.
    Returns {'ops': [(index, type, seconds)], 'step_seconds': float, 'runs': int}."""
    setting = replace(DEFAULT, policy='cost_model', num_threads=1)
    strategy = setting.exec_strategy()
    strategy.compile_segments = False
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        loss, draw = spec.build(fluid)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=strategy)
    try:
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        feeds = [draw() for _ in range(FEED_POOL)]
        times = []
        for i in progress(range(COST_MODEL_WARMUP_CAP), desc='per-op window'):
            start = time.perf_counter()
            exe.run(main, feed=feeds[i % len(feeds)], fetch_list=[loss], scope=scope)
            times.append(time.perf_counter() - start)
            table = exe.cost_model()
            if table is not None:
                break
        else:
            raise RuntimeError('the cost-model statistics window did not close within %d runs (see '
                               'START_NODE_STATS_STEP / STOP_NODE_STATS_STEP)' % COST_MODEL_WARMUP_CAP)
        ops = [(index, op_type, entry.cost) for (index, op_type), entry in table.items()]
        # the window is the runs just before the model appeared: by default the second half (100..199)
        return {'ops': ops, 'step_seconds': statistics.median(times[len(times) // 2:]), 'runs': len(times)}
    finally:
        exe.close()
