"""paddle.nn.functional 2-D pooling (Paddle 2.x): max_pool2d, avg_pool2d, adaptive_avg_pool2d,
adaptive_max_pool2d.

`stride=None` means the kernel size. Plain pooling is one `pool2d` op; `return_mask=True` and adaptive max
pooling use `max_pool2d_with_index` (Mask holds the flat h * W + w index of each maximum).
"""
from __future__ import annotations

from ...framework.dtype import VarType
from ...layers.checks import check_variable_and_dtype, to_int_list
from ...layers.conv import normalize_padding_2d, pool2d_op
from ...layers.helper import LayerHelper

__all__ = ['max_pool2d', 'avg_pool2d', 'adaptive_avg_pool2d', 'adaptive_max_pool2d']


def _check_format(data_format):
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("Attr(data_format) should be 'NCHW' or 'NHWC'. Received Attr(data_format): %s."
                         % str(data_format))


def _geometry(x, kernel_size, stride, padding, ceil_mode, data_format, api):
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], api)
    _check_format(data_format)
    if len(x.shape) != 4:
        raise ValueError('Excepted Input X is 4-D tensor, but received %d-D %s' % (len(x.shape), type(x)))
    ksize = to_int_list(kernel_size, 2, 'pool_size')
    strides = ksize if stride is None else to_int_list(stride, 2, 'pool_stride')
    paddings, algorithm = normalize_padding_2d(padding, data_format, ceil_mode)
    return ksize, strides, paddings, algorithm


def _max_pool_with_index(x, ksize, strides, paddings, adaptive, name):
    helper = LayerHelper('max_pool2d_with_index', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('max_pool2d_with_index', {'X': [x]}, {'Out': [out], 'Mask': [mask]},
                     {'pooling_type': 'max', 'ksize': list(ksize), 'global_pooling': False,
                      'strides': list(strides), 'paddings': list(paddings), 'adaptive': bool(adaptive)})
    return out, mask


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format='NCHW',
               name=None):
    """F.max_pool2d: `pool2d` (pooling_type 'max'); with return_mask, `max_pool2d_with_index` -> (out, mask)."""
    ksize, strides, paddings, algorithm = _geometry(x, kernel_size, stride, padding, ceil_mode, data_format,
                                                    'max_pool2d')
    if return_mask:
        if data_format != 'NCHW' or algorithm != 'EXPLICIT' or ceil_mode or len(paddings) != 2:
            raise ValueError('max_pool2d with return_mask=True supports NCHW input, explicit symmetric paddings '
                             'and ceil_mode=False only')
        return _max_pool_with_index(x, ksize, strides, paddings, False, name)
    return pool2d_op(x, 'max', ksize, strides, paddings, algorithm, False, True, ceil_mode, True, data_format,
                     name=name)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format='NCHW', name=None):
    """F.avg_pool2d: `pool2d` (pooling_type 'avg'); divisor_override rescales the kh * kw average."""
    ksize, strides, paddings, algorithm = _geometry(x, kernel_size, stride, padding, ceil_mode, data_format,
                                                    'avg_pool2d')
    out = pool2d_op(x, 'avg', ksize, strides, paddings, algorithm, False, True, ceil_mode, exclusive,
                    data_format, name=name)
    if divisor_override is None:
        return out
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, float)):
        raise ValueError("Excepted (<class 'int'>, <class 'float'>) type for divisor_override but received type: "
                         "%s. " % type(divisor_override))
    return out * (ksize[0] * ksize[1]) / divisor_override


def adaptive_avg_pool2d(x, output_size, data_format='NCHW', name=None):
    """F.adaptive_avg_pool2d: `pool2d` with adaptive=True and ksize = output_size (None keeps that input dim)."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'adaptive_avg_pool2d')
    _check_format(data_format)
    hw = (x.shape[1], x.shape[2]) if data_format == 'NHWC' else (x.shape[2], x.shape[3])
    size = _output_size(output_size, hw)
    return pool2d_op(x, 'avg', size, [1, 1], [0, 0], 'EXPLICIT', False, True, False, True, data_format,
                     adaptive=True, name=name)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """F.adaptive_max_pool2d: `max_pool2d_with_index` with adaptive=True (NCHW)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'adaptive_max_pool2d')
    size = _output_size(output_size, (x.shape[2], x.shape[3]))
    out, mask = _max_pool_with_index(x, size, [1, 1], [0, 0], True, name)
    return (out, mask) if return_mask else out


def _output_size(output_size, in_hw):
    if isinstance(output_size, int):
        return [output_size, output_size]
    size = list(output_size)
    return [in_hw[i] if s is None else int(s) for i, s in enumerate(size)]
