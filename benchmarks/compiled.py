"""Compiled-segment benchmarks (issue 15): the speed checks, serving against ONNX Runtime, training against Paddle.

    python -m benchmarks --groups compiled,serving,paddle18      # through the runner (bench_compiled.py loads this)
    python -m benchmarks.compiled [--json FILE]                   # these groups alone

Groups and rows (every figure a ratio measured side by side in one run; ratio = subject cost / baseline cost,
a row meets its goal when ratio <= goal):

  compiled    the three checks of ../shared/bench/speed_check.py, in the steady state (segments compiled: the
              cold behaviour is the last rows')
    per-op overhead   slope of a ParallelExecutor run's time over a chain of CHAIN_SHORT -> CHAIN_LONG `scale` ops,
                      the two lengths in alternating blocks; inline and native policy. Baseline: the budget
                      (inline 0.5 us/op, native 1 us/op), goal ratio <= 1
    serving scaling   requests/s of 2 and 8 threads on one inline ParallelExecutor of the 7-layer tower (batch 8)
                      over 1 thread, against bare nogil numba threads doing the same arithmetic; ratio = bare
                      scaling / executor scaling, goal <= 1 / 0.8. Then the same executor built with serving turns
                      off (PADDLE_EXEC_SERVING_SPIN=off, policies/serving_turn.py) in the same rounds: ratio = its
                      scaling with turns / without (no goal)
    serving layers    serving_layers.py: the request layer by layer (bare numba, the generated function, the
                      lane, PE.run): GIL-held and total us per request, requests/s at 1, 2 and 8 threads (no goal)
    cold start        the first MLP training step in a fresh interpreter with an empty numba cache (and then a
                      warm one); baseline: the budget (1.5 s, 0.3 s), goal ratio <= 1
  serving     ../shared/bench/serving_vs_ort.py: the tower (batch 8) and the MNIST MLP (batch 1) on one inline
              ParallelExecutor against one ONNX Runtime InferenceSession (intra-op threads 1), same weights, 1 and 2
              serving threads; ratio = ORT's requests/s over paddle_exec's, goal <= 1. The first row, paddle_exec
              at 2 threads against 1, needs no ONNX Runtime (the `bench` extra)
  paddle18    training steps/s on a ParallelExecutor at CPU_NUM=1, paddle_exec against real Paddle 1.8.5 (a Python
              3.8 interpreter with paddlepaddle 1.8.5: $PADDLE18_PYTHON, default /work/pd18/bin/python),
              alternating child processes (benchmarks/pe_child.py); goal fit-a-line >= 20x, MLP >= 2x,
              DeepFM >= 4x faster (ratio <= 0.05, 0.5, 0.25). The first row puts compiled segments against
              segments off (no Paddle needed). Each model's row is followed by one of the same child processes'
              CPU time per step (all their threads): on cores shared with other work the wall-time ratio also
              says how the scheduler shared them (a step of ~8 us of Python and numba loses more to preemption
              than Paddle's multi-threaded ~230 us one)

BLAS threads: `--blas-threads N` caps the BLAS of this process and, through OPENBLAS_NUM_THREADS / MKL_NUM_THREADS /
OMP_NUM_THREADS, of the child processes (Paddle 1.8 itself runs its math library on one thread by default).
`opts.quick` (smoke tests) keeps the first row of each group and shortens it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Iterable

import numpy as np

from .runner import ROOT, BenchOptions, Row, bench_group, environment, report_rows
from .serving_layers import layer_rows

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN_SHORT, CHAIN_LONG = 50, 400
INLINE_BUDGET_US, NATIVE_BUDGET_US = 0.5, 1.0
SCALING_SHARE = 0.8
SPIN_ENV_VAR = 'PADDLE_EXEC_SERVING_SPIN'       # executor/config.py: the serving turns' budget, or off
COLD_BUDGET_S, WARM_BUDGET_S = 1.5, 0.3
PADDLE_GOALS = {'fc': 1 / 20, 'mlp': 1 / 2, 'deepfm': 1 / 4}
FUSION_MODELS = ('mlp', 'deepfm')       # models with several dense optimizer updates to fuse
WARM_RUNS = 80        # runs before waiting for compiles: past paddle_exec.executor.bound.BIND_AFTER, so a lane binds
PADDLE18_PYTHON = os.environ.get('PADDLE18_PYTHON', '/work/pd18/bin/python')


def _fluid():
    import paddle_exec.fluid as fluid
    return fluid


def _wait_for_compiles() -> None:
    from paddle_exec.executor.jit_service import SERVICE
    SERVICE.wait(600)


def _strategy(policy):
    fluid = _fluid()
    es = fluid.ExecutionStrategy()
    es.executor_policy = getattr(fluid.ExecutorPolicy, policy)
    return es


def _blas_env(opts: BenchOptions) -> dict:
    env = dict(os.environ)
    if opts.blas_threads:
        for name in ('OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS'):
            env[name] = str(opts.blas_threads)
    return env


# --- compiled: per-op overhead -----------------------------------------------------------------------------------

def _chain_runner(policy: str, n: int):
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name='x', shape=[4], dtype='float32')
        for _ in range(n):
            x = fluid.layers.scale(x, scale=1.0, bias=0.5)
    os.environ.setdefault('CPU_NUM', '1')
    pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=fluid.Scope(),
                                exec_strategy=_strategy(policy))
    feed = {'x': np.ones((1, 4), 'float32')}
    for _ in range(WARM_RUNS):
        got = pe.run(feed=feed, fetch_list=[x.name])
    _wait_for_compiles()
    got = pe.run(feed=feed, fetch_list=[x.name])
    if not np.allclose(np.asarray(got[0]), 1 + 0.5 * n):
        raise RuntimeError('the chain of %d scale ops computed %s' % (n, got[0]))
    return lambda: pe.run(feed=feed, fetch_list=[x.name])


def overhead_row(policy: str, budget_us: float, opts: BenchOptions) -> Row:
    short, long = (10, 60) if opts.quick else (CHAIN_SHORT, CHAIN_LONG)
    runs = {n: _chain_runner(policy, n) for n in (short, long)}
    block = 3 if opts.quick else 40
    slopes = []
    for r in range(max(1, opts.rounds)):
        times = {}
        for n in ((short, long) if r % 2 == 0 else (long, short)):
            start = time.perf_counter()
            for _ in range(block):
                runs[n]()
            times[n] = (time.perf_counter() - start) / block
        slopes.append((times[long] - times[short]) / (long - short) * 1e6)
    slope = statistics.median(slopes)
    return Row('compiled', 'per-op %s' % policy.split('_')[1].lower(), 'us/op', 'budget', slope, budget_us,
               'us/op', slope / budget_us, 1.0, extra={'chains': [short, long], 'slopes': slopes})


# --- compiled: serving scaling ------------------------------------------------------------------------------------

def tower(batch: int = 8):
    """The speed check's tower (32 -> 6 x fc 64 relu -> fc 1 sigmoid), initialised: (program, scope, out)."""
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name='x', shape=[32], dtype='float32')
        h = x
        for _ in range(6):
            h = fluid.layers.fc(input=h, size=64, act='relu')
        out = fluid.layers.fc(input=h, size=1, act='sigmoid')
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
    return main, scope, out


def serve(call, threads: int, seconds: float) -> float:
    """Requests/s of `threads` threads calling `call` for `seconds`."""
    counts = [0] * threads
    stop = time.perf_counter() + seconds

    def worker(k):
        while time.perf_counter() < stop:
            call()
            counts[k] += 1
    workers = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return sum(counts) / seconds


def bare_tower_call():
    """The tower's arithmetic for one request as one numba function releasing the GIL (speed_check.py's bare_tower)."""
    import numba

    @numba.njit(nogil=True)
    def forward(x, ws):
        h = x
        for w in ws:
            o = np.zeros((h.shape[0], w.shape[1]), np.float32)
            for i in range(h.shape[0]):
                for k in range(h.shape[1]):
                    a = h[i, k]
                    for j in range(w.shape[1]):
                        o[i, j] += a * w[k, j]
            h = np.maximum(o, 0)
        return h
    ws = numba.typed.List([np.random.rand(32, 64).astype('float32')] +
                          [np.random.rand(64, 64).astype('float32') for _ in range(5)])
    x = np.random.rand(8, 32).astype('float32')
    forward(x, ws)
    call = lambda: forward(x, ws)
    call.forward, call.args = forward, (x, ws)      # the function and its arguments (serving_layers.py)
    return call


def _tower_call(spin: str | None):
    """One request on a warmed-up inline ParallelExecutor of the tower built with PADDLE_EXEC_SERVING_SPIN=`spin`
    (None: the default)."""
    fluid = _fluid()
    os.environ.setdefault('CPU_NUM', '1')
    with environment(SPIN_ENV_VAR, spin):
        main, scope, out = tower()
        pe = fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope,
                                    exec_strategy=_strategy('USE_INLINE_EXECUTOR'))
    feed = {'x': np.random.RandomState(0).rand(8, 32).astype('float32')}
    call = lambda: pe.run(feed=feed, fetch_list=[out.name])
    for _ in range(WARM_RUNS):
        call()
    return call


def scaling_rows(opts: BenchOptions) -> Iterable[Row]:
    """Serving from 2 and 8 threads, each side's gain over one thread: the executor against bare numba threads (the
    goal), and the executor with serving turns off (policies/serving_turn.py) against it, in the same rounds."""
    sides = {'e': _tower_call(None), 'o': _tower_call('off')}
    _wait_for_compiles()
    for call in sides.values():
        for _ in range(WARM_RUNS):
            call()
    sides['b'] = bare_tower_call()
    seconds = 0.2 if opts.quick else 1.0
    counts = (1, 2) if opts.quick else (1, 2, 8)
    serve(sides['e'], 1, seconds / 2)
    got = {(side, n): [] for side in sides for n in counts}
    for _ in range(1 if opts.quick else 3):
        for n in counts:
            for side, call in sides.items():
                got[(side, n)].append(serve(call, n, seconds))
    m = {k: statistics.median(v) for k, v in got.items()}
    for n in counts[1:]:
        ex, ox, bx = (m[(side, n)] / m[(side, 1)] for side in 'eob')
        yield Row('compiled', 'serving %d threads' % n, 'executor x', 'bare numba x', ex, bx, 'x', bx / ex,
                  1 / SCALING_SHARE, extra={'executor_1_thread_req_s': m[('e', 1)],
                                            'bare_1_thread_req_s': m[('b', 1)]})
        yield Row('compiled', 'serving %d thr, no turns' % n, 'turns off x', 'turns on x', ox, ex, 'x', ex / ox,
                  extra={'turns_off_1_thread_req_s': m[('o', 1)]})


# --- compiled: cold start -------------------------------------------------------------------------------------------

COLD_SCRIPT = r'''
import sys, time
sys.path.insert(0, %r)
t0 = time.perf_counter()
import paddle_exec.fluid as fluid
from models import MODELS
build, batch = MODELS['mlp']
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    loss, feed = build(fluid, batch)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
t1 = time.perf_counter()
exe.run(main, feed=feed(), fetch_list=[loss])
print('%%.3f %%.3f' %% (t1 - t0, time.perf_counter() - t1))
''' % HERE


def first_step_seconds(numba_cache: str | None, env: dict) -> float:
    env = dict(env, PYTHONPATH=os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p))
    if numba_cache is not None:
        env['NUMBA_CACHE_DIR'] = numba_cache
    proc = subprocess.run([sys.executable, '-c', COLD_SCRIPT], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=900)
    if proc.returncode != 0:
        raise RuntimeError('the cold-start script failed:\n' + proc.stderr[-2000:])
    return float(proc.stdout.split()[-1])


def cold_rows(opts: BenchOptions) -> Iterable[Row]:
    env = _blas_env(opts)
    if opts.quick:
        first = first_step_seconds(None, env)
        yield Row('compiled', 'first step (quick)', 'usual cache', 'budget', first, COLD_BUDGET_S, 's',
                  first / COLD_BUDGET_S, None, extra={'quick': True})
        return
    cache = tempfile.mkdtemp(prefix='paddle_exec_cold_')
    try:
        cold = first_step_seconds(cache, env)
        warm = statistics.median(first_step_seconds(cache, env) for _ in range(2))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    yield Row('compiled', 'first MLP step, cold', 'seconds', 'budget', cold, COLD_BUDGET_S, 's',
              cold / COLD_BUDGET_S, 1.0)
    yield Row('compiled', 'first MLP step, warm', 'seconds', 'budget', warm, WARM_BUDGET_S, 's',
              warm / WARM_BUDGET_S, 1.0)


@bench_group('compiled', default=False, help='speed_check.py: per-op overhead, serving scaling, cold start (issue 15)')
def compiled_rows(opts: BenchOptions) -> Iterable[Row]:
    if opts.quick:
        yield overhead_row('USE_INLINE_EXECUTOR', INLINE_BUDGET_US, opts)
        return
    yield overhead_row('USE_INLINE_EXECUTOR', INLINE_BUDGET_US, opts)
    yield overhead_row('USE_NORMAL_EXECUTOR', NATIVE_BUDGET_US, opts)
    yield from scaling_rows(opts)
    yield from layer_rows(opts)
    yield from cold_rows(opts)


# --- serving against ONNX Runtime ----------------------------------------------------------------------------------

def serving_model(kind: str):
    """(program, scope, out, params, activations, width) of the tower or the MNIST MLP (serving_vs_ort.py)."""
    fluid = _fluid()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if kind == 'tower':
            x = fluid.layers.data(name='x', shape=[32], dtype='float32')
            acts, sizes = ['relu'] * 6 + ['sigmoid'], [64] * 6 + [1]
        else:
            x = fluid.layers.data(name='x', shape=[784], dtype='float32')
            acts, sizes = ['relu', 'relu', 'softmax'], [256, 256, 10]
        h = x
        for size, act in zip(sizes, acts):
            h = fluid.layers.fc(input=h, size=size, act=act)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
    params = [(np.array(scope.find_var('fc_%d.w_0' % i).get_tensor()),
               np.array(scope.find_var('fc_%d.b_0' % i).get_tensor())) for i in range(len(sizes))]
    return main, scope, h, params, acts, x.shape[1]


def onnx_session(params, acts, width):
    """One ONNX Runtime InferenceSession of the same model and weights, intra-op threads 1."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
    nodes, inits, cur = [], [], 'x'
    for i, ((w, b), act) in enumerate(zip(params, acts)):
        inits += [numpy_helper.from_array(w, 'w%d' % i), numpy_helper.from_array(b, 'b%d' % i)]
        nodes += [helper.make_node('MatMul', [cur, 'w%d' % i], ['m%d' % i]),
                  helper.make_node('Add', ['m%d' % i, 'b%d' % i], ['a%d' % i])]
        op = {'relu': 'Relu', 'sigmoid': 'Sigmoid', 'softmax': 'Softmax'}[act]
        out = 'y' if i == len(acts) - 1 else 'h%d' % i
        nodes.append(helper.make_node(op, ['a%d' % i], [out], **({'axis': -1} if op == 'Softmax' else {})))
        cur = out
    graph = helper.make_graph(nodes, 'm', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [None, width])],
                              [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), so, providers=['CPUExecutionProvider'])


def _inline_pe(main, scope):
    fluid = _fluid()
    os.environ.setdefault('CPU_NUM', '1')
    return fluid.ParallelExecutor(use_cuda=False, main_program=main, scope=scope,
                                  exec_strategy=_strategy('USE_INLINE_EXECUTOR'))


@bench_group('serving', default=False, help='serving against ONNX Runtime (serving_vs_ort.py; the bench extra)')
def serving_rows(opts: BenchOptions) -> Iterable[Row]:
    seconds = 0.2 if opts.quick else 1.0
    rounds = 1 if opts.quick else 3
    for kind, batch in (('tower', 8), ('mlp', 1)):
        main, scope, out, params, acts, width = serving_model(kind)
        pe = _inline_pe(main, scope)
        x = np.random.RandomState(0).rand(batch, width).astype('float32')
        ours = lambda: pe.run(feed={'x': x}, fetch_list=[out.name])
        for _ in range(WARM_RUNS):
            ours()
        _wait_for_compiles()
        if kind == 'tower':          # needs no ONNX Runtime: paddle_exec's own scaling
            one, two = serve(ours, 1, seconds), serve(ours, 2, seconds)
            yield Row('serving', 'tower 2 vs 1 thread', '2 threads', '1 thread', two, one, 'req/s', one / two)
            if opts.quick:
                return
        try:
            sess = onnx_session(params, acts, width)
        except ImportError as exc:
            yield Row('serving', '%s vs onnxruntime' % kind, 'paddle_exec', 'onnxruntime',
                      skipped='needs the bench extra (onnx, onnxruntime): %s' % exc)
            continue
        a, b = np.asarray(ours()[0]), sess.run(None, {'x': x})[0]
        if not np.allclose(a, b, rtol=1e-4, atol=1e-5):
            raise RuntimeError('paddle_exec and ONNX Runtime disagree by %g' % np.abs(a - b).max())
        theirs = lambda: sess.run(None, {'x': x})
        got = {(side, n): [] for side in ('pe', 'ort') for n in (1, 2)}
        for _ in range(rounds):      # alternate the sides in timed blocks, keep the best of each
            for n in (1, 2):
                got[('pe', n)].append(serve(ours, n, seconds))
                got[('ort', n)].append(serve(theirs, n, seconds))
        for n in (1, 2):
            pe_rate, ort_rate = max(got[('pe', n)]), max(got[('ort', n)])
            yield Row('serving', '%s b%d %d thr' % (kind, batch, n), 'paddle_exec', 'onnxruntime', pe_rate,
                      ort_rate, 'req/s', ort_rate / pe_rate, 1.0)


# --- training against Paddle 1.8.5 ------------------------------------------------------------------------------

def child_steps(python: str, side: str, model: str, seconds: float, env: dict, mode: str | None = None,
                cpu: list | None = None) -> float:
    """Seconds per training step of one side, from a child process (pe_child.py); `mode`: its extra arguments
    (the compile mode, then 'fuse'), space-separated; its CPU seconds per step are appended to `cpu` when given."""
    args = [python, os.path.join(HERE, 'pe_child.py'), side, model, str(seconds)] + (mode.split() if mode else [])
    proc = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError('%s child failed:\n%s' % (side, proc.stderr[-2000:]))
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if cpu is not None and 'cpu_seconds' in result:
        cpu.append(result['cpu_seconds'] / result['steps'])
    return result['seconds'] / result['steps']


def alternating(sides: dict, model: str, seconds: float, rounds: int, env: dict, cpu: dict | None = None) -> dict:
    """label -> per-round seconds per step; the sides' child processes alternate, the order flipped each round.
    `cpu`, when given, gets label -> per-round CPU seconds per step."""
    labels = list(sides)
    times = {label: [] for label in labels}
    for r in range(rounds):
        for label in (labels if r % 2 == 0 else labels[::-1]):
            python, side, mode = sides[label]
            own = cpu.setdefault(label, []) if cpu is not None else None
            times[label].append(child_steps(python, side, model, seconds, env, mode, own))
    return times


@bench_group('paddle18', default=False, help='training steps/s against real Paddle 1.8.5 ParallelExecutor, CPU_NUM=1')
def paddle_rows(opts: BenchOptions) -> Iterable[Row]:
    env = _blas_env(opts)
    env['PYTHONPATH'] = ROOT
    seconds = 0.5 if opts.quick else 3.0
    rounds = 1 if opts.quick else max(3, min(opts.rounds, 5))
    models = ['fc'] if opts.quick else opts.models
    for model in models:
        times = alternating({'compiled': (sys.executable, 'paddle_exec', None),
                             'off': (sys.executable, 'paddle_exec', '0')}, model, seconds, rounds, env)
        ratio = statistics.median(a / b for a, b in zip(times['compiled'], times['off']))
        yield Row('paddle18', '%s segments' % model, 'compiled', 'segments off',
                  1 / statistics.median(times['compiled']), 1 / statistics.median(times['off']), 'steps/s', ratio)
        if opts.quick:
            return
        if model in FUSION_MODELS:        # BuildStrategy.fuse_all_optimizer_ops + fuse_bn_act_ops against the default
            times = alternating({'fused': (sys.executable, 'paddle_exec', '- fuse'),
                                 'default': (sys.executable, 'paddle_exec', None)}, model, seconds, rounds, env)
            ratio = statistics.median(a / b for a, b in zip(times['fused'], times['default']))
            yield Row('paddle18', '%s fused optimizers' % model, 'fuse_all_optimizer_ops', 'default',
                      1 / statistics.median(times['fused']), 1 / statistics.median(times['default']), 'steps/s',
                      ratio)
    for model in models:
        if not os.path.exists(PADDLE18_PYTHON):
            yield Row('paddle18', model, 'paddle_exec', 'Paddle 1.8.5', skipped='no Paddle 1.8.5 interpreter at %s '
                      '(set PADDLE18_PYTHON)' % PADDLE18_PYTHON)
            continue
        cpu: dict = {}
        times = alternating({'paddle_exec': (sys.executable, 'paddle_exec', None),
                             'paddle': (PADDLE18_PYTHON, 'paddle', None)}, model, seconds, rounds, env, cpu)
        ratio = statistics.median(a / b for a, b in zip(times['paddle_exec'], times['paddle']))
        yield Row('paddle18', model, 'paddle_exec', 'Paddle 1.8.5', 1 / statistics.median(times['paddle_exec']),
                  1 / statistics.median(times['paddle']), 'steps/s', ratio, PADDLE_GOALS.get(model),
                  extra={'paddle_exec_s': times['paddle_exec'], 'paddle_s': times['paddle'],
                         'blas_threads': opts.blas_threads})
        if len(cpu.get('paddle_exec', ())) == len(cpu.get('paddle', ())) == rounds:
            # the same child processes' CPU time per step (all threads): what a step costs when the cores are shared
            cpu_ratio = statistics.median(a / b for a, b in zip(cpu['paddle_exec'], cpu['paddle']))
            yield Row('paddle18', model + ' (CPU time)', 'paddle_exec', 'Paddle 1.8.5',
                      1 / statistics.median(cpu['paddle_exec']), 1 / statistics.median(cpu['paddle']),
                      'steps/cpu-s', cpu_ratio, PADDLE_GOALS.get(model),
                      extra={'paddle_exec_cpu_s': cpu['paddle_exec'], 'paddle_cpu_s': cpu['paddle']})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.compiled', description=__doc__.split('\n')[0])
    parser.add_argument('--groups', default='compiled,serving,paddle18')
    parser.add_argument('--models', default='fc,mlp,deepfm')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--blas-threads', type=int, default=None)
    parser.add_argument('--json', default=None)
    args = parser.parse_args(argv)
    opts = BenchOptions(models=args.models.split(','), rounds=args.rounds, blas_threads=args.blas_threads)
    fns = {'compiled': compiled_rows, 'serving': serving_rows, 'paddle18': paddle_rows}

    def rows():
        for name in args.groups.split(','):
            yield from fns[name](opts)
    return report_rows(rows(), opts, args.json)


if __name__ == '__main__':
    sys.exit(main())
