"""Complex-number ops, as Paddle 2.6.2 defines them: complex(X, Y) builds X + iY (numpy broadcasting), real / imag
take the parts, conj conjugates (the identity on real tensors), angle is the argument (0 or pi for real input),
as_complex views a [..., 2] real tensor as complex and as_real the reverse.

Gradients follow Paddle's convention for a real loss L of a complex z: the gradient is dL/dRe(z) + i dL/dIm(z).
So real_grad is complex(dout, 0), imag_grad complex(0, dout), complex_grad (real(dout), imag(dout)) summed over
broadcast dims, conj_grad conj(dout), as_complex_grad as_real(dout) and the reverse, and the gradient of angle on
complex z = x + iy is dout * (-y + ix) / |z|^2 (0 at z = 0); on real input angle's gradient is 0.
Numerics are numpy's (these ops move data, they do not carry a step's time).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import complex_dtype, real_dtype
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import sum_to_shape
from .math import elementwise_out_shape

defop('complex', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('complex')
def _complex_shape(ctx):
    out = elementwise_out_shape(ctx.in_shape('X'), ctx.in_shape('Y'), -1, 'complex')
    ctx.set_output('Out', out, complex_dtype(ctx.in_dtype('X')))


@kernel_rule('complex')
def _complex_kernel(spec):
    def run(x, y):
        out = np.empty(np.broadcast_shapes(x.shape, y.shape), np.result_type(x.dtype, np.complex64))
        out.real, out.imag = x, y
        return (out,)
    return run


@kernel_rule('complex_grad')
def _complex_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        dx = sum_to_shape(np.ascontiguousarray(dout.real), x.shape).astype(x.dtype) if want_x else None
        dy = sum_to_shape(np.ascontiguousarray(dout.imag), y.shape).astype(y.dtype) if want_y else None
        return dx, dy
    return run


# --- real, imag, conj, angle ---------------------------------------------------------------------------------------

for _t in ('real', 'imag', 'angle'):
    defop(_t, ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD') if _t == 'angle' else ('Out@GRAD',), ('X@GRAD',)))
defop('conj', ['X'], ['Out'], grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


def _real_part_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), real_dtype(ctx.in_dtype('X')))


for _t in ('real', 'imag', 'angle'):
    shape_rule(_t)(_real_part_shape)


@shape_rule('conj')
def _conj_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('real', 'imag')
def _part_kernel(spec):
    take = np.real if spec.type == 'real' else np.imag
    return lambda x: (np.ascontiguousarray(take(x)),)


@kernel_rule('conj')
def _conj_kernel(spec):
    return lambda x: (np.conj(x) if np.iscomplexobj(x) else x.copy(),)


@kernel_rule('angle')
def _angle_kernel(spec):
    def run(x):
        out = np.angle(x)
        return (out.astype(x.real.dtype, copy=False),)
    return run


def _complex_of(dout):
    return np.zeros(dout.shape, np.result_type(dout.dtype, np.complex64))


@kernel_rule('real_grad', 'imag_grad')
def _part_grad_kernel(spec):
    real = spec.type == 'real_grad'

    def run(dout):
        dx = _complex_of(dout)
        if real:
            dx.real = dout
        else:
            dx.imag = dout
        return (dx,)
    return run


@kernel_rule('conj_grad')
def _conj_grad_kernel(spec):
    return lambda dout: (np.conj(dout) if np.iscomplexobj(dout) else dout.copy(),)


@kernel_rule('angle_grad')
def _angle_grad_kernel(spec):
    def run(x, dout):
        if not np.iscomplexobj(x):
            return (np.zeros(x.shape, x.dtype),)
        norm2 = x.real * x.real + x.imag * x.imag
        safe = np.where(norm2 == 0, 1, norm2)
        dx = np.where(norm2 == 0, 0, dout * (-x.imag + 1j * x.real) / safe)
        return (dx.astype(x.dtype),)
    return run


# --- as_complex ([..., 2] real -> complex) and as_real (the reverse) ------------------------------------------------

defop('as_complex', ['X'], ['Out'], grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
defop('as_real', ['X'], ['Out'], grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('as_complex')
def _as_complex_shape(ctx):
    xs = ctx.in_shape('X')
    if not xs or xs[-1] not in (2, -1):
        raise ValueError("as_complex: the last dim of X (%s) must be 2, got shape %s"
                         % (ctx.op.input('X')[0], list(xs)))
    ctx.set_output('Out', xs[:-1], complex_dtype(ctx.in_dtype('X')))


@shape_rule('as_real')
def _as_real_shape(ctx):
    ctx.set_output('Out', tuple(ctx.in_shape('X')) + (2,), real_dtype(ctx.in_dtype('X')))


def as_complex_value(x):
    x = np.ascontiguousarray(x)
    return x.view(np.result_type(x.dtype, np.complex64)).reshape(x.shape[:-1])


def as_real_value(x):
    x = np.ascontiguousarray(x)
    return x.view(x.real.dtype).reshape(x.shape + (2,))


@kernel_rule('as_complex', 'as_real_grad')
def _as_complex_kernel(spec):
    return lambda x: (as_complex_value(x).copy(),)


@kernel_rule('as_real', 'as_complex_grad')
def _as_real_kernel(spec):
    return lambda x: (as_real_value(x).copy(),)


__all__ = ['as_complex_value', 'as_real_value']
