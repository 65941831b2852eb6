"""paddle.nn.PairwiseDistance: F.pairwise_distance with its arguments fixed at construction."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['PairwiseDistance']


class PairwiseDistance(Layer):
    """||x - y + epsilon||_p along the last axis."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self):
        main_str = 'p={p}'
        if self.epsilon != 1e-6:
            main_str += ', epsilon={epsilon}'
        if self.keepdim is not False:
            main_str += ', keepdim={keepdim}'
        if self.name is not None:
            main_str += ', name={name}'
        return main_str.format(**self.__dict__)
