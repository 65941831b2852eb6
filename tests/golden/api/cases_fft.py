"""Cases of paddle.fft and paddle.signal, recorded with Paddle 2.6.2 into fft.npz. Complex results are compared
as they are; gradients go through as_real / real / abs of the results (real losses). 2.6.2's static irfft / hfft
cannot take a real input (its cast to complex fails), so those cases pass complex inputs."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(17)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


X = U(-1, 1, (3, 6))
X5 = U(-1, 1, (2, 5))
A, B = U(-1, 1, (3, 4)), U(-1, 1, (3, 4))

CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


def C(P, v):
    return P.complex(v['a'], v['b'])


for _norm in ('backward', 'forward', 'ortho'):
    add('fft_real_' + _norm, (lambda n: lambda P, v: [P.as_real(P.fft.fft(v['x'], norm=n)),
                                                      P.as_real(P.fft.ifft(v['x'], norm=n)),
                                                      P.as_real(P.fft.rfft(v['x'], norm=n)),
                                                      P.as_real(P.fft.ihfft(v['x'], norm=n))])(_norm),
        {'x': X}, grads=['x'], grad_outs=(0, 1, 2, 3),
        ref=(lambda n: lambda f: [np.stack([g.real, g.imag], -1) for g in (
            np.fft.fft(f['x'], norm=n), np.fft.ifft(f['x'], norm=n), np.fft.rfft(f['x'], norm=n),
            np.fft.ihfft(f['x'], norm=n))])(_norm))
    add('fft_complex_' + _norm, (lambda n: lambda P, v: [P.as_real(P.fft.fft(C(P, v), norm=n)),
                                                         P.as_real(P.fft.ifft(C(P, v), axis=0, norm=n)),
                                                         P.fft.irfft(C(P, v), norm=n),
                                                         P.fft.hfft(C(P, v), norm=n)])(_norm),
        {'a': A, 'b': B}, grads=['a', 'b'], grad_outs=(0, 1, 2, 3),
        ref=(lambda n: lambda f: [np.stack([g.real, g.imag], -1) for g in (
            np.fft.fft(f['a'] + 1j * f['b'], norm=n), np.fft.ifft(f['a'] + 1j * f['b'], axis=0, norm=n))]
            + [np.fft.irfft(f['a'] + 1j * f['b'], norm=n), np.fft.hfft(f['a'] + 1j * f['b'], norm=n)])(_norm))
add('fft_n', lambda P, v: [P.as_real(P.fft.fft(v['x'], n=8)), P.as_real(P.fft.rfft(v['x'], n=4, axis=1)),
                           P.fft.irfft(C(P, v), n=5), P.as_real(P.fft.fft(C(P, v), n=2, axis=0))],
    {'x': X, 'a': A, 'b': B}, grads=['x', 'a', 'b'], grad_outs=(0, 1, 2, 3),
    ref=lambda f: [np.stack([g.real, g.imag], -1) for g in (np.fft.fft(f['x'], 8), np.fft.rfft(f['x'], 4))]
    + [np.fft.irfft(f['a'] + 1j * f['b'], 5)])
add('fft_odd', lambda P, v: [P.as_real(P.fft.rfft(v['x'])), P.fft.irfft(P.fft.rfft(v['x']), n=5)], {'x': X5},
    grads=['x'], grad_outs=(0, 1), ref=lambda f: [np.stack([np.fft.rfft(f['x']).real, np.fft.rfft(f['x']).imag], -1),
                                                f['x']])
add('fft2_fftn', lambda P, v: [P.as_real(P.fft.fft2(v['x'])), P.as_real(P.fft.rfft2(v['x'], norm='ortho')),
                               P.as_real(P.fft.fftn(C(P, v), axes=[0])), P.fft.irfft2(C(P, v)),
                               P.as_real(P.fft.ifftn(v['x'], s=[4, 4])), P.fft.hfftn(C(P, v), axes=[1, 0]),
                               P.as_real(P.fft.ihfft2(v['x'])), P.as_real(P.fft.rfftn(v['x'], s=[2, 8]))],
    {'x': X, 'a': A, 'b': B}, grads=['x', 'a', 'b'], grad_outs=(0, 1, 2, 3, 4, 5, 6, 7),
    ref=lambda f: [np.stack([g.real, g.imag], -1) for g in (np.fft.fft2(f['x']),
                                                              np.fft.rfft2(f['x'], norm='ortho'),
                                                              np.fft.fftn(f['a'] + 1j * f['b'], axes=[0]))]
    + [np.fft.irfft2(f['a'] + 1j * f['b'])])
add('fftfreq_shift', lambda P, v: [P.fft.fftfreq(5, 0.5), P.fft.rfftfreq(6, 0.25), P.fft.fftshift(v['x']),
                                   P.fft.ifftshift(v['x'], axes=[1]), P.fft.fftfreq(4, dtype='float64')],
    {'x': X}, grads=['x'], grad_outs=(2, 3),
    ref=lambda f: [np.fft.fftfreq(5, 0.5), np.fft.rfftfreq(6, 0.25), np.fft.fftshift(f['x']),
                   np.fft.ifftshift(f['x'], axes=[1]), np.fft.fftfreq(4)])
def _stft(x, n_fft, hop, window=None, center=True, pad_mode='reflect', normalized=False, onesided=True):
    """numpy's stft as Paddle defines it: [freq, frames]."""
    w = np.ones(n_fft) if window is None else np.pad(window, ((n_fft - len(window)) // 2,
                                                               n_fft - len(window) - (n_fft - len(window)) // 2))
    if center:
        x = np.pad(x, n_fft // 2, mode=pad_mode)
    frames = np.stack([x[i:i + n_fft] for i in range(0, len(x) - n_fft + 1, hop)]) * w
    spec = (np.fft.rfft if onesided else np.fft.fft)(frames, norm='ortho' if normalized else 'backward')
    return spec.T


def _ri(z):
    return np.stack([z.real, z.imag], -1)


# a batch of one: 2.6.2's static stft / istft keep the batch dim of a 1-D signal (their squeeze_ is not in place
# in a static graph), paddle_exec drops it as the documentation says (case stft_1d)
add('stft', lambda P, v: [P.abs(P.signal.stft(v['s'], 8, hop_length=2)),
                          P.as_real(P.signal.stft(v['m'], 4, pad_mode='constant', normalized=True))],
    {'s': U(-1, 1, (1, 20)), 'm': U(-1, 1, (2, 12))}, grads=['s', 'm'], grad_outs=(0, 1),
    ref=lambda f: [np.abs(_stft(f['s'][0], 8, 2))[None],
                   np.stack([_ri(_stft(r, 4, 1, pad_mode='constant', normalized=True)) for r in f['m']])])
add('istft', lambda P, v: P.signal.istft(P.signal.stft(v['s'], 8, hop_length=2), 8, hop_length=2),
    {'s': U(-1, 1, (1, 20))}, grads=['s'], ref=lambda f: [f['s']])
add('stft_1d', lambda P, v: [P.abs(P.signal.stft(v['s'], 8, hop_length=2)),
                             P.signal.istft(P.signal.stft(v['s'], 8, hop_length=2), 8, hop_length=2)],
    {'s': U(-1, 1, (20,))}, record=False, ref=lambda f: [np.abs(_stft(f['s'], 8, 2)), f['s']])
# 2.6.2's static stft / istft cannot take a window (they call len() on a Variable): numpy is the reference
add('stft_window', lambda P, v: [P.as_real(P.signal.stft(v['s'], 8, 4, win_length=6, window=v['w'], center=False)),
                                 P.signal.istft(P.signal.stft(v['s'], 8, 4, window=v['u']), 8, 4, window=v['u'],
                                                length=16)],
    {'s': U(-1, 1, (20,)), 'w': U(0.5, 1, (6,)), 'u': U(0.5, 1, (8,))}, grads=['s', 'w', 'u'], grad_outs=(0, 1),
    record=False, ref=lambda f: [_ri(_stft(f['s'], 8, 4, f['w'], center=False)), f['s'][:16]])
