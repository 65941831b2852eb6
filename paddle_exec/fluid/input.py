"""fluid.embedding / fluid.one_hot (Paddle 1.8's fluid/input.py): the v2 ops, ids without a trailing 1 dim."""
from __future__ import annotations

from ..layers.common import one_hot_op
from ..static.nn.common import embedding

__all__ = ['embedding', 'one_hot']


def one_hot(input, depth, allow_out_of_range=False):
    return one_hot_op('one_hot_v2', input, depth, allow_out_of_range, 'one_hot')
