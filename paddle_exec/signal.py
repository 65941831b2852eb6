"""paddle.signal (Paddle 2.x's module path): stft and istft from tensor/signal.py."""
from .tensor.signal import istft, stft

__all__ = ['stft', 'istft']
