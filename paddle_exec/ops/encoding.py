"""Feature-encoding ops of fluid.layers.nn: add_position_encoding (the Transformer's sinusoid) and cvm
(continuous_value_model, CTR show/click features).

    add_position_encoding  X [N, T, D] -> Out = alpha * X + beta * PE: for position t and k < D/2,
                           PE[t, k] = sin(t / 10000^(k / (D/2 - 1))), PE[t, D/2 + k] = cos(same)
                           (10000^0 when D/2 is 1). Grad: alpha * Out@GRAD.
    cvm                    X [N, D], CVM [N, 2] -> Y: use_cvm keeps D columns with the first two turned into
                           log(show + 1), log(click + 1) - log(show + 1); otherwise drops them (D - 2 columns).
                           Paddle's gradient is not the derivative: X@GRAD's first two columns are CVM's values,
                           the others Y@GRAD's.
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule

defop('add_position_encoding', ['X'], ['Out'], {'alpha': 1.0, 'beta': 1.0},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('add_position_encoding')
def _position_shape(ctx):
    shape = ctx.in_shape('X')
    if len(shape) != 3:
        raise ValueError("operator 'add_position_encoding': X must be [batch, max_seq_len, enc_size] (the LoD form "
                         "is not carried), got %s" % list(shape))
    if shape[2] >= 0 and shape[2] % 2:
        raise ValueError("operator 'add_position_encoding': the enc_size of X (%d) must be even" % shape[2])
    ctx.set_output('Out', shape, ctx.in_dtype('X'))


def position_encoding(seq_len: int, enc_size: int, dtype) -> np.ndarray:
    """[seq_len, enc_size]: sines in the first half, cosines in the second."""
    half = enc_size // 2
    pos = np.arange(seq_len, dtype=np.float64)[:, None]
    rates = np.power(10000.0, np.arange(half) / (half - 1)) if half > 1 else np.full(1, 10000.0)
    angles = pos / rates[None, :]
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1).astype(dtype)


@kernel_rule('add_position_encoding')
def _position_kernel(spec):
    alpha, beta = float(spec.attr('alpha')), float(spec.attr('beta'))

    def run(x):
        pe = position_encoding(x.shape[1], x.shape[2], x.dtype)
        return ((x * x.dtype.type(alpha) + pe[None] * x.dtype.type(beta)).astype(x.dtype),)
    return run


@shape_rule('add_position_encoding_grad')
def _position_grad_shape(ctx):
    ctx.set_output('X@GRAD', ctx.in_shape('Out@GRAD'), ctx.in_dtype('Out@GRAD'))


@kernel_rule('add_position_encoding_grad')
def _position_grad_kernel(spec):
    alpha = float(spec.attr('alpha'))
    return lambda dout: ((dout * dout.dtype.type(alpha)).astype(dout.dtype),)


defop('cvm', ['X', 'CVM'], ['Y'], {'use_cvm': True}, grad=GradSpec(('X', 'CVM', 'Y@GRAD'), ('X@GRAD',)))


@shape_rule('cvm')
def _cvm_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) != 2:
        raise ValueError("operator 'cvm': Input(X)'s rank should be 2, got %s" % list(x))
    width = x[1] if ctx.attr('use_cvm') or x[1] < 0 else x[1] - 2
    ctx.set_output('Y', (x[0], width), ctx.in_dtype('X'))


@kernel_rule('cvm')
def _cvm_kernel(spec):
    use_cvm = bool(spec.attr('use_cvm'))

    def run(x, cvm):
        if not use_cvm:
            return (np.ascontiguousarray(x[:, 2:]),)
        y = x.copy()
        y[:, 0] = np.log(x[:, 0] + 1)
        y[:, 1] = np.log(x[:, 1] + 1) - y[:, 0]
        return (y,)
    return run


@kernel_rule('cvm_grad')
def _cvm_grad_kernel(spec):
    use_cvm = bool(spec.attr('use_cvm'))

    def run(x, cvm, dy):
        dx = np.empty_like(x)
        dx[:, :2] = cvm[:, :2]
        dx[:, 2:] = dy[:, 2:] if use_cvm else dy
        return (dx,)
    return run
