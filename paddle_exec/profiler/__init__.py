"""paddle.profiler (Paddle 2.x): the Profiler with its scheduler, chrome trace export, RecordEvent, summaries.

    def train_step(): exe.run(main, feed=feed, fetch_list=[loss])
    with profiler.Profiler(targets=[profiler.ProfilerTarget.CPU], scheduler=(2, 5),
                           on_trace_ready=profiler.export_chrome_tracing('./log')) as prof:
        for _ in range(8):
            train_step()
            prof.step()
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal)

Steps 2 to 4 are recorded (the scheduler's window); when the window closes, `on_trace_ready` gets the profiler and
`export_chrome_tracing` writes `<dir>/<worker>.pid<pid>_time_<stamp>.paddle_trace.json`. The events are those of
fluid.profiler (executor/instrument.py), plus one `ProfileStep#k` event per step and the user's RecordEvents.
`timer_only=True` measures only the steps (`step_info()`: batch cost and ips).
"""
from __future__ import annotations

import datetime
import json
import os
import socket
import time
from enum import Enum

from ..executor.instrument import INSTRUMENTS, Event, Recorder
from ..executor.profile_report import chrome_trace, summary_2x
from .cost_model import export_cost_model

__all__ = ['Profiler', 'ProfilerState', 'ProfilerTarget', 'RecordEvent', 'SortedKeys', 'SummaryView',
           'export_chrome_tracing', 'export_protobuf', 'load_profiler_result', 'make_scheduler', 'export_cost_model']


class ProfilerState(Enum):
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


class ProfilerTarget(Enum):
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


class SortedKeys(Enum):
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(Enum):
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0, skip_first: int = 0):
    """Paddle's scheduler: after `skip_first` steps, cycles of `closed` CLOSED, `ready` READY and `record` RECORD
    steps (the last RECORD_AND_RETURN), `repeat` times (0: forever)."""
    def scheduler(step: int) -> ProfilerState:
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        period = closed + ready + record
        if period <= 0 or (repeat > 0 and step // period >= repeat):
            return ProfilerState.CLOSED
        k = step % period
        if k < closed:
            return ProfilerState.CLOSED
        if k < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD_AND_RETURN if k == period - 1 else ProfilerState.RECORD
    return scheduler


def _trace_path(dir_name: str, worker_name: str | None, suffix: str) -> str:
    os.makedirs(dir_name, exist_ok=True)
    worker = worker_name or 'host_%spid_%d' % (socket.gethostname(), os.getpid())
    stamp = datetime.datetime.now().strftime('%Y_%m_%d_%H_%M_%S_%f')
    return os.path.join(dir_name, '%s_time_%s.paddle_trace.%s' % (worker, stamp, suffix))


def export_chrome_tracing(dir_name: str, worker_name: str | None = None):
    """An on_trace_ready callback writing the recorded events as a chrome trace (JSON) into `dir_name`."""
    def handle(prof: Profiler) -> None:
        prof.export(_trace_path(dir_name, worker_name, 'json'), format='json')
    return handle


def export_protobuf(dir_name: str, worker_name: str | None = None):
    """An on_trace_ready callback writing the recorded events into `dir_name` for load_profiler_result. Paddle
    writes its own protobuf schema here; paddle_exec writes the same chrome trace JSON (suffix `.pb.json`), which
    load_profiler_result reads back."""
    def handle(prof: Profiler) -> None:
        prof.export(_trace_path(dir_name, worker_name, 'pb.json'), format='json')
    return handle


class ProfilerResult:
    """What load_profiler_result gives back: the events of an exported trace."""

    def __init__(self, trace: dict):
        self.trace = trace
        names = {e['tid']: e['args']['name'] for e in trace['traceEvents'] if e.get('ph') == 'M' and 'tid' in e}
        self.events = [Event(e['name'], e.get('cat', ''), int(e['ts'] * 1e3), int((e['ts'] + e['dur']) * 1e3),
                             e['tid'], names.get(e['tid'], ''), e.get('args', {}).get('place', 0), e.get('args', {}))
                       for e in trace['traceEvents'] if e.get('ph') == 'X']

    def get_data(self) -> dict:
        return self.trace

    def summary(self, **kwargs) -> str:
        return summary_2x(self.events, **kwargs)


def load_profiler_result(filename: str) -> ProfilerResult:
    with open(filename) as f:
        return ProfilerResult(json.load(f))


class RecordEvent:
    """A user-defined event: `with RecordEvent('load'):` or `begin()` / `end()`; recorded while a profiler is on."""

    def __init__(self, name: str, event_type=None):
        self.name = name
        self.event_type = event_type
        self._start = None

    def begin(self) -> None:
        self._start = time.perf_counter_ns()

    def end(self) -> None:
        recorder = INSTRUMENTS.recorder
        if self._start is not None and recorder is not None:
            recorder.add(self.name, 'user', self._start, time.perf_counter_ns())
        self._start = None

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()


class Profiler:
    """paddle.profiler.Profiler; see the module docstring."""

    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, timer_only: bool = False, emit_nvtx: bool = False,
                 custom_device_types=None, with_flops: bool = False):
        targets = list(targets) if targets is not None else [ProfilerTarget.CPU]
        if any(not isinstance(t, ProfilerTarget) for t in targets):
            raise TypeError('targets must be ProfilerTarget values')
        if scheduler is None:
            self.scheduler = lambda step: ProfilerState.RECORD
        elif isinstance(scheduler, (tuple, list)):
            start, end = scheduler
            if not 0 <= start < end:
                raise ValueError('scheduler (start_batch, end_batch) needs 0 <= start_batch < end_batch, got %r'
                                 % (scheduler,))
            # Paddle's reading of the pair: steps start_batch .. end_batch - 1 are recorded, the one before is READY
            self.scheduler = make_scheduler(closed=max(start - 1, 0), ready=1 if start >= 1 else 0,
                                            record=end - start, repeat=1)
        elif callable(scheduler):
            self.scheduler = scheduler
        else:
            raise TypeError('scheduler must be None, a (start_batch, end_batch) pair or a callable step -> state')
        self.targets = targets
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.timer_only = timer_only
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self.events: list[Event] = []
        self._recorder: Recorder | None = None
        self._step_start = None
        self._step_times: list = []
        self._samples: list = []

    # --- recording ------------------------------------------------------------------------------------------
    def _record_on(self) -> None:
        if self.timer_only or self._recorder is not None:
            return
        self._recorder = Recorder(record_shapes=True)
        INSTRUMENTS.recorder = self._recorder

    def _record_off(self, deliver: bool) -> None:
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        if INSTRUMENTS.recorder is recorder:
            INSTRUMENTS.recorder = None
        if deliver:
            self.events = recorder.events
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _enter_state(self, new: ProfilerState) -> None:
        old = self.current_state
        recording = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)
        if old in recording and (new not in recording or old is ProfilerState.RECORD_AND_RETURN):
            self._record_off(deliver=True)
        if new in recording:
            self._record_on()
        self.current_state = new

    def start(self) -> None:
        self._enter_state(self.scheduler(self.step_num))
        self._step_start = time.perf_counter_ns()

    def step(self, num_samples: int | None = None) -> None:
        now = time.perf_counter_ns()
        if self._step_start is not None:
            self._step_times.append((now - self._step_start) / 1e9)
            self._samples.append(num_samples)
            if self._recorder is not None:
                self._recorder.add('ProfileStep#%d' % self.step_num, 'step', self._step_start, now)
        self.step_num += 1
        self._enter_state(self.scheduler(self.step_num))
        self._step_start = time.perf_counter_ns()

    def stop(self) -> None:
        if self.current_state in (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN):
            self._record_off(deliver=True)
        elif self._recorder is not None:
            self._record_off(deliver=False)
        self.current_state = ProfilerState.CLOSED

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # --- results --------------------------------------------------------------------------------------------
    def step_info(self, unit: str | None = None) -> str:
        """The last steps' timing: batch cost (average seconds per step) and, with num_samples, ips."""
        if not self._step_times:
            return 'no step recorded'
        recent = self._step_times[-10:]
        cost = sum(recent) / len(recent)
        info = 'batch_cost: %.5f s' % cost
        samples = [n for n in self._samples[-10:] if n]
        if samples:
            info += ' ips: %.3f %s/s' % (sum(samples) / sum(recent), unit or 'samples')
        return info

    def export(self, path: str = '', format: str = 'json') -> None:
        if format not in ('json', 'pb'):
            raise ValueError("format must be 'json' or 'pb', got %r" % (format,))
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        with open(path, 'w') as f:
            json.dump(chrome_trace(self.events), f)

    def summary(self, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True, thread_sep: bool = False,
                time_unit: str = 'ms', views=None) -> None:
        print(summary_2x(self.events, sorted_by.name, thread_sep, time_unit, op_detail))
