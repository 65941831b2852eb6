"""fluid.profiler (Paddle 1.8's module path): the profiler context and its start/stop/reset functions.

    with fluid.profiler.profiler('CPU', 'total', '/tmp/profile') as prof:
        for _ in range(10):
            exe.run(main, feed=feed, fetch_list=[loss])
    # prints Paddle's "Profiling Report" (per-thread event table), writes a chrome trace to /tmp/profile

While the profiler is on, every run records an event per op run (on the thread that ran it, with the place and the
input shapes), the feed, scope and fetch work around the ops, and the stage producers' iterations
(executor/instrument.py). Paddle 1.8 writes its profile as a protobuf that its tools/timeline.py turns into a chrome
trace; paddle_exec writes the chrome trace itself, at `profile_path` (open it in chrome://tracing or Perfetto).
`cuda_profiler` is accepted and does nothing: there is no GPU here.
"""
from __future__ import annotations

import contextlib
import sys
import warnings

from ..executor.instrument import INSTRUMENTS, Recorder
from ..executor.profile_report import SORT_KEYS_1X, summary_1x, write_chrome_trace

__all__ = ['cuda_profiler', 'reset_profiler', 'profiler', 'start_profiler', 'stop_profiler']

_STATES = ('CPU', 'GPU', 'All')
_TRACER_OPTIONS = ('Default', 'OpDetail', 'AllOpDetail')


def start_profiler(state: str, tracer_option: str = 'Default') -> None:
    """Starts recording (state 'CPU', 'GPU' or 'All': all record the CPU, the only device here)."""
    if state not in _STATES:
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in _TRACER_OPTIONS:
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    if INSTRUMENTS.recorder is not None:
        return                           # already on, as Paddle's EnableProfiler leaves a running profiler alone
    INSTRUMENTS.recorder = Recorder()


def stop_profiler(sorted_key: str | None = None, profile_path: str = '/tmp/profile') -> None:
    """Stops recording, prints the report sorted by `sorted_key` and writes the chrome trace to `profile_path`."""
    if sorted_key not in SORT_KEYS_1X:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    recorder = INSTRUMENTS.recorder
    if recorder is None:
        return
    INSTRUMENTS.recorder = None
    sys.stdout.write(summary_1x(recorder.events, sorted_key))
    if profile_path:
        write_chrome_trace(recorder.events, profile_path)


def reset_profiler() -> None:
    """Drops the events recorded so far (the profiler stays on)."""
    recorder = INSTRUMENTS.recorder
    if recorder is not None:
        recorder.clear()


@contextlib.contextmanager
def profiler(state: str, sorted_key: str | None = None, profile_path: str = '/tmp/profile',
             tracer_option: str = 'Default'):
    """Profiles the runs inside the block; see the module docstring."""
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)


@contextlib.contextmanager
def cuda_profiler(output_file: str, output_mode: str | None = None, config=None):
    """Paddle's nvprof wrapper: accepted, no effect (CPU only)."""
    if output_mode not in (None, 'kvp', 'csv'):
        raise ValueError('The output mode must be `kvp` or `csv`.')
    warnings.warn('fluid.profiler.cuda_profiler: paddle_exec runs on the CPU only; nothing is profiled. Use '
                  'fluid.profiler.profiler(...) for the CPU profile', stacklevel=3)
    yield
