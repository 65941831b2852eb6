"""One trainer of the distributed benchmark (bench_distributed.py runs it as `mpiexec -n W python -m
benchmarks.dist_worker MODEL STEPS ROUNDS`): trains MODEL of benchmarks/models.py on its share of the global batch
with Paddle 2.x's collective program rewrites (paddle_exec.distributed.fleet.transpile, what
fleet.distributed_optimizer does), and in alternating blocks replays the same all-reduces with bare mpi4py.

Per round: a block of STEPS training steps (wall time, and from the communication thread's counters the seconds
inside MPI_Allreduce, the seconds the training thread was blocked waiting for a bucket, the seconds inside the
sparse gathers), then a block replaying, step by step, the same sequence of Allreduce buffer sizes on one thread
with nothing else running (a Barrier first, as the trainers meet at the first bucket). Trainer 0 prints one JSON
line with the per-round figures.
"""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

import paddle_exec.fluid as fluid
from paddle_exec.distributed.fleet import transpile
from paddle_exec.framework import unique_name
from paddle_exec.framework.collective import get_group

from . import models


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
    stats = getattr(group, 'stats', None)
    sizes = []
    if stats is not None:
        stats.separate_skew = True
        stats.reset()
        stats.record_sizes = True
        train_block(1)
        sizes = list(stats.sizes)
    result = {'model': model, 'workers': n, 'global_batch': batch, 'steps': steps, 'bucket_sizes': sizes,
              'bytes_per_step': sum(size * np.dtype(dt).itemsize for size, dt in sizes), 'rounds': []}
    comm = getattr(group, 'comm', None)
    buffers = [(np.ones(size, dtype=dt), np.empty(size, dtype=dt)) for size, dt in sizes]
    for _ in range(rounds):
        if stats is not None:
            stats.reset()
        wall = train_block(steps)
        row = {'steps_per_second': steps / wall}
        if stats is not None:
            row.update(allreduce_ms=1e3 * stats.allreduce_seconds / steps, wait_ms=1e3 * stats.wait_seconds / steps,
                       skew_ms=1e3 * stats.skew_seconds / steps, allgather_ms=1e3 * stats.allgather_seconds / steps)
        if comm is not None and buffers:
            bare = 0.0
            for _ in range(steps):
                comm.Barrier()
                for send, recv in buffers:
                    start = time.perf_counter()
                    comm.Allreduce(send, recv)
                    bare += time.perf_counter() - start
            row['bare_allreduce_ms'] = 1e3 * bare / steps
        result['rounds'].append(row)
    if rank == 0:
        print('RESULT ' + json.dumps(result), flush=True)


if __name__ == '__main__':
    # the cores are shared by the trainers of this machine: BLAS threads per trainer = cores / trainers (as Horovod
    # advises), or BLAS threads spinning in every process starve the others
    with threadpool_limits(limits=max(1, (os.cpu_count() or 1) // get_group(0).nranks), user_api='blas'):
        main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
