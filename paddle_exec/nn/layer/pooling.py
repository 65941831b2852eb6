"""paddle.nn pooling layers: MaxPool2D, AvgPool2D, AdaptiveAvgPool2D, AdaptiveMaxPool2D, each the nn.functional
builder of the same name with its arguments fixed at construction."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['MaxPool2D', 'AvgPool2D', 'AdaptiveAvgPool2D', 'AdaptiveMaxPool2D']


class MaxPool2D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format='NCHW', name=None):
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                          ceil_mode=ceil_mode, data_format=data_format, name=name)

    def forward(self, x):
        return F.max_pool2d(x, **self._args)


class AvgPool2D(Layer):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format='NCHW', name=None):
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                          exclusive=exclusive, divisor_override=divisor_override, data_format=data_format, name=name)

    def forward(self, x):
        return F.avg_pool2d(x, **self._args)


class AdaptiveAvgPool2D(Layer):
    def __init__(self, output_size, data_format='NCHW', name=None):
        super().__init__()
        self._args = dict(output_size=output_size, data_format=data_format, name=name)

    def forward(self, x):
        return F.adaptive_avg_pool2d(x, **self._args)


class AdaptiveMaxPool2D(Layer):
    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__()
        self._args = dict(output_size=output_size, return_mask=return_mask, name=name)

    def forward(self, x):
        return F.adaptive_max_pool2d(x, **self._args)
