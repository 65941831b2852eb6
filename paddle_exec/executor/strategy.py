"""ExecutionStrategy and BuildStrategy: how a ParallelExecutor runs a program, and how it compiles it.

Both are plain configuration objects with Paddle's field names, defaults and setter checks:

    exec_strategy = static.ExecutionStrategy()
    exec_strategy.num_threads = 4                   # 0 (default): 4 * number of places, filled in at the first run
    build_strategy = static.BuildStrategy()
    build_strategy.reduce_strategy = static.BuildStrategy.ReduceStrategy.Reduce

Setting an attribute that does not exist raises AttributeError (the objects have fixed fields, like Paddle's pybind
classes); a value of the wrong type raises TypeError; counts that cannot be negative reject negative values with
TypeError, as Paddle's `size_t` setters do.

They only hold what the user set: config.py reads them (with the environment) into the frozen RunConfig a
runner is driven by, and policies/registry.py maps its policy to a policy class.
"""
from __future__ import annotations

import enum
import numbers
import warnings

from .config import COMPILE_MODES, THREADS_PER_PLACE, ExecutorPolicy, as_policy

__all__ = ['ExecutionStrategy', 'BuildStrategy', 'ExecutorPolicy']


def _check_count(owner: str, name: str, value, minimum: int = 0) -> int:
    """Paddle's size_t setters: an integer (bool and numpy integers included), never negative."""
    if isinstance(value, numbers.Integral) and value >= minimum:
        return int(value)
    raise TypeError('%s.%s must be an integer >= %d, but received %r (%s)'
                    % (owner, name, minimum, value, type(value).__name__))


def _check_bool(owner: str, name: str, value) -> bool:
    # pybind's bool setters take Python and numpy booleans and 0/1 integers
    if isinstance(value, (bool, numbers.Integral)) or type(value).__name__ == 'bool_':
        return bool(value)
    raise TypeError('%s.%s must be a bool, but received %r (%s)' % (owner, name, value, type(value).__name__))


def _check_str(owner: str, name: str, value) -> str:
    if isinstance(value, str):
        return value
    raise TypeError('%s.%s must be a str, but received %r (%s)' % (owner, name, value, type(value).__name__))


class _Strategy:
    """Fixed fields with checked setters. Subclasses list `_FIELDS`: name -> (default, checker or None)."""

    _FIELDS: dict = {}

    def __init__(self):
        for name, (default, _) in self._FIELDS.items():
            object.__setattr__(self, name, default() if callable(default) else default)

    def __setattr__(self, name, value):
        spec = self._FIELDS.get(name)
        if spec is None:
            raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))
        checker = spec[1]
        object.__setattr__(self, name, value if checker is None else checker(type(self).__name__, name, value))

    def __repr__(self):
        fields = ', '.join('%s=%r' % (n, getattr(self, n)) for n in self._FIELDS if not n.startswith('_'))
        return '%s(%s)' % (type(self).__name__, fields)


def _check_microseconds(owner: str, name: str, value) -> float:
    """A duration in microseconds: a real number >= 0 (bool refused)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and value >= 0:
        return float(value)
    raise TypeError('%s.%s must be a number of microseconds >= 0, but received %r (%s)'
                    % (owner, name, value, type(value).__name__))


def _check_policy(owner: str, name: str, value) -> ExecutorPolicy:
    return as_policy(value)         # an ExecutorPolicy, its name or its number; ValueError listing them otherwise


def _check_compile(owner: str, name: str, value):
    """None (the environment decides), a bool, or 'tiered' / 'sync' / 'off' (config.compile_mode)."""
    if value is None or isinstance(value, bool) or value in COMPILE_MODES:
        return value
    raise ValueError("%s.%s must be None, True, False, 'tiered', 'sync', 'reference' or 'off', but received %r"
                     % (owner, name, value))


class ExecutionStrategy(_Strategy):
    """How a ParallelExecutor runs the compiled graph.

    num_threads                  how many ops run at once: the calling thread plus num_threads - 1 pool workers
                                 (policies/threaded.py). 0 (default): 4 * number of places, written back into this
                                 object at the first run (Paddle's rule); the pool then runs that many capped at
                                 the usable cores (config.py policy_threads), since more only time-slice them
    num_iteration_per_drop_scope drop the local execution scopes after this many runs (default 100); 0: never
    num_iteration_per_run        training iterations per run() call (default 1); each iteration takes a new batch
                                 from an in-graph reader, otherwise reuses the fed batch; run() returns the last
                                 iteration's fetches
    allow_op_delay               accepted for compatibility; no effect (it only delayed NCCL ops on GPUs)
    use_thread_barrier           accepted for compatibility; no effect: every run waits for all of its ops
    use_experimental_executor    accepted for compatibility; no effect: there is one threaded scheduler
    use_cuda                     set by the executor (always False: CPU only)
    _dry_run                     skip every op (feeds are still checked); fetches come back as None
    executor_policy              which policy runs the plan: ExecutorPolicy.USE_NORMAL_EXECUTOR (default, Paddle's
                                 threaded scheduler), USE_INLINE_EXECUTOR or USE_COST_MODEL_EXECUTOR (DeepRec's;
                                 also chosen by the environment variables of the same names, see policies/)
    cost_model_short_op_us       USE_COST_MODEL_EXECUTOR only: an op whose measured average is under this many
                                 microseconds is "short" and runs in a batch with other short ops (default 5)
    cost_model_batch_us          USE_COST_MODEL_EXECUTOR only: a batch of short ops closes once it holds this many
                                 microseconds of measured work (default 5)
    cost_model_batch_max_ops     USE_COST_MODEL_EXECUTOR only: ... or this many ops (default 100)
    The three cost-model fields are paddle_exec's (DeepRec hard-codes them); other policies ignore them.
    compile_segments             paddle_exec's: runs of ops as one compiled numba function (executor/passes/
                                 segments.py). None (default): the environment variable PADDLE_EXEC_COMPILE decides
                                 (default tiered); True / 'tiered'; 'sync' (compile at the first run and wait);
                                 False / 'off' (every op its own node) and 'reference' (segments run their numpy
                                 tier only), for debugging
    """

    _FIELDS = {
        'num_threads': (0, _check_count),
        'num_iteration_per_drop_scope': (100, _check_count),
        'num_iteration_per_run': (1, lambda o, n, v: _check_count(o, n, v, 1)),
        'allow_op_delay': (False, _check_bool),
        'use_thread_barrier': (False, _check_bool),
        'use_experimental_executor': (True, _check_bool),
        'use_cuda': (False, _check_bool),
        '_dry_run': (False, _check_bool),
        '_num_threads_rule': (0, _check_count),        # what resolve_num_threads wrote for a num_threads of 0
        'executor_policy': (ExecutorPolicy.USE_NORMAL_EXECUTOR, _check_policy),
        'cost_model_short_op_us': (5.0, _check_microseconds),
        'cost_model_batch_us': (5.0, _check_microseconds),
        'cost_model_batch_max_ops': (100, lambda o, n, v: _check_count(o, n, v, 1)),
        'compile_segments': (None, _check_compile),
    }

    def cost_model_options(self) -> dict:
        """The cost-model knobs as CostModelPolicy's keyword arguments (seconds)."""
        return {'short_op_seconds': self.cost_model_short_op_us / 1e6,
                'batch_seconds': self.cost_model_batch_us / 1e6,
                'batch_max_ops': self.cost_model_batch_max_ops}


def _check_smart_stage_gpu(owner: str, name: str, value) -> bool:
    value = _check_bool(owner, name, value)
    if value:
        warnings.warn('BuildStrategy.do_smart_stage_gpu: paddle_exec runs on the CPU only, so there is no GPU copy to '
                      'stage; use do_smart_stage for the CPU SmartStage pass', stacklevel=3)
    return value


class BuildStrategy(_Strategy):
    """How a program is compiled for data parallelism.

    reduce_strategy          ReduceStrategy.AllReduce (default): gradients are summed over places and every place
                             runs its optimizer ops on the sum; ReduceStrategy.Reduce: each parameter's gradient is
                             summed onto one place, whose optimizer ops run once on parameters shared by all places
    gradient_scale_strategy  how `loss@GRAD` is seeded on each place: CoeffNumDevice (1 / number of places,
                             default), One (1), Customized (the user feeds `loss@GRAD`)
    debug_graphviz_path      when set, compiling writes `<path>_original_graph` and `<path>_multi_devices_graph`,
                             Graphviz `.dot` text of the program and of the compiled multi-place graph
    enable_sequential_execution  run the ops one at a time in program order
    num_trainers, trainer_id multi-process training (Paddle 1.x's nccl2 mode, over MPI here): this process is
                             trainer `trainer_id` of a job of `num_trainers` (docs/distributed.md)
    memory_optimize          None, True or False. Values are freed after their last use in any case.
    sync_batch_norm          not supported with more than one place (raises when the program has batch_norm)
    fuse_elewise_add_act_ops inside compiled segments, elementwise_add + activation (relu, sigmoid, tanh, scale, ...)
                             and their gradients run as one pass over memory (the sum is never stored)
    fuse_bn_act_ops          batch_norm + relu (training mode) and their gradients as Paddle's fused_batch_norm_act /
                             fused_batch_norm_act_grad, one pass each (executor/passes/fuse_bn_act.py)
    fuse_all_optimizer_ops   same-type sgd / momentum / adam ops with dense gradients as one update over coalesced
                             `@FUSEDVAR@` buffers (executor/passes/fuse_optimizer.py); not under Reduce, as in Paddle
    enable_inplace, memory_optimize  inside compiled segments, a buffer of the segment's own that dies at a unary
                             op is written by it again (either switch on: default)
    compile_segments         as ExecutionStrategy.compile_segments (the ExecutionStrategy's setting wins)
    the rest                 Paddle's other fusion and memory switches: accepted and type-checked, no effect
    """

    class ReduceStrategy(enum.IntEnum):
        AllReduce = 0
        Reduce = 1

    class GradientScaleStrategy(enum.IntEnum):
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    @staticmethod
    def _check_reduce(owner, name, value):
        if not isinstance(value, BuildStrategy.ReduceStrategy):
            raise TypeError('%s.%s must be a BuildStrategy.ReduceStrategy (AllReduce or Reduce), but received %r'
                            % (owner, name, value))
        return value

    @staticmethod
    def _check_scale(owner, name, value):
        if not isinstance(value, BuildStrategy.GradientScaleStrategy):
            raise TypeError('%s.%s must be a BuildStrategy.GradientScaleStrategy (CoeffNumDevice, One or '
                            'Customized), but received %r' % (owner, name, value))
        return value

    @staticmethod
    def _check_memory_optimize(owner, name, value):
        if value is None or isinstance(value, bool):
            return value
        raise ValueError('BuildStrategy.memory_optimize must be set to None, False or True, but received %r'
                         % (value,))

    @staticmethod
    def _check_trainers(owner, name, value):
        return _check_count(owner, name, value, 1)

    @staticmethod
    def _check_str_list(owner, name, value):
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return list(value)
        raise TypeError('%s.%s must be a list of str, but received %r' % (owner, name, value))

    @staticmethod
    def _check_str_set(owner, name, value):
        if isinstance(value, (set, frozenset, list, tuple)) and all(isinstance(v, str) for v in value):
            return set(value)
        raise TypeError('%s.%s must be a set of str, but received %r' % (owner, name, value))


BuildStrategy._FIELDS = {
    'reduce_strategy': (BuildStrategy.ReduceStrategy.AllReduce, BuildStrategy._check_reduce),
    'gradient_scale_strategy': (BuildStrategy.GradientScaleStrategy.CoeffNumDevice, BuildStrategy._check_scale),
    'debug_graphviz_path': ('', _check_str),
    'enable_sequential_execution': (False, _check_bool),
    'fuse_elewise_add_act_ops': (False, _check_bool),
    'do_smart_stage': (False, _check_bool),
    'do_smart_stage_gpu': (False, _check_smart_stage_gpu),
    'fuse_bn_act_ops': (False, _check_bool),
    'fuse_relu_depthwise_conv': (False, _check_bool),
    'fuse_broadcast_ops': (True, _check_bool),
    'fuse_all_optimizer_ops': (False, _check_bool),
    'fuse_all_reduce_ops': (True, _check_bool),
    'fuse_gemm_epilogue': (False, _check_bool),
    'enable_auto_fusion': (False, _check_bool),
    'enable_addto': (False, _check_bool),
    'fix_op_run_order': (False, _check_bool),
    'sync_batch_norm': (False, _check_bool),
    'memory_optimize': (None, BuildStrategy._check_memory_optimize),
    'enable_inplace': (True, _check_bool),
    'enable_backward_optimizer_op_deps': (True, _check_bool),
    'cache_runtime_context': (False, _check_bool),
    'remove_unnecessary_lock': (True, _check_bool),
    'async_mode': (False, _check_bool),
    'is_distribution': (False, _check_bool),
    'use_hierarchical_allreduce': (False, _check_bool),
    'hierarchical_allreduce_inter_nranks': (0, _check_count),
    'nccl_comm_num': (1, _check_count),
    'num_trainers': (1, BuildStrategy._check_trainers),
    'trainer_id': (0, _check_count),
    'trainers_endpoints': (list, BuildStrategy._check_str_list),
    'mkldnn_enabled_op_types': (set, BuildStrategy._check_str_set),
    'compile_segments': (None, _check_compile),
}


def resolve_num_threads(strategy: ExecutionStrategy, n_places: int) -> int:
    """num_threads, with 0 replaced by 4 * n_places in the user's object (Paddle's rule for CPU places), as the
    executors do at their first run."""
    if strategy.num_threads == 0:
        strategy.num_threads = strategy._num_threads_rule = THREADS_PER_PLACE * n_places
    return strategy.num_threads
