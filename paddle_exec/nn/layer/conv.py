"""paddle.nn.Conv2D in static mode: weight [out_channels, in_channels / groups, kh, kw], by default drawn from
Normal(0, sqrt(2 / (kh * kw * in_channels))) as Paddle 2.x does; bias zeros (bias_attr=False: none)."""
from __future__ import annotations

from ...initializer import NormalInitializer
from ...layers.checks import to_int_list
from .. import functional as F
from .layers import Layer

__all__ = ['Conv2D']


class Conv2D(Layer):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, padding_mode: str = 'zeros', weight_attr=None, bias_attr=None,
                 data_format: str = 'NCHW'):
        super().__init__()
        if padding_mode != 'zeros':
            raise NotImplementedError("Conv2D: padding_mode %r is not supported; only 'zeros'" % (padding_mode,))
        if groups <= 0 or in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups, got in_channels=%d, groups=%d'
                             % (in_channels, groups))
        if out_channels % groups != 0:
            raise ValueError('out_channels must be divisible by groups, got out_channels=%d, groups=%d'
                             % (out_channels, groups))
        self._in_channels, self._out_channels = int(in_channels), int(out_channels)
        self._kernel_size = to_int_list(kernel_size, 2, 'kernel_size')
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._groups, self._data_format = int(groups), data_format
        fan_in = self._kernel_size[0] * self._kernel_size[1] * self._in_channels
        self.weight = self.create_parameter(
            [self._out_channels, self._in_channels // self._groups] + self._kernel_size, attr=weight_attr,
            default_initializer=NormalInitializer(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, stride=self._stride, padding=self._padding,
                        dilation=self._dilation, groups=self._groups, data_format=self._data_format)

    def extra_repr(self) -> str:
        return '%d, %d, kernel_size=%s, stride=%s, padding=%s, groups=%d, data_format=%s' % (
            self._in_channels, self._out_channels, self._kernel_size, self._stride, self._padding, self._groups,
            self._data_format)
