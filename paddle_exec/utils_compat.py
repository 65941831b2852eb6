"""Top-level conveniences of `paddle` that no op family owns: paddle.seed, and the re-exports paddle.set_device /
get_device (paddle.device), paddle.batch, paddle.reader, paddle.metric, paddle.io and paddle.topk.

paddle.set_flags / get_flags are executor/flags.py's (Paddle's global flags).

paddle.seed(n) seeds the default CPU generator, as Paddle 2.x does. The generator and the rule by which random ops
take their seeds (`op_seed`) live in framework/random.py, below the op library that uses them; they are re-exported
here.

    import paddle_exec as paddle
    paddle.seed(2023)
    paddle.set_device('cpu')          # 'gpu' raises: paddle_exec runs on CPU places only
"""
from __future__ import annotations

from . import device, io, metric, reader
from .device import get_device, set_device
from .executor.flags import get_flags, set_flags
from .framework.random import Generator, default_cpu_generator, op_seed, seed  # noqa: F401  (re-exported)
from .reader.decorator import batch
from .static.metric import topk

__all__ = ['seed', 'set_device', 'get_device', 'batch', 'reader', 'metric', 'topk', 'device', 'io', 'set_flags',
           'get_flags']
