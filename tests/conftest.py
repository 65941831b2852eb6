"""Suite-wide setting: compiled segments are off unless a test turns them on.

With the default (tiered) mode every program a test runs twice starts a background compile of its segments, and on
a cold numba cache (a clean CI machine) those compiles cost the suite three times its run time on two cores. The
segment tests (tests/executor/test_segments.py) and the golden cases (tests/golden/test_golden.py, run both 'off'
and 'sync') set the mode they test themselves. `PADDLE_EXEC_COMPILE=tiered python -m pytest` runs the whole
suite with segments on (.ci/run does so for the end-to-end parts: tests/distributed, the fusion passes, tests/cli,
the examples).

The collector skips what exists at the end of collection (pytest_collection_finish).

CPU_NUM decides how many places a ParallelExecutor gets, so a test that leaves it set changes the tests after it in
its worker (which ones depends on how xdist shares the files out): every test must leave it as it found it, and one
that does not fails (_cpu_num_is_put_back), naming itself.
"""
import gc
import os

import pytest

os.environ.setdefault('PADDLE_EXEC_COMPILE', 'off')


def pytest_collection_finish(session) -> None:
    """Everything imported by now (numpy, numba, the package, every test module) lives as long as the session: it
    is moved out of the collector's reach, so each full collection during the run walks only what the tests made."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _cpu_num_is_put_back():
    before = os.environ.get('CPU_NUM')
    yield
    after = os.environ.get('CPU_NUM')
    if after != before:
        if before is None:
            del os.environ['CPU_NUM']
        else:
            os.environ['CPU_NUM'] = before
        pytest.fail('the test left CPU_NUM=%r (it found %r): set it with monkeypatch.setenv, which puts it back'
                    % (after, before))


@pytest.fixture
def case_cpu_num(monkeypatch):
    """pin(case): CPU_NUM as a golden case's run_case.run sets it in os.environ (the case's CPU_NUM, or unset),
    set here through monkeypatch first so that the test puts it back after."""
    def pin(case) -> None:
        if case.CPU_NUM:
            monkeypatch.setenv('CPU_NUM', str(case.CPU_NUM))
        else:
            monkeypatch.delenv('CPU_NUM', raising=False)
    return pin


@pytest.fixture
def config_with(monkeypatch):
    """config_with(name, raw): the plain Executor's RunConfig with the environment variable `name` set to `raw`
    (None: unset), read from the environment as an executor reads it."""
    from paddle_exec.executor.config import RunConfig, read_environment

    def config(name: str, raw):
        if raw is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, raw)
        return RunConfig.for_executor(None, read_environment())
    return config
