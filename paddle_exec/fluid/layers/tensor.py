"""fluid.layers.tensor (Paddle 1.8's module path): tensor creation, casting, concat, sums, argmax / argsort.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.casting import cast
from ...layers.creation import (
           arange,
           assign,
           create_global_var,
           create_parameter,
           create_tensor,
           fill_constant,
           fill_constant_batch_size_like,
           linspace,
           ones,
           ones_like,
           range,
           zeros,
           zeros_like,
)
from ...layers.indexing import argmax, argmin, argsort
from ...layers.linalg import diag, kron, trace
from ...layers.manipulation import concat, reverse
from ...layers.math import has_inf, has_nan, isfinite, sums
from ...layers.matrix import eye, tril, triu
from ...layers.select import full, full_like, tensor_array_to_tensor

__all__ = ['arange', 'argmax', 'argmin', 'argsort', 'assign', 'cast', 'concat', 'create_global_var', 'create_parameter',
           'create_tensor', 'diag', 'eye', 'fill_constant', 'fill_constant_batch_size_like', 'full', 'full_like',
           'has_inf', 'has_nan', 'isfinite', 'kron', 'linspace', 'ones', 'ones_like', 'range', 'reverse', 'sums',
           'tensor_array_to_tensor', 'trace', 'tril', 'triu', 'zeros', 'zeros_like']
