"""fluid.framework (Paddle 1.8's module path): Program, Block, Variable, Parameter, Operator, the default programs
and guards, from the IR (paddle_exec/framework/).

`__all__` is the part of 1.8.5's that paddle_exec implements; Block, Operator, Parameter, grad_var_name,
switch_main_program / switch_startup_program and convert_np_dtype_to_dtype_ are module attributes there too.
"""
from .._declined import declined_getattr
from ..executor.flags import fluid_get_flags as get_flags
from ..executor.flags import fluid_set_flags as set_flags
from ..executor.places import cpu_places, cuda_places
from ..framework.dtype import to_var_type as convert_np_dtype_to_dtype_  # noqa: F401  (1.8's name for it)
from ..framework.operator import Operator  # noqa: F401  (1.8 defines these here, outside __all__)
from ..framework.place import is_compiled_with_cuda
from ..framework.program import (  # noqa: F401  (1.8 defines these here, outside __all__)
    Block,
    Program,
    default_main_program,
    default_startup_program,
    name_scope,
    program_guard,
    switch_main_program,
    switch_startup_program,
)
from ..framework.variable import Parameter, Variable, grad_var_name  # noqa: F401  (as above)
from ..static.extras import device_guard
from ..utils.version import FLUID_VERSION, make_require_version

__all__ = ['Program', 'Variable', 'cpu_places', 'cuda_pinned_places', 'cuda_places', 'default_main_program',
           'default_startup_program', 'device_guard', 'get_flags', 'in_dygraph_mode', 'is_compiled_with_cuda',
           'name_scope', 'program_guard', 'require_version', 'set_flags']

__getattr__ = declined_getattr(__name__)      # ComplexVariable, load_op_library: paddle_exec/_declined.py

require_version = make_require_version(FLUID_VERSION)
require_version.__doc__ = 'fluid.require_version: checks against 1.8.5, the fluid surface paddle_exec implements.'


def cuda_pinned_places(device_count=None):
    """As Paddle 1.8 built without CUDA: there are no CUDA pinned places (use cpu_places())."""
    raise RuntimeError('paddle_exec runs on the CPU only: there are no CUDA pinned places; use cpu_places()')


def in_dygraph_mode() -> bool:
    """paddle_exec builds static graphs only."""
    return False


_non_static_mode = in_dygraph_mode
