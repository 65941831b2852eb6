"""Reader decorators (paddle.reader / fluid.io) and paddle.batch, with Paddle's semantics.

A *reader* is a callable with no argument that returns an iterable of samples; a decorator takes readers and
returns a new reader, so nothing is read until the returned reader is called:

    train_reader = paddle.batch(paddle.reader.shuffle(sample_reader, buf_size=500), batch_size=20)
    for minibatch in train_reader():            # a list of 20 samples
        exe.run(feed=feeder.feed(minibatch), ...)

shuffle draws from Python's `random` module (so `random.seed` makes it repeatable, as in Paddle). buffered and
xmap_readers run their producers on daemon threads that end with the source reader; an exception raised by the
source reader or the mapper is re-raised in the consuming thread instead of hanging it.
multiprocess_reader runs each reader in a forked process and yields their samples as they come (the order
between readers is not fixed, as in Paddle); a reader's exception ends the merged reader with that error.
"""
from __future__ import annotations

import itertools
import multiprocessing
import random
import threading
from collections.abc import Callable, Iterable
from queue import Queue

__all__ = ['cache', 'map_readers', 'buffered', 'compose', 'chain', 'shuffle', 'ComposeNotAligned', 'firstn',
           'xmap_readers', 'multiprocess_reader']

Reader = Callable[[], Iterable]


def batch(reader: Reader, batch_size: int, drop_last: bool = False) -> Reader:
    """paddle.batch / fluid.io.batch: a reader of lists of `batch_size` samples; the last, shorter list is kept
    unless `drop_last`."""
    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError('batch_size should be a positive integeral value, but got batch_size={}'.format(batch_size))

    def batch_reader():
        b = []
        for instance in reader():
            b.append(instance)
            if len(b) == batch_size:
                yield b
                b = []
        if not drop_last and b:
            yield b
    return batch_reader


def cache(reader: Reader) -> Reader:
    """Reads `reader` once, now, and replays the samples from memory on every call."""
    all_data = tuple(reader())

    def cached_reader():
        yield from all_data
    return cached_reader


def map_readers(func: Callable, *readers: Reader) -> Reader:
    """A reader of `func(a, b, ...)` over the samples of `readers` read in lockstep (stops at the shortest)."""
    def mapped_reader():
        yield from map(func, *[r() for r in readers])
    return mapped_reader


def shuffle(reader: Reader, buf_size: int) -> Reader:
    """Shuffles the samples within consecutive buffers of `buf_size` (random.shuffle per full buffer and once
    for the remainder)."""
    def shuffled_reader():
        buf = []
        for e in reader():
            buf.append(e)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        if buf:
            random.shuffle(buf)
            yield from buf
    return shuffled_reader


def chain(*readers: Reader) -> Reader:
    """The samples of each reader in turn."""
    def chained_reader():
        yield from itertools.chain(*[r() for r in readers])
    return chained_reader


class ComposeNotAligned(ValueError):
    pass


def compose(*readers: Reader, check_alignment: bool = True) -> Reader:
    """A reader of flat tuples joining one sample of each reader: (1, 2), 3, (4, 5) -> (1, 2, 3, 4, 5).
    With `check_alignment`, readers of different lengths raise ComposeNotAligned; without it the extra samples
    are dropped."""
    def as_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def composed_reader():
        rs = [r() for r in readers]
        if not check_alignment:
            for outputs in zip(*rs):
                yield sum(map(as_tuple, outputs), ())
            return
        missing = object()
        for outputs in itertools.zip_longest(*rs, fillvalue=missing):
            if any(o is missing for o in outputs):
                raise ComposeNotAligned('outputs of readers are not aligned.')
            yield sum(map(as_tuple, outputs), ())
    return composed_reader


class _End:
    """Sentinel a producer thread puts last; `error` carries the exception that stopped it, if any."""

    def __init__(self, error: BaseException | None = None):
        self.error = error


def _produce(samples: Iterable, queue: Queue, transform: Callable | None = None) -> None:
    try:
        for sample in samples:
            queue.put(transform(sample) if transform is not None else sample)
    except BaseException as error:      # handed to the consumer, which re-raises it
        queue.put(_End(error))
        return
    queue.put(_End())


def buffered(reader: Reader, size: int) -> Reader:
    """Reads ahead on a background thread into a queue of at most `size` samples."""
    def buffered_reader():
        queue: Queue = Queue(maxsize=size)
        threading.Thread(target=_produce, args=(reader(), queue), daemon=True).start()
        while True:
            item = queue.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                return
            yield item
    return buffered_reader


def firstn(reader: Reader, n: int) -> Reader:
    """At most the first `n` samples."""
    def firstn_reader():
        yield from itertools.islice(reader(), n)
    return firstn_reader


def xmap_readers(mapper: Callable, reader: Reader, process_num: int, buffer_size: int, order: bool = False) -> Reader:
    """`mapper` applied to the samples by `process_num` threads, through queues of `buffer_size`. With `order`
    the outputs keep the input order; without it they come in completion order."""
    def ordered_reader():
        # one in-flight window: the mapped values are collected in order from per-sample slots
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=process_num) as pool:
            window = []
            for sample in reader():
                window.append(pool.submit(mapper, sample))
                if len(window) >= buffer_size:
                    yield window.pop(0).result()
            for future in window:
                yield future.result()

    def unordered_reader():
        in_queue: Queue = Queue(buffer_size)
        out_queue: Queue = Queue(buffer_size)
        threading.Thread(target=_produce, args=(reader(), in_queue), daemon=True).start()

        def worker():
            while True:
                item = in_queue.get()
                if isinstance(item, _End):
                    in_queue.put(item)           # let the other workers see the end too
                    out_queue.put(item)
                    return
                try:
                    out_queue.put(mapper(item))
                except BaseException as error:
                    in_queue.put(_End(error))
                    out_queue.put(_End(error))
                    return
        for _ in range(process_num):
            threading.Thread(target=worker, daemon=True).start()
        finished = 0
        while finished < process_num:
            item = out_queue.get()
            if isinstance(item, _End):
                if item.error is not None:
                    raise item.error
                finished += 1
                continue
            yield item
    return ordered_reader if order else unordered_reader


def _read_into(reader: Reader, queue) -> None:
    try:
        for sample in reader():
            if sample is None:
                raise ValueError('sample has None')
            queue.put(sample)
        queue.put(None)
    except Exception as e:  # noqa: BLE001  (carried to the merging process)
        queue.put(('__multiprocess_reader_error__', '%s: %s' % (type(e).__name__, e)))


def multiprocess_reader(readers: list, use_pipe: bool = True, queue_size: int = 1000) -> Reader:
    """A reader of the samples of every reader in `readers`, each read in its own forked process (use_pipe is
    accepted; samples always travel through one bounded queue of `queue_size`)."""
    if not isinstance(readers, (list, tuple)) or not readers:
        raise ValueError('multiprocess_reader needs a non-empty list of readers')

    def merged():
        ctx = multiprocessing.get_context('fork')
        queue = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_read_into, args=(r, queue), daemon=True) for r in readers]
        for p in procs:
            p.start()
        finished = 0
        try:
            while finished < len(procs):
                sample = queue.get()
                if sample is None:
                    finished += 1
                elif isinstance(sample, tuple) and len(sample) == 2 and \
                        sample[0] == '__multiprocess_reader_error__':
                    raise RuntimeError('multiprocess_reader: a reader failed: %s' % sample[1])
                else:
                    yield sample
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
                p.join()
    return merged
