"""fluid.io.DataLoader.from_generator: Paddle 1.8's generator loader, non-iterable (in-graph) and iterable, and
fluid.io.PyReader, its older name (decorate_* for set_*).

Non-iterable (`iterable=False`), the loader is part of the program:

    loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=8, iterable=False)
    loader.set_batch_generator(batches)          # or set_sample_list_generator / set_sample_generator
    for epoch in range(2):
        loader.start()
        try:
            while True:
                exe.run(main, fetch_list=[loss])  # no feed: the `read` op pops the next batch
        except fluid.core.EOFException:
            loader.reset()

from_generator appends `create_py_reader`, `create_double_buffer_reader` (unless use_double_buffer=False) and
`read` (outputs: the feed_list variables) to the current block, and puts its queue (ops/reader.BlockingQueue,
`capacity` batches) in `global_scope()` under `lod_tensor_blocking_queue_N`, as Paddle does (and, so runs under a
`scope_guard` find it, in the scope current at start() too); names come from the loader's own unique-name counter.
start() runs the generator on a daemon thread that fills the queue; the run after the last batch raises
EOFException ("There is no next data."); reset() stops the thread, drops what is queued and makes the loader ready
for the next start(). A generator that raises kills the queue: the next read raises
RuntimeError with Paddle's words and the generator's error. Under data parallelism each place reads its own batch,
so a run takes one batch per place.

Iterable (`iterable=True`), the loader is a Python iterable of feeds for `exe.run(feed=...)`: each step is a list
with one dict {name: LoDTensor} per place of `places` (or, with return_list=True, one list of LoDTensors per
place); a last group of batches smaller than the number of places is dropped, as Paddle does.

Samples given as lists of ids (set_sample_list_generator / set_sample_generator) go through the DataFeeder, which
makes LoDTensors for the variables declared with lod_level > 0; their LoD reaches the program through the `read`
op (non-iterable) or the feed dicts (iterable). Batches are converted as Paddle's `_check_input_array` does
(`np.asarray`, no cast): a generator yielding float64 for a float32 variable gets the read op's dtype error.
"""
from __future__ import annotations

import logging
import threading

import numpy as np

from ..framework import unique_name
from ..framework.dtype import VarType, to_var_type
from ..framework.errors import EOFException
from ..framework.lod import check_lod
from ..framework.place import CPUPlace
from ..framework.program import Program, default_main_program
from ..framework.scope import LoDTensor, global_scope
from ..framework.unique_name import UniqueNameGenerator
from ..framework.variable import Variable
from ..ops.reader import BlockingQueue, ReaderCancelled
from .extras import DataFeeder

__all__ = ['DataLoader', 'PyReader', 'py_reader', 'create_py_reader_by_data', 'read_file', 'double_buffer']

_loader_names = UniqueNameGenerator()       # Paddle's data_loader_unique_name_generator


def _as_batch_array(item, var: Variable):
    """Paddle's _check_input_array: arrays as they are (no cast), nested lists as arrays; ragged lists raise. A
    LoDTensor with a LoD stays a LoDTensor (its LoD checked against its rows): the read op gives the LoD to its
    output when the variable is declared with lod_level > 0."""
    if isinstance(item, LoDTensor):
        if item._lod:
            check_lod(item._lod, np.shape(item.value)[0] if np.ndim(item.value) else None, var.name)
            return LoDTensor(item.value, item._lod)
        return item.value
    if isinstance(item, np.ndarray):
        return item
    arr = np.asarray(item)
    if arr.dtype == object and var.dtype != VarType.STRINGS:
        raise TypeError("\n\tFaild to convert input data to a regular ndarray :\n\t* Usually this means the input "
                        "data contains nested lists with different lengths. \n\t* Check the reader function passed "
                        "to 'decorate_batch_generator' to locate the data causes this issue.\n\t* Please consider "
                        "using 'fluid.create_lod_tensor' to convert it to a LoD-Tensor.")
    return arr


def _as_tensor(item) -> LoDTensor:
    return item if isinstance(item, LoDTensor) else LoDTensor(item)


def _convert_places(places) -> list:
    if places is None:
        return None
    if not isinstance(places, (list, tuple)):
        places = [places]
    for p in places:
        if not isinstance(p, CPUPlace):
            raise TypeError('DataLoader places must be CPU places (paddle_exec runs on the CPU only), got %r' % (p,))
    if not places:
        raise ValueError('DataLoader: places is empty')
    return list(places)


class DataLoader:
    """Paddle's fluid.io.DataLoader (static graph): see the module docstring."""

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer: bool = True, iterable: bool = True,
                       return_list: bool = False, use_multiprocess: bool = False, drop_last: bool = True):
        if use_multiprocess:
            logging.warning('DataLoader.from_generator(use_multiprocess=True): the generator runs in a thread '
                            '(paddle_exec has no multiprocess loader)')
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list, drop_last)


class GeneratorLoader:
    """What DataLoader.from_generator returns; see the module docstring."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False,
                 drop_last=True, append_ops=True):
        if not capacity:
            raise ValueError('Please give value to capacity.')
        if not feed_list:
            raise Exception('Feed list must be given under static mode.')
        for v in feed_list:
            if not isinstance(v, Variable):
                raise TypeError('DataLoader feed_list must hold Variables, got %s' % type(v).__name__)
        self._feed_list = list(feed_list)
        self._capacity = int(capacity)
        self._use_double_buffer = use_double_buffer
        self._iterable = iterable
        self._return_list = return_list
        self._drop_last = drop_last
        self._batch_reader = None
        self._places = None
        self._thread: threading.Thread | None = None
        self._queue: BlockingQueue | None = None
        if not iterable and append_ops:        # py_reader appends its own ops (and read_file the read)
            self._init_non_iterable()

    # --- non-iterable: the ops --------------------------------------------------------------------------------
    def _init_non_iterable(self) -> None:
        reader = self._create_reader_ops(_loader_names('lod_tensor_blocking_queue'),
                                         _loader_names('create_py_reader'), _loader_names('double_buffer'))
        default_main_program().current_block().append_op('read', {'Reader': [reader]}, {'Out': self._feed_list},
                                                         {'drop_last': self._drop_last})

    def _create_reader_ops(self, queue_name: str, reader_name: str, double_buffer_name: str) -> Variable:
        """The queue (in the global scope) and the create_py_reader (+ create_double_buffer_reader) ops; returns
        the reader variable a `read` op takes."""
        self._queue = BlockingQueue(self._capacity, queue_name)
        global_scope().var(queue_name).set_value(self._queue)
        block = default_main_program().current_block()
        reader = block.create_var(name=reader_name, type=VarType.READER, persistable=True, stop_gradient=True)
        shape_concat, ranks = [], []
        for v in self._feed_list:
            shape_concat.extend(v.shape)
            ranks.append(len(v.shape))
        block.append_op('create_py_reader', {'blocking_queue': [queue_name]}, {'Out': [reader]},
                        {'shape_concat': shape_concat, 'ranks': ranks,
                         'lod_levels': [v.lod_level for v in self._feed_list],
                         'dtypes': [int(v.dtype) for v in self._feed_list],
                         'need_check_feed': [int(v.need_check_feed) for v in self._feed_list]})
        if self._use_double_buffer:
            buffered = block.create_var(name=double_buffer_name, type=VarType.READER, persistable=True,
                                        stop_gradient=True)
            block.append_op('create_double_buffer_reader', {'UnderlyingReader': [reader]}, {'Out': [buffered]})
            reader = buffered
        return reader

    @property
    def queue(self) -> BlockingQueue | None:
        return self._queue

    @property
    def iterable(self) -> bool:
        return self._iterable

    def start(self) -> None:
        assert not self._iterable, 'start() cannot be called when DataLoader is iterable'
        if self._batch_reader is None:
            raise RuntimeError('Data source of DataLoader has not set yet: call set_batch_generator, '
                               'set_sample_list_generator or set_sample_generator before start()')
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError('DataLoader.start() was called while the loader is running: call reset() first')
        # the scope current at start() holds the queue too: runs under a scope_guard find it there
        global_scope().var(self._queue.name).set_value(self._queue)
        self._thread = self._fill(self._queue)

    def reset(self) -> None:
        assert not self._iterable, 'reset() cannot be called when DataLoader is iterable'
        self._queue.reset()
        thread = self._thread
        if thread is not None:
            thread.join()
        self._thread = None

    def _fill(self, queue: BlockingQueue) -> threading.Thread:
        """Starts a daemon thread that pushes the generator's batches into `queue`, then closes it."""
        queue.open()
        batches = self._batch_reader
        feed_list = self._feed_list

        def fill():
            try:
                for batch in batches():
                    if len(batch) != len(feed_list):
                        raise ValueError('The generator of the DataLoader yielded %d arrays, but feed_list has %d '
                                         'variables %s' % (len(batch), len(feed_list), [v.name for v in feed_list]))
                    if not queue.push([_as_batch_array(item, v) for item, v in zip(batch, feed_list)]):
                        return                      # reset() while filling
                queue.close()
            except ReaderCancelled:
                return
            except BaseException as exc:  # noqa: BLE001 - the reader's error goes to the read op, as in Paddle
                logging.warning('Your reader has raised an exception! %s: %s', type(exc).__name__, exc)
                queue.kill(exc)

        thread = threading.Thread(target=fill, daemon=True, name='paddle_exec-%s-filler' % queue.name)
        thread.start()
        return thread

    # --- data sources -----------------------------------------------------------------------------------------
    def set_batch_generator(self, reader, places=None) -> GeneratorLoader:
        """`reader()` yields one batch at a time: a list/tuple of arrays, one per feed_list variable."""
        if not callable(reader):
            raise TypeError('set_batch_generator: reader must be a callable returning a generator')
        self._batch_reader = reader
        if self._iterable:
            assert places is not None, 'Places cannot be None when DataLoader is iterable'
            self._places = _convert_places(places)
        elif places is not None:
            logging.info('places would be ommited when DataLoader is not iterable')
        return self

    def set_sample_list_generator(self, reader, places=None) -> GeneratorLoader:
        """`reader()` yields one batch at a time as a list of samples (tuples, one field per variable)."""
        feeder = DataFeeder(feed_list=self._feed_list, place=CPUPlace())
        names = [v.name for v in self._feed_list]

        def batches():
            for samples in reader():
                slots = feeder.feed(samples)
                yield [slots[n] for n in names]
        return self.set_batch_generator(batches, places)

    def set_sample_generator(self, reader, batch_size: int, drop_last: bool = True, places=None) -> GeneratorLoader:
        """`reader()` yields one sample at a time; samples are grouped into batches of `batch_size`."""
        assert batch_size > 0, 'batch_size must be larger than 0'

        def sample_lists():
            group = []
            for sample in reader():
                group.append(sample)
                if len(group) == batch_size:
                    yield group
                    group = []
            if group and not drop_last:
                yield group
        return self.set_sample_list_generator(sample_lists, places)

    # --- iterable -----------------------------------------------------------------------------------------------
    def __call__(self):
        return self

    def __iter__(self):
        assert self._iterable, 'DataLoader is not iterable'
        assert self._batch_reader is not None, 'Data source of DataLoader has not set yet'
        self._stop_iteration_thread()
        self._queue = BlockingQueue(self._capacity, 'iterable_data_loader')
        self._thread = self._fill(self._queue)
        return self

    def __next__(self):
        names = [v.name for v in self._feed_list]
        step = []
        try:
            for _ in self._places:
                step.append(self._queue.pop())
        except EOFException:
            self._stop_iteration_thread()
            raise StopIteration from None
        if self._return_list:
            return [[_as_tensor(a) for a in batch] for batch in step]
        return [{n: _as_tensor(a) for n, a in zip(names, batch)} for batch in step]

    next = __next__

    def _stop_iteration_thread(self) -> None:
        if self._queue is not None and self._thread is not None:
            self._queue.reset()
            self._thread.join()
        self._thread = None


class PyReader(GeneratorLoader):
    """fluid.io.PyReader (1.8): the generator loader under its older names (decorate_* for set_*)."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True, return_list=False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        return self.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        return self.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        return self.set_batch_generator(reader, places)


# --- fluid.layers.py_reader (1.8): the reader as a Variable with the loader's methods -----------------------------

def _py_reader(capacity, shapes, dtypes, lod_levels=None, name=None, use_double_buffer=True,
               feed_list=None) -> Variable:
    """The reader Variable of a non-iterable loader whose `read` op read_file appends; the Variable carries the
    loader's start / reset and the 1.8 decorate_* methods."""
    if feed_list is not None:
        if not isinstance(feed_list, list):
            raise TypeError('feed_list should be a list of Variable instead of ' + str(type(feed_list)))
        slots = list(feed_list)
    else:
        lod_levels = list(lod_levels) if lod_levels is not None else [0] * len(shapes)
        if not (len(shapes) == len(dtypes) == len(lod_levels)):
            raise ValueError('py_reader: shapes, dtypes and lod_levels must have the same length')
        block = Program().global_block()           # the slots' descriptions, as 1.8's throwaway data layers
        slots = [block.create_var(name=str(i), shape=list(shape), dtype=to_var_type(dtype), lod_level=lod)
                 for i, (shape, dtype, lod) in enumerate(zip(shapes, dtypes, lod_levels))]
    loader = GeneratorLoader(slots, capacity, use_double_buffer, iterable=False, append_ops=False)
    if name is None:
        names = (_loader_names('lod_tensor_blocking_queue'), _loader_names('create_py_reader'),
                 _loader_names('double_buffer'))
    else:
        names = (name + '_queue', name + '_reader', name + '_double_buffer')
    reader = loader._create_reader_ops(*names)
    reader._py_reader_loader = loader
    reader.start = loader.start
    reader.reset = loader.reset
    reader.queue = loader.queue
    reader.decorate_paddle_reader = lambda r, places=None: loader.set_sample_list_generator(r)
    reader.decorate_sample_list_generator = reader.decorate_paddle_reader
    reader.decorate_tensor_provider = lambda f, places=None: loader.set_batch_generator(f)
    reader.decorate_batch_generator = reader.decorate_tensor_provider
    reader.decorate_sample_generator = \
        lambda g, batch_size, drop_last=True, places=None: loader.set_sample_generator(g, batch_size, drop_last)
    return reader


def py_reader(capacity, shapes, dtypes, lod_levels=None, name=None, use_double_buffer=True) -> Variable:
    """fluid.layers.py_reader: a reader fed from Python; read_file(reader) gives its data variables."""
    logging.warning('paddle.fluid.layers.py_reader() may be deprecated in the near future. Please use '
                    'paddle.fluid.io.DataLoader.from_generator() instead.')
    return _py_reader(capacity, shapes, dtypes, lod_levels, name, use_double_buffer)


def create_py_reader_by_data(capacity, feed_list, name=None, use_double_buffer=True) -> Variable:
    """fluid.layers.create_py_reader_by_data: py_reader shaped like the feed_list variables."""
    logging.warning('paddle.fluid.layers.create_py_reader_by_data() may be deprecated in the near future. Please '
                    'use paddle.fluid.io.DataLoader.from_generator() instead.')
    return _py_reader(capacity, None, None, None, name, use_double_buffer, feed_list=feed_list)


def double_buffer(reader, place=None, name=None) -> Variable:
    """fluid.layers.double_buffer: a create_double_buffer_reader over `reader`, keeping its methods."""
    block = default_main_program().current_block()
    out = block.create_var(name=name or _loader_names('double_buffer'), type=VarType.READER, persistable=True,
                           stop_gradient=True)
    attrs = {'place': str(place).upper()} if place is not None else {}
    block.append_op('create_double_buffer_reader', {'UnderlyingReader': [reader]}, {'Out': [out]}, attrs)
    for attr in ('_py_reader_loader', 'start', 'reset', 'queue', 'decorate_paddle_reader',
                 'decorate_sample_list_generator', 'decorate_tensor_provider', 'decorate_batch_generator',
                 'decorate_sample_generator'):
        if hasattr(reader, attr):
            setattr(out, attr, getattr(reader, attr))
    return out


def read_file(reader):
    """fluid.layers.read_file: the data variables of a py_reader (a `read` op); one Variable or a list."""
    loader = getattr(reader, '_py_reader_loader', None)
    if loader is None:
        raise TypeError('read_file expects the reader of fluid.layers.py_reader / create_py_reader_by_data')
    block = default_main_program().current_block()
    out = [block.create_var(name=unique_name.generate_with_ignorable_key('read_file.tmp'), shape=list(v.shape),
                            dtype=v.dtype, lod_level=v.lod_level, stop_gradient=True) for v in loader._feed_list]
    block.append_op('read', {'Reader': [reader]}, {'Out': out})
    return out[0] if len(out) == 1 else out
