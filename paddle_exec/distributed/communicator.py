"""The MPI process group: collectives between trainer processes, on one communication thread (as Horovod does).

    group = make_world_group()            # the first collective of a job of several trainers makes it
    work = group.allreduce_async(buffer)  # queued; the communication thread runs MPI_Allreduce
    reduced = work.wait()

Design:
- MPI is imported here, and this module is imported only when the environment says the job has several trainers
  (`paddle_exec.distributed.env.make_group`): a single process never loads MPI.
- Every MPI call of the process is queued (one FIFO) and run, one at a time and in the order queued, by a daemon
  communication thread. The executor queues a gradient bucket and goes on with backward while the thread reduces
  it; `wait()` blocks only where the gradients are needed. A caller that waits while the thread is idle runs the
  next queued calls itself (`_help_until`), saving two thread hand-offs when there is nothing to overlap (and for
  blocking collectives: `allreduce`, `broadcast`, `barrier`, ...). One call at a time means MPI never sees two
  threads at once, and the order of the calls is the order in which the executor issued them, which is the same
  on every trainer (passes/collective.py chains them).
- mpi4py releases the GIL inside MPI calls, so numba kernels and BLAS keep running meanwhile.
- A failing trainer must not leave the others waiting in a collective forever: `abort_on_error` makes an uncaught
  exception (main thread or any other) print its traceback and then call MPI_Abort, which ends every process of
  the job (mpiexec reports it and exits non-zero).
- `stats` counts what the communication thread did (calls, bytes, seconds inside MPI) for the benchmarks.
"""
from __future__ import annotations

import collections
import sys
import threading
import time
import traceback

import numpy as np
from mpi4py import MPI

from ..framework.collective import ProcessGroup, Work

__all__ = ['MPIGroup', 'abort_on_error']

_FORWARD_SECONDS = 0.5
_MPI_OPS = {'sum': MPI.SUM, 'max': MPI.MAX, 'min': MPI.MIN, 'prod': MPI.PROD}


class _Pending(Work):
    """A queued call: done once the communication thread, or a caller helping it, has run it."""

    def __init__(self, fn, group):
        self.fn = fn
        self._group = group
        self._event = threading.Event()
        self._result = None
        self._error = None

    def done(self) -> bool:
        return self._event.is_set()

    def wait(self):
        if not self._event.is_set():
            start = time.perf_counter()
            self._group._help_until(self)
            self._group.stats.wait_seconds += time.perf_counter() - start
        if self._error is not None:
            raise self._error
        return self._result


class CommStats:
    """What the communication thread did: all-reduce calls, bytes and seconds inside MPI (and the sizes, in order,
    when `record_sizes`), seconds inside the gathers; and how long callers were blocked waiting for results."""

    def __init__(self):
        self.allreduce_calls = 0
        self.allreduce_bytes = 0
        self.allreduce_seconds = 0.0
        self.allgather_seconds = 0.0
        self.wait_seconds = 0.0
        self.sizes: list = []
        self.record_sizes = False
        # benchmarks: a Barrier before each all-reduce, timed apart (`skew_seconds`), so `allreduce_seconds` is
        # the reduction itself and not the wait for a trainer that is still computing
        self.separate_skew = False
        self.skew_seconds = 0.0
        self.durations: list = []       # seconds of each all-reduce, kept when separate_skew

    def reset(self) -> None:
        separate_skew = self.separate_skew
        self.__init__()
        self.separate_skew = separate_skew


class MPIGroup(ProcessGroup):
    """A process group over an MPI communicator (see the module docstring)."""

    def __init__(self, comm=None):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.nranks = self.comm.Get_size()
        self.stats = CommStats()
        self._buffers: dict = {}
        self._pending: collections.deque = collections.deque()
        self._busy = False                  # a call is running (on the communication thread or a helping caller)
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._serve, name='paddle_exec-mpi', daemon=True)
        self._thread.start()

    # --- the queue: one call at a time, in the order queued ----------------------------------------------------
    def _serve(self) -> None:
        while True:
            with self._cond:
                while self._busy or not self._pending:
                    self._cond.wait()
                work = self._pending.popleft()
                self._busy = True
            self._execute(work)

    def _execute(self, work: _Pending) -> None:
        try:
            work._result = work.fn()
        except BaseException as e:          # handed to whoever waits for it
            work._error = e
        finally:
            with self._cond:
                work._event.set()
                self._busy = False
                self._cond.notify_all()

    def _help_until(self, work: _Pending) -> None:
        """A caller waiting for `work` runs the queue's next calls itself while nothing is running, rather than
        waiting for the communication thread to wake up: on a busy machine each hand-off between threads costs a
        scheduling delay, and with nothing left to overlap there is no reason to pay it."""
        while not work._event.is_set():
            with self._cond:
                if work._event.is_set():
                    return
                if self._busy or not self._pending:
                    self._cond.wait()
                    continue
                item = self._pending.popleft()
                self._busy = True
            self._execute(item)

    def _submit(self, fn, wake: bool = True) -> _Pending:
        """Queues `fn`. `wake` False leaves the communication thread asleep: the caller is about to wait and will
        run it itself (unless the thread is still busy with earlier calls, which it then goes on with)."""
        work = _Pending(fn, self)
        with self._cond:
            self._pending.append(work)
            if wake:
                self._cond.notify_all()
        return work

    def _buffer(self, size: int, dtype) -> np.ndarray:
        """A result buffer nothing refers to any more, else a new one: MPI is many times slower on memory it has
        not touched before (fresh pages), so blocking all-reduces (metrics, LocalSGD's parameters) reuse theirs."""
        pool = self._buffers.setdefault((size, np.dtype(dtype).str), [])
        for buf in pool:
            if sys.getrefcount(buf) == 3:       # the pool, `buf`, the call
                return buf
        buf = np.empty(size, dtype=dtype)
        pool.append(buf)
        if len(pool) > 4:
            pool.pop(0)
        return buf

    # --- collectives --------------------------------------------------------------------------------------------
    def allreduce_async(self, buffer: np.ndarray, op: str = 'sum', inplace: bool = False,
                        overlap: bool = True) -> Work:
        """`inplace`: the caller hands `buffer` over (a contiguous array nothing else uses), and the result is
        written into it: no second buffer to allocate and fault in. `overlap` False: the caller has nothing to do
        before it waits, so the communication thread is not woken and the waiting caller runs the call itself."""
        send = buffer if inplace and buffer.flags.c_contiguous else np.ascontiguousarray(buffer)
        recv = send if inplace else self._buffer(send.size, send.dtype).reshape(send.shape)
        mpi_op = _MPI_OPS[op]
        stats = self.stats

        def run():
            if stats.separate_skew:
                start = time.perf_counter()
                self.comm.Barrier()
                stats.skew_seconds += time.perf_counter() - start
            start = time.perf_counter()
            self.comm.Allreduce(MPI.IN_PLACE if recv is send else send, recv, op=mpi_op)
            took = time.perf_counter() - start
            stats.allreduce_seconds += took
            if stats.separate_skew:
                stats.durations.append(took)
            stats.allreduce_calls += 1
            stats.allreduce_bytes += send.nbytes
            if stats.record_sizes:
                stats.sizes.append((send.size, send.dtype.str))
            return recv
        return self._submit(run, wake=overlap)

    def allreduce(self, array: np.ndarray, op: str = 'sum') -> np.ndarray:
        return self.allreduce_async(array, op, overlap=False).wait()

    def broadcast(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        buf = np.array(array, copy=True, order='C')

        def run():
            self.comm.Bcast(buf, root=root)
            return buf
        return self._submit(run, wake=False).wait()

    def allgather_async(self, array: np.ndarray, overlap: bool = True) -> Work:
        send = np.ascontiguousarray(array)

        stats = self.stats

        def run():
            start = time.perf_counter()
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
            stats.allgather_seconds += time.perf_counter() - start
            return out
        return self._submit(run, wake=overlap)

    def allgather(self, array: np.ndarray) -> list:
        return self.allgather_async(array, overlap=False).wait()

    def allgather_object(self, obj) -> list:
        return self._submit(lambda: self.comm.allgather(obj), wake=False).wait()

    def barrier(self) -> None:
        self._submit(self.comm.Barrier, wake=False).wait()

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
            time.sleep(_FORWARD_SECONDS)     # mpiexec forwards output through pipes: let the traceback get out
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
