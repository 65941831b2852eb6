"""The GIL switch interval inline-policy executors hold while they live (policies/switch_interval.py): set at the
first run when the process has Python's default, the program's own interval kept, the one replaced put back when
the last executor goes; PADDLE_EXEC_SWITCH_INTERVAL chooses it or turns it off (executor/config.py)."""
from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor.config import SERVING_INTERVAL, ExecutorPolicy
from paddle_exec.executor.policies.switch_interval import (
    PYTHON_DEFAULT,
    SWITCH_INTERVAL,
    SwitchIntervalHold,
)
from paddle_exec.framework import unique_name


@pytest.fixture
def python_default():
    """The process at Python's own interval for the test, and whatever it had back after; executors of earlier
    tests are collected first (a live inline one holds the interval)."""
    gc.collect()
    if SWITCH_INTERVAL.leases:
        pytest.skip('an inline executor of an earlier test is still alive and holds the switch interval')
    before = sys.getswitchinterval()
    sys.setswitchinterval(PYTHON_DEFAULT)
    yield
    sys.setswitchinterval(before)


def test_the_hold_sets_the_interval_for_its_leases_and_puts_back_what_it_replaced(python_default):
    hold = SwitchIntervalHold()
    first = hold.join(0.0005)
    assert sys.getswitchinterval() == pytest.approx(0.0005)
    second = hold.join(0.001)                   # a later lease joins the hold in force
    assert sys.getswitchinterval() == pytest.approx(0.0005)
    first.release()
    first.release()                             # once only
    assert hold.leases == 1 and sys.getswitchinterval() == pytest.approx(0.0005)
    second.release()
    assert hold.leases == 0 and sys.getswitchinterval() == pytest.approx(PYTHON_DEFAULT)


def test_a_programs_own_interval_is_kept(python_default):
    sys.setswitchinterval(0.002)
    hold = SwitchIntervalHold()
    lease = hold.join(0.0005)
    assert sys.getswitchinterval() == pytest.approx(0.002)
    lease.release()
    assert sys.getswitchinterval() == pytest.approx(0.002)


def test_an_interval_changed_during_the_hold_is_not_overwritten_at_its_end(python_default):
    hold = SwitchIntervalHold()
    lease = hold.join(0.0005)
    sys.setswitchinterval(0.003)                # the program's own choice meanwhile
    lease.release()
    assert sys.getswitchinterval() == pytest.approx(0.003)


@pytest.mark.parametrize('raw, want', [(None, SERVING_INTERVAL), ('', SERVING_INTERVAL), ('0.001', 0.001),
                                       ('off', None), ('0', None)])
def test_the_environment_variable_chooses_the_interval(config_with, raw, want):
    assert config_with('PADDLE_EXEC_SWITCH_INTERVAL', raw).switch_interval == want


@pytest.mark.parametrize('raw', ['fast', '-1', '1e9'])
def test_a_malformed_interval_is_an_error_naming_the_variable(config_with, raw):
    with pytest.raises(ValueError, match='PADDLE_EXEC_SWITCH_INTERVAL must be a switch interval'):
        config_with('PADDLE_EXEC_SWITCH_INTERVAL', raw)


def _tower():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[4], dtype='float32')
        y = fluid.layers.fc(x, 3, act='relu')
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
    return main, scope, y


def _pe(policy):
    main, scope, y = _tower()
    es = fluid.ExecutionStrategy()
    es.executor_policy = policy
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope, exec_strategy=es)
    return pe, y


@pytest.mark.usefixtures('python_default')
def test_an_inline_executor_holds_the_serving_interval_from_its_first_run_until_it_is_closed(monkeypatch):
    monkeypatch.delenv('PADDLE_EXEC_SWITCH_INTERVAL', raising=False)
    monkeypatch.setenv('CPU_NUM', '1')
    feed = {'x': np.ones((2, 4), np.float32)}
    a, y = _pe(ExecutorPolicy.USE_INLINE_EXECUTOR)
    assert sys.getswitchinterval() == pytest.approx(PYTHON_DEFAULT)        # nothing before the first run
    a.run(feed=feed, fetch_list=[y.name])
    assert sys.getswitchinterval() == pytest.approx(SERVING_INTERVAL) and SWITCH_INTERVAL.leases == 1
    b, y2 = _pe(ExecutorPolicy.USE_INLINE_EXECUTOR)
    b.run(feed=feed, fetch_list=[y2.name])
    a.close()
    assert sys.getswitchinterval() == pytest.approx(SERVING_INTERVAL)        # b still serves
    del b
    gc.collect()                                                             # collected: its lease ends too
    assert SWITCH_INTERVAL.leases == 0 and sys.getswitchinterval() == pytest.approx(PYTHON_DEFAULT)


@pytest.mark.usefixtures('python_default')
def test_other_policies_and_an_interval_turned_off_leave_the_interval_alone(monkeypatch):
    monkeypatch.delenv('PADDLE_EXEC_SWITCH_INTERVAL', raising=False)
    monkeypatch.setenv('CPU_NUM', '1')
    feed = {'x': np.ones((2, 4), np.float32)}
    for policy in (ExecutorPolicy.USE_NORMAL_EXECUTOR, ExecutorPolicy.USE_COST_MODEL_EXECUTOR):
        pe, y = _pe(policy)
        pe.run(feed=feed, fetch_list=[y.name])
        assert sys.getswitchinterval() == pytest.approx(PYTHON_DEFAULT)
        pe.close()
    monkeypatch.setenv('PADDLE_EXEC_SWITCH_INTERVAL', 'off')
    pe, y = _pe(ExecutorPolicy.USE_INLINE_EXECUTOR)
    pe.run(feed=feed, fetch_list=[y.name])
    assert sys.getswitchinterval() == pytest.approx(PYTHON_DEFAULT) and SWITCH_INTERVAL.leases == 0
    pe.close()
