"""Reader ops: in-graph data sources, and the two ops of a stage boundary.

Paddle's non-iterable DataLoader (static/data_loader.py) puts three ops in the main program, as Paddle 1.8 does:

    {Out=['create_py_reader_0']} = create_py_reader(inputs={blocking_queue=['lod_tensor_blocking_queue_0']}, ...)
    {Out=['double_buffer_0']} = create_double_buffer_reader(inputs={UnderlyingReader=['create_py_reader_0']}, ...)
    {Out=['x', 'y']} = read(inputs={Reader=['double_buffer_0']}, drop_last = True, ...)

The queue (a `BlockingQueue`, filled by the loader's thread) lives in the scope under its name; the two reader ops
pass it along and `read` pops the next batch (arrays, or LoDTensors whose LoD goes to the outputs declared with
lod_level > 0; a LoD for an output declared with lod_level 0 is refused, naming the variable, since the plan has no
place for it), checks it against its output variables (Paddle's read_op checks and
words) and raises `fluid.core.EOFException` ("There is no next data.") once the loader's generator is exhausted.
Under data parallelism each place's replica of `read` pops its own batch.

`text_line_reader` reads lines of text files: each run gives the next `batch_size` lines as a string tensor; after
the last line it raises EOFException once and starts over (the next run reads the first batch again). Its position
is kept per op (so every plan of the program shares it) and guarded by a lock (several producer threads may read).

`stage` (X -> Out, an identity) marks a `static.staged` boundary. Executors that stage (executor/stage.py) never run
it: they run the ops upstream of it in producer threads and replace it by `unstage`, which pops the producers'
next batch from the stage runtime its `Stage` input holds (a weak reference the runner binds; under data
parallelism its `Place` input, the place index held by each place's scope, makes place p take batch p of each
round, whatever the thread timing). Run by an executor that does not stage, the program computes the same values,
only without the overlap.

Blocking waits (a read on an empty queue, a put into a full one) wake up every 50 ms to check the calling thread's
cancel event (`set_thread_cancel_event`), so a producer thread can always be stopped.

`SOURCE_OPS` lists the op types that pull the next batch from outside the graph; the stage runtime runs them in
order under one lock so batches stay in order and in step.
"""
from __future__ import annotations

import collections
import threading

import numpy as np

from ..framework.dtype import VarType, convert_dtype, to_numpy, to_var_type
from ..framework.errors import EOFException
from ..framework.lod import NO_LOD
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..framework.scope import LoDTensor

__all__ = ['BlockingQueue', 'SOURCE_OPS', 'set_thread_cancel_event', 'ReaderCancelled',
           'RoundDealer', 'PlaceIndex']

SOURCE_OPS = frozenset({'create_py_reader', 'create_double_buffer_reader', 'read', 'text_line_reader', 'place_read',
                        'place_text_line_reader'})
# stage_key -> the stage runtime's buffer (anything with `pop()`), registered by executor/stage.py

_WAIT_SLICE = 0.05
_local = threading.local()


class ReaderCancelled(Exception):
    """Raised in a thread whose cancel event was set while it waited on a queue (the thread is being stopped)."""


def set_thread_cancel_event(event: threading.Event | None) -> None:
    """Blocking queue waits of the calling thread end with ReaderCancelled once `event` is set."""
    _local.cancel = event


def _check_cancelled() -> None:
    event = getattr(_local, 'cancel', None)
    if event is not None and event.is_set():
        raise ReaderCancelled('the thread was stopped while it waited for data')


def not_started_error(queue) -> RuntimeError:
    return RuntimeError("The DataLoader of queue '%s' is not started: call loader.start() before running the "
                        'program (and again after loader.reset())' % queue.name)


def eof_error():
    return EOFException('There is no next data.')


class PlaceIndex:
    """What a data-parallel place's scope holds for the place-aware reader ops: the place's index, and a way to
    tell runs apart (the runner's count of runs), so the end of data met in one run is not dealt again in the
    next."""

    __slots__ = ('index', '_runs')

    def __init__(self, index: int, runs=None):
        self.index = index
        self._runs = runs

    def __int__(self):
        return self.index

    __index__ = __int__

    def run_marker(self):
        return self._runs() if self._runs is not None else None


class RoundDealer:
    """Deals items to `n` places in rounds, so place p gets the same items whatever the thread timing: the first
    place to ask for its k-th item takes n items with `take()` (round k) and place p gets the p-th of them. An
    exception from take() (the end of data, an error) ends the round: the places left in it get the exception
    (also one whose thread only gets there after the failure, in the same run), and the next run starts every
    place at round 0 again (also one the failing run cancelled before it asked)."""

    def __init__(self, n: int):
        self.n = n
        self._lock = threading.Lock()
        self.generation = None
        self._reset()

    def _reset(self) -> None:
        self._rounds: dict = {}
        self._next = [0] * self.n
        self._ended = None
        self._ended_run = None

    def reset(self) -> None:
        with self._lock:
            self._reset()

    def deal(self, place, take, stale=lambda item: False):
        """Place `place`'s next item. `place` is an int or a PlaceIndex (which tells runs apart)."""
        run = place.run_marker() if isinstance(place, PlaceIndex) else None
        place = int(place)
        with self._lock:
            k = self._next[place]
            items = self._rounds.get(k)
            if items is not None and k == self._ended and (
                    stale(items[place]) or (run is not None and run != self._ended_run)):
                items = None                # an end met in an earlier run (or an epoch reset since): not this run's
            if items is None:
                if self._ended is not None:
                    self._reset()
                    k = 0
                items = self._rounds[k] = []
                for _ in range(self.n):
                    try:
                        items.append(take())
                    except BaseException as exc:  # noqa: BLE001 - the end reaches every place left in the round
                        items.extend([exc] * (self.n - len(items)))
                        self._ended = k
                        self._ended_run = run
                        break
                items.append(0)             # how many places have taken theirs
            self._next[place] = k + 1
            item = items[place]
            items[-1] += 1
            if items[-1] == self.n:
                del self._rounds[k]
        if isinstance(item, BaseException):
            raise item
        return item


class BlockingQueue:
    """A bounded FIFO of batches between a loader's thread and the `read` ops (Paddle's LoDTensorBlockingQueue).

    States: idle (made or reset; nothing will come: popping raises, naming the loader), open (started: pops wait for
    the next batch), closed (no more pushes: pops drain what is left, then raise EOFException), killed (the
    generator raised: pops raise its error). `generation` counts resets, so holders of batches can tell a batch
    of an epoch the user has reset."""

    def __init__(self, capacity: int, name: str = 'lod_tensor_blocking_queue'):
        if capacity <= 0:
            raise ValueError('The capacity of the DataLoader queue must be > 0, got %r' % (capacity,))
        self.capacity = int(capacity)
        self.name = name
        self.generation = 0
        self._items: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._state = 'idle'
        self._error: BaseException | None = None
        self._dealers: dict = {}

    # --- the filling side -------------------------------------------------------------------------------------
    def open(self) -> None:
        with self._cond:
            self._state = 'open'
            self._error = None

    def push(self, batch) -> bool:
        """Waits for room; False when the queue was closed meanwhile (the filler should stop)."""
        with self._cond:
            while self._state == 'open' and len(self._items) >= self.capacity:
                self._cond.wait(_WAIT_SLICE)
                _check_cancelled()
            if self._state != 'open':
                return False
            self._items.append(batch)
            self._cond.notify_all()
            return True

    def close(self) -> None:
        with self._cond:
            if self._state in ('open', 'idle'):
                self._state = 'closed'
            self._cond.notify_all()

    def kill(self, error: BaseException) -> None:
        with self._cond:
            self._state = 'killed'
            self._error = error
            self._cond.notify_all()

    def reset(self) -> None:
        """Drops what is queued and goes back to idle (Paddle's reset): a new epoch needs start() again."""
        with self._cond:
            self._items.clear()
            self._state = 'idle'
            self._error = None
            self.generation += 1
            self._cond.notify_all()

    # --- the reading side -------------------------------------------------------------------------------------
    def pop(self):
        waiter = None
        with self._cond:
            while not self._items:
                if self._state == 'closed':
                    raise eof_error()
                if self._state == 'killed':
                    raise RuntimeError('Blocking queue is killed because the data reader raises an exception: '
                                       '%s: %s' % (type(self._error).__name__, self._error)) from self._error
                waiter = getattr(_local, 'cancel', None)
                if self._state == 'idle':
                    if waiter is None:
                        raise not_started_error(self)
                    # a stage producer reads ahead: it waits for start(); the step reports it if it starves
                    waiter.idle_queue = self
                self._cond.wait(_WAIT_SLICE)
                _check_cancelled()
            if waiter is not None:
                waiter.idle_queue = None
            batch = self._items.popleft()
            self._cond.notify_all()
            return batch

    def pop_for_place(self, place, n_places: int):
        """Under data parallelism: place p's batch of the next round of `n_places` batches (RoundDealer)."""
        dealer = self._dealers.get(n_places)
        if dealer is None:
            dealer = self._dealers.setdefault(n_places, RoundDealer(n_places))
        if dealer.generation != self.generation:
            dealer.reset()
            dealer.generation = self.generation
        return dealer.deal(place, self.pop)

    @property
    def started(self) -> bool:
        return self._state != 'idle'

    def size(self) -> int:
        return len(self._items)

    def __repr__(self):
        return 'BlockingQueue(%s, %s, %d/%d)' % (self.name, self._state, len(self._items), self.capacity)


# --- the DataLoader's ops -----------------------------------------------------------------------------------------

defop('create_py_reader', ['blocking_queue'], ['Out'],
      {'shape_concat': [], 'ranks': [], 'lod_levels': [], 'dtypes': [], 'need_check_feed': [],
       'use_data_config': True, 'device_index': 0, 'device_count': 1}, stateful=True)
defop('create_double_buffer_reader', ['UnderlyingReader'], ['Out'], {'place': 'AUTO'}, stateful=True)
defop('read', ['Reader'], ['Out'], {'throw_eof_exp': True, 'drop_last': True, 'infer_out': True},
      duplicable=['Out'], stateful=True)


@shape_rule('create_py_reader')
@shape_rule('create_double_buffer_reader')
def _reader_var_shape(ctx):
    ctx.set_output('Out', None, type=VarType.READER)


@kernel_rule('create_py_reader')
def _create_py_reader_kernel(spec):
    name = (spec.op.inputs.get('blocking_queue') or ['?'])[0]

    def run(queue):
        if not isinstance(queue, BlockingQueue):
            raise TypeError("create_py_reader: the scope variable '%s' holds %s, not a DataLoader queue"
                            % (name, type(queue).__name__))
        return (queue,)
    return run


@kernel_rule('create_double_buffer_reader')
def _double_buffer_kernel(spec):
    # the loader's thread already reads ahead into the queue: the double buffer passes the reader on
    return lambda reader: (reader,)


@lod_rule('read', 'place_read')
def _read_lod(ctx):
    """The outputs declared with lod_level > 0 take the LoD of the batch's tensors (none when a batch has none)."""
    levels = [int(v.lod_level or 0) if (v := ctx.var(n)) is not None else 0 for n in ctx.op.outputs.get('Out', [])]
    if any(levels):
        ctx.compute('Out', levels)


@kernel_rule('read')
def _read_kernel(spec):
    names = list(spec.op.outputs.get('Out', []))
    variables = [spec.op.block._find_var_recursive(n) for n in names]
    throw_eof = bool(spec.attr('throw_eof_exp', True))
    with_lod = spec.lod is not None and bool(spec.lod.computes)
    lod_free = [k for k, v in enumerate(variables) if v is not None and not v.lod_level]

    def run(reader):
        _note_source(reader)
        try:
            batch = reader.pop()
        except Exception as exc:
            if not throw_eof and type(exc).__name__ == 'EOFException':
                return ([None] * len(names),) + (([NO_LOD] * len(names),) if with_lod else ())
            raise
        if len(batch) != len(names):
            raise ValueError('read: the DataLoader gave %d arrays per batch, but the read op outputs %d variables %s'
                             % (len(batch), len(names), names))
        values = [v.value if isinstance(v, LoDTensor) else v for v in batch]
        for var, value in zip(variables, values):
            if var is not None:
                _check_read(var, value)
        lods = [v._lod if isinstance(v, LoDTensor) else NO_LOD for v in batch]
        for k in lod_free:
            if lods[k]:
                _refuse_lod(variables[k], lods[k])
        if with_lod:
            return values, lods
        return (values,)
    return run


def _refuse_lod(var, lod) -> None:
    """A LoD batch for an output declared without LoD: the plan has no place for its LoD (which outputs carry one
    is decided when the plan is made, from lod_level), so it is refused rather than dropped."""
    raise ValueError("read: the DataLoader gave '%s' a LoD tensor (LoD %s), but '%s' is declared with lod_level=0, "
                     "so its LoD cannot reach the program: declare it with lod_level=%d (fluid.layers.data(..., "
                     "lod_level=%d))" % (var.name, [level.tolist() for level in lod], var.name, len(lod), len(lod)))


# the physical `read` of data-parallel plans (executor/stage.py puts it in place of `read`): its `Place` input, the
# place index held by each place's scope, makes place p take batch p of each round of `n_places` batches
defop('place_read', ['Reader', 'Place'], ['Out'],
      {'throw_eof_exp': True, 'drop_last': True, 'infer_out': True, 'n_places': 1}, duplicable=['Out'], stateful=True)


@kernel_rule('place_read')
def _place_read_kernel(spec):
    read = _read_kernel(spec)
    n_places = int(spec.attr('n_places'))

    def run(reader, place):
        return read(_PlaceReader(reader, place, n_places))
    return run


class _PlaceReader:
    __slots__ = ('queue', 'place', 'n_places')

    def __init__(self, queue, place, n_places: int):
        self.queue, self.place, self.n_places = queue, place, n_places

    def pop(self):
        return self.queue.pop_for_place(self.place, self.n_places)


def _check_read(var, value) -> None:
    """Paddle's read_op checks (when need_check_feed): a shape compatible with the variable's (-1 matches any
    size), the same dtype. Paddle's words, with the dtype names added to its enum numbers."""
    if not var.need_check_feed or not isinstance(value, np.ndarray):
        return
    want = tuple(var.shape)
    if len(want) != value.ndim or any(w >= 0 and w != d for w, d in zip(want, value.shape)):
        raise ValueError('The fed Variable %s should have dimensions = %d, shape = [%s], but received fed shape [%s] '
                         '[operator < read > error]' % (var.name, len(want), ', '.join(map(str, want)),
                                                        ', '.join(map(str, value.shape))))
    if value.dtype != to_numpy(var.dtype):
        try:
            got = to_var_type(value.dtype)
        except TypeError:
            got = VarType.RAW
        raise ValueError('The data type of fed Variable %s must be %d (%s), but received %d (%s) '
                         '[operator < read > error]' % (var.name, int(var.dtype), convert_dtype(var.dtype),
                                                         int(got), convert_dtype(got)))


def _note_source(reader) -> None:
    """Records (queue, generation) before a read, for a stage runtime collecting its batches' sources: a batch (or
    an end of data) read from a queue reset since belongs to an epoch the user dropped."""
    seen = getattr(_local, 'sources', None)
    if seen is not None:
        queue = getattr(reader, 'queue', reader)
        seen.append((queue, queue.generation))


def collect_sources(start: bool) -> list:
    """Starts (start=True) or ends recording the sources the calling thread reads; returns what was recorded."""
    seen = getattr(_local, 'sources', None) or []
    _local.sources = [] if start else None
    return seen


# --- text_line_reader -----------------------------------------------------------------------------------------

defop('text_line_reader', [], ['Out'], {'filenames': [], 'batch_size': 1, 'skip_header_lines': 0, 'drop_last': False},
      stateful=True)


@shape_rule('text_line_reader')
def _text_line_shape(ctx):
    ctx.set_output('Out', (-1,), VarType.STRINGS)


class TextLineState:
    """The position of one text_line_reader op in its files; see the module docstring."""

    def __init__(self, filenames: list, batch_size: int, skip_header_lines: int, drop_last: bool):
        if batch_size <= 0:
            raise ValueError('text_line_reader: batch_size must be > 0, got %r' % (batch_size,))
        if not filenames:
            raise ValueError('text_line_reader: no files to read')
        self.filenames = list(filenames)
        self.batch_size = int(batch_size)
        self.skip = int(skip_header_lines)
        self.drop_last = bool(drop_last)
        self.lock = threading.Lock()
        self._lines = None
        self.dealers: dict = {}             # n_places -> RoundDealer, for data-parallel plans

    def _iter_lines(self):
        for path in self.filenames:
            with open(path, encoding='utf-8') as f:
                for k, line in enumerate(f):
                    if k >= self.skip:
                        yield line.rstrip('\r\n') if line.endswith(('\n', '\r')) else line

    def next_batch(self) -> np.ndarray:
        with self.lock:
            if self._lines is None:
                self._lines = self._iter_lines()
            batch = []
            for line in self._lines:
                batch.append(line)
                if len(batch) == self.batch_size:
                    break
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                self._lines = None          # EOF once; the next read starts a new pass over the files
                raise eof_error()
            out = np.empty(len(batch), dtype=object)
            out[:] = batch
            return out


_TEXT_STATES_LOCK = threading.Lock()


def text_line_state(op) -> TextLineState:
    """The reading position of a text_line_reader op, kept on the op itself (every plan of the program shares it;
    a cloned program starts its own)."""
    with _TEXT_STATES_LOCK:
        state = getattr(op, '_text_line_state', None)
        if state is None:
            state = op._text_line_state = TextLineState(op.attrs['filenames'], op.attrs['batch_size'],
                                                        op.attrs.get('skip_header_lines', 0),
                                                        op.attrs.get('drop_last', False))
        return state


@kernel_rule('text_line_reader')
def _text_line_kernel(spec):
    state = text_line_state(spec.op)
    return lambda: (state.next_batch(),)


# the physical text_line_reader of data-parallel plans (executor/stage.py): place p takes batch p of each round of
# `n_places` batches; `source` (a Python attribute of the physical op) is the user's op, whose position it shares
defop('place_text_line_reader', ['Place'], ['Out'],
      {'filenames': [], 'batch_size': 1, 'skip_header_lines': 0, 'drop_last': False, 'n_places': 1}, stateful=True)


@kernel_rule('place_text_line_reader')
def _place_text_line_kernel(spec):
    state = text_line_state(getattr(spec.op, 'source', spec.op))
    n_places = int(spec.attr('n_places'))
    with _TEXT_STATES_LOCK:
        dealer = state.dealers.setdefault(n_places, RoundDealer(n_places))
    return lambda place: (dealer.deal(place, state.next_batch),)


# --- a stage boundary ---------------------------------------------------------------------------------------------

defop('stage', ['X'], ['Out'], {'capacity': 1, 'num_threads': 1, 'timeout_millis': 300000, 'stage_name': ''},
      duplicable=['X', 'Out'])
defop('unstage', ['Stage', 'Place'], ['Out'], {'stage_name': ''}, duplicable=['Out'],
      dispensable=['Place'], stateful=True)


@shape_rule('stage')
def _stage_shape(ctx):
    for k, x in enumerate(ctx.input_vars('X')):
        if x is not None:
            ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype, i=k, lod_level=x.lod_level)


@kernel_rule('stage')
def _stage_kernel(spec):
    return lambda xs: (list(xs),)


lod_rule('unstage')(_read_lod)      # the staged values declared with lod_level > 0 bring their LoD along


@kernel_rule('unstage')
def _unstage_kernel(spec):
    name = spec.attr('stage_name')
    with_lod = spec.lod is not None and bool(spec.lod.computes)

    def run(stage_ref, place=None):
        runtime = stage_ref() if stage_ref is not None else None      # a weak reference: closing frees the stage
        if runtime is None:
            raise RuntimeError("unstage: the stage runtime of stage '%s' is gone (its executor was closed)" % name)
        batch = runtime.pop(place)
        if with_lod:
            return ([v.value if isinstance(v, LoDTensor) else v for v in batch],
                    [v._lod if isinstance(v, LoDTensor) else NO_LOD for v in batch])
        return (batch,)
    return run
