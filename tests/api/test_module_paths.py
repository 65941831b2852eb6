"""Paddle's module paths (fluid.layers.nn, fluid.framework, fluid.executor, paddle.io, ...) exist and only map names:
every name in a module's `__all__` resolves, is one of real Paddle's names for that module (recorded by
paddle_names/record.py), and is the very object the namespace above it exposes (one implementation, no copy);
each fluid.layers submodule lists every name of its Paddle `__all__` that fluid.layers implements."""
import importlib
import json
import os
import types

import pytest

import paddle_exec
import paddle_exec.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
PADDLE_NAMES = {}
for _file in ('fluid-1.8.5.json', 'paddle-2.6.2.json'):
    with open(os.path.join(HERE, 'paddle_names', _file)) as _f:
        PADDLE_NAMES.update(json.load(_f))

FLUID_LAYERS = ['nn', 'tensor', 'control_flow', 'io', 'ops', 'loss', 'metric_op', 'learning_rate_scheduler',
                'detection', 'rnn', 'sequence_lod', 'distributions']
FLUID_MODULES = ['framework', 'executor', 'parallel_executor', 'backward', 'layer_helper', 'initializer', 'clip',
                 'regularizer', 'param_attr', 'unique_name', 'data_feeder', 'reader', 'data', 'compiler']
# issue 12: the remaining fluid 1.8 module paths and the 2.x utility modules
FLUID_MORE = ['annotations', 'communicator', 'contrib', 'contrib.decoder', 'contrib.decoder.beam_search_decoder',
              'contrib.extend_optimizer', 'contrib.extend_optimizer.extend_optimizer_with_weight_decay',
              'contrib.layers', 'contrib.layers.metric_op', 'contrib.layers.nn', 'contrib.layers.rnn_impl',
              'contrib.memory_usage_calc', 'contrib.model_stat', 'contrib.op_frequence', 'contrib.reader',
              'contrib.reader.distributed_reader', 'data_feed_desc', 'dataloader', 'dataloader.batch_sampler',
              'dataloader.dataloader_iter', 'dataloader.dataset', 'dataset', 'debugger', 'default_scope_funcs',
              'device_worker', 'distribute_lookup_table', 'dygraph_utils', 'graphviz', 'incubate', 'incubate.fleet',
              'incubate.fleet.base', 'incubate.fleet.base.fleet_base', 'incubate.fleet.base.mode',
              'incubate.fleet.base.role_maker', 'incubate.fleet.collective', 'incubate.fleet.utils',
              'incubate.fleet.utils.fleet_barrier_util', 'incubate.fleet.utils.fleet_util',
              'incubate.fleet.utils.hdfs', 'incubate.fleet.utils.utils', 'install_check', 'layer_helper_base',
              'layers.collective', 'layers.device', 'layers.layer_function_generator', 'layers.math_op_patch',
              'layers.utils',
              'log_helper', 'multiprocess_utils', 'net_drawer', 'op', 'trainer_desc', 'trainer_factory',
              'transpiler', 'transpiler.collective', 'transpiler.distribute_transpiler',
              'transpiler.geo_sgd_transpiler', 'transpiler.memory_optimization_transpiler', 'transpiler.ps_dispatcher',
              'wrapped_decorator']
CREATED = (['paddle.fluid.layers.' + m for m in FLUID_LAYERS] + ['paddle.fluid.' + m for m in FLUID_MODULES]
           + ['paddle.fluid.' + m for m in FLUID_MORE]
           + ['paddle.io', 'paddle.static.nn', 'paddle.device', 'paddle.inference', 'paddle.utils', 'paddle.linalg',
              'paddle.fft', 'paddle.signal'])


def _ours(paddle_path: str):
    return importlib.import_module('paddle_exec' + paddle_path[len('paddle'):])


@pytest.mark.parametrize('path', CREATED)
def test_module_path_exists_and_its_all_resolves_to_paddle_names(path):
    module = _ours(path)
    names = module.__all__
    assert len(names) == len(set(names)), path
    missing = [n for n in names if not hasattr(module, n)]
    assert not missing, (path, missing)
    foreign = sorted(set(names) - set(PADDLE_NAMES[path]))
    assert not foreign, (path, foreign)


def _implemented_by_fluid_layers(name: str) -> bool:
    value = getattr(fluid.layers, name, None)
    return value is not None and not isinstance(value, types.ModuleType)  # fluid.layers.rnn is the submodule


@pytest.mark.parametrize('sub', FLUID_LAYERS)
def test_fluid_layers_submodule_lists_every_implemented_name(sub):
    module = importlib.import_module('paddle_exec.fluid.layers.' + sub)
    implemented = {n for n in PADDLE_NAMES['paddle.fluid.layers.' + sub] if _implemented_by_fluid_layers(n)}
    assert implemented == set(module.__all__), sub
    for name in module.__all__:
        assert getattr(module, name) is getattr(fluid.layers, name), (sub, name)


def test_fluid_layers_is_the_union_of_its_submodules():
    union = set()
    for sub in FLUID_LAYERS:
        union |= set(importlib.import_module('paddle_exec.fluid.layers.' + sub).__all__)
    assert union <= set(fluid.layers.__all__)
    assert all(hasattr(fluid.layers, n) for n in fluid.layers.__all__)
    # the control-flow building blocks 1.8 keeps outside __all__ stay reachable, from the same implementation
    from paddle_exec.fluid.layers import control_flow
    assert fluid.layers.select_input is control_flow.select_input
    assert fluid.layers.ConditionalBlock is control_flow.ConditionalBlock


def test_fluid_names_come_from_their_module_paths():
    from paddle_exec.fluid import backward, executor, framework, initializer, layer_helper, unique_name
    assert fluid.Executor is executor.Executor is paddle_exec.static.Executor
    assert fluid.global_scope is executor.global_scope
    assert fluid.Program is framework.Program
    assert framework.Block is type(fluid.default_main_program().global_block())
    assert fluid.append_backward is backward.append_backward is paddle_exec.static.append_backward
    assert layer_helper.LayerHelper.__module__ == 'paddle_exec.layers.helper'
    assert fluid.initializer is initializer and initializer.Constant is initializer.ConstantInitializer
    assert fluid.unique_name is unique_name and fluid.framework is framework and fluid.backward is backward
    assert not framework.in_dygraph_mode()


def test_unique_name_module_shares_the_generator_state():
    from paddle_exec.framework import unique_name as impl
    with fluid.unique_name.guard():
        first = fluid.unique_name.generate('fc')
        assert impl.generate('fc') == 'fc_1'
    assert first == 'fc_0'


def test_fluid_data_stays_the_function_after_its_module_is_imported():
    module = importlib.import_module('paddle_exec.fluid.data')
    assert callable(fluid.data) and fluid.data is module.data
    assert fluid.data is paddle_exec.static.data


def test_paddle_io_and_static_nn_map_existing_builders():
    assert paddle_exec.io.DataLoader is fluid.io.DataLoader
    assert paddle_exec.static.nn.py_func is paddle_exec.static.py_func is fluid.layers.py_func
    assert paddle_exec.static.nn.cond is fluid.layers.cond
