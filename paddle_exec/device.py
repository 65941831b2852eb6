"""paddle.device: paddle_exec runs on CPU places only, so 'cpu' is the one device; asking for a GPU (or another
accelerator) raises ValueError as Paddle does when it is not compiled for it.

    paddle.set_device('cpu')          # -> CPUPlace
    paddle.device.get_device()        # 'cpu'

The `is_compiled_with_*` questions answer False and the device lists are empty, as a CPU-only build of Paddle 2.6
answers them; XPU/IPU places, streams and events are declined (paddle_exec/_declined.py says why).
"""
from __future__ import annotations

import re

from ._declined import declined_getattr
from .framework import CPUPlace, is_compiled_with_cuda

__all__ = ['get_all_custom_device_type', 'get_all_device_type', 'get_available_custom_device', 'get_available_device',
           'get_cudnn_version', 'get_device', 'is_compiled_with_cinn', 'is_compiled_with_cuda',
           'is_compiled_with_custom_device', 'is_compiled_with_distribute', 'is_compiled_with_ipu',
           'is_compiled_with_rocm', 'is_compiled_with_xpu', 'set_device', 'synchronize']

__getattr__ = declined_getattr(__name__)      # XPUPlace, IPUPlace, streams and events: see paddle_exec/_declined.py


def set_device(device: str) -> CPUPlace:
    """paddle.set_device: 'cpu' is the only device of paddle_exec; a GPU (or other accelerator) name raises
    ValueError as Paddle does when it is not compiled with CUDA. Returns the place."""
    if not isinstance(device, str):
        raise ValueError("The device must be a string which is like 'cpu', 'gpu' or 'gpu:x', but received %r"
                         % (device,))
    lower = device.lower()
    if lower == 'cpu':
        return CPUPlace()
    if lower == 'gpu' or re.fullmatch(r'gpu:\d+', lower):
        raise ValueError("The device should not be '%s', since PaddlePaddle is not compiled with CUDA "
                         "(paddle_exec runs on CPU only)" % device)
    if re.fullmatch(r'(xpu|npu|mlu|ipu)(:\d+)?', lower):
        raise ValueError("The device should not be '%s', since PaddlePaddle is not compiled with %s "
                         "(paddle_exec runs on CPU only)" % (device, lower.split(':')[0].upper()))
    raise ValueError("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', 'xpu', 'xpu:x', 'npu', "
                     "'npu:x', but received '%s'" % device)


def get_device() -> str:
    """paddle.get_device: the current device name, always 'cpu'."""
    return 'cpu'


def get_all_device_type() -> list[str]:
    """The non-CPU device types available: none (Paddle's CPU build answers [] too)."""
    return []


def get_all_custom_device_type() -> list[str]:
    return []


def get_available_device() -> list[str]:
    """Non-CPU devices that can be used: none."""
    return []


def get_available_custom_device() -> list[str]:
    return []


def get_cudnn_version() -> None:
    """None: paddle_exec is not compiled with CUDA (Paddle answers None there too)."""
    return None


def is_compiled_with_cinn() -> bool:
    return False


def is_compiled_with_custom_device(device_type: str) -> bool:
    return False


def is_compiled_with_distribute() -> bool:
    """False: there is no multi-node runtime; data parallelism runs over CPU places in one process."""
    return False


def is_compiled_with_ipu() -> bool:
    return False


def is_compiled_with_rocm() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def synchronize(device=None) -> None:
    """paddle.device.synchronize waits for a GPU or XPU; on a CPU-only build Paddle raises this TypeError (and
    paddle_exec's runs have finished when exe.run returns, so there is nothing to wait for)."""
    raise TypeError('device should be gpu, xpu, (paddle_exec runs on CPU places only: a run has finished when '
                    'exe.run returns, so there is nothing to synchronize)')
