"""paddle.signal (2.x): stft and istft, composed as 2.6.2 composes them: stft pads the signal (pad3d, reflect or
constant) when `center`, cuts it into frames (`frame`), multiplies by the window and transforms each frame
(fft_r2c, onesided by default; fft_c2c for complex input); istft transforms back (fft_c2r or fft_c2c), overlaps
and adds the windowed frames (`overlap_add`) and divides by the overlapped squared window.
"""
from __future__ import annotations

from ..framework.dtype import VarType, convert_dtype
from ..layers.checks import check_variable_and_dtype
from ._append import append_op
from .creation import ones
from .fft import _c2c, _c2r, _r2c
from .manipulation import squeeze, tile, transpose, unsqueeze

__all__ = ['stft', 'istft']


def _frame(x, frame_length: int, hop_length: int, axis: int = -1):
    return append_op('frame', {'X': x}, {'Out': x.dtype},
                     {'frame_length': frame_length, 'hop_length': hop_length, 'axis': axis})


def _overlap_add(x, hop_length: int, axis: int = -1):
    return append_op('overlap_add', {'X': x}, {'Out': x.dtype}, {'hop_length': hop_length, 'axis': axis})


def _pad_window(window, win_length: int, n_fft: int):
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = append_op('pad', {'X': window}, {'Out': window.dtype},
                           {'paddings': [left, n_fft - win_length - left], 'pad_value': 0.0})
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode='reflect', normalized=False,
         onesided=True, name=None):
    """paddle.signal.stft: the short-time Fourier transform of [seq] or [batch, seq] signals, [(batch,) n_fft // 2
    + 1 (or n_fft), frames]."""
    rank = len(x.shape)
    if rank not in (1, 2):
        raise AssertionError('x should be a 1D or 2D real tensor, but got rank of x is %d' % rank)
    if rank == 1:
        x = unsqueeze(x, [0])
    hop_length = int(n_fft // 4) if hop_length is None else hop_length
    if hop_length <= 0:
        raise AssertionError('hop_length should be > 0, but got %d.' % hop_length)
    win_length = n_fft if win_length is None else win_length
    if not 0 < win_length <= n_fft:
        raise AssertionError('win_length should be in (0, n_fft(%d)], but got %d.' % (n_fft, win_length))
    if window is not None:
        if len(window.shape) != 1 or window.shape[0] != win_length:
            raise AssertionError('expected a 1D window tensor of size equal to win_length(%d), but got window with '
                                 'shape %s.' % (win_length, list(window.shape)))
    else:
        window = ones([win_length], dtype=convert_dtype(x.dtype))
    window = _pad_window(window, win_length, n_fft)
    if center:
        if pad_mode not in ('constant', 'reflect'):
            raise AssertionError('pad_mode should be "reflect" or "constant", but got "%s".' % pad_mode)
        half = n_fft // 2
        five_d = unsqueeze(unsqueeze(x, [-1]), [2, 3])
        padded = append_op('pad3d', {'X': five_d}, {'Out': x.dtype},
                           {'paddings': [0, 0, 0, 0, half, half], 'mode': pad_mode, 'value': 0.0,
                            'data_format': 'NDHWC'})
        x = squeeze(squeeze(padded, [2, 3]), [-1])
    frames = transpose(_frame(x, n_fft, hop_length, -1), [0, 2, 1])
    frames = frames * window
    norm = 'ortho' if normalized else 'backward'
    if x.dtype in (VarType.COMPLEX64, VarType.COMPLEX128):
        if onesided:
            raise AssertionError('onesided should be False when input or window is a complex Tensor.')
        out = _c2c(frames, None, [-1], norm, True, name)
    else:
        out = _r2c(frames, None, [-1], norm, True, onesided, name)
    out = transpose(out, [0, 2, 1])
    return squeeze(out, [0]) if rank == 1 else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
          length=None, return_complex=False, name=None):
    """paddle.signal.istft: the inverse of stft (least squares over the overlapping frames)."""
    check_variable_and_dtype(x, 'x', ('complex64', 'complex128'), 'istft')
    rank = len(x.shape)
    if rank not in (2, 3):
        raise AssertionError('x should be a 2D or 3D complex tensor, but got rank of x is %d' % rank)
    if rank == 2:
        x = unsqueeze(x, [0])
    hop_length = int(n_fft // 4) if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not 0 < hop_length <= win_length:
        raise AssertionError('hop_length should be in (0, win_length(%d)], but got %d.' % (win_length, hop_length))
    if not 0 < win_length <= n_fft:
        raise AssertionError('win_length should be in (0, n_fft(%d)], but got %d.' % (n_fft, win_length))
    n_frames = x.shape[-1]
    if window is None:
        window = ones([win_length], dtype='float32' if x.dtype == VarType.COMPLEX64 else 'float64')
    window = _pad_window(window, win_length, n_fft)
    x = transpose(x, [0, 2, 1])
    norm = 'ortho' if normalized else 'backward'
    if return_complex:
        if onesided:
            raise AssertionError('onesided should be False when input(output of istft) or window is a complex '
                                 'Tensor.')
        out = _c2c(x, None, [-1], norm, False, None)
    else:
        if not onesided:
            x = x[:, :, :n_fft // 2 + 1]
        out = _c2r(x, None, [-1], norm, False, None)
    out = _overlap_add(transpose(out * window, [0, 2, 1]), hop_length, -1)
    envelope = _overlap_add(transpose(tile(unsqueeze(window * window, [0]), [n_frames, 1]), [1, 0]), hop_length, -1)
    if length is None:
        if center:
            half = n_fft // 2
            out = out[:, half:-half]
            envelope = envelope[half:-half]
    else:
        start = n_fft // 2 if center else 0
        out = out[:, start:start + length]
        envelope = envelope[start:start + length]
    out = out / envelope
    return squeeze(out, [0]) if rank == 2 else out
