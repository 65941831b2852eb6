"""Sampling ops: bernoulli (X -> Out, a 0/1 draw with probability x), multinomial (X -> Out; num_samples,
replacement), poisson (X -> Out, rate x), randperm (Out; n, dtype, seed), sampling_id (1.8: X -> Out, one index
per row drawn from its distribution), and the *_batch_size_like random fills of fluid 1.8
(gaussian_random_batch_size_like, uniform_random_batch_size_like: a dim of the output taken from the input), and
random_crop (1.8: X, Seed -> Out, SeedOut; the trailing dims of every instance cropped to `shape` at a random
offset, SeedOut the next seed).

Like the ops of random.py they are stateful and seed once per plan with framework/random.py's `op_seed` (their
`seed` attribute, else paddle.seed's generator, else entropy); the numbers are numpy's, not Paddle's stream, except
sampling_id's, which are Paddle 1.8's (minstd_rand through libstdc++'s uniform_real_distribution, re-seeded every
run as Paddle's kernel is). poisson's gradient is zero (Paddle's poisson_grad); the others have none.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.random import op_seed
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import same_shape_as_x

__all__: list = []


def _rng(spec):
    return np.random.default_rng(op_seed(spec.attr('seed', 0)))


defop('bernoulli', ['X'], ['Out'], stateful=True)
defop('poisson', ['X'], ['Out'], stateful=True, grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
shape_rule('bernoulli')(same_shape_as_x)
shape_rule('poisson')(same_shape_as_x)


@kernel_rule('bernoulli')
def _bernoulli_kernel(spec):
    rng = _rng(spec)

    def run(x):
        if x.size and (np.nanmin(x) < 0 or np.nanmax(x) > 1):
            raise ValueError('The input of bernoulli must be probabilities in [0, 1]')
        return ((rng.random(x.shape) < x).astype(x.dtype),)
    return run


@kernel_rule('poisson')
def _poisson_kernel(spec):
    rng = _rng(spec)
    return lambda x: (rng.poisson(x).astype(x.dtype),)


@kernel_rule('poisson_grad')
def _poisson_grad_kernel(spec):
    return lambda dout: (np.zeros(dout.shape, dout.dtype),)


defop('multinomial', ['X'], ['Out'], {'num_samples': 1, 'replacement': False}, stateful=True)


@shape_rule('multinomial')
def _multinomial_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) not in (1, 2):
        raise ValueError('The number of dimensions of the input probability distribution should be > 0 and <= 2, '
                         'but got %d.' % len(xs))
    ctx.set_output('Out', tuple(xs[:-1]) + (ctx.attr('num_samples'),), VarType.INT64)


@kernel_rule('multinomial')
def _multinomial_kernel(spec):
    rng, n, replacement = _rng(spec), int(spec.attr('num_samples')), bool(spec.attr('replacement'))

    def draw(p):
        p = np.asarray(p, np.float64)
        if (p < 0).any():
            raise ValueError('The input of multinomial distribution should be >= 0, but got %s' % p.min())
        total = p.sum()
        if total <= 0:
            raise ValueError('The sum of one multinomial distribution probability should be > 0, but got %s' % total)
        if not replacement and n > np.count_nonzero(p):
            raise ValueError('When replacement is False, number of samples should be less than non-zero categories')
        return rng.choice(p.size, size=n, replace=replacement, p=p / total)

    def run(x):
        out = draw(x) if x.ndim == 1 else np.stack([draw(row) for row in x])
        return (out.astype(np.int64),)
    return run


defop('randperm', [], ['Out'], {'n': 1, 'dtype': int(VarType.INT64), 'seed': 0}, stateful=True)


@shape_rule('randperm')
def _randperm_shape(ctx):
    ctx.set_output('Out', (ctx.attr('n'),), VarType(int(ctx.attr('dtype'))))


@kernel_rule('randperm')
def _randperm_kernel(spec):
    rng, n, dtype = _rng(spec), int(spec.attr('n')), to_numpy(VarType(int(spec.attr('dtype'))))
    return lambda: (rng.permutation(n).astype(dtype),)


defop('sampling_id', ['X'], ['Out'], {'min': 0.0, 'max': 1.0, 'seed': 0}, stateful=True)


@shape_rule('sampling_id')
def _sampling_id_shape(ctx):
    ctx.set_output('Out', (ctx.in_shape('X')[0],), VarType.INT64)


_MINSTD_M = 2147483647


def minstd_uniform(seed: int, count: int, low: float, high: float, dtype) -> np.ndarray:
    """`count` draws of C++'s uniform_real_distribution<T>(low, high) over std::minstd_rand seeded by `seed`, as
    libstdc++ computes them (generate_canonical: one engine call per float, two per double)."""
    state = seed % _MINSTD_M or 1
    calls = 1 if np.dtype(dtype) == np.float32 else 2
    t = np.dtype(dtype).type
    span = t(_MINSTD_M - 1)        # engine max - min + 1
    out = np.empty(count, dtype)
    for i in range(count):
        total, scale = t(0), t(1)
        for _ in range(calls):
            state = state * 48271 % _MINSTD_M
            total = t(total + t(state - 1) * scale)
            scale = t(scale * span)
        u = t(total / scale)
        if u >= 1:
            u = np.nextafter(t(1), t(0))
        out[i] = t(u * t(t(high) - t(low))) + t(low)
    return out


@kernel_rule('sampling_id')
def _sampling_id_kernel(spec):
    # Paddle 1.8's draws: minstd_rand seeded by the op's seed, re-seeded on every run as Paddle's kernel does
    seed = op_seed(int(spec.attr('seed')))
    lo, hi = spec.attr('min'), spec.attr('max')

    def run(x):
        run_seed = seed if seed is not None else int(np.random.SeedSequence().entropy % _MINSTD_M)
        r = minstd_uniform(run_seed, x.shape[0], lo, hi, x.dtype)
        # one uniform draw r per row, the first index whose running sum of probabilities exceeds r
        cumulative = np.cumsum(x, axis=1)
        ids = (cumulative <= r[:, None]).sum(axis=1)
        return (np.minimum(ids, x.shape[1] - 1).astype(np.int64),)
    return run


_LIKE = {'shape': [], 'input_dim_idx': 0, 'output_dim_idx': 0, 'dtype': int(VarType.FP32), 'seed': 0}
defop('gaussian_random_batch_size_like', ['Input'], ['Out'], {**_LIKE, 'mean': 0.0, 'std': 1.0}, stateful=True)
defop('uniform_random_batch_size_like', ['Input'], ['Out'],
      {**_LIKE, 'min': -1.0, 'max': 1.0, 'diag_num': 0, 'diag_step': 0, 'diag_val': 1.0}, stateful=True)


def _like_shape(attr, in_shape) -> tuple:
    shape = list(attr('shape'))
    shape[attr('output_dim_idx')] = in_shape[attr('input_dim_idx')]
    return tuple(shape)


def _like_shape_rule(ctx):
    ctx.set_output('Out', _like_shape(ctx.attr, ctx.in_shape('Input')), VarType(int(ctx.attr('dtype'))))


shape_rule('gaussian_random_batch_size_like')(_like_shape_rule)
shape_rule('uniform_random_batch_size_like')(_like_shape_rule)


@kernel_rule('gaussian_random_batch_size_like')
def _gaussian_like_kernel(spec):
    rng, dtype = _rng(spec), to_numpy(VarType(int(spec.attr('dtype'))))
    mean, std = float(spec.attr('mean')), float(spec.attr('std'))
    return lambda x: (rng.normal(mean, std, _like_shape(spec.attr, x.shape)).astype(dtype),)


@kernel_rule('uniform_random_batch_size_like')
def _uniform_like_kernel(spec):
    rng, dtype = _rng(spec), to_numpy(VarType(int(spec.attr('dtype'))))
    lo, hi = float(spec.attr('min')), float(spec.attr('max'))
    diag_num, diag_step, diag_val = spec.attr('diag_num'), spec.attr('diag_step'), spec.attr('diag_val')

    def run(x):
        out = rng.uniform(lo, hi, _like_shape(spec.attr, x.shape)).astype(dtype)
        flat = out.reshape(-1)
        for i in range(diag_num):
            flat[i * diag_step + i] = diag_val
        return (out,)
    return run


# --- random_crop ----------------------------------------------------------------------------------------------

defop('random_crop', ['X', 'Seed'], ['Out', 'SeedOut'], {'shape': [], 'startup_seed': 0}, stateful=True)


@shape_rule('random_crop')
def _random_crop_shape(ctx):
    x, shape = ctx.in_shape('X'), [int(d) for d in ctx.attr('shape')]
    if len(shape) > len(x):
        raise ValueError("operator 'random_crop': the rank of Attr(shape) %s is larger than Input(X)'s %s"
                         % (shape, list(x)))
    lead = len(x) - len(shape)
    for size, full in zip(shape, x[lead:]):
        if full >= 0 and size > full:
            raise ValueError("operator 'random_crop': Attr(shape) %s is larger than Input(X)'s trailing dims %s"
                             % (shape, list(x[lead:])))
    ctx.set_output('Out', tuple(x[:lead]) + tuple(shape), ctx.in_dtype('X'))
    ctx.set_output('SeedOut', (1,), ctx.in_dtype('Seed'))


@kernel_rule('random_crop')
def _random_crop_kernel(spec):
    shape = [int(d) for d in spec.attr('shape')]
    startup_seed = int(spec.attr('startup_seed'))

    def run(x, seed):
        seed_value = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and np.asarray(seed).size else 0
        rng = np.random.default_rng((seed_value or startup_seed) % 2 ** 63)
        lead = x.ndim - len(shape)
        instances = x.reshape((-1,) + x.shape[lead:])
        out = np.empty((instances.shape[0],) + tuple(shape), x.dtype)
        for i in range(instances.shape[0]):
            starts = [int(rng.integers(0, full - size + 1)) for size, full in zip(shape, x.shape[lead:])]
            out[i] = instances[i][tuple(slice(s, s + n) for s, n in zip(starts, shape))]
        next_seed = np.array([int(rng.integers(1, 2 ** 62))], np.int64)
        return out.reshape(x.shape[:lead] + tuple(shape)), next_seed
    return run
