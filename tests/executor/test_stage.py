"""static.staged and the stage runtime (executor/stage.py): staged training computes what unstaged training does
(Executor and data-parallel CompiledProgram, num_iteration_per_run), end of data after the buffer drains,
producer errors naming the op, timeouts, backpressure, close/garbage collection, loader resets, and the
arguments and errors of `staged`."""
import gc
import logging
import threading
import time

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import unique_name


def runtimes_of(exe) -> list:
    """The stage runtimes an Executor's runner holds (one per staged program)."""
    runner = exe._runner
    return list(runner.stages.values()) if runner is not None else []



def batches(n, seed=0, rows=4):
    def gen():
        rng = np.random.RandomState(seed)
        for _ in range(n):
            yield [rng.rand(rows, 3).astype('float32'), rng.rand(rows, 1).astype('float32')]
    return gen


def regression(stage, capacity=2, num_threads=1, decode=None, loader_capacity=4, timeout_millis=300000):
    """x, y from a non-iterable DataLoader -> (decode) -> staged -> fc -> square loss -> SGD."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=loader_capacity, iterable=False)
        feat = x
        if decode is not None:
            feat = main.current_block().create_var(name='decoded', shape=[-1, 3], dtype='float32')
            static.py_func(decode, x, feat)
        if stage:
            feat, y = static.staged([feat, y], capacity=capacity, num_threads=num_threads,
                                    timeout_millis=timeout_millis)
        pred = fluid.layers.fc(feat, 1)
        loss = fluid.layers.reduce_mean(fluid.layers.square(pred - y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loader, loss


def train(main, startup, loader, loss, gen, epochs=2, program=None, scope=None, exe=None):
    exe = exe or fluid.Executor(fluid.CPUPlace())
    scope = scope or fluid.Scope()
    loader.set_batch_generator(gen)
    exe.run(startup, scope=scope)
    per_epoch = []
    for _ in range(epochs):
        with fluid.scope_guard(scope):
            loader.start()
        losses = []
        try:
            for _ in range(100):
                losses.append(exe.run(program or main, fetch_list=[loss], scope=scope)[0].copy())
        except fluid.core.EOFException:
            loader.reset()
        per_epoch.append(np.concatenate([v.reshape(-1) for v in losses]))
    return per_epoch, exe


# --- same numbers -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('num_threads', [1, 3])
def test_staged_training_gives_the_losses_of_unstaged_training(num_threads):
    plain, _ = train(*regression(False), batches(6))
    staged, exe = train(*regression(True, num_threads=num_threads), batches(6))
    assert [len(e) for e in staged] == [6, 6]
    for a, b in zip(plain, staged):
        np.testing.assert_array_equal(a, b)
    exe.close()


def test_staged_data_parallel_training_with_iterations_per_run_matches_unstaged():
    results = []
    for stage, threads in ((False, 1), (False, 2), (True, 2), (True, 2)):
        main, startup, loader, loss = regression(stage)
        es = fluid.ExecutionStrategy()
        es.num_iteration_per_run = 2
        es.num_threads = threads            # 1: the places' reads run in place order (the reference)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, exec_strategy=es,
                                                                   places=fluid.cpu_places(2))
        per_epoch, exe = train(main, startup, loader, loss, batches(9), program=compiled)
        results.append(per_epoch)
        exe.close()
    # 9 batches: two runs take 2 iterations x 2 places; the ninth batch alone ends the epoch
    assert [len(e) for e in results[2]] == [4, 4]
    for other in results[1:]:       # place p takes batch p of each round, whatever the threads do
        for a, b in zip(results[0], other):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_the_users_program_is_unchanged_and_data_variables_can_be_fetched():
    main, startup, loader, loss = regression(True)
    before = str(main)
    loader.set_batch_generator(batches(2))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        loader.start()
    x1, _ = exe.run(main, fetch_list=['x', loss], scope=scope)
    x2, = exe.run(main, fetch_list=['x'], scope=scope)
    first, second = [b[0] for b in batches(2)()]
    np.testing.assert_array_equal(x1, first)
    np.testing.assert_array_equal(x2, second)
    assert str(main) == before
    runtime, = runtimes_of(exe)
    assert [op.type for op in runtime.spec.physical.global_block().ops[:2]] == ['unstage', 'mul']
    assert 'stage' not in [op.type for op in runtime.spec.physical.global_block().ops]
    loader.reset()
    exe.close()


# --- end of data, errors, timeouts ------------------------------------------------------------------------------

def test_eof_reaches_run_only_after_every_buffered_batch_and_the_next_epoch_restarts():
    main, startup, loader, loss = regression(True, capacity=3)
    per_epoch, exe = train(main, startup, loader, loss, batches(5), epochs=3)
    assert [len(e) for e in per_epoch] == [5, 5, 5]
    assert not runtimes_of(exe)[0].threads          # the epoch ended: no producer left
    exe.close()


def test_a_producer_error_reaches_run_with_the_op_named_after_the_earlier_batches():
    calls = []

    def decode(x):
        calls.append(1)
        if len(calls) == 3:
            raise ValueError('bad record')
        return np.asarray(x) * 2
    main, startup, loader, loss = regression(True, capacity=4, decode=decode)
    loader.set_batch_generator(batches(5))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        loader.start()
    exe.run(main, fetch_list=[loss], scope=scope)
    exe.run(main, fetch_list=[loss], scope=scope)
    with pytest.raises(ValueError, match="operator 'py_func'.*bad record"):
        exe.run(main, fetch_list=[loss], scope=scope)
    # the next run starts producers again: they read on from the loader (batches 4 and 5), then EOF
    exe.run(main, fetch_list=[loss], scope=scope)
    exe.run(main, fetch_list=[loss], scope=scope)
    with pytest.raises(fluid.core.EOFException):
        exe.run(main, fetch_list=[loss], scope=scope)
    loader.reset()
    exe.close()


def test_a_run_waiting_past_timeout_millis_raises_naming_the_stage():
    def slow():
        time.sleep(5)
        yield from batches(1)()
    main, startup, loader, loss = regression(True, timeout_millis=200)
    loader.set_batch_generator(slow)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        loader.start()
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="staged 'staged_0': no batch arrived within timeout_millis=200"):
        exe.run(main, fetch_list=[loss], scope=scope)
    assert time.monotonic() - start < 3
    exe.close()


def test_a_loader_that_was_not_started_is_reported_not_waited_for():
    main, startup, loader, loss = regression(True)
    loader.set_batch_generator(batches(2))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(RuntimeError, match='is not started: call loader.start'):
        exe.run(main, fetch_list=[loss])
    loader.start()          # the producers waited for it: the same run now works
    exe.run(main, fetch_list=[loss])
    loader.reset()
    exe.close()


def test_a_put_waiting_past_timeout_millis_logs_and_drops_nothing(caplog):
    main, startup, loader, loss = regression(True, capacity=1, timeout_millis=100)
    loader.set_batch_generator(batches(3))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        loader.start()
    with caplog.at_level(logging.WARNING, logger='paddle_exec.stage'):
        exe.run(main, fetch_list=[loss], scope=scope)
        time.sleep(0.4)                       # the step dawdles: the producer's put waits
    assert any('still waiting, nothing is dropped' in r.getMessage() for r in caplog.records)
    got = [exe.run(main, fetch_list=['x'], scope=scope)[0] for _ in range(2)]
    for want, have in zip([b[0] for b in batches(3)()][1:], got):
        np.testing.assert_array_equal(want, have)
    loader.reset()
    exe.close()


# --- capacity, close, reset -----------------------------------------------------------------------------------

def test_producers_run_at_most_capacity_batches_ahead():
    decoded = []

    def decode(x):
        decoded.append(1)
        return np.asarray(x)
    main, startup, loader, loss = regression(True, capacity=2, decode=decode, loader_capacity=1)
    loader.set_batch_generator(batches(20))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    with fluid.scope_guard(scope):
        loader.start()
    taken = 0
    for steps in (1, 3):
        while taken < steps:
            exe.run(main, fetch_list=[loss], scope=scope)
            taken += 1
        time.sleep(0.3)
        # taken by the step + 2 in the buffer + 1 decoded by the producer, waiting to be put
        assert len(decoded) == taken + 2 + 1
    loader.reset()
    exe.close()


def producer_threads():
    return [t for t in threading.enumerate() if '-producer' in t.name and t.is_alive()]


def test_close_and_garbage_collection_stop_the_producers():
    main, startup, loader, loss = regression(True, num_threads=2)
    loader.set_batch_generator(batches(50))
    for how in ('close', 'gc'):
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        with fluid.scope_guard(scope):
            loader.start()
        exe.run(main, fetch_list=[loss], scope=scope)
        threads = runtimes_of(exe)[0].threads
        assert len(threads) == 2 and all(t.is_alive() for t in threads)
        if how == 'close':
            exe.close()
        else:
            del exe
            gc.collect()
        for t in threads:
            t.join(timeout=2)
        assert not any(t.is_alive() for t in threads)
        loader.reset()


def test_a_loader_reset_mid_epoch_drops_the_prefetched_batches():
    main, startup, loader, loss = regression(True, capacity=3)
    loader.set_batch_generator(batches(6))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    expected = [b[0] for b in batches(6)()]
    for _ in range(2):
        with fluid.scope_guard(scope):
            loader.start()
        got = [exe.run(main, fetch_list=['x'], scope=scope)[0] for _ in range(2)]
        time.sleep(0.2)                       # let the producers fill the buffer with batches 3..5
        loader.reset()
        for want, have in zip(expected, got):
            np.testing.assert_array_equal(want, have)       # each epoch starts from the first batch
    exe.close()


# --- the builder ------------------------------------------------------------------------------------------------

def test_staged_returns_the_structure_it_was_given_and_records_the_boundary():
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        a = fluid.data('a', [-1, 2], 'float32')
        b = fluid.data('b', [-1, 1], 'int64')
        one = static.staged(a)
        pair = static.staged((a, b), capacity=3, num_threads=2, timeout_millis=10)
        named = static.staged({'a': a, 'b': b}, name='feats')
    assert isinstance(one, fluid.Variable) and isinstance(pair, list) and set(named) == {'a', 'b'}
    assert named['b'].dtype == b.dtype and pair[0].shape == a.shape
    stages = main._stage_info['stages']
    assert [s['stage_name'] for s in stages] == ['staged_0', 'staged_1', 'feats']
    assert stages[1]['capacity'] == 3 and stages[1]['num_threads'] == 2 and stages[1]['timeout_millis'] == 10
    assert stages[2]['inputs'] == ['a', 'b'] and stages[2]['outputs'] == [named['a'].name, named['b'].name]
    clone = main.clone()
    assert clone._stage_info == main._stage_info


@pytest.mark.parametrize('kwargs, error', [
    ({'capacity': 0}, ValueError), ({'num_threads': 1.5}, ValueError), ({'timeout_millis': -1}, ValueError),
])
def test_staged_rejects_bad_settings(kwargs, error):
    with fluid.program_guard(fluid.Program()):
        a = fluid.data('a', [-1, 2], 'float32')
        with pytest.raises(error, match=list(kwargs)[0]):
            static.staged(a, **kwargs)
        with pytest.raises(TypeError, match='features'):
            static.staged(3)


def test_staging_what_depends_on_a_user_feed_is_refused_naming_it():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        a = fluid.data('a', [-1, 2], 'float32')
        s = static.staged(fluid.layers.scale(a, 2.0))
        out = fluid.layers.reduce_sum(s)
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(ValueError, match="depend on 'a', which the user feeds at each run"):
        exe.run(main, feed={'a': np.ones((1, 2), 'float32')}, fetch_list=[out], scope=fluid.Scope())


def test_a_staged_program_built_on_a_text_reader_is_planned_once_per_executor(tmp_path):
    path = tmp_path / 'n.txt'
    path.write_text('\n'.join(str(i) for i in range(4)))
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        lines = static.data_source.text_line_reader(str(path), batch_size=2)
        value, = static.decode_csv(lines, [[0.0]])
        total = fluid.layers.reduce_sum(static.staged(value))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    sums = []
    with pytest.raises(fluid.core.EOFException):
        for _ in range(5):
            sums.append(float(exe.run(main, fetch_list=[total], scope=scope)[0][0]))
    assert sums == [1.0, 5.0]
    assert len(runtimes_of(exe)) == 1
    exe.close()
