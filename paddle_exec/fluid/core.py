"""fluid.core: the names scripts reach into Paddle's C++ core for."""
from ..executor import flags as _flags
from ..executor.config import cpu_place_count as _cpu_place_count
from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet, EOFException
from ..framework.place import CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda
from ..framework.scope import LoDTensor, Scope, SelectedRows
from ..inference.legacy import (  # noqa: F401  (1.8's inference API lives in core, outside __all__)
    AnalysisConfig,
    AnalysisPredictor,
    PaddleDType,
    PaddleTensor,
    create_paddle_predictor,
)

__all__ = ['CPUPlace', 'CUDAPinnedPlace', 'CUDAPlace', 'EnforceNotMet', 'EOFException', 'LoDTensor', 'Scope',
           'SelectedRows', 'VarDesc', 'VarType', 'get_cpu_device_count', 'get_cuda_device_count', 'globals',
           'is_compiled_with_cuda']


class VarDesc:
    VarType = VarType


def get_cpu_device_count() -> int:
    return _cpu_place_count()


def get_cuda_device_count() -> int:
    """0: paddle_exec runs on CPU places only."""
    return 0


class _Globals:
    """core.globals(): Paddle 1.8.5's flags as a mapping (fluid.get_flags / set_flags underneath)."""

    def __getitem__(self, name: str):
        return _flags.fluid_get_flags(name)[name]

    def __setitem__(self, name: str, value) -> None:
        _flags.fluid_set_flags({name: value})

    def __contains__(self, name: str) -> bool:
        return name.startswith('FLAGS_') and name[6:] in _flags.FLAGS_1_8

    def is_public(self, name: str) -> bool:
        return name.startswith('FLAGS_') and name[6:] in _flags.FLUID_API_FLAGS

    def keys(self) -> list[str]:
        return sorted('FLAGS_' + name for name in _flags.FLAGS_1_8)


_GLOBALS = _Globals()


def globals() -> _Globals:  # noqa: A001  (Paddle's name)
    return _GLOBALS
