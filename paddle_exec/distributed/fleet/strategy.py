"""paddle.distributed.fleet.DistributedStrategy: the options of collective training, with Paddle 2.x's defaults.

What paddle_exec uses:
    without_graph_optimization  True (default): the distributed optimizer rewrites the programs as Paddle's
                                RawProgramOptimizer (c_broadcast at startup, c_allreduce_sum per gradient); False: as
                                its GraphExecutionOptimizer (the main program runs as a CompiledProgram with
                                BuildStrategy.num_trainers, the ParallelExecutor reduces)
    fuse_all_reduce_ops         True: gradients all-reduced in fused buckets of
    fuse_grad_size_in_MB        32 megabytes
    build_strategy, execution_strategy, nccl_comm_num, sync_nccl_allreduce, gradient_scale_configs
Options for features paddle_exec does not have (amp, recompute, sharding, pipeline, dgc, ...) can be read and set
to their default; the distributed optimizer refuses a program when one of them is switched on.
"""
from __future__ import annotations

import copy

from ...executor.strategy import BuildStrategy, ExecutionStrategy

__all__ = ['DistributedStrategy', 'UNSUPPORTED']

_SUPPORTED = {
    'without_graph_optimization': True,
    'fuse_all_reduce_ops': True,
    'fuse_grad_size_in_MB': 32,
    'fuse_grad_size_in_num': 8,
    'calc_comm_same_stream': False,
    'nccl_comm_num': 1,
    'sync_nccl_allreduce': True,
    'find_unused_parameters': False,
    'last_comm_group_size_MB': 1.0,
    'split_data': True,
}
# switched-off features: name -> default (False, or an empty configuration)
UNSUPPORTED = ('amp', 'recompute', 'localsgd', 'adaptive_localsgd', 'dgc', 'gradient_merge', 'lars', 'lamb',
               'pipeline', 'sharding', 'tensor_parallel', 'fp16_allreduce', 'use_hierarchical_allreduce',
               'sync_batch_norm', 'elastic', 'auto', 'semi_auto', 'asp', 'qat', 'heter_ccl_mode', 'a_sync',
               'fuse_grad_merge', 'cudnn_exhaustive_search', 'cudnn_batchnorm_spatial_persistent')
_CONFIGS = ('amp_configs', 'recompute_configs', 'localsgd_configs', 'adaptive_localsgd_configs', 'dgc_configs',
            'gradient_merge_configs', 'lars_configs', 'lamb_configs', 'pipeline_configs', 'sharding_configs',
            'tensor_parallel_configs', 'hybrid_configs', 'a_sync_configs', 'qat_configs')


class DistributedStrategy:
    def __init__(self):
        values = dict(_SUPPORTED)
        values.update({name: False for name in UNSUPPORTED})
        values.update({name: {} for name in _CONFIGS})
        values['hierarchical_allreduce_inter_nranks'] = 1
        values['gradient_scale_configs'] = {'scale_strategy': 'avg', 'scale_gradient': False}
        values['conv_workspace_size_limit'] = 512
        object.__setattr__(self, '_values', values)
        object.__setattr__(self, '_build_strategy', BuildStrategy())
        object.__setattr__(self, '_execution_strategy', ExecutionStrategy())

    def __getattr__(self, name):
        values = self.__dict__.get('_values', {})
        if name in values:
            return values[name]
        raise AttributeError("'DistributedStrategy' object has no attribute '%s'" % name)

    def __setattr__(self, name, value):
        if name in ('build_strategy', 'execution_strategy'):
            wanted = BuildStrategy if name == 'build_strategy' else ExecutionStrategy
            if not isinstance(value, wanted):
                raise TypeError('DistributedStrategy.%s must be a %s, got %r' % (name, wanted.__name__, value))
            return object.__setattr__(self, '_' + name, value)
        values = self._values
        if name not in values:
            raise AttributeError("'DistributedStrategy' object has no attribute '%s'" % name)
        default = values[name]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise TypeError('DistributedStrategy.%s must be a dict, got %r' % (name, value))
            values[name] = {**default, **value}
            return
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise TypeError('DistributedStrategy.%s should have value of bool type, got %r' % (name, value))
        elif isinstance(default, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise TypeError('DistributedStrategy.%s should be a number >= 0, got %r' % (name, value))
        values[name] = value

    @property
    def build_strategy(self) -> BuildStrategy:
        return self._build_strategy

    @property
    def execution_strategy(self) -> ExecutionStrategy:
        return self._execution_strategy

    def switched_on_unsupported(self) -> list[str]:
        """The features paddle_exec lacks that this strategy switches on."""
        return [name for name in UNSUPPORTED if self._values[name] and name != 'a_sync']

    def _copy(self) -> DistributedStrategy:
        return copy.deepcopy(self)

    def __repr__(self):
        shown = {k: v for k, v in self._values.items() if k in _SUPPORTED or (k in UNSUPPORTED and v)}
        return 'DistributedStrategy(%s)' % ', '.join('%s=%r' % kv for kv in sorted(shown.items()))
