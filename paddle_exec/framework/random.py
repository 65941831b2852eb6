"""Where random ops get their seeds: Paddle 2.x's default CPU generator (`paddle.seed`), and the rule `op_seed`.

Paddle keeps two seeds and this module follows both. Paddle 1.8's `Program.random_seed` reaches ops as their `seed`
attribute (the builders copy it in); Paddle 2.x's `paddle.seed(n)` seeds one process-wide generator, which random
ops without a seed of their own draw from. The generator is the one piece of process state here because it is one
in Paddle (`paddle.framework.random`, `core.default_cpu_generator()`): a script calls `paddle.seed` once, before
it builds its programs.

The rule, `op_seed(seed_attr)`, called by a random op's kernel factory (once per plan, in program order):
- a nonzero attribute (the op's own seed, or Program.random_seed copied in by the builder) always wins;
- else, after paddle.seed, the next seed drawn from the generator, so a program built and run after the same
  paddle.seed(n) gets the same random values;
- else None: fresh OS entropy (Paddle's std::random_device).

Ops import this module from below (framework/), so the op library never reaches up into the public API for it;
`paddle.seed` and friends are re-exported by utils_compat.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ['Generator', 'GeneratorState', 'default_cpu_generator', 'seed', 'op_seed']

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

    def get_state(self) -> GeneratorState:
        """A snapshot of the generator (Paddle's GeneratorState): the seed and the position of the op-seed stream."""
        with self._lock:
            state = None if self._stream is None else self._stream.bit_generator.state
            return GeneratorState(self._initial_seed, state)

    def set_state(self, state: GeneratorState) -> None:
        """Puts the generator back where get_state found it: the same op seeds follow."""
        if not isinstance(state, GeneratorState):
            raise TypeError('set_state expects a GeneratorState (from get_state), got %s' % type(state).__name__)
        with self._lock:
            self._initial_seed = state.initial_seed
            if state.stream_state is None:
                self._stream = None
            else:
                self._stream = np.random.default_rng()
                self._stream.bit_generator.state = state.stream_state

    @property
    def is_seeded(self) -> bool:
        return self._stream is not None

    def next_op_seed(self) -> int | None:
        """A seed in [1, 2**31 - 1] for the next random op; None while the generator was never seeded."""
        with self._lock:
            if self._stream is None:
                return None
            return int(self._stream.integers(1, _MAX_OP_SEED, endpoint=True))


class GeneratorState:
    """What Generator.get_state returns: the initial seed and the numpy bit generator's state."""

    def __init__(self, initial_seed, stream_state):
        self.initial_seed = initial_seed
        self.stream_state = stream_state

    def current_seed(self):
        return self.initial_seed


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
