"""Places. Only the CPU exists; the CUDA names are here so scripts import, and fail clearly when used.
`cpu_places()` (it reads CPU_NUM) is executor/places.py's."""
from __future__ import annotations


class CPUPlace:
    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash('CPUPlace')

    def __repr__(self):
        return 'CPUPlace'


class CUDAPlace:
    def __init__(self, device_id: int = 0):
        raise RuntimeError('paddle_exec runs on the CPU only: CUDAPlace(%d) is not available; use CPUPlace()'
                           % device_id)


class CUDAPinnedPlace(CUDAPlace):
    def __init__(self):
        super().__init__(0)


def is_compiled_with_cuda() -> bool:
    return False
