"""Top-level conveniences of `paddle` that no op family owns: paddle.seed, and the re-exports paddle.set_device /
get_device (paddle.device), paddle.batch, paddle.reader, paddle.metric, paddle.io and paddle.topk.

paddle.seed(n) seeds the default CPU generator, as Paddle 2.x does. The contract for random ops: a kernel factory
takes its seed from `op_seed(seed_attr)`. A nonzero attribute (the op's own seed or Program.random_seed) always
wins; with 0, after paddle.seed the op gets the next seed drawn from the generator, so a program built and run
after the same paddle.seed(n) gets the same random values; before any paddle.seed it gets None (fresh OS entropy,
Paddle's std::random_device). The draw happens when the op's kernel is made (once per plan), in program order.
(ops/tensor.py's random initialisers and ops/nn.py's dropout are to call it; tests/api/test_utils_compat.py
checks the initialisers once they do.)

    import paddle_exec as paddle
    paddle.seed(2023)
    paddle.set_device('cpu')          # 'gpu' raises: paddle_exec runs on CPU places only
"""
from __future__ import annotations

import threading

import numpy as np

from . import device, io, metric, reader
from .device import get_device, set_device
from .reader.decorator import batch
from .static.metric import topk

__all__ = ['seed', 'set_device', 'get_device', 'batch', 'reader', 'metric', 'topk', 'device', 'io']

_MAX_OP_SEED = 2 ** 31 - 1


class Generator:
    """Paddle's default CPU generator: a seed, and a stream of per-op seeds drawn from it."""

    def __init__(self):
        self._lock = threading.Lock()       # plans may be built on several threads at once
        self._initial_seed: int | None = None
        self._stream: np.random.Generator | None = None

    def manual_seed(self, seed: int) -> Generator:
        with self._lock:
            self._initial_seed = int(seed)
            # numpy wants a non-negative seed; Paddle takes the seed as uint64
            self._stream = np.random.default_rng(int(seed) % 2 ** 64)
        return self

    def seed(self) -> int:
        """Seeds the generator from OS entropy and returns that seed."""
        new_seed = int(np.random.SeedSequence().entropy % 2 ** 63)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int | None:
        """The seed last given, None while the generator was never seeded."""
        return self._initial_seed

    @property
    def is_seeded(self) -> bool:
        return self._stream is not None

    def next_op_seed(self) -> int | None:
        """A seed in [1, 2**31 - 1] for the next random op; None while the generator was never seeded."""
        with self._lock:
            if self._stream is None:
                return None
            return int(self._stream.integers(1, _MAX_OP_SEED, endpoint=True))


_default_cpu_generator = Generator()


def default_cpu_generator() -> Generator:
    return _default_cpu_generator


def seed(seed: int) -> Generator:
    """paddle.seed: seeds the default generator that random ops without a seed of their own draw from."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError('paddle.seed expects an integer seed, but received %s' % type(seed).__name__)
    return _default_cpu_generator.manual_seed(int(seed))


def op_seed(seed_attr: int) -> int | None:
    """The seed a random op uses: its nonzero `seed` attribute; else the next seed of the default generator after
    paddle.seed; else None (fresh entropy)."""
    if seed_attr:
        return int(seed_attr)
    return _default_cpu_generator.next_op_seed()
