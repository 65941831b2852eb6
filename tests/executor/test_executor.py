"""The plain Executor: plan caching, Paddle's feed checks and messages, fetch semantics (copies, LoDTensor results,
names the program lacks), persistable feeds, and values freed after their last use."""
import warnings

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor import compile as compile_module
from paddle_exec.framework import unique_name


@pytest.fixture
def net():
    """x -> fc(4, relu) -> fc(1) -> square_error_cost with y -> mean, trained by SGD; a fresh scope."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 3], 'float32')
        y = fluid.data('y', [-1, 1], 'float32')
        h = fluid.layers.fc(x, 4, act='relu')
        pred = fluid.layers.fc(h, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(0)
    feed = {'x': rng.standard_normal((5, 3)).astype('float32'), 'y': rng.standard_normal((5, 1)).astype('float32')}
    return main, exe, scope, feed, loss


# --- plans ----------------------------------------------------------------------------------------------------

def test_plan_is_built_once_and_rebuilt_when_the_program_changes(net, monkeypatch):
    main, exe, scope, feed, loss = net
    built = []
    real = compile_module.build_plan
    monkeypatch.setattr(compile_module, 'build_plan', lambda *a, **k: built.append(a) or real(*a, **k))
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert len(built) == 1
    exe.run(main, feed=feed, fetch_list=[loss, 'fc_0.w_0'], scope=scope)     # another fetch list: another plan
    assert len(built) == 2
    with fluid.program_guard(main):
        fluid.layers.scale(loss, 2.0)
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert len(built) == 3


def test_values_are_freed_after_their_last_use(net, monkeypatch):
    main, _, scope, feed, loss = net
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '0')     # one node per op: this test reads the per-op plan's frees
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    plan = exe.runner.plans.plan(main, tuple(feed), (loss.name,), 1, exe.runner.config)
    name_of = {s: n for n, s in plan.slot_of.items()}
    kept = {'x', 'y', loss.name} | {v.name for v in main.list_vars() if v.persistable}
    freed_at = {name_of[s]: i for i, node in enumerate(plan.nodes) for s in node.free}
    assert freed_at, 'the plan frees nothing'
    assert not kept & set(freed_at)
    for name, i in freed_at.items():
        later = [nd.op.type for nd in plan.nodes[i + 1:] if name in nd.op.input_arg_names + nd.op.output_arg_names]
        assert not later, '%s freed after node %d but used later by %s' % (name, i, later)
    assert 'fc_0.tmp_2@GRAD' in freed_at and 'fc_1.w_0@GRAD' in freed_at


# --- feed checks ----------------------------------------------------------------------------------------------

def test_feed_of_the_wrong_shape_or_rank_names_variable_and_shapes(net):
    main, exe, scope, feed, loss = net
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={**feed, 'x': np.ones((2, 4), 'float32')}, fetch_list=[loss], scope=scope)
    assert str(err.value) == ("The fed Variable 'x' should have dimensions = 2, shape = (-1, 3), but received fed "
                              "shape [2, 4] on each device")
    with pytest.raises(ValueError, match=r"dimensions = 2, shape = \(-1, 3\), but received fed shape \[2, 3, 1\]"):
        exe.run(main, feed={**feed, 'x': np.ones((2, 3, 1), 'float32')}, fetch_list=[loss], scope=scope)


def test_feed_of_the_wrong_dtype_names_variable_and_dtypes(net):
    main, exe, scope, feed, loss = net
    with pytest.raises(ValueError) as err:
        exe.run(main, feed={**feed, 'x': feed['x'].astype('float64')}, fetch_list=[loss], scope=scope)
    assert str(err.value) == "The data type of fed Variable 'x' must be 'float32', but received 'float64'"


def test_python_lists_and_scalars_are_converted_to_the_variable_dtype(net):
    main, exe, scope, feed, loss = net
    got, = exe.run(main, feed={'x': feed['x'].tolist(), 'y': feed['y'].astype('float64').tolist()},
                   fetch_list=['x'], scope=scope)
    assert got.dtype == np.float32
    with pytest.raises(TypeError, match='nested lists with different lengths'):
        exe.run(main, feed={'x': [[1.0, 2.0, 3.0], [1.0]], 'y': feed['y']}, fetch_list=[loss], scope=scope)
    prog = fluid.Program()
    with fluid.program_guard(prog, fluid.Program()):
        s = fluid.data('s', [1], 'int64')
    got, = exe.run(prog, feed={'s': 7}, fetch_list=[s], scope=scope)
    assert got.dtype == np.int64 and got.tolist() == [7]


def test_missing_feed_names_the_variable_and_the_op(net):
    main, exe, scope, feed, loss = net
    with pytest.raises(RuntimeError) as err:
        exe.run(main, feed={'y': feed['y']}, fetch_list=[loss], scope=scope)
    message = str(err.value)
    assert "mul Op's Input Variable X(x) is not initialized" in message and "feed={'x': ...}" in message


def test_missing_parameter_says_to_run_the_startup_program(net):
    main, exe, _, feed, loss = net
    with pytest.raises(RuntimeError, match="Input Variable Y\\(fc_0.w_0\\) is not initialized.*startup program"):
        exe.run(main, feed=feed, fetch_list=[loss], scope=fluid.Scope())


def test_unknown_feed_is_dropped_with_paddles_warning(net):
    main, exe, scope, feed, loss = net
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        got, = exe.run(main, feed={**feed, 'nope': np.ones(3)}, fetch_list=[loss], scope=scope)
    assert got.shape == (1,)
    assert any('The variable nope is not found in program' in str(w.message) for w in caught)


# --- fetch ------------------------------------------------------------------------------------------------------

def test_unknown_fetch_names_it(net):
    main, exe, scope, feed, loss = net
    with pytest.raises(RuntimeError, match=r"Input variable\(nope\) cannot be found.*'Fetch'"):
        exe.run(main, feed=feed, fetch_list=['nope'], scope=scope)
    with pytest.raises(TypeError, match='fetch_list items'):
        exe.run(main, feed=feed, fetch_list=[3], scope=scope)


def test_fetch_of_a_name_only_the_scope_holds(net):
    main, exe, scope, feed, loss = net
    scope.var('elsewhere').get_tensor().set(np.array([1.0, 2.0], 'float32'))
    got, = exe.run(main, feed=feed, fetch_list=['elsewhere'], scope=scope)
    np.testing.assert_array_equal(got, [1.0, 2.0])


def test_fetched_persistables_and_feeds_are_copies(net):
    main, exe, scope, feed, loss = net
    w, x = exe.run(main, feed=feed, fetch_list=['fc_0.w_0', 'x'], scope=scope)
    before = np.array(scope.find_var('fc_0.w_0').get_tensor())
    np.testing.assert_array_equal(w, before)     # fetched after this run's SGD update
    w[...] = 123.0
    x[...] = 123.0
    np.testing.assert_array_equal(np.array(scope.find_var('fc_0.w_0').get_tensor()), before)
    assert not np.any(feed['x'] == 123.0)


def test_a_fetched_view_of_another_array_is_copied():
    """An op may return a view (a reshape of a parameter that SGD later updates in place): the result is copied."""
    from paddle_exec.executor import feed as feeding
    for return_numpy in (True, False):
        param = np.arange(6, dtype='float32')
        got = feeding.as_fetch_result(param.reshape(2, 3), return_numpy, copy=False)
        param += 1.0
        np.testing.assert_array_equal(np.array(got), np.arange(6, dtype='float32').reshape(2, 3))
    fresh = np.ones(3)
    assert feeding.as_fetch_result(fresh, True, copy=False) is fresh     # a value of this run only: no copy


def test_return_numpy_false_gives_lodtensors(net):
    main, exe, scope, feed, loss = net
    got, = exe.run(main, feed=feed, fetch_list=[loss], scope=scope, return_numpy=False)
    assert isinstance(got, fluid.LoDTensor) and got.shape() == [1]
    assert np.array(got).dtype == np.float32


def test_fetch_list_may_mix_variables_and_names_and_be_a_single_item(net):
    main, exe, scope, feed, loss = net
    a, b = exe.run(main, feed=feed, fetch_list=[loss, 'fc_1.tmp_1'], scope=scope)
    assert a.shape == (1,) and b.shape == (5, 1)
    single = exe.run(main, feed=feed, fetch_list=loss, scope=scope)
    assert len(single) == 1 and single[0].shape == (1,)
    assert exe.run(main, feed=feed, scope=scope) == []


# --- persistable feeds ----------------------------------------------------------------------------------------

def test_feeding_a_persistable_stores_it_in_the_scope_and_leaves_the_callers_array_alone(net):
    main, exe, scope, feed, loss = net
    w = np.full((3, 4), 0.5, 'float32')
    exe.run(main, feed={**feed, 'fc_0.w_0': w}, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(w, np.full((3, 4), 0.5, 'float32'))       # SGD updated the scope's copy
    stored = np.array(scope.find_var('fc_0.w_0').get_tensor())
    assert stored.shape == (3, 4) and not np.array_equal(stored, w)
    # the value fed is the one the run used: its forward with this w gives the loss fetched
    test = main.clone(for_test=True)
    exe2 = fluid.Executor(fluid.CPUPlace())
    l1, = exe2.run(test, feed={**feed, 'fc_0.w_0': w}, fetch_list=[loss.name], scope=scope)
    l2, = exe2.run(test, feed={**feed, 'fc_0.w_0': w}, fetch_list=[loss.name], scope=scope)
    np.testing.assert_array_equal(l1, l2)


def test_training_steps_reduce_the_loss(net):
    main, exe, scope, feed, loss = net
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0][0]) for _ in range(20)]
    assert losses[-1] < losses[0]


def test_closed_executor_refuses_to_run(net):
    main, exe, scope, feed, loss = net
    exe.close()
    with pytest.raises(RuntimeError, match='closed Executor'):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
