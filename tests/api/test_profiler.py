"""The profiler (fluid.profiler 1.8, paddle.profiler 2.x), the chrome trace, the flags and FLAGS_check_nan_inf."""
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec import profiler
from paddle_exec.executor.instrument import INSTRUMENTS
from paddle_exec.framework import unique_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def instruments_off():
    yield
    INSTRUMENTS.recorder = None
    paddle.set_flags({'FLAGS_check_nan_inf': False})


def regression(width=13, hidden=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[width], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        h = fluid.layers.fc(x, hidden, act='relu') if hidden else x
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
        fluid.optimizer.SGD(0.01).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return main, exe, scope, loss


def feed(batch=8, width=13, seed=0):
    rng = np.random.RandomState(seed)
    return {'x': rng.rand(batch, width).astype('float32'), 'y': rng.rand(batch, 1).astype('float32')}


# --- fluid.profiler (1.8) -------------------------------------------------------------------------------------

def test_fluid_profiler_prints_paddles_report_sorted_and_writes_a_chrome_trace(tmp_path, capsys):
    main, exe, scope, loss = regression()
    path = str(tmp_path / 'profile')
    with fluid.profiler.profiler('CPU', 'calls', path):
        for _ in range(5):
            exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    report = capsys.readouterr().out
    assert '------------------------->     Profiling Report     <-------------------------' in report
    assert 'Sorted by number of calls in descending order in the same thread' in report
    assert 'Computation time' in report and 'Framework overhead' in report
    header = [line for line in report.splitlines() if line.startswith('Event')][0]
    assert header.split() == ['Event', 'Calls', 'Total', 'Min.', 'Max.', 'Ave.', 'Ratio.']
    rows = {line.split()[0]: line.split() for line in report.splitlines() if line.startswith('thread0::')}
    assert rows['thread0::mul'][1] == '5' and rows['thread0::sgd'][1] == '10'       # two parameters
    for name in ('thread0::feed', 'thread0::fetch', 'thread0::scope_read', 'thread0::scope_write'):
        assert name in rows
    calls = [int(r[1]) for r in rows.values()]
    assert calls == sorted(calls, reverse=True)
    trace = json.load(open(path))
    ops = [e for e in trace['traceEvents'] if e.get('cat') == 'op']
    assert len([e for e in ops if e['name'] == 'mul']) == 5
    mul = next(e for e in ops if e['name'] == 'mul')
    assert mul['ph'] == 'X' and mul['dur'] >= 0 and mul['args']['place'] == 0
    assert mul['args']['input_shapes'] == [[8, 13], [13, 1]]
    assert 'mul' in mul['args']['op']


@pytest.mark.parametrize('key, words', [(None, 'event first end time'), ('total', 'total time'),
                                        ('max', 'maximum time'), ('min', 'minimum time'), ('ave', 'average time')])
def test_every_sorted_key_of_paddle(key, words, tmp_path, capsys):
    main, exe, scope, loss = regression()
    fluid.profiler.start_profiler('All')
    exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    fluid.profiler.stop_profiler(key, str(tmp_path / 'p'))
    report = capsys.readouterr().out
    assert 'Sorted by %s in descending order in the same thread' % words in report
    stat = {'total': 2, 'min': 3, 'max': 4, 'ave': 5}.get(key)
    if stat is not None:
        values = [float(line.split()[stat]) for line in report.splitlines() if line.startswith('thread0::')]
        assert values == sorted(values, reverse=True)


def test_reset_drops_earlier_events_and_bad_arguments_are_paddles_errors(tmp_path, capsys):
    main, exe, scope, loss = regression()
    fluid.profiler.start_profiler('CPU')
    exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    fluid.profiler.reset_profiler()
    exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    fluid.profiler.stop_profiler('total', str(tmp_path / 'p'))
    rows = {line.split()[0]: line.split() for line in capsys.readouterr().out.splitlines()
            if line.startswith('thread0::')}
    assert rows['thread0::mul'][1] == '1'
    with pytest.raises(ValueError, match="The state must be 'CPU' or 'GPU' or 'All'"):
        fluid.profiler.start_profiler('TPU')
    with pytest.raises(ValueError, match='sorted_key must be None or in'):
        with fluid.profiler.profiler('CPU', 'fastest', str(tmp_path / 'q')):
            pass
    with pytest.warns(UserWarning, match='CPU only'):
        with fluid.profiler.cuda_profiler(str(tmp_path / 'nvprof')):
            pass


def test_off_records_nothing_and_runs_the_plan_as_compiled():
    main, exe, scope, loss = regression()
    exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    plan = exe.runner.plans.plans()[-1]                           # the last used: main's (startup ran first)
    assert INSTRUMENTS.on is False
    assert '_instrumented' not in plan.__dict__                   # no variant was made: the plan runs as it is
    fluid.profiler.start_profiler('CPU')
    exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    INSTRUMENTS.recorder = None
    assert plan.__dict__['_instrumented']


# --- the chrome trace of a data-parallel run ------------------------------------------------------------------

def test_a_two_place_parallel_executor_trace_has_op_events_on_two_threads(tmp_path, capsys):
    """Big enough ops (fc 512 on a batch of 256 per place) for the threaded policy to hand ops to its workers."""
    main, exe, scope, loss = regression(width=512, hidden=512)
    es = fluid.ExecutionStrategy()
    es.num_threads = 2
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, exec_strategy=es,
                                                              places=fluid.cpu_places(2))
    data = feed(512, 512)
    for _ in range(30):                              # the policy measures the ops and probes parallel runs first
        exe.run(compiled, feed=data, fetch_list=[loss], scope=scope)
    path = str(tmp_path / 'pe_trace.json')
    with fluid.profiler.profiler('CPU', 'total', path):
        for _ in range(10):
            exe.run(compiled, feed=data, fetch_list=[loss], scope=scope)
    trace = json.load(open(path))
    ops = [e for e in trace['traceEvents'] if e.get('cat') == 'op']
    assert {e['args']['place'] for e in ops} == {0, 1}
    assert len({e['tid'] for e in ops}) >= 2, 'every op ran on one thread'
    names = {e['tid']: e['args']['name'] for e in trace['traceEvents'] if e.get('name') == 'thread_name'}
    assert any('worker' in name for name in names.values())
    compiled._executor.close()


def test_stage_producers_and_prefetch_waits_appear(tmp_path, capsys):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 2], 'float32')
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=2, iterable=False)
        total = fluid.layers.reduce_sum(static.staged(fluid.layers.scale(x, 2.0)))
    loader.set_batch_generator(lambda: ([np.full((1, 2), k, 'float32')] for k in range(4)))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    path = str(tmp_path / 'stage.json')
    with fluid.scope_guard(scope):
        loader.start()
        with fluid.profiler.profiler('CPU', None, path):
            for _ in range(3):
                exe.run(main, fetch_list=[total], scope=scope)
        loader.reset()
    exe.close()
    events = json.load(open(path))['traceEvents']
    stage = [e for e in events if e.get('cat') == 'stage']
    assert any('producer' in e['name'] for e in stage) and any('prefetch wait' in e['name'] for e in stage)
    producer_tids = {e['tid'] for e in stage if 'producer' in e['name']}
    op_tids = {e['tid'] for e in events if e.get('cat') == 'op'}
    assert producer_tids - op_tids, 'producer iterations are on their own thread'


# --- paddle.profiler (2.x) ------------------------------------------------------------------------------------

def test_scheduler_window_exports_a_chrome_trace_and_summarises(tmp_path, capsys):
    main, exe, scope, loss = regression()
    seen = []
    handler = profiler.export_chrome_tracing(str(tmp_path / 'log'), 'worker0')

    def on_ready(prof):
        seen.append(prof.step_num)
        handler(prof)
    with profiler.Profiler(targets=[profiler.ProfilerTarget.CPU], scheduler=(2, 5), on_trace_ready=on_ready) as prof:
        for _ in range(8):
            with profiler.RecordEvent('train_step'):
                exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
            prof.step(num_samples=8)
    assert seen == [5]
    files = os.listdir(tmp_path / 'log')
    assert len(files) == 1 and files[0].startswith('worker0_time_') and files[0].endswith('.paddle_trace.json')
    trace = json.load(open(tmp_path / 'log' / files[0]))
    steps = sorted(e['name'] for e in trace['traceEvents'] if e.get('cat') == 'step')
    assert steps == ['ProfileStep#2', 'ProfileStep#3', 'ProfileStep#4']
    assert len([e for e in trace['traceEvents'] if e.get('name') == 'mul']) == 3
    assert len([e for e in trace['traceEvents'] if e.get('name') == 'train_step']) == 3
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, time_unit='us')
    text = capsys.readouterr().out
    assert 'Overview Summary' in text and 'Operator Summary' in text and 'UserDefined Summary' in text
    assert 'Time unit: us' in text and 'train_step' in text
    assert 'batch_cost' in prof.step_info() and 'ips' in prof.step_info()
    result = profiler.load_profiler_result(str(tmp_path / 'log' / files[0]))
    assert len([e for e in result.events if e.name == 'mul']) == 3


def test_make_scheduler_states():
    s = profiler.make_scheduler(closed=1, ready=1, record=2, repeat=2, skip_first=1)
    P = profiler.ProfilerState
    assert [s(k) for k in range(10)] == [P.CLOSED, P.CLOSED, P.READY, P.RECORD, P.RECORD_AND_RETURN,
                                         P.CLOSED, P.READY, P.RECORD, P.RECORD_AND_RETURN, P.CLOSED]


def test_timer_only_records_no_event_and_export_protobuf_round_trips(tmp_path):
    main, exe, scope, loss = regression()
    prof = profiler.Profiler(timer_only=True)
    prof.start()
    for _ in range(3):
        exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
        prof.step()
    prof.stop()
    assert prof.events == [] and 'batch_cost' in prof.step_info()
    with profiler.Profiler(on_trace_ready=profiler.export_protobuf(str(tmp_path), 'w')) as prof:
        exe.run(main, feed=feed(), fetch_list=[loss], scope=scope)
    (name,) = os.listdir(tmp_path)
    assert name.endswith('.paddle_trace.pb.json')
    assert any(e.name == 'mul' for e in profiler.load_profiler_result(str(tmp_path / name)).events)


def test_the_cost_model_exports_as_a_chrome_trace(tmp_path, monkeypatch):
    monkeypatch.setenv('START_NODE_STATS_STEP', '1')
    monkeypatch.setenv('STOP_NODE_STATS_STEP', '3')
    main, _, scope, loss = regression(width=64, hidden=64)
    es = fluid.ExecutionStrategy()
    es.num_threads = 2
    es.executor_policy = 'USE_COST_MODEL_EXECUTOR'
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    with pytest.raises(ValueError, match='no cost model yet'):
        exe.run(main, feed=feed(width=64), fetch_list=[loss], scope=scope)
        profiler.export_cost_model(exe, str(tmp_path / 'early.json'))
    for _ in range(4):
        exe.run(main, feed=feed(width=64), fetch_list=[loss], scope=scope)
    trace = json.load(open(profiler.export_cost_model(exe, str(tmp_path / 'cm.json'))))
    ops = [e for e in trace['traceEvents'] if e.get('ph') == 'X']
    assert len(ops) == len(exe.runner.plans.plans()[-1].nodes)
    assert all({'cost_us', 'priority_us', 'short'} <= set(e['args']) for e in ops)
    exe.close()


# --- flags --------------------------------------------------------------------------------------------------

def test_flags_read_set_and_refuse_unknown_names():
    assert paddle.get_flags(['FLAGS_check_nan_inf', 'FLAGS_eager_delete_tensor_gb']) == {
        'FLAGS_check_nan_inf': False, 'FLAGS_eager_delete_tensor_gb': 0.0}
    assert paddle.get_flags('FLAGS_paddle_num_threads') == {'FLAGS_paddle_num_threads': 1}
    fluid.set_flags({'FLAGS_check_nan_inf': 'true', 'FLAGS_eager_delete_tensor_gb': 2})
    assert fluid.get_flags(['FLAGS_check_nan_inf'])['FLAGS_check_nan_inf'] is True
    assert paddle.get_flags(['FLAGS_eager_delete_tensor_gb'])['FLAGS_eager_delete_tensor_gb'] == 2.0
    with pytest.raises(ValueError, match='Flag FLAGS_bogus_flag cannot set its value through this function.'):
        paddle.set_flags({'FLAGS_bogus_flag': 1})
    with pytest.raises(ValueError, match='Flag FLAGS_bogus_flag cannot get its value through this function.'):
        paddle.get_flags(['FLAGS_bogus_flag'])
    with pytest.raises(ValueError, match='is a bool'):
        paddle.set_flags({'FLAGS_check_nan_inf': 'maybe'})
    paddle.set_flags({'FLAGS_eager_delete_tensor_gb': 0.0})


def log_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[2], dtype='float32')
        y = fluid.layers.log(x)
    return main, y


@pytest.mark.parametrize('policy', [None, 'USE_NORMAL_EXECUTOR', 'USE_INLINE_EXECUTOR', 'USE_COST_MODEL_EXECUTOR'])
def test_check_nan_inf_names_log_and_its_output(policy):
    main, y = log_program()
    es = None
    if policy:
        es = fluid.ExecutionStrategy()
        es.executor_policy = policy
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    data = {'x': np.array([[1.0, -1.0]], 'float32')}
    with np.errstate(invalid='ignore'):
        got, = exe.run(main, feed=data, fetch_list=[y], scope=fluid.Scope())       # off: NaN comes back
        assert np.isnan(got[0, 1])
        paddle.set_flags({'FLAGS_check_nan_inf': True})
        with pytest.raises(RuntimeError) as err:
            exe.run(main, feed=data, fetch_list=[y], scope=fluid.Scope())
    text = str(err.value)
    assert "operator 'log'" in text and 'tensor=log_0.tmp_0' in text and 'num_nan=1' in text
    assert 'flat index 1 [0, 1], value nan' in text
    exe.close()


def test_check_nan_inf_from_the_environment():
    code = ('import numpy as np, paddle_exec.fluid as fluid\n'
            'main, startup = fluid.Program(), fluid.Program()\n'
            'with fluid.program_guard(main, startup):\n'
            '    x = fluid.layers.data(name="x", shape=[2], dtype="float32")\n'
            '    y = fluid.layers.log(x)\n'
            'try:\n'
            '    fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": np.array([[2.0, -1.0]], "float32")},\n'
            '                                         fetch_list=[y])\n'
            'except RuntimeError as e:\n'
            '    print("caught", "tensor=log_0.tmp_0" in str(e))\n')
    env = dict(os.environ, FLAGS_check_nan_inf='1', PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == 'caught True', out.stderr[-500:]


def test_profiling_from_another_thread_records_that_threads_runs():
    main, exe, scope, loss = regression()
    fluid.profiler.start_profiler('CPU')
    worker = threading.Thread(target=lambda: exe.run(main, feed=feed(), fetch_list=[loss], scope=scope))
    worker.start()
    worker.join()
    recorder = INSTRUMENTS.recorder
    INSTRUMENTS.recorder = None
    assert {e.tid for e in recorder.events if e.cat == 'op'} == {worker.ident}


def test_docs_list_every_flag_and_what_it_does():
    from paddle_exec.executor.flag_table import PADDLE_FLAGS
    from paddle_exec.executor.flags import EFFECTIVE_FLAGS
    text = open(os.path.join(ROOT, 'docs', 'flags.md')).read()
    for name in PADDLE_FLAGS:
        assert '`FLAGS_%s`' % name in text, name
    for name in EFFECTIVE_FLAGS:
        assert '| `FLAGS_%s` |' % name in text
