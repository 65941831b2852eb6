"""The MPI process group: collectives between trainer processes, on one communication thread (as Horovod does).

    group = make_world_group()            # the first collective of a job of several trainers makes it
    work = group.allreduce_async(buffer)  # queued; the communication thread runs MPI_Allreduce
    reduced = work.wait()

Design:
- MPI is imported here, and this module is imported only when the environment says the job has several trainers
  (`paddle_exec.distributed.env.make_group`): a single process never loads MPI.
- Every MPI call of the process is queued (one FIFO) and run, one at a time and in the order queued, by a daemon
  communication thread. The executor queues a gradient bucket and goes on with backward while the thread reduces
  it; `wait()` blocks only where the gradients are needed. A caller that waits while the thread is busy runs the
  next queued calls itself once it is idle (`help_until`). A call whose caller waits at once (the blocking
  collectives: `allreduce`, `broadcast`, `barrier`, ...; a bucket with nothing to overlap: `allreduce_now`) runs
  on the caller's thread straight away when nothing is queued or running (`run_now`): no queue entry, no
  hand-off. The thread is notified only when it has something to do: on a machine whose cores the trainers share,
  each needless wake-up is a context switch that takes a core from the other trainer mid-all-reduce. One call at
  a time means MPI never sees two threads at once, and the order of the calls is the order in which the executor
  issued them, which is the same on every trainer (passes/collective.py chains them).
- mpi4py releases the GIL inside MPI calls, so numba kernels and BLAS keep running meanwhile.
- A failing trainer must not leave the others waiting in a collective forever: `abort_on_error` makes an uncaught
  exception (main thread or any other) print its traceback and then call MPI_Abort, which ends every process of
  the job (mpiexec reports it and exits non-zero).
- Sub-groups (paddle.distributed.new_group) are MPI communicators made with MPI_Comm_create_group over their
  members only; they share the job group's queue and thread (`_CallQueue`), so the one-call-at-a-time order holds
  across all of them.
- Point-to-point: `send` copies the array and starts an MPI_Isend, so a sender never waits for its receiver (two
  trainers may send to each other before receiving); the sends are completed by later calls and, at the latest,
  before the process ends (an exit hook). `recv` probes the message for its length, so a dimension left -1 in the
  expected shape is filled from it; a `with_shape` pair sends the shape first (Paddle's dynamic_shape).
- `stats` counts what the communication thread did (calls, bytes, seconds inside MPI) for the benchmarks.
"""
from __future__ import annotations

import atexit
import collections
import sys
import threading
import time
import traceback
import weakref

import numpy as np
from mpi4py import MPI

from ..framework.collective import ProcessGroup, Work, split_parts

__all__ = ['MPIGroup', 'abort_on_error', 'received_shape']

_FORWARD_SECONDS = 0.5
_DATA_TAG, _SHAPE_TAG = 0, 1      # point-to-point messages: the array, and its shape when it travels
_SUM = MPI.SUM
_MPI_OPS = {'sum': MPI.SUM, 'max': MPI.MAX, 'min': MPI.MIN, 'prod': MPI.PROD}


class _Pending(Work):
    """A queued call: done once the communication thread, or a caller helping it, has run it. `finished` is set
    under the queue's condition, which is also what a waiter blocks on (no Event per call)."""

    __slots__ = ('fn', '_queue', '_stats', 'finished', '_result', '_error')

    def __init__(self, fn, queue: '_CallQueue', stats: 'CommStats'):
        self.fn = fn
        self._queue = queue
        self._stats = stats
        self.finished = False
        self._result = None
        self._error = None

    def done(self) -> bool:
        return self.finished

    def wait(self):
        if not self.finished:
            start = time.perf_counter()
            self._queue.help_until(self)
            self._stats.wait_seconds += time.perf_counter() - start
        if self._error is not None:
            raise self._error
        return self._result


class _Finished(Work):
    """A call that ran at once on the caller's thread (`_CallQueue.run_now`): its result, or what it raised."""

    __slots__ = ('_result', '_error')

    def __init__(self, result=None, error: BaseException | None = None):
        self._result = result
        self._error = error

    def wait(self):
        if self._error is not None:
            raise self._error
        return self._result


class _CallQueue:
    """The process's one FIFO of MPI calls and the communication thread that runs them, shared by the job's group
    and its sub-groups: MPI sees one call at a time, in the order they were issued.

    Nobody is woken who has nothing to do: the thread is notified when a call is queued for it (`wake`), or when a
    call ends while others are queued or callers are blocked waiting; a call that ends with nothing queued and
    nobody waiting notifies no one. On a machine whose cores the trainers share, every needless wake-up of the
    communication thread is a context switch that takes a core from the other trainer in the middle of the
    all-reduce (measured: +0.1 to 0.3 ms per 1 MB bucket, a third of the call)."""

    def __init__(self):
        self._pending: collections.deque = collections.deque()
        self._busy = False                  # a call is running (on the communication thread or a helping caller)
        self._blocked = 0                   # callers blocked in help_until
        self.wakeups = 0                    # times the communication thread woke up (tests, benchmarks)
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._thread = threading.Thread(target=self._serve, name='paddle_exec-mpi', daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        cond = self._cond
        while True:
            with cond:
                while self._busy or not self._pending:
                    cond.wait()
                    self.wakeups += 1
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
                work.finished = True
                self._busy = False
                if self._pending or self._blocked:
                    self._cond.notify_all()

    def help_until(self, work: _Pending) -> None:
        """A caller waiting for `work` runs the queue's next calls itself while nothing is running, rather than
        waiting for the communication thread to wake up: on a busy machine each hand-off between threads costs a
        scheduling delay, and with nothing left to overlap there is no reason to pay it."""
        cond = self._cond
        while True:
            with cond:
                while not work.finished and (self._busy or not self._pending):
                    self._blocked += 1
                    try:
                        cond.wait()
                    finally:
                        self._blocked -= 1
                if work.finished:
                    return
                item = self._pending.popleft()
                self._busy = True
            self._execute(item)

    def run_now(self, fn, *args) -> Work | None:
        """Runs `fn(*args)` on the caller's thread right away when nothing is queued or running (the order of the
        calls holds: there is none before it), else None (queue it). The caller's result comes without a queued
        entry, a hand-off or a wake-up: what a blocking call, or a bucket with nothing to overlap, needs."""
        lock = self._lock
        with lock:
            if self._busy or self._pending:
                return None
            self._busy = True
        try:
            return _Finished(fn(*args))
        except BaseException as e:          # raised by wait(), as a queued call's error is
            return _Finished(error=e)
        finally:
            with lock:
                self._busy = False
                if self._pending or self._blocked:
                    self._cond.notify_all()

    def submit(self, fn, stats: 'CommStats', wake: bool = True) -> _Pending:
        """Queues `fn`. `wake` False leaves the communication thread asleep: the caller is about to wait and will
        run it itself (unless the thread is still busy with earlier calls, which it then goes on with)."""
        work = _Pending(fn, self, stats)
        with self._cond:
            self._pending.append(work)
            if wake:
                self._cond.notify_all()
        return work


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
    """A process group over an MPI communicator (see the module docstring). Sub-groups share the job group's call
    queue; `ranks` are the job ranks of the members."""

    def __init__(self, comm=None, queue: _CallQueue | None = None, ranks=None):
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.nranks = self.comm.Get_size()
        self.ranks = tuple(range(self.nranks)) if ranks is None else tuple(ranks)
        self.stats = CommStats()
        self._buffers: dict = {}
        self._sends: list = []              # (request, buffer) of sends not yet known to be received
        self._queue = _CallQueue() if queue is None else queue
        self._released = False
        _GROUPS.add(self)

    def _submit(self, fn, wake: bool = True) -> Work:
        """Queues `fn`; `wake` False (the caller waits at once): run right away on the caller's thread when the
        queue is idle (`_CallQueue.run_now`)."""
        if self._released:
            raise RuntimeError('this process group (trainers %s) was destroyed (destroy_process_group): make a new '
                               'one with paddle.distributed.new_group' % (list(self.ranks),))
        if not wake:
            start = time.perf_counter()
            done = self._queue.run_now(fn)
            if done is not None:
                self.stats.wait_seconds += time.perf_counter() - start     # the caller was blocked meanwhile
                return done
        return self._queue.submit(fn, self.stats, wake)

    def _run(self, fn):
        """A blocking call: run by this caller at once when the queue is idle, else queued in order and run by
        this caller when the communication thread is done with the calls before it."""
        return self._submit(fn, wake=False).wait()

    def subgroup(self, ranks) -> 'MPIGroup':
        """The group of the job ranks `ranks` (sorted), for a member; collective over the members only."""
        ranks = tuple(sorted(int(r) for r in ranks))
        comm = self._run(lambda: self.comm.Create_group(self.comm.Get_group().Incl(list(ranks))))
        return MPIGroup(comm, self._queue, ranks)

    def release(self) -> None:
        if self._released or self.comm == MPI.COMM_WORLD:
            return
        self._run(self._finish_sends)
        self._run(self.comm.Free)
        self._released = True

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
        if not overlap and not self._released:     # the bucket with nothing to overlap: no closure, no queue entry
            start = time.perf_counter()
            done = self._queue.run_now(self._allreduce_call, send, recv, mpi_op)
            if done is not None:
                self.stats.wait_seconds += time.perf_counter() - start
                return done
        return self._submit(lambda: self._allreduce_call(send, recv, mpi_op), wake=overlap)

    def allreduce_now(self, buffer: np.ndarray) -> bool:
        """Sums the contiguous `buffer` across the trainers in place, right now on the caller's thread, when no
        other call is queued or running (else False, and nothing is done: queue it with allreduce_async). The
        path of a bucket with nothing to overlap: between its pack and MPI_Allreduce, as little Python as can be,
        since on a machine the trainers share with other work every microsecond there costs several."""
        queue = self._queue
        lock = queue._lock
        with lock:
            if queue._busy or queue._pending or self._released:
                return False
            queue._busy = True
        start = time.perf_counter()
        try:
            self._allreduce_call(buffer, buffer, _SUM)
        finally:
            with lock:
                queue._busy = False
                if queue._pending or queue._blocked:
                    queue._cond.notify_all()
            self.stats.wait_seconds += time.perf_counter() - start     # the caller was blocked meanwhile
        return True

    def _allreduce_call(self, send: np.ndarray, recv: np.ndarray, mpi_op) -> np.ndarray:
        stats = self.stats
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

    def reduce(self, array: np.ndarray, op: str = 'sum', root: int = 0) -> np.ndarray:
        send = np.ascontiguousarray(array)
        recv = np.empty_like(send) if self.rank == root else None
        mpi_op = _MPI_OPS[op]
        self._run(lambda: self.comm.Reduce(send, recv, op=mpi_op, root=root))
        return recv if recv is not None else array

    def reduce_scatter(self, array: np.ndarray, op: str = 'sum') -> np.ndarray:
        send = np.ascontiguousarray(array)
        part = split_parts(send, self.nranks, 'reduce_scatter')[0]
        recv = np.empty_like(part)
        mpi_op = _MPI_OPS[op]
        self._run(lambda: self.comm.Reduce_scatter_block(send, recv, op=mpi_op))
        return recv

    def scatter(self, array: np.ndarray, root: int = 0) -> np.ndarray:
        send = np.ascontiguousarray(array)
        recv = np.empty_like(split_parts(send, self.nranks, 'scatter')[0])
        self._run(lambda: self.comm.Scatter(send if self.rank == root else None, recv, root=root))
        return recv

    def alltoall(self, array: np.ndarray) -> np.ndarray:
        send = np.ascontiguousarray(array)
        split_parts(send, self.nranks, 'alltoall')
        recv = np.empty_like(send)
        self._run(lambda: self.comm.Alltoall(send, recv))
        return recv

    def send(self, array: np.ndarray, peer: int, with_shape: bool = False) -> None:
        buf = np.array(array, copy=True, order='C')     # the caller may change its array before it is received

        def run():
            self._finish_sends(block=False)
            if with_shape:
                shape = np.array(buf.shape, dtype=np.int64)
                self._sends.append((self.comm.Isend(shape, dest=peer, tag=_SHAPE_TAG), shape))
            self._sends.append((self.comm.Isend(buf, dest=peer, tag=_DATA_TAG), buf))
        self._run(run)

    def recv(self, peer: int, dtype, shape=None, with_shape: bool = False) -> np.ndarray:
        dtype = np.dtype(dtype)

        def run():
            status = MPI.Status()
            if with_shape:
                self.comm.Probe(source=peer, tag=_SHAPE_TAG, status=status)
                sent = np.empty(status.Get_count(MPI.INT64_T), dtype=np.int64)
                self.comm.Recv(sent, source=peer, tag=_SHAPE_TAG)
                want = tuple(int(d) for d in sent)
            else:
                want = None
            self.comm.Probe(source=peer, tag=_DATA_TAG, status=status)
            nbytes = status.Get_count(MPI.BYTE)
            if nbytes % dtype.itemsize:
                raise ValueError('recv from trainer %d: %d bytes arrived, not a whole number of %s values (the '
                                 'sender sent another dtype)' % (peer, nbytes, dtype.name))
            out = np.empty(nbytes // dtype.itemsize, dtype=dtype)
            self.comm.Recv([out, MPI.BYTE], source=peer, tag=_DATA_TAG)
            return out.reshape(want if want is not None else received_shape(shape, out.size, peer))
        return self._run(run)

    def _finish_sends(self, block: bool = True) -> None:
        """Completes the sends the peers have received (all of them when `block`), releasing their buffers."""
        if block:
            MPI.Request.Waitall([r for r, _ in self._sends])
            self._sends.clear()
        else:
            self._sends[:] = [(r, b) for r, b in self._sends if not r.Test()]

    def finish_sends(self) -> None:
        """Waits until every send of this group has been received (before the process ends)."""
        if self._sends and not self._released:
            self._run(self._finish_sends)

    def broadcast_object(self, obj, root: int = 0):
        return self._run(lambda: self.comm.bcast(obj, root=root))

    def scatter_object(self, objs, root: int = 0):
        return self._run(lambda: self.comm.scatter(list(objs) if self.rank == root else None, root=root))

    def alltoall_object(self, objs: list) -> list:
        return self._run(lambda: self.comm.alltoall(list(objs)))

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)


_GROUPS: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _finish_all_sends() -> None:
    """Before MPI is finalized (mpi4py's exit hook was registered earlier, so it runs later): every send of the
    process must have been received, or MPI_Finalize would find requests still open."""
    for group in list(_GROUPS):
        group.finish_sends()


def received_shape(shape, size: int, peer: int) -> tuple:
    """The shape of `size` values received for a recv of `shape` (one -1 there is taken from the size; no shape:
    one dimension)."""
    if shape is None:
        return (size,)
    shape = [int(d) for d in shape]
    unknown = [k for k, d in enumerate(shape) if d < 0]
    known = int(np.prod([d for d in shape if d >= 0])) if shape else 1
    if len(unknown) > 1:
        raise ValueError('recv from trainer %d: out_shape %s has more than one unknown dimension; give the shape '
                         'or use dynamic_shape' % (peer, shape))
    if unknown:
        if known == 0 or size % known:
            raise ValueError('recv from trainer %d: %d values arrived, which out_shape %s cannot hold'
                             % (peer, size, shape))
        shape[unknown[0]] = size // known
    elif known != size:
        raise ValueError('recv from trainer %d: %d values arrived but out_shape %s holds %d (the sender sent a '
                         'tensor of another size)' % (peer, size, shape, known))
    return tuple(shape)


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
