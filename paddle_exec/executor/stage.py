"""The stage runtime: a program's producer side runs ahead in background threads, its step takes from a buffer.

Executors call one function before they plan (the Executor at every run, the data-parallel runner when it plans):

    program = stage.prepare(executor_or_runner, program, scope)

A program without `staged` comes back as it is (under data parallelism its reader ops become their place-aware
twins: see below). For one with stages, `prepare` returns (made once per executor and program version) the
*physical* program the executor then plans and runs like any other: the consumer side of the split
(passes/stage.py) behind one `unstage` op that pops the next batch of staged values. The user's Program is never
modified. SmartStage (passes/smart_stage.py) only changes the split: `BuildStrategy.do_smart_stage` for a
data-parallel runner, `static.enable_smart_stage(program)` for the plain Executor.

Data parallelism: every place runs its own replica of `unstage` (and of `read` / `text_line_reader`, which become
`place_read` / `place_text_line_reader` in the physical program). Each place's scope holds a PlaceIndex under
PLACE_VAR; those ops deal batches in rounds (ops/reader.RoundDealer), so place p always gets batch p of a round,
as Paddle's ordered reader does, whatever thread runs it. Runs are told apart by the runner's run count.

State of one StageRuntime (one per executor and program):
    plan        the producer side as an ExecutionPlan whose fetches are the carried values, split in two:
                `sources` (reader ops and what they depend on) and `rest`
    buffer      an OrderedBuffer of at most `capacity` batches, ordered by sequence number
    epoch       the running producers: their threads, the next sequence number, whether the source ran dry, and
                the stop flag (also set when the executor is closed or collected)
    scope       the scope of the latest run: producers read persistables and the DataLoader queue from it

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
close() (the executor's, or its garbage collection: a weakref finalizer) stops the producers within ~50 ms.
"""
from __future__ import annotations

import itertools
import logging
import threading
import time
import weakref

from ..framework import registry
from ..framework.errors import EOFException
from ..framework.operator import Operator
from ..framework.program import Program
from ..ops import reader as reader_ops
from .feed import bind_scope_inputs, write_scope_outputs
from .passes.smart_stage import program_to_dot, split_to_dot
from .passes.stage import split_stages
from .plan import BlockAnalysis, ExecutionPlan, PlanNode
from .policies.base import op_failure

__all__ = ['prepare', 'close_stages', 'runtimes_of', 'StageRuntime']

_log = logging.getLogger('paddle_exec.stage')
_SLICE = 0.05
_keys = itertools.count()
# owner (Executor / data-parallel runner) -> {program id: StageRuntime}
_RUNTIMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_RUNTIMES_LOCK = threading.Lock()
_warned_no_stage: set = set()
# under data parallelism each place's scope holds its index here: `unstage` reads it to take its batch of a round
PLACE_VAR = '@STAGE_PLACE_INDEX@'


# --- the executors' entry points ----------------------------------------------------------------------------------

def _smart_requested(owner, program) -> bool:
    bs = getattr(owner, 'build_strategy', None)
    if bs is not None and getattr(bs, 'do_smart_stage_gpu', False):
        _warn_once(('gpu', id(bs)), 'BuildStrategy.do_smart_stage_gpu: paddle_exec runs on the CPU only; SmartStage '
                   'runs on the CPU as with do_smart_stage')
        return True
    return bool(program._stage_info.get('smart') or (bs is not None and getattr(bs, 'do_smart_stage', False)))


def _warn_once(key, message: str) -> None:
    if key not in _warned_no_stage:
        _warned_no_stage.add(key)
        _log.warning(message)
        import warnings
        warnings.warn(message, stacklevel=3)


def prepare(owner, program: Program, scope) -> Program:
    """The program `owner` should plan and run for `program` (see the module docstring)."""
    info = program._stage_info
    if not info.get('stages'):
        if info.get('smart') or getattr(getattr(owner, 'build_strategy', None), 'do_smart_stage', False):
            _warn_once(('nostage', program._id), 'SmartStage is on but the program has no staged(): nothing is '
                       'staged (SmartStage needs at least one stage boundary to grow)')
        n_places = _n_places(owner)
        if n_places > 1 and any(op.type in _PLACED_READERS for op in program.global_block().ops):
            _set_place_indices(owner)
            return _placed_program(program, n_places)
        return program
    with _RUNTIMES_LOCK:
        runtimes = _RUNTIMES.get(owner)
        if runtimes is None:
            runtimes = _RUNTIMES[owner] = {}
            weakref.finalize(owner, _close_all, runtimes)
        runtime = runtimes.get(program._id)
        if runtime is not None and runtime.version != program._version:
            runtime.close()
            runtime = None
        if runtime is None:
            runtime = runtimes[program._id] = StageRuntime(owner, program, _smart_requested(owner, program))
    runtime.scope = scope
    if runtime.n_places > 1:
        _set_place_indices(owner)
    return runtime.physical


def _n_places(owner) -> int:
    """How many places `owner` runs: a data-parallel runner has place scopes, the plain Executor one place."""
    return int(getattr(owner, 'n_places', 1)) if hasattr(owner, 'scopes') else 1


def _set_place_indices(owner) -> None:
    """Each place's scope holds its PlaceIndex; the runner's run count (`drop_scope_counter`, counted for every
    run, failed ones too) tells the place-aware readers one run from the next."""
    owner_ref = weakref.ref(owner)

    def runs():
        runner = owner_ref()
        return getattr(runner, 'drop_scope_counter', None) if runner is not None else None
    for p, place_scope in enumerate(owner.scopes):
        place_scope.var(PLACE_VAR).set_value(reader_ops.PlaceIndex(p, runs))


def close_stages(owner) -> None:
    """Stops every producer `owner` runs (what close() and garbage collection do)."""
    with _RUNTIMES_LOCK:
        runtimes = _RUNTIMES.pop(owner, None)
    if runtimes:
        _close_all(runtimes)


def runtimes_of(owner) -> list:
    return list((_RUNTIMES.get(owner) or {}).values())


def _close_all(runtimes: dict) -> None:
    for runtime in list(runtimes.values()):
        runtime.close()
    runtimes.clear()


def _owner_closed(owner_ref) -> bool:
    owner = owner_ref()
    if owner is None:
        return True
    return bool(getattr(owner, '_closed', False) or getattr(getattr(owner, 'policy', None), '_closed', False))


# --- the buffer ---------------------------------------------------------------------------------------------------

class StopFlag:
    """An epoch's stop request; also set once the owning executor is closed or collected. Reader waits check it."""

    def __init__(self, owner_ref):
        self._event = threading.Event()
        self._owner_ref = owner_ref
        self.idle_queue = None          # set by a reader waiting for a DataLoader that is not started

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set() or _owner_closed(self._owner_ref)


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
    def __init__(self, owner_ref):
        self.stop = StopFlag(owner_ref)
        self.next_seq = 0
        self.source_done = False
        self.threads: list[threading.Thread] = []


# --- the runtime --------------------------------------------------------------------------------------------------

def _stale(item) -> bool:
    """An end (EOF or error) read from a DataLoader the user has reset since."""
    sources = getattr(item, '_stage_sources', ()) if isinstance(item, BaseException) else ()
    return any(q.generation != g for q, g in sources)


def _is_eof(exc: BaseException) -> bool:
    return isinstance(exc, EOFException)


def _run_nodes(nodes, values: list) -> None:
    node = None
    try:
        for node in nodes:
            node.step(values)
    except reader_ops.ReaderCancelled:
        raise
    except Exception as exc:
        raise op_failure(node, exc) from exc


def _consumer_program(program: Program, carried: list, consumer: list, key: int, name: str,
                      n_places: int) -> Program:
    """The physical program of the step: `unstage` (the carried values) then the consumer ops, sharing the user
    program's variables and operators."""
    src = program.global_block()
    phys = Program()
    block = phys.global_block()
    block.vars = src.vars
    inputs = {'Place': [PLACE_VAR]} if n_places > 1 else {}
    unstage = Operator(block, 'unstage', inputs, {'Out': list(carried)},
                       {'stage_key': key, 'stage_name': name, 'op_role': 0, 'op_role_var': [],
                        'op_namescope': '/'})
    block.ops = [unstage] + _placed_reads([src.ops[j] for j in consumer], block, n_places)
    return _finish_physical(phys, program)


_PLACED_READERS = {'read': 'place_read', 'text_line_reader': 'place_text_line_reader'}


def _placed_reads(ops: list, block, n_places: int) -> list:
    """Under data parallelism each `read` becomes `place_read` and each `text_line_reader` becomes
    `place_text_line_reader` (ops/reader.py): place p reads batch p of each round, as Paddle's ordered reader
    does, instead of whichever batch its thread reaches first."""
    if n_places <= 1:
        return list(ops)
    placed = []
    for op in ops:
        kind = _PLACED_READERS.get(op.type)
        if kind is None:
            placed.append(op)
            continue
        inputs = {k: list(v) for k, v in op.inputs.items()}
        inputs['Place'] = [PLACE_VAR]
        twin = Operator(block, kind, inputs, {'Out': op.output('Out')}, dict(op.attrs, n_places=n_places))
        twin.source = op
        placed.append(twin)
    return placed


def _finish_physical(phys: Program, program: Program) -> Program:
    phys.blocks = [phys.global_block()] + program.blocks[1:]
    phys.random_seed = program.random_seed
    phys._is_test = program._is_test
    phys._stage_info = {'physical_of': program._id}
    return phys


def _placed_program(program: Program, n_places: int) -> Program:
    """A program without stages, its reads made place-ordered (data parallelism with a DataLoader)."""
    src = program.global_block()
    phys = Program()
    block = phys.global_block()
    block.vars = src.vars
    block.ops = _placed_reads(src.ops, block, n_places)
    return _finish_physical(phys, program)


class StageRuntime:
    """One program's stages run by one executor; see the module docstring."""

    def __init__(self, owner, program: Program, smart: bool):
        block = program.global_block()
        split = split_stages(block, smart=smart, targets=program._stage_info.get('targets', ()))
        settings = split.settings
        self.key = next(_keys)
        self.name = "staged '%s'" % ', '.join(settings.names)
        self.version = program._version
        self.split = split
        self.smart = smart
        self.capacity = settings.capacity
        self.num_threads = settings.num_threads
        self.timeout = settings.timeout_millis / 1000.0
        self.block = block
        self.scope = None
        self._owner_ref = weakref.ref(owner)
        self.n_places = _n_places(owner)
        self.physical = _consumer_program(program, split.carried, split.consumer, self.key, ', '.join(settings.names),
                                          self.n_places)
        self.buffer = OrderedBuffer(self.capacity)
        self._plan = None
        self._lock = threading.Lock()           # starting and ending epochs
        self._source_lock = threading.Lock()    # the readers' section of a producer iteration
        self._epoch: _Epoch | None = None
        self._closed = False
        self._dealer = reader_ops.RoundDealer(self.n_places)
        reader_ops.STAGE_BUFFERS[self.key] = self
        self._write_graphviz(owner, program)

    # --- graphviz -------------------------------------------------------------------------------------------
    def dot(self) -> tuple[str, str]:
        """(before, after): the program as written and its physical split, as Graphviz text."""
        title = 'after SmartStage' if self.smart else 'after the stage split'
        return program_to_dot(self.block), split_to_dot(self.block, self.split, title)

    def _write_graphviz(self, owner, program) -> None:
        path = (getattr(getattr(owner, 'build_strategy', None), 'debug_graphviz_path', '')
                or program._stage_info.get('debug_graphviz_path', ''))
        if not path:
            return
        before, after = self.dot()
        for suffix, text in (('_stage_before.dot', before), ('_stage_after.dot', after)):
            with open(path + suffix, 'w') as f:
                f.write(text)

    # --- the producer plan ----------------------------------------------------------------------------------
    def _producer_plan(self):
        if self._plan is None:
            a = BlockAnalysis(self.block, [], self.split.carried, skip_ops=set(self.split.consumer))
            nodes = [PlanNode(j, op, registry.make_kernel(op), a.in_specs[j], a.out_specs[j], a.frees[j])
                     for j, op in enumerate(a.ops)]
            plan = ExecutionPlan(len(a.slot_of), nodes, {}, [a.slot_of[n] for n in a.fetch_names], a.scope_inputs,
                                 a.scope_outputs, a.slot_of)
            seeds = [j for j, op in enumerate(a.ops) if op.type in reader_ops.SOURCE_OPS]
            sources, todo = set(), list(seeds)
            while todo:
                j = todo.pop()
                if j not in sources:
                    sources.add(j)
                    todo.extend(a.deps[j])
            plan.sources = [nodes[j] for j in sorted(sources)]
            plan.rest = [nodes[j] for j in range(len(nodes)) if j not in sources]
            self._plan = plan
        return self._plan

    # --- epochs ---------------------------------------------------------------------------------------------
    def _ensure_epoch(self) -> _Epoch:
        epoch = self._epoch
        if epoch is not None:
            return epoch
        with self._lock:
            if self._closed:
                raise RuntimeError('%s: the executor running it was closed' % self.name)
            if self._epoch is None:
                plan = self._producer_plan()
                self.buffer.reset()
                epoch = _Epoch(self._owner_ref)
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
        reader_ops.STAGE_BUFFERS.pop(self.key, None)

    @property
    def threads(self) -> list:
        epoch = self._epoch
        return list(epoch.threads) if epoch is not None else []

    # --- the producers --------------------------------------------------------------------------------------
    def _produce(self, plan, epoch: _Epoch) -> None:
        reader_ops.set_thread_cancel_event(epoch.stop)
        carried = plan.fetch_slots
        try:
            while not epoch.stop.is_set():
                values = plan.new_values()
                entry = None
                with self._source_lock:
                    if epoch.stop.is_set() or epoch.source_done:
                        return
                    reader_ops.collect_sources(start=True)
                    try:
                        bind_scope_inputs(plan.scope_inputs, values, self.scope)
                        _run_nodes(plan.sources, values)
                    except reader_ops.ReaderCancelled:
                        return
                    except BaseException as exc:  # noqa: BLE001 - every failure goes to the step, in order
                        sources = reader_ops.collect_sources(start=False)
                        if any(q.generation != g for q, g in sources):
                            entry = 'retry'          # the user reset the loader meanwhile: read the new epoch
                        else:
                            epoch.source_done = True
                            entry = ('eof' if _is_eof(exc) else 'error', exc, sources)
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
                        _run_nodes(plan.rest, values)
                        write_scope_outputs(plan.scope_outputs, values, self.scope)
                        entry = ('batch', [values[s] for s in carried], sources)
                    except reader_ops.ReaderCancelled:
                        return
                    except BaseException as exc:  # noqa: BLE001
                        with self._source_lock:
                            epoch.source_done = True
                        entry = ('error', exc, sources)
                    values = None
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
            kind, payload, sources = self.buffer.take(self.timeout, self.name, epoch.stop)
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
