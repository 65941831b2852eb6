"""Smoke tests of the benchmark runner (benchmarks/): every registered group still produces rows, so the suite
cannot rot unnoticed between the runs that record its figures. Tiny settings (one step per block, one round,
`quick`): the numbers mean nothing here; that rows come out, with numbers, is what is checked."""
import json
import math
import os
import subprocess
import sys

import pytest

from benchmarks import bench_lod, bench_parallel, runner
from benchmarks.runner import GROUPS, ROOT, BenchOptions, Row, load_groups

load_groups()


@pytest.fixture(autouse=True)
def no_collection_between_blocks(monkeypatch):
    """Smoke runs time nothing that matters, and a full collection between blocks costs seconds in a test session's
    heap (it made these tests a third of the suite's time)."""
    monkeypatch.setattr(runner, 'COLLECT_BETWEEN_BLOCKS', False)

# groups the issues ask for; a module renamed out of the bench_* pattern drops its group from the runner
EXPECTED_GROUPS = {'executor', 'cold_start', 'parallel', 'policies', 'stage', 'fetch', 'lod', 'distributed', 'sparse'}


def tiny_options(**kwargs) -> BenchOptions:
    return BenchOptions(**{'models': ['fc'], 'steps': 1, 'rounds': 1, 'warmup': 1, 'block_seconds': 0.01,
                           'quick': True, **kwargs})


def assert_measured(row: Row) -> None:
    assert isinstance(row, Row)
    assert row.skipped is None, '%s / %s skipped: %s' % (row.group, row.name, row.skipped)
    for value in (row.ratio, row.subject_value, row.baseline_value):
        assert value is not None and math.isfinite(value), row


def test_runner_loads_every_group_of_the_package():
    # in a fresh interpreter: load_groups() alone must find every group that importing all modules registers
    script = ('import importlib, pkgutil, benchmarks, json\n'
              'from benchmarks.runner import GROUPS, load_groups\n'
              'loaded = sorted(load_groups())\n'
              'try:\n'
              '    import mpi4py\n'
              '    skip = {"__main__"}\n'
              'except ImportError:\n'
              '    skip = {"__main__", "dist_worker"}   # the MPI worker script needs the [distributed] extra\n'
              'for info in pkgutil.iter_modules(benchmarks.__path__):\n'
              '    if info.name not in skip:\n'
              '        importlib.import_module("benchmarks." + info.name)\n'
              'print(json.dumps([loaded, sorted(GROUPS)]))\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (ROOT, os.environ.get('PYTHONPATH')) if p))
    proc = subprocess.run([sys.executable, '-c', script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    loaded, registered = json.loads(proc.stdout.strip().splitlines()[-1])
    assert loaded == registered
    assert EXPECTED_GROUPS <= set(loaded)


def _has_mpi() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize('name', sorted(GROUPS))
def test_group_produces_a_measured_row(name, monkeypatch):
    # the compiled and serving groups run on one place and set CPU_NUM=1 when it is unset (os.environ.setdefault,
    # as a benchmark run should): set through monkeypatch first, it is put back after the test
    monkeypatch.setenv('CPU_NUM', os.environ.get('CPU_NUM', '1'))
    if name == 'lod' and not os.path.exists(bench_lod.PADDLE18):
        row = next(iter(GROUPS[name].fn(tiny_options())))
        assert row.skipped and 'Paddle 1.8.5 not found' in row.skipped      # the note, not a failure
        pytest.skip('the lod group compares with Paddle 1.8.5, which is not installed at %s' % bench_lod.PADDLE18)
    if name == 'distributed' and not _has_mpi():
        pytest.skip("the distributed group needs the [distributed] extra (mpi4py, mpich)")
    row = next(iter(GROUPS[name].fn(tiny_options())))
    assert_measured(row)
    assert row.group == name


def test_parallel_group_produces_every_row_kind():
    rows = list(bench_parallel.parallel_rows(tiny_options()))
    for row in rows:
        assert_measured(row)
    subjects = [row.subject for row in rows]
    # models: both PE sizes against the Executor, from one starting point (equal first losses)
    assert subjects[:2] == ['PE CPU_NUM=1', 'PE CPU_NUM=2']
    assert all(row.extra['same_first_loss'] for row in rows[:2])
    # wide graph: the executor pair, the bare-thread pair, and the share with its goal
    wide = [row for row in rows if row.name.startswith('wide')]
    assert [row.subject for row in wide] == ['executor 2 thr', 'bare 2 threads', 'executor x']
    assert wide[0].extra['sum_right']
    assert wide[2].goal == pytest.approx(1 / 0.9)
    # memory: one row per mode, each from its own subprocess
    rss = [row for row in rows if row.name.startswith('RSS')]
    assert [row.subject for row in rss] == list(bench_parallel.RSS_MODES)
    assert all(row.unit == 'MB' and row.goal == 1.0 for row in rss)


def test_mlp_pe_at_one_place_carries_the_overhead_goal():
    rows = bench_parallel.model_rows('mlp', tiny_options(models=['mlp']))
    goals = {row.subject: row.goal for row in rows}
    assert goals == {'PE CPU_NUM=1': 1.10, 'PE CPU_NUM=2': None}
    assert all(row.extra['same_first_loss'] for row in rows)


def test_interleaved_rotates_the_order_of_the_sides():
    calls = []
    sides = {label: (lambda label=label: calls.append(label)) for label in 'abc'}
    times, steps = bench_parallel.interleaved(sides, tiny_options(rounds=3, warmup=1))
    assert steps == 1 and all(len(t) == 3 for t in times.values())
    timed = calls[6:]                    # after one warm-up and one sizing step per side
    assert timed == list('abc') + list('bca') + list('cab')


def test_blocks_start_from_a_collected_heap_unless_turned_off(monkeypatch):
    collected = []
    monkeypatch.setattr(runner.gc, 'collect', lambda *args: collected.append(args))
    runner.time_block(lambda: None, 2)
    bench_parallel.interleaved({'a': lambda: None}, tiny_options(rounds=1, warmup=1))
    assert collected == []                                   # the fixture turned it off
    monkeypatch.setattr(runner, 'COLLECT_BETWEEN_BLOCKS', True)
    runner.time_block(lambda: None, 2)
    bench_parallel.interleaved({'a': lambda: None}, tiny_options(rounds=1, warmup=1))
    assert len(collected) == 1 + 3                           # one block, then warm-up, sizing and one round


def test_serving_layers_report_each_layers_gil_held_time_and_scaling(monkeypatch):
    from benchmarks.serving_layers import LAYERS, layer_rows
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')     # the layers are those of a compiled segment
    monkeypatch.setenv('CPU_NUM', '1')
    rows = list(layer_rows(tiny_options()))
    assert [r.name for r in rows] == ['serving layer %s' % name for name in LAYERS]
    for row in rows:
        assert_measured(row)
        assert 0 <= row.subject_value <= row.baseline_value
        assert set(row.extra['scaling']) == {'x2'} and row.extra['req_s'][1] > 0


def test_benchmark_warm_ups_make_a_serving_lane_hot_enough_to_bind():
    from benchmarks import compiled
    from paddle_exec.executor import bound
    assert compiled.WARM_RUNS > bound.BIND_AFTER


def test_bare_threads_run_every_kernel_once_per_run():
    import threading
    lock, seen = threading.Lock(), []

    def kernel():
        with lock:
            seen.append(threading.get_ident())
    threads = bench_parallel.BareThreads(2, kernel)
    try:
        threads.run()
        assert len(seen) == bench_parallel.BRANCHES
        threads.run()
        assert len(seen) == 2 * bench_parallel.BRANCHES
    finally:
        threads.close()
    assert not any(worker.is_alive() for worker in threads.workers)


def test_soak_reports_resources_and_flags_growth(tmp_path):
    """benchmarks/soak.py: a short soak reports RSS, descriptors and threads at each interval; the verdict names
    what grew after warm-up (checked on made-up reports, since a short run cannot show a leak)."""
    from benchmarks import soak
    out = tmp_path / 'soak.json'
    assert soak.main(['--steps', '40', '--every', '10', '--json', str(out)]) == 0
    reports = json.loads(out.read_text())['reports']
    assert [r['step'] for r in reports] == [10, 20, 30, 40]
    assert all(r['rss_mb'] > 0 and r['fds'] > 0 and r['threads'] >= 1 for r in reports)
    flat = [{'step': 10 * k, 'rss_mb': 100.0, 'fds': 6, 'threads': 3} for k in range(1, 4)]
    assert soak.verdict(flat, 8.0) == []
    grown = flat + [{'step': 40, 'rss_mb': 120.0, 'fds': 7, 'threads': 3}]
    assert soak.verdict(grown, 8.0) == ['RSS grew from 100.0 to 120.0 MB by step 40', 'fds grew from 6 to 7 by step 40']
