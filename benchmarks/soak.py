"""Soak: a long training run with varying batch sizes, watching the process's resources.

    python -m benchmarks.soak                         # 100,000 steps, a report every 10,000
    python -m benchmarks.soak --steps 20000 --every 2000 --places 2 --json soak.json

A small MLP (13 -> 64 -> 64 -> 1, Adam) trains on batches whose size cycles through 1, 7, 32, 64 and 3 rows, on
the plain Executor with the threaded policy (or a data-parallel CompiledProgram with --places N), so plans for
several shapes, the worker pool and the per-shape kernel caches are all exercised. Every `--every` steps it records
the resident set size, the open file descriptors and the thread count (psutil), and the steps per second since the
last report. After warm-up (the first report) all three must stay flat: RSS within `--rss-slack-mb`, the same
descriptors and threads. The exit status is 1 when they do not.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import psutil

BATCHES = (1, 7, 32, 64, 3)


def build(places: int):
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 13], 'float32')
        y = fluid.data('y', [-1, 1], 'float32')
        h = fluid.layers.fc(x, 64, act='relu')
        h = fluid.layers.fc(h, 64, act='relu')
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
        fluid.optimizer.Adam(1e-3).minimize(loss)
    scope = fluid.Scope()
    es = fluid.ExecutionStrategy()
    es.num_threads = 2
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=None if places > 1 else es)
    exe.run(startup, scope=scope)
    program = main
    if places > 1:
        program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, exec_strategy=es,
                                                                 places=fluid.cpu_places(places))
    return exe, program, scope, loss


def sample(proc: psutil.Process) -> dict:
    return {'rss_mb': proc.memory_info().rss / 2 ** 20, 'fds': proc.num_fds(), 'threads': proc.num_threads()}


def soak(steps: int, every: int, places: int) -> list[dict]:
    exe, program, scope, loss = build(places)
    rng = np.random.RandomState(0)
    feeds = [{'x': rng.rand(max(b, places), 13).astype('float32'), 'y': rng.rand(max(b, places), 1).astype('float32')}
             for b in BATCHES]
    proc = psutil.Process()
    reports = []
    start = time.perf_counter()
    for step in range(1, steps + 1):
        exe.run(program, feed=feeds[step % len(feeds)], fetch_list=[loss], scope=scope)
        if step % every == 0:
            now = time.perf_counter()
            reports.append({'step': step, 'steps_per_s': every / (now - start), **sample(proc)})
            start = now
            r = reports[-1]
            print('%8d steps  %7.0f steps/s  rss %7.1f MB  fds %3d  threads %2d'
                  % (r['step'], r['steps_per_s'], r['rss_mb'], r['fds'], r['threads']), flush=True)
    exe.close()
    return reports


def verdict(reports: list[dict], rss_slack_mb: float) -> list[str]:
    """What grew after warm-up (the first report), or an empty list."""
    if len(reports) < 2:
        return []
    base, problems = reports[0], []
    for r in reports[1:]:
        if r['rss_mb'] > base['rss_mb'] + rss_slack_mb:
            problems.append('RSS grew from %.1f to %.1f MB by step %d' % (base['rss_mb'], r['rss_mb'], r['step']))
        for key in ('fds', 'threads'):
            if r[key] > base[key]:
                problems.append('%s grew from %d to %d by step %d' % (key, base[key], r[key], r['step']))
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.soak', description=__doc__.split('\n')[0])
    parser.add_argument('--steps', type=int, default=100_000)
    parser.add_argument('--every', type=int, default=10_000)
    parser.add_argument('--places', type=int, default=1, help='data-parallel places (1: the plain Executor)')
    parser.add_argument('--rss-slack-mb', type=float, default=8.0)
    parser.add_argument('--json', help='write the reports here')
    opts = parser.parse_args(argv)
    reports = soak(opts.steps, opts.every, opts.places)
    problems = verdict(reports, opts.rss_slack_mb)
    print('flat after warm-up' if not problems else 'NOT FLAT: ' + '; '.join(problems))
    if opts.json:
        with open(opts.json, 'w') as f:
            json.dump({'reports': reports, 'problems': problems, 'pid': os.getpid()}, f, indent=1)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
