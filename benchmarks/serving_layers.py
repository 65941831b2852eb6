"""A serving request layer by layer: how long each layer holds the GIL, and how each scales from 1 to 2 and 8 threads.

    python -m benchmarks --groups compiled          # these rows follow the serving scaling rows
    python -m benchmarks.serving_layers [--seconds S] [--rounds R] [--json FILE]

The speed check's tower (7 fc layers, batch 8) on one inline ParallelExecutor, and four ways of answering a request,
side by side in one process, each from 1, 2 and 8 threads in turn (rounds alternate the layers; the median kept):

  bare      speed_check.py's bare nogil numba function (the same arithmetic, its own loops; ~2x our request)
  function  the generated segment as the lane calls it: its bound variant with the parameter table when the lane
            binds (executor/bound.py; the into variant with one result array made once, where the lane makes
            one a request), else the segment's function with the feed and every parameter
  lane      the runner's lane (lanes.py): its checks, the call, the fetch
  PE.run    ParallelExecutor.run, what a user calls

Per request: `total` is the thread's CPU time per call on one thread (time.thread_time, best of the rounds), `body`
the function's own time called from a numba loop (no dispatch, no boxing: what runs without the GIL), and
`GIL-held` = total - body: the Python and numba's dispatch around the body, all of it under the GIL. Two threads can
at best scale total / max(GIL-held, total / 2); every GIL hand-off between them costs on top (a futex wake), which is
why the share held decides the 8-thread rows on 2 cores.

Rows: one per layer, subject the GIL-held us and baseline the total us (ratio: the share held); `extra` has the
requests/s per thread count and the scaling factors x2 / x8. No goal: the goals are speed_check's scaling rows.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Iterable

import numpy as np

from .runner import BenchOptions, Row

__all__ = ['layer_rows', 'measure', 'LAYERS']

LAYERS = ('bare', 'function', 'lane', 'PE.run')


def _numba_loop():
    import numba

    @numba.njit(nogil=True)
    def loop(fn, n, args):
        for _ in range(n):
            fn(*args)
    return loop


def layer_calls():
    """{layer: (call(), fn, args)}: the four ways of answering one request (the module docstring); fn(*args) is the
    numba function whose body runs without the GIL."""
    from . import compiled
    fluid = compiled._fluid()
    os.environ.setdefault('CPU_NUM', '1')         # one place, as scaling_rows: a lane needs a one-place plan
    main, scope, out = compiled.tower()
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope,
                                exec_strategy=compiled._strategy('USE_INLINE_EXECUTOR'))
    feed = {'x': np.random.RandomState(0).rand(8, 32).astype('float32')}
    fetch = [out.name]
    for _ in range(compiled.WARM_RUNS):
        pe.run(feed=feed, fetch_list=fetch)
    compiled._wait_for_compiles()
    for _ in range(3):
        pe.run(feed=feed, fetch_list=fetch)
    runner = pe._compiled_program._executor
    program = pe._compiled_program._program
    lane = runner.lanes.get(program._id)
    if lane is None:
        raise RuntimeError('the tower has no lane (CPU_NUM=%s; a lane needs one place)' % os.environ.get('CPU_NUM'))
    x = feed['x']
    state = lane.binder.state[0] if getattr(lane, 'binder', None) is not None else None
    if state is not None and state[1] is not None:
        results = () if state[4] is None else tuple(np.empty(shape, dtype) for shape, dtype, _ in state[4])
        fn, args = state[1], (state[2], x) + results
    else:
        segment = getattr(runner.plans.plans()[-1].nodes[0], 'segment', None)
        if segment is None or segment.compiled is None:
            raise RuntimeError('the tower is not one compiled segment (PADDLE_EXEC_COMPILE=off?)')
        values = [tensor.value for _, tensor, _, _ in lane_recipe(runner).bound[2]]
        fn, args = segment.compiled, (x, *values)
    bare_call = compiled.bare_tower_call()
    bare_fn, bare_args = bare_call.forward, bare_call.args
    return {
        'bare': (bare_call, bare_fn, bare_args),
        'function': (lambda: fn(*args), fn, args),
        'lane': (lambda: lane(program, feed, fetch, None, True), fn, args),
        'PE.run': (lambda: pe.run(feed=feed, fetch_list=fetch), fn, args),
    }


def lane_recipe(runner):
    return next(r for r in runner.recipes._entries.values() if r.lane is not None)


def cpu_us(call, n: int, rounds: int) -> float:
    best = float('inf')
    for _ in range(rounds):
        t = time.thread_time()
        for _ in range(n):
            call()
        best = min(best, (time.thread_time() - t) / n)
    return best * 1e6


def body_us(loop, fn, args, n: int, rounds: int) -> float:
    loop(fn, 1, args)
    best = float('inf')
    for _ in range(rounds):
        t = time.perf_counter()
        loop(fn, n, args)
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e6


def measure(seconds: float, rounds: int, counts=(1, 2, 8)) -> dict:
    from .compiled import serve
    calls = layer_calls()
    loop = _numba_loop()
    result = {}
    for name in LAYERS:
        call, fn, args = calls[name]
        n = 20000
        result[name] = {'total_us': cpu_us(call, n, rounds), 'body_us': body_us(loop, fn, args, n, rounds),
                        'req_s': {c: [] for c in counts}}
    serve(calls['PE.run'][0], 1, seconds / 2)
    for _ in range(rounds):
        for c in counts:
            for name in LAYERS:
                result[name]['req_s'][c].append(serve(calls[name][0], c, seconds))
    for name in LAYERS:
        r = result[name]
        r['req_s'] = {c: statistics.median(v) for c, v in r['req_s'].items()}
        r['held_us'] = max(r['total_us'] - r['body_us'], 0.0)
        r['scaling'] = {c: r['req_s'][c] / r['req_s'][counts[0]] for c in counts[1:]}
    return result


def layer_rows(opts: BenchOptions) -> Iterable[Row]:
    counts = (1, 2) if opts.quick else (1, 2, 8)
    got = measure(0.2 if opts.quick else 1.0, 1 if opts.quick else 3, counts)
    for name in LAYERS:
        r = got[name]
        yield Row('compiled', 'serving layer %s' % name, 'GIL-held us', 'total us', r['held_us'], r['total_us'],
                  'us', r['held_us'] / r['total_us'], None,
                  extra={'body_us': r['body_us'], 'req_s': r['req_s'],
                         'scaling': {'x%d' % c: v for c, v in r['scaling'].items()}})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--seconds', type=float, default=1.0, help='seconds per serving block')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--json', default=None)
    args = parser.parse_args(argv)
    got = measure(args.seconds, args.rounds)
    print('%-9s %9s %9s %9s %10s %7s %7s' % ('layer', 'total us', 'body us', 'GIL us', '1 thr/s', 'x2', 'x8'))
    for name in LAYERS:
        r = got[name]
        print('%-9s %9.2f %9.2f %9.2f %10.0f %7.2f %7.2f' % (name, r['total_us'], r['body_us'], r['held_us'],
                                                             r['req_s'][1], r['scaling'][2], r['scaling'][8]))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(got, f, indent=1)
    return 0


if __name__ == '__main__':
    raise SystemExit(main())

