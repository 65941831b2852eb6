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
from ...layers.control_flow import tensor_array_to_tensor
from ...layers.indexing import argmax, argmin, argsort
from ...layers.manipulation import concat, reverse
from ...layers.math import has_inf, has_nan, isfinite, sums
from ...layers.matrix import eye, tril, triu

__all__ = ['arange', 'argmax', 'argmin', 'argsort', 'assign', 'cast', 'concat', 'create_global_var',
           'create_parameter', 'create_tensor', 'eye', 'fill_constant', 'fill_constant_batch_size_like', 'has_inf',
           'has_nan', 'isfinite', 'linspace', 'ones', 'ones_like', 'range', 'reverse', 'sums', 'tensor_array_to_tensor', 'tril', 'triu',
           'zeros', 'zeros_like']
