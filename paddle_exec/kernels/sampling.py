"""The class samplers of Paddle's nce and sample_logits ops, drawing the numbers Paddle's C++ draws.

Paddle 1.8's `math::Sampler`s use `std::mt19937_64` seeded with the op's `seed` attribute (0: std::random_device;
the custom-distribution sampler uses the 32-bit `std::mt19937`, as measured against paddlepaddle 1.8.5),
`std::uniform_int_distribution<int>` (libstdc++'s downscaling: draws at or above `range * floor(2^w-1 / range)`
are rejected, the rest divided by that floor) and `std::uniform_real_distribution<double>(0, 1)` (64-bit engine:
one draw converted to double and divided by 2^64; 32-bit engine: two draws, (a + b * 2^32) / 2^64). On top of
them:

- UniformSampler(range): integers in [0, range], each with probability 1 / (range + 1);
- LogUniformSampler(range): `int64(exp(u * log(range + 1))) - 1` modulo range, probability
  `log((v + 2) / (v + 1)) / log(range + 1)` (Zipf-like: small ids are likely);
- CustomSampler(range, probs, alias, alias_probs): Walker's alias method with the tables fluid.layers.nce builds
  in Python: an index uniform in [0, range], then a uniform real; above alias_probs[index] the alias is taken.
  Probability(v) = probs[v].

Probabilities are returned as float32, as Paddle's `float Probability(int64_t)`. The samplers are made afresh by
every run of an op (as Paddle's kernels do), so a fixed seed draws the same classes at every run.
"""
import math

import numpy as np

from .jit import kernel_jit

__all__ = ['Mt19937_64', 'Mt19937', 'UniformSampler', 'LogUniformSampler', 'CustomSampler', 'make_sampler']

_jit = kernel_jit()

_NN, _MM = 312, 156
_MATRIX_A = np.uint64(0xB5026F5AA96619E9)
_UPPER = np.uint64(0xFFFFFFFF80000000)
_LOWER = np.uint64(0x7FFFFFFF)


@_jit
def _mt_seed(state, seed):
    state[0] = np.uint64(seed)
    for i in range(1, _NN):
        prev = state[i - 1]
        state[i] = np.uint64(6364136223846793005) * (prev ^ (prev >> np.uint64(62))) + np.uint64(i)
    state[_NN] = np.uint64(_NN)


@_jit
def _mt_twist(state):
    for i in range(_NN):
        x = (state[i] & _UPPER) | (state[(i + 1) % _NN] & _LOWER)
        y = state[(i + _MM) % _NN] ^ (x >> np.uint64(1))
        if x & np.uint64(1):
            y ^= _MATRIX_A
        state[i] = y
    state[_NN] = np.uint64(0)


@_jit
def _mt_next(state):
    if state[_NN] >= np.uint64(_NN):
        _mt_twist(state)
    x = state[state[_NN]]
    state[_NN] += np.uint64(1)
    x ^= (x >> np.uint64(29)) & np.uint64(0x5555555555555555)
    x ^= (x << np.uint64(17)) & np.uint64(0x71D67FFFEDA60000)
    x ^= (x << np.uint64(37)) & np.uint64(0xFFF7EEE000000000)
    x ^= x >> np.uint64(43)
    return x


@_jit
def _uniform_int(state, high):
    """std::uniform_int_distribution<int>(0, high) on mt19937_64 (libstdc++ downscaling)."""
    span = np.uint64(high) + np.uint64(1)
    scaling = np.uint64(0xFFFFFFFFFFFFFFFF) // span
    past = span * scaling
    while True:
        r = _mt_next(state)
        if r < past:
            return np.int64(r // scaling)


@_jit
def _uniform_real(state):
    """std::uniform_real_distribution<double>(0, 1) on mt19937_64 (generate_canonical, one draw)."""
    u = np.float64(_mt_next(state)) / 18446744073709551616.0
    if u >= 1.0:
        u = 1.0 - 2.0 ** -53
    return u


_N32, _M32 = 624, 397


@_jit
def _mt32_seed(state, seed):
    state[0] = np.uint32(seed)
    for i in range(1, _N32):
        prev = state[i - 1]
        state[i] = np.uint32(np.uint64(1812433253) * np.uint64(prev ^ (prev >> np.uint32(30))) + np.uint64(i))
    state[_N32] = np.uint32(_N32)


@_jit
def _mt32_next(state):
    if state[_N32] >= np.uint32(_N32):
        for i in range(_N32):
            y = (state[i] & np.uint32(0x80000000)) | (state[(i + 1) % _N32] & np.uint32(0x7FFFFFFF))
            v = state[(i + _M32) % _N32] ^ (y >> np.uint32(1))
            if y & np.uint32(1):
                v ^= np.uint32(0x9908B0DF)
            state[i] = v
        state[_N32] = np.uint32(0)
    y = state[state[_N32]]
    state[_N32] += np.uint32(1)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@_jit
def _uniform_int32(state, high):
    """std::uniform_int_distribution<int>(0, high) on the 32-bit mt19937."""
    span = np.uint64(high) + np.uint64(1)
    scaling = np.uint64(0xFFFFFFFF) // span
    past = span * scaling
    while True:
        r = np.uint64(_mt32_next(state))
        if r < past:
            return np.int64(r // scaling)


@_jit
def _uniform_real32(state):
    """std::uniform_real_distribution<double>(0, 1) on the 32-bit mt19937 (generate_canonical, two draws)."""
    low = np.float64(_mt32_next(state))
    high = np.float64(_mt32_next(state))
    u = (low + high * 4294967296.0) / 18446744073709551616.0
    if u >= 1.0:
        u = 1.0 - 2.0 ** -53
    return u


class Mt19937:
    """std::mt19937 (the 32-bit Mersenne twister)."""

    def __init__(self, seed: int):
        self.state = np.zeros(_N32 + 1, np.uint32)
        _mt32_seed(self.state, np.uint32(seed & 0xFFFFFFFF))

    def next(self) -> int:
        return int(_mt32_next(self.state))


class Mt19937_64:
    """std::mt19937_64 (state array plus position, advanced by numba kernels)."""

    def __init__(self, seed: int):
        self.state = np.zeros(_NN + 1, np.uint64)
        _mt_seed(self.state, np.uint64(seed & 0xFFFFFFFFFFFFFFFF))

    def next(self) -> int:
        return int(_mt_next(self.state))

    def uniform_int(self, high: int) -> int:
        """std::uniform_int_distribution(0, high) on this engine."""
        return int(_uniform_int(self.state, high))


def _seed_or_device(seed: int) -> int:
    # Paddle's Sampler: seed 0 means std::random_device
    return int(seed) & 0xFFFFFFFF if seed else int(np.random.SeedSequence().entropy & 0xFFFFFFFF)


class UniformSampler:
    def __init__(self, range_: int, seed: int):
        self.range = int(range_)
        self.engine = Mt19937_64(_seed_or_device(seed))
        self._prob = np.float32(1.0 / (self.range + 1))

    def sample(self) -> int:
        return int(_uniform_int(self.engine.state, self.range))

    def probability(self, value: int) -> np.float32:
        return self._prob


class LogUniformSampler:
    def __init__(self, range_: int, seed: int):
        self.range = int(range_)
        self.engine = Mt19937_64(_seed_or_device(seed))
        self.log_range = math.log(self.range + 1)

    def sample(self) -> int:
        value = int(math.exp(float(_uniform_real(self.engine.state)) * self.log_range)) - 1
        return value % self.range

    def probability(self, value: int) -> np.float32:
        return np.float32(math.log((value + 2.0) / (value + 1.0)) / self.log_range)


class CustomSampler:
    def __init__(self, range_: int, probs, alias, alias_probs, seed: int):
        self.range = int(range_)
        self.engine = Mt19937(_seed_or_device(seed))
        self.probs = np.asarray(probs, np.float32).reshape(-1)
        self.alias = np.asarray(alias, np.int64).reshape(-1)
        self.alias_probs = np.asarray(alias_probs, np.float32).reshape(-1)

    def sample(self) -> int:
        index = int(_uniform_int32(self.engine.state, self.range))
        p = float(_uniform_real32(self.engine.state))
        if p > self.alias_probs[index] and self.alias[index] != -1:
            return int(self.alias[index])
        return index

    def probability(self, value: int) -> np.float32:
        return self.probs[value]


def make_sampler(kind: int, range_: int, seed: int, custom=None):
    """Paddle's nce `sampler` attribute: 0 uniform, 1 log-uniform, 2 custom (custom = (probs, alias,
    alias_probs))."""
    if kind == 0:
        return UniformSampler(range_, seed)
    if kind == 1:
        return LogUniformSampler(range_, seed)
    if kind == 2:
        probs, alias, alias_probs = custom
        return CustomSampler(range_, probs, alias, alias_probs, seed)
    raise ValueError('Unsupported SamplerType %r' % (kind,))
