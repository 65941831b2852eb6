"""celu, rrelu and gumbel_softmax ops (kernels/activation_nn.py holds the numerics and Paddle's rules).

rrelu and gumbel_softmax are random: each plan node draws from its own numpy generator seeded once by
framework/random.py's `op_seed` (paddle.seed, else fresh entropy), so two runs draw different noise, as Paddle's.
rrelu keeps the slopes it drew in `Noise` for the gradient.
"""
from __future__ import annotations

import numpy as np

from ..framework.random import op_seed
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import activation_nn as KA
from ._util import same_shape_as_x

defop('celu', ['X'], ['Out'], {'alpha': 1.0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
shape_rule('celu')(same_shape_as_x)


@kernel_rule('celu')
def _celu_kernel(spec):
    alpha = float(spec.attr('alpha'))
    if alpha == 0:
        raise ZeroDivisionError("operator 'celu': alpha cannot be 0")
    return lambda x: (KA.celu_forward(x, alpha),)


@kernel_rule('celu_grad')
def _celu_grad_kernel(spec):
    alpha = float(spec.attr('alpha'))
    return lambda x, dout: (KA.celu_backward(x, dout, alpha),)


defop('rrelu', ['X'], ['Out', 'Noise'], {'lower': 1.0 / 8.0, 'upper': 1.0 / 3.0, 'is_test': False},
      stateful=True, grad=GradSpec(('Noise', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('rrelu')
def _rrelu_shape(ctx):
    lower, upper = float(ctx.attr('lower')), float(ctx.attr('upper'))
    if not 0 <= lower <= upper <= 1:
        raise ValueError("operator 'rrelu': need 0 <= lower <= upper <= 1, got lower %s and upper %s" % (lower, upper))
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))
    ctx.set_output('Noise', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('rrelu')
def _rrelu_kernel(spec):
    lower, upper, is_test = float(spec.attr('lower')), float(spec.attr('upper')), bool(spec.attr('is_test'))
    rng = np.random.default_rng(op_seed(0))
    return lambda x: KA.rrelu_forward(x, lower, upper, is_test, rng)


@kernel_rule('rrelu_grad')
def _rrelu_grad_kernel(spec):
    return lambda noise, dout: (KA.rrelu_backward(noise, dout),)


defop('gumbel_softmax', ['X'], ['Out'], {'temperature': 1.0, 'hard': False, 'axis': -1}, stateful=True,
      grad=GradSpec(('Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('gumbel_softmax')
def _gumbel_shape(ctx):
    xs = ctx.in_shape('X')
    axis = int(ctx.attr('axis'))
    if not -len(xs) <= axis < len(xs):
        raise ValueError("operator 'gumbel_softmax': axis must be in [%d, %d), got %d" % (-len(xs), len(xs), axis))
    if float(ctx.attr('temperature')) <= 0:
        raise ValueError("operator 'gumbel_softmax': temperature must be positive, got %s" % ctx.attr('temperature'))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('gumbel_softmax')
def _gumbel_kernel(spec):
    t, hard, axis = float(spec.attr('temperature')), bool(spec.attr('hard')), int(spec.attr('axis'))
    rng = np.random.default_rng(op_seed(0))
    return lambda x: (KA.gumbel_softmax_forward(x, t, hard, axis, rng),)


@kernel_rule('gumbel_softmax_grad')
def _gumbel_grad_kernel(spec):
    t, axis = float(spec.attr('temperature')), int(spec.attr('axis'))
    return lambda out, dout: (KA.gumbel_softmax_backward(out, dout, t, axis),)
