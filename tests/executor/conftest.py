"""Fixtures shared by the executor's tests."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor import bound as binding
from paddle_exec.framework import unique_name


@pytest.fixture
def served_fc(monkeypatch):
    """served_fc(policy, slots, **env) -> (pe, run): a warmed-up ParallelExecutor of one compiled segment (an fc with
    relu, segments compiled at once, bound from the first request) under `policy`, the admission gate of `slots`
    places (a count no other test uses, so its holders are the test's), each `env` variable set (None: unset);
    run() serves one request and checks it against numpy."""
    def make(policy: str, slots: str, **env):
        monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
        monkeypatch.setenv('CPU_NUM', '1')
        monkeypatch.setenv('PADDLE_EXEC_SERVING_SLOTS', slots)
        for name, raw in env.items():
            if raw is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, raw)
        monkeypatch.setattr(binding, 'BIND_AFTER', 0)
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), unique_name.guard():
            x = fluid.layers.data(name='x', shape=[3], dtype='float32')
            y = fluid.layers.fc(x, 2, act='relu')
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        es = fluid.ExecutionStrategy()
        es.executor_policy = policy
        pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
        feed = {'x': np.arange(12, dtype=np.float32).reshape(4, 3) / 10}
        w = np.asarray(scope.find_var('fc_0.w_0').get_tensor())
        b = np.asarray(scope.find_var('fc_0.b_0').get_tensor())
        want = np.maximum(feed['x'] @ w + b, 0)

        def run():
            got = pe.run(feed=feed, fetch_list=[y.name])[0]
            np.testing.assert_allclose(got, want, rtol=1e-6)
        for _ in range(6):
            run()
        return pe, run
    return make
