"""Places as the executors see them: `cpu_places()` counts CPU_NUM (config.py reads it) like Paddle's; there are
no CUDA places."""
from __future__ import annotations

from ..framework.place import CPUPlace
from .config import cpu_place_count

__all__ = ['cpu_places', 'cuda_places']


def cpu_places(device_count: int | None = None) -> list:
    """`device_count` CPU places; None reads CPU_NUM like Paddle (unset: 1, with Paddle's warning)."""
    if device_count is None:
        device_count = cpu_place_count()
    return [CPUPlace() for _ in range(device_count)]


def cuda_places(device_ids=None):
    raise RuntimeError('paddle_exec runs on the CPU only: there are no CUDA places; use cpu_places()')
