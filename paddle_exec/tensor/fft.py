"""paddle.fft's functions (2.x): fft / ifft / rfft / irfft / hfft / ihfft, their 2-D and N-D forms, fftfreq /
rfftfreq, fftshift / ifftshift.

Each maps, as 2.6.2 does, onto one of fft_c2c (complex input), fft_r2c (real input; onesided for rfft / ihfft,
forward=False for the inverses) and fft_c2r (irfft: forward=False, hfft: forward=True), after padding (`pad`) or
slicing (`slice`) the input to the requested lengths `n` / `s`. Integer inputs are cast to the default float
dtype (float32), real inputs of c2c / c2r transforms to the matching complex dtype. fftshift / ifftshift are a
`roll` by half the lengths; fftfreq / rfftfreq a `range`, a `roll` and a `scale`.
"""
from __future__ import annotations

from ..framework.dtype import VarType, complex_dtype, convert_dtype, real_dtype, to_var_type
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ._append import append_op
from .complex import complex as make_complex
from .creation import arange, zeros_like
from .manipulation import roll

__all__ = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft', 'fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2',
           'fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn', 'fftfreq', 'rfftfreq', 'fftshift', 'ifftshift']


def _check_norm(norm):
    if norm not in ('forward', 'backward', 'ortho'):
        raise ValueError("Unexpected norm: %s. Norm should be forward, backward or ortho" % norm)


def _is_complex(x) -> bool:
    return x.dtype in (VarType.COMPLEX64, VarType.COMPLEX128)


def _is_integer(x) -> bool:
    return convert_dtype(x.dtype) in ('uint8', 'int8', 'int16', 'int32', 'int64')


def _as_real(x):
    return cast(x, 'float32') if _is_integer(x) else x


def _as_complex(x):
    if _is_complex(x):
        return x
    x = _as_real(x)
    return make_complex(x, zeros_like(x))


def _normalize_axes(x, axes):
    rank = len(x.shape)
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError("Invalid fft axis (%d) for a tensor of rank %d" % (a, rank))
        out.append(a + rank if a < 0 else a)
    if len(set(out)) != len(out):
        raise ValueError("axes of an fft should be unique, got %s" % list(axes))
    return out


def _resize(x, s, axes):
    """x zero-padded or cut to length s[i] along axes[i] (2.6.2's _resize_fft_input)."""
    if len(s) != len(axes):
        raise ValueError("length of `s` should equals length of `axes`.")
    for n in s:
        if not isinstance(n, int) or n <= 0:
            raise ValueError("Invalid FFT argument s (%s), it should be a sequence of positive integers." % list(s))
    shape = list(x.shape)
    cut_axes, cut_ends, paddings = [], [], [0] * (2 * len(shape))
    for n, a in zip(s, axes):
        if n < shape[a]:
            cut_axes.append(a)
            cut_ends.append(n)
        elif n > shape[a]:
            paddings[2 * a + 1] = n - shape[a]
    if cut_axes:
        x = append_op('slice', {'Input': x}, {'Out': x.dtype},
                      {'axes': cut_axes, 'starts': [0] * len(cut_axes), 'ends': cut_ends, 'decrease_axis': [],
                       'infer_flags': [1] * len(cut_axes)})
    if any(paddings):
        x = append_op('pad', {'X': x}, {'Out': x.dtype}, {'paddings': paddings, 'pad_value': 0.0})
    return x


def _r2c(x, s, axes, norm, forward, onesided, name):
    x = _as_real(x)
    _check_norm(norm)
    axes = _normalize_axes(x, axes)
    if s is not None:
        x = _resize(x, s, axes)
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64'), 'fft_r2c')
    return append_op('fft_r2c', {'X': x}, {'Out': complex_dtype(x.dtype)},
                     {'axes': axes, 'normalization': norm, 'forward': forward, 'onesided': onesided}, name=name)


def _c2c(x, s, axes, norm, forward, name):
    x = _as_complex(x)
    _check_norm(norm)
    axes = _normalize_axes(x, axes)
    if s is not None:
        x = _resize(x, s, axes)
    return append_op('fft_c2c', {'X': x}, {'Out': x.dtype}, {'axes': axes, 'normalization': norm, 'forward': forward},
                     name=name)


def _c2r(x, s, axes, norm, forward, name):
    x = _as_complex(x)
    _check_norm(norm)
    axes = _normalize_axes(x, axes)
    attrs = {'axes': axes, 'normalization': norm, 'forward': forward}
    if s is not None:
        half = list(s)
        half[-1] = half[-1] // 2 + 1
        x = _resize(x, half, axes)
        attrs['last_dim_size'] = s[-1]
    return append_op('fft_c2r', {'X': x}, {'Out': real_dtype(x.dtype)}, attrs, name=name)


def _one_axis(n, axis):
    if n is not None and (not isinstance(n, int) or n <= 0):
        raise ValueError("Invalid FFT argument n (%s), it should be a positive integer." % n)
    return (None if n is None else [n]), [-1 if axis is None else axis]


def fft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    if _is_complex(x):
        return _c2c(x, s, axes, norm, True, name)
    return _r2c(x, s, axes, norm, True, False, name)


def ifft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    if _is_complex(x):
        return _c2c(x, s, axes, norm, False, name)
    return _r2c(x, s, axes, norm, False, False, name)


def rfft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    return _r2c(x, s, axes, norm, True, True, name)


def irfft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    return _c2r(x, s, axes, norm, False, name)


def hfft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    return _c2r(x, s, axes, norm, True, name)


def ihfft(x, n=None, axis=-1, norm='backward', name=None):
    s, axes = _one_axis(n, axis)
    return _r2c(x, s, axes, norm, False, True, name)


def _nd_axes(x, s, axes, sort_leading: bool):
    """2.6.2's axes rule: all dims (or the last len(s)) by default; for r2c / c2r the leading axes sorted, the last
    one kept last."""
    rank = len(x.shape)
    if axes is None:
        axes = list(range(rank)) if s is None else list(range(rank - len(s), rank))
    else:
        axes = _normalize_axes(x, list(axes))
        if s is not None and len(s) != len(axes):
            raise ValueError("Length of s (%d) and length of axes (%d) does not match." % (len(s), len(axes)))
        if sort_leading and len(axes) > 1:
            order = sorted(range(len(axes) - 1), key=lambda i: axes[i])
            axes = [axes[i] for i in order] + [axes[-1]]
            if s is not None:
                s = [s[i] for i in order] + [s[-1]]
    return (None if s is None else list(s)), axes


def fftn(x, s=None, axes=None, norm='backward', name=None):
    if _is_complex(x):
        s, axes = _nd_axes(x, s, axes, False)
        return _c2c(x, s, axes, norm, True, name)
    s, axes = _nd_axes(x, s, axes, True)
    return _r2c(x, s, axes, norm, True, False, name)


def ifftn(x, s=None, axes=None, norm='backward', name=None):
    if _is_complex(x):
        s, axes = _nd_axes(x, s, axes, False)
        return _c2c(x, s, axes, norm, False, name)
    s, axes = _nd_axes(x, s, axes, True)
    return _r2c(x, s, axes, norm, False, False, name)


def rfftn(x, s=None, axes=None, norm='backward', name=None):
    s, axes = _nd_axes(x, s, axes, True)
    return _r2c(x, s, axes, norm, True, True, name)


def irfftn(x, s=None, axes=None, norm='backward', name=None):
    s, axes = _nd_axes(x, s, axes, True)
    return _c2r(x, s, axes, norm, False, name)


def hfftn(x, s=None, axes=None, norm='backward', name=None):
    s, axes = _nd_axes(x, s, axes, True)
    return _c2r(x, s, axes, norm, True, name)


def ihfftn(x, s=None, axes=None, norm='backward', name=None):
    s, axes = _nd_axes(x, s, axes, True)
    return _r2c(x, s, axes, norm, False, True, name)


def _check_2d(s, axes):
    if s is not None and (not isinstance(s, (list, tuple)) or len(s) != 2):
        raise ValueError("Invalid FFT argument s (%s), it should be a sequence of 2 integers." % (s,))
    if axes is not None and (not isinstance(axes, (list, tuple)) or len(axes) != 2):
        raise ValueError("Invalid FFT argument axes (%s), it should be a sequence of 2 integers." % (axes,))


def fft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return fftn(x, s, axes, norm, name)


def ifft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return ifftn(x, s, axes, norm, name)


def rfft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return rfftn(x, s, axes, norm, name)


def irfft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return irfftn(x, s, axes, norm, name)


def hfft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return hfftn(x, s, axes, norm, name)


def ihfft2(x, s=None, axes=(-2, -1), norm='backward', name=None):
    _check_2d(s, axes)
    return ihfftn(x, s, axes, norm, name)


def fftfreq(n, d=1.0, dtype=None, name=None):
    """paddle.fft.fftfreq: the sample frequencies [0, 1, ..., -n/2, ..., -1] / (d n)."""
    dtype = convert_dtype(to_var_type(dtype or 'float32'))
    freqs = roll(arange(-(n // 2), (n - 1) // 2 + 1, 1, dtype=dtype), -(n // 2))
    return freqs * (1.0 / (n * d))


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """paddle.fft.rfftfreq: [0, 1, ..., n // 2] / (d n)."""
    dtype = convert_dtype(to_var_type(dtype or 'float32'))
    return arange(0, n // 2 + 1, 1, dtype=dtype) * (1.0 / (n * d))


def _shift(x, axes, inverse: bool, name):
    shape = list(x.shape)
    if axes is None:
        axes = list(range(len(shape)))
    elif isinstance(axes, int):
        axes = [axes]
    axes = [a + len(shape) if a < 0 else a for a in axes]
    shifts = [-(shape[a] // 2) if inverse else shape[a] // 2 for a in axes]
    return roll(x, shifts, axes, name=name)


def fftshift(x, axes=None, name=None):
    """paddle.fft.fftshift: the zero frequency moved to the centre (a roll by n // 2)."""
    return _shift(x, axes, False, name)


def ifftshift(x, axes=None, name=None):
    return _shift(x, axes, True, name)
