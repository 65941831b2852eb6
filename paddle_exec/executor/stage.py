"""The stage runtime: a program's producer side runs ahead in background threads, its step takes from a buffer.

Compiling a staged program (compile.py, passes/stage.py) gives a plan of its consumer side behind an `unstage` op,
and a StageSpec: the producer side as a plan of its own. The runner makes one StageRuntime per staged program
(version) and binds it, as a weak reference, in every place's scope under STAGE_VAR; `unstage` pops from it:

    runtime = StageRuntime(spec, is_closed)   # is_closed(): whether the owning executor was closed or collected
    runtime.scope = place_0_scope             # producers read persistables and DataLoader queues from it
    runtime.pop(place)                        # what `unstage` does (on the executor's thread)
    runtime.close()

State of one StageRuntime:
    spec        the producer plan, its nodes split in two: `sources` (reader ops and what they depend on) and `rest`
    buffer      an OrderedBuffer of at most `capacity` batches, ordered by sequence number
    epoch       the running producers: their threads, the next sequence number, whether the source ran dry, and
                the stop flag (also set when the executor is closed or collected)
    scope       the scope of the latest run

A producer thread loops: under the sources lock, run `sources` and take the next sequence number (so batches keep
the sources' order and the readers of one batch stay in step, whatever `num_threads`); then run `rest` and put the
carried values into the buffer at that number, waiting while the buffer is `capacity` batches ahead of the step.
A put waiting longer than `timeout_millis` logs a warning and keeps waiting: nothing is dropped.

The step's `unstage` (on the executor's thread, one pop per place and per iteration):
    - starts an epoch if none runs (the producers start themselves at the first run);
    - waits for the next batch in order; waiting longer than `timeout_millis` raises RuntimeError naming the stage;
    - a batch read from a DataLoader the user has reset since is dropped (the loader's reset drops its queue);
    - end of data (EOFException from a reader) and a producer's error (raised with the failing op named) end the
      epoch after every earlier batch was taken; they reach run() then, and the next run starts a new epoch.
Data parallelism: every place runs its own `unstage`; batches are dealt in rounds (ops/reader.RoundDealer), so
place p always gets batch p of a round.
close() (the executor's, or its garbage collection) stops the producers within ~50 ms.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time

from ..framework.errors import EOFException
from ..framework.scope import LoDTensor
from ..ops import reader as reader_ops
from .feed import bind_lods, bind_scope_inputs, write_scope_outputs
from .instrument import INSTRUMENTS
from .policies.base import run_in_order

__all__ = ['StageRuntime', 'OrderedBuffer']

_log = logging.getLogger('paddle_exec.stage')
_SLICE = 0.05
_thread_ids = itertools.count()


# --- the buffer ---------------------------------------------------------------------------------------------------

class StopFlag:
    """An epoch's stop request; also set once the owning executor is closed or collected. Reader waits check it."""

    def __init__(self, owner_closed):
        self._event = threading.Event()
        self._owner_closed = owner_closed
        self.idle_queue = None          # set by a reader waiting for a DataLoader that is not started

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set() or self._owner_closed()


class OrderedBuffer:
    """Entries by sequence number; put(seq) waits until seq is within `capacity` of the next one to take."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._cond = threading.Condition()
        self._items: dict = {}
        self._next = 0

    def put(self, seq: int, entry, stop: StopFlag, timeout: float, what: str) -> bool:
        with self._cond:
            since = time.monotonic()
            while seq >= self._next + self.capacity:
                if stop.is_set():
                    return False
                self._cond.wait(_SLICE)
                if time.monotonic() - since >= timeout:
                    _log.warning('%s: a producer has waited %.1f s to put batch %d into a full buffer of %d batches '
                                 '(timeout_millis): the step does not take batches; still waiting, nothing is '
                                 'dropped', what, time.monotonic() - since, seq, self.capacity)
                    since = time.monotonic()
            if stop.is_set():
                return False
            self._items[seq] = entry
            self._cond.notify_all()
            return True

    def take(self, timeout: float, what: str, stop: StopFlag):
        with self._cond:
            deadline = time.monotonic() + timeout
            while self._next not in self._items:
                idle = stop.idle_queue
                if idle is not None and not idle.started:
                    raise reader_ops.not_started_error(idle)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError('%s: no batch arrived within timeout_millis=%d: the producer threads are '
                                       'stuck (is a reader blocked?)' % (what, int(timeout * 1000)))
                self._cond.wait(min(remaining, _SLICE))
            entry = self._items.pop(self._next)
            self._next += 1
            self._cond.notify_all()
            return entry

    def reset(self) -> None:
        with self._cond:
            self._items.clear()
            self._next = 0
            self._cond.notify_all()

    def __len__(self):
        return len(self._items)


class _Epoch:
    def __init__(self, owner_closed):
        self.stop = StopFlag(owner_closed)
        self.next_seq = 0
        self.source_done = False
        self.threads: list[threading.Thread] = []


# --- the runtime --------------------------------------------------------------------------------------------------

def _stale(item) -> bool:
    """An end (EOF or error) read from a DataLoader the user has reset since."""
    sources = getattr(item, '_stage_sources', ()) if isinstance(item, BaseException) else ()
    return any(q.generation != g for q, g in sources)


def _stale(item) -> bool:
    """An end (EOF or error) read from a DataLoader the user has reset since."""
    sources = getattr(item, '_stage_sources', ()) if isinstance(item, BaseException) else ()
    return any(q.generation != g for q, g in sources)


class StageRuntime:
    """One staged program run by one executor; see the module docstring."""

    def __init__(self, spec, owner_closed):
        settings = spec.split.settings
        self.spec = spec
        self.key = next(_thread_ids)
        self.name = spec.name
        self.smart = spec.smart
        self.capacity = settings.capacity
        self.num_threads = settings.num_threads
        self.timeout = settings.timeout_millis / 1000.0
        self.n_places = spec.n_places
        self.scope = None
        self._owner_closed = owner_closed
        self.buffer = OrderedBuffer(self.capacity)
        self._lock = threading.Lock()           # starting and ending epochs
        self._source_lock = threading.Lock()    # the readers' section of a producer iteration
        self._epoch: _Epoch | None = None
        self._closed = False
        self._dealer = reader_ops.RoundDealer(self.n_places)

    @property
    def split(self):
        return self.spec.split

    def dot(self) -> tuple[str, str]:
        """(before, after): the program as written and its physical split, as Graphviz text."""
        return self.spec.dot()

    # --- epochs ---------------------------------------------------------------------------------------------
    def _ensure_epoch(self) -> _Epoch:
        epoch = self._epoch
        if epoch is not None:
            return epoch
        with self._lock:
            if self._closed:
                raise RuntimeError('%s: the executor running it was closed' % self.name)
            if self._epoch is None:
                plan = self.spec
                self.buffer.reset()
                epoch = _Epoch(self._owner_closed)
                epoch.threads = [threading.Thread(target=self._produce, args=(plan, epoch), daemon=True,
                                                  name='paddle_exec-stage%d-producer%d' % (self.key, k))
                                 for k in range(self.num_threads)]
                self._epoch = epoch
                for t in epoch.threads:
                    t.start()
            return self._epoch

    def _end_epoch(self, epoch: _Epoch) -> None:
        with self._lock:
            epoch.stop.set()
            with self.buffer._cond:
                self.buffer._cond.notify_all()
            current = threading.current_thread()
            for t in epoch.threads:
                if t is not current:
                    t.join(timeout=10.0)
                    if t.is_alive():
                        _log.warning('%s: producer thread %s is still busy in an op; it exits when that op '
                                     'returns and its result is discarded', self.name, t.name)
            if self._epoch is epoch:
                self._epoch = None
            self.buffer.reset()

    def close(self) -> None:
        self._closed = True
        epoch = self._epoch
        if epoch is not None:
            self._end_epoch(epoch)

    @property
    def threads(self) -> list:
        epoch = self._epoch
        return list(epoch.threads) if epoch is not None else []

    # --- the producers --------------------------------------------------------------------------------------
    def _produce(self, plan, epoch: _Epoch) -> None:
        reader_ops.set_thread_cancel_event(epoch.stop)
        carried = plan.plan.fetch_slots
        lod = plan.plan.places[0].lod
        # carried values that carry LoD travel as LoDTensors; `unstage` gives their LoD to its outputs
        carried_lod = [(k, s) for k, s in enumerate(lod.fetch_slots) if s is not None] if lod is not None else []
        new_values, scope_inputs, scope_outputs = plan.plan.new_values, plan.plan.scope_inputs, plan.plan.scope_outputs
        try:
            while not epoch.stop.is_set():
                started = time.perf_counter_ns()
                values = new_values()
                entry = None
                with self._source_lock:
                    if epoch.stop.is_set() or epoch.source_done:
                        return
                    reader_ops.collect_sources(start=True)
                    try:
                        bind_scope_inputs(scope_inputs, values, self.scope)
                        if lod is not None:
                            bind_lods(lod, None, values, self.scope)
                        run_in_order(plan.sources, values)
                    except reader_ops.ReaderCancelled:
                        return
                    except BaseException as exc:  # noqa: BLE001 - every failure goes to the step, in order
                        sources = reader_ops.collect_sources(start=False)
                        if any(q.generation != g for q, g in sources):
                            entry = 'retry'          # the user reset the loader meanwhile: read the new epoch
                        else:
                            epoch.source_done = True
                            entry = ('eof' if isinstance(exc, EOFException) else 'error', exc, sources)
                    else:
                        sources = reader_ops.collect_sources(start=False)
                    if entry == 'retry':
                        seq = None
                    else:
                        seq = epoch.next_seq
                        epoch.next_seq += 1
                if seq is None:
                    time.sleep(_SLICE)
                    continue
                if entry is None:
                    try:
                        run_in_order(plan.rest, values)
                        write_scope_outputs(scope_outputs, values, self.scope)
                        batch = [values[s] for s in carried]
                        for k, s in carried_lod:
                            if values[s]:
                                batch[k] = LoDTensor(batch[k], values[s])
                        entry = ('batch', batch, sources)
                    except reader_ops.ReaderCancelled:
                        return
                    except BaseException as exc:  # noqa: BLE001
                        with self._source_lock:
                            epoch.source_done = True
                        entry = ('error', exc, sources)
                    values = None
                recorder = INSTRUMENTS.recorder
                if recorder is not None:                # the profiler: one event per producer iteration
                    recorder.add('%s producer (batch %d)' % (self.name, seq), 'stage', started,
                                 time.perf_counter_ns())
                if not self.buffer.put(seq, entry, epoch.stop, self.timeout, self.name) or entry[0] != 'batch':
                    return
        finally:
            reader_ops.set_thread_cancel_event(None)
            reader_ops.collect_sources(start=False)

    # --- the step's side (the `unstage` kernel) -----------------------------------------------------------------
    def pop(self, place=None) -> list:
        """The next batch of carried values. Under data parallelism (`place` given) batches are dealt in rounds
        (ops/reader.RoundDealer): place p gets batch p of each round, whatever the thread timing."""
        if place is None or self.n_places == 1:
            return self._pop_one()
        return self._dealer.deal(place, self._pop_one, stale=_stale)

    def _pop_one(self) -> list:
        while True:
            epoch = self._ensure_epoch()
            started = time.perf_counter_ns()
            kind, payload, sources = self.buffer.take(self.timeout, self.name, epoch.stop)
            recorder = INSTRUMENTS.recorder
            if recorder is not None:                    # the profiler: how long the step waited for its batch
                recorder.add('%s prefetch wait' % self.name, 'stage', started, time.perf_counter_ns())
            stale = any(q.generation != g for q, g in sources)
            if kind == 'batch':
                if not stale:
                    return payload
                continue
            self._end_epoch(epoch)
            if stale:
                continue
            if kind == 'eof':
                payload = EOFException('There is no next data.')
            payload._stage_sources = sources
            raise payload
