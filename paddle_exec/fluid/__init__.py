"""paddle_exec.fluid: the Paddle 1.x `fluid` API on the shared builders and executors.

    import paddle_exec.fluid as fluid      # instead of: import paddle.fluid as fluid
"""
from .. import backward, clip, initializer, regularizer
from ..backward import append_backward, gradients
from ..executor import Executor
from ..executor.parallel import *
from ..executor.strategy import *
from ..framework import (
                         CPUPlace,
                         CUDAPinnedPlace,
                         CUDAPlace,
                         LoDTensor,
                         Program,
                         Scope,
                         Variable,
                         cpu_places,
                         cuda_places,
                         default_main_program,
                         default_startup_program,
                         global_scope,
                         is_compiled_with_cuda,
                         name_scope,
                         program_guard,
                         scope_guard,
                         unique_name,
)
from ..framework import framework_compat as framework
from ..layers.io import data_v2 as data
from ..param_attr import ParamAttr, WeightNormParamAttr
from ..static.extras import *
from ..static.io import *
from . import average, compiler, core, io, layers, metrics, nets, optimizer
from .input import embedding, one_hot
from .lod_tensor import create_lod_tensor, create_random_int_lodtensor
