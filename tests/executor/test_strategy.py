"""ExecutionStrategy and BuildStrategy: Paddle's fields, defaults and setter checks; policy selection."""
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.executor import strategy
from paddle_exec.executor.config import RunConfig, usable_cores
from paddle_exec.executor.policies.registry import policy_for_config
from paddle_exec.executor.policies.threaded import ThreadedPolicy


def test_exported_from_static_and_fluid():
    assert static.ExecutionStrategy is fluid.ExecutionStrategy is strategy.ExecutionStrategy
    assert static.BuildStrategy is fluid.BuildStrategy is strategy.BuildStrategy


def test_execution_strategy_defaults_match_paddle():
    es = fluid.ExecutionStrategy()
    assert (es.num_threads, es.num_iteration_per_drop_scope, es.num_iteration_per_run) == (0, 100, 1)
    assert (es.allow_op_delay, es.use_thread_barrier, es.use_experimental_executor, es._dry_run) == (
        False, False, True, False)
    assert es.executor_policy is fluid.ExecutorPolicy.USE_NORMAL_EXECUTOR


def test_unknown_attribute_is_attribute_error():
    es = fluid.ExecutionStrategy()
    with pytest.raises(AttributeError, match="'ExecutionStrategy' object has no attribute 'num_thread'"):
        es.num_thread = 4
    bs = fluid.BuildStrategy()
    with pytest.raises(AttributeError, match='reduce_stratgy'):
        bs.reduce_stratgy = fluid.BuildStrategy.ReduceStrategy.Reduce


@pytest.mark.parametrize('bad', [-1, 1.5, '4', None])
def test_bad_num_threads_is_type_error(bad):
    es = fluid.ExecutionStrategy()
    with pytest.raises(TypeError, match='num_threads'):
        es.num_threads = bad
    assert es.num_threads == 0


def test_integer_like_values_are_accepted_as_paddle_does():
    es = fluid.ExecutionStrategy()
    es.num_threads = np.int64(3)
    assert es.num_threads == 3 and type(es.num_threads) is int
    es.num_threads = True                     # pybind's size_t setter takes a bool as 1
    assert es.num_threads == 1
    es.allow_op_delay = 1
    assert es.allow_op_delay is True


def test_counts_are_checked():
    es = fluid.ExecutionStrategy()
    with pytest.raises(TypeError, match='num_iteration_per_drop_scope'):
        es.num_iteration_per_drop_scope = -1
    with pytest.raises(TypeError, match='num_iteration_per_run'):
        es.num_iteration_per_run = 0
    with pytest.raises(TypeError, match='use_thread_barrier'):
        es.use_thread_barrier = 'yes'


def test_build_strategy_defaults_match_paddle():
    bs = fluid.BuildStrategy()
    assert bs.reduce_strategy == fluid.BuildStrategy.ReduceStrategy.AllReduce
    assert bs.gradient_scale_strategy == fluid.BuildStrategy.GradientScaleStrategy.CoeffNumDevice
    assert (bs.debug_graphviz_path, bs.memory_optimize, bs.enable_inplace, bs.fuse_elewise_add_act_ops) == (
        '', None, True, False)
    assert (bs.num_trainers, bs.trainer_id, bs.trainers_endpoints) == (1, 0, [])
    assert bs.fuse_all_reduce_ops and bs.fuse_broadcast_ops and not bs.sync_batch_norm


def test_enums_have_paddle_values():
    RS, GS = fluid.BuildStrategy.ReduceStrategy, fluid.BuildStrategy.GradientScaleStrategy
    assert (int(RS.AllReduce), int(RS.Reduce)) == (0, 1)
    assert (int(GS.CoeffNumDevice), int(GS.One), int(GS.Customized)) == (0, 1, 2)
    assert fluid.BuildStrategy.ReduceStrategy['Reduce'] is RS.Reduce


def test_build_strategy_fields_are_validated():
    bs = fluid.BuildStrategy()
    with pytest.raises(TypeError, match='ReduceStrategy'):
        bs.reduce_strategy = 1                 # Paddle rejects the bare int too
    with pytest.raises(TypeError, match='GradientScaleStrategy'):
        bs.gradient_scale_strategy = 'One'
    with pytest.raises(ValueError, match='memory_optimize must be set to None, False or True'):
        bs.memory_optimize = 1
    with pytest.raises(TypeError, match='enable_inplace'):
        bs.enable_inplace = 'x'
    with pytest.raises(TypeError, match='debug_graphviz_path'):
        bs.debug_graphviz_path = 3
    with pytest.raises(TypeError, match='num_trainers'):
        bs.num_trainers = 0
    bs.memory_optimize = False
    bs.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    bs.fuse_elewise_add_act_ops = True
    assert (bs.memory_optimize, bs.reduce_strategy, bs.fuse_elewise_add_act_ops) == (
        False, fluid.BuildStrategy.ReduceStrategy.Reduce, True)


def test_list_defaults_are_not_shared_between_objects():
    a, b = fluid.BuildStrategy(), fluid.BuildStrategy()
    a.trainers_endpoints = ['127.0.0.1:6170']
    assert b.trainers_endpoints == []


def make_policy(es, n_places):
    strategy.resolve_num_threads(es, n_places)
    return policy_for_config(RunConfig.for_data_parallel(es, fluid.BuildStrategy(), n_places))


def test_make_policy_resolves_num_threads_into_the_users_object():
    es = fluid.ExecutionStrategy()
    policy = make_policy(es, 3)
    try:
        assert isinstance(policy, ThreadedPolicy)
        # Paddle's rule in the user's object; the pool runs it capped at the cores
        assert es.num_threads == 12 and policy.num_threads == min(12, usable_cores())
    finally:
        policy.close()
    policy = make_policy(es, 3)             # the same object again: still the rule's value, still capped
    assert es.num_threads == 12 and policy.num_threads == min(12, usable_cores())
    policy.close()
    es.num_threads = 2
    policy = make_policy(es, 3)
    assert policy.num_threads == 2
    policy.close()


def test_a_num_threads_the_user_sets_is_run_as_set_even_beyond_the_cores():
    es = fluid.ExecutionStrategy()
    es.num_threads = usable_cores() + 3
    policy = make_policy(es, 1)
    assert policy.num_threads == usable_cores() + 3
    policy.close()


def test_a_num_threads_left_at_zero_runs_at_most_the_usable_cores(monkeypatch):
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: {0, 1}, raising=False)
    for places, want in ((1, 2), (3, 2)):
        es = fluid.ExecutionStrategy()
        policy = make_policy(es, places)
        assert es.num_threads == 4 * places and policy.num_threads == want
        policy.close()
    monkeypatch.setattr(os, 'sched_getaffinity', lambda pid: set(range(64)), raising=False)
    es = fluid.ExecutionStrategy()
    policy = make_policy(es, 3)
    assert policy.num_threads == 12             # the rule itself when the machine has the cores
    policy.close()


def test_unknown_policy_name_is_a_clear_error():
    es = fluid.ExecutionStrategy()
    with pytest.raises(ValueError, match="executor_policy must be one of USE_NORMAL_EXECUTOR, USE_INLINE_EXECUTOR, "
                                         "USE_COST_MODEL_EXECUTOR, but received 'USE_NO_SUCH_EXECUTOR'"):
        es.executor_policy = 'USE_NO_SUCH_EXECUTOR'


def test_executor_policy_takes_the_enum_or_its_name():
    es = fluid.ExecutionStrategy()
    assert es.executor_policy is fluid.ExecutorPolicy.USE_NORMAL_EXECUTOR
    es.executor_policy = 'USE_INLINE_EXECUTOR'
    assert es.executor_policy is static.ExecutorPolicy.USE_INLINE_EXECUTOR
    es.executor_policy = static.ExecutorPolicy.USE_COST_MODEL_EXECUTOR
    assert es.executor_policy is fluid.ExecutorPolicy.USE_COST_MODEL_EXECUTOR


def test_cost_model_knobs_are_checked():
    es = fluid.ExecutionStrategy()
    assert (es.cost_model_short_op_us, es.cost_model_batch_us, es.cost_model_batch_max_ops) == (5.0, 5.0, 100)
    es.cost_model_short_op_us = 20
    assert es.cost_model_short_op_us == 20.0 and type(es.cost_model_short_op_us) is float
    assert es.cost_model_options() == {'short_op_seconds': 20e-6, 'batch_seconds': 5e-6, 'batch_max_ops': 100}
    for name, bad in (('cost_model_short_op_us', -1.0), ('cost_model_batch_us', 'fast'),
                      ('cost_model_short_op_us', True), ('cost_model_batch_max_ops', 0)):
        with pytest.raises(TypeError, match=name):
            setattr(es, name, bad)
