"""Records real Paddle's `__all__` for the module paths paddle_exec lays out (tests/api/test_module_paths.py checks
ours against them). Runs only where Paddle is installed:

    /work/pd18/bin/python tests/api/paddle_names/record.py fluid-1.8.5.json      (paddlepaddle 1.8.5)
    /work/pd26/bin/python tests/api/paddle_names/record.py paddle-2.6.2.json     (paddlepaddle 2.6.2)
"""
import importlib
import json
import os
import sys

MODULES = {
    'fluid-1.8.5.json': [
        'paddle.fluid.layers', 'paddle.fluid.layers.nn', 'paddle.fluid.layers.tensor',
        'paddle.fluid.layers.control_flow', 'paddle.fluid.layers.io', 'paddle.fluid.layers.ops',
        'paddle.fluid.layers.loss', 'paddle.fluid.layers.metric_op',
        'paddle.fluid.layers.learning_rate_scheduler', 'paddle.fluid.layers.detection', 'paddle.fluid.layers.rnn',
        'paddle.fluid.layers.sequence_lod', 'paddle.fluid.layers.distributions', 'paddle.fluid.framework',
        'paddle.fluid.executor', 'paddle.fluid.parallel_executor', 'paddle.fluid.backward',
        'paddle.fluid.layer_helper', 'paddle.fluid.initializer', 'paddle.fluid.clip', 'paddle.fluid.regularizer',
        'paddle.fluid.param_attr', 'paddle.fluid.unique_name', 'paddle.fluid.data_feeder', 'paddle.fluid.reader',
        'paddle.fluid.data', 'paddle.fluid.compiler', 'paddle.fluid.io', 'paddle.fluid.optimizer',
        'paddle.fluid.metrics', 'paddle.fluid.nets', 'paddle.fluid.average', 'paddle.fluid.input',
        'paddle.fluid.core'],
    'paddle-2.6.2.json': ['paddle.io', 'paddle.static', 'paddle.static.nn', 'paddle.regularizer', 'paddle.reader',
                          'paddle.framework', 'paddle.linalg', 'paddle.fft', 'paddle.signal'],
}


def main(out_name: str) -> None:
    names = {}
    for path in MODULES[out_name]:
        module = importlib.import_module(path)
        names[path] = sorted({n for n in getattr(module, '__all__', []) if isinstance(n, str)})
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), out_name), 'w') as f:
        json.dump(names, f, indent=0, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main(sys.argv[1])
