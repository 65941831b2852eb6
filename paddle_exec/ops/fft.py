"""FFT ops of Paddle 2.x: fft_c2c (complex -> complex), fft_r2c (real -> complex, `onesided` keeps the last axis'
first n // 2 + 1 bins), fft_c2r (Hermitian half -> real, `last_dim_size` the output length of the last axis, 0:
2 (m - 1)), and the framing ops of paddle.signal: frame and overlap_add. Numerics are numpy.fft's (pocketfft).

Attributes: `axes`, `normalization` ('backward', 'forward', 'ortho': numpy's meaning for the direction the op
runs), `forward` (the direction; an inverse r2c is conj(fft) of the real input, a forward c2r is the c2r of the
conjugate, as hfft). Each op computes the unnormalised transform times `_scale`.

Gradients, in Paddle's convention for complex values (d/dRe + i d/dIm; for a C-linear y = A x the gradient is
A^H dy):
    fft_c2c      the transform the other way, same scale
    fft_r2c      Re of the unnormalised inverse (forward) transform of dy zero-padded to the full last axis
                 (for an inverse r2c: the forward transform), times the scale
    fft_c2r      rfftn of dy times the scale, the bins other than 0 and n / 2 doubled (they stand for two
                 conjugate bins of the full spectrum); conjugated for a forward c2r
    frame / overlap_add   each other's gradient
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.dtype import complex_dtype, real_dtype
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import norm_axis

__all__ = ['frame_value', 'overlap_add_value']


def _axes(attr, rank: int, op_type: str) -> list:
    return [norm_axis(a, rank, op_type, 'axes') for a in attr]


def _scale(normalization: str, forward: bool, n: int) -> float:
    if normalization == 'ortho':
        return 1.0 / math.sqrt(n)
    if (normalization == 'backward') != forward:     # backward scales the inverse, forward the forward
        return 1.0 / n
    return 1.0


def _check_norm(norm: str) -> None:
    if norm not in ('forward', 'backward', 'ortho'):
        raise ValueError("Unexpected norm: %s. Norm should be forward, backward or ortho" % norm)


_FFT_ATTRS = {'axes': [], 'normalization': 'backward', 'forward': True}
defop('fft_c2c', ['X'], ['Out'], _FFT_ATTRS, grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))
defop('fft_r2c', ['X'], ['Out'], {**_FFT_ATTRS, 'onesided': True}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('fft_c2r', ['X'], ['Out'], {**_FFT_ATTRS, 'last_dim_size': 0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('fft_c2c')
def _c2c_shape(ctx):
    _check_norm(ctx.attr('normalization'))
    ctx.set_output('Out', ctx.in_shape('X'), complex_dtype(ctx.in_dtype('X')))


@shape_rule('fft_r2c')
def _r2c_shape(ctx):
    _check_norm(ctx.attr('normalization'))
    xs = list(ctx.in_shape('X'))
    axes = _axes(ctx.attr('axes'), len(xs), 'fft_r2c')
    if ctx.attr('onesided') and xs[axes[-1]] >= 0:
        xs[axes[-1]] = xs[axes[-1]] // 2 + 1
    ctx.set_output('Out', tuple(xs), complex_dtype(ctx.in_dtype('X')))


def _c2r_last(m: int, attr: int) -> int:
    return attr if attr else 2 * (m - 1)


@shape_rule('fft_c2r')
def _c2r_shape(ctx):
    _check_norm(ctx.attr('normalization'))
    xs = list(ctx.in_shape('X'))
    axes = _axes(ctx.attr('axes'), len(xs), 'fft_c2r')
    if xs[axes[-1]] >= 0:
        xs[axes[-1]] = _c2r_last(xs[axes[-1]], ctx.attr('last_dim_size'))
    ctx.set_output('Out', tuple(xs), real_dtype(ctx.in_dtype('X')))


def _size(shape, axes) -> int:
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def _unnormalised(fn, x, axes, **kw):
    """numpy's transform without any normalisation ('forward' norm leaves the inverse unscaled, 'backward' the
    forward one)."""
    inverse = fn in (np.fft.ifftn, np.fft.irfftn)
    return fn(x, axes=axes, norm='forward' if inverse else 'backward', **kw)


def _attrs(spec):
    return spec.attr('axes'), spec.attr('normalization'), bool(spec.attr('forward'))


@kernel_rule('fft_c2c')
def _c2c_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)

    def run(x):
        axes = _axes(axes_attr, x.ndim, 'fft_c2c')
        out = _unnormalised(np.fft.fftn if forward else np.fft.ifftn, x, axes)
        return ((out * _scale(norm, forward, _size(x.shape, axes))).astype(x.dtype, copy=False),)
    return run


@kernel_rule('fft_c2c_grad')
def _c2c_grad_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)

    def run(dout):
        axes = _axes(axes_attr, dout.ndim, 'fft_c2c')
        dx = _unnormalised(np.fft.ifftn if forward else np.fft.fftn, dout, axes)
        return ((dx * _scale(norm, forward, _size(dout.shape, axes))).astype(dout.dtype, copy=False),)
    return run


@kernel_rule('fft_r2c')
def _r2c_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)
    onesided = bool(spec.attr('onesided'))

    def run(x):
        axes = _axes(axes_attr, x.ndim, 'fft_r2c')
        ctype = np.result_type(x.dtype, np.complex64)
        out = _unnormalised(np.fft.rfftn if onesided else np.fft.fftn, x, axes)
        if not forward:
            out = np.conj(out)
        return ((out * _scale(norm, forward, _size(x.shape, axes))).astype(ctype),)
    return run


def _pad_half(dout, axes, full: int):
    """A onesided spectrum zero-padded to the full last axis."""
    pad = [(0, 0)] * dout.ndim
    pad[axes[-1]] = (0, full - dout.shape[axes[-1]])
    return np.pad(dout, pad)


@kernel_rule('fft_r2c_grad')
def _r2c_grad_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)
    onesided = bool(spec.attr('onesided'))

    def run(x, dout):
        axes = _axes(axes_attr, x.ndim, 'fft_r2c')
        g = _pad_half(dout, axes, x.shape[axes[-1]]) if onesided else dout
        back = _unnormalised(np.fft.ifftn if forward else np.fft.fftn, g, axes)
        return ((back.real * _scale(norm, forward, _size(x.shape, axes))).astype(x.dtype),)
    return run


@kernel_rule('fft_c2r')
def _c2r_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)
    last_attr = int(spec.attr('last_dim_size'))

    def run(x):
        axes = _axes(axes_attr, x.ndim, 'fft_c2r')
        n_last = _c2r_last(x.shape[axes[-1]], last_attr)
        shape = [x.shape[a] for a in axes[:-1]] + [n_last]
        src = np.conj(x) if forward else x
        out = _unnormalised(np.fft.irfftn, src, axes, s=shape)
        n = int(np.prod(shape, dtype=np.int64))
        return ((out * _scale(norm, forward, n)).astype(x.real.dtype),)
    return run


@kernel_rule('fft_c2r_grad')
def _c2r_grad_kernel(spec):
    axes_attr, norm, forward = _attrs(spec)

    def run(x, dout):
        axes = _axes(axes_attr, x.ndim, 'fft_c2r')
        n_last = dout.shape[axes[-1]]
        n = _size(dout.shape, axes)
        g = np.fft.rfftn(dout, axes=axes) * _scale(norm, forward, n)
        weights = np.full(g.shape[axes[-1]], 2.0)
        weights[0] = 1.0
        if n_last % 2 == 0:
            weights[-1] = 1.0
        shape = [1] * g.ndim
        shape[axes[-1]] = weights.size
        g = g * weights.reshape(shape)
        # the input may have had more bins than the output used (a longer last axis): they get no gradient
        m = x.shape[axes[-1]]
        if m > g.shape[axes[-1]]:
            g = _pad_half(g, axes, m)
        elif m < g.shape[axes[-1]]:
            g = np.take(g, np.arange(m), axis=axes[-1])
        return ((np.conj(g) if forward else g).astype(x.dtype),)
    return run


# --- frame / overlap_add (paddle.signal) -----------------------------------------------------------------------

defop('frame', ['X'], ['Out'], {'frame_length': 1, 'hop_length': 1, 'axis': -1},
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('overlap_add', ['X'], ['Out'], {'hop_length': 1, 'axis': -1}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


def frame_value(x, frame_length: int, hop: int, axis: int):
    """axis -1: [..., seq] -> [..., frame_length, n_frames]; axis 0: [seq, ...] -> [n_frames, frame_length, ...]."""
    if axis == 0:
        return np.moveaxis(frame_value(np.moveaxis(x, 0, -1), frame_length, hop, -1), (-2, -1), (1, 0))
    seq = x.shape[-1]
    if frame_length > seq:
        raise ValueError('Attribute frame_length should be less equal than sequence length, but got (%d) > (%d).'
                         % (frame_length, seq))
    n_frames = 1 + (seq - frame_length) // hop
    idx = np.arange(frame_length)[:, None] + hop * np.arange(n_frames)[None, :]
    return np.ascontiguousarray(x[..., idx])


def overlap_add_value(x, hop: int, axis: int):
    """The inverse of frame's layout, overlapping frames summed."""
    if axis == 0:
        moved = np.moveaxis(x, (0, 1), (-1, -2))
        return np.moveaxis(overlap_add_value(moved, hop, -1), -1, 0)
    frame_length, n_frames = x.shape[-2], x.shape[-1]
    seq = (n_frames - 1) * hop + frame_length
    out = np.zeros(x.shape[:-2] + (seq,), x.dtype)
    for f in range(n_frames):
        out[..., f * hop:f * hop + frame_length] += x[..., :, f]
    return out


def _frame_axis(axis: int, rank: int, op_type: str) -> int:
    if axis not in (0, -1):
        a = norm_axis(axis, rank, op_type)
        if a not in (0, rank - 1):
            raise ValueError("Attribute(axis) of Op(%s) should 0 or -1, but got %d." % (op_type, axis))
        return 0 if a == 0 else -1
    return axis


@shape_rule('frame')
def _frame_shape(ctx):
    xs = list(ctx.in_shape('X'))
    axis = _frame_axis(ctx.attr('axis'), len(xs), 'frame')
    fl, hop = ctx.attr('frame_length'), ctx.attr('hop_length')
    seq = xs[0] if axis == 0 else xs[-1]
    n = 1 + (seq - fl) // hop if seq >= 0 else -1
    out = [n, fl] + xs[1:] if axis == 0 else xs[:-1] + [fl, n]
    ctx.set_output('Out', tuple(out), ctx.in_dtype('X'))


@shape_rule('overlap_add')
def _overlap_add_shape(ctx):
    xs = list(ctx.in_shape('X'))
    axis = _frame_axis(ctx.attr('axis'), len(xs), 'overlap_add')
    hop = ctx.attr('hop_length')
    n, fl = (xs[0], xs[1]) if axis == 0 else (xs[-1], xs[-2])
    seq = (n - 1) * hop + fl if n >= 0 and fl >= 0 else -1
    out = [seq] + xs[2:] if axis == 0 else xs[:-2] + [seq]
    ctx.set_output('Out', tuple(out), ctx.in_dtype('X'))


@kernel_rule('frame')
def _frame_kernel(spec):
    fl, hop, axis = spec.attr('frame_length'), spec.attr('hop_length'), spec.attr('axis')
    return lambda x: (frame_value(x, fl, hop, _frame_axis(axis, x.ndim, 'frame')),)


@kernel_rule('frame_grad')
def _frame_grad_kernel(spec):
    hop, axis = spec.attr('hop_length'), spec.attr('axis')

    def run(x, dout):
        a = _frame_axis(axis, x.ndim, 'frame')
        back = overlap_add_value(dout, hop, a)
        seq = x.shape[0] if a == 0 else x.shape[-1]
        pad = [(0, 0)] * x.ndim
        pad[0 if a == 0 else -1] = (0, seq - back.shape[0 if a == 0 else -1])
        return (np.pad(back, pad).astype(x.dtype),)
    return run


@kernel_rule('overlap_add')
def _overlap_add_kernel(spec):
    hop, axis = spec.attr('hop_length'), spec.attr('axis')
    return lambda x: (overlap_add_value(x, hop, _frame_axis(axis, x.ndim, 'overlap_add')),)


@kernel_rule('overlap_add_grad')
def _overlap_add_grad_kernel(spec):
    hop, axis = spec.attr('hop_length'), spec.attr('axis')

    def run(x, dout):
        a = _frame_axis(axis, x.ndim, 'overlap_add')
        fl = x.shape[1] if a == 0 else x.shape[-2]
        return (frame_value(dout, fl, hop, a).astype(x.dtype),)
    return run
