"""paddle.nn convolution layers in static mode: Conv1D / 2D / 3D and their transposes, as Paddle 2.6's _ConvNd.

The weight is [out_channels, in_channels / groups, *kernel] (transposes: [in_channels, out_channels / groups,
*kernel]); its default initialiser is Normal(0, sqrt(2 / (prod(kernel) * in_channels))) for convolutions and
Xavier (the helper's default) for transposes; the bias is zeros (bias_attr=False: none). A padding_mode other than
'zeros' pads the input with F.pad (reflect / replicate / circular) and convolves without padding, as Paddle does.
"""
from __future__ import annotations

from ...initializer import NormalInitializer
from ...layers.checks import to_int_list
from ...ops._util import prod
from .. import functional as F
from .layers import Layer

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose']

_FORMATS = {1: ('NCL', 'NLC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


class _ConvNd(Layer):
    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, padding_mode='zeros',
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__()
        if weight_attr is False:
            raise AssertionError('weight_attr should not be False in Conv.')
        dims = self._dims
        data_format = _FORMATS[dims][0] if data_format is None else data_format
        valid_modes = {'zeros', 'reflect', 'replicate', 'circular'}
        if padding_mode not in valid_modes:
            raise ValueError("padding_mode must be one of %s, but got padding_mode='%s'" % (valid_modes, padding_mode))
        if padding_mode != 'zeros' and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type of padding must be int")
        if data_format not in _FORMATS[dims]:
            raise ValueError("data_format must be one of %s, but got data_format='%s'"
                             % (set(_FORMATS[dims]), data_format))
        if not self._transposed and in_channels % groups != 0:
            raise ValueError('in_channels must be divisible by groups.')
        self._in_channels, self._out_channels, self._groups = int(in_channels), int(out_channels), int(groups)
        self._data_format = data_format
        self._stride = to_int_list(stride, dims, 'stride')
        self._dilation = to_int_list(dilation, dims, 'dilation')
        self._kernel_size = to_int_list(kernel_size, dims, 'kernel_size')
        self._padding, self._padding_mode, self.output_padding = padding, padding_mode, output_padding
        if self._transposed:
            shape = [self._in_channels, self._out_channels // self._groups] + self._kernel_size
            init = None
        else:
            shape = [self._out_channels, self._in_channels // self._groups] + self._kernel_size
            init = NormalInitializer(0.0, (2.0 / (prod(self._kernel_size) * self._in_channels)) ** 0.5)
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=init)
        self.bias = self.create_parameter([self._out_channels], attr=bias_attr, is_bias=True)

    def _padded(self, x):
        """(input, padding) for the convolution: the input padded by F.pad when padding_mode is not 'zeros'."""
        if self._padding_mode == 'zeros':
            return x, self._padding
        pads = [int(self._padding)] * (2 * self._dims)
        return F.pad(x, pads, mode=self._padding_mode, data_format=self._data_format), 0

    def extra_repr(self) -> str:
        text = '%d, %d, kernel_size=%s' % (self._in_channels, self._out_channels, self._kernel_size)
        if self._stride != [1] * self._dims:
            text += ', stride=%s' % self._stride
        if self._padding != 0:
            text += ', padding=%s' % (self._padding,)
        if self._padding_mode != 'zeros':
            text += ', padding_mode=%s' % self._padding_mode
        if self.output_padding != 0:
            text += ', output_padding=%s' % (self.output_padding,)
        if self._dilation != [1] * self._dims:
            text += ', dilation=%s' % self._dilation
        if self._groups != 1:
            text += ', groups=%d' % self._groups
        return text + ', data_format=%s' % self._data_format


class _Conv(_ConvNd):
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode='zeros', weight_attr=None, bias_attr=None, data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, padding_mode, 0, dilation, groups,
                         weight_attr, bias_attr, data_format)

    def forward(self, x):
        x, padding = self._padded(x)
        return type(self)._functional(x, self.weight, self.bias, stride=self._stride, padding=padding,
                                      dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv1D(_Conv):
    """1-D convolution of [N, C, L] (or NLC) inputs (F.conv1d)."""
    _dims = 1
    _functional = staticmethod(F.conv1d)


class Conv2D(_Conv):
    """2-D convolution of [N, C, H, W] (or NHWC) inputs (F.conv2d)."""
    _dims = 2
    _functional = staticmethod(F.conv2d)


class Conv3D(_Conv):
    """3-D convolution of [N, C, D, H, W] (or NDHWC) inputs (F.conv3d)."""
    _dims = 3
    _functional = staticmethod(F.conv3d)


class _ConvTranspose(_ConvNd):
    _transposed = True
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 'zeros', output_padding, dilation,
                         groups, weight_attr, bias_attr, data_format)

    def forward(self, x, output_size=None):
        return type(self)._functional(x, self.weight, bias=self.bias, output_size=output_size,
                                      output_padding=self.output_padding, padding=self._padding, stride=self._stride,
                                      dilation=self._dilation, groups=self._groups, data_format=self._data_format)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution (F.conv1d_transpose); weight [in_channels, out_channels / groups, k]."""
    _dims = 1
    _functional = staticmethod(F.conv1d_transpose)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution (F.conv2d_transpose); weight [in_channels, out_channels / groups, kh, kw]."""
    _dims = 2
    _functional = staticmethod(F.conv2d_transpose)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution (F.conv3d_transpose)."""
    _dims = 3
    _functional = staticmethod(F.conv3d_transpose)
