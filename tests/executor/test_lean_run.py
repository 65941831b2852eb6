"""The lean run() (executor/recipes.py, lanes.py): what a run by recipe or lane keeps between runs, and what it must
notice.

A recipe keeps the scope's variable holders it found (until the scope erases a variable), calls a one-node plan's
step directly, and hands out fetched arrays the short way; a lane (from the third run with a feed signature on) does
the whole run with those baked in, a one-segment plan's generated function called straight from the feed. Each test
here fails if one of those shortcuts keeps something it must not: a value set between runs, an erased and remade
variable, a parent's variable shadowed later, a fetched array a later run writes into, a feed of another shape or
dtype, Paddle's drop-scope count, per-place fetches, the profiler, a failing op's name.
"""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor.config import ExecutorPolicy
from paddle_exec.framework import unique_name
from paddle_exec.framework.fetched_array import FetchedArray


def affine():
    """y = x @ w + b (one fc, no activation): an inference program whose answer is easy to compute by hand."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        y = fluid.layers.fc(x, 2)
    return main, startup, y


def expected(scope, x):
    w = np.array(scope.find_var('fc_0.w_0').get_tensor())
    b = np.array(scope.find_var('fc_0.b_0').get_tensor())
    return x @ w + b


@pytest.fixture(params=['0', 'sync'])
def mode(request, monkeypatch):
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', request.param)
    return request.param


def setup(scope):
    main, startup, y = affine()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return main, y, exe


X = np.arange(12, dtype='float32').reshape(4, 3) / 10


def recipe_of(exe):
    recipes = exe.runner.recipes
    assert len(recipes) == 1, 'the run did not take the lean path'
    return next(iter(recipes._entries.values()))


def test_a_value_set_between_runs_is_read_by_the_next_run(mode):
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    for _ in range(2):
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    assert recipe_of(exe).bound is not None
    scope.var('fc_0.w_0').get_tensor().set(np.full((3, 2), 0.5, 'float32'), fluid.CPUPlace())
    out, = exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)


def test_an_erased_and_remade_variable_is_read_from_its_new_holder(mode):
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    for _ in range(2):
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    scope.erase(['fc_0.w_0'])
    scope.var('fc_0.w_0').get_tensor().set(np.full((3, 2), -2.0, 'float32'), fluid.CPUPlace())
    out, = exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)
    assert float(out[0, 0]) == pytest.approx(float(X[0].sum() * -2.0 + np.array(scope.find_var(
        'fc_0.b_0').get_tensor())[0]))


def test_an_erased_variable_gives_the_missing_value_error_again(mode):
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    for _ in range(2):
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    scope.erase(['fc_0.b_0'])
    with pytest.raises(Exception) as err:
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    assert 'fc_0.b_0' in str(err.value)


def test_a_parents_variable_is_looked_up_every_run_so_a_later_kid_variable_shadows_it(mode):
    parent = fluid.Scope()
    main, y, exe = setup(parent)
    kid = parent.new_scope()
    for _ in range(2):
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=kid)
    assert recipe_of(exe).bound is None          # the parameters are the parent's: nothing is kept
    kid.var('fc_0.w_0').get_tensor().set(np.ones((3, 2), 'float32'), fluid.CPUPlace())
    out, = exe.run(main, feed={'x': X}, fetch_list=[y], scope=kid)
    np.testing.assert_allclose(out, expected(kid, X), rtol=1e-6)


def test_a_recipe_runs_in_whichever_scope_it_is_given(mode):
    a, b = fluid.Scope(), fluid.Scope()
    main, y, exe = setup(a)
    exe.run(fluid.default_startup_program(), scope=b)
    for n in ('fc_0.w_0', 'fc_0.b_0'):
        b.var(n).get_tensor().set(np.array(a.find_var(n).get_tensor()) * 3, fluid.CPUPlace())
    for scope in (a, a, b, a, b):
        out, = exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
        np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)


def test_fetched_arrays_are_fetched_views_that_later_runs_never_write(mode):
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    results = [exe.run(main, feed={'x': X * k}, fetch_list=[y], scope=scope)[0] for k in range(4)]
    for k, out in enumerate(results):
        assert type(out) is FetchedArray
        np.testing.assert_allclose(out, expected(scope, X * k), rtol=1e-6)
    w, = exe.run(main, feed={'x': X}, fetch_list=['fc_0.w_0'], scope=scope)
    w[...] = 7                                   # a fetched parameter is a copy: the scope keeps its own
    assert not np.any(np.array(scope.find_var('fc_0.w_0').get_tensor()) == 7)


def test_training_by_recipe_writes_the_parameters_back_to_the_scope(mode):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        t = fluid.layers.data(name='t', shape=[2], dtype='float32')
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(x, 2), t))
        fluid.optimizer.SGD(0.1).minimize(loss)
    scope = fluid.Scope()
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    exe.run(startup, scope=scope)
    feed = {'x': X, 't': np.ones((4, 2), 'float32')}
    before = np.array(scope.find_var('fc_0.w_0').get_tensor())
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]) for _ in range(5)]
    assert losses == sorted(losses, reverse=True) and losses[-1] < losses[0]
    assert not np.array_equal(before, np.array(scope.find_var('fc_0.w_0').get_tensor()))


def test_a_segment_without_in_place_updates_has_no_progress_and_still_names_a_failing_op(monkeypatch):
    """Only a segment that updates in place records the call in flight; any other is retried by the numpy tier on a
    failure, which raises the op's own error (as with segments off)."""
    from paddle_exec.executor.segment_node import SegmentNode
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 4), label))
    good = {'x': X, 'label': np.array([[0], [1], [2], [3]], 'int64')}
    bad = {'x': X, 'label': np.array([[0], [1], [9], [3]], 'int64')}
    errors = {}
    for mode in ('0', 'sync'):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        exe.run(main, feed=good, fetch_list=[loss], scope=scope)
        if mode == 'sync':
            segments = [n.segment for n in exe.runner.plans.plans()[-1].nodes if isinstance(n, SegmentNode)]
            assert segments and not any(s.tracked for s in segments)
            assert all('progress' not in s.code.source for s in segments)
            assert all(s.compiled is not None for s in segments)
        with pytest.raises(ValueError) as err:
            exe.run(main, feed=bad, fetch_list=[loss], scope=scope)
        errors[mode] = str(err.value)
    assert 'softmax_with_cross_entropy' in errors['sync'] and 'received label value 9' in errors['sync']
    assert errors['sync'] == errors['0']


def lane_setup(mode_name, monkeypatch, kind='Executor', every=None):
    """The affine program run 3 times (the third by lane) on an inline Executor or a CPU_NUM=1 ParallelExecutor:
    (run(feed, fetch) -> results, runner, scope, main, y)."""
    monkeypatch.setenv('CPU_NUM', '1')
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
    if every is not None:
        es.num_iteration_per_drop_scope = every
    if kind == 'Executor':
        exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
        run = lambda feed, fetch=None, **kw: exe.run(main, feed=feed, fetch_list=fetch or [y], scope=scope, **kw)
        runner = lambda: exe.runner
    else:
        exe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
        run = lambda feed, fetch=None, **kw: exe.run(fetch_list=fetch or [y.name], feed=feed, **kw)
        runner = lambda: exe._compiled_program._executor
    for _ in range(3):
        run({'x': X})
    assert len(runner().lanes) == 1, 'no lane was made'
    return run, runner, scope, main, y


@pytest.mark.parametrize('kind', ['Executor', 'ParallelExecutor'])
def test_a_lane_answers_for_other_shapes_dtypes_names_and_fetches_as_the_full_path_does(mode, monkeypatch, kind):
    run, runner, scope, main, y = lane_setup(mode, monkeypatch, kind)
    np.testing.assert_allclose(run({'x': X})[0], expected(scope, X), rtol=1e-6)
    x2 = np.ones((7, 3), 'float32')                            # another batch: another recipe, same answer
    np.testing.assert_allclose(run({'x': x2})[0], expected(scope, x2), rtol=1e-6)
    np.testing.assert_allclose(run({'x': X}, [y.name])[0], expected(scope, X), rtol=1e-6)   # by name
    w, out = run({'x': X}, ['fc_0.w_0', y.name])
    np.testing.assert_array_equal(w, np.array(scope.find_var('fc_0.w_0').get_tensor()))
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)
    x64 = X.astype('float64')                                  # layers.data converts an unchecked feed
    np.testing.assert_allclose(run({'x': x64})[0], expected(scope, X), rtol=1e-6)
    with pytest.raises(Exception):
        run({'x': np.ones((4, 5), 'float32')})                 # the shape check of the full path
    before = dict(runner().lanes)
    np.testing.assert_allclose(run({'x': X})[0], expected(scope, X), rtol=1e-6)
    assert runner().lanes.keys() == before.keys()


def test_a_checked_feed_keeps_paddles_errors_after_the_lane_is_made(mode, monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 3], dtype='float32')
        y = fluid.layers.fc(x, 2)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    for _ in range(3):
        exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)
    assert len(exe.runner.lanes) == 1
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={'x': X.astype('float64')}, fetch_list=[y], scope=scope)
    assert str(err.value) == "The data type of fed Variable 'x' must be 'float32', but received 'float64'"
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={'x': np.ones((4, 5), 'float32')}, fetch_list=[y], scope=scope)
    assert "'x'" in str(err.value)


def test_runs_by_lane_follow_paddles_drop_scope_count(mode, monkeypatch):
    """Paddle 1.8.5 prints [False, False, True, ...] for num_iteration_per_drop_scope = 3
    (test_parallel_executor.py, on 2 places); on one place the lanes count the same way."""
    run, runner, scope, main, y = lane_setup(mode, monkeypatch, 'ParallelExecutor', every=3)
    states = []
    for _ in range(7):
        run({'x': X})
        states.append(runner().need_create_local_exe_scopes())
    assert states == [False, False, True, False, False, True, False]     # 3 runs before: the counter at 0


def test_per_place_fetches_are_lists_on_the_lean_path_too(mode, monkeypatch):
    """return_merged=False gives one value per place (a list of one on one place), every run: the recipe path
    returned the bare value from the second run on."""
    monkeypatch.setenv('CPU_NUM', '1')
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel()
    for _ in range(4):
        merged, = exe.run(compiled, feed={'x': X}, fetch_list=[y], scope=scope)
        np.testing.assert_allclose(merged, expected(scope, X), rtol=1e-6)
    for _ in range(4):
        out, = exe.run(compiled, feed={'x': X}, fetch_list=[y], scope=scope, return_merged=False)
        assert isinstance(out, list) and len(out) == 1
        np.testing.assert_allclose(out[0], expected(scope, X), rtol=1e-6)


def test_the_profiler_sees_runs_of_a_program_that_has_a_lane(mode, monkeypatch, tmp_path, capsys):
    import json
    run, runner, scope, main, y = lane_setup(mode, monkeypatch)
    path = str(tmp_path / 'profile')
    with fluid.profiler.profiler('CPU', 'calls', path):
        for _ in range(3):
            run({'x': X})
    capsys.readouterr()
    ops = [e for e in json.load(open(path))['traceEvents'] if e.get('cat') == 'op']
    assert len([e for e in ops if e['name'] == 'mul']) == 3
    np.testing.assert_allclose(run({'x': X})[0], expected(scope, X), rtol=1e-6)     # and the lane after it


@pytest.mark.parametrize('kind', ['Executor', 'ParallelExecutor'])
def test_a_failing_op_is_named_by_a_lane_as_with_segments_off(monkeypatch, kind):
    """A training step (its segment updates in place) by lane: a bad label raises the op's own error, the same
    text as with segments off."""
    monkeypatch.setenv('CPU_NUM', '1')
    errors = {}
    for mode in ('0', 'sync'):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), unique_name.guard():
            x = fluid.layers.data(name='x', shape=[3], dtype='float32')
            label = fluid.layers.data(name='label', shape=[1], dtype='int64')
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 4), label))
            fluid.optimizer.SGD(0.1).minimize(loss)
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        if kind == 'Executor':
            exe = fluid.Executor(fluid.CPUPlace())
            run = lambda feed: exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
            runner = lambda: exe.runner
        else:
            exe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, scope=scope)
            run = lambda feed: exe.run(fetch_list=[loss.name], feed=feed)
            runner = lambda: exe._compiled_program._executor
        good = {'x': X, 'label': np.array([[0], [1], [2], [3]], 'int64')}
        bad = {'x': X, 'label': np.array([[0], [1], [9], [3]], 'int64')}
        losses = [float(np.asarray(run(good)[0]).reshape(-1)[0]) for _ in range(4)]
        assert losses == sorted(losses, reverse=True)
        if mode == 'sync':
            assert len(runner().lanes) == 1
        with pytest.raises(ValueError) as err:
            run(bad)
        errors[mode] = str(err.value)
    assert 'softmax_with_cross_entropy' in errors['sync'] and 'received label value 9' in errors['sync']
    assert errors['sync'] == errors['0']


def test_runs_alternating_between_batch_sizes_switch_lanes_without_making_them_again(mode, monkeypatch):
    run, runner, scope, main, y = lane_setup(mode, monkeypatch)
    x7 = np.ones((7, 3), 'float32')
    seen = []
    for k in range(8):
        x = X if k % 2 else x7
        np.testing.assert_allclose(run({'x': x})[0], expected(scope, x), rtol=1e-6)
        seen.append(runner().lanes[main._id])
    assert len({id(lane) for lane in seen}) == 2


@pytest.mark.parametrize('every', [0, 1, 3])
def test_the_drop_scope_counter_shows_paddles_count_and_scopes_worked_out_from_its_ticks(every):
    """A lane counts a run with one C call (the counter's tick); what a user reads is worked out from the ticks: the
    same as counting eagerly (Paddle's ParallelExecutor: the local scopes made at count 0, dropped every `every`)."""
    from paddle_exec.executor.runner import DropScopeCounter
    from paddle_exec.framework.scope import Scope
    parents = [Scope(), Scope()]
    counter = DropScopeCounter(parents, every)
    runs, made = 0, False                   # the eager model
    lists = {}                              # period -> the ids of the scope lists read in it
    for n in range(1, 9):
        counter.ticks.__next__()            # what a lane does
        runs += 1
        if every >= 1:
            period_end = runs % every == 0
            made = not period_end
            runs %= every
        else:
            made = True
        assert counter.runs == runs
        scopes = counter.local_exec_scopes
        assert (scopes != []) == made
        if made:
            assert [s.parent for s in scopes] == parents
            lists.setdefault(0 if every < 1 else (n - 1) // every, set()).add(id(scopes))
    assert all(len(ids) == 1 for ids in lists.values())     # one list per period, however often read
    counter.drop()
    assert counter.runs == 0 and counter.local_exec_scopes == []
    counter.count()
    assert counter.runs == (1 if every < 1 else 1 % every)


def serving_pe(monkeypatch, cls=None):
    """(pe, scope, y): an inline one-place ParallelExecutor of `affine` that has run three times (it has a lane)."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    monkeypatch.setenv('CPU_NUM', '1')
    scope = fluid.Scope()
    main, y, exe = setup(scope)
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
    pe = (cls or fluid.ParallelExecutor)(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
    for _ in range(3):
        pe.run(fetch_list=[y.name], feed={'x': X})
    return pe, scope, y


def test_a_parallel_executors_run_becomes_its_programs_lane_and_follows_it(monkeypatch):
    """After a run, `pe.run` is the lane itself (lanes.py make_entry) with run()'s signature; a run its checks
    refuse (another batch size) takes ParallelExecutor.run, which makes `pe.run` the new lane."""
    import inspect
    pe, scope, y = serving_pe(monkeypatch)
    runner, program = pe._compiled_program._executor, pe._compiled_program._program
    assert 'run' in vars(pe) and pe._entry_lane is runner.lanes[program._id]
    assert inspect.signature(pe.run) == inspect.signature(fluid.ParallelExecutor(
        use_cuda=False, main_program=program).run)
    np.testing.assert_allclose(pe.run(fetch_list=[y.name], feed={'x': X})[0], expected(scope, X), rtol=1e-6)
    first = pe._entry_lane
    x7 = np.ones((7, 3), 'float32')
    for _ in range(3):
        np.testing.assert_allclose(pe.run([y.name], feed={'x': x7})[0], expected(scope, x7), rtol=1e-6)
    assert pe._entry_lane is runner.lanes[program._id] and pe._entry_lane is not first
    np.testing.assert_allclose(pe.run([y.name], feed_dict={'x': X})[0], expected(scope, X), rtol=1e-6)


@pytest.mark.parametrize('how', ['close', 'executor'])
def test_a_closed_parallel_executor_still_refuses_to_run(monkeypatch, how):
    pe, scope, y = serving_pe(monkeypatch)
    if how == 'close':
        pe.close()
        assert 'run' not in vars(pe)
    else:
        pe._exe.close()                     # the executor inside: run() took the closed executor's error
    with pytest.raises(RuntimeError):
        pe.run(fetch_list=[y.name], feed={'x': X})


def test_a_policy_set_after_the_lane_was_made_runs_the_next_run(monkeypatch):
    """Runner.use_policy drops the lanes (they call the policy they were made with): the lane `pe.run` is steps
    aside too."""
    pe, scope, y = serving_pe(monkeypatch)
    runner = pe._compiled_program._executor
    policy, seen = runner.policy, []

    class Counting:
        def run(self, plan, values):
            seen.append(plan)
            return policy.run(plan, values)

        def close(self):
            policy.close()
    runner.use_policy(Counting())
    np.testing.assert_allclose(pe.run(fetch_list=[y.name], feed={'x': X})[0], expected(scope, X), rtol=1e-6)
    assert seen


def test_a_subclass_overriding_run_keeps_its_run(monkeypatch):
    calls = []

    class Logged(fluid.ParallelExecutor):
        def run(self, *args, **kwargs):
            calls.append(1)
            return super().run(*args, **kwargs)
    pe, scope, y = serving_pe(monkeypatch, Logged)
    np.testing.assert_allclose(pe.run(fetch_list=[y.name], feed={'x': X})[0], expected(scope, X), rtol=1e-6)
    assert 'run' not in vars(pe) and len(calls) == 4


def test_the_lane_a_parallel_executor_runs_by_does_not_keep_it_alive(monkeypatch):
    import gc
    import weakref
    pe, scope, y = serving_pe(monkeypatch)
    assert 'run' in vars(pe)
    gone = weakref.ref(pe)
    del pe
    gc.collect()
    assert gone() is None
