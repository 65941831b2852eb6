"""The one registry of policies: which class runs which RunConfig.policy.

    policy = policy_for_config(config)          # an object with run(plan, values), close() and `threads`

    RunConfig.policy             class                         ready-queue rule (see each module's docstring)
    None                         sequential.SequentialPolicy   program order on the caller's thread
    USE_NORMAL_EXECUTOR          threaded.ThreadedPolicy       Paddle's thread pool with dependency counting
    USE_INLINE_EXECUTOR          inline.InlinePolicy           a whole run on the caller's thread
    USE_COST_MODEL_EXECUTOR      cost_model.CostModelPolicy    measured costs, critical path first, short ops batched

Which policy a run gets is decided in config.py (the strategy's executor_policy, or the USE_*_EXECUTOR
environment switches when the strategy leaves the default); this module only maps the choice to a class.
"""
from __future__ import annotations

from ..config import ExecutorPolicy, RunConfig, as_policy
from .cost_model import CostModelPolicy
from .inline import InlinePolicy
from .sequential import SequentialPolicy
from .threaded import ThreadedPolicy

__all__ = ['POLICY_CLASSES', 'make_policy', 'policy_for_config']

POLICY_CLASSES = {
    None: SequentialPolicy,
    ExecutorPolicy.USE_NORMAL_EXECUTOR: ThreadedPolicy,
    ExecutorPolicy.USE_INLINE_EXECUTOR: InlinePolicy,
    ExecutorPolicy.USE_COST_MODEL_EXECUTOR: CostModelPolicy,
}


def make_policy(policy, num_threads: int, **options):
    """A new policy object for `policy` (an ExecutorPolicy, its name or number) with `num_threads` threads.
    `options` go to the cost-model policy (start_step, stop_step, short_op_seconds, batch_seconds, batch_max_ops)."""
    policy = as_policy(policy)
    if options and policy is not ExecutorPolicy.USE_COST_MODEL_EXECUTOR:
        raise TypeError('%s takes no options, got %s' % (policy.name, ', '.join(sorted(options))))
    return POLICY_CLASSES[policy](num_threads, **options)


def policy_for_config(config: RunConfig):
    """The policy object a runner with `config` runs its plans with."""
    if config.policy is None:
        return SequentialPolicy()
    if config.policy is ExecutorPolicy.USE_COST_MODEL_EXECUTOR:
        cm = config.cost_model
        return CostModelPolicy(config.num_threads, cm.start_step, cm.stop_step, cm.short_op_seconds,
                               cm.batch_seconds, cm.batch_max_ops, cap_malloc_arenas=config.cap_malloc_arenas)
    if config.policy is ExecutorPolicy.USE_NORMAL_EXECUTOR:
        return ThreadedPolicy(config.num_threads, cap_malloc_arenas=config.cap_malloc_arenas)
    return POLICY_CLASSES[config.policy](config.num_threads)
