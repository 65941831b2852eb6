"""paddle.nn pooling layers: max / avg / adaptive pooling in 1, 2 and 3 dims and max unpooling, each the
nn.functional builder of the same name with its arguments fixed at construction (Paddle 2.6's signatures)."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D', 'AdaptiveAvgPool1D',
           'AdaptiveAvgPool2D', 'AdaptiveAvgPool3D', 'AdaptiveMaxPool1D', 'AdaptiveMaxPool2D', 'AdaptiveMaxPool3D',
           'MaxUnPool1D', 'MaxUnPool2D', 'MaxUnPool3D']


class _Pool(Layer):
    """Calls `_functional(x, **args)`; the arguments are the constructor's, in Paddle's names."""
    _functional = None

    def __init__(self, **args):
        super().__init__()
        self._args = args

    def forward(self, x):
        return type(self)._functional(x, **self._args)

    def extra_repr(self) -> str:
        return ', '.join('%s=%s' % (k, v) for k, v in self._args.items() if k != 'name')


class MaxPool1D(_Pool):
    _functional = staticmethod(F.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, name=name)


class MaxPool2D(_Pool):
    _functional = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format='NCHW', name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format, name=name)


class MaxPool3D(_Pool):
    _functional = staticmethod(F.max_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format='NCDHW', name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format, name=name)


class AvgPool1D(_Pool):
    _functional = staticmethod(F.avg_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, exclusive=exclusive,
                         ceil_mode=ceil_mode, name=name)


class AvgPool2D(_Pool):
    _functional = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format='NCHW', name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format, name=name)


class AvgPool3D(_Pool):
    _functional = staticmethod(F.avg_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format='NCDHW', name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format, name=name)


class AdaptiveAvgPool1D(_Pool):
    _functional = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size, name=None):
        super().__init__(output_size=output_size, name=name)


class AdaptiveAvgPool2D(_Pool):
    _functional = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size, data_format='NCHW', name=None):
        super().__init__(output_size=output_size, data_format=data_format, name=name)


class AdaptiveAvgPool3D(_Pool):
    _functional = staticmethod(F.adaptive_avg_pool3d)

    def __init__(self, output_size, data_format='NCDHW', name=None):
        super().__init__(output_size=output_size, data_format=data_format, name=name)


class AdaptiveMaxPool1D(_Pool):
    _functional = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class AdaptiveMaxPool2D(_Pool):
    _functional = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class AdaptiveMaxPool3D(_Pool):
    _functional = staticmethod(F.adaptive_max_pool3d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class _Unpool(_Pool):
    def forward(self, x, indices):
        return type(self)._functional(x, indices, **self._args)


class MaxUnPool1D(_Unpool):
    _functional = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCL', output_size=None, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, data_format=data_format,
                         output_size=output_size, name=name)


class MaxUnPool2D(_Unpool):
    _functional = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCHW', output_size=None, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, data_format=data_format,
                         output_size=output_size, name=name)


class MaxUnPool3D(_Unpool):
    _functional = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCDHW', output_size=None, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, data_format=data_format,
                         output_size=output_size, name=name)
