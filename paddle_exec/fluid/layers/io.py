"""fluid.layers.io (Paddle 1.8's module path): `data`, the 1.x data layer.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.io import data

__all__ = ['data']
