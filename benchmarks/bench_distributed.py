"""Distributed benchmarks (issue 16): collective training over MPI with 1 and 2 trainers on this machine.

    python -m benchmarks --groups distributed --models mlp,deepfm --blas-threads 1     # needs [distributed]

For each model of benchmarks/models.py, two jobs of benchmarks/dist_worker.py (`mpiexec -n 1` and `-n 2`), each
trainer on its share of the model's global batch, with the programs Paddle 2.x's fleet writes. Rows:

    <model> steps/s     steps of the global batch per second: 2 trainers (subject) against 1 (baseline). No goal:
                        the two trainers share the machine's 2 cores with each other (and with whatever else runs)
    <model> allreduce   milliseconds per step of the gradient all-reduce through paddle_exec (the bucket kernels as
                        training runs them: the gradients already in the bucket's buffer, written there by the
                        segment that made them, passes/bucket_sink.py; all-reduce in place through the MPI group;
                        views of the buffer as the gradients) against a bare mpi4py Allreduce(send, recv) of the
                        same buffers, sizes and count per step, both with nothing else running, interleaved step by
                        step in the same job (dist_worker.py); per round the lower quartile of each side's steps,
                        the ratio the median over rounds. Goal: within 10% (ratio <= 1.1). `extra`: the bucket
                        sizes; per-round ratios; the medians of the steps and their ratio; the ratio to a bare
                        in-place Allreduce (what ours does inside MPI); the kernels with the pack
                        (`ours_packed_ms`: the path before the sinks, and of buckets without one); the dense
                        buckets per training step that took the sink path (`sunk_per_step`); whole training
                        steps with the sink against the segment's own step and the pack, interleaved
                        (`step_sink_ms`, `step_packed_ms`, lower quartiles, and the median of their per-round
                        ratios `step_sink_to_packed`: the copy moved into backward is paid there); during training, the
                        time inside MPI_Allreduce (it overlaps backward, so it competes with it for the cores), the
                        exposed wait per step (how long the optimizer waited for its buckets), the skew (the wait
                        for the other trainer, timed apart) and the sparse gathers

Each trainer's BLAS is capped at cores / trainers threads (dist_worker.py), or at --blas-threads when given (on a
machine other work keeps busy, `--blas-threads 1` keeps spinning BLAS threads from deciding the 1-trainer figure).
`opts.quick` runs a few steps.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from typing import Iterable

from .runner import ROOT, BenchOptions, Row, bench_group

GROUP = 'distributed'
ALLREDUCE_GOAL = 1.10
MODELS = ('mlp', 'deepfm')


def _mpiexec() -> str | None:
    beside = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    return beside if os.access(beside, os.X_OK) else shutil.which('mpiexec')


def run_job(model: str, workers: int, steps: int, rounds: int, blas_threads: int | None = None,
            timeout: float = 1800) -> dict:
    mpiexec = _mpiexec()
    path = os.pathsep.join(p for p in (ROOT, os.environ.get('PYTHONPATH')) if p)
    env = dict(os.environ, CPU_NUM='1', PYTHONPATH=path)
    args = [model, str(steps), str(rounds)] + ([str(blas_threads)] if blas_threads else [])
    proc = subprocess.run([mpiexec, '-n', str(workers), sys.executable, '-m', 'benchmarks.dist_worker', *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    for line in proc.stdout.splitlines():
        if line.startswith('RESULT '):
            return json.loads(line[len('RESULT '):])
    raise RuntimeError('the %d-trainer %s job failed (status %d): %s' % (workers, model, proc.returncode,
                                                                       (proc.stderr or proc.stdout)[-600:]))


def _median(rounds: list, key: str) -> float:
    return statistics.median(r[key] for r in rounds)


@bench_group(GROUP, help='collective training over MPI: 2 trainers against 1, all-reduce against bare mpi4py',
             default=False)
def distributed_rows(opts: BenchOptions) -> Iterable[Row]:
    models = [m for m in opts.models if m in MODELS] or list(MODELS)
    if opts.quick:
        models = models[:1]
    try:
        import mpi4py  # noqa: F401  (only whether the extra is installed)
    except ImportError:
        yield Row(GROUP, '(no MPI)', '', '', skipped="pip install 'paddle_exec[distributed]' (mpi4py and mpich)")
        return
    if _mpiexec() is None:
        yield Row(GROUP, '(no mpiexec)', '', '', skipped='mpiexec not found')
        return
    steps = 2 if opts.quick else (opts.steps or 20)
    rounds = 1 if opts.quick else opts.rounds
    for model in models:
        one = run_job(model, 1, steps, rounds, opts.blas_threads)
        two = run_job(model, 2, steps, rounds, opts.blas_threads)
        s1, s2 = _median(one['rounds'], 'steps_per_second'), _median(two['rounds'], 'steps_per_second')
        yield Row(GROUP, '%s steps/s' % model, '2 trainers', '1 trainer', subject_value=s2, baseline_value=s1,
                  ratio=s1 / s2, extra={'global_batch': two['global_batch'], 'steps_per_block': steps,
                                        'rounds': rounds})
        ours = [r['ours_ms'] for r in two['rounds']]
        bare = [r['bare_ms'] for r in two['rounds']]
        inplace = [r['bare_inplace_ms'] for r in two['rounds']]
        packed = [r['ours_packed_ms'] for r in two['rounds']]
        sinks = all('step_sink_ms' in r for r in two['rounds'])
        ratios = [o / b for o, b in zip(ours, bare)]
        median_ratios = [r['ours_median_ms'] / r['bare_median_ms'] for r in two['rounds']]
        yield Row(GROUP, '%s allreduce' % model, 'paddle_exec', 'bare mpi4py', subject_value=statistics.median(ours),
                  baseline_value=statistics.median(bare), unit='ms/step',
                  ratio=statistics.median(ratios), goal=ALLREDUCE_GOAL,
                  extra={'bucket_sizes': two['bucket_sizes'], 'bytes_per_step': two['bytes_per_step'],
                         'ratio_per_round': [round(x, 3) for x in ratios],
                         'median_step_ms': {side: statistics.median(r[side + '_median_ms'] for r in two['rounds'])
                                            for side in ('ours', 'bare', 'bare_inplace', 'ours_packed')},
                         'ratio_of_median_steps': statistics.median(median_ratios),
                         'bare_inplace_ms': statistics.median(inplace),
                         'ratio_to_bare_inplace': statistics.median(o / b for o, b in zip(ours, inplace)),
                         'ours_packed_ms': statistics.median(packed),
                         'packed_ratio_per_round': [round(p / b, 3) for p, b in zip(packed, bare)],
                         'sunk_per_step': _median(two['rounds'], 'sunk_per_step'),
                         'step_sink_ms': _median(two['rounds'], 'step_sink_ms') if sinks else None,
                         'step_packed_ms': _median(two['rounds'], 'step_packed_ms') if sinks else None,
                         'step_sink_to_packed': (statistics.median(r['step_sink_ms'] / r['step_packed_ms']
                                                                   for r in two['rounds']) if sinks else None),
                         'in_training_allreduce_ms': _median(two['rounds'], 'train_allreduce_ms'),
                         'exposed_wait_ms': _median(two['rounds'], 'wait_ms'),
                         'skew_ms': _median(two['rounds'], 'skew_ms'),
                         'allgather_ms': _median(two['rounds'], 'allgather_ms'), 'steps_per_block': steps,
                         'rounds': rounds})
