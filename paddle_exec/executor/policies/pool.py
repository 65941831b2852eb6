"""Worker threads for the policies that own a pool (threaded, cost model).

    pool = WorkerPool(worker_loop, n, 'pool', cap_arenas=True)
    tasks = pool.tasks()            # starts the workers the first time
    pool.close()                    # or let the garbage collector do it

`n` daemon threads run `worker_loop(tasks)`, blocking on one `queue.SimpleQueue`; `None` on the queue tells a worker
to exit. The workers stop when the pool is closed or garbage collected: they hold no reference to it, only to the
queue.

Before the first pool starts, glibc's malloc arena count is capped (see `cap_malloc_arenas`) unless the user set
MALLOC_ARENA_MAX (RunConfig.cap_malloc_arenas, read from the environment by executor/config.py).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import itertools
import queue
import sys
import threading
import weakref

_pool_ids = itertools.count()
STOP = None              # the queue item that tells a worker to exit

_M_ARENA_MAX = -8        # glibc's mallopt parameter


@functools.lru_cache(maxsize=1)
def cap_malloc_arenas(limit: int = 2) -> None:
    """Once per process (the cache is the 'once'): glibc gives every thread that calls malloc its own arena;
    arrays made on workers and freed on the caller then keep several arenas half full, and the resident size grows
    by megabytes before it levels off. Capping the count keeps it flat over long training runs."""
    if not sys.platform.startswith('linux'):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        libc.mallopt(_M_ARENA_MAX, limit)
    except (OSError, AttributeError):      # not glibc (musl has no mallopt): nothing to cap
        pass


def stop_workers(tasks: queue.SimpleQueue, threads: list) -> None:
    for _ in threads:
        tasks.put(STOP)
    current = threading.current_thread()
    for t in threads:
        if t is not current:
            t.join(timeout=10.0)


class WorkerPool:
    """`n` workers running `worker_loop(tasks)`, started at the first `tasks()` call and stopped by close() or when
    the pool is garbage collected (the workers hold only the queue, never the pool or its policy)."""

    def __init__(self, worker_loop, n: int, label: str, cap_arenas: bool = True):
        self._worker_loop, self._n, self._label = worker_loop, n, label
        self._cap_arenas = cap_arenas
        self._lock = threading.Lock()
        self._tasks: queue.SimpleQueue | None = None
        self.threads: list[threading.Thread] = []
        self._finalizer = None
        self.closed = False

    def tasks(self) -> queue.SimpleQueue:
        """The task queue, starting the workers the first time."""
        tasks = self._tasks
        if tasks is not None:
            return tasks
        with self._lock:
            if self.closed:
                raise RuntimeError('this executor was closed: its thread pool is gone')
            if self._tasks is None:
                if self._cap_arenas:
                    cap_malloc_arenas()
                tasks = queue.SimpleQueue()
                pool_id = next(_pool_ids)
                threads = [threading.Thread(target=self._worker_loop, args=(tasks,), daemon=True,
                                            name='paddle_exec-%s%d-worker%d' % (self._label, pool_id, k))
                           for k in range(self._n)]
                for t in threads:
                    t.start()
                self.threads = threads
                self._finalizer = weakref.finalize(self, stop_workers, tasks, threads)
                self._tasks = tasks
        return self._tasks

    def close(self) -> None:
        """Stops and joins the workers; later tasks() calls raise RuntimeError."""
        with self._lock:
            self.closed = True
            finalizer = self._finalizer
        if finalizer is not None:
            finalizer()
