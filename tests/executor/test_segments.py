"""Compiled segments (issue 15): the pass (executor/passes/segments.py), the generated code and its cache
(codegen.py, jit_service.py), the tiers (segment_node.py), fusion and memory reuse, and the switches.

The oracle everywhere is the plain executor with segments off: a compiled run must compute the same numbers
(the benchmark models here to the bit; ops in general to float rounding, tests/kernels/test_segment_kernels.py),
and the numpy tier the compiled tier's numbers, to the bit for these models.
"""
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor.config import CompileOptions, ExecutorPolicy, RunConfig, compile_mode, read_environment
from paddle_exec.executor.jit_service import SERVICE
from paddle_exec.executor.segment_node import SegmentNode
from paddle_exec.framework import unique_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- programs -------------------------------------------------------------------------------------------------

def regression(hidden=0, act='relu', opt='sgd', fuse=False):
    """x[13] -> (fc(hidden, act)) -> fc(1) -> square_error_cost -> mean, trained by `opt`."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[13], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        h = fluid.layers.fc(x, hidden, act=act) if hidden else x
        pred = fluid.layers.fc(h, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        {'sgd': fluid.optimizer.SGD(0.01), 'adam': fluid.optimizer.Adam(0.01),
         'momentum': fluid.optimizer.Momentum(0.01, 0.9)}[opt].minimize(loss)
    return main, startup, loss


def classifier(batch_norm=False):
    """img[784] -> fc 32 relu -> fc 32 relu -> fc 10 -> softmax_with_cross_entropy -> mean, Adam."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        img = fluid.layers.data(name='img', shape=[784], dtype='float32')
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        h = fluid.layers.fc(fluid.layers.fc(img, 32, act='relu'), 32, act='relu')
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def regression_feed(batch, seed=0):
    rng = np.random.RandomState(seed)
    return {'x': rng.rand(batch, 13).astype('float32'), 'y': rng.rand(batch, 1).astype('float32')}


def classifier_feed(batch, seed=0):
    rng = np.random.RandomState(seed)
    return {'img': rng.rand(batch, 784).astype('float32'),
            'label': rng.randint(0, 10, (batch, 1)).astype('int64')}


def train(program, mode, feeds, monkeypatch, exec_strategy=None, init=None, fetch_params=True):
    """Runs `feeds` through a fresh executor with PADDLE_EXEC_COMPILE=mode from the same start: (losses, params,
    executor)."""
    main, startup, loss = program
    scope = fluid.Scope()
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '0')
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    names = sorted(v.name for v in main.list_vars() if v.persistable and scope.find_var(v.name) is not None)
    if init is not None:
        for n in names:
            scope.var(n).get_tensor().set(init[n], fluid.CPUPlace())
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=exec_strategy)
    losses = [exe.run(main, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds]
    params = {n: np.array(scope.find_var(n).get_tensor()) for n in names} if fetch_params else None
    return losses, params, exe


def initial(program, monkeypatch):
    main, startup, _ = program
    scope = fluid.Scope()
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '0')
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    return {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in main.list_vars()
            if v.persistable and scope.find_var(v.name) is not None}


def main_plan(exe, program_main=None):
    """The executor's most recently used plan (the main program's after a run of it)."""
    return exe.runner.plans.plans()[-1]


def segments_of(plan):
    return [nd.segment for nd in plan.nodes if isinstance(nd, SegmentNode)]


def assert_same(a, b):
    (la, pa), (lb, pb) = a, b
    for x, y in zip(la, lb):
        np.testing.assert_array_equal(x, y)
    assert sorted(pa) == sorted(pb)
    for k in pa:
        np.testing.assert_array_equal(pa[k], pb[k], err_msg=k)


# --- the pass ---------------------------------------------------------------------------------------------------

def test_a_training_step_becomes_one_segment_whose_parameters_are_updated_in_place(monkeypatch):
    program = regression(hidden=4)
    feeds = [regression_feed(8)]
    _, _, exe = train(program, 'sync', feeds, monkeypatch)
    plan = main_plan(exe)
    assert len(plan.nodes) == 1 and isinstance(plan.nodes[0], SegmentNode)
    seg = plan.nodes[0].segment
    types = [c.label for c in seg.calls]
    assert types[:3] == ['mul', 'elementwise_add', 'relu'] and types[-4:] == ['sgd'] * 4
    name_of = {s: n for n, s in plan.slot_of.items()}
    assert [name_of[s] for s in seg.outputs] == [program[2].name]          # only the fetched loss comes back
    assert {'fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0', 'x', 'y'} <= {name_of[s] for s in seg.inputs}
    assert [name_of[s] for s in seg.frees] == []                           # feeds and parameters live on


def test_an_op_without_a_segment_rule_splits_the_run_and_keeps_program_order(monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[6], dtype='float32')
        h = fluid.layers.scale(fluid.layers.relu(x), 2.0)
        g = fluid.layers.gelu(h)                    # gelu has no numpy twin: an ordinary node
        out = fluid.layers.scale(fluid.layers.exp(g), 0.5, bias=1.0)
        side = fluid.layers.scale(x, 3.0)           # independent of gelu
    feed = {'x': np.random.RandomState(1).randn(5, 6).astype('float32')}
    results = {}
    for mode in ('0', 'sync'):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
        exe = fluid.Executor(fluid.CPUPlace())
        results[mode] = exe.run(main, feed=feed, fetch_list=[out, side, h], scope=fluid.Scope())
    plan = main_plan(exe)
    kinds = [nd.segment.label if isinstance(nd, SegmentNode) else nd.op.type for nd in plan.nodes]
    assert 'gelu' in kinds and len(kinds) == 3, kinds
    before = kinds[:kinds.index('gelu')]
    after = kinds[kinds.index('gelu') + 1:]
    # the independent `side` joins the group open when it comes in program order: the one after gelu
    assert before == ['segment[relu, scale]'] and after == ['segment[exp, scale, scale]']
    for a, b in zip(results['0'], results['sync']):
        np.testing.assert_array_equal(a, b)


def test_the_parallel_policies_keep_independent_branches_as_separate_segments(monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[6], dtype='float32')
        a = fluid.layers.scale(fluid.layers.relu(x), 2.0)
        b = fluid.layers.scale(fluid.layers.sigmoid(x), 3.0)
    feed = {'x': np.ones((2, 6), 'float32')}
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    labels = {}
    for policy in (None, ExecutorPolicy.USE_NORMAL_EXECUTOR, ExecutorPolicy.USE_INLINE_EXECUTOR):
        es = None
        if policy is not None:
            es = fluid.ExecutionStrategy()
            es.executor_policy = policy
        exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
        exe.run(main, feed=feed, fetch_list=[a, b], scope=fluid.Scope())
        labels[policy] = sorted(s.label for s in segments_of(main_plan(exe)))
        exe.close()
    assert labels[None] == labels[ExecutorPolicy.USE_INLINE_EXECUTOR] == ['segment[relu, scale, sigmoid, scale]']
    assert labels[ExecutorPolicy.USE_NORMAL_EXECUTOR] == ['segment[relu, scale, sigmoid, scale]']   # small parts merge


def test_a_data_parallel_plan_has_one_segment_per_place_and_they_share_their_code(monkeypatch):
    program = regression(hidden=4, opt='adam')
    init = initial(program, monkeypatch)
    feeds = [regression_feed(8, s) for s in range(3)]
    results, codes = {}, None
    for mode in ('0', 'sync'):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
        monkeypatch.setenv('CPU_NUM', '2')
        main, startup, loss = program
        scope = fluid.Scope()
        for n, v in init.items():
            scope.var(n).get_tensor().set(v, fluid.CPUPlace())
        cp = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
        exe = fluid.Executor(fluid.CPUPlace())
        results[mode] = [exe.run(cp, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds]
        if mode == 'sync':
            plan = cp._executor.plans.plans()[-1]
            segs = segments_of(plan)
            codes = {s.code.key for s in segs}
            places = sorted(nd.place for nd in plan.nodes if isinstance(nd, SegmentNode))
    assert places == [0, 0, 1, 1]              # forward + backward before the all-reduce, the update after it
    assert len(codes) == 2                     # the two places' segments are the same code
    for a, b in zip(results['0'], results['sync']):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# --- numbers and tiers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize('make, feed, opt', [(regression, regression_feed, 'sgd'),
                                             (regression, regression_feed, 'momentum'),
                                             (regression, regression_feed, 'adam'),
                                             (classifier, classifier_feed, None)])
def test_every_tier_computes_the_numbers_of_the_plain_executor(make, feed, opt, monkeypatch):
    program = make(hidden=8, opt=opt) if opt else make()
    init = initial(program, monkeypatch)
    feeds = [feed(16, s) for s in range(3)]
    runs = {mode: train(program, mode, feeds, monkeypatch, init=init)[:2] for mode in ('0', 'reference', 'sync')}
    assert_same(runs['reference'], runs['sync'])          # the two tiers of a segment: to the bit
    assert_same(runs['0'], runs['sync'])                  # and the per-op executor (same BLAS routines)


def test_tiered_runs_the_numpy_tier_then_switches_once_compiled(monkeypatch):
    program = classifier()
    init = initial(program, monkeypatch)
    feeds = [classifier_feed(4, s) for s in range(6)]
    monkeypatch.setenv('PADDLE_EXEC_CACHE_DIR', os.environ.get('PADDLE_EXEC_CACHE_DIR', '') or
                       os.path.join(os.path.expanduser('~'), '.cache', 'paddle_exec'))
    main, startup, loss = program
    scope = fluid.Scope()
    for n, v in init.items():
        scope.var(n).get_tensor().set(v, fluid.CPUPlace())
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'tiered')
    exe = fluid.Executor(fluid.CPUPlace())
    got = [exe.run(main, feed=feeds[0], fetch_list=[loss], scope=scope)[0]]
    seg = segments_of(main_plan(exe))[0]
    assert seg.counts['reference'] == 1 and seg.compiled is None    # the first run never waits for numba
    got.append(exe.run(main, feed=feeds[1], fetch_list=[loss], scope=scope)[0])   # requests the compile
    assert SERVICE.wait(600)
    got += [exe.run(main, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds[2:]]
    assert seg.compiled is not None and seg.counts['ops'] == 0
    want, _, _ = train(program, '0', feeds, monkeypatch, init=init, fetch_params=False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_the_threaded_policy_probes_again_once_a_segment_runs_compiled(monkeypatch):
    """Its parallel / in-order choice, measured while the numpy tier ran, no longer holds once a segment is
    compiled: the plan's tier_changes moves and the next run starts a new probe."""
    from paddle_exec.executor.policies.threaded import _ModeChoice
    choice = _ModeChoice(probe_runs=2, hold_runs=100)
    modes = [choice.next_mode(0) for _ in range(5)]          # run 0 measures, runs 1-4 probe (parallel first)
    for _ in range(4):
        choice.record(True, 1.0)
    choice.times = {True: [1.0, 1.0], False: [2.0, 2.0]}
    assert modes[1:] == [True, False, True, False]
    assert [choice.next_mode(1) for _ in range(4)] == [True, False, True, False]    # a new epoch: a new probe
    assert choice.times == {True: [], False: []}

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[6], dtype='float32')
        g = fluid.layers.gelu(fluid.layers.scale(fluid.layers.relu(x), 2.0))    # gelu: an ordinary node
        out = fluid.layers.scale(fluid.layers.exp(g), 0.5, bias=1.0)
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'tiered')
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_NORMAL_EXECUTOR
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    scope = fluid.Scope()
    feed = {'x': np.ones((2, 6), 'float32')}
    exe.run(main, feed=feed, fetch_list=[out], scope=scope)       # the numpy tier
    plan = main_plan(exe)
    assert len(plan.nodes) == 3 and plan.tier_changes == [0]
    exe.run(main, feed=feed, fetch_list=[out], scope=scope)       # requests the code (loaded, or compiled aside)
    assert SERVICE.wait(600)
    exe.run(main, feed=feed, fetch_list=[out], scope=scope)   # compiled from here on
    segments = segments_of(plan)
    assert plan.tier_changes[0] == len(segments) and all(s.tier_changes is plan.tier_changes for s in segments)
    # the choice reads tier_changes as a run starts: a segment whose code was compiled aside (a cold cache) switches
    # during the run above, so the run after it starts the new probe
    exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    assert exe.runner.policy._choices[plan].epoch == plan.tier_changes[0]
    exe.close()


def test_the_numpy_tier_computes_inf_and_nan_silently_as_the_compiled_kernels_do(monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        y = fluid.layers.data(name='y', shape=[3], dtype='float32')
        out = fluid.layers.scale(fluid.layers.elementwise_mul(fluid.layers.scale(x, 2.0), y), 0.5)
    feed = {'x': np.array([[np.inf, 1.0, -np.inf]], 'float32'), 'y': np.array([[0.0, 2.0, 0.0]], 'float32')}
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'reference')
    exe = fluid.Executor(fluid.CPUPlace())
    with warnings.catch_warnings():
        warnings.simplefilter('error')                  # a RuntimeWarning from numpy would fail the run
        got = exe.run(main, feed=feed, fetch_list=[out], scope=fluid.Scope())[0]
    assert segments_of(main_plan(exe))[0].counts['reference'] == 1
    np.testing.assert_array_equal(np.isnan(got), [[True, False, True]])
    assert got[0, 1] == 2.0


@pytest.mark.parametrize('mode', ['tiered', 'sync'])
def test_complex_ops_stay_out_of_segments_and_keep_their_conjugate_gradients(mode, monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 3], dtype='complex64')
        y = fluid.data(name='y', shape=[None, 3], dtype='complex64')
        x.stop_gradient = False
        z = (x + y) * y
        grads = fluid.backward.gradients([z], [x])
    rng = np.random.RandomState(0)
    feed = {n: (rng.randn(2, 3) + 1j * rng.randn(2, 3)).astype('complex64') for n in ('x', 'y')}
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(main, feed=feed, fetch_list=[z] + grads, scope=fluid.Scope())
    assert segments_of(main_plan(exe)) == []
    np.testing.assert_allclose(got[0], (feed['x'] + feed['y']) * feed['y'], rtol=1e-6)
    np.testing.assert_allclose(got[1], np.conj(feed['y']), rtol=1e-6)      # d/dx of (x + y) * y, Paddle's conj


@pytest.mark.parametrize('mode', ['tiered', 'sync'])
def test_a_sum_of_bools_stays_out_of_segments_and_counts_them(mode, monkeypatch):
    import paddle_exec as paddle
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 3], dtype='bool')
        total = paddle.sum(x)
        rows = paddle.sum(x, axis=1)
    feed = {'x': np.array([[True, True, False], [True, True, True]])}
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[total, rows], scope=fluid.Scope())
    assert got[0].dtype == np.int64 and int(got[0]) == 5
    np.testing.assert_array_equal(got[1], [2, 3])


def test_a_new_batch_size_runs_the_same_machine_code(monkeypatch):
    program = regression(hidden=4)
    feeds = [regression_feed(b) for b in (32, 7, 64, 1)]
    _, _, exe = train(program, 'sync', feeds, monkeypatch)
    seg = segments_of(main_plan(exe))[0]
    assert len(seg.code.ready) == 1 and seg.counts['reference'] == 0 and seg.counts['ops'] == 0


def test_a_new_dtype_compiles_in_the_background_while_the_numpy_tier_runs(monkeypatch, tmp_path):
    bias = float(np.float32(1.0 + (os.getpid() % 997) / 1024))     # a key of this test run's own: nothing cached
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        out = fluid.layers.scale(fluid.layers.relu(x), 2.0, bias=bias)
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'tiered')
    monkeypatch.setenv('PADDLE_EXEC_CACHE_DIR', str(tmp_path))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    for _ in range(2):
        exe.run(main, feed={'x': np.ones((2, 3), 'float32')}, fetch_list=[out], scope=scope)
    assert SERVICE.wait(600)
    seg = segments_of(main_plan(exe))[0]
    exe.run(main, feed={'x': np.ones((2, 3), 'float32')}, fetch_list=[out], scope=scope)
    assert seg.compiled is not None
    before = dict(seg.counts)
    # an unchecked data variable converts its feed; a float64 array of another program variable is fed as is
    wide = np.arange(6, dtype='float64').reshape(2, 3)
    plan = main_plan(exe)
    values = plan.new_values()
    values[plan.feed_slots['x']] = wide
    plan.nodes[0].step(values)
    np.testing.assert_array_equal(values[plan.fetch_slots[0]], np.maximum(wide, 0) * np.float32(2.0) + bias)
    assert seg.counts['reference'] == before['reference'] + 1       # not waiting for the float64 compile
    assert SERVICE.wait(600)
    assert len(seg.code.ready) == 2


def test_inputs_the_kernels_cannot_take_run_the_ops_own_kernels(monkeypatch):
    """A parameter that is not C-contiguous cannot be updated in place by the segment: its ops run one by one
    (and copy, as the per-op kernels do), with the per-op executor's numbers."""
    program = regression(hidden=4)
    init = initial(program, monkeypatch)
    init['fc_0.w_0'] = np.asfortranarray(init['fc_0.w_0'])
    feeds = [regression_feed(8, s) for s in range(2)]
    got = train(program, 'sync', feeds, monkeypatch, init=init)
    seg = segments_of(main_plan(got[2]))[0]
    assert seg.counts['ops'] >= 1
    want = train(program, '0', feeds, monkeypatch, init=init)
    assert_same(got[:2], want[:2])


def test_a_failing_op_is_reported_with_the_op_and_paddles_words(monkeypatch):
    program = classifier()
    bad = classifier_feed(4)
    bad['label'][2, 0] = 12
    errors = {}
    for mode in ('0', 'sync'):
        with pytest.raises(ValueError) as err:
            train(program, mode, [classifier_feed(4), bad], monkeypatch)
        errors[mode] = str(err.value)
    assert 'softmax_with_cross_entropy' in errors['sync'] and 'received label value 12' in errors['sync']
    assert errors['sync'] == errors['0']


def test_the_cost_model_measures_segments(monkeypatch):
    monkeypatch.setenv('START_NODE_STATS_STEP', '1')
    monkeypatch.setenv('STOP_NODE_STATS_STEP', '3')
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_COST_MODEL_EXECUTOR
    program = regression(hidden=4)
    _, _, exe = train(program, 'sync', [regression_feed(8)] * 5, monkeypatch, exec_strategy=es)
    table = exe.cost_model()
    assert table and all(t.startswith('segment[') for _, t in table)
    exe.close()


def test_many_threads_serve_one_inline_parallel_executor_with_segments(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '1')
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[16], dtype='float32')
        out = fluid.layers.fc(fluid.layers.fc(x, 32, act='relu'), 4, act='sigmoid')
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    es = fluid.ExecutionStrategy()
    es.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
    feeds = [np.random.RandomState(k).rand(3, 16).astype('float32') for k in range(8)]
    want = [pe.run(feed={'x': f}, fetch_list=[out.name])[0] for f in feeds]
    wrong, errors = [], []

    def serve(k):
        try:
            for _ in range(200):
                got = pe.run(feed={'x': feeds[k]}, fetch_list=[out.name])[0]
                if not np.array_equal(got, want[k]):
                    wrong.append(k)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))
    threads = [threading.Thread(target=serve, args=(k,)) for k in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not wrong and not errors
    runner = pe._compiled_program._executor
    assert len(runner.recipes) == 1 and not runner._run_lock.locked()


# --- fusion and memory reuse ------------------------------------------------------------------------------------

def test_fuse_elewise_add_act_ops_fuses_inside_segments_with_the_same_numbers(monkeypatch):
    program = regression(hidden=8, act='relu', opt='adam')
    init = initial(program, monkeypatch)
    feeds = [regression_feed(16, s) for s in range(3)]
    runs = {}
    for fuse in (False, True):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
        monkeypatch.setenv('CPU_NUM', '1')
        main, startup, loss = program
        scope = fluid.Scope()
        for n, v in init.items():
            scope.var(n).get_tensor().set(v, fluid.CPUPlace())
        bs = fluid.BuildStrategy()
        bs.fuse_elewise_add_act_ops = fuse
        es = fluid.ExecutionStrategy()
        es.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
        cp = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=bs,
                                                            exec_strategy=es)
        exe = fluid.Executor(fluid.CPUPlace())
        losses = [exe.run(cp, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds]
        runs[fuse] = (losses, {n: np.array(scope.find_var(n).get_tensor()) for n in init})
        labels = [c.label for s in segments_of(cp._executor.plans.plans()[-1]) for c in s.calls]
        assert ('elementwise_add+relu' in labels) == fuse
        assert ('relu_grad+elementwise_add_grad' in labels) == fuse
    assert_same(runs[False], runs[True])


def test_memory_reuse_writes_a_dying_buffer_of_the_segment_and_nothing_else(monkeypatch):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[4], dtype='float32')
        a = fluid.layers.scale(x, 2.0)                  # a fresh buffer
        b = fluid.layers.relu(a)                         # a dies here: b may be written into it
        r = fluid.layers.reshape(b, [-1, 2, 2])          # a view of b
        c = fluid.layers.sigmoid(b)                      # b is viewed by r (fetched): never written
    feed = {'x': np.linspace(-1, 1, 8).reshape(2, 4).astype('float32')}
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(main, feed=feed, fetch_list=[r, c], scope=fluid.Scope())
    kernels = [c.kernel.py_func.__name__ for s in segments_of(main_plan(exe)) for c in s.calls]
    assert kernels == ['forward', 'forward_inplace', 'reshape_with_xshape', 'forward']
    np.testing.assert_array_equal(got[0], np.maximum(feed['x'] * 2, 0).reshape(-1, 2, 2))
    np.testing.assert_allclose(got[1], 1 / (1 + np.exp(-np.maximum(feed['x'] * 2, 0))), rtol=1e-6)


# --- the cache ------------------------------------------------------------------------------------------------

def test_generated_code_lives_in_the_user_cache_folder_and_a_second_process_loads_it(tmp_path):
    script = textwrap.dedent('''
        import os, numpy as np
        import paddle_exec.fluid as fluid
        from paddle_exec.executor.segment_node import SegmentNode
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = fluid.layers.data(name='x', shape=[3], dtype='float32')
            out = fluid.layers.scale(fluid.layers.tanh(fluid.layers.scale(x, 1.5)), 0.5, bias=0.25)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(main, feed={'x': np.ones((2, 3), 'float32')}, fetch_list=[out])
        seg = [nd.segment for nd in exe.runner.plans.plans()[-1].nodes if isinstance(nd, SegmentNode)][0]
        stats = seg.code._compiler.stats
        print(seg.code.path, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
    ''')
    env = dict(os.environ, PADDLE_EXEC_COMPILE='sync', PADDLE_EXEC_CACHE_DIR=str(tmp_path / 'cache'),
               NUMBA_CACHE_DIR=str(tmp_path / 'numba'), PYTHONPATH=ROOT)
    env.pop('CPU_NUM', None)
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-2000:]
        path, hits, misses = proc.stdout.split()
        runs.append((path, int(hits), int(misses)))
    assert runs[0][0] == runs[1][0] and runs[0][0].startswith(str(tmp_path / 'cache'))
    assert not runs[0][0].startswith(ROOT)
    assert runs[0][2] >= 1 and runs[1] == (runs[0][0], 1, 0)         # compiled once, then loaded


def test_equal_runs_of_ops_share_one_key_and_the_key_follows_the_attributes(monkeypatch):
    def key_of(scale):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), unique_name.guard():
            x = fluid.layers.data(name='x', shape=[3], dtype='float32')
            out = fluid.layers.scale(fluid.layers.relu(fluid.layers.data(name='y', shape=[3], dtype='float32')),
                                     scale)
            out = out + x
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'reference')
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(main, feed={'x': np.ones((1, 3), 'float32'), 'y': np.ones((1, 3), 'float32')}, fetch_list=[out])
        return segments_of(main_plan(exe))[0].code.key
    assert key_of(2.0) == key_of(2.0) != key_of(3.0)


# --- switches -------------------------------------------------------------------------------------------------

def test_the_switches_and_their_precedence():
    env = read_environment().with_values(PADDLE_EXEC_COMPILE='0')
    assert compile_mode(None, env) == 'off' and compile_mode(True, env) == 'tiered'
    assert compile_mode(None, env.with_values(PADDLE_EXEC_COMPILE='sync')) == 'sync'
    assert compile_mode(None, read_environment().with_values(PADDLE_EXEC_COMPILE='')) == 'tiered'
    with pytest.raises(ValueError, match='PADDLE_EXEC_COMPILE'):
        compile_mode(None, env.with_values(PADDLE_EXEC_COMPILE='fast'))
    es, bs = fluid.ExecutionStrategy(), fluid.BuildStrategy()
    assert es.compile_segments is None and bs.compile_segments is None
    with pytest.raises(ValueError, match='compile_segments'):
        es.compile_segments = 'fast'
    bs.compile_segments = 'sync'
    config = RunConfig.for_data_parallel(es, bs, 1, env=env)
    assert config.compile.mode == 'sync'                     # a strategy wins over the environment
    es.compile_segments = False
    assert RunConfig.for_data_parallel(es, bs, 1, env=env).compile.mode == 'off'   # ExecutionStrategy first
    bs.fuse_elewise_add_act_ops, bs.enable_inplace = True, False
    options = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), bs, 1, env=env).compile
    assert options.fuse_add_act and not options.reuse_memory and options.split_branches
    assert RunConfig.for_executor(None, env).compile == CompileOptions(
        'off', 2, False, True, False, RunConfig.for_executor(None, env).compile.cache_dir)
    folder = RunConfig.for_executor(None, env.with_values(PADDLE_EXEC_CACHE_DIR='/tmp/pe-cache')).compile.cache_dir
    assert folder == '/tmp/pe-cache'
