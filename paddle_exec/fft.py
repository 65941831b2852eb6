"""paddle.fft (Paddle 2.x's module path): maps its names onto the one implementation in tensor/fft.py. `__all__` is
2.6.2's list."""
from .tensor.fft import (
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = ['fft', 'fft2', 'fftfreq', 'fftn', 'fftshift', 'hfft', 'hfft2', 'hfftn', 'ifft', 'ifft2', 'ifftn',
           'ifftshift', 'ihfft', 'ihfft2', 'ihfftn', 'irfft', 'irfft2', 'irfftn', 'rfft', 'rfft2', 'rfftfreq', 'rfftn']
