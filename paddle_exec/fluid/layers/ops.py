"""fluid.layers.ops (Paddle 1.8's module path): the generated one-input layers (activations, cumsum, erf).

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.activation import (
           abs,
           acos,
           asin,
           atan,
           ceil,
           cos,
           erf,
           exp,
           floor,
           gelu,
           hard_shrink,
           logsigmoid,
           reciprocal,
           round,
           rsqrt,
           sigmoid,
           sin,
           softplus,
           softshrink,
           softsign,
           sqrt,
           square,
           tanh,
           tanh_shrink,
           thresholded_relu,
)
from ...layers.math import cumsum

__all__ = ['abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'cumsum', 'erf', 'exp', 'floor', 'gelu', 'hard_shrink',
           'logsigmoid', 'reciprocal', 'round', 'rsqrt', 'sigmoid', 'sin', 'softplus', 'softshrink', 'softsign', 'sqrt',
           'square', 'tanh', 'tanh_shrink', 'thresholded_relu']
