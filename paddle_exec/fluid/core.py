"""fluid.core: the names scripts reach into Paddle's C++ core for."""
from ..executor.config import cpu_place_count as _cpu_place_count
from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet, EOFException
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda
from ..framework.scope import LoDTensor, Scope, SelectedRows

__all__ = ['CPUPlace', 'CUDAPinnedPlace', 'CUDAPlace', 'EnforceNotMet', 'EOFException', 'LoDTensor', 'Scope',
           'SelectedRows', 'VarDesc', 'VarType', 'get_cpu_device_count', 'is_compiled_with_cuda']


class VarDesc:
    VarType = VarType


def get_cpu_device_count() -> int:
    return _cpu_place_count()
