"""Executor policies by name: the ExecutorPolicy enum, the environment switches, and a factory.

    exec_strategy.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
    policy = policy_for_strategy(exec_strategy, n_places)       # an object with run(plan, values) and close()

Which policy runs (`policy_from_env`): the strategy's `executor_policy` when it is not the default
USE_NORMAL_EXECUTOR; otherwise the environment: USE_INLINE_EXECUTOR=true or USE_COST_MODEL_EXECUTOR=true (true/1,
false/0, any case; both true is an error, since the two modes exclude each other); otherwise the native policy.
So a strategy that names a DeepRec mode wins over the environment.

The policies (one module each, all with `Policy(num_threads)`, `run(plan, values) -> None`, `close()`):
    USE_NORMAL_EXECUTOR      threaded.ThreadedPolicy     Paddle's thread pool with dependency counting
    USE_INLINE_EXECUTOR      inline.InlinePolicy         a whole run on the caller's thread
    USE_COST_MODEL_EXECUTOR  cost_model.CostModelPolicy  measured costs, critical path first, short ops batched

`strategy.make_policy` (used by the Executor and the ParallelExecutor) calls `policy_for_strategy`: this module
is the one registry of policies.
"""
from __future__ import annotations

import enum
import os

__all__ = ['ExecutorPolicy', 'policy_from_env', 'make_policy', 'policy_for_strategy', 'POLICY_ENV_VARS']


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


def _env_flag(name: str) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return False
    text = raw.strip().lower()
    if text in ('true', '1'):
        return True
    if text in ('false', '0', ''):
        return False
    raise ValueError('Failed to parse the environment variable %s=%r into a bool: use true or false' % (name, raw))


def policy_from_env(strategy_value=None) -> ExecutorPolicy:
    """The policy to run: `strategy_value` (an ExecutorPolicy, its name or number; None for no strategy) unless it
    is the default USE_NORMAL_EXECUTOR, in which case USE_INLINE_EXECUTOR / USE_COST_MODEL_EXECUTOR decide."""
    chosen = ExecutorPolicy.USE_NORMAL_EXECUTOR if strategy_value is None else as_policy(strategy_value)
    if chosen is not ExecutorPolicy.USE_NORMAL_EXECUTOR:
        return chosen
    selected = [name for name in POLICY_ENV_VARS if _env_flag(name)]
    if len(selected) > 1:
        raise ValueError('The environment variables %s are all true, but they select different executor policies; '
                         'set only one of them (or set ExecutionStrategy.executor_policy)' % ' and '.join(selected))
    return POLICY_ENV_VARS[selected[0]] if selected else chosen


def make_policy(policy, num_threads: int, **options):
    """A new policy object for `policy` (an ExecutorPolicy, its name or number) with `num_threads` threads.
    `options` go to the cost-model policy (start_step, stop_step, short_op_seconds, batch_seconds, batch_max_ops)."""
    policy = as_policy(policy)
    if options and policy is not ExecutorPolicy.USE_COST_MODEL_EXECUTOR:
        raise TypeError('%s takes no options, got %s' % (policy.name, ', '.join(sorted(options))))
    if policy is ExecutorPolicy.USE_INLINE_EXECUTOR:
        from .inline import InlinePolicy
        return InlinePolicy(num_threads)
    if policy is ExecutorPolicy.USE_COST_MODEL_EXECUTOR:
        from .cost_model import CostModelPolicy
        return CostModelPolicy(num_threads, **options)
    from .threaded import ThreadedPolicy
    return ThreadedPolicy(num_threads)


def policy_for_strategy(exec_strategy, n_places: int = 1):
    """The policy an executor runs with: chosen by `policy_from_env` from the strategy (None: the plain Executor
    without a strategy), with the strategy's thread count (0 becomes 4 * n_places, written back) and, for the cost
    model, the strategy's cost_model_* knobs. Returns None
    when there is no strategy and no environment switch: the plain Executor's sequential run."""
    from ..strategy import resolve_num_threads
    if exec_strategy is None:
        policy = policy_from_env(None)
        if policy is ExecutorPolicy.USE_NORMAL_EXECUTOR:
            return None
        return make_policy(policy, 4 * n_places)
    policy = policy_from_env(exec_strategy.executor_policy)
    options = exec_strategy.cost_model_options() if policy is ExecutorPolicy.USE_COST_MODEL_EXECUTOR else {}
    return make_policy(policy, resolve_num_threads(exec_strategy, n_places), **options)
