"""ParallelExecutor / CompiledProgram.with_data_parallel: API, places, feeds, fetches, gradient scaling, Reduce,
drop-scope counting, iterations per run, dry run, errors and threads. Behaviour checked against Paddle 1.8.5."""
import gc
import os
import threading

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.executor import config as config_module
from paddle_exec.executor.config import usable_cores
from paddle_exec.executor.feed import split_batch
from paddle_exec.executor.passes.data_parallel import sum_in_place_order
from paddle_exec.executor.runner import Runner
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import LoDTensor, SelectedRows

BS = fluid.BuildStrategy


def regression(opt='sgd', lr=0.1, test_clone=False, hidden=0):
    """x[?, 3] -> (fc relu) -> fc 1 -> mean square error; returns (main, startup, loss, pred[, test])."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 3], dtype='float32')
        y = fluid.data(name='y', shape=[None, 1], dtype='float32')
        h = fluid.layers.fc(x, size=hidden, act='relu') if hidden else x
        pred = fluid.layers.fc(h, size=1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        test = main.clone(for_test=True) if test_clone else None
        if opt:
            {'sgd': fluid.optimizer.SGD, 'adam': fluid.optimizer.Adam}[opt](learning_rate=lr).minimize(loss)
    return main, startup, loss, pred, test


def set_params(scope, program, seed=0):
    for k, p in enumerate(sorted(program.global_block().all_parameters(), key=lambda p: p.name)):
        t = scope.find_var(p.name).get_tensor()
        t.set(np.random.RandomState(seed + k).uniform(-0.5, 0.5, np.array(t).shape).astype('float32'))


def batch(n, seed=0):
    rng = np.random.RandomState(seed)
    return {'x': rng.rand(n, 3).astype('float32'), 'y': rng.rand(n, 1).astype('float32')}


@pytest.fixture
def scope():
    s = fluid.Scope()
    with fluid.scope_guard(s):
        yield s


def started(program_tuple, scope):
    main, startup = program_tuple[:2]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    set_params(scope, main)
    return exe


def compiled(main, loss, n_places, **kwargs):
    return fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(n_places),
                                                          **kwargs)


# --- API ------------------------------------------------------------------------------------------------------

def test_api_is_exported_by_fluid_and_static():
    assert fluid.ParallelExecutor is static.ParallelExecutor
    assert fluid.CompiledProgram is static.CompiledProgram


def test_use_cuda_is_a_clear_error(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, _, loss, *_ = regression()
    with pytest.raises(RuntimeError, match='CPU only'):
        fluid.ParallelExecutor(use_cuda=True, loss_name=loss.name, main_program=main)


def test_unknown_keyword_arguments_are_type_errors(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, _, loss, *_ = regression()
    with pytest.raises(TypeError, match='foo'):
        fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, foo=1)
    with pytest.raises(TypeError, match='num_places'):
        fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, num_places=2)
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
    with pytest.raises(TypeError, match='fetch'):
        pe.run(fetch=[loss.name])


def test_device_count_follows_cpu_num(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '3')
    main, _, loss, *_ = regression()
    assert fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main).device_count == 3


def test_cpu_num_unset_means_one_place_and_one_warning(monkeypatch, capsys, scope):
    monkeypatch.delenv('CPU_NUM', raising=False)
    config_module._warn_cpu_num_unset.cache_clear()          # the warning is printed once per process
    monkeypatch.setattr(os, 'cpu_count', lambda: 4)
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
    assert pe.device_count == 1 and 'CPU_NUM' not in os.environ          # read, never written
    fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    out, = exe.run(compiled(main, loss, 1), feed=batch(4), fetch_list=[loss])
    assert out.shape == (1,)
    err = capsys.readouterr().err
    assert err.count('CPU_NUM') >= 1 and err.count('!!! The CPU_NUM is not specified') == 1


@pytest.mark.parametrize('bad', ['abc', '0', '-2'])
def test_bad_cpu_num_is_a_clear_error(monkeypatch, bad):
    monkeypatch.setenv('CPU_NUM', bad)
    main, _, loss, *_ = regression()
    with pytest.raises(ValueError, match='CPU_NUM must be a positive integer'):
        fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)


def test_places_argument_overrides_cpu_num(monkeypatch, scope):
    monkeypatch.setenv('CPU_NUM', '4')
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    out, = exe.run(compiled(main, loss, 2), feed=batch(6), fetch_list=[loss])
    assert out.shape == (2,)


def test_num_threads_zero_becomes_four_per_place_in_the_users_object(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    es = fluid.ExecutionStrategy()
    cp = compiled(main, loss, 3, exec_strategy=es)
    assert es.num_threads == 0
    exe.run(cp, feed=batch(6), fetch_list=[loss])
    assert es.num_threads == 12
    assert cp._executor.policy.num_threads == min(12, usable_cores())     # the pool: the rule capped at the cores


# --- feeds ------------------------------------------------------------------------------------------------------

def test_split_batch_uses_the_ceil_rule():
    rows = np.arange(10)
    assert [len(c) for c in split_batch(rows, 4)] == [3, 3, 3, 1]
    assert [len(c) for c in split_batch(rows[:5], 3)] == [2, 2, 1]
    assert [len(c) for c in split_batch(rows[:4], 3)] == [2, 2]           # too few chunks for 3 places
    assert [len(c) for c in split_batch(rows[:0], 2)] == [0, 0]
    assert len(split_batch(np.float32(3.0), 2)) == 1


def test_dict_feed_is_split_and_fetches_are_concatenated(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, pred, _ = prog
    cp = compiled(main, loss, 3)
    feed = batch(5)
    w = np.array(scope.find_var('fc_0.w_0').get_tensor())
    b = np.array(scope.find_var('fc_0.b_0').get_tensor())
    l_each, p_each = exe.run(cp, feed=feed, fetch_list=[loss, pred], return_merged=False)
    assert [a.shape for a in l_each] == [(1,), (1,), (1,)]
    assert [a.shape for a in p_each] == [(2, 1), (2, 1), (1, 1)]
    l_merged, p_merged = exe.run(cp, feed=feed, fetch_list=[loss, pred])
    assert l_merged.shape == (3,) and p_merged.shape == (5, 1)
    # the shards are the fed rows in order: each place's loss is its shard's mean square error
    out = feed['x'] @ w + b
    np.testing.assert_allclose(np.concatenate(p_each), out, rtol=1e-5)
    shards = [slice(0, 2), slice(2, 4), slice(4, 5)]
    np.testing.assert_allclose([a[0] for a in l_each],
                               [np.mean((out[s] - feed['y'][s]) ** 2) for s in shards], rtol=1e-5)


def test_list_feed_gives_each_place_its_own_dict(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, pred, _ = prog
    cp = compiled(main, loss, 2)
    a, b = batch(4, seed=1), batch(3, seed=2)
    preds, = exe.run(cp, feed=[a, b], fetch_list=[pred], return_merged=False)
    assert [p.shape for p in preds] == [(4, 1), (3, 1)]
    merged, = exe.run(cp, feed=[a, b], fetch_list=[pred])
    assert merged.shape == (7, 1)


def test_list_feed_of_the_wrong_length(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 3)
    with pytest.raises(ValueError, match='The feed data number 2 does not match the device number 3') as info:
        exe.run(cp, feed=[batch(2), batch(2)], fetch_list=[loss])
    assert isinstance(info.value, NotImplementedError)       # Paddle 2.x's UnimplementedError maps to it
    with pytest.raises(TypeError, match='Each element of feed list should be a dict'):
        exe.run(cp, feed=[batch(2), batch(2), 3], fetch_list=[loss])


def test_too_few_samples_for_a_training_program(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 3)
    with pytest.raises(RuntimeError, match=r"The number\(2\) of samples\[(x|y)\] of current batch is less than the "
                                           r"count\(3\) of devices\(CPU\).*CPU_NUM"):
        exe.run(cp, feed=batch(4), fetch_list=[loss])


def test_inference_program_runs_only_the_fed_places(scope):
    main, startup, loss, pred, test = regression(test_clone=True)
    exe = started((main, startup), scope)
    train = compiled(main, loss, 3)
    exe.run(train, feed=batch(6), fetch_list=[loss])
    infer = fluid.CompiledProgram(test).with_data_parallel(share_vars_from=train, places=fluid.cpu_places(3))
    l, p = exe.run(infer, feed=batch(2), fetch_list=[loss, pred])
    assert l.shape == (2,) and p.shape == (2, 1)
    ls, = exe.run(infer, feed=[batch(1), batch(2)], fetch_list=[loss], return_merged=False)
    assert len(ls) == 2


def test_persistable_feed_of_one_sample_is_copied_to_every_place(scope):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 3], dtype='float32')
        y = fluid.data(name='y', shape=[None, 1], dtype='float32')
        lr = fluid.layers.create_global_var(name='lr', shape=[1], value=0.1, dtype='float32', persistable=True)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(x, size=1), y))
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    exe = started((main, startup), scope)
    cp = compiled(main, loss, 3)
    out, = exe.run(cp, feed={**batch(6), 'lr': np.array([0.5], 'float32')}, fetch_list=['lr'])
    np.testing.assert_array_equal(out, [0.5, 0.5, 0.5])
    assert [float(np.array(s.find_var('lr').get_tensor())[0]) for s in cp._executor.scopes] == [0.5, 0.5, 0.5]
    out, = exe.run(cp, feed={**batch(6), 'lr': np.array([0.1, 0.2, 0.3], 'float32')}, fetch_list=['lr'])
    np.testing.assert_allclose(out, [0.1, 0.2, 0.3])
    np.testing.assert_allclose(np.array(scope.find_var('lr').get_tensor()), [0.1])      # place 0 is the user scope
    with pytest.raises(RuntimeError, match=r'The number\(2\) of samples\[lr\] of the current batch does not match '
                                           r'the count\(3\) of devices\(CPU\). Because that lr is a persistable'):
        exe.run(cp, feed={**batch(6), 'lr': np.array([0.1, 0.2], 'float32')}, fetch_list=['lr'])


def test_unknown_feed_and_fetch_names(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 2)
    with pytest.raises(ValueError, match='var zz not in this block'):
        exe.run(cp, feed={**batch(4), 'zz': np.zeros(2)}, fetch_list=[loss])
    with pytest.raises(RuntimeError, match=r'Cannot find fetched variable\(nonexist\)'):
        exe.run(cp, feed=batch(4), fetch_list=['nonexist'])


# --- fetches ----------------------------------------------------------------------------------------------------

def test_fetching_a_parameter_gives_every_places_copy(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 2)
    w, = exe.run(cp, feed=batch(4), fetch_list=['fc_0.w_0'])
    assert w.shape == (6, 1)
    np.testing.assert_array_equal(w[:3], w[3:])
    np.testing.assert_array_equal(w[:3], np.array(scope.find_var('fc_0.w_0').get_tensor()))
    w_each, = exe.run(cp, feed=batch(4), fetch_list=['fc_0.w_0'], return_merged=False)
    before = w_each[0].copy()
    exe.run(cp, feed=batch(4), fetch_list=[loss])
    np.testing.assert_array_equal(w_each[0], before)     # a fetched parameter is a copy, not the live buffer


def test_return_numpy_false_gives_lod_tensors(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    out, = exe.run(compiled(main, loss, 2), feed=batch(4), fetch_list=[loss], return_numpy=False)
    assert isinstance(out, LoDTensor) and np.array(out).shape == (2,)


# --- gradients --------------------------------------------------------------------------------------------------

def loss_grad_run(scale, n_places=2, feed_grad=None):
    main, startup, loss, *_ = regression(lr=1.0)
    s = fluid.Scope()
    with fluid.scope_guard(s):
        exe = started((main, startup), s)
        w0 = np.array(s.find_var('fc_0.w_0').get_tensor()).copy()
        bs = BS()
        bs.gradient_scale_strategy = scale
        cp = compiled(main, loss, n_places, build_strategy=bs)
        feed = batch(4)
        if feed_grad is not None:
            feed[loss.name + '@GRAD'] = feed_grad
        seeds, = exe.run(cp, feed=feed, fetch_list=[loss.name + '@GRAD'])
        return seeds, w0 - np.array(s.find_var('fc_0.w_0').get_tensor())


def test_loss_grad_is_seeded_by_the_gradient_scale_strategy():
    seeds, step_coeff = loss_grad_run(BS.GradientScaleStrategy.CoeffNumDevice)
    np.testing.assert_array_equal(seeds, [0.5, 0.5])
    seeds, step_one = loss_grad_run(BS.GradientScaleStrategy.One)
    np.testing.assert_array_equal(seeds, [1.0, 1.0])
    np.testing.assert_allclose(step_one, 2 * step_coeff, rtol=1e-5)
    seeds, step_custom = loss_grad_run(BS.GradientScaleStrategy.Customized,
                                       feed_grad=np.array([0.25, 0.75], 'float32'))
    np.testing.assert_array_equal(seeds, [0.25, 0.75])
    assert not np.allclose(step_custom, step_coeff)


def test_customized_scale_needs_the_user_to_feed_loss_grad():
    with pytest.raises((RuntimeError, ValueError), match=r"mean_0.tmp_0@GRAD"):
        loss_grad_run(BS.GradientScaleStrategy.Customized)


def test_sum_over_places_is_in_place_order():
    a, b, c = (np.array([v], np.float32) for v in (1e8, -1e8, 1.0))
    assert sum_in_place_order([a, b, c], 'g')[0] == np.float32((a[0] + b[0]) + c[0]) == 1.0
    assert sum_in_place_order([c, a, b], 'g')[0] == np.float32((c[0] + a[0]) + b[0]) == 0.0


def test_sparse_gradients_are_concatenated_in_place_order():
    g0 = SelectedRows([3, 1], np.ones((2, 2), np.float32), height=5)
    g1 = SelectedRows([1], np.full((1, 2), 2.0, np.float32), height=5)
    total = sum_in_place_order([g0, g1], 'emb@GRAD')
    assert total.rows.tolist() == [3, 1, 1] and total.height == 5
    np.testing.assert_array_equal(total.values, [[1, 1], [1, 1], [2, 2]])
    with pytest.raises(RuntimeError, match="'emb@GRAD' has no value on place 1"):
        sum_in_place_order([g0, None], 'emb@GRAD')


def test_allreduce_keeps_every_places_parameters_identical(scope):
    prog = regression(opt='adam', lr=0.05, hidden=4)
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 3)
    for k in range(3):
        exe.run(cp, feed=batch(9, seed=k), fetch_list=[loss])
    s0, s1, s2 = cp._executor.scopes
    for p in main.global_block().all_parameters():
        v0 = np.array(s0.find_var(p.name).get_tensor())
        assert s1.find_local_var(p.name) is not None                  # copied into the place's own scope
        for s in (s1, s2):
            np.testing.assert_array_equal(np.array(s.find_var(p.name).get_tensor()), v0)


def test_reduce_runs_each_update_once_on_shared_parameters(scope):
    prog = regression(opt='adam', lr=0.05, hidden=4)
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    bs = BS()
    bs.reduce_strategy = BS.ReduceStrategy.Reduce
    cp = compiled(main, loss, 2, build_strategy=bs)
    exe.run(cp, feed=batch(4), fetch_list=[loss])
    plan = cp._executor.plans.plans()[0]
    adam_nodes = [nd for nd in plan.nodes if nd.op is not None and nd.op.type == 'adam']
    assert len(adam_nodes) == len(main.global_block().all_parameters())
    assert {nd.place for nd in adam_nodes} == {0, 1}                        # owners balanced over the places
    s0, s1 = cp._executor.scopes
    for p in main.global_block().all_parameters():
        assert s1.find_var(p.name).tensor.value is s0.find_var(p.name).tensor.value


# --- iterations, drop scope, dry run ------------------------------------------------------------------------------

def test_num_iteration_per_run_runs_n_iterations_and_returns_the_last(scope):
    main, startup, loss, *_ = regression()
    exe = started((main, startup), scope)
    feed = batch(4)
    single = compiled(main, loss, 2)
    expected = [exe.run(single, feed=feed, fetch_list=[loss])[0] for _ in range(3)]
    w_expected = np.array(scope.find_var('fc_0.w_0').get_tensor()).copy()
    set_params(scope, main)
    es = fluid.ExecutionStrategy()
    es.num_iteration_per_run = 3
    out, = exe.run(compiled(main, loss, 2, exec_strategy=es), feed=feed, fetch_list=[loss])
    np.testing.assert_allclose(out, expected[-1], rtol=1e-6)
    np.testing.assert_allclose(np.array(scope.find_var('fc_0.w_0').get_tensor()), w_expected, rtol=1e-6)


@pytest.mark.parametrize('every, expected', [
    (1, [True] * 7),
    (3, [False, False, True, False, False, True, False]),      # what Paddle 1.8.5 prints
])
def test_drop_scope_counting_follows_paddle(monkeypatch, scope, every, expected):
    monkeypatch.setenv('CPU_NUM', '2')
    prog = regression()
    started(prog, scope)
    main, _, loss, *_ = prog
    es = fluid.ExecutionStrategy()
    es.num_iteration_per_drop_scope = every
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, exec_strategy=es)
    states = []
    for _ in range(7):
        pe.run(fetch_list=[loss.name], feed=batch(4))
        states.append(pe._need_create_local_exe_scopes())
    assert states == expected


def test_failed_runs_are_counted_too(monkeypatch, scope):
    monkeypatch.setenv('CPU_NUM', '2')
    prog = regression()
    started(prog, scope)
    main, _, loss, *_ = prog
    es = fluid.ExecutionStrategy()
    es.num_iteration_per_drop_scope = 2
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, exec_strategy=es)
    pe.run(fetch_list=[loss.name], feed=batch(4))
    with pytest.raises(RuntimeError):
        pe.run(fetch_list=[loss.name], feed=batch(1))
    assert pe._need_create_local_exe_scopes()


def test_drop_scope_before_the_first_run_is_a_type_error_as_in_paddle(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, _, loss, *_ = regression()
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
    with pytest.raises(TypeError, match='drop_local_exe_scopes'):
        pe.drop_local_exe_scopes()


def test_dry_run_skips_ops_and_needs_no_feed(monkeypatch, scope):
    monkeypatch.setenv('CPU_NUM', '2')
    prog = regression()
    started(prog, scope)
    main, _, loss, *_ = prog
    w = np.array(scope.find_var('fc_0.w_0').get_tensor()).copy()
    es = fluid.ExecutionStrategy()
    es._dry_run = True
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, exec_strategy=es)
    assert pe.run(fetch_list=[loss.name], feed=batch(4)) == [None]
    assert pe.run(fetch_list=[loss.name]) == [None]
    np.testing.assert_array_equal(np.array(scope.find_var('fc_0.w_0').get_tensor()), w)


# --- compiling ----------------------------------------------------------------------------------------------------

def test_compiled_program_checks(scope):
    main, _, loss, *_ = regression()
    with pytest.raises(TypeError, match='expected Graph or Program'):
        fluid.CompiledProgram('program')
    with pytest.raises(AssertionError, match='The loss name of CompiledProgram is None'):
        fluid.CompiledProgram(main).with_data_parallel()
    cp = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    with pytest.raises(AssertionError, match='Already compiled with parallel'):
        cp.with_data_parallel(loss_name=loss.name)


def test_a_compiled_program_keeps_its_scope(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 2)
    exe.run(cp, feed=batch(4), fetch_list=[loss])
    with pytest.raises(ValueError, match='Cannot compile program with different scope'):
        exe.run(cp, feed=batch(4), fetch_list=[loss], scope=fluid.Scope())


def test_multi_trainer_outside_a_job_is_refused(scope):
    """num_trainers = 2 works in a job of 2 trainer processes (tests/distributed); a lone process is told how to
    start one (issue 16: it raised NotImplementedError before multi-process training existed)."""
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    bs = BS()
    bs.num_trainers = 2
    with pytest.raises(RuntimeError, match='num_trainers = 2 and trainer_id = 0, but this process is trainer 0 of 1'):
        exe.run(compiled(main, loss, 2, build_strategy=bs), feed=batch(4), fetch_list=[loss])


def test_debug_graphviz_path_writes_dot_files(scope, tmp_path):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    bs = BS()
    bs.debug_graphviz_path = str(tmp_path / 'graph')
    exe.run(compiled(main, loss, 2, build_strategy=bs), feed=batch(4), fetch_list=[loss])
    compiled_dot = (tmp_path / 'graph_multi_devices_graph').read_text()
    original_dot = (tmp_path / 'graph_original_graph').read_text()
    assert compiled_dot.startswith('digraph G {') and 'all_reduce(fc_0.w_0@GRAD)' in compiled_dot
    assert 'place 1' in compiled_dot and '->' in compiled_dot
    assert 'mul_grad' in original_dot and 'all_reduce' not in original_dot


def test_sequential_execution_gives_the_same_numbers(scope):
    main, startup, loss, *_ = regression(opt='adam', hidden=4)
    exe = started((main, startup), scope)
    a = [exe.run(compiled(main, loss, 2), feed=batch(4, k), fetch_list=[loss])[0] for k in range(2)]
    set_params(scope, main)
    bs = BS()
    bs.enable_sequential_execution = True
    for k in range(2):
        got, = exe.run(compiled(main, loss, 2, build_strategy=bs), feed=batch(4, k), fetch_list=[loss])
        # a fresh CompiledProgram re-broadcasts; Adam's accumulators restart, the first step matches exactly
        if k == 0:
            np.testing.assert_array_equal(got, a[0])


# --- errors and threads -----------------------------------------------------------------------------------------

def test_an_op_failure_names_the_op_and_the_executor_stays_usable(scope):
    prog = regression()
    exe = started(prog, scope)
    main, _, loss, *_ = prog
    cp = compiled(main, loss, 2)
    exe.run(cp, feed=batch(4), fetch_list=[loss])
    bad = {'x': np.ones((4, 5), np.float32), 'y': np.ones((4, 1), np.float32)}  # [?, 3] var fed 5 columns
    bad_var = main.global_block().var('x')
    bad_var.need_check_feed = False                      # let the bad shape reach the ops
    try:
        with pytest.raises(ValueError, match=r"Error while running operator 'mul' \(inputs: X=\['x'\]"):
            for _ in range(3):
                exe.run(cp, feed=bad, fetch_list=[loss])
    finally:
        bad_var.need_check_feed = True
    out, = exe.run(cp, feed=batch(4), fetch_list=[loss])
    assert np.isfinite(out).all()


def test_the_pool_is_made_once_and_stopped_when_the_executor_goes(monkeypatch, scope):
    monkeypatch.setenv('CPU_NUM', '2')
    prog = regression(hidden=64)
    started(prog, scope)
    main, _, loss, *_ = prog
    es = fluid.ExecutionStrategy()
    es.num_threads = 3
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, exec_strategy=es)
    runner = pe._compiled_program._executor
    assert runner is None
    for _ in range(5):
        pe.run(fetch_list=[loss.name], feed=batch(64))
    runner = pe._compiled_program._executor
    assert isinstance(runner, Runner)
    policy = runner.policy
    for nd in runner.plans.plans()[0].nodes:
        nd.cost = 1.0                                      # force hand-offs so the pool exists
    pe.run(fetch_list=[loss.name], feed=batch(64))
    threads = policy.threads
    assert len(threads) == 2 and all(t.is_alive() for t in threads)
    pe.run(fetch_list=[loss.name], feed=batch(64))
    assert policy.threads == threads
    del pe, runner, policy
    gc.collect()
    for t in threads:
        t.join(5)
        assert not t.is_alive()
    assert not any(t.name.startswith('paddle_exec-pool') and t in threads for t in threading.enumerate())


def test_plain_executor_uses_the_policy_of_its_exec_strategy(scope):
    prog = regression()
    main, startup, loss, *_ = prog
    started(prog, scope)
    es = fluid.ExecutionStrategy()
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    plain = fluid.Executor(fluid.CPUPlace())
    a, = plain.run(main, feed=batch(4), fetch_list=[loss])
    set_params(scope, main)
    b, = exe.run(main, feed=batch(4), fetch_list=[loss])
    np.testing.assert_array_equal(a, b)
    assert es.num_threads == 4 and exe.runner.policy.num_threads == min(4, usable_cores())
    exe.close()
