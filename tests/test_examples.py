"""Every script in examples/ trains: run as a user runs it (a subprocess), its printed loss must fall.

An example declares the op types its programs use in `REQUIRED_OPS`; while any of them has no kernel in
`paddle_exec.framework.registry.KERNEL_RULES` the example is skipped with the missing names in the reason, so its test
turns on by itself when the ops land. Once it runs, a second test checks the declaration against the ops the
example really builds, so a stale list cannot hide a missing kernel.
"""
import ast
import glob
import importlib.util
import math
import os
import re
import subprocess
import sys

import pytest

import paddle_exec  # noqa: F401  (registers every op)
from paddle_exec.framework import Program, unique_name
from paddle_exec.framework.registry import KERNEL_RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES_DIR = os.path.join(ROOT, 'examples')
EXAMPLES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(EXAMPLES_DIR, '*.py')))
# Short runs that still show learning; an example missing here runs 30 steps.
STEPS = {'fit_a_line': 30, 'fit_a_line_static': 30, 'mnist_mlp': 60, 'small_cnn': 40, 'understand_sentiment': 30,
         'ctr_dnn': 40}
WINDOW = 5          # the loss must fall from the mean of the first WINDOW steps to the mean of the last WINDOW
LOSS_LINE = re.compile(r'^step\s+(\d+)\s+train loss\s+(\S+)$', re.M)


def example_path(name: str) -> str:
    return os.path.join(EXAMPLES_DIR, name + '.py')


def required_ops(name: str) -> tuple:
    """REQUIRED_OPS read from the source, so a skipped example is never imported."""
    tree = ast.parse(open(example_path(name)).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, 'id', None) == 'REQUIRED_OPS' for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError('examples/%s.py declares no REQUIRED_OPS' % name)


def skip_if_ops_missing(name: str) -> None:
    missing = [op for op in required_ops(name) if op not in KERNEL_RULES]
    if missing:
        pytest.skip('examples/%s.py needs ops without a kernel yet: %s' % (name, ', '.join(missing)))


def run_example(name: str, steps: int) -> str:
    env = dict(os.environ)
    # the checkout's package, as the in-process tests import it
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    proc = subprocess.run([sys.executable, example_path(name), '--steps', str(steps), '--log-every', '1'],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, 'examples/%s.py failed:\n%s%s' % (name, proc.stdout, proc.stderr)
    return proc.stdout


@pytest.mark.parametrize('name', EXAMPLES)
def test_example_loss_falls(name):
    skip_if_ops_missing(name)
    steps = STEPS.get(name, 30)
    out = run_example(name, steps)
    losses = [float(loss) for _, loss in LOSS_LINE.findall(out)]
    assert len(losses) == steps, 'expected one loss line per step, got:\n' + out
    assert all(math.isfinite(v) for v in losses), out
    first, last = sum(losses[:WINDOW]) / WINDOW, sum(losses[-WINDOW:]) / WINDOW
    assert last < 0.9 * first, 'examples/%s.py did not train: loss %.4f -> %.4f\n%s' % (name, first, last, out)
    assert re.search(r'^test loss \S+', out, re.M), 'no test-program evaluation printed:\n' + out


@pytest.mark.parametrize('name', EXAMPLES)
def test_required_ops_cover_the_programs(name):
    skip_if_ops_missing(name)
    spec = importlib.util.spec_from_file_location('example_' + name, example_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with unique_name.guard():
        built = module.build_program()
    programs = [p for p in built if isinstance(p, Program)]
    assert len(programs) >= 2, 'build_program() should return the main and startup programs'
    used = {op.type for program in programs for block in program.blocks for op in block.ops}
    undeclared = sorted(used - set(required_ops(name)))
    assert not undeclared, 'examples/%s.py uses ops missing from its REQUIRED_OPS: %s' % (name, undeclared)


def test_every_example_has_a_short_run():
    assert set(STEPS) == set(EXAMPLES), 'give each example a step count in STEPS (and drop removed ones)'
