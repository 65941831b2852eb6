"""The benchmark runner: groups of rows, each row one ratio measured side by side in the same run.

A machine shared with other work is noisy, so no figure is a bare speed: every row compares a *subject* with a
*baseline* (the Executor with a hand-written numpy step, a cold start with a warm one, later one policy with
another) measured in alternating blocks in one process, and reports how many times slower the subject is.
Noise that hits one block hits its neighbour too and mostly cancels in the ratio.

    GROUPS        name -> BenchGroup, filled by `@bench_group(name)`; a group is a function
                  `fn(opts: BenchOptions) -> Iterable[Row]`
    side_by_side  the measurement: warm both, size the blocks, then `rounds` rounds of one block each, the
                  order flipped every round; per-round time ratios, their median is the row's ratio
    Row           one line of the table and one object of the JSON

Adding a group (ParallelExecutor at CPU_NUM=1/2, a wide graph at num_threads 1/2, policy against policy): write
`benchmarks/bench_<topic>.py` with

    @bench_group('parallel', help='ParallelExecutor CPU_NUM=2 against CPU_NUM=1')
    def parallel_rows(opts):
        for name in opts.models:
            yield side_by_side('parallel', name, ('CPU_NUM=2', step_a), ('CPU_NUM=1', step_b), opts)

`load_groups()` imports every `bench_*` module of this package, so the group appears in `--groups` without
touching the runner (bench_policies.py and bench_stage.py are one-line imports that register the groups of
policies.py and stage.py this way; bench_parallel.py holds the ParallelExecutor rows). The built-in groups are at
the bottom of this file: `executor` (the Executor against benchmarks/numpy_steps.py on the models of
benchmarks/models.py) and `cold_start` (the fit-a-line demo with an empty numba cache against a warm one).

`BenchOptions.quick` is for smoke runs (tests/test_benchmarks.py): a group whose cost does not shrink with `steps`
and `rounds` (subprocess runs, compiles) takes a shorter path that still yields every row.
"""
from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import pkgutil
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextlib.contextmanager
def environment(name: str, value: str | None):
    """The environment variable `name` set to `value` (None: unset) inside the block, as it was after it: an executor
    reads its variables once, when it is made."""
    saved = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


# --- rows and groups ----------------------------------------------------------------------------------------

@dataclass
class Row:
    """One comparison. `ratio` is subject cost / baseline cost: 2.0 means the subject is twice as slow."""
    group: str
    name: str
    subject: str
    baseline: str
    subject_value: float | None = None      # in `unit`
    baseline_value: float | None = None
    unit: str = 'steps/s'
    ratio: float | None = None
    goal: float | None = None               # the ratio the subject should stay within
    skipped: str | None = None              # why there are no numbers
    extra: dict = field(default_factory=dict)

    @property
    def met_goal(self) -> bool | None:
        if self.goal is None or self.ratio is None:
            return None
        return self.ratio <= self.goal


@dataclass
class BenchOptions:
    models: list = field(default_factory=lambda: ['fc', 'mlp', 'deepfm'])
    steps: int | None = None      # steps per block; None sizes blocks to `block_seconds`
    rounds: int = 7               # blocks per side
    warmup: int = 5               # untimed steps per side first (numba compiles, plans are built)
    block_seconds: float = 0.25
    blas_threads: int | None = None   # recorded only: __main__ applies the cap to the whole run
    quick: bool = False           # smoke runs (tests/test_benchmarks.py): groups shorten what steps and rounds do not


@dataclass
class BenchGroup:
    name: str
    fn: Callable[[BenchOptions], Iterable[Row]]
    help: str = ''
    default: bool = True          # run when no group is named


GROUPS: dict[str, BenchGroup] = {}


def bench_group(name: str, help: str = '', default: bool = True):
    """Registers `fn(opts) -> Iterable[Row]` as the benchmark group `name`."""
    def register(fn):
        GROUPS[name] = BenchGroup(name, fn, help or (fn.__doc__ or '').strip().split('\n')[0], default)
        return fn
    return register


def load_groups() -> dict[str, BenchGroup]:
    """The built-in groups plus those of every `benchmarks/bench_*.py` module."""
    package = __name__.rpartition('.')[0] or 'benchmarks'
    for info in pkgutil.iter_modules([os.path.dirname(os.path.abspath(__file__))]):
        if info.name.startswith('bench_'):
            importlib.import_module('%s.%s' % (package, info.name))
    return GROUPS


def run_groups(names: Iterable[str], opts: BenchOptions, on_row: Callable[[Row], None] = lambda row: None) -> list:
    """Runs the named groups in order; a group that fails leaves a skipped row naming the error and the run goes
    on with the next group."""
    rows = []
    for name in names:
        try:
            for row in GROUPS[name].fn(opts):
                rows.append(row)
                on_row(row)
        except Exception as exc:  # a benchmark run reports every group it can
            row = Row(name, '(group failed)', '', '', skipped='%s: %s' % (type(exc).__name__, exc))
            rows.append(row)
            on_row(row)
    return rows


# --- measuring ----------------------------------------------------------------------------------------------

# Whether blocks start from a collected heap. A full collection costs about 1 us per live object: nothing in a
# benchmark process, seconds in a test session's heap, where the smoke tests (tests/test_benchmarks.py) turn it off.
COLLECT_BETWEEN_BLOCKS = True


def settle() -> None:
    """Collect garbage before a timed block, so garbage from the block before is not charged to this one."""
    if COLLECT_BETWEEN_BLOCKS:
        gc.collect()


def time_block(step: Callable[[], object], steps: int) -> float:
    settle()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return time.perf_counter() - start


def side_by_side(group: str, name: str, subject: tuple, baseline: tuple, opts: BenchOptions,
                 goal: float | None = None, extra: dict | None = None) -> Row:
    """Times `subject = (label, step_fn)` against `baseline = (label, step_fn)` in alternating blocks.

    Both are warmed up (untimed) and then timed for as many steps again to size the blocks: a block is long
    enough for the slower side to take about `opts.block_seconds` (unless `opts.steps` fixes it). Each round
    times one block of each side, the order flipped every round so a drift in machine speed favours neither.
    The row's ratio is the median of the per-round time ratios; the steps/s columns come from each side's
    median block."""
    (subject_label, subject_step), (baseline_label, baseline_step) = subject, baseline
    warm = max(1, opts.warmup)
    for fn in (subject_step, baseline_step):
        time_block(fn, warm)              # compiles kernels, builds plans, touches memory: never timed
    per_step = [time_block(fn, warm) / warm for fn in (subject_step, baseline_step)]
    steps = opts.steps or max(3, int(opts.block_seconds / max(max(per_step), 1e-9)))
    subject_times, baseline_times = [], []
    for r in range(opts.rounds):
        if r % 2 == 0:
            subject_times.append(time_block(subject_step, steps))
            baseline_times.append(time_block(baseline_step, steps))
        else:
            baseline_times.append(time_block(baseline_step, steps))
            subject_times.append(time_block(subject_step, steps))
    ratio = statistics.median(s / b for s, b in zip(subject_times, baseline_times))
    return Row(group, name, subject_label, baseline_label,
               subject_value=steps / statistics.median(subject_times),
               baseline_value=steps / statistics.median(baseline_times),
               ratio=ratio, goal=goal, extra={'steps_per_block': steps, 'rounds': opts.rounds, **(extra or {})})


# --- reporting ----------------------------------------------------------------------------------------------

def format_row(row: Row) -> str:
    head = '%-10s %-22s' % (row.group, row.name)
    if row.skipped:
        return '%s skipped: %s' % (head, row.skipped)
    verdict = {None: '', True: 'ok', False: 'MISSED'}[row.met_goal]
    goal = '<=%gx' % row.goal if row.goal is not None else ''
    return '%s %-16s %10.4g %-12s %10.4g %-8s %6.2fx %7s %s' % (
        head, row.subject, row.subject_value, row.baseline, row.baseline_value, row.unit, row.ratio, goal, verdict)


def table_header() -> str:
    title = '%-10s %-22s %-16s %10s %-12s %10s %-8s %7s %7s' % (
        'group', 'row', 'subject', 'value', 'baseline', 'value', 'unit', 'ratio', 'goal')
    return title + '\n' + '-' * len(title)


def machine_info() -> dict:
    import numba
    import numpy
    info = {'python': platform.python_version(), 'platform': platform.platform(), 'cpu_count': os.cpu_count(),
            'load_average': os.getloadavg()[0] if hasattr(os, 'getloadavg') else None,
            'numpy': numpy.__version__, 'numba': numba.__version__}
    try:
        import threadpoolctl
        info['blas'] = [{k: p.get(k) for k in ('internal_api', 'num_threads', 'version')}
                        for p in threadpoolctl.threadpool_info()]
    except Exception:  # a report without the BLAS details is still a report
        pass
    try:
        info['commit'] = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=ROOT, capture_output=True, text=True,
                                        timeout=10).stdout.strip() or None
    except OSError:
        info['commit'] = None
    return info


def results_json(rows: list, opts: BenchOptions) -> dict:
    return {'created': time.strftime('%Y-%m-%dT%H:%M:%S'), 'machine': machine_info(), 'options': asdict(opts),
            'rows': [dict(asdict(row), met_goal=row.met_goal) for row in rows]}


# --- built-in group: the Executor against a hand-written numpy step -----------------------------------------

# goal ratios of the core issue: per-op overhead dominates fit-a-line, real work dominates the others
EXECUTOR_GOALS = {'fc': 3.0, 'mlp': 1.5, 'deepfm': 1.5}
FEED_POOL = 4        # pre-drawn batches cycled through, the same for both sides: data generation is not timed


def report_rows(rows: Iterable[Row], opts: BenchOptions, json_path: str | None = None, check_goals: bool = False,
                describe: Callable[[Row], str] = format_row) -> int:
    """What a group module's own command line does: print the table as rows arrive, write the JSON when asked,
    and return the exit status (1 when `check_goals` and a row missed its goal)."""
    print(table_header(), flush=True)
    done = []
    for row in rows:
        done.append(row)
        print(describe(row), flush=True)
    if json_path:
        with open(json_path, 'w') as f:
            json.dump(results_json(done, opts), f, indent=2)
    return 1 if check_goals and any(row.met_goal is False for row in done) else 0


class Skip(Exception):
    """A row that cannot run yet (ops without kernels, a builder not written)."""


def build_executor_model(name: str):
    """(run(feed) -> loss, pre-drawn feeds, set_params(dict), batch) for model `name` of benchmarks/models.py,
    built and initialised on paddle_exec in a scope of its own."""
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name
    from paddle_exec.framework.registry import KERNEL_RULES

    from . import models
    builder, batch = models.MODELS[name]
    main, startup = fluid.Program(), fluid.Program()
    try:
        with fluid.program_guard(main, startup), unique_name.guard():
            loss, draw = builder(fluid, batch)
    except (AttributeError, NotImplementedError, KeyError) as exc:
        raise Skip('the model does not build yet: %s: %s' % (type(exc).__name__, exc)) from None
    used = {op.type for program in (main, startup) for op in program.global_block().ops}
    missing = sorted(used - set(KERNEL_RULES))
    if missing:
        raise Skip('ops without a kernel yet: ' + ', '.join(missing))
    scope, place = fluid.Scope(), fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup, scope=scope)
    feeds = [draw() for _ in range(FEED_POOL)]

    def set_params(params: dict) -> None:
        for pname, value in params.items():
            scope.var(pname).get_tensor().set(value.copy(), place)

    def run(feed):
        return exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]
    return run, feeds, set_params, batch


def cycling(run: Callable, feeds: list) -> Callable[[], object]:
    state = {'i': 0}

    def step():
        i = state['i']
        state['i'] = (i + 1) % len(feeds)
        return run(feeds[i])
    return step


@bench_group('executor', help='the Executor against a hand-written numpy training step (benchmarks/numpy_steps.py)')
def executor_rows(opts: BenchOptions) -> Iterable[Row]:
    from . import numpy_steps
    for name in opts.models:
        if name not in numpy_steps.MODELS:
            yield Row('executor', name, 'Executor', 'numpy step',
                      skipped='unknown model; choose from %s' % ', '.join(numpy_steps.MODELS))
            continue
        try:
            yield executor_row(name, opts)
        except Skip as why:
            yield Row('executor', name, 'Executor', 'numpy step', skipped=str(why))
        except Exception as exc:  # one broken model must not hide the others' figures
            yield Row('executor', name, 'Executor', 'numpy step', skipped='failed: %s: %s' % (type(exc).__name__, exc))


def executor_row(name: str, opts: BenchOptions) -> Row:
    from . import numpy_steps
    run, feeds, set_params, batch = build_executor_model(name)
    model_cls, _ = numpy_steps.MODELS[name]
    floor = model_cls(seed=0)
    set_params(floor.params)        # the same starting point, so the first losses must agree
    got, want = float(run(feeds[0]).reshape(-1)[0]), float(floor.step(feeds[0]))
    agree = abs(got - want) <= 1e-3 * max(1.0, abs(want))
    row = side_by_side('executor', '%s (batch %d)' % (name, batch), ('Executor', cycling(run, feeds)),
                       ('numpy step', cycling(floor.step, feeds)), opts, goal=EXECUTOR_GOALS.get(name),
                       extra={'first_loss': got, 'numpy_first_loss': want, 'same_first_loss': agree})
    if not agree:
        row.name += ' LOSS DIFFERS'
    return row


# --- built-in group: cold start of the demo -----------------------------------------------------------------

DEMO = os.path.join(ROOT, 'examples', 'fit_a_line.py')


def time_demo(cache_dir: str | None) -> float:
    """Wall time of `python examples/fit_a_line.py` in a fresh interpreter with numba's cache in `cache_dir` (None:
    numba's usual cache, next to the kernels' sources)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env['NUMBA_CACHE_DIR'] = cache_dir
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, DEMO], env=env, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError('the demo failed:\n' + proc.stdout + proc.stderr)
    return elapsed


@bench_group('cold_start', default=False,
             help='the fit-a-line demo with an empty numba cache against a warm cache (subprocesses)')
def cold_start_rows(opts: BenchOptions) -> Iterable[Row]:
    if opts.quick:
        # smoke runs: compiling every kernel is the slow part and the one thing a smoke run cannot shorten, so
        # both sides use numba's usual cache; the row checks the plumbing, its figure means nothing
        first, second = time_demo(None), time_demo(None)
        yield Row('cold_start', 'fit_a_line demo (quick)', 'usual cache', 'usual cache', subject_value=first,
                  baseline_value=second, unit='s', ratio=first / second, extra={'quick': True})
        return
    with tempfile.TemporaryDirectory(prefix='paddle_exec_numba_cache_') as cache_dir:
        cold = time_demo(cache_dir)          # compiles every kernel the demo uses and fills the cache
        warm = statistics.median(time_demo(cache_dir) for _ in range(max(1, min(opts.rounds, 3))))
    yield Row('cold_start', 'fit_a_line demo', 'empty cache', 'warm cache', subject_value=cold,
              baseline_value=warm, unit='s', ratio=cold / warm, extra={'command': 'python examples/fit_a_line.py'})
