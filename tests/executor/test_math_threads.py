"""FLAGS_paddle_num_threads: the BLAS threads an executor holds from its first run until it is closed or collected
(policies/base.py `MATH_THREADS`), and the process-wide hold behind it (kernels/blas.py BLAS_THREADS).

The BLAS thread count is read from inside a run by a py_func op (or a wrapped compiled segment, for the lean path),
through the library's own function (what the hold sets; threadpoolctl's controller of OpenBLAS would ignore limits
set from a second thread)."""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.executor import bound
from paddle_exec.executor.jit_service import SERVICE
from paddle_exec.executor.policies.base import MATH_THREADS
from paddle_exec.framework import unique_name
from paddle_exec.kernels.blas import BLAS_THREADS, BlasThreads, _controllers, limited_threads, one_thread

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTROLLERS = [lc for _, lc in _controllers()]
pytestmark = pytest.mark.skipif(not CONTROLLERS, reason='threadpoolctl finds no BLAS library')


def blas_threads() -> int:
    return CONTROLLERS[0].get_num_threads()


@pytest.fixture
def two_blas_threads():
    """The library set to 2 threads for the test (it may run on 1 on a 1-core machine), its setting back after.
    Executors left by earlier tests are collected first: a live one holds the library at its flag's value."""
    gc.collect()
    if MATH_THREADS.leases:
        pytest.skip('an executor of an earlier test is still alive and holds the BLAS threads')
    before = blas_threads()
    CONTROLLERS[0].set_num_threads(2)
    if blas_threads() < 2:
        CONTROLLERS[0].set_num_threads(before)
        pytest.skip('the BLAS runs on one thread here')
    yield
    CONTROLLERS[0].set_num_threads(before)


def probe_program():
    """x -> py_func (records the BLAS threads it sees) -> y."""
    seen = []

    def probe(x):
        seen.append(blas_threads())
        return np.array(x)

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[2], dtype='float32')
        y = main.global_block().create_var(name='y', shape=[-1, 2], dtype='float32')
        fluid.layers.py_func(probe, x, y)
    return main, y, seen


def run_probe(policy=None):
    main, y, seen = probe_program()
    es = None
    if policy:
        es = fluid.ExecutionStrategy()
        es.executor_policy = policy
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[y], scope=fluid.Scope())
    exe.close()
    return seen


@pytest.mark.parametrize('policy', [None, 'USE_NORMAL_EXECUTOR', 'USE_INLINE_EXECUTOR', 'USE_COST_MODEL_EXECUTOR'])
def test_a_run_gets_paddles_default_of_one_blas_thread_and_numpy_gets_its_own_back(two_blas_threads, policy):
    assert paddle.get_flags('FLAGS_paddle_num_threads') == {'FLAGS_paddle_num_threads': 1}
    assert run_probe(policy) == [1]
    assert blas_threads() == 2
    assert BLAS_THREADS.holding() == ()


def test_an_executor_holds_the_threads_between_runs_and_gives_them_back_when_closed(two_blas_threads):
    """Paddle sets its math library's threads once: the hold lives from the first run to close(), so a run pays
    only a check (taking and giving back the hold per run cost 2.7 us)."""
    main, y, seen = probe_program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    assert blas_threads() == 2 and MATH_THREADS.leases == 0         # nothing held before the first run
    for _ in range(3):
        exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[y], scope=scope)
        assert blas_threads() == 1 and BLAS_THREADS.holding() == (1,)     # between runs too
    assert seen == [1, 1, 1] and MATH_THREADS.leases == 1
    exe.close()
    assert blas_threads() == 2 and BLAS_THREADS.holding() == () and MATH_THREADS.leases == 0
    exe.close()                                                       # a second close gives nothing back twice
    assert MATH_THREADS.leases == 0


def test_a_collected_executor_gives_its_hold_back(two_blas_threads):
    main, y, seen = probe_program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[y], scope=fluid.Scope())
    assert blas_threads() == 1
    del exe
    gc.collect()
    assert blas_threads() == 2 and BLAS_THREADS.holding() == () and MATH_THREADS.leases == 0


def test_a_dropped_parallel_executor_gives_its_hold_back_and_the_last_holder_restores(two_blas_threads,
                                                                                      monkeypatch):
    monkeypatch.setenv('CPU_NUM', '1')
    main, y, seen = probe_program()
    scope = fluid.Scope()
    feed = {'x': np.ones((1, 2), 'float32')}
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope)
    exe = fluid.Executor(fluid.CPUPlace())
    pe.run(fetch_list=[y.name], feed=feed)
    exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    assert MATH_THREADS.leases == 2 and blas_threads() == 1
    del pe
    gc.collect()
    assert MATH_THREADS.leases == 1 and blas_threads() == 1           # the Executor still holds it
    exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    assert seen[-1] == 1
    exe.close()
    assert MATH_THREADS.leases == 0 and blas_threads() == 2


def test_a_flag_change_between_runs_takes_effect_on_a_live_executor(two_blas_threads):
    main, y, seen = probe_program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    feed = {'x': np.ones((1, 2), 'float32')}
    try:
        exe.run(main, feed=feed, fetch_list=[y], scope=scope)
        fluid.set_flags({'FLAGS_paddle_num_threads': 2})
        exe.run(main, feed=feed, fetch_list=[y], scope=scope)
        assert blas_threads() == 2 and BLAS_THREADS.holding() == (2,)     # held at the new value between runs
        fluid.set_flags({'FLAGS_paddle_num_threads': 1})
        exe.run(main, feed=feed, fetch_list=[y], scope=scope)
        assert seen == [1, 2, 1] and BLAS_THREADS.holding() == (1,)
    finally:
        fluid.set_flags({'FLAGS_paddle_num_threads': 1})
        exe.close()
    assert blas_threads() == 2 and BLAS_THREADS.holding() == ()


@pytest.mark.parametrize('kind', ['Executor', 'ParallelExecutor'])
def test_the_lean_one_segment_path_runs_under_the_hold(two_blas_threads, monkeypatch, kind):
    """A plan that is one compiled segment runs by recipe with no policy layer (recipes.py, lanes.py); it took no
    BLAS hold at all, so FLAGS_paddle_num_threads did not apply to fit-a-line or an MLP."""
    from paddle_exec.executor.segment_node import SegmentNode
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    monkeypatch.setenv('CPU_NUM', '1')
    monkeypatch.setattr(bound, 'BIND_AFTER', 0)         # the lane binds at its first request
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[4], dtype='float32')
        y = fluid.layers.fc(fluid.layers.fc(x, 8, act='relu'), 2)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
    gc.collect()
    es = fluid.ExecutionStrategy()
    es.executor_policy = 'USE_INLINE_EXECUTOR'
    feed = {'x': np.ones((3, 4), 'float32')}
    if kind == 'Executor':
        exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
        run = lambda: exe.run(main, feed=feed, fetch_list=[y], scope=scope)
        runner = lambda: exe.runner
    else:
        exe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
        run = lambda: exe.run(fetch_list=[y.name], feed=feed)
        runner = lambda: exe._compiled_program._executor
    for _ in range(3):
        run()
    SERVICE.wait()
    run()
    run()                   # a lane that binds its parameters (bound.py) has its bound code now
    nodes = runner().plans.plans()[-1].nodes
    assert len(nodes) == 1 and isinstance(nodes[0], SegmentNode) and nodes[0].segment.compiled is not None
    segment = nodes[0].segment
    compiled, seen = segment.compiled, []

    def watching(fn):
        def watched(*args):
            seen.append(blas_threads())
            return fn(*args)
        return watched
    segment.compiled = watching(compiled)
    binder = next(iter(runner().lanes.values())).binder
    if binder is not None and binder.state[0][1] is not None:      # the lane calls the bound code (its tick kept)
        tick, fn, table, arrays, outputs = binder.state[0]
        binder.state[0] = (tick, watching(fn), table, arrays, outputs)
    try:
        for _ in range(2):
            run()
    finally:
        segment.compiled = compiled
    assert len(runner().recipes) == 1
    assert seen == [1, 1]
    exe.close()
    assert blas_threads() == 2


def test_a_policy_run_without_an_executor_holds_for_the_run(two_blas_threads):
    """The policies' own `math_threads()`: a hold for the run when no executor holds one (a policy driven by
    hand); nothing to do inside an executor's run."""
    from paddle_exec.executor.policies.base import math_threads
    with math_threads():
        assert blas_threads() == 1
    assert blas_threads() == 2 and BLAS_THREADS.holding() == ()


def test_flags_paddle_num_threads_gives_the_run_more(two_blas_threads):
    fluid.set_flags({'FLAGS_paddle_num_threads': 2})
    try:
        assert run_probe() == [2]
        assert run_probe('USE_INLINE_EXECUTOR') == [2]
    finally:
        fluid.set_flags({'FLAGS_paddle_num_threads': 1})
    assert run_probe() == [1]


def test_below_one_means_one_as_in_paddle(two_blas_threads):
    paddle.set_flags({'FLAGS_paddle_num_threads': 0})
    try:
        assert run_probe() == [1]
    finally:
        paddle.set_flags({'FLAGS_paddle_num_threads': 1})


def test_a_hold_never_raises_the_librarys_own_setting(two_blas_threads):
    CONTROLLERS[0].set_num_threads(1)
    with limited_threads(4):
        assert blas_threads() == 1
    assert blas_threads() == 1


def test_holds_nest_and_overlap_across_threads_and_the_last_one_restores(two_blas_threads):
    budget = BlasThreads()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def a():
        with budget.hold(1):
            a_in.set()
            b_in.wait(30)
        a_out.set()

    def b():
        a_in.wait(30)
        with budget.hold(2):
            seen['b, under a'] = blas_threads()            # the smallest hold wins
            b_in.set()
            a_out.wait(30)
            seen['b, a gone'] = blas_threads()
            with budget.hold(1):
                seen['b nested'] = blas_threads()
            seen['b, nested gone'] = blas_threads()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert seen == {'b, under a': 1, 'b, a gone': 2, 'b nested': 1, 'b, nested gone': 2}
    assert blas_threads() == 2 and budget.holding() == ()


def test_a_hold_taken_on_another_thread_after_the_main_thread_set_a_limit_still_applies(two_blas_threads):
    seen = []

    def hold():
        with one_thread():
            seen.append(blas_threads())

    t = threading.Thread(target=hold)
    t.start()
    t.join(30)
    assert seen == [1] and blas_threads() == 2


def test_one_thread_inside_a_run_with_more_threads_comes_back_to_the_runs(two_blas_threads):
    with limited_threads(2):
        with one_thread():
            assert blas_threads() == 1
        assert blas_threads() == 2


LATE_LIBRARY = """
import json, numpy, threadpoolctl
from paddle_exec.kernels.blas import BLAS_THREADS, blas_functions, _find
def counts():
    return sorted(i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas')
numpy_bits = _find('sgemm')[1]           # numpy's BLAS alone is loaded yet
with BLAS_THREADS.hold(1):
    pass
import scipy.linalg                       # SciPy's wheel brings its own OpenBLAS, loaded only now
with BLAS_THREADS.hold(1):
    inside = counts()
print(json.dumps({'inside': inside, 'after': counts(), 'numpy_bits': numpy_bits,
                  'gemm_bits': int(blas_functions()[2])}))
"""


def test_a_blas_library_loaded_after_the_first_hold_is_held_too_and_gemm_keeps_numpys():
    """SciPy's OpenBLAS, loaded by some op's first run, comes first in the process's list of libraries: every hold
    must set it too (its products would otherwise run on 2 threads, whose spinning workers slowed dynamic_lstm 7x),
    and the recurrent kernels' products must still go to numpy's library."""
    pytest.importorskip('scipy.linalg')
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS='2')
    out = subprocess.run([sys.executable, '-c', LATE_LIBRARY], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if len(got['inside']) < 2:
        pytest.skip('SciPy shares numpy\'s BLAS here')
    assert got['inside'] == [1] * len(got['inside']) and got['after'] == [2] * len(got['after'])
    assert got['gemm_bits'] == got['numpy_bits']
