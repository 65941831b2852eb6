"""Sampling ops: bernoulli (X -> Out, a 0/1 draw with probability x), multinomial (X -> Out; num_samples,
replacement), poisson (X -> Out, rate x), randperm (Out; n, dtype, seed), sampling_id (1.8: X -> Out, one index
per row drawn from its distribution), and the *_batch_size_like random fills of fluid 1.8
(gaussian_random_batch_size_like, uniform_random_batch_size_like: a dim of the output taken from the input).

Like the ops of random.py they are stateful and seed once per plan with framework/random.py's `op_seed` (their
`seed` attribute, else paddle.seed's generator, else entropy); the numbers are numpy's, not Paddle's stream.
poisson's gradient is zero (Paddle's poisson_grad); the others have none.
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


@kernel_rule('sampling_id')
def _sampling_id_kernel(spec):
    rng, lo, hi = _rng(spec), float(spec.attr('min')), float(spec.attr('max'))

    def run(x):
        # Paddle 1.8: one uniform draw r per row, the first index whose running sum of probabilities exceeds r
        r = rng.uniform(lo, hi, x.shape[0])
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
