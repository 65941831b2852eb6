"""paddle.nn vision layers: PixelShuffle, PixelUnshuffle, ChannelShuffle, Unfold and Fold -- the nn.functional
builders of the same names with their arguments fixed at construction."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['PixelShuffle', 'PixelUnshuffle', 'ChannelShuffle', 'Unfold', 'Fold']


class PixelShuffle(Layer):
    """[N, C * r * r, H, W] -> [N, C, H * r, W * r]."""

    def __init__(self, upscale_factor, data_format='NCHW', name=None):
        super().__init__()
        if not isinstance(upscale_factor, int):
            raise TypeError('upscale factor must be int type')
        if data_format not in ('NCHW', 'NHWC'):
            raise ValueError("Data format should be 'NCHW' or 'NHWC'.But recevie data format: %s" % data_format)
        self._upscale_factor, self._data_format, self._name = upscale_factor, data_format, name

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format, self._name)

    def extra_repr(self) -> str:
        return 'upscale_factor=%d, data_format=%s' % (self._upscale_factor, self._data_format)


class PixelUnshuffle(Layer):
    """[N, C, H * r, W * r] -> [N, C * r * r, H, W]."""

    def __init__(self, downscale_factor, data_format='NCHW', name=None):
        super().__init__()
        if not isinstance(downscale_factor, int):
            raise TypeError('Downscale factor must be int type')
        if downscale_factor <= 0:
            raise ValueError('Downscale factor must be positive')
        if data_format not in ('NCHW', 'NHWC'):
            raise ValueError("Data format should be 'NCHW' or 'NHWC'.But recevie data format: %s" % data_format)
        self._downscale_factor, self._data_format, self._name = downscale_factor, data_format, name

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format, self._name)

    def extra_repr(self) -> str:
        return 'downscale_factor=%d, data_format=%s' % (self._downscale_factor, self._data_format)


class ChannelShuffle(Layer):
    """Channels viewed as [groups, C / groups] and transposed."""

    def __init__(self, groups, data_format='NCHW', name=None):
        super().__init__()
        if not isinstance(groups, int):
            raise TypeError('groups must be int type')
        if groups <= 0:
            raise ValueError('groups must be positive')
        if data_format not in ('NCHW', 'NHWC'):
            raise ValueError("Data format should be 'NCHW' or 'NHWC'.But recevie data format: %s" % data_format)
        self._groups, self._data_format, self._name = groups, data_format, name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format, self._name)

    def extra_repr(self) -> str:
        return 'groups=%d, data_format=%s' % (self._groups, self._data_format)


class Unfold(Layer):
    """F.unfold (im2col) with its arguments fixed at construction."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides, self.name = (kernel_sizes, dilations,
                                                                                      paddings, strides, name)

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                        dilations=self.dilations, name=self.name)

    def extra_repr(self) -> str:
        return 'kernel_size=%s, dilation=%s, padding=%s, stride=%s' % (self.kernel_sizes, self.dilations,
                                                                       self.paddings, self.strides)


class Fold(Layer):
    """F.fold (col2im) with its arguments fixed at construction."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides, self.name = dilations, paddings, strides, name

    def forward(self, input):
        return F.fold(input, output_sizes=self.output_sizes, kernel_sizes=self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations, name=self.name)

    def extra_repr(self) -> str:
        return 'kernel_size=%s, dilation=%s, padding=%s, stride=%s' % (self.kernel_sizes, self.dilations,
                                                                       self.paddings, self.strides)
