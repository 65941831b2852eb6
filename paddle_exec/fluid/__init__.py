"""paddle_exec.fluid: the Paddle 1.x `fluid` API on the shared builders and executors.

    import paddle_exec.fluid as fluid      # instead of: import paddle.fluid as fluid

Laid out as Paddle 1.8's package: each module path (fluid.framework, fluid.executor, fluid.layers.nn, fluid.io,
fluid.optimizer, ...) is a small module that maps Paddle's names onto the one implementation elsewhere in
paddle_exec, and this namespace takes its names from those modules.
"""
from .._declined import declined_getattr
from ..executor.strategy import ExecutorPolicy
from ..static.extras import InputSpec, create_global_var, create_parameter, py_func
from ..static.io import *
from . import (
    annotations,
    average,
    backward,
    clip,
    communicator,
    compiler,
    contrib,
    core,
    data_feed_desc,
    data_feeder,
    dataloader,
    dataset,
    debugger,
    default_scope_funcs,
    device_worker,
    distribute_lookup_table,
    dygraph_utils,
    evaluator,
    executor,
    framework,
    graphviz,
    incubate,
    initializer,
    install_check,
    io,
    layer_helper,
    layer_helper_base,
    layers,
    lod_tensor,
    log_helper,
    metrics,
    multiprocess_utils,
    net_drawer,
    nets,
    op,
    optimizer,
    parallel_executor,
    param_attr,
    profiler,
    reader,
    regularizer,
    trainer_desc,
    trainer_factory,
    transpiler,
    unique_name,
    wrapped_decorator,
)
from .backward import append_backward, gradients
from .compiler import BuildStrategy, CompiledProgram, ExecutionStrategy
from .core import CPUPlace, CUDAPinnedPlace, CUDAPlace, LoDTensor, Scope
from .core import LoDTensor as Tensor
from .data import data
from .data_feeder import DataFeeder
from .dataset import DatasetFactory, InMemoryDataset, QueueDataset
from .executor import Executor, global_scope, scope_guard
from .framework import (
    Program,
    Variable,
    cpu_places,
    cuda_pinned_places,
    cuda_places,
    default_main_program,
    default_startup_program,
    device_guard,
    get_flags,
    in_dygraph_mode,
    is_compiled_with_cuda,
    name_scope,
    program_guard,
    require_version,
    set_flags,
)
from .input import embedding, one_hot
from .layers import learning_rate_scheduler as learning_rate_decay
from .lod_tensor import create_lod_tensor, create_random_int_lodtensor
from .parallel_executor import ParallelExecutor
from .param_attr import ParamAttr, WeightNormParamAttr
from .transpiler import memory_optimize, release_memory

# ComplexVariable, VarBase, dygraph, enable_dygraph, the trainers and the transpiler are declined
# (paddle_exec/_declined.py says why and what to use instead)
__getattr__ = declined_getattr(__name__)


def disable_dygraph() -> None:
    """Static mode is the only mode of paddle_exec: leaving dygraph mode is a no-op."""


disable_imperative = disable_dygraph
