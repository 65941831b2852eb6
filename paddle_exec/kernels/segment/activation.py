"""Unary elementwise ops for compiled segments: the opcode loops of kernels/unary.py, and their numpy twins.

    out = forward(x, op, a, b, c)                 # a, b, c: the op's attributes (float32-rounded Python floats),
    dx = backward(dep, dout, op, a, b, c)         #   cast here to the array's dtype as the per-op kernels do
    out = forward_inplace(x, op, a, b, c)         # into x (memory reuse: x dies here and is the segment's own)
    dx = backward_inplace(dep, dout, op, a, b, c) # into dout

`REFERENCED` lists the opcodes that have numpy twins; the segment rules of ops/activation.py compile only those
(the others run as ordinary nodes). The twins repeat the loops' arithmetic, including where numba computes in
float64 (an integer constant next to a float32 value promotes to float64, as numpy scalars do), so both tiers
agree to the bit; exp is computed in float64 and rounded once, as the C library's correctly rounded expf (numpy's
own float32 exp may differ in the last place).
"""
from __future__ import annotations

import numpy as np

from .. import unary as KU
from ..jit import kernel_jit

__all__ = ['exp32', 'forward', 'backward', 'forward_inplace', 'backward_inplace', 'forward_ref', 'backward_ref',
           'REFERENCED']

_jit = kernel_jit(error_model='numpy')


@_jit
def forward(x, op, a, b, c):
    x = np.ascontiguousarray(x)
    out = np.empty(x.shape, x.dtype)
    if x.size:
        t = x.dtype.type
        KU.forward_loop(op, x.reshape(-1), out.reshape(-1), t(a), t(b), t(c))
    return out


@_jit
def forward_inplace(x, op, a, b, c):
    if x.size:
        t = x.dtype.type
        flat = x.reshape(-1)
        if op == KU.RELU:
            # forward_loop's relu, written on one array: given the same array as input and output, that loop's
            # runtime overlap check fails and it runs unvectorized (6x slower at fc sizes); same expression, same bits
            for i in range(flat.shape[0]):
                v = flat[i]
                flat[i] = v if v > 0 else 0
        else:
            KU.forward_loop(op, flat, flat, t(a), t(b), t(c))
    return x


@_jit
def backward(dep, dout, op, a, b, c):
    dout = np.ascontiguousarray(dout)
    dx = np.empty(dout.shape, dout.dtype)
    if dx.size:
        if dep.size != dout.size:
            raise ValueError('Out@GRAD does not have the shape of the input')
        t = dout.dtype.type
        flat = np.ascontiguousarray(dep).reshape(-1).astype(dout.dtype)
        KU.backward_loop(op, flat, flat, dout.reshape(-1), dx.reshape(-1), t(a), t(b), t(c))
    return dx


@_jit
def backward_inplace(dep, dout, op, a, b, c):
    if dout.size:
        if dep.size != dout.size:
            raise ValueError('Out@GRAD does not have the shape of the input')
        t = dout.dtype.type
        flat = np.ascontiguousarray(dep).reshape(-1).astype(dout.dtype)
        d = dout.reshape(-1)
        KU.backward_loop(op, flat, flat, d, d, t(a), t(b), t(c))
    return dout


# --- numpy twins ----------------------------------------------------------------------------------------------

_F64 = np.float64


def exp32(x):
    """exp of a float32 array as the C library's expf gives it (correctly rounded): computed in float64 and
    rounded once. numpy's own float32 exp may differ in the last place."""
    if x.dtype == np.float32:
        return np.exp(x.astype(_F64)).astype(np.float32)
    return np.exp(x)


def _tanh32(v):
    """Eigen's rational tanh for float32 (kernels/unary.py `_tanh`), in float32 arithmetic."""
    f = np.float32
    x = np.clip(v, f(-9.0), f(9.0))
    x2 = x * x
    p = x2 * f(-2.76076847742355e-16) + f(2.00018790482477e-13)
    p = x2 * p + f(-8.60467152213735e-11)
    p = x2 * p + f(5.12229709037114e-08)
    p = x2 * p + f(1.48572235717979e-05)
    p = x2 * p + f(6.37261928875436e-04)
    p = x2 * p + f(4.89352455891786e-03)
    p = x * p
    q = x2 * f(1.19825839466702e-06) + f(1.18534705686654e-04)
    q = x2 * q + f(2.26843463243900e-03)
    q = x2 * q + f(4.89352518554385e-03)
    return p / q


def _tanh(x):
    return _tanh32(x) if x.dtype == np.float32 else np.tanh(x)


def _fwd(op, x, a, b, c):
    zero = x.dtype.type(0)
    if op == KU.RELU:
        return np.where(x > 0, x, zero)
    if op == KU.LEAKY_RELU:
        return np.where(x >= 0, x, a * x)
    if op == KU.SQUARE:
        return x * x
    if op == KU.ABS:
        return np.abs(x)
    if op == KU.RELU6:
        v = np.where(x > 0, x, zero)
        return np.where(v < a, v, a)
    if op == KU.SCALE:
        return a * x + b if c != 0 else a * (x + b)
    if op == KU.CLIP:
        return np.where(x < a, a, np.where(x > b, b, x))
    if op == KU.SIGMOID:
        return 1 / (1 + exp32(-x).astype(_F64))
    if op == KU.TANH:
        return _tanh(x)
    if op == KU.EXP:
        return exp32(x)
    if op == KU.SQRT:
        return np.sqrt(x.astype(_F64))
    if op == KU.RSQRT:
        return 1.0 / np.sqrt(x).astype(_F64)
    if op == KU.RECIPROCAL:
        return 1.0 / x.astype(_F64)
    raise NotImplementedError(op)


def forward_ref(x, op, a, b, c):
    t = x.dtype.type
    return np.ascontiguousarray(_fwd(op, x, t(a), t(b), t(c))).astype(x.dtype, copy=False)


def _bwd(op, x, o, d, a, b, c):
    zero = d.dtype.type(0)
    if op == KU.RELU:
        return np.where(o > 0, d, zero)
    if op == KU.SIGMOID:
        return (d * o) * (1 - o.astype(_F64))
    if op == KU.TANH:
        return d * (1 - (o * o).astype(_F64))
    if op == KU.LEAKY_RELU:
        return np.where(x >= 0, d, a * d)
    if op == KU.SQUARE:
        return (d.astype(_F64) * 2) * x
    if op == KU.SCALE:
        return a * d
    if op == KU.EXP:
        return d.astype(_F64) * o
    if op == KU.ABS:
        return d.astype(_F64) * np.sign(x.astype(_F64))
    if op == KU.RELU6:
        return np.where((o > 0) & (o < a), d.astype(_F64), 0.0)
    if op == KU.CLIP:
        return np.where((x > a) & (x < b), d.astype(_F64), 0.0)
    if op == KU.SQRT:
        return d.astype(_F64) * 0.5 / o
    if op == KU.RSQRT:
        return -0.5 * d.astype(_F64) * o * o * o
    if op == KU.RECIPROCAL:
        return -d * o * o
    raise NotImplementedError(op)


def backward_ref(dep, dout, op, a, b, c):
    """`backward` in numpy: the dependency (X or Out, whichever the gradient reads) stands for both."""
    x = o = dep
    if x.size != dout.size:
        raise ValueError('Out@GRAD shape %s does not match the input shape %s' % (list(dout.shape), list(x.shape)))
    t = dout.dtype.type
    x = x.astype(dout.dtype, copy=False).reshape(dout.shape)
    o = o.astype(dout.dtype, copy=False).reshape(dout.shape)
    return np.ascontiguousarray(_bwd(op, x, o, dout, t(a), t(b), t(c))).astype(dout.dtype, copy=False)


REFERENCED = frozenset((KU.RELU, KU.LEAKY_RELU, KU.SQUARE, KU.ABS, KU.RELU6, KU.SCALE, KU.CLIP, KU.SIGMOID, KU.TANH,
                        KU.EXP, KU.SQRT, KU.RSQRT, KU.RECIPROCAL))
