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
        'paddle.fluid.core', 'paddle.fluid', 'paddle.fluid.annotations', 'paddle.fluid.communicator',
        'paddle.fluid.contrib', 'paddle.fluid.contrib.decoder', 'paddle.fluid.contrib.decoder.beam_search_decoder',
        'paddle.fluid.contrib.extend_optimizer',
        'paddle.fluid.contrib.extend_optimizer.extend_optimizer_with_weight_decay', 'paddle.fluid.contrib.layers',
        'paddle.fluid.contrib.layers.metric_op', 'paddle.fluid.contrib.layers.nn',
        'paddle.fluid.contrib.layers.rnn_impl', 'paddle.fluid.contrib.memory_usage_calc',
        'paddle.fluid.contrib.model_stat', 'paddle.fluid.contrib.op_frequence', 'paddle.fluid.contrib.reader',
        'paddle.fluid.contrib.reader.distributed_reader', 'paddle.fluid.data_feed_desc', 'paddle.fluid.dataloader',
        'paddle.fluid.dataloader.batch_sampler', 'paddle.fluid.dataloader.dataloader_iter',
        'paddle.fluid.dataloader.dataset', 'paddle.fluid.dataset', 'paddle.fluid.debugger',
        'paddle.fluid.default_scope_funcs', 'paddle.fluid.device_worker', 'paddle.fluid.distribute_lookup_table',
        'paddle.fluid.dygraph_utils', 'paddle.fluid.evaluator', 'paddle.fluid.graphviz', 'paddle.fluid.incubate',
        'paddle.fluid.incubate.fleet', 'paddle.fluid.incubate.fleet.base',
        'paddle.fluid.incubate.fleet.base.fleet_base', 'paddle.fluid.incubate.fleet.base.mode',
        'paddle.fluid.incubate.fleet.base.role_maker', 'paddle.fluid.incubate.fleet.collective',
        'paddle.fluid.incubate.fleet.utils', 'paddle.fluid.incubate.fleet.utils.fleet_barrier_util',
        'paddle.fluid.incubate.fleet.utils.fleet_util', 'paddle.fluid.incubate.fleet.utils.hdfs',
        'paddle.fluid.incubate.fleet.utils.utils', 'paddle.fluid.install_check', 'paddle.fluid.layer_helper_base',
        'paddle.fluid.layers.collective', 'paddle.fluid.layers.device', 'paddle.fluid.layers.layer_function_generator',
        'paddle.fluid.layers.math_op_patch', 'paddle.fluid.layers.utils', 'paddle.fluid.log_helper',
        'paddle.fluid.multiprocess_utils', 'paddle.fluid.net_drawer', 'paddle.fluid.op', 'paddle.fluid.trainer_desc',
        'paddle.fluid.trainer_factory', 'paddle.fluid.transpiler', 'paddle.fluid.transpiler.collective',
        'paddle.fluid.transpiler.distribute_transpiler', 'paddle.fluid.transpiler.geo_sgd_transpiler',
        'paddle.fluid.transpiler.memory_optimization_transpiler', 'paddle.fluid.transpiler.ps_dispatcher',
        'paddle.fluid.wrapped_decorator'],
    'paddle-2.6.2.json': ['paddle', 'paddle.io', 'paddle.static', 'paddle.static.nn', 'paddle.regularizer',
                          'paddle.reader',
                          'paddle.framework', 'paddle.device', 'paddle.inference', 'paddle.utils', 'paddle.linalg',
                          'paddle.fft', 'paddle.signal', 'paddle.nn.functional', 'paddle.nn.utils',
                          'paddle.optimizer'],
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
