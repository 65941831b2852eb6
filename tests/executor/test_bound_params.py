"""Bound parameters (executor/bound.py): a serving lane hands its scope arrays to the compiled segment as one table
of addresses, checked by one holder tick (framework/scope.py HOLDER_TICK).

Each test fails if the table is used when it must not be: a holder replaced between runs (a new array, another
dtype, another shape, erased, reloaded by load_persistables or set_program_state) must be seen by the next run, with
the numbers of the usual path; the bound arrays stay alive while a table points into them; the lane steps aside to
its usual path for arrays a table cannot describe, and for feeds the bound code has no machine code for.
"""
import gc
import weakref

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor import bound as binding
from paddle_exec.executor.bound import returns_fresh
from paddle_exec.executor.codegen import segment_key
from paddle_exec.executor.jit_service import SERVICE
from paddle_exec.framework import unique_name
from paddle_exec.framework.fetched_array import FetchedArray
from paddle_exec.framework.scope import HOLDER_TICK, LoDTensor, Scope

X = (np.arange(24, dtype='float32').reshape(8, 3) - 10) / 7


def affine(size: int = 2, act=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        y = fluid.layers.fc(x, size, act=act)
    return main, startup, y


def expected(scope, x):
    w = np.asarray(scope.find_var('fc_0.w_0').get_tensor())
    b = np.asarray(scope.find_var('fc_0.b_0').get_tensor())
    return x @ w + b


@pytest.fixture(autouse=True)
def bind_at_once(monkeypatch):
    """Lanes here bind at their first request (a serving lane waits for binding.BIND_AFTER of them)."""
    monkeypatch.setattr(binding, 'BIND_AFTER', 0)


@pytest.fixture
def served(monkeypatch):
    """(run, scope, lane) of a warmed-up serving ParallelExecutor (inline, segments compiled at the first run)."""
    return serving_lane(monkeypatch)


def serving_lane(monkeypatch):
    """The `served` fixture's (run, scope, lane)."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    monkeypatch.setenv('CPU_NUM', '1')      # one place: a lane runs one-place plans
    main, startup, y = affine()
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    es = fluid.ExecutionStrategy()
    es.executor_policy = 'USE_INLINE_EXECUTOR'
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)

    def run(x=X):
        return pe.run(fetch_list=[y.name], feed={'x': x})[0]
    for _ in range(4):                      # the lane's first request learns its results' layout, the next binds
        run()
    lanes = pe._compiled_program._executor.lanes
    lane = next(iter(lanes.values()))
    return run, scope, lane


def tensor(scope, name: str) -> LoDTensor:
    return scope.find_var(name).get_tensor()


def bound(lane) -> bool:
    state = lane.binder.state[0]
    return state[1] is not None and state[0] == HOLDER_TICK[0]


def test_a_serving_lane_calls_its_segment_with_the_parameters_bound(served):
    run, scope, lane = served
    assert lane.binder is not None
    assert bound(lane)
    calls = []
    tick, fn, table, arrays, outputs = lane.binder.state[0]

    def counted(*args):
        calls.append(len(args))
        return fn(*args)
    lane.binder.state[0] = (tick, counted, table, arrays, outputs)
    out = run()
    assert calls == [3]                     # the table, the feed, the result array: the parameters are not arguments
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)
    assert table.dtype == np.int64 and table[0] == arrays[0].ctypes.data


@pytest.mark.parametrize('how', ['set', 'value', 'set_value'])
def test_a_parameter_replaced_between_runs_is_read_by_the_next_run(served, how):
    run, scope, lane = served
    new = np.full((3, 2), 0.25, 'float32')
    if how == 'set':
        tensor(scope, 'fc_0.w_0').set(new, fluid.CPUPlace())
    elif how == 'value':
        tensor(scope, 'fc_0.w_0').value = new
    else:
        scope.find_var('fc_0.w_0').set_value(new)
    out = run()
    np.testing.assert_allclose(out, X @ new + np.asarray(tensor(scope, 'fc_0.b_0')), rtol=1e-6)
    assert bound(lane)                      # bound again, to the new array
    assert lane.binder.state[0][3][0] is tensor(scope, 'fc_0.w_0').value


def test_a_parameter_updated_in_place_is_read_without_a_new_table(served):
    run, scope, lane = served
    table = lane.binder.state[0][2]
    tensor(scope, 'fc_0.b_0').value[...] = 3.0
    out = run()
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)
    assert lane.binder.state[0][2] is table


def test_a_parameter_of_another_dtype_gives_the_usual_paths_numbers(served):
    run, scope, lane = served
    w64 = np.asarray(tensor(scope, 'fc_0.w_0')).astype('float64') * 2
    tensor(scope, 'fc_0.w_0').value = w64
    out = run()
    gold = X.astype('float64') @ w64 + np.asarray(tensor(scope, 'fc_0.b_0'))
    np.testing.assert_allclose(out, gold, rtol=1e-5)
    # and back to float32: the first table's code again
    tensor(scope, 'fc_0.w_0').value = w64.astype('float32')
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)
    assert bound(lane)


def test_a_parameter_of_another_shape_is_read_by_the_next_run(served):
    run, scope, lane = served
    w = np.linspace(-1, 1, 15, dtype='float32').reshape(3, 5)
    b = np.arange(5, dtype='float32')
    tensor(scope, 'fc_0.w_0').value = w
    tensor(scope, 'fc_0.b_0').value = b
    out = run()
    assert out.shape == (8, 5)
    np.testing.assert_allclose(out, X @ w + b, rtol=1e-6)
    assert lane.binder.outputs == (((8, 5), np.dtype('float32'), True),)     # learned again, not given up
    np.testing.assert_allclose(run(), X @ w + b, rtol=1e-6)
    assert bound(lane) and tuple(lane.binder.state[0][2][1:3]) == (3, 5)


def test_an_erased_parameter_gives_the_missing_value_error_then_its_new_holder_is_read(served):
    run, scope, lane = served
    scope.erase(['fc_0.b_0'])
    with pytest.raises(Exception) as err:
        run()
    assert 'fc_0.b_0' in str(err.value)
    scope.var('fc_0.b_0').get_tensor().set(np.full(2, -1.5, 'float32'), fluid.CPUPlace())
    for _ in range(3):
        np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)


def test_parameters_reloaded_by_load_persistables_and_set_program_state_are_read(served, tmp_path):
    run, scope, lane = served
    before = run()
    saved = {n: np.asarray(tensor(scope, n)) for n in ('fc_0.w_0', 'fc_0.b_0')}
    exe = fluid.Executor(fluid.CPUPlace())
    prog = affine()[0]
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path), prog)
        tensor(scope, 'fc_0.w_0').value = saved['fc_0.w_0'] * 0
        np.testing.assert_allclose(run(), np.broadcast_to(saved['fc_0.b_0'], (8, 2)), rtol=1e-6)
        fluid.io.load_persistables(exe, str(tmp_path), prog)
    np.testing.assert_allclose(run(), before, rtol=1e-6)
    with fluid.scope_guard(scope):
        fluid.io.set_program_state(prog, {'fc_0.w_0': saved['fc_0.w_0'] * 3, 'fc_0.b_0': saved['fc_0.b_0']})
    np.testing.assert_allclose(run(), X @ (saved['fc_0.w_0'] * 3) + saved['fc_0.b_0'], rtol=1e-5)


def test_the_bound_arrays_stay_alive_until_a_new_table_replaces_them(served):
    run, scope, lane = served
    old = tensor(scope, 'fc_0.w_0').value
    gone = weakref.ref(old)
    table = lane.binder.state[0][2].copy()
    del old
    tensor(scope, 'fc_0.w_0').value = np.ones((3, 2), 'float32')
    gc.collect()
    assert gone() is not None               # still in the state a request may be using
    assert lane.binder.state[0][2][0] == table[0]
    run()
    gc.collect()
    assert gone() is None                   # the new table let it go


@pytest.mark.parametrize('kind', ['fortran', 'readonly', 'strided'])
def test_a_parameter_a_table_cannot_describe_takes_the_usual_path(served, kind):
    run, scope, lane = served
    w = np.asarray(tensor(scope, 'fc_0.w_0'))
    b = np.asarray(tensor(scope, 'fc_0.b_0'))
    if kind == 'fortran':
        new = np.asfortranarray(np.arange(6, dtype='float32').reshape(3, 2))
        tensor(scope, 'fc_0.w_0').value = new
        gold = X @ new + b
    elif kind == 'readonly':
        new = w.copy()
        new.flags.writeable = False
        tensor(scope, 'fc_0.w_0').value = new
        gold = X @ w + b
    else:
        new = np.arange(4, dtype='float32')[::2]
        tensor(scope, 'fc_0.b_0').value = new
        gold = X @ w + new
    for _ in range(2):
        np.testing.assert_allclose(run(), gold, rtol=1e-6)
    assert lane.binder.state[0][1] is None and lane.binder.state[0][0] == HOLDER_TICK[0]


def test_a_feed_the_bound_code_was_not_compiled_for_gives_the_usual_paths_numbers(served):
    run, scope, lane = served
    x = np.asfortranarray(X)                # same shape and dtype, another layout: numba has no code for it
    np.testing.assert_allclose(run(x), expected(scope, X), rtol=1e-6)
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)


def test_the_holder_tick_moves_on_every_replacement_and_erase_not_on_reads_or_in_place_updates():
    scope = Scope()
    t = scope.var('a').get_tensor()
    seen = [HOLDER_TICK[0]]

    def moved() -> bool:
        seen.append(HOLDER_TICK[0])
        return seen[-1] != seen[-2]
    t.set(np.zeros(3), fluid.CPUPlace())
    assert moved()
    t.value = np.ones(3)
    assert moved()
    scope.find_var('a').set_value(np.ones(2))
    assert moved()
    t.value[...] = 5
    _ = t.value, np.asarray(t), t.shape()
    assert not moved()
    scope.erase(['a'])
    assert moved()
    assert len(set(seen)) == len(seen) - 1  # never back to a tick it had


def test_only_segments_returning_fresh_arrays_are_bound(served):
    run, scope, lane = served
    segment = lane.binder.segment
    assert returns_fresh(segment)
    call = segment.calls[-1]
    fresh, call.fresh = call.fresh, False   # as a view of an input would be: a carray has no owner
    try:
        assert not returns_fresh(segment)
    finally:
        call.fresh = fresh


def test_the_bound_code_holds_no_address_and_one_layout_is_one_key(served):
    run, scope, lane = served
    code = lane.binder._codes[next(iter(lane.binder._codes))]
    assert 'carray(address_at(table[0]), (table[1], table[2],), np.float32)' in code.source
    assert str(int(lane.binder.state[0][2][0])) not in code.source
    assert code.key == segment_key(code.source)
    tensor(scope, 'fc_0.w_0').value = np.asarray(tensor(scope, 'fc_0.w_0')) + 1
    run()
    assert len(lane.binder._codes) == 1     # a new array of the same layout: a new table, the same code


def test_a_tiered_lane_binds_once_its_bound_code_is_compiled(monkeypatch):
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '1')
    main, startup, y = affine(act='relu')
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    gold = np.maximum(expected(scope, X), 0)
    for _ in range(5):
        np.testing.assert_allclose(exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)[0], gold, rtol=1e-6)
        SERVICE.wait()
    lane = next(iter(exe.runner.lanes.values()))
    np.testing.assert_allclose(exe.run(main, feed={'x': X}, fetch_list=[y], scope=scope)[0], gold, rtol=1e-6)
    assert bound(lane)


def test_the_bound_code_is_in_numbas_disk_cache_for_the_next_process(served):
    run, scope, lane = served
    code = next(iter(lane.binder._codes.values()))
    signature = next(iter(code.ready))
    assert code.is_cached(signature)        # a second process loads it (jit_service.py), as it loads the segment


def train(mode: str, monkeypatch) -> tuple:
    """Ten SGD steps of a linear regression on a ParallelExecutor: (the parameters after them, the lane)."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    monkeypatch.setenv('CPU_NUM', '1')
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 3
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        t = fluid.layers.data(name='t', shape=[1], dtype='float32')
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(x, 1), t))
        fluid.optimizer.SGD(0.1).minimize(loss)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, scope=scope)
    feed = {'x': X, 't': X.sum(1, keepdims=True)}
    for _ in range(10):
        pe.run(feed=feed, fetch_list=[loss.name])
    lane = next(iter(pe._compiled_program._executor.lanes.values()), None)
    return {n: np.asarray(tensor(scope, n)) for n in ('fc_0.w_0', 'fc_0.b_0')}, lane


def test_a_training_lane_updates_its_bound_parameters_in_place_as_segments_off_does(monkeypatch):
    bound_params, lane = train('sync', monkeypatch)
    assert lane is not None and bound(lane)      # SGD updates in place: the table's arrays are the parameters
    assert lane.binder.state[0][4] is None       # a tracked segment returns its results (no into variant)
    plain, _ = train('off', monkeypatch)
    for name, value in plain.items():
        np.testing.assert_array_equal(bound_params[name], value)


def test_a_lane_asks_for_its_bound_code_only_once_hot(served, monkeypatch):
    """A lane that served a few requests never compiles its bound code (binding.BIND_AFTER); code numba's disk cache
    holds would be loaded at once, this one is not there."""
    run, scope, lane = served
    binder = lane.binder
    monkeypatch.setattr(binding, 'BIND_AFTER', 5)
    binder.state[0] = binding._UNBOUND
    binder._misses = 0
    code = _NotCached()
    monkeypatch.setattr(binding.Binder, '_code', lambda self, layout, into: code)
    for _ in range(5):
        run()
    assert binder._misses == 5 and code.compiled == [] and code.checked == 1    # the disk cache read once
    run()                                   # the sixth request: hot, compiled now ('sync' mode)
    assert len(code.compiled) == 1 and code.checked == 2
    assert binder.state[0][1] is None       # this stand-in compiles nothing: the usual path still runs


class _NotCached:
    """A bound code numba's disk cache does not hold; records what the binder asks of it."""
    ready = failed = ()

    def __init__(self):
        self.compiled, self.checked = [], 0

    def is_cached(self, signature):
        self.checked += 1
        return False

    def compile(self, signature):
        self.compiled.append(signature)
        return False


def test_small_results_are_written_into_arrays_the_lane_makes(served):
    """The into variant (bound.py, codegen.py `into`): the segment writes its result into an array the lane
    allocated for the shape the first request returned, returns 0, and the fetch is a FetchedArray of it."""
    run, scope, lane = served
    outputs = lane.binder.state[0][4]
    assert outputs == (((8, 2), np.dtype('float32'), True),)
    code = lane.binder._codes[next(k for k in lane.binder._codes if k[1])]
    assert 'return 0' in code.source and 'write_same(o' in code.source
    out = run()
    assert type(out) is FetchedArray
    assert out.base is not None and out.base.base is None   # a view of the array the lane made, which owns its data
    np.testing.assert_allclose(out, expected(scope, X), rtol=1e-6)
    again = run()
    assert not np.shares_memory(out, again)                 # every request its own array
    np.testing.assert_allclose(out, again, rtol=0)


def test_an_into_result_of_another_shape_takes_the_usual_path_then_the_plain_variant(served):
    """A result whose shape is not the learned one (a shape that depends on the data): the into call reports it,
    the request takes the usual path (the same numbers), and the binder binds the plain variant from then on."""
    run, scope, lane = served
    binder = lane.binder
    binder.outputs = (((4, 4), np.dtype('float32'), True),)   # as if the first request had returned another shape
    binder.state[0] = binding._UNBOUND
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)
    assert binder.outputs is False and binder.state[0][1] is None
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)
    assert bound(lane) and binder.state[0][4] is None           # the plain bound variant: results returned
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)


def test_results_larger_than_into_bytes_are_returned_by_the_plain_variant(monkeypatch):
    """Copying a large result into the lane's array would cost more than numba's boxing of it."""
    monkeypatch.setattr(binding, 'INTO_BYTES', 63)            # the 8 x 2 float32 result is 64 bytes
    run, scope, lane = serving_lane(monkeypatch)
    assert lane.binder.outputs is False and bound(lane) and lane.binder.state[0][4] is None
    np.testing.assert_allclose(run(), expected(scope, X), rtol=1e-6)


@pytest.mark.parametrize('return_numpy', [True, False])
def test_into_fetches_keep_the_fetch_rules(monkeypatch, return_numpy):
    """A 1-d result of several elements stays a plain ndarray, return_numpy=False gives LoDTensors, and a fetched
    feed (an argument, not a result) is fetched as the usual path fetches it."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    monkeypatch.setenv('CPU_NUM', '1')
    main, startup, y = affine()
    with fluid.program_guard(main, startup), unique_name.guard('s'):
        s = fluid.layers.reduce_sum(y, dim=1)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    es = fluid.ExecutionStrategy()
    es.executor_policy = 'USE_INLINE_EXECUTOR'
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
    got = [pe.run(fetch_list=[s.name, y.name], feed={'x': X}, return_numpy=return_numpy) for _ in range(5)]
    lane = next(iter(pe._compiled_program._executor.lanes.values()))
    assert bound(lane) and lane.binder.state[0][4] is not None
    for first, last in zip(got[0], got[-1]):
        assert type(first) is type(last)
        np.testing.assert_array_equal(np.asarray(first), np.asarray(last))
    if return_numpy:
        assert type(got[-1][0]) is np.ndarray and got[-1][0].shape == (8,)
        np.testing.assert_allclose(got[-1][0], expected(scope, X).sum(1), rtol=1e-5)
    else:
        assert isinstance(got[-1][0], LoDTensor)
