"""Real Paddle training scripts, unchanged except the import line, must run and learn.

Each `tests/scripts/NAME.py` is written the way a Paddle 1.8 (fluid) or 2.x (paddle.static) user writes it and
asserts by itself that its loss falls or its accuracy rises. It runs here as a user runs it, in a subprocess, with
the op kernels it builds recorded. `NEEDS` names what each script relies on: the op types its programs use and the
public APIs it calls. While any of them is missing (no kernel in `KERNEL_RULES`, or no such attribute), the script
is skipped with the missing names in the reason, so it turns on by itself when they land. Once a script runs, the
ops it really built must all be declared, so a stale list cannot hide a missing kernel.

The fluid scripts also run unchanged under real Paddle 1.8.5 (with `paddle` / `paddle.fluid` imported instead).
When they were written, both ran side by side from the same parameters (overwritten after the startup program) and
the same reader order: every fetched loss, accuracy and AUC agreed within 2e-6 relative (6e-5 for the conv net
after 30 Adam steps). That check needs Paddle 1.8.5 and is not part of this suite.
"""
import glob
import json
import os
import subprocess
import sys

import pytest

import paddle_exec
import paddle_exec.fluid
import paddle_exec.nn.functional
import paddle_exec.static
from paddle_exec.framework.registry import KERNEL_RULES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS_DIR = os.path.join(ROOT, 'tests', 'scripts')
SCRIPTS = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(SCRIPTS_DIR, '*.py')))

_FIT_A_LINE_OPS = ('mul', 'elementwise_add', 'elementwise_sub', 'square', 'mean', 'sgd', 'fill_constant',
                   'uniform_random', 'mul_grad', 'elementwise_add_grad', 'elementwise_sub_grad', 'square_grad',
                   'mean_grad')
_MNIST_OPS = ('mul', 'elementwise_add', 'softmax', 'cross_entropy2', 'mean', 'top_k', 'accuracy', 'adam',
              'fill_constant', 'uniform_random', 'mul_grad', 'elementwise_add_grad', 'softmax_grad',
              'cross_entropy_grad2', 'mean_grad')

# script -> (op types its programs use, public APIs it calls)
NEEDS = {
    'fit_a_line': (_FIT_A_LINE_OPS,
                   ('paddle.batch', 'paddle.reader.shuffle', 'fluid.data', 'fluid.layers.fc',
                    'fluid.layers.square_error_cost', 'fluid.layers.mean', 'fluid.optimizer.SGD',
                    'fluid.DataFeeder', 'fluid.Executor')),
    'recognize_digits_mlp': (_MNIST_OPS + ('tanh', 'tanh_grad'),
                             ('paddle.batch', 'paddle.reader.shuffle', 'fluid.layers.cross_entropy',
                              'fluid.layers.accuracy', 'fluid.optimizer.Adam', 'fluid.DataFeeder')),
    'recognize_digits_conv': (_MNIST_OPS + ('conv2d', 'conv2d_grad', 'pool2d', 'pool2d_grad', 'relu', 'relu_grad',
                                            'batch_norm', 'batch_norm_grad', 'gaussian_random'),
                              ('paddle.batch', 'fluid.nets.simple_img_conv_pool', 'fluid.layers.batch_norm',
                               'fluid.layers.accuracy', 'fluid.optimizer.Adam', 'fluid.DataFeeder')),
    'word2vec': (('lookup_table_v2', 'concat', 'mul', 'elementwise_add', 'sigmoid', 'softmax', 'cross_entropy2',
                  'mean', 'scale', 'sum', 'adagrad', 'fill_constant', 'uniform_random', 'lookup_table_v2_grad',
                  'concat_grad', 'mul_grad', 'elementwise_add_grad', 'sigmoid_grad', 'softmax_grad',
                  'cross_entropy_grad2', 'mean_grad'),
                 ('paddle.batch', 'fluid.embedding', 'fluid.layers.concat', 'fluid.optimizer.AdagradOptimizer',
                  'fluid.regularizer.L2DecayRegularizer', 'fluid.DataFeeder')),
    'ctr_deepfm': (('reshape2', 'lookup_table_v2', 'elementwise_mul', 'reduce_sum', 'square', 'elementwise_sub',
                    'scale', 'mul', 'elementwise_add', 'relu', 'sigmoid', 'log_loss', 'mean', 'concat', 'cast',
                    'auc', 'sign', 'sum', 'adam', 'fill_constant', 'truncated_gaussian_random', 'reshape2_grad',
                    'lookup_table_v2_grad', 'elementwise_mul_grad', 'reduce_sum_grad', 'square_grad',
                    'elementwise_sub_grad', 'mul_grad', 'elementwise_add_grad', 'relu_grad', 'sigmoid_grad',
                    'log_loss_grad'),
                   ('paddle.batch', 'paddle.reader.shuffle', 'fluid.embedding', 'fluid.layers.reduce_sum',
                    'fluid.layers.square', 'fluid.layers.sigmoid', 'fluid.layers.log_loss', 'fluid.layers.cast',
                    'fluid.layers.auc', 'fluid.initializer.TruncatedNormalInitializer',
                    'fluid.regularizer.L1DecayRegularizer', 'fluid.optimizer.Adam', 'fluid.DataFeeder')),
    'static_mlp': (('mul', 'elementwise_add', 'relu', 'softmax_with_cross_entropy', 'reduce_mean', 'softmax',
                    'top_k_v2', 'accuracy', 'adam', 'fill_constant', 'uniform_random', 'mul_grad',
                    'elementwise_add_grad', 'relu_grad', 'softmax_with_cross_entropy_grad', 'reduce_mean_grad'),
                   ('paddle.enable_static', 'paddle.seed', 'paddle.set_device', 'paddle.metric.accuracy',
                    'paddle.topk', 'paddle.optimizer.Adam', 'static.data', 'static.nn.fc', 'static.Executor',
                    'F.relu', 'F.cross_entropy', 'F.softmax')),
    'static_layer_cnn': (('conv2d', 'reshape2', 'elementwise_add', 'batch_norm', 'relu', 'pool2d',
                          'flatten_contiguous_range', 'dropout', 'matmul_v2', 'softmax_with_cross_entropy',
                          'reduce_mean', 'softmax', 'top_k_v2', 'accuracy', 'momentum', 'fill_constant',
                          'gaussian_random', 'uniform_random', 'conv2d_grad', 'reshape2_grad', 'elementwise_add_grad',
                          'batch_norm_grad', 'relu_grad', 'pool2d_grad', 'flatten_contiguous_range_grad',
                          'dropout_grad', 'matmul_v2_grad', 'softmax_with_cross_entropy_grad', 'reduce_mean_grad'),
                         ('paddle.enable_static', 'paddle.seed', 'paddle.nn.Layer', 'paddle.nn.Sequential',
                          'paddle.nn.Conv2D', 'paddle.nn.BatchNorm2D', 'paddle.nn.ReLU', 'paddle.nn.MaxPool2D',
                          'paddle.nn.Flatten', 'paddle.nn.Dropout', 'paddle.nn.Linear', 'paddle.nn.CrossEntropyLoss',
                          'paddle.optimizer.Momentum', 'paddle.metric.accuracy', 'static.CompiledProgram',
                          'static.ExecutionStrategy')),
    'pe_fit_a_line_fluid': (_FIT_A_LINE_OPS,
                            ('paddle.batch', 'fluid.layers.data', 'fluid.ExecutionStrategy',
                             'fluid.ParallelExecutor', 'fluid.DataFeeder')),
    'pe_fit_a_line_static': (tuple(op for op in _FIT_A_LINE_OPS if op not in ('mean', 'mean_grad'))
                             + ('reduce_mean', 'reduce_mean_grad'),
                             ('paddle.enable_static', 'paddle.mean', 'paddle.optimizer.SGD', 'static.data',
                              'static.nn.fc', 'F.square_error_cost', 'static.ExecutionStrategy',
                              'static.ParallelExecutor')),
}

_API_ROOTS = {'paddle': paddle_exec, 'fluid': paddle_exec.fluid, 'static': paddle_exec.static,
              'F': paddle_exec.nn.functional}

# Runs a script as `python script.py` would, recording the type of every op a kernel is made for.
RUNNER = """
import json, runpy, sys
from paddle_exec.framework import registry
used = set()
make_kernel = registry.make_kernel
def recording_make_kernel(op, context=None, lod=None):
    used.add(op.type)
    return make_kernel(op, context, lod)
registry.make_kernel = recording_make_kernel
try:
    runpy.run_path(sys.argv[1], run_name='__main__')
finally:
    with open(sys.argv[2], 'w') as f:
        json.dump(sorted(used), f)
"""


def has_api(path: str) -> bool:
    root, *attrs = path.split('.')
    obj = _API_ROOTS[root]
    for attr in attrs:
        if not hasattr(obj, attr):
            return False
        obj = getattr(obj, attr)
    return True


def missing_needs(name: str) -> list[str]:
    ops, apis = NEEDS[name]
    return ['op ' + op for op in ops if op not in KERNEL_RULES] + ['API ' + api for api in apis if not has_api(api)]


@pytest.mark.parametrize('name', SCRIPTS)
def test_script_trains(name, tmp_path):
    missing = missing_needs(name)
    if missing:
        pytest.skip('tests/scripts/%s.py needs what paddle_exec does not have yet: %s' % (name, ', '.join(missing)))
    used_path = tmp_path / 'used_ops.json'
    env = {k: v for k, v in os.environ.items() if k != 'CPU_NUM'}
    env['PYTHONPATH'] = os.pathsep.join(p for p in (ROOT, env.get('PYTHONPATH')) if p)
    proc = subprocess.run([sys.executable, '-c', RUNNER, os.path.join(SCRIPTS_DIR, name + '.py'), str(used_path)],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, 'tests/scripts/%s.py failed:\n%s%s' % (name, proc.stdout, proc.stderr)
    used = set(json.loads(used_path.read_text()))
    undeclared = sorted(used - set(NEEDS[name][0]))
    assert not undeclared, 'tests/scripts/%s.py uses ops missing from NEEDS: %s' % (name, undeclared)


def test_every_script_declares_its_needs():
    assert set(NEEDS) == set(SCRIPTS), 'give each script in tests/scripts an entry in NEEDS (and drop removed ones)'
    for name, (ops, apis) in NEEDS.items():
        assert all(api.split('.')[0] in _API_ROOTS for api in apis), name


def test_missing_needs_are_named():
    NEEDS['__probe__'] = (('no_such_op',), ('fluid.layers.no_such_layer', 'paddle.batch'))
    try:
        assert missing_needs('__probe__') == ['op no_such_op', 'API fluid.layers.no_such_layer']
    finally:
        del NEEDS['__probe__']
