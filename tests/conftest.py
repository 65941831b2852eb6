"""Suite-wide setting: compiled segments are off unless a test turns them on.

With the default (tiered) mode every program a test runs twice starts a background compile of its segments, and on
a cold numba cache (a clean CI machine) those compiles cost the suite three times its run time on two cores. The
segment tests (tests/executor/test_segments.py) and the golden cases (tests/golden/test_golden.py, run both 'off'
and 'sync') set the mode they test themselves. `PADDLE_EXEC_COMPILE=tiered python -m pytest` runs the whole
suite with segments on.

The collector skips what exists at the end of collection (pytest_collection_finish).
"""
import gc
import os

os.environ.setdefault('PADDLE_EXEC_COMPILE', 'off')


def pytest_collection_finish(session) -> None:
    """Everything imported by now (numpy, numba, the package, every test module) lives as long as the session: it
    is moved out of the collector's reach, so each full collection during the run walks only what the tests made."""
    gc.collect()
    gc.freeze()
