"""paddle-exec bench / tune / trace, the built-in models and model scripts, the tie rule, and the lines tune prints
to paste (they are run here, and must build the strategies tune timed)."""
import json
import os
import re
import subprocess
import sys

import pytest

import paddle_exec.fluid as fluid
from paddle_exec.cli import build_parser, models, timing, tune
from paddle_exec.cli.timing import DEFAULT, Measurement, Setting

from .helpers import cli

SCRIPT = '''"""A two-layer regression written as a model script."""
import numpy as np
import paddle_exec.fluid as fluid


def build_model():
    x = fluid.layers.data(name='x', shape=[8], dtype='float32')
    y = fluid.layers.data(name='y', shape=[1], dtype='float32')
    h = fluid.layers.fc(x, 16, act='relu')
    loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
    fluid.optimizer.SGD(0.01).minimize(loss)
    rng = np.random.RandomState(0)
    return loss, {'x': rng.rand(16, 8).astype('float32'), 'y': rng.rand(16, 1).astype('float32')}
'''


def test_tie_rule_and_pick():
    a, b, c = Measurement([100, 104, 102]), Measurement([101, 103, 108]), Measurement([120, 125, 122])
    assert (a.low, a.high) == (101, 103)              # the middle half: quartiles of the rounds
    assert a.ties(b) and b.ties(a) and not a.ties(c)
    assert c.clearly_faster(a) and not b.clearly_faster(a)
    assert a.median == 102 and a.noise == pytest.approx(1 / 102)
    # one wild round (another process took the machine) does not turn a clear difference into a tie
    spiky, steady = Measurement([100, 101, 99, 100, 400]), Measurement([130, 131, 129, 130, 20])
    assert steady.clearly_faster(spiky)
    assert tune.pick(0, [a, b]) == 0                 # a tie keeps the current value
    assert tune.pick(0, [a, b, c]) == 2              # clearly faster moves
    assert tune.pick(1, [Measurement([50, 51]), b, Measurement([111, 113]), c]) == 3    # the fastest clear winner


def test_measure_alternates_independent_instances(monkeypatch):
    """Each setting is built `instances` times and the rounds take turns, so one executor's lasting luck (its
    adaptive mode choice) lands in the noise; settings rotate order every round."""
    made, calls = [], []

    class FakeRun:
        def __init__(self, spec, setting):
            self.setting, self.id = setting, len(made)
            made.append(self)

        def warm_up(self, steps):
            pass

        def run_steps(self, steps):
            calls.append(self.id)
            return steps

        def close(self):
            pass

    monkeypatch.setattr(timing, 'TrainingRun', FakeRun)
    a, b = Setting(num_threads=1), Setting(num_threads=2)
    ms = timing.measure(None, [a, b], steps=3, repeats=4, instances=2)
    assert len(made) == 4 and [r.setting for r in made] == [a, a, b, b]
    assert calls == [0, 2, 3, 1, 0, 2, 3, 1]          # round r: instance r % 2, order rotated each round
    assert [len(m.rates) for m in ms] == [4, 4]


def _scripted_measure(monkeypatch, answers):
    """tune.measure returning the next scripted list of rates-lists per call."""
    calls = []

    def fake(spec, settings, steps, repeats, desc='timing', **kw):
        calls.append((desc, list(settings)))
        return [Measurement(r) for r in answers[len(calls) - 1]]

    monkeypatch.setattr(tune, 'measure', fake)
    return calls


def test_a_sweep_winner_must_win_again(monkeypatch):
    knob = next(k for k in tune.KNOBS if k.name == 'num_iteration_per_drop_scope')
    facts = {'cores': 2, 'has_stage': False}
    # values 100 (current), 10, 1: 10 wins the sweep, then ties when timed again alone -> not taken
    calls = _scripted_measure(monkeypatch, [[[10, 11, 12], [20, 21, 22], [10, 12, 11]], [[20, 30, 40], [25, 35, 45]]])
    chosen, rows = tune.sweep(None, knob, DEFAULT, facts, 5, 3)
    assert chosen == DEFAULT
    assert [r.verdict for r in rows] == ['chosen', 'unconfirmed', 'tie']
    assert calls[1][0] == 'num_iteration_per_drop_scope again' and calls[1][1][0].drop_scope == 10
    # ... and when it wins again it is taken
    _scripted_measure(monkeypatch, [[[10, 11, 12], [20, 21, 22], [10, 12, 11]], [[30, 31, 32], [10, 11, 12]]])
    chosen, rows = tune.sweep(None, knob, DEFAULT, facts, 5, 3)
    assert chosen.drop_scope == 10 and [r.verdict for r in rows] == ['slower', 'chosen', 'slower']


def test_a_pick_that_ties_at_the_end_is_not_the_advice(monkeypatch, capsys):
    _scripted_measure(monkeypatch, [[[10, 11, 12], [20, 21, 22], [10, 12, 11]],     # the sweep: 10 wins
                                    [[30, 31, 32], [10, 11, 12]],                    # and wins again
                                    [[20, 30, 40], [25, 35, 45]]])                   # the final check: a tie
    status, out, _ = cli(capsys, 'tune', 'fc', '--knobs', 'num_iteration_per_drop_scope', '--repeats', 3)
    assert status == 0
    assert "best: Paddle's defaults (nothing changed), since the search's pick (drop_scope=10) was timed again" in out
    paste = out[out.index('# the best setting'):]
    assert 'num_iteration_per_drop_scope' not in paste


def test_builtin_models_and_aliases():
    for name in ('fit_a_line', 'fit-a-line', 'fc', 'mlp', 'deepfm'):
        spec = models.load_model(name)
        assert spec.batch == models.MODELS[models.ALIASES.get(name, name)][1]
    assert models.load_model('mlp', batch=8).batch == 8
    with pytest.raises(models.ModelError, match="unknown model 'resnet': the built-in models are fc, mlp, deepfm"):
        models.load_model('resnet')


def test_benchmarks_use_the_packaged_models():
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    try:
        import benchmarks.models as bench_models
    finally:
        sys.path.pop(0)
    assert bench_models.MODELS is models.MODELS


def test_model_script(tmp_path):
    path = tmp_path / 'reg.py'
    path.write_text(SCRIPT)
    spec = models.load_model(str(path))
    assert spec.name == 'reg.py' and spec.description == 'A two-layer regression written as a model script.'
    run = timing.TrainingRun(spec, DEFAULT)
    try:
        assert run.run_steps(3) == 3 and run.last_loss.shape == (1,)
    finally:
        run.close()
    bad = tmp_path / 'bad.py'
    bad.write_text('x = 1\n')
    with pytest.raises(models.ModelError, match='defines no build_model'):
        models.load_model(str(bad))


def test_pasted_lines_build_the_strategies_that_were_timed():
    setting = Setting(cpu_num=2, num_threads=3, policy='inline', drop_scope=10, per_run=4, reduce='Reduce',
                      sequential=True, fuse_all_optimizer=True, memory_optimize=True)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name='x', shape=[2], dtype='float32')
        loss = fluid.layers.mean(fluid.layers.fc(x, 1))
    namespace = {'fluid': fluid, 'main_program': main, 'loss': loss}
    saved = os.environ.get('CPU_NUM')
    try:
        exec('\n'.join(setting.python_lines()), namespace)
        assert os.environ['CPU_NUM'] == '2'
    finally:
        if saved is None:
            os.environ.pop('CPU_NUM', None)
        else:
            os.environ['CPU_NUM'] = saved
    es, bs = namespace['exec_strategy'], namespace['build_strategy']
    want_es, want_bs = setting.exec_strategy(), setting.build_strategy()
    for field in ('num_threads', 'executor_policy', 'num_iteration_per_drop_scope', 'num_iteration_per_run'):
        assert getattr(es, field) == getattr(want_es, field), field
    for field in ('reduce_strategy', 'enable_sequential_execution', 'fuse_all_optimizer_ops', 'memory_optimize',
                  'fuse_elewise_add_act_ops', 'do_smart_stage'):
        assert getattr(bs, field) == getattr(want_bs, field), field
    assert isinstance(namespace['compiled'], fluid.CompiledProgram)
    # Paddle's defaults need no line beyond the objects themselves
    assert DEFAULT.python_lines()[2:4] == ['exec_strategy = fluid.ExecutionStrategy()',
                                           'build_strategy = fluid.BuildStrategy()']


def test_bench_prints_rate_and_per_op_table(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'tiered')     # the user's default: the table still has one row per op
    out_json = tmp_path / 'b.json'
    status, out, _ = cli(capsys, 'bench', 'fit_a_line', '--steps', 20, '--repeats', 2, '--threads', 2,
                         '--json', out_json)
    assert status == 0
    assert 'model    fit_a_line (batch 32): fit-a-line' in out
    assert 'setting  CPU_NUM=1 num_threads=2 (set) policy=USE_NORMAL_EXECUTOR' in out
    assert 'steps/s  ' in out and '2 rounds of 20 steps' in out
    assert 'per-op times of one step (13 ops; the cost-model window on 1 place, 1 thread' in out
    type_table = out[out.index('by op type:'):]
    for op_type in ('mul', 'mul_grad', 'sgd', 'square', 'fill_constant'):
        assert re.search(r'^%s\s+\d+\s' % op_type, type_table, re.M), op_type
    assert "the rest" in out and "is the executor's own work" in out
    result = json.load(open(out_json))
    assert len(result['rates']) == 2 and len(result['ops']) == 13
    assert result['changed_from_default'] == {'num_threads': 2}
    assert 0 < sum(o['seconds'] for o in result['ops']) < 1


def test_bench_errors(capsys):
    status, _, err = cli(capsys, 'bench', 'nope')
    assert status == 1 and "unknown model 'nope'" in err and err.count('\n') == 1
    status, _, err = cli(capsys, 'bench', 'fc', '--cpu-num', 0)
    assert status == 1 and '--cpu-num must be at least 1' in err


def test_tune_fit_a_line_steps_50(capsys, tmp_path):
    """The issue's done-when: a table with a num_threads column, steps/s per setting (>= 3), the best as lines."""
    status, out, _ = cli(capsys, 'tune', 'fit_a_line', '--steps', 50, '--repeats', 3, '--plot', tmp_path / 't.png')
    assert status == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith('knob swept'))
    assert 'num_threads' in header and 'steps/s' in header and 'middle half' in header and 'verdict' in header
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.strip() or line.startswith(('reduce_strategy:', 'do_smart_stage:')):
            break
        rows.append(line)
    assert len(rows) >= 3
    assert all(r.split()[-1] in ('chosen', 'tie', 'slower', 'unconfirmed') for r in rows)
    assert sum(r.split()[-1] == 'chosen' for r in rows) == len(tune.KNOBS) - 2      # two knobs cannot matter here
    assert 'reduce_strategy: not timed, one place: there is nothing to reduce' in out
    assert 'do_smart_stage: not timed, the program has no staged()' in out
    assert 'best: ' in out
    paste = out[out.index('# the best setting, to paste'):]
    assert 'exec_strategy = fluid.ExecutionStrategy()' in paste and 'with_data_parallel(' in paste
    assert (tmp_path / 't.png').read_bytes()[:4] == b'\x89PNG'


def test_tune_chosen_knobs_and_errors(capsys, tmp_path):
    path = tmp_path / 'reg.py'
    path.write_text(SCRIPT)
    status, out, _ = cli(capsys, 'tune', path, '--knobs', 'num_threads', '--steps', 10, '--repeats', 2)
    assert status == 0
    assert out.count('num_threads') >= 2 and 'executor_policy' not in out.split('# the best')[0]
    status, _, err = cli(capsys, 'tune', 'fc', '--knobs', 'warp_speed')
    assert status == 1 and 'unknown knob warp_speed; the knobs are: CPU_NUM, num_threads' in err
    status, _, err = cli(capsys, 'tune', 'fc', '--repeats', 1)
    assert status == 1 and 'at least 2 (the noise needs two rounds)' in err


def test_tune_from_a_starting_setting(capsys):
    """reduce_strategy needs places: started at CPU_NUM=2 it is timed instead of skipped."""
    status, out, _ = cli(capsys, 'tune', 'fc', '--cpu-num', 2, '--threads', 2, '--knobs', 'reduce_strategy',
                         '--steps', 10, '--repeats', 2)
    assert status == 0
    assert 'starting from: cpu_num=2, num_threads=2' in out
    rows = [line for line in out.splitlines() if line.rstrip().endswith(('chosen', 'tie', 'slower', 'unconfirmed'))]
    assert len(rows) == 2 and rows[0].startswith('reduce_strategy') and 'Reduce' in rows[1]
    assert all(re.search(r'\s2\s+2\s+normal\s', line) for line in rows)      # CPU_NUM 2, num_threads 2
    assert "os.environ['CPU_NUM'] = '2'" in out and 'exec_strategy.num_threads = 2' in out


TRACED_SCRIPT = """
import sys
import numpy as np
import paddle.fluid as fluid          # the alias: paddle is paddle_exec
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data(name='x', shape=[3], dtype='float32')
    y = fluid.layers.fc(x, 2)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
for _ in range(int(sys.argv[1])):
    exe.run(main, feed={'x': np.ones((4, 3), 'float32')}, fetch_list=[y])
if len(sys.argv) > 2:
    raise ValueError('fails on purpose')
"""


def test_trace_runs_a_script_under_the_profiler(capsys, tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(TRACED_SCRIPT)
    out_path = tmp_path / 'trace.json'
    status, out, err = cli(capsys, 'trace', '--paddle-alias', str(script), '-o', str(out_path), '--sorted-key',
                           'calls', '--', '3')
    assert status == 0, err
    assert 'Profiling Report' in err and 'Sorted by number of calls' in err and 'thread0::mul' in err
    trace = json.loads(out_path.read_text())
    assert len([e for e in trace['traceEvents'] if e.get('name') == 'mul']) == 3
    assert 'op events' in out
    status, out, err = cli(capsys, 'trace', '--paddle-alias', '--no-report', str(script), '-o', str(out_path),
                           '--', '2', 'fail')
    assert status == 1 and 'fails on purpose' in err and 'Profiling Report' not in err
    assert len([e for e in json.loads(out_path.read_text())['traceEvents'] if e.get('name') == 'mul']) == 2


@pytest.mark.parametrize('command', ['inspect', 'run', 'export', 'bench', 'tune', 'trace'])
def test_every_subcommand_help_has_an_example(command):
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    text = sub.format_help()
    assert 'example' in text and ('paddle-exec %s ' % command) in text


def test_console_script_is_installed():
    script = os.path.join(os.path.dirname(sys.executable), 'paddle-exec')
    assert os.path.exists(script), 'pip install -e . makes the paddle-exec console script'
    result = subprocess.run([script, '--help'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and 'inspect' in result.stdout and 'tune' in result.stdout
    result = subprocess.run([script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
