"""paddle.nn.PairwiseDistance: F.pairwise_distance with p, epsilon and keepdim fixed at construction."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['PairwiseDistance']


class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p = p
        self.epsilon = epsilon
        self.keepdim = keepdim
        self.name = name

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
