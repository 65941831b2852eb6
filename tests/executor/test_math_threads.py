"""FLAGS_paddle_num_threads: the BLAS threads while a run is in progress (policies/base.py `math_threads`), and the
process-wide hold behind it (kernels/blas.py BLAS_THREADS).

The BLAS thread count is read from inside a run by a py_func op, through the library's own function (what the hold
sets; threadpoolctl's controller of OpenBLAS would ignore limits set from a second thread)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name
from paddle_exec.kernels.blas import BLAS_THREADS, BlasThreads, _controllers, limited_threads, one_thread

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTROLLERS = [lc for _, lc in _controllers()]
pytestmark = pytest.mark.skipif(not CONTROLLERS, reason='threadpoolctl finds no BLAS library')


def blas_threads() -> int:
    return CONTROLLERS[0].get_num_threads()


@pytest.fixture
def two_blas_threads():
    """The library set to 2 threads for the test (it may run on 1 on a 1-core machine), its setting back after."""
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
