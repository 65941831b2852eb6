"""The DataLoader's workers: batches made in worker processes (or threads), handed back in order.

    pool = WorkerPool(make_batch, num_workers, mode='process', prefetch=2, ...)
    for batch in pool.map_batches(index_lists): ...        # map-style: batch k is made from index_lists[k]
    for batch in pool.stream_batches(): ...                # iterable: each worker iterates its own dataset copy

Map-style: the main side deals batch numbers to the workers in turn (at most `prefetch` per worker outstanding)
through one index queue per worker; results come back on one shared queue and are yielded in batch order.
Iterable: every worker runs `stream()` (its own iterator over its copy of the dataset, which get_worker_info()
lets it shard) and sends a batch each time the main side asks it for one; batches are taken from the workers in
turn, a finished worker dropping out, as Paddle's loader does.

Processes are forked (the dataset and functions need not be picklable; batches are pickled back). Threads share
everything and suit datasets that release the GIL (file and numpy work). A worker's exception is re-raised in the
main process with the worker's traceback in its message; a worker that dies, or a batch that does not come within
`timeout` seconds, raises RuntimeError. Workers stop when the iteration ends or is abandoned.
"""
from __future__ import annotations

import multiprocessing
import queue
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

__all__ = ['WorkerInfo', 'get_worker_info', 'WorkerPool']

_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class WorkerInfo:
    """What get_worker_info() returns inside a worker."""
    id: int
    num_workers: int
    seed: int
    dataset: object


_process_worker_info: WorkerInfo | None = None
_thread_worker_info = threading.local()


def get_worker_info() -> WorkerInfo | None:
    """The WorkerInfo of the worker this runs in, None in the main process (or the main thread)."""
    info = getattr(_thread_worker_info, 'info', None)
    return info if info is not None else _process_worker_info


class _WorkerError:
    def __init__(self, worker_id: int, exc: BaseException):
        self.worker_id = worker_id
        self.exc_type = type(exc)
        self.text = 'DataLoader worker(%d) caught %s:\n%s' % (worker_id, type(exc).__name__,
                                                              ''.join(traceback.format_exception(exc)))

    def reraise(self):
        try:
            error = self.exc_type(self.text)
        except Exception:  # noqa: BLE001  (an exception type that does not take one message)
            error = RuntimeError(self.text)
        raise error


_DONE = '__paddle_exec_worker_done__'


def _worker_loop(worker_id: int, num_workers: int, seed: int, dataset, make_batch: Callable, stream: Callable,
                 index_queue, result_queue, init_fn: Callable | None, in_thread: bool) -> None:
    """One worker: sets its WorkerInfo and seed, then serves requests until None. A request is (batch number,
    indices) for map-style, or a token for the stream, whose iterator is made at the first token."""
    global _process_worker_info
    info = WorkerInfo(worker_id, num_workers, seed, dataset)
    if in_thread:
        _thread_worker_info.info = info
    else:
        _process_worker_info = info
        np.random.seed(seed % (2 ** 32))
    iterator = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        while True:
            request = index_queue.get()
            if request is None:
                return
            number, indices = request
            try:
                if stream is not None:
                    if iterator is None:
                        iterator = stream()
                    try:
                        batch = next(iterator)
                    except StopIteration:
                        result_queue.put((worker_id, number, _DONE))
                        continue
                else:
                    batch = make_batch(indices)
            except Exception as e:  # noqa: BLE001  (carried to the main process)
                batch = _WorkerError(worker_id, e)
            result_queue.put((worker_id, number, batch))
    except KeyboardInterrupt:
        pass
    except Exception as e:  # noqa: BLE001  (init_fn failed)
        result_queue.put((worker_id, -1, _WorkerError(worker_id, e)))


class WorkerPool:
    """num_workers workers making batches; see the module docstring."""

    def __init__(self, dataset, make_batch: Callable | None, stream: Callable | None, num_workers: int,
                 mode: str = 'process', prefetch: int = 2, timeout: float = 0, init_fn: Callable | None = None):
        if mode not in ('process', 'thread'):
            raise ValueError("worker_mode must be 'process' or 'thread', got %r" % (mode,))
        self.num_workers = num_workers
        self.prefetch = max(1, int(prefetch))
        self.timeout = float(timeout or 0)
        self._in_thread = mode == 'thread'
        base_seed = int(np.random.randint(0, 2 ** 31 - 1))
        if self._in_thread:
            self._results = queue.Queue()
            self._index_queues = [queue.Queue() for _ in range(num_workers)]
            make = lambda i: threading.Thread(target=_worker_loop, daemon=True, name='paddle_exec-io-%d' % i,
                                              args=(i, num_workers, base_seed + i, dataset, make_batch, stream,
                                                    self._index_queues[i], self._results, init_fn, True))
        else:
            ctx = multiprocessing.get_context('fork')
            self._results = ctx.Queue()
            self._index_queues = [ctx.Queue() for _ in range(num_workers)]
            make = lambda i: ctx.Process(target=_worker_loop, daemon=True,
                                         args=(i, num_workers, base_seed + i, dataset, make_batch, stream,
                                               self._index_queues[i], self._results, init_fn, False))
        self._workers = [make(i) for i in range(num_workers)]
        for w in self._workers:
            w.start()
        self._closed = False

    # --- results -------------------------------------------------------------------------------------------------
    def _get(self):
        start = time.monotonic()
        while True:
            try:
                worker_id, number, batch = self._results.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                self._check_alive()
                if self.timeout and time.monotonic() - start > self.timeout:
                    self.close()
                    raise RuntimeError('DataLoader timed out: no batch came from the workers in %s seconds'
                                       % self.timeout) from None
                continue
            if isinstance(batch, _WorkerError):
                self.close()
                batch.reraise()
            return worker_id, number, batch

    def _check_alive(self) -> None:
        if self._in_thread:
            return
        for w in self._workers:
            if not w.is_alive() and w.exitcode not in (0, None):
                self.close()
                raise RuntimeError('DataLoader worker (pid %d) exited unexpectedly with exit code %s'
                                   % (w.pid, w.exitcode))

    def map_batches(self, index_lists) -> Iterator:
        """The batches of each index list, in order."""
        source = enumerate(index_lists)
        pending, sent, next_number, exhausted = {}, 0, 0, False
        try:
            while True:
                while not exhausted and sent - next_number < self.prefetch * self.num_workers:
                    try:
                        number, indices = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    self._index_queues[number % self.num_workers].put((number, indices))
                    sent += 1
                if next_number == sent and exhausted:
                    return
                while next_number not in pending:
                    _, number, batch = self._get()
                    pending[number] = batch
                yield pending.pop(next_number)
                next_number += 1
        finally:
            self.close()

    def stream_batches(self) -> Iterator:
        """Batches of the workers' own streams, taken from the workers in turn."""
        live = list(range(self.num_workers))
        held = {w: [] for w in live}
        asked = {w: 0 for w in live}
        try:
            for w in live:
                for _ in range(self.prefetch):
                    self._index_queues[w].put((asked[w], None))
                    asked[w] += 1
            turn = 0
            while live:
                turn %= len(live)
                w = live[turn]
                while not held[w]:
                    worker_id, _, batch = self._get()
                    held[worker_id].append(batch)
                batch = held[w].pop(0)
                if isinstance(batch, str) and batch == _DONE:
                    live.pop(turn)
                    continue
                self._index_queues[w].put((asked[w], None))
                asked[w] += 1
                turn += 1
                yield batch
        finally:
            self.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=5)
            if not self._in_thread and w.is_alive():
                w.terminate()
        if not self._in_thread:
            for q in self._index_queues + [self._results]:
                q.cancel_join_thread()
                q.close()
