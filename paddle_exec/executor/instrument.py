"""Instruments: what a run can be asked to observe (the profiler's events, FLAGS_check_nan_inf), and the plan
variants that do the observing.

    INSTRUMENTS.recorder = Recorder()          # the profiler is on (profiler.py / fluid/profiler.py set this)
    INSTRUMENTS.check_nan_inf = True           # FLAGS_check_nan_inf (flags.py sets this)
    plan = instrumented(plan)                  # what the runner runs while any instrument is on

Paddle's profiler and flags are process-wide by their API (`fluid.profiler.start_profiler()`,
`paddle.set_flags(...)`), so their state is one object, INSTRUMENTS: with the op registry, the only process-wide
mutable state of the package. The runner reads one attribute per run (`INSTRUMENTS.on`) and runs the plan as
compiled when nothing is on, so instruments cost nothing when off.

When something is on, the runner runs a variant of the plan (made once per plan and set of instruments, kept on the
plan): the same slots, places and dependencies, each node's step wrapped:
    profiling      an op event per node run: its op type and name, the place, the thread that ran it, start and
                   end (perf_counter_ns), the shapes of its inputs; the runner adds feed, scope, fetch and run
                   events through `phases` (what each part of a run costs), and the stage producers theirs
    check_nan_inf  after the node, each float output is checked: a NaN or Inf raises RuntimeError naming the op,
                   the output variable, the first bad index and value, and the counts (Paddle's check, words from
                   both 1.8's and 2.6's messages)
A policy sees an ordinary plan, so every policy runs instrumented the same way.
A compiled segment (passes/segments.py) runs op by op under the instruments, each op wrapped as above: a profile
and a NaN check name the ops as they would with segments off.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..framework import registry
from .feed import as_fetch_result, bind_scope_inputs, write_scope_outputs
from .plan import ExecutionPlan, PlanNode
from .policies.base import run_in_order

__all__ = ['INSTRUMENTS', 'Instruments', 'Recorder', 'Event', 'instrumented', 'phases', 'PLAIN_PHASES']


@dataclass
class Event:
    """One complete event: a node run, a part of a run, a producer iteration, a user's RecordEvent."""
    name: str
    cat: str                    # 'op', 'run', 'feed', 'scope', 'fetch', 'stage', 'user'
    start_ns: int
    end_ns: int
    tid: int
    thread_name: str
    place: int = 0
    args: dict = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return (self.end_ns - self.start_ns) / 1e9


class Recorder:
    """Collects events from every thread (list.append is atomic), between start and stop."""

    def __init__(self, record_shapes: bool = True):
        self.events: list[Event] = []
        self.record_shapes = record_shapes
        self.started_ns = time.perf_counter_ns()
        self.stopped_ns: int | None = None

    def add(self, name: str, cat: str, start_ns: int, end_ns: int, place: int = 0, args: dict | None = None) -> None:
        thread = threading.current_thread()
        self.events.append(Event(name, cat, start_ns, end_ns, thread.ident, thread.name, place, args or {}))

    def span(self, name: str, cat: str, place: int = 0, args: dict | None = None):
        """A context manager recording one event around its body."""
        return _Span(self, name, cat, place, args)

    def clear(self) -> None:
        self.events = []
        self.started_ns = time.perf_counter_ns()


class _Span:
    __slots__ = ('recorder', 'name', 'cat', 'place', 'args', 'start')

    def __init__(self, recorder, name, cat, place, args):
        self.recorder, self.name, self.cat, self.place, self.args = recorder, name, cat, place, args

    def __enter__(self):
        self.start = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        self.recorder.add(self.name, self.cat, self.start, time.perf_counter_ns(), self.place, self.args)


class Instruments:
    """The process-wide switches: the profiler's recorder and FLAGS_check_nan_inf (see the module docstring)."""

    def __init__(self):
        self._recorder: Recorder | None = None
        self._check_nan_inf = False
        self.on = False
        self.key: tuple = (False, False)

    def _update(self) -> None:
        self.key = (self._recorder is not None, self._check_nan_inf)
        self.on = any(self.key)

    @property
    def recorder(self) -> Recorder | None:
        return self._recorder

    @recorder.setter
    def recorder(self, recorder: Recorder | None) -> None:
        self._recorder = recorder
        self._update()

    @property
    def check_nan_inf(self) -> bool:
        return self._check_nan_inf

    @check_nan_inf.setter
    def check_nan_inf(self, value: bool) -> None:
        self._check_nan_inf = bool(value)
        self._update()


INSTRUMENTS = Instruments()


# --- the phases of a run (feed, scope, fetch), plain or recorded -------------------------------------------------

class _PlainPhases:
    """The runner's per-run helpers as they are (what runs when the profiler is off)."""
    bind_scope_inputs = staticmethod(bind_scope_inputs)
    write_scope_outputs = staticmethod(write_scope_outputs)
    as_fetch_result = staticmethod(as_fetch_result)

    @staticmethod
    def bind_feed(binding, feed, values, scope) -> None:
        binding.bind(feed, values, scope)

    @staticmethod
    def assign_feed(slots, feed, values) -> None:
        for name, value in feed.items():       # data parallel: converted and checked by split_feeds
            values[slots[name]] = value


PLAIN_PHASES = _PlainPhases()


class _RecordedPhases:
    """The same helpers, each call recorded as a feed, scope or fetch event."""

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def bind_feed(self, binding, feed, values, scope) -> None:
        with self.recorder.span('feed', 'feed'):
            binding.bind(feed, values, scope)

    def assign_feed(self, slots, feed, values) -> None:
        with self.recorder.span('feed', 'feed'):
            PLAIN_PHASES.assign_feed(slots, feed, values)

    def bind_scope_inputs(self, scope_inputs, values, scope) -> None:
        with self.recorder.span('scope_read', 'scope'):
            bind_scope_inputs(scope_inputs, values, scope)

    def write_scope_outputs(self, scope_outputs, values, scope) -> None:
        with self.recorder.span('scope_write', 'scope'):
            write_scope_outputs(scope_outputs, values, scope)

    def as_fetch_result(self, value, return_numpy, copy, *lod_and_name):
        with self.recorder.span('fetch', 'fetch'):
            return as_fetch_result(value, return_numpy, copy, *lod_and_name)


def phases():
    """The helpers a run uses now: recorded while the profiler is on."""
    recorder = INSTRUMENTS.recorder
    return PLAIN_PHASES if recorder is None else _RecordedPhases(recorder)


# --- plan variants --------------------------------------------------------------------------------------------

def instrumented(plan: ExecutionPlan) -> ExecutionPlan:
    """The variant of `plan` for the instruments on now (made once per plan and set of instruments)."""
    key = INSTRUMENTS.key
    variants = plan.__dict__.setdefault('_instrumented', {})
    variant = variants.get(key)
    if variant is None:
        variant = variants[key] = _make_variant(plan, *key)
    return variant


def _make_variant(plan: ExecutionPlan, profiling: bool, check_nan_inf: bool) -> ExecutionPlan:
    nodes = []
    for nd in plan.nodes:
        members = getattr(getattr(nd, 'segment', None), 'members', None)
        if members:     # a compiled segment runs op by op under the instruments: each op is seen as without segments
            step = _in_turn([_node_copy(m, _instrumented_step(m, profiling, check_nan_inf)) for m in members])
        else:
            step = _instrumented_step(nd, profiling, check_nan_inf)
        nodes.append(_node_copy(nd, step))
    variant = ExecutionPlan(plan.n_slots, nodes, plan.places, plan.slot_of)
    variant.__dict__.update({k: v for k, v in plan.__dict__.items() if k not in ('nodes', '_instrumented')})
    return variant


def _instrumented_step(nd: PlanNode, profiling: bool, check_nan_inf: bool):
    step = nd.step
    if check_nan_inf and nd.op is not None:
        step = _checked(step, nd)
    if profiling:
        step = _profiled(step, nd)
    return step


def _node_copy(nd: PlanNode, step) -> PlanNode:
    copy = PlanNode.__new__(PlanNode)
    for name in PlanNode.__slots__:
        setattr(copy, name, getattr(nd, name))
    copy.step = step
    return copy


def _in_turn(nodes: list):
    def run(values):
        run_in_order(nodes, values)
    return run


def _flat_slots(spec) -> list:
    slots = []
    for s in spec:
        if type(s) is int:
            slots.append(s)
        elif s is not None:
            slots.extend(i for i in s if i is not None)
    return slots


def _profiled(step, nd: PlanNode):
    name = nd.op.type if nd.op is not None else nd.label
    in_slots = _flat_slots(nd.in_spec)
    place = nd.place
    perf = time.perf_counter_ns

    def run(values):
        recorder = INSTRUMENTS.recorder
        if recorder is None:                # stopped while this variant was running
            step(values)
            return
        shapes = [list(np.shape(values[s])) if values[s] is not None else None for s in in_slots] \
            if recorder.record_shapes else None
        start = perf()
        step(values)
        recorder.add(name, 'op', start, perf(), place, {'op': nd.label, 'input_shapes': shapes} if shapes else
                     {'op': nd.label})
    return run


def _checked(step, nd: PlanNode):
    op = nd.op
    outputs = []                         # (slot, variable name) of every output, in schema order
    for slot_name, spec in zip(_output_slot_names(op, nd), nd.out_spec):
        if spec is None:
            continue
        names = op.outputs.get(slot_name, [])
        specs = [spec] if type(spec) is int else list(spec)
        outputs.extend((s, n) for s, n in zip(specs, names) if s is not None)

    def run(values):
        step(values)
        for s, name in outputs:
            check_finite(values[s], op.type, name)
    return run


def _output_slot_names(op, nd) -> list:
    """The op's output slot names in the order of the node's out_spec (its schema's order; the collectives the
    data-parallel pass adds have one, Out)."""
    info = registry.OPS.get(op.type)
    return list(info.outputs) if info is not None else sorted(op.outputs)


def check_finite(value, op_type: str, name: str) -> None:
    """FLAGS_check_nan_inf's check of one output: raises RuntimeError naming the op, the variable and the first
    NaN or Inf."""
    arr = getattr(value, 'values', value)           # SelectedRows: its values
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in 'fc' or arr.size == 0:
        return
    finite = np.isfinite(arr)
    if finite.all():
        return
    flat = finite.reshape(-1)
    first = int(np.argmin(flat))
    bad = arr.reshape(-1)[first]
    n_nan = int(np.isnan(arr).sum())
    n_inf = int(arr.size - flat.sum()) - n_nan
    raise RuntimeError(
        "There are NAN or INF (num_nan=%d, num_inf=%d) in [op=%s, tensor=%s, dtype=%s, shape=%s]: the first is at "
        "flat index %d %s, value %s. ===ERROR: in [op=%s] [tensor=%s] find nan or inf=== (FLAGS_check_nan_inf)"
        % (n_nan, n_inf, op_type, name, arr.dtype, list(arr.shape), first,
           [int(i) for i in np.unravel_index(first, arr.shape)], bad, op_type, name))
