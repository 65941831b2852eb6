"""fluid.data (Paddle 1.8's module path of the function `fluid.data`): the 2.x-style data layer, no batch dim
added (paddle_exec/layers/io.py)."""
from ..layers.io import data_v2 as data

__all__ = ['data']
