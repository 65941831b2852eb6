"""Configuration: the one place that reads the environment, and the frozen RunConfig every run is driven by.

    env = read_environment()                                    # a snapshot of the variables paddle_exec reads
    config = RunConfig.for_executor(exec_strategy, env)         # the plain Executor (one place)
    config = RunConfig.for_data_parallel(exec_strategy, build_strategy, n_places, loss_name, env)

Nothing else in the package looks at `os.environ`, and nothing writes it. The variables, each with its default:

    CPU_NUM                    number of CPU places for data parallelism; unset: 1 place and Paddle's warning on
                               stderr (once per process)
    USE_INLINE_EXECUTOR        true/1 selects DeepRec's inline executor when the strategy leaves the default policy
    USE_COST_MODEL_EXECUTOR    true/1 selects the cost-model executor (likewise); both true is an error
    START_NODE_STATS_STEP      first run measured by the cost model (100)
    STOP_NODE_STATS_STEP       first run no longer measured (200)
    PADDLE_EXEC_KERNEL_GIL     release (default) or hold: how numba kernels treat the GIL, fixed when paddle_exec is
                               imported (kernels/jit.py)
    PADDLE_EXEC_COMPILE        compiled segments (passes/segments.py): 1 / tiered (default: the numpy tier runs
                               while a segment compiles in the background), sync (compile at the first run and
                               wait), 0 / off (every op its own node), reference (segments run their numpy tier
                               only, nothing is compiled); off and reference are for debugging; a strategy's
                               `compile_segments` wins over it
    PADDLE_EXEC_CACHE_DIR      where generated segment code lives (default $XDG_CACHE_HOME/paddle_exec, else
                               ~/.cache/paddle_exec); numba caches its machine code next to it (or in
                               NUMBA_CACHE_DIR, which numba reads itself)
    MALLOC_ARENA_MAX           when set, the policies leave glibc's arena count alone (policies/pool.py)
    PADDLE_EXEC_SWITCH_INTERVAL
                               the GIL switch interval (seconds) inline-policy executors hold while they live, when
                               the program has Python's default (default 0.0005; `off`: none; policies/
                               switch_interval.py)
    PADDLE_EXEC_SERVING_SLOTS  how many inline requests that are one compiled segment compute at once, the other
                               callers waiting their turn (default: the usable cores; `off`: no limit;
                               policies/admission.py)
    PADDLE_EXEC_SERVING_SPIN   microseconds an admitted serving thread spins, without the GIL, waiting for another's
                               Python part to end before it takes the GIL the usual way (default 10; `off`: no
                               serving turns; policies/serving_turn.py)
    PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT
                               this process's place in a job of several trainers (Paddle's launcher sets them,
                               paddle_exec.distributed.launch too); read by `trainer_environment`
    PMI_RANK, PMI_SIZE, OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
                               what `mpiexec` tells its processes (MPICH's hydra, Open MPI): a plain
                               `mpiexec -n N python train.py` is a job of N trainers without the PADDLE_* variables
    FLAGS_fuse_parameter_memory_size
                               megabytes per fused gradient all-reduce across trainers (default 32, Paddle's
                               DistributedStrategy.fuse_grad_size_in_MB)
    FLAGS_*, PADDLE_EXEC_*     kept in the snapshot for the modules that read flags
    PADDLE_TRAINER_ID          this trainer's rank among PADDLE_TRAINERS_NUM (0 and 1 when unset): what
    PADDLE_TRAINERS_NUM        paddle.io.DistributedBatchSampler shards by (trainer_rank_and_count)

A RunConfig is everything a run needs to know that does not change from one run to the next: how many places,
which policy with how many threads, iterations per run, drop-scope period, dry run, the cost model's window and
knobs, the compile options (loss name, reduce mode, gradient scale, SmartStage, graphviz path) and how segments
are compiled (CompileOptions: the mode, fusion and memory reuse from BuildStrategy, the cache folder). It is built
once per executor from the user's ExecutionStrategy / BuildStrategy (duck-typed: this module imports neither) and
the environment; each default lives here, once.
"""
from __future__ import annotations

import enum
import functools
import os
import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ..kernels import jit

__all__ = ['Environment', 'read_environment', 'TrainerEnvironment', 'trainer_environment', 'child_environment',
           'trainer_rank_and_count',
           'ExecutorPolicy', 'as_policy', 'policy_from_env', 'stats_window',
           'cpu_place_count', 'usable_cores', 'policy_threads', 'RunConfig', 'CostModelOptions', 'CompileOptions',
           'compile_mode', 'cache_folder',
           'DEFAULT_START_NODE_STATS_STEP', 'DEFAULT_STOP_NODE_STATS_STEP', 'POLICY_ENV_VARS', 'COMPILE_MODES']

DEFAULT_START_NODE_STATS_STEP = 100
DEFAULT_STOP_NODE_STATS_STEP = 200
DEFAULT_DROP_SCOPE_PERIOD = 100
THREADS_PER_PLACE = 4              # num_threads = 0 means 4 * places on CPU (Paddle's rule)

_TRAINER_VARS = ('PADDLE_TRAINER_ID', 'PADDLE_TRAINERS_NUM', 'PADDLE_TRAINER_ENDPOINTS', 'PADDLE_CURRENT_ENDPOINT',
                 'PADDLE_RANK_IN_NODE', 'PMI_RANK', 'PMI_SIZE', 'OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE')
_READ = ('CPU_NUM', 'USE_INLINE_EXECUTOR', 'USE_COST_MODEL_EXECUTOR', 'START_NODE_STATS_STEP', 'STOP_NODE_STATS_STEP',
         'MALLOC_ARENA_MAX', jit.GIL_ENV_VAR, 'XDG_CACHE_HOME', 'HOME') + _TRAINER_VARS
DEFAULT_FUSE_GRAD_SIZE_MB = 32.0   # Paddle's DistributedStrategy.fuse_grad_size_in_MB
COMPILE_ENV_VAR = 'PADDLE_EXEC_COMPILE'
SWITCH_INTERVAL_ENV_VAR = 'PADDLE_EXEC_SWITCH_INTERVAL'
SERVING_INTERVAL = 0.0005       # the GIL switch interval inline executors hold (policies/switch_interval.py)
SERVING_SLOTS_ENV_VAR = 'PADDLE_EXEC_SERVING_SLOTS'
SERVING_SPIN_ENV_VAR = 'PADDLE_EXEC_SERVING_SPIN'
SERVING_SPIN_US = 10.0          # the serving turns' budget (policies/serving_turn.py)
CACHE_DIR_ENV_VAR = 'PADDLE_EXEC_CACHE_DIR'
COMPILE_MODES = ('off', 'reference', 'tiered', 'sync')
_PREFIXES = ('FLAGS_', 'PADDLE_EXEC_')


# --- the environment --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Environment:
    """The variables paddle_exec reads, as they were when `read_environment` ran. Parsed on use, so a malformed
    value is an error only where it matters, naming the variable."""
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, name: str, default: str | None = None) -> str | None:
        return self.values.get(name, default)

    def flag(self, name: str) -> bool:
        raw = self.values.get(name)
        if raw is None:
            return False
        text = raw.strip().lower()
        if text in ('true', '1'):
            return True
        if text in ('false', '0', ''):
            return False
        raise ValueError('Failed to parse the environment variable %s=%r into a bool: use true or false' % (name, raw))

    def integer(self, name: str, default: int, what: str) -> int:
        raw = self.values.get(name)
        if raw is None or raw.strip() == '':
            return default
        try:
            return int(raw)
        except ValueError:
            raise ValueError('%s must be an integer (%s), got %r' % (name, what, raw)) from None

    def with_values(self, **values: str) -> Environment:
        """A copy with some variables set (for tests and tools that configure without touching os.environ)."""
        return Environment(MappingProxyType({**self.values, **values}))


def read_environment() -> Environment:
    """A snapshot of the environment variables paddle_exec reads (see the module docstring)."""
    return Environment(MappingProxyType({k: v for k, v in os.environ.items()
                                         if k in _READ or k.startswith(_PREFIXES)}))


def child_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's whole environment with `extra` set: what a launcher hands the processes it starts."""
    return {**os.environ, **extra}


# --- the trainers of a job --------------------------------------------------------------------------------------------

DEFAULT_ENDPOINT_PORT = 6170       # Paddle's launcher: trainer k of a node listens on started_port + k


@dataclass(frozen=True)
class TrainerEnvironment:
    """This process's place in a job of several trainers, as the environment states it.

    trainer_id, trainers_num, endpoints, current_endpoint  Paddle's PADDLE_* variables (PaddleCloudRoleMaker's
        rules: the endpoints default to one trainer at 127.0.0.1:6170, the number of trainers to the number of
        endpoints); under a plain `mpiexec` without them, the MPI rank and size, and one endpoint per trainer
    mpi_rank, mpi_size   what mpiexec told the process (None when it was not started by mpiexec)
    """
    trainer_id: int = 0
    trainers_num: int = 1
    endpoints: tuple = ('127.0.0.1:%d' % DEFAULT_ENDPOINT_PORT,)
    current_endpoint: str = '127.0.0.1:%d' % DEFAULT_ENDPOINT_PORT
    mpi_rank: int | None = None
    mpi_size: int | None = None

    @property
    def distributed(self) -> bool:
        """Several trainers: collectives must reach the other processes."""
        return self.trainers_num > 1 or (self.mpi_size or 1) > 1


def trainer_environment(env: Environment | None = None) -> TrainerEnvironment:
    """This process's TrainerEnvironment (see there); malformed numbers are errors naming the variable."""
    env = read_environment() if env is None else env
    mpi_rank = mpi_size = None
    for rank_var, size_var in (('PMI_RANK', 'PMI_SIZE'), ('OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE')):
        if env.get(size_var) is not None:
            mpi_size = env.integer(size_var, 1, 'the number of MPI processes')
            mpi_rank = env.integer(rank_var, 0, 'the MPI rank of this process')
            break
    raw_endpoints = (env.get('PADDLE_TRAINER_ENDPOINTS') or '').strip()
    if env.get('PADDLE_TRAINER_ID') is None and not raw_endpoints and mpi_size is not None:
        endpoints = tuple('127.0.0.1:%d' % (DEFAULT_ENDPOINT_PORT + r) for r in range(mpi_size))
        return TrainerEnvironment(mpi_rank, mpi_size, endpoints, endpoints[mpi_rank], mpi_rank, mpi_size)
    endpoints = tuple(e.strip() for e in raw_endpoints.split(',') if e.strip()) or TrainerEnvironment.endpoints
    trainer_id = env.integer('PADDLE_TRAINER_ID', 0, 'the index of this trainer')
    trainers_num = env.integer('PADDLE_TRAINERS_NUM', len(endpoints), 'the number of trainers')
    if trainers_num < 1 or not 0 <= trainer_id < trainers_num:
        raise ValueError('PADDLE_TRAINER_ID (%d) must be in [0, PADDLE_TRAINERS_NUM = %d)' % (trainer_id, trainers_num))
    current = env.get('PADDLE_CURRENT_ENDPOINT') or (endpoints[trainer_id] if trainer_id < len(endpoints)
                                                     else endpoints[0])
    return TrainerEnvironment(trainer_id, trainers_num, endpoints, current, mpi_rank, mpi_size)


def trainer_rank_and_count(env: Environment | None = None) -> tuple[int, int]:
    """(rank, number of trainers) as Paddle's ParallelEnv reads them (trainer_environment's trainer_id and
    trainers_num): what DistributedBatchSampler splits a dataset by."""
    trainers = trainer_environment(env)
    return trainers.trainer_id, trainers.trainers_num


def _configure_kernels() -> None:
    """The kernels' GIL mode is process-wide and fixed before the first kernel module is imported (kernels/jit.py):
    executor/__init__.py imports this module first, and paddle_exec/__init__.py imports the executor before ops."""
    raw = (read_environment().get(jit.GIL_ENV_VAR) or 'release').strip().lower()
    if raw not in ('release', 'hold', ''):
        raise ValueError("%s must be 'release' (kernels release the GIL, the default) or 'hold' (kernels keep it: "
                         "many threads serving small requests), got %r" % (jit.GIL_ENV_VAR, raw))
    jit.configure(release_gil=raw != 'hold')


_configure_kernels()


# --- places ----------------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _warn_cpu_num_unset(cores: int) -> None:
    """Paddle's warning for an unset CPU_NUM, printed once per process (the cache is the 'once')."""
    sys.stderr.write(
        "!!! The CPU_NUM is not specified, you should set CPU_NUM in the environment variable list.\n"
        "CPU_NUM indicates that how many CPUPlace are used in the current task.\n"
        "And if this parameter are set as N (equal to the number of physical CPU core) the program may be "
        "faster.\n\nexport CPU_NUM=%d # for example, set CPU_NUM as number of physical CPU core which is %d."
        "\n\n!!! The default number of CPU_NUM=1.\n" % (cores, cores))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def policy_threads(exec_strategy, rule: int) -> int:
    """The threads a policy runs (ops at once). A num_threads the user set is taken as it is. Left at 0, Paddle's
    rule (`rule`: 4 per place) is what the strategy object reads after the first run (strategy.py
    resolve_num_threads), and the policy runs that many capped at the usable cores: more ops at once than cores only
    time-slice the same cores, and their BLAS products and intra-op halves slow each other (DeepFM on one place of
    this 2-core machine: 16.0 ms a step with 4 threads, 13.6 ms with 2; docs/policies.md)."""
    n = 0 if exec_strategy is None else exec_strategy.num_threads
    if n and n != getattr(exec_strategy, '_num_threads_rule', 0):
        return n
    return min(n or rule, usable_cores())


def cpu_place_count(env: Environment | None = None) -> int:
    """How many CPU places: CPU_NUM as Paddle reads it. Unset: 1, with Paddle's warning (once) when the machine has
    more than one core. A value that is not a positive integer is a clear error."""
    env = read_environment() if env is None else env
    raw = env.get('CPU_NUM')
    if raw is None:
        cores = os.cpu_count() or 1
        if cores > 1:
            _warn_cpu_num_unset(cores)
        return 1
    try:
        n = int(raw)
    except ValueError:
        n = 0
    if n <= 0:
        raise ValueError("CPU_NUM must be a positive integer (the number of CPU places), got %r" % raw)
    return n


# --- policies --------------------------------------------------------------------------------------------------------

class ExecutorPolicy(enum.IntEnum):
    """DeepRec's ConfigProto.executor_policy values."""
    USE_NORMAL_EXECUTOR = 0
    USE_INLINE_EXECUTOR = 1
    USE_COST_MODEL_EXECUTOR = 2


# environment variable -> the mode it selects
POLICY_ENV_VARS = {'USE_INLINE_EXECUTOR': ExecutorPolicy.USE_INLINE_EXECUTOR,
                   'USE_COST_MODEL_EXECUTOR': ExecutorPolicy.USE_COST_MODEL_EXECUTOR}


def as_policy(value) -> ExecutorPolicy:
    """An ExecutorPolicy from a member, its name ('USE_INLINE_EXECUTOR') or its number."""
    if isinstance(value, ExecutorPolicy):
        return value
    name = getattr(value, 'name', value)
    if isinstance(name, str) and name in ExecutorPolicy.__members__:
        return ExecutorPolicy[name]
    if isinstance(value, int) and not isinstance(value, bool) and value in ExecutorPolicy._value2member_map_:
        return ExecutorPolicy(value)
    raise ValueError('executor_policy must be one of %s, but received %r'
                     % (', '.join(ExecutorPolicy.__members__), value))


def policy_from_env(strategy_value=None, env: Environment | None = None) -> ExecutorPolicy:
    """The policy to run: `strategy_value` (an ExecutorPolicy, its name or number; None for no strategy) unless it
    is the default USE_NORMAL_EXECUTOR, in which case USE_INLINE_EXECUTOR / USE_COST_MODEL_EXECUTOR decide. So a
    strategy that names a DeepRec mode wins over the environment."""
    chosen = ExecutorPolicy.USE_NORMAL_EXECUTOR if strategy_value is None else as_policy(strategy_value)
    if chosen is not ExecutorPolicy.USE_NORMAL_EXECUTOR:
        return chosen
    env = read_environment() if env is None else env
    selected = [name for name in POLICY_ENV_VARS if env.flag(name)]
    if len(selected) > 1:
        raise ValueError('The environment variables %s are all true, but they select different executor policies; '
                         'set only one of them (or set ExecutionStrategy.executor_policy)' % ' and '.join(selected))
    return POLICY_ENV_VARS[selected[0]] if selected else chosen


def stats_window(start: int | None = None, stop: int | None = None,
                 env: Environment | None = None) -> tuple[int, int, str | None]:
    """(start, stop, why the window is off or None). Arguments left None come from START_NODE_STATS_STEP and
    STOP_NODE_STATS_STEP (defaults 100 and 200)."""
    if start is None or stop is None:
        env = read_environment() if env is None else env
        what = 'a run number of the executor'
        if start is None:
            start = env.integer('START_NODE_STATS_STEP', DEFAULT_START_NODE_STATS_STEP, what)
        if stop is None:
            stop = env.integer('STOP_NODE_STATS_STEP', DEFAULT_STOP_NODE_STATS_STEP, what)
    why = None
    if start <= 0 or stop <= 0:
        why = ('START_NODE_STATS_STEP (%d) and STOP_NODE_STATS_STEP (%d) must both be positive' % (start, stop))
    elif stop <= start:
        why = ('STOP_NODE_STATS_STEP (%d) must be greater than START_NODE_STATS_STEP (%d)' % (stop, start))
    return start, stop, why


@dataclass(frozen=True)
class CostModelOptions:
    """The cost-model policy's window (run numbers) and knobs (seconds; ExecutionStrategy holds microseconds)."""
    start_step: int = DEFAULT_START_NODE_STATS_STEP
    stop_step: int = DEFAULT_STOP_NODE_STATS_STEP
    short_op_seconds: float = 5e-6
    batch_seconds: float = 5e-6
    batch_max_ops: int = 100


# --- compiled segments ------------------------------------------------------------------------------------------------

def compile_mode(value=None, env: Environment | None = None) -> str:
    """'off', 'tiered' or 'sync': `value` (a strategy's compile_segments: None, a bool or a mode name) unless it is
    None, then PADDLE_EXEC_COMPILE (default tiered)."""
    if value is None:
        env = read_environment() if env is None else env
        raw = env.get(COMPILE_ENV_VAR)
        if raw is None or raw.strip() == '':
            return 'tiered'
        text = raw.strip().lower()
        named = {'0': 'off', 'false': 'off', 'off': 'off', '1': 'tiered', 'true': 'tiered', 'on': 'tiered',
                 'tiered': 'tiered', 'sync': 'sync', 'reference': 'reference'}
        if text not in named:
            raise ValueError("%s must be 1/tiered (compiled segments, the numpy tier while they compile), sync "
                             "(wait for the compile), reference (the numpy tier only) or 0/off, got %r"
                             % (COMPILE_ENV_VAR, raw))
        return named[text]
    if isinstance(value, bool):
        return 'tiered' if value else 'off'
    if value in COMPILE_MODES:
        return value
    raise ValueError("compile_segments must be None, True, False, 'tiered', 'sync', 'reference' or 'off', got %r"
                     % (value,))


def cache_folder(env: Environment | None = None) -> str:
    """The user cache folder of paddle_exec (PADDLE_EXEC_CACHE_DIR, $XDG_CACHE_HOME/paddle_exec, ~/.cache/...)."""
    env = read_environment() if env is None else env
    folder = env.get(CACHE_DIR_ENV_VAR)
    if folder:
        return os.path.abspath(os.path.expanduser(folder))
    base = env.get('XDG_CACHE_HOME') or os.path.join(env.get('HOME') or os.path.expanduser('~'), '.cache')
    return os.path.join(base, 'paddle_exec')


@dataclass(frozen=True)
class CompileOptions:
    """How plans are compiled into segments (passes/segments.py).

    mode            'off' (no segments), 'tiered' (numpy tier until compiled), 'sync' (compile at the first run) or
                    'reference' (the numpy tier only)
    compile_after   the run of a segment at which its compile is requested (tiered: 2, the first run being the
                    profiling run the compile waits for, as TorchScript's profiling executor does)
    fuse_add_act    BuildStrategy.fuse_elewise_add_act_ops: elementwise_add + activation (and their gradients) as
                    one pass
    reuse_memory    BuildStrategy.enable_inplace / memory_optimize: a dying buffer of a segment's own is written
                    again by the next unary op
    split_branches  independent parts of a segment become separate segments (the parallel policies run them at
                    once); the in-order policies keep one function
    cache_dir       the user cache folder (cache_folder())
    """
    mode: str = 'tiered'
    compile_after: int = 2
    fuse_add_act: bool = False
    reuse_memory: bool = True
    split_branches: bool = False
    cache_dir: str = ''

    @property
    def enabled(self) -> bool:
        return self.mode != 'off'

    @classmethod
    def make(cls, value, env: Environment, policy, build_strategy=None) -> CompileOptions:
        mode = compile_mode(value, env)
        if build_strategy is not None:
            own = getattr(build_strategy, 'compile_segments', None)
            if own is not None and value is None:
                mode = compile_mode(own, env)
        fuse = bool(getattr(build_strategy, 'fuse_elewise_add_act_ops', False))
        reuse = True
        if build_strategy is not None:
            reuse = bool(build_strategy.enable_inplace) or bool(build_strategy.memory_optimize)
        parallel = policy in (ExecutorPolicy.USE_NORMAL_EXECUTOR, ExecutorPolicy.USE_COST_MODEL_EXECUTOR)
        return cls(mode, 1 if mode == 'sync' else 2, fuse, reuse, parallel, cache_folder(env))


# --- the run configuration --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunConfig:
    """What a run needs that does not change between runs (see the module docstring).

    policy None means the plain Executor's program order on the caller's thread (Paddle's Executor); otherwise the
    named policy with `num_threads` threads (policy_threads: the user's num_threads, or Paddle's 4 per place capped at
    the cores when it was left at 0). `data_parallel` marks a CompiledProgram run with_data_parallel: Paddle's
    ParallelExecutor semantics (feed split and checks, drop-scope counting, fetch merging), on `n_places` places.
    """
    n_places: int = 1
    data_parallel: bool = False
    policy: ExecutorPolicy | None = None
    num_threads: int = 1
    num_iteration_per_run: int = 1
    num_iteration_per_drop_scope: int = DEFAULT_DROP_SCOPE_PERIOD
    dry_run: bool = False
    cost_model: CostModelOptions = CostModelOptions()
    # compile options (the passes read these)
    loss_name: str | None = None
    reduce_mode: bool = False
    gradient_scale: int = 0             # BuildStrategy.GradientScaleStrategy: CoeffNumDevice 0, One 1, Customized 2
    smart_stage: bool = False
    debug_graphviz_path: str = ''
    # several trainers (processes): BuildStrategy.num_trainers / trainer_id; gradients fused across them in buckets
    # of at most fuse_grad_size_mb megabytes when fuse_all_reduce (a program's own collective settings win)
    n_trainers: int = 1
    trainer_id: int = 0
    fuse_all_reduce: bool = True
    fuse_grad_size_mb: float = DEFAULT_FUSE_GRAD_SIZE_MB
    # BuildStrategy.fuse_bn_act_ops / fuse_all_optimizer_ops: the fusion plan passes (passes/fuse_bn_act.py,
    # passes/fuse_optimizer.py; the latter not under reduce_mode, as in Paddle)
    fuse_bn_act: bool = False
    fuse_optimizer: bool = False
    # process settings the policies apply
    cap_malloc_arenas: bool = True
    switch_interval: float | None = SERVING_INTERVAL     # held by inline-policy executors (policies/switch_interval.py)
    serving_slots: int | None = None    # inline requests computing at once (policies/admission.py); None: no gate
    serving_spin: float | None = None   # the serving turns' budget, us (policies/serving_turn.py); None: no turns
    compile: CompileOptions = CompileOptions(mode='off')

    @functools.cached_property
    def compile_key(self) -> tuple:
        """The part of the configuration a compiled plan depends on."""
        return (self.n_places, self.data_parallel, self.loss_name, self.reduce_mode, self.gradient_scale,
                self.smart_stage, self.n_trainers, self.fuse_all_reduce, self.fuse_grad_size_mb, self.fuse_bn_act,
                self.fuse_optimizer, self.compile)

    @classmethod
    def for_executor(cls, exec_strategy=None, env: Environment | None = None, smart_stage: bool = False) -> RunConfig:
        """The plain Executor: one place, program order unless a strategy (or USE_*_EXECUTOR) names a policy."""
        env = read_environment() if env is None else env
        if exec_strategy is None:
            policy = policy_from_env(None, env)
            if policy is ExecutorPolicy.USE_NORMAL_EXECUTOR:
                return cls(smart_stage=smart_stage, compile=CompileOptions.make(None, env, None),
                           **_process_settings(env))
            return cls(policy=policy, num_threads=policy_threads(None, THREADS_PER_PLACE),
                       cost_model=_cost_model(None, policy, env), smart_stage=smart_stage,
                       compile=CompileOptions.make(None, env, policy), **_process_settings(env))
        policy = policy_from_env(exec_strategy.executor_policy, env)
        return cls(policy=policy, num_threads=policy_threads(exec_strategy, THREADS_PER_PLACE),
                   cost_model=_cost_model(exec_strategy, policy, env), smart_stage=smart_stage,
                   compile=CompileOptions.make(getattr(exec_strategy, 'compile_segments', None), env, policy),
                   **_process_settings(env))

    @classmethod
    def for_data_parallel(cls, exec_strategy, build_strategy, n_places: int, loss_name: str | None = None,
                          env: Environment | None = None, smart_stage: bool = False) -> RunConfig:
        """A CompiledProgram with_data_parallel (or a ParallelExecutor) on `n_places` places."""
        env = read_environment() if env is None else env
        policy = policy_from_env(exec_strategy.executor_policy, env)
        sequential = bool(build_strategy.enable_sequential_execution)
        return cls(n_places=n_places, data_parallel=True, policy=None if sequential else policy,
                   num_threads=policy_threads(exec_strategy, THREADS_PER_PLACE * n_places),
                   num_iteration_per_run=exec_strategy.num_iteration_per_run,
                   num_iteration_per_drop_scope=exec_strategy.num_iteration_per_drop_scope,
                   dry_run=bool(exec_strategy._dry_run), cost_model=_cost_model(exec_strategy, policy, env),
                   loss_name=loss_name, reduce_mode=int(build_strategy.reduce_strategy) == 1,
                   gradient_scale=int(build_strategy.gradient_scale_strategy),
                   smart_stage=smart_stage or bool(build_strategy.do_smart_stage or build_strategy.do_smart_stage_gpu),
                   debug_graphviz_path=build_strategy.debug_graphviz_path,
                   n_trainers=int(build_strategy.num_trainers), trainer_id=int(build_strategy.trainer_id),
                   fuse_all_reduce=bool(build_strategy.fuse_all_reduce_ops),
                   fuse_bn_act=bool(build_strategy.fuse_bn_act_ops),
                   fuse_optimizer=bool(build_strategy.fuse_all_optimizer_ops)
                   and int(build_strategy.reduce_strategy) != 1,
                   compile=CompileOptions.make(getattr(exec_strategy, 'compile_segments', None), env,
                                               None if sequential else policy, build_strategy),
                   **_process_settings(env))


def _process_settings(env: Environment) -> dict:
    """The RunConfig fields read from the environment alike by every executor: the fused all-reduce size, whether
    the policies cap glibc's arenas, the GIL switch interval inline executors hold, their serving admission."""
    return {'fuse_grad_size_mb': _fuse_size(env), 'cap_malloc_arenas': env.get('MALLOC_ARENA_MAX') is None,
            'switch_interval': _switch(env), 'serving_slots': _serving_slots(env), 'serving_spin': _serving_spin(env)}


def _serving_slots(env: Environment) -> int | None:
    """PADDLE_EXEC_SERVING_SLOTS: a number of places >= 1, or off (None); unset or empty: the usable cores."""
    return _number_or_off(env, SERVING_SLOTS_ENV_VAR, usable_cores(), int, lambda n: n >= 1,
                          'a number of requests computing at once (>= 1)')


def _serving_spin(env: Environment) -> float | None:
    """PADDLE_EXEC_SERVING_SPIN: microseconds > 0, or off (None); unset or empty: SERVING_SPIN_US."""
    return _number_or_off(env, SERVING_SPIN_ENV_VAR, SERVING_SPIN_US, float, lambda t: 0 < t < 1e6,
                          'microseconds a serving thread spins for its turn (> 0)')


def _switch(env: Environment) -> float | None:
    """PADDLE_EXEC_SWITCH_INTERVAL: seconds > 0, or off (None); unset or empty: SERVING_INTERVAL."""
    return _number_or_off(env, SWITCH_INTERVAL_ENV_VAR, SERVING_INTERVAL, float, lambda t: 0 < t < 1e3,
                          'a switch interval in seconds (> 0)')


def _number_or_off(env: Environment, name: str, default, parse, valid, what: str):
    """The variable `name` read by `parse`, or None when it says off (off, none, false, 0); unset or empty:
    `default`. A value `parse` refuses or `valid` rejects is an error naming the variable and saying `what`."""
    raw = env.get(name)
    if raw is None or raw.strip() == '':
        return default
    if raw.strip().lower() in ('off', 'none', 'false', '0'):
        return None
    try:
        value = parse(raw)
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise ValueError('%s must be %s or off, got %r' % (name, what, raw))
    return value


def _fuse_size(env: Environment) -> float:
    raw = env.get('FLAGS_fuse_parameter_memory_size')
    if raw is None or raw.strip() == '':
        return DEFAULT_FUSE_GRAD_SIZE_MB
    try:
        size = float(raw)
    except ValueError:
        raise ValueError('FLAGS_fuse_parameter_memory_size must be a number of megabytes, got %r' % raw) from None
    return size if size > 0 else DEFAULT_FUSE_GRAD_SIZE_MB


def _cost_model(exec_strategy, policy: ExecutorPolicy, env: Environment) -> CostModelOptions:
    if policy is not ExecutorPolicy.USE_COST_MODEL_EXECUTOR:
        return CostModelOptions()
    start, stop, _ = stats_window(env=env)
    if exec_strategy is None:
        return CostModelOptions(start, stop)
    return CostModelOptions(start, stop, exec_strategy.cost_model_short_op_us / 1e6,
                            exec_strategy.cost_model_batch_us / 1e6, exec_strategy.cost_model_batch_max_ops)
