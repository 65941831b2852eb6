"""The MPI process group: collectives between trainer processes, on one communication thread (as Horovod does).

    group = make_world_group()            # the first collective of a job of several trainers makes it
    work = group.allreduce_async(buffer)  # queued; the communication thread runs MPI_Allreduce
    reduced = work.wait()

Design:
- MPI is imported here, and this module is imported only when the environment says the job has several trainers
  (`paddle_exec.distributed.env.make_group`): a single process never loads MPI.
- Every MPI call of the process runs on one daemon thread, in the order the calls were queued (one FIFO). The
  executor queues a gradient bucket and goes on with backward while the thread reduces it; `wait()` blocks only
  where the gradients are needed. Blocking collectives (`allreduce`, `broadcast`, `barrier`, ...) are queued and
  waited for. One thread means MPI never sees two threads at once, and the order of the calls is the order in
  which the executor issued them, which is the same on every trainer (passes/collective.py chains them).
- mpi4py releases the GIL inside MPI calls, so numba kernels and BLAS keep running meanwhile.
- A failing trainer must not leave the others waiting in a collective forever: `abort_on_error` makes an uncaught
  exception (main thread or any other) print its traceback and then call MPI_Abort, which ends every process of
  the job (mpiexec reports it and exits non-zero).
- `stats` counts what the communication thread did (calls, bytes, seconds inside MPI) for the benchmarks.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
import traceback

import numpy as np
from mpi4py import MPI

from ..framework.collective import ProcessGroup, Work

__all__ = ['MPIGroup', 'abort_on_error']

_MPI_OPS = {'sum': MPI.SUM, 'max': MPI.MAX, 'min': MPI.MIN, 'prod': MPI.PROD}


class _Pending(Work):
    """A queued call: done once the communication thread has run it."""

    def __init__(self, fn):
        self.fn = fn
        self._event = threading.Event()
        self._result = None
        self._error = None

    def done(self) -> bool:
        return self._event.is_set()

    def wait(self):
        self._event.wait()
        if self._error is not None:
            raise self._error
        return self._result


class CommStats:
    """What the communication thread did: all-reduce calls, bytes and seconds inside MPI."""

    def __init__(self):
        self.allreduce_calls = 0
        self.allreduce_bytes = 0
        self.allreduce_seconds = 0.0

    def reset(self) -> None:
        self.__init__()


class MPIGroup(ProcessGroup):
    """A process group over an MPI communicator (see the module docstring)."""

    def __init__(self, comm=None):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.nranks = self.comm.Get_size()
        self.stats = CommStats()
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name='paddle_exec-mpi', daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                item._result = item.fn()
            except BaseException as e:          # handed to whoever waits for it
                item._error = e
            finally:
                item._event.set()

    def _submit(self, fn) -> _Pending:
        work = _Pending(fn)
        self._queue.put(work)
        return work

    # --- collectives --------------------------------------------------------------------------------------------
    def allreduce_async(self, buffer: np.ndarray, op: str = 'sum') -> Work:
        send = np.ascontiguousarray(buffer)
        recv = np.empty_like(send)
        mpi_op = _MPI_OPS[op]
        stats = self.stats

        def run():
            start = time.perf_counter()
            self.comm.Allreduce(send, recv, op=mpi_op)
            stats.allreduce_seconds += time.perf_counter() - start
            stats.allreduce_calls += 1
            stats.allreduce_bytes += send.nbytes
            return recv
        return self._submit(run)

    def allreduce(self, array: np.ndarray, op: str = 'sum') -> np.ndarray:
        return self.allreduce_async(array, op).wait()

    def broadcast(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        buf = np.array(array, copy=True, order='C')

        def run():
            self.comm.Bcast(buf, root=root)
            return buf
        return self._submit(run).wait()

    def allgather_async(self, array: np.ndarray) -> Work:
        send = np.ascontiguousarray(array)

        def run():
            shapes = self.comm.allgather(send.shape)
            if any(s[1:] != send.shape[1:] for s in shapes):
                raise ValueError('all_gather: the trainers hold arrays of different shapes %s' % (shapes,))
            counts = [int(np.prod(s)) for s in shapes]
            recv = np.empty(sum(counts), dtype=send.dtype)
            self.comm.Allgatherv(send, [recv, counts])
            out, off = [], 0
            for s, c in zip(shapes, counts):
                out.append(recv[off:off + c].reshape(s))
                off += c
            return out
        return self._submit(run)

    def allgather(self, array: np.ndarray) -> list:
        return self.allgather_async(array).wait()

    def allgather_object(self, obj) -> list:
        return self._submit(lambda: self.comm.allgather(obj)).wait()

    def barrier(self) -> None:
        self._submit(self.comm.Barrier).wait()

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)


def abort_on_error(group: MPIGroup) -> None:
    """Uncaught exceptions end the whole job: traceback first, then MPI_Abort (see the module docstring)."""
    previous_hook, previous_thread_hook = sys.excepthook, threading.excepthook

    def report_and_abort(print_error) -> None:
        try:
            print_error()
            sys.stderr.write('paddle_exec.distributed: trainer %d of %d failed; ending the job\n'
                             % (group.rank, group.nranks))
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            group.abort(1)

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, SystemExit):
            return previous_hook(exc_type, exc, tb)
        report_and_abort(lambda: previous_hook(exc_type, exc, tb))

    def thread_hook(args):
        if args.exc_type is SystemExit:
            return previous_thread_hook(args)
        report_and_abort(lambda: traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback))

    sys.excepthook = hook
    threading.excepthook = thread_hook
