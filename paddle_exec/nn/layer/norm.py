"""paddle.nn normalisation layers in static mode: BatchNorm1D / 2D and LayerNorm.

BatchNorm's parameters, in Paddle's order and names: weight (`.w_0`, ones), bias (`.b_0`, zeros), the running mean
(`.w_1`, zeros) and variance (`.w_2`, ones); the running statistics are non-trainable Parameters with
stop_gradient, listed in state_dict() as `_mean` / `_variance`. `training` (train()/eval()) decides when the op
is built whether it normalises with the batch's statistics and updates the running ones, or uses the running ones.
"""
from __future__ import annotations

from ...initializer import ConstantInitializer
from ...ops._util import prod
from ...param_attr import ParamAttr
from .. import functional as F
from .layers import Layer

__all__ = ['BatchNorm1D', 'BatchNorm2D', 'LayerNorm']


class _BatchNormBase(Layer):
    _ranks: tuple = ()
    _formats: tuple = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = 'NCHW', use_global_stats=None, name=None):
        super().__init__()
        if data_format not in self._formats:
            raise ValueError('%s: data_format must be one of %s, got %r'
                             % (type(self).__name__, ', '.join(self._formats), data_format))
        self._num_features = int(num_features)
        self._momentum, self._epsilon = momentum, epsilon
        self._data_format, self._use_global_stats, self._name = data_format, use_global_stats, name
        shape = [self._num_features]
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=ConstantInitializer(1.0))
        self.bias = self.create_parameter(shape, attr=bias_attr, is_bias=True)
        if weight_attr is False or bias_attr is False:
            raise NotImplementedError('%s without a weight or bias (attr False) is not supported'
                                      % type(self).__name__)
        self._mean = self.create_parameter(shape, attr=ParamAttr(initializer=ConstantInitializer(0.0),
                                                                 trainable=False))
        self._variance = self.create_parameter(shape, attr=ParamAttr(initializer=ConstantInitializer(1.0),
                                                                     trainable=False))
        self._mean.stop_gradient = self._variance.stop_gradient = True

    def forward(self, input):
        if len(input.shape) not in self._ranks:
            raise ValueError('%s expects an input of rank %s, but received input with shape %s'
                             % (type(self).__name__, ' or '.join(map(str, self._ranks)), list(input.shape)))
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, training=self.training,
                            momentum=self._momentum, epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats, name=self._name)

    def extra_repr(self) -> str:
        return 'num_features=%d, momentum=%s, epsilon=%s, data_format=%s' % (
            self._num_features, self._momentum, self._epsilon, self._data_format)


class BatchNorm1D(_BatchNormBase):
    """Batch normalisation of [N, C] or [N, C, L] inputs over the channel C."""
    _ranks = (2, 3)
    _formats = ('NC', 'NCL', 'NLC')

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format='NCL', use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalisation of [N, C, H, W] (or NHWC) inputs over the channel C."""
    _ranks = (4,)
    _formats = ('NCHW', 'NHWC')


class LayerNorm(Layer):
    """Normalises over the trailing `normalized_shape` dims; weight ones and bias zeros of their product's size
    (weight_attr / bias_attr False: none)."""

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._epsilon, self._name = epsilon, name
        size = [prod(self._normalized_shape)]
        self.weight = self.create_parameter(size, attr=weight_attr, default_initializer=ConstantInitializer(1.0))
        self.bias = self.create_parameter(size, attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon, name=self._name)

    def extra_repr(self) -> str:
        return 'normalized_shape=%s, epsilon=%s' % (self._normalized_shape, self._epsilon)
