"""One trainer of the distributed benchmark, run by bench_distributed.py as
`mpiexec -n W python -m benchmarks.dist_worker MODEL STEPS ROUNDS [BLAS_THREADS]`.

It trains MODEL of benchmarks/models.py on its share of the global batch, with the programs Paddle 2.x's fleet
writes (paddle_exec.distributed.fleet.transpile: what fleet.distributed_optimizer does), and measures, per round:

  train   STEPS steps; steps per second of the global batch; from the communication thread's counters, the seconds
          inside MPI_Allreduce for the gradient buckets (a Barrier first, timed apart as skew: the wait for a
          trainer still computing), how long the training thread was blocked waiting for its buckets, the sparse
          gathers
  then STEPS steps of each of these, interleaved step by step (the order rotating), each after a Barrier:
  ours          the plan's dense buckets, member for member (the gradients' shapes), through paddle_exec's own
                bucket kernels, with nothing else running, as training runs them: the gradients are already in a
                buffer of the bucket (the segment that made them wrote them into its views: passes/bucket_sink.py;
                taking the free buffer, which that segment's step does, is timed here), the start all-reduces it in
                place through the process group, the wait hands out the views (executor/passes/collective.py)
  ours_packed   the same kernels without the sink, as before it: pack the gradients into the buffer first
  bare          the same bytes through a bare mpi4py Allreduce(send, recv) on preallocated buffers: the goal's
                baseline. MPICH copies the send buffer into the receive buffer and reduces there: one copy of the
                bytes, as paddle_exec's pack is one copy
  bare_inplace  the same bytes through Allreduce(IN_PLACE, buffer): no copy at all (reported: what `ours` does
                in MPI, without paddle_exec's Python around it)

  then STEPS training steps with the sink and STEPS with the segment's own step (the pack path), interleaved step
  by step, each after a Barrier: the sink's copy moved into backward (cache-hot, in the compiled segment), so the
  whole step, not the all-reduce alone, says whether it costs less than the pack did (`step_sink_ms`,
  `step_packed_ms`)

Training must take the sink path for `ours` to stand for it: `sunk_per_step` counts the dense buckets per training
step whose start found the gradients in its buffer (from the plan's bucket kernels; the sink variant of the
segment is compiled before anything is timed).

Each side's figure is the lower quartile of its steps (the median is reported too): on a machine where other work
preempts a third of the steps or more, the quartile is still a step in which both trainers ran; interleaving
the sides step by step gives them the same load, the same skew between the trainers and the same caches (blocks of
one side after the other, as before, compared moments of different load). Trainer 0 prints one JSON line.
"""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from mpi4py import MPI
from threadpoolctl import threadpool_limits

import paddle_exec.fluid as fluid
from paddle_exec.distributed.fleet import transpile
from paddle_exec.executor.jit_service import SERVICE
from paddle_exec.executor.passes.bucket_sink import _SinkStep, sink_state
from paddle_exec.executor.passes.collective import Bucket, _bucket_start_kernel, _bucket_wait_kernel
from paddle_exec.framework import unique_name
from paddle_exec.framework.collective import get_group

from . import models

# interleaved steps per side and round, per training step of the round: a 1 MB all-reduce takes a fraction of a
# millisecond, so a round can afford many (the quartile needs them on a machine that preempts a third of them)
COMPARE_STEPS_PER_STEP = 5


def _median_ms(seconds: list, per_step: int) -> float:
    return 1e3 * per_step * float(np.median(seconds)) if seconds else 0.0


def main(model: str, steps: int, rounds: int) -> None:
    group = get_group(0)
    rank, n = group.rank, group.nranks
    builder, batch = models.MODELS[model]
    main_prog, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main_prog, startup), unique_name.guard():
        loss, draw = builder(fluid, batch)
    if n > 1:
        transpile.broadcast_params(startup)
        transpile.scale_loss_grad(main_prog, n)
        transpile.allreduce_grads(main_prog)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    share = batch // n
    feeds = [{k: v[rank * share:(rank + 1) * share] for k, v in draw().items()} for _ in range(4)]

    def train_block(count: int) -> float:
        start = time.perf_counter()
        for i in range(count):
            exe.run(main_prog, feed=feeds[i % len(feeds)], fetch_list=[loss])
        return time.perf_counter() - start

    train_block(3)                                  # compiles, plans, first broadcast: never timed
    SERVICE.wait()                                  # the segments' compiled code, then their sink variants
    train_block(3)
    SERVICE.wait()
    train_block(2)
    stats = getattr(group, 'stats', None)
    sizes = []
    if stats is not None:
        stats.separate_skew = True
        stats.reset()
        stats.record_sizes = True
        train_block(1)
        sizes = list(stats.sizes)
        stats.record_sizes = False
    result = {'model': model, 'workers': n, 'global_batch': batch, 'steps': steps, 'bucket_sizes': sizes,
              'bytes_per_step': sum(size * np.dtype(dt).itemsize for size, dt in sizes), 'rounds': []}
    comm = getattr(group, 'comm', None)
    # bare: the same bytes through mpi4py, as a user of it writes the call (preallocated send and receive
    # buffers: MPICH copies the send buffer into the receive buffer, then reduces there), and in place
    bare_buffers = [(np.ones(size, dtype=dt), np.empty(size, dtype=dt)) for size, dt in sizes]
    inplace_buffers = [np.ones(size, dtype=dt) for size, dt in sizes]
    ours_buckets = []                               # the plan's dense buckets, member for member
    block = main_prog.global_block()
    plan = exe._runner.plans.plans()[-1]
    for node in plan.nodes:
        if node.op is None or node.op.type != 'bucket_start':
            continue
        names = node.op.input('X')
        if any(block.var(name).type == fluid.core.VarDesc.VarType.SELECTED_ROWS for name in names):
            continue                                # gathered, not all-reduced
        bucket = Bucket(len(ours_buckets))
        bucket.names = list(names)
        bucket.overlap = False                      # nothing else runs here: reduced at its start
        bucket.dtype = np.dtype('float32')
        shapes = [[abs(d) for d in block.var(name).shape] for name in names]
        grads = [np.ones(shape, dtype='float32') for shape in shapes]
        start_kernel = _bucket_start_kernel(bucket, 1)
        sink = start_kernel.state.make_sink(shapes)
        for view, grad in zip(sink.acquire().views, grads):
            view[...] = grad
        ours_buckets.append((start_kernel, _bucket_wait_kernel(bucket, 1, frozenset()), sink,
                             _bucket_start_kernel(bucket, 1), grads))
    result['ours_members'] = [len(b[4]) for b in ours_buckets]
    starts = [sink_state(node) for node in plan.nodes if sink_state(node) is not None]
    dense_starts = [state for state in starts if not state.bucket.sparse]

    def ours_step() -> float:
        start = time.perf_counter()
        for start_kernel, wait_kernel, sink, _, _ in ours_buckets:
            entry = sink.acquire()                  # the segment's step takes it and writes the gradients there
            sink.entry = entry
            wait_kernel(start_kernel(entry.views)[0])
        return time.perf_counter() - start

    def packed_step() -> float:
        start = time.perf_counter()
        for _, wait_kernel, _, packing_kernel, grads in ours_buckets:
            wait_kernel(packing_kernel(grads)[0])
        return time.perf_counter() - start

    def bare_step() -> float:
        start = time.perf_counter()
        for send, recv in bare_buffers:
            comm.Allreduce(send, recv)
        return time.perf_counter() - start

    def inplace_step() -> float:
        start = time.perf_counter()
        for buf in inplace_buffers:                 # (the sums grow to inf: as fast as finite sums)
            comm.Allreduce(MPI.IN_PLACE, buf)
        return time.perf_counter() - start

    sides = (('ours', ours_step), ('bare', bare_step), ('bare_inplace', inplace_step), ('ours_packed', packed_step))

    def compare(count: int) -> dict:
        """`count` steps of each side, interleaved step by step (the order rotating, so each side follows each
        other side equally often), each step after a Barrier (outside the timing): every side sees the same load
        of a shared machine, the same caches and the same skew between the trainers. Per side, the lower quartile
        and the median of its steps, in seconds."""
        took = {label: [] for label, _ in sides}
        for i in range(count):
            k = i % len(sides)
            for label, step in sides[k:] + sides[:k]:
                comm.Barrier()
                took[label].append(step())
        out = {}
        for label, t in took.items():
            out[label + '_ms'] = 1e3 * float(np.percentile(t, 25))
            out[label + '_median_ms'] = 1e3 * float(np.median(t))
        return out

    sink_steps = [(node, node.step) for node in plan.nodes if isinstance(node.step, _SinkStep)]

    def compare_training(count: int) -> dict:
        """`count` training steps with the sinks and `count` without, interleaved (the order alternating)."""
        took = {'sink': [], 'packed': []}
        for i in range(2 * count):
            use_sink = (i % 2 == 0) == (i // 2 % 2 == 0)
            for node, step in sink_steps:
                node.step = step if use_sink else step.base
            comm.Barrier()
            start = time.perf_counter()
            exe.run(main_prog, feed=feeds[i % len(feeds)], fetch_list=[loss])
            took['sink' if use_sink else 'packed'].append(time.perf_counter() - start)
        for node, step in sink_steps:
            node.step = step
        return {'step_%s_ms' % k: 1e3 * float(np.percentile(t, 25)) for k, t in took.items()}

    if comm is not None and sizes:
        stats.separate_skew = False
        compare(5)                                  # warm every side the same
    for r in range(rounds):
        if stats is not None:
            stats.separate_skew = True
            stats.reset()
        sunk = sum(state.sunk for state in dense_starts)
        wall = train_block(steps)
        row = {'steps_per_second': steps / wall,
               'sunk_per_step': (sum(state.sunk for state in dense_starts) - sunk) / steps}
        if stats is not None:
            row.update(train_allreduce_ms=_median_ms(stats.durations, len(sizes)),
                       wait_ms=1e3 * stats.wait_seconds / steps, skew_ms=1e3 * stats.skew_seconds / steps,
                       allgather_ms=1e3 * stats.allgather_seconds / steps)
            stats.separate_skew = False
        if comm is not None and sizes:
            row.update(compare(COMPARE_STEPS_PER_STEP * steps))
            if sink_steps:
                row.update(compare_training(steps))
        result['rounds'].append(row)
    if rank == 0:
        print('RESULT ' + json.dumps(result), flush=True)


if __name__ == '__main__':
    # the cores are shared by the trainers of this machine: BLAS threads per trainer = cores / trainers by default
    # (as Horovod advises), or BLAS threads spinning in every process starve the others
    blas = int(sys.argv[4]) if len(sys.argv) > 4 else max(1, (os.cpu_count() or 1) // get_group(0).nranks)
    with threadpool_limits(limits=blas, user_api='blas'):
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
