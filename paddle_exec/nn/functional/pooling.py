"""paddle.nn.functional pooling (Paddle 2.x): max / avg / adaptive pooling in 1, 2 and 3 dims, and max unpooling.

`stride=None` means the kernel size. Plain pooling is one `pool2d` / `pool3d` op; `return_mask=True` and adaptive
max pooling use `max_pool2d_with_index` / `max_pool3d_with_index` (Mask holds the flat index of each maximum in
its (n, c) plane). As Paddle 2.6 builds them, the 1-D forms unsqueeze x to [N, C, 1, L], pool in 2-D and
`squeeze2` the result; max_unpool1d/2d/3d append `unpool` / `unpool3d` with the output size computed here.
"""
from __future__ import annotations

from ...layers.checks import check_variable_and_dtype, to_int_list
from ...layers.conv import normalize_padding_2d, pool2d_op, pool_nd_op
from ...layers.conv3d import max_pool_with_index_op, normalize_padding_nd
from ...layers.helper import LayerHelper
from ...layers.manipulation import squeeze, unsqueeze

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


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format='NCHW',
               name=None):
    """F.max_pool2d: `pool2d` (pooling_type 'max'); with return_mask, `max_pool2d_with_index` -> (out, mask)."""
    ksize, strides, paddings, algorithm = _geometry(x, kernel_size, stride, padding, ceil_mode, data_format,
                                                    'max_pool2d')
    if return_mask:
        if data_format != 'NCHW' or algorithm != 'EXPLICIT' or ceil_mode or len(paddings) != 2:
            raise ValueError('max_pool2d with return_mask=True supports NCHW input, explicit symmetric paddings '
                             'and ceil_mode=False only')
        return max_pool_with_index_op(2, x, ksize, strides, paddings, False, name=name)
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
    out, mask = max_pool_with_index_op(2, x, size, [1, 1], [0, 0], True, name=name)
    return (out, mask) if return_mask else out


def _output_size(output_size, in_hw):
    if isinstance(output_size, int):
        return [output_size, output_size]
    size = list(output_size)
    return [in_hw[i] if s is None else int(s) for i, s in enumerate(size)]


__all__ += ['max_pool1d', 'avg_pool1d', 'max_pool3d', 'avg_pool3d', 'adaptive_avg_pool1d', 'adaptive_max_pool1d',
            'adaptive_avg_pool3d', 'adaptive_max_pool3d', 'max_unpool1d', 'max_unpool2d', 'max_unpool3d']


def _check_rank(x, rank: int, api: str) -> None:
    if len(x.shape) != rank:
        raise ValueError('Excepted Input X is %d-D tensor, but received %d-D %s' % (rank, len(x.shape), type(x)))


def _geometry_1d(x, kernel_size, stride, padding, ceil_mode, api):
    """x unsqueezed to [N, C, 1, L] and the 2-D ksize / strides / paddings / algorithm of a 1-D pooling."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], api)
    _check_rank(x, 3, api)
    ksize = [1] + to_int_list(kernel_size, 1, 'pool_size')
    strides = ksize if stride is None else [1] + to_int_list(stride, 1, 'pool_stride')
    paddings, algorithm = normalize_padding_nd(padding, False, 1, ceil_mode=ceil_mode)
    paddings = [0, 0] + paddings if len(paddings) == 2 else [0] + paddings
    return unsqueeze(x, [2]), ksize, strides, paddings, algorithm


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """F.max_pool1d: `pool2d` (or `max_pool2d_with_index` with return_mask) on [N, C, 1, L]."""
    x4, ksize, strides, paddings, algorithm = _geometry_1d(x, kernel_size, stride, padding, ceil_mode, 'max_pool1d')
    if return_mask:
        out, mask = max_pool_with_index_op(2, x4, ksize, strides, paddings, False, name=name)
        return squeeze(out, [2]), squeeze(mask, [2])
    out = pool_nd_op('pool2d', x4, 'max', ksize, strides, paddings, algorithm, False, True, ceil_mode, True, 'NCHW',
                     name=name)
    return squeeze(out, [2])


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    """F.avg_pool1d: `pool2d` (avg) on [N, C, 1, L]."""
    x4, ksize, strides, paddings, algorithm = _geometry_1d(x, kernel_size, stride, padding, ceil_mode, 'avg_pool1d')
    out = pool_nd_op('pool2d', x4, 'avg', ksize, strides, paddings, algorithm, False, True, ceil_mode, exclusive,
                     'NCHW', name=name)
    return squeeze(out, [2])


def _geometry_3d(x, kernel_size, stride, padding, ceil_mode, data_format, api):
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], api)
    _check_rank(x, 5, api)
    ksize = to_int_list(kernel_size, 3, 'pool_size')
    strides = ksize if stride is None else to_int_list(stride, 3, 'pool_stride')
    paddings, algorithm = normalize_padding_nd(padding, data_format == 'NDHWC', 3, ceil_mode=ceil_mode)
    return ksize, strides, paddings, algorithm


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format='NCDHW',
               name=None):
    """F.max_pool3d: `pool3d` (max); with return_mask `max_pool3d_with_index` -> (out, mask), NCDHW only."""
    ksize, strides, paddings, algorithm = _geometry_3d(x, kernel_size, stride, padding, ceil_mode, data_format,
                                                       'max_pool3d')
    if return_mask:
        if data_format == 'NDHWC':
            raise ValueError('When setting return_mask to true, data_format must be set to NCDHW in API:max_pool3d')
        return max_pool_with_index_op(3, x, ksize, strides, paddings, False, name=name)
    return pool_nd_op('pool3d', x, 'max', ksize, strides, paddings, algorithm, False, True, ceil_mode, False,
                      data_format, name=name)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format='NCDHW', name=None):
    """F.avg_pool3d: `pool3d` (avg); divisor_override rescales the kd * kh * kw average."""
    ksize, strides, paddings, algorithm = _geometry_3d(x, kernel_size, stride, padding, ceil_mode, data_format,
                                                       'avg_pool3d')
    out = pool_nd_op('pool3d', x, 'avg', ksize, strides, paddings, algorithm, False, True, ceil_mode, exclusive,
                     data_format, name=name)
    if divisor_override is None:
        return out
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, (int, float)):
        raise ValueError("Excepted (<class 'int'>, <class 'float'>) type for divisor_override but received type: "
                         "%s. " % type(divisor_override))
    return out * (ksize[0] * ksize[1] * ksize[2]) / divisor_override


def adaptive_avg_pool1d(x, output_size, name=None):
    """F.adaptive_avg_pool1d: `pool2d` (avg, adaptive) on [N, C, 1, L]."""
    _check_rank(x, 3, 'adaptive_avg_pool1d')
    if not isinstance(output_size, int):
        raise TypeError("The type of 'pool_size' in adaptive_pool1d must be <class 'int'>, but received %s. "
                        % type(output_size))
    x4 = unsqueeze(x, [2])
    check_variable_and_dtype(x4, 'x', ['float16', 'float32', 'float64'], 'adaptive_pool2d')
    helper = LayerHelper('pool2d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pool2d', {'X': [x4]}, {'Out': [out]},
                     {'pooling_type': 'avg', 'ksize': [1, int(output_size)], 'adaptive': True})
    return squeeze(out, [2])


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """F.adaptive_max_pool1d: `max_pool2d_with_index` (adaptive) on [N, C, 1, L]."""
    _check_rank(x, 3, 'adaptive_max_pool1d')
    x4 = unsqueeze(x, [2])
    check_variable_and_dtype(x4, 'x', ['float32', 'float64'], 'adaptive_max_pool1d')
    out, mask = max_pool_with_index_op(2, x4, [1] + to_int_list(output_size, 1, 'pool_size'), [1, 1], [0, 0], True,
                                       name=name)
    return (squeeze(out, [2]), squeeze(mask, [2])) if return_mask else squeeze(out, [2])


def adaptive_avg_pool3d(x, output_size, data_format='NCDHW', name=None):
    """F.adaptive_avg_pool3d: `pool3d` (avg, adaptive); None in output_size keeps that input dim."""
    if data_format not in ('NCDHW', 'NDHWC'):
        raise ValueError("Attr(data_format) should be 'NCDHW' or 'NDHWC'. Received Attr(data_format): %s."
                         % str(data_format))
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'adaptive_avg_pool2d')
    spatial = x.shape[2:5] if data_format == 'NCDHW' else x.shape[1:4]
    size = _output_size_nd(output_size, spatial)
    helper = LayerHelper('pool3d', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pool3d', {'X': [x]}, {'Out': [out]},
                     {'pooling_type': 'avg', 'ksize': size, 'adaptive': True, 'data_format': data_format})
    return out


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """F.adaptive_max_pool3d: `max_pool3d_with_index` (adaptive), NCDHW."""
    _check_rank(x, 5, 'adaptive_max_pool3d')
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'adaptive_max_pool3d')
    size = _output_size_nd(output_size, x.shape[2:5])
    out, mask = max_pool_with_index_op(3, x, size, [1, 1, 1], [0, 0, 0], True, name=name)
    return (out, mask) if return_mask else out


def _output_size_nd(output_size, spatial):
    if isinstance(output_size, int):
        return [output_size] * len(spatial)
    return [int(spatial[i]) if s is None else int(s) for i, s in enumerate(output_size)]


def _unpool_output_size(x, kernel_size, stride, padding, output_size):
    """Paddle's _unpool_output_size: (in - 1) * stride + kernel - 2 * padding, or a checked output_size."""
    n = len(kernel_size)
    default = [(x.shape[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if not isinstance(output_size, (list, tuple)):
        raise AssertionError('Required output_size is None|list|tuple, but received %s' % (output_size,))
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError("output_size should be a sequence containing %d or %d elements, but it has a length of '%d'"
                         % (n, n + 2, len(output_size)))
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError('invalid output_size "%s" (dim %d must be between %d and %d)' % (output_size, d, lo, hi))
    return [int(v) for v in output_size]


def _unpool(op_type, x, indices, ksize, strides, paddings, output_size, name):
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {'X': [x], 'Indices': [indices]}, {'Out': [out]},
                     {'unpooling_type': 'max', 'ksize': ksize, 'strides': strides, 'paddings': paddings,
                      'output_size': output_size})
    return out


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format='NCL', output_size=None, name=None):
    """F.max_unpool1d: `unpool` on x and indices unsqueezed to [N, C, 1, L], then `squeeze2`."""
    if data_format != 'NCL':
        raise ValueError("Attr(data_format) should be 'NCL'. Received Attr(data_format): %s." % str(data_format))
    x4, idx4 = unsqueeze(x, [2]), unsqueeze(indices, [2])
    ksize = [1] + to_int_list(kernel_size, 1, 'pool_size')
    strides = ksize if stride is None else [1] + to_int_list(stride, 1, 'pool_stride')
    paddings, _ = normalize_padding_nd(padding, False, 1)
    paddings = [0, 0] + paddings if len(paddings) == 2 else [0] + paddings
    size = _unpool_output_size(x4, ksize, strides, paddings, output_size)
    return squeeze(_unpool('unpool', x4, idx4, ksize, strides, paddings, size, name), [2])


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format='NCHW', output_size=None, name=None):
    """F.max_unpool2d: one `unpool` op; Out[n, c, indices] = x (zeros elsewhere)."""
    if len(x.shape) != 4:
        raise ValueError('The x should have [N, C, H, W] format, but received %s.' % (list(x.shape),))
    if len(indices.shape) != 4:
        raise ValueError('The indices should have [N, C, H, W] format, but received %s.' % (list(indices.shape),))
    ksize = to_int_list(kernel_size, 2, 'pool_size')
    strides = ksize if stride is None else to_int_list(stride, 2, 'pool_stride')
    paddings = to_int_list(padding, 2, 'padding')
    if data_format != 'NCHW':
        raise ValueError("Attr(data_format) should be 'NCHW'. Received Attr(data_format): %s." % str(data_format))
    size = _unpool_output_size(x, ksize, strides, paddings, output_size)
    return _unpool('unpool', x, indices, ksize, strides, paddings, size, name)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format='NCDHW', output_size=None, name=None):
    """F.max_unpool3d: one `unpool3d` op."""
    if len(x.shape) != 5:
        raise ValueError('The x should have [N, C, D, H, W] format, but received %s.' % (list(x.shape),))
    if len(indices.shape) != 5:
        raise ValueError('The indices should have [N, C, D, H, W] format, but received %s.' % (list(indices.shape),))
    ksize = to_int_list(kernel_size, 3, 'pool_size')
    strides = ksize if stride is None else to_int_list(stride, 3, 'pool_stride')
    paddings = to_int_list(padding, 3, 'padding')
    if data_format != 'NCDHW':
        raise ValueError("Attr(data_format) should be 'NCDHW'. Received Attr(data_format): %s." % str(data_format))
    size = _unpool_output_size(x, ksize, strides, paddings, output_size)
    return _unpool('unpool3d', x, indices, ksize, strides, paddings, size, name)
