"""paddle_exec.fluid: the Paddle 1.x `fluid` API on the shared builders and executors.

    import paddle_exec.fluid as fluid      # instead of: import paddle.fluid as fluid

Laid out as Paddle 1.8's package: each module path (fluid.framework, fluid.executor, fluid.layers.nn, fluid.io,
fluid.optimizer, ...) is a small module that maps Paddle's names onto the one implementation elsewhere in
paddle_exec, and this namespace takes its names from those modules.
"""
from ..executor.strategy import ExecutorPolicy
from ..static.extras import InputSpec, create_global_var, create_parameter, py_func
from ..static.io import *
from . import (
    average,
    backward,
    clip,
    compiler,
    contrib,
    core,
    data_feeder,
    executor,
    framework,
    incubate,
    initializer,
    io,
    layer_helper,
    layers,
    metrics,
    nets,
    optimizer,
    parallel_executor,
    param_attr,
    reader,
    regularizer,
    unique_name,
)
from .backward import append_backward, gradients
from .compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from .core import CPUPlace, CUDAPinnedPlace, CUDAPlace, LoDTensor, Scope
from .data import data
from .data_feeder import DataFeeder
from .executor import Executor, global_scope, scope_guard
from .framework import (
    Program,
    Variable,
    cpu_places,
    cuda_places,
    default_main_program,
    default_startup_program,
    device_guard,
    is_compiled_with_cuda,
    name_scope,
    program_guard,
)
from .input import embedding, one_hot
from .lod_tensor import create_lod_tensor, create_random_int_lodtensor
from .parallel_executor import ParallelExecutor
from .param_attr import ParamAttr, WeightNormParamAttr
