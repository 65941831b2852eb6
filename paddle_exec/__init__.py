"""paddle_exec: Paddle's static-graph training stack (Program IR, Executor, ParallelExecutor, ExecutionStrategy)
on numpy and numba.

    import paddle_exec as paddle              # instead of: import paddle
    import paddle_exec.fluid as fluid         # instead of: import paddle.fluid as fluid
"""
from . import executor  # noqa: I001  (first: executor/config.py reads the environment and sets the kernels' mode)
from . import ops as _ops  # registers every op
from . import framework, static, nn, optimizer, regularizer, fluid, dataset, profiler, distributed
from . import linalg, fft, signal
from .framework import CPUPlace, CUDAPlace, is_compiled_with_cuda
from .framework.dtype import VarType as dtype
from .layers.creation import create_parameter
from .param_attr import ParamAttr
from .static.pickled_state import load, save
from .settings import *
from .tensor import *
from ._declined import declined_getattr as _declined_getattr
from .utils_compat import *
from . import hapi, callbacks
from .hapi import Model, flops, summary

__version__ = '0.1.0'

bool = dtype.BOOL
int8, uint8, int16, int32, int64 = dtype.INT8, dtype.UINT8, dtype.INT16, dtype.INT32, dtype.INT64
float16, float32, float64 = dtype.FP16, dtype.FP32, dtype.FP64
# bfloat16 names Paddle's dtype (no numpy equivalent: casting to it raises); complex64 / complex128 are numpy's
bfloat16, complex64, complex128 = dtype.BF16, dtype.COMPLEX64, dtype.COMPLEX128


def enable_static() -> None:
    """Static mode is the only mode of paddle_exec: a no-op."""


def disable_static(place=None) -> None:
    raise RuntimeError('paddle_exec runs static graphs only: dynamic (dygraph) mode is not available. '
                       'Build a Program (paddle.static) and run it with an Executor or ParallelExecutor.')


def in_dynamic_mode():
    return False


__getattr__ = _declined_getattr(__name__)  # declined names say why (_declined.py)
