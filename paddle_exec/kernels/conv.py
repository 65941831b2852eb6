"""Convolution and pooling kernels with PaddlePaddle's semantics (``conv2d``, ``pool2d``; fluid 1.8 CPU kernels).

Layout: NCHW inside; ``data_format="NHWC"`` is handled by transposing in the wrapper. Filters are always
``[out_c, in_c / groups, kh, kw]`` (also for NHWC, as in Paddle).

Paddings follow Paddle's ``UpdatePadding``: 2 values ``[ph, pw]`` mean ``[ph, ph, pw, pw]``; 4 values are
``[top, bottom, left, right]``. ``padding_algorithm="SAME"`` computes ``pad_sum = max((ceil(in / s) - 1) * s + k -
in, 0)``, ``top = pad_sum // 2`` (the odd pixel goes to the bottom/right) and, for conv2d, resets the dilations to 1;
``"VALID"`` zeroes the paddings. Windows start at ``o * stride - top`` (``- left``); bottom and right paddings only
change the output size.

conv2d: ``im2col`` in numba, the product in numpy's BLAS (which releases the GIL). The column matrix is laid out
``[C * kh * kw, N * Ho * Wo]`` so each group is one GEMM for the whole batch.

pool2d (Paddle 1.8 ``math/pooling.cc``):

- each window is clipped to the input, ``[max(o*s - pad, 0), min(o*s - pad + k, in))``; ``ceil_mode`` adds
  ``stride - 1`` before the floor division of the output size. A window that falls entirely in the padding is
  empty: max gives ``-FLT_MAX``, exclusive avg ``0 / 0``.
- max: the initial value is ``-FLT_MAX`` and a later element replaces the current one only if strictly greater;
  the gradient goes to the FIRST element (row-major scan of the clipped window) equal to the output value.
- avg: ``exclusive=True`` (Paddle's default) divides by the number of elements inside the input, ``False`` by
  ``kh * kw`` (Paddle 1.8; Paddle >= 2.x divides by the window clipped to the padded input, which differs only for
  ``ceil_mode`` windows that reach past the padding).
- ``adaptive``: output size = ``ksize``, paddings 0. avg: window ``[floor(o * in / out), ceil((o + 1) * in /
  out))``, divided by the window size. max: Paddle's ``pool2d`` kernel calls the max functor with
  ``adaptive=false``, so the windows are the plain ``ksize``/``strides`` ones (reproduced here); Paddle's
  adaptive max pooling API uses ``max_pool2d_with_index`` instead, see :func:`max_pool2d_with_index_forward`.
- ``global_pooling``: ``ksize`` = the input's spatial size and paddings 0.
"""
import numpy as np

from .jit import kernel_jit

__all__ = [
    'resolve_paddings', 'resolve_paddings_nd', 'conv_output_size', 'pool_output_size',
    'conv2d_output_size', 'pool2d_output_size',
    'conv2d_forward', 'conv2d_backward', 'pool2d_forward', 'pool2d_backward',
    'max_pool2d_with_index_forward', 'max_pool2d_with_index_backward',
]

_jit = kernel_jit(error_model='numpy')

FLT_MAX = 3.4028234663852886e38  # Paddle's MaxPool initial value is -FLT_MAX for float and double alike


# ----------------------------------------------------------------------------------------------------------------
# attribute handling (plain Python)

def _ntuple(v, name, n):
    """An int or a 1- or n-element sequence as an n-tuple of ints (Paddle's attribute expansion)."""
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = [int(a) for a in v]
    if len(v) == 1:
        return tuple(v) * n
    if len(v) != n:
        raise ValueError('%s must have %d elements, got %s' % (name, n, v))
    return tuple(v)


def _pair(v, name):
    return _ntuple(v, name, 2)


def resolve_paddings_nd(paddings, padding_algorithm, in_size, ksize, strides):
    """Paddle's ``UpdatePadding`` for any number of spatial dims: ``(before_0, after_0, before_1, ...)``."""
    n = len(in_size)
    if padding_algorithm == 'SAME':
        pads = []
        for size, k, s in zip(in_size, ksize, strides):
            out = (size + s - 1) // s
            pad_sum = max((out - 1) * s + k - size, 0)
            pads += [pad_sum // 2, pad_sum - pad_sum // 2]
        return tuple(pads)
    if padding_algorithm == 'VALID':
        return (0,) * (2 * n)
    if padding_algorithm not in ('EXPLICIT', None):
        raise ValueError("padding_algorithm must be 'EXPLICIT', 'SAME' or 'VALID', got %r" % (padding_algorithm,))
    if isinstance(paddings, (int, np.integer)):
        return (int(paddings),) * (2 * n)
    p = [int(a) for a in paddings]
    if len(p) == n:
        return tuple(v for a in p for v in (a, a))
    if len(p) == 2 * n:
        return tuple(p)
    raise ValueError('paddings must have %d or %d elements, got %s' % (n, 2 * n, p))


def resolve_paddings(paddings, padding_algorithm, in_hw, ksize, strides):
    """Paddle's ``UpdatePadding``: returns ``(top, bottom, left, right)``.

    ``paddings`` is an int, ``[ph, pw]`` or ``[top, bottom, left, right]``; ``padding_algorithm`` is
    ``"EXPLICIT"`` (use ``paddings``), ``"SAME"`` or ``"VALID"``; ``in_hw``, ``ksize`` and ``strides`` are
    (h, w) pairs. ``ksize`` is the undilated kernel size (as in Paddle, SAME ignores dilation).
    """
    return resolve_paddings_nd(paddings, padding_algorithm, tuple(in_hw)[:2], ksize, strides)


def conv_output_size(in_size, k, pad_a, pad_b, stride, dilation, op='conv'):
    """Paddle's ``ConvOutputSize``: ``(in + pad_a + pad_b - (dilation * (k - 1) + 1)) // stride + 1``."""
    out = (in_size + pad_a + pad_b - (dilation * (k - 1) + 1)) // stride + 1
    if out <= 0:
        raise ValueError('%s output size is %d (input %d, kernel %d, paddings %d+%d, stride %d, dilation %d); '
                         'it must be positive' % (op, out, in_size, k, pad_a, pad_b, stride, dilation))
    return out


def pool_output_size(in_size, k, pad_a, pad_b, stride, ceil_mode, op='pool'):
    """Paddle's ``PoolOutputSize``; ``ceil_mode`` adds ``stride - 1`` before the floor division."""
    extra = stride - 1 if ceil_mode else 0
    out = (in_size - k + pad_a + pad_b + extra) // stride + 1
    if out <= 0:
        raise ValueError('%s output size is %d (input %d, ksize %d, paddings %d+%d, stride %d); it must be '
                         'positive' % (op, out, in_size, k, pad_a, pad_b, stride))
    return out


def conv2d_output_size(in_size, k, pad_a, pad_b, stride, dilation):
    """:func:`conv_output_size` for conv2d (its error names the op)."""
    return conv_output_size(in_size, k, pad_a, pad_b, stride, dilation, op='conv2d')


def pool2d_output_size(in_size, k, pad_a, pad_b, stride, ceil_mode):
    """:func:`pool_output_size` for pool2d (its error names the op)."""
    return pool_output_size(in_size, k, pad_a, pad_b, stride, ceil_mode, op='pool2d')


def _to_nchw(x, data_format):
    if data_format in ('NCHW', 'AnyLayout'):
        return x
    if data_format == 'NHWC':
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
    raise ValueError("data_format must be 'NCHW' or 'NHWC', got %r" % (data_format,))


def _from_nchw(x, data_format):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if data_format == 'NHWC' else x


# ----------------------------------------------------------------------------------------------------------------
# conv2d

@_jit
def _im2col(x, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    n_, c_, h_, w_ = x.shape
    L = oh * ow
    col = np.empty((c_ * kh * kw, n_ * L), dtype=x.dtype)
    for c in range(c_):
        for i in range(kh):
            for j in range(kw):
                row = (c * kh + i) * kw + j
                for n in range(n_):
                    base = n * L
                    for y in range(oh):
                        ih = y * sh - pt + i * dh
                        o = base + y * ow
                        if ih < 0 or ih >= h_:
                            for xo in range(ow):
                                col[row, o + xo] = 0
                        else:
                            for xo in range(ow):
                                iw = xo * sw - pl + j * dw
                                if iw >= 0 and iw < w_:
                                    col[row, o + xo] = x[n, c, ih, iw]
                                else:
                                    col[row, o + xo] = 0
    return col


@_jit
def _col2im(col, n_, c_, h_, w_, kh, kw, sh, sw, pt, pl, dh, dw, oh, ow):
    dx = np.zeros((n_, c_, h_, w_), dtype=col.dtype)
    L = oh * ow
    for c in range(c_):
        for i in range(kh):
            for j in range(kw):
                row = (c * kh + i) * kw + j
                for n in range(n_):
                    base = n * L
                    for y in range(oh):
                        ih = y * sh - pt + i * dh
                        if ih < 0 or ih >= h_:
                            continue
                        o = base + y * ow
                        for xo in range(ow):
                            iw = xo * sw - pl + j * dw
                            if iw >= 0 and iw < w_:
                                dx[n, c, ih, iw] += col[row, o + xo]
    return dx


def _conv_geometry_nd(x_shape, w_shape, strides, paddings, dilations, groups, padding_algorithm, op, size_op):
    """(kernel sizes, strides, leading paddings, dilations, output sizes), flat, one of each per spatial axis, of
    a convolution on the channel-first ``x_shape``; ``op`` names the op in the channel error, ``size_op`` in the
    output-size one."""
    n = len(x_shape) - 2
    c = x_shape[1]
    oc, cg = w_shape[0], w_shape[1]
    if cg * groups != c or oc % groups:
        raise ValueError('%s: input channels %d, filter %s and groups %d do not match' % (op, c, list(w_shape), groups))
    ks = tuple(w_shape[2:])
    st = _ntuple(strides, 'strides', n)
    dil = _ntuple(dilations, 'dilations', n)
    pads = resolve_paddings_nd(paddings, padding_algorithm, tuple(x_shape[2:]), ks, st)
    if padding_algorithm == 'SAME':
        dil = (1,) * n
    out = tuple(conv_output_size(x_shape[2 + i], ks[i], pads[2 * i], pads[2 * i + 1], st[i], dil[i], size_op)
                for i in range(n))
    return ks + st + pads[0::2] + dil + out


def _conv_geometry(x_shape, w_shape, strides, paddings, dilations, groups, padding_algorithm):
    """(kh, kw, sh, sw, pt, pl, dh, dw, oh, ow) of a conv2d on NCHW ``x_shape``."""
    return _conv_geometry_nd(x_shape, w_shape, strides, paddings, dilations, groups, padding_algorithm, 'conv2d',
                             'conv2d')


def _conv_gemm(w, col, groups, n):
    """The filter ``[OC, C / groups, *k]`` times the column matrix ``[C * prod(k), N * L]``, one GEMM per group
    (numpy's BLAS releases the GIL): ``[N, OC, L]``, contiguous."""
    oc = w.shape[0]
    if groups == 1:
        out = w.reshape(oc, -1) @ col                                                # [OC, N*L]
    else:
        m, k = oc // groups, col.shape[0] // groups
        out = np.matmul(w.reshape(groups, m, k), col.reshape(groups, k, -1))        # [g, M, N*L]
    return np.ascontiguousarray(out.reshape(oc, n, -1).transpose(1, 0, 2))


def _conv_gemm_grads(w, dout, groups, columns, col_to_input, need_input, need_filter):
    """``(dInput, dFilter)`` of :func:`_conv_gemm` for ``dout`` ``[N, OC, *out]``; ``columns()`` builds the input's
    column matrix, ``col_to_input(dcol)`` scatters a column gradient back to the input (each called only if
    needed)."""
    d3 = _grouped_rows(dout, groups)
    dx = dw = None
    if need_filter:
        col = columns().reshape(groups, int(np.prod(w.shape[1:])), -1)
        dw = np.matmul(d3, col.transpose(0, 2, 1)).reshape(w.shape)
    if need_input:
        dx = col_to_input(_filter_t_gemm(w, d3, groups))
    return dx, dw


def _grouped_rows(d, groups):
    """``d`` ``[N, C, *spatial]`` as ``[groups, C / groups, N * L]``, the column layout's order."""
    n, c = d.shape[0], d.shape[1]
    return np.ascontiguousarray(d.reshape(n, c, -1).transpose(1, 0, 2)).reshape(groups, c // groups, -1)


def _filter_t_gemm(w, d3, groups):
    """``W^T d`` per group for ``w`` ``[C0, C1 / groups, *k]`` and ``d3`` from :func:`_grouped_rows` of a
    ``[N, C0, ...]`` array: a column matrix ``[C1 * prod(k), N * L]`` (a conv's column gradient, or a transposed
    conv's columns)."""
    m, k = w.shape[0] // groups, int(np.prod(w.shape[1:]))
    return np.matmul(w.reshape(groups, m, k).transpose(0, 2, 1), d3).reshape(groups * k, -1)


def conv2d_forward(x, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                   padding_algorithm='EXPLICIT', data_format='NCHW'):
    """Paddle op ``conv2d`` (Input, Filter -> Output), no bias (Paddle adds it with ``elementwise_add``).

    ``x``: ``[N, C, H, W]`` (``[N, H, W, C]`` for ``data_format="NHWC"``); ``w``: ``[OC, C / groups, kh, kw]``.
    ``strides``, ``dilations``: int or (h, w); ``paddings``: int, ``[ph, pw]`` or ``[top, bottom, left, right]``;
    ``padding_algorithm``: "EXPLICIT" / "SAME" / "VALID". Returns ``[N, OC, Ho, Wo]`` (or NHWC) in ``x.dtype``.
    """
    x = _to_nchw(np.ascontiguousarray(x), data_format)
    w = np.asarray(w, dtype=x.dtype)
    groups = int(groups) or 1
    g = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    n, oc = x.shape[0], w.shape[0]
    out = _conv_gemm(w, _im2col(x, *g), groups, n).reshape(n, oc, g[8], g[9])
    return _from_nchw(out, data_format)


def conv2d_backward(x, w, dout, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                    padding_algorithm='EXPLICIT', data_format='NCHW', need_input=True, need_filter=True):
    """Paddle op ``conv2d_grad``: returns ``(dInput, dFilter)``, either ``None`` when not needed.

    Same attributes as :func:`conv2d_forward`; ``dout`` has the forward output's shape and layout.
    """
    x = _to_nchw(np.ascontiguousarray(x), data_format)
    w = np.asarray(w, dtype=x.dtype)
    dout = _to_nchw(np.ascontiguousarray(dout, dtype=x.dtype), data_format)
    groups = int(groups) or 1
    g = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    return _conv_gemm_grads(w, dout, groups, lambda: _im2col(x, *g),
                            lambda dcol: _from_nchw(_col2im(dcol, *x.shape, *g), data_format),
                            need_input, need_filter)


# ----------------------------------------------------------------------------------------------------------------
# pool2d

@_jit
def _pool_window(o, stride, pad, k, size, out_size, adaptive):
    if adaptive:
        start = (o * size) // out_size
        end = -((-(o + 1) * size) // out_size)
    else:
        start = o * stride - pad
        end = min(start + k, size)
        start = max(start, 0)
    return start, end


@_jit
def _pool2d_fwd(x, oh, ow, kh, kw, sh, sw, pt, pl, is_max, exclusive, adaptive):
    n_, c_, h_, w_ = x.shape
    out = np.empty((n_, c_, oh, ow), dtype=x.dtype)
    for n in range(n_):
        for c in range(c_):
            for ph in range(oh):
                hs, he = _pool_window(ph, sh, pt, kh, h_, oh, adaptive)
                for pw in range(ow):
                    ws, we = _pool_window(pw, sw, pl, kw, w_, ow, adaptive)
                    if is_max:
                        v = -FLT_MAX
                        for i in range(hs, he):
                            for j in range(ws, we):
                                if x[n, c, i, j] > v:
                                    v = x[n, c, i, j]
                        out[n, c, ph, pw] = v
                    else:
                        s = 0.0
                        for i in range(hs, he):
                            for j in range(ws, we):
                                s += x[n, c, i, j]
                        if exclusive or adaptive:
                            size = (he - hs) * (we - ws)
                        else:
                            size = kh * kw
                        out[n, c, ph, pw] = s / size
    return out


@_jit
def _pool2d_bwd(x, out, dout, kh, kw, sh, sw, pt, pl, is_max, exclusive, adaptive):
    n_, c_, h_, w_ = x.shape
    oh, ow = out.shape[2], out.shape[3]
    dx = np.zeros_like(x)
    for n in range(n_):
        for c in range(c_):
            for ph in range(oh):
                hs, he = _pool_window(ph, sh, pt, kh, h_, oh, adaptive)
                for pw in range(ow):
                    ws, we = _pool_window(pw, sw, pl, kw, w_, ow, adaptive)
                    g = dout[n, c, ph, pw]
                    if is_max:
                        v = out[n, c, ph, pw]
                        found = False
                        for i in range(hs, he):
                            for j in range(ws, we):
                                if x[n, c, i, j] == v:
                                    dx[n, c, i, j] += g
                                    found = True
                                    break
                            if found:
                                break
                    else:
                        if exclusive or adaptive:
                            size = (he - hs) * (we - ws)
                        else:
                            size = kh * kw
                        gs = g * np.float32(1.0 / size)  # Paddle: static_cast<T>(float(1.0 / pool_size))
                        for i in range(hs, he):
                            for j in range(ws, we):
                                dx[n, c, i, j] += gs
    return dx


def _pool_geometry_nd(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive, padding_algorithm,
                      op='pool'):
    """(output sizes, kernel sizes, strides, leading paddings), one entry per spatial axis, of a pool on the
    channel-first ``x_shape``; ``op`` names the op in the output-size error."""
    size = tuple(x_shape[2:])
    n = len(size)
    ks = size if global_pooling else _ntuple(ksize, 'ksize', n)
    st = _ntuple(strides, 'strides', n)
    if global_pooling or adaptive:
        pads = (0,) * (2 * n)
    else:
        pads = resolve_paddings_nd(paddings, padding_algorithm, size, ks, st)
    if adaptive:
        out = ks
    else:
        out = tuple(pool_output_size(size[i], ks[i], pads[2 * i], pads[2 * i + 1], st[i], ceil_mode, op)
                    for i in range(n))
    return out, ks, st, pads[0::2]


def _pool_geometry(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive, padding_algorithm):
    """(oh, ow, kh, kw, sh, sw, pt, pl) of a pool2d on NCHW ``x_shape``."""
    _pair(ksize, 'ksize')  # pool2d checks ksize also under global_pooling
    out, ks, st, pads = _pool_geometry_nd(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                                          padding_algorithm, op='pool2d')
    return (*out, *ks, *st, *pads)


def _pool_type(pooling_type):
    if pooling_type not in ('max', 'avg'):
        raise ValueError("pooling_type must be 'max' or 'avg', got %r" % (pooling_type,))
    return pooling_type == 'max'


def pool2d_forward(x, ksize, pooling_type='max', strides=(1, 1), paddings=(0, 0), global_pooling=False,
                   ceil_mode=False, exclusive=True, adaptive=False, padding_algorithm='EXPLICIT',
                   data_format='NCHW'):
    """Paddle op ``pool2d`` (X -> Out); see the module docstring for the window and divisor rules.

    ``ksize``, ``strides``: int or (h, w); ``paddings``: int, ``[ph, pw]`` or ``[top, bottom, left, right]``;
    ``pooling_type``: "max" or "avg"; ``exclusive`` (avg only, Paddle default True); ``adaptive``: ``ksize`` is
    the output size. Returns ``[N, C, Ho, Wo]`` (or NHWC).
    """
    x = _to_nchw(np.ascontiguousarray(x), data_format)
    is_max = _pool_type(pooling_type)
    oh, ow, kh, kw, sh, sw, pt, pl = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode,
                                                    adaptive, padding_algorithm)
    # Paddle's pool2d runs max pooling with adaptive=false (output size = ksize, plain windows of stride/ksize)
    out = _pool2d_fwd(x, oh, ow, kh, kw, sh, sw, pt, pl, is_max, bool(exclusive), bool(adaptive) and not is_max)
    return _from_nchw(out, data_format)


def pool2d_backward(x, out, dout, ksize, pooling_type='max', strides=(1, 1), paddings=(0, 0),
                    global_pooling=False, ceil_mode=False, exclusive=True, adaptive=False,
                    padding_algorithm='EXPLICIT', data_format='NCHW'):
    """Paddle op ``pool2d_grad`` (X, Out, Out@GRAD -> X@GRAD); same attributes as :func:`pool2d_forward`.

    max: each output's gradient goes to the first input of its window (row-major) equal to ``out``;
    avg: spread as ``dout * (1 / divisor)`` over the clipped window. Returns dX in x's shape and layout.
    """
    x = _to_nchw(np.ascontiguousarray(x), data_format)
    out = _to_nchw(np.ascontiguousarray(out, dtype=x.dtype), data_format)
    dout = _to_nchw(np.ascontiguousarray(dout, dtype=x.dtype), data_format)
    is_max = _pool_type(pooling_type)
    _, _, kh, kw, sh, sw, pt, pl = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode,
                                                  adaptive, padding_algorithm)
    dx = _pool2d_bwd(x, out, dout, kh, kw, sh, sw, pt, pl, is_max, bool(exclusive), bool(adaptive) and not is_max)
    return _from_nchw(dx, data_format)


# ----------------------------------------------------------------------------------------------------------------
# max_pool2d_with_index (Paddle's adaptive / return_mask max pooling)

@_jit
def _maxpool_idx_fwd(x, oh, ow, kh, kw, sh, sw, pt, pl, adaptive):
    n_, c_, h_, w_ = x.shape
    out = np.empty((n_, c_, oh, ow), dtype=x.dtype)
    mask = np.empty((n_, c_, oh, ow), dtype=np.int32)
    for n in range(n_):
        for c in range(c_):
            for ph in range(oh):
                hs, he = _pool_window(ph, sh, pt, kh, h_, oh, adaptive)
                for pw in range(ow):
                    ws, we = _pool_window(pw, sw, pl, kw, w_, ow, adaptive)
                    v = -FLT_MAX
                    idx = -1
                    for i in range(hs, he):
                        for j in range(ws, we):
                            if x[n, c, i, j] > v:
                                v = x[n, c, i, j]
                                idx = i * w_ + j
                    out[n, c, ph, pw] = v
                    mask[n, c, ph, pw] = idx
    return out, mask


@_jit
def _maxpool_idx_bwd(dout, mask, h_, w_):
    n_, c_, oh, ow = dout.shape
    dx = np.zeros((n_, c_, h_ * w_), dtype=dout.dtype)
    for n in range(n_):
        for c in range(c_):
            for ph in range(oh):
                for pw in range(ow):
                    idx = mask[n, c, ph, pw]
                    if idx >= 0:
                        dx[n, c, idx] += dout[n, c, ph, pw]
    return dx.reshape((n_, c_, h_, w_))


def max_pool2d_with_index_forward(x, ksize, strides=(1, 1), paddings=(0, 0), global_pooling=False, adaptive=False):
    """Paddle op ``max_pool2d_with_index`` (X -> Out, Mask), NCHW.

    Windows as in ``pool2d`` (clipped to the input; ``adaptive``: output size = ``ksize`` and adaptive windows,
    honoured here unlike ``pool2d`` max). ``Mask`` (int32) holds ``h * W + w`` of the first maximum in the
    row-major scan (-1 for an empty window, whose ``Out`` is ``-FLT_MAX``). Returns ``(out, mask)``.
    """
    x = np.ascontiguousarray(x)
    oh, ow, kh, kw, sh, sw, pt, pl = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, False,
                                                    adaptive, 'EXPLICIT')
    return _maxpool_idx_fwd(x, oh, ow, kh, kw, sh, sw, pt, pl, bool(adaptive))


def max_pool2d_with_index_backward(dout, mask, x_shape):
    """Paddle op ``max_pool2d_with_index_grad``: ``dX[mask] += dOut`` per (n, c) plane. Returns dX of ``x_shape``."""
    dout = np.ascontiguousarray(dout)
    return _maxpool_idx_bwd(dout, np.ascontiguousarray(mask, dtype=np.int32), int(x_shape[2]), int(x_shape[3]))


# ----------------------------------------------------------------------------------------------------------------
# maxout (Paddle 1.8 math/maxouting.cc): out[n, c, s] = max over g of x[n, c * groups + g, s]; the gradient goes to
# the FIRST channel of the group equal to the output.

__all__ += ['maxout_forward', 'maxout_backward']


@_jit
def _maxout_fwd(x4):
    n_, c_, g_, s_ = x4.shape
    out = np.empty((n_, c_, s_), dtype=x4.dtype)
    for n in range(n_):
        for c in range(c_):
            for s in range(s_):
                m = x4[n, c, 0, s]
                for g in range(1, g_):
                    if x4[n, c, g, s] > m:
                        m = x4[n, c, g, s]
                out[n, c, s] = m
    return out


@_jit
def _maxout_bwd(x4, out3, dout3):
    n_, c_, g_, s_ = x4.shape
    dx = np.zeros_like(x4)
    for n in range(n_):
        for c in range(c_):
            for s in range(s_):
                for g in range(g_):
                    if x4[n, c, g, s] == out3[n, c, s]:
                        dx[n, c, g, s] += dout3[n, c, s]
                        break
    return dx


def _maxout_view(x, groups, axis):
    """x as [N, C / groups, groups, S] with the channel axis `axis` (1, or the last for channels-last)."""
    last = axis in (-1, x.ndim - 1) and axis != 1
    xc = np.ascontiguousarray(np.moveaxis(x, -1, 1)) if last else np.ascontiguousarray(x)
    n, c = xc.shape[:2]
    if c % groups:
        raise ValueError('maxout: the channels (%d) must be divisible by groups (%d)' % (c, groups))
    return xc.reshape(n, c // groups, groups, -1), xc.shape, last


def maxout_forward(x, groups, axis=1):
    x4, shape, last = _maxout_view(x, groups, axis)
    out = _maxout_fwd(x4).reshape((shape[0], shape[1] // groups) + shape[2:])
    return np.ascontiguousarray(np.moveaxis(out, 1, -1)) if last else out


def maxout_backward(x, out, dout, groups, axis=1):
    x4, shape, last = _maxout_view(x, groups, axis)
    o3, _, _ = _maxout_view(out, 1, axis)
    d3, _, _ = _maxout_view(np.asarray(dout, dtype=x.dtype), 1, axis)
    dx = _maxout_bwd(x4, o3.reshape(o3.shape[0], o3.shape[1], -1), d3.reshape(d3.shape[0], d3.shape[1], -1))
    dx = dx.reshape(shape)
    return np.ascontiguousarray(np.moveaxis(dx, 1, -1)) if last else dx


# ----------------------------------------------------------------------------------------------------------------
# conv2d_transpose (Paddle conv_transpose_op): the data gradient of a conv2d whose input is the transpose's output.
#
# Filter [C_in, C_out / groups, kh, kw]. Paddings resolve as conv2d's against the INPUT size (SAME: pad_sum =
# max((ceil(in / s) - 1) * s + k - in, 0), dilations reset to 1). Output size (in - 1) * s - pad_a - pad_b +
# d * (k - 1) + 1, or the given output_size (within [that, that + s)), or that + output_padding.

__all__ += ['conv2d_transpose_output_size', 'conv2d_transpose_forward', 'conv2d_transpose_backward']


def conv2d_transpose_output_size(in_size, k, pad_a, pad_b, stride, dilation):
    return (in_size - 1) * stride - pad_a - pad_b + dilation * (k - 1) + 1


def _transpose_geometry(x_shape, w_shape, strides, paddings, dilations, padding_algorithm, output_size,
                        output_padding):
    """(out_h, out_w, explicit 4 paddings, dilations) of a conv2d_transpose on an NCHW ``x_shape``."""
    _, _, h, w = x_shape
    kh, kw = w_shape[2], w_shape[3]
    sh, sw = _pair(strides, 'strides')
    dh, dw = _pair(dilations, 'dilations')
    pads = resolve_paddings(paddings, padding_algorithm, (h, w), (kh, kw), (sh, sw))
    if padding_algorithm == 'SAME':
        dh = dw = 1
    out = [conv2d_transpose_output_size(h, kh, pads[0], pads[1], sh, dh),
           conv2d_transpose_output_size(w, kw, pads[2], pads[3], sw, dw)]
    if output_size:
        want = [int(v) for v in (output_size if len(output_size) == 2 else list(output_size) * 2)]
        for i, s in enumerate((sh, sw)):
            if not out[i] <= want[i] < out[i] + s:
                raise ValueError('conv2d_transpose: output_size %s must be within [%d, %d) on dim %d (the inferred '
                                 'size and that plus the stride)' % (want, out[i], out[i] + s, i))
        out = want
    elif output_padding:
        op = [int(v) for v in output_padding]
        out = [out[0] + op[0], out[1] + op[-1]]
    return out[0], out[1], list(pads), (dh, dw)


def conv2d_transpose_forward(x, w, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                             padding_algorithm='EXPLICIT', data_format='NCHW', output_size=(), output_padding=()):
    """Paddle op ``conv2d_transpose`` (Input, Filter -> Output); the bias is a separate elementwise_add."""
    x = _to_nchw(np.ascontiguousarray(x), data_format)
    w = np.asarray(w, dtype=x.dtype)
    groups = int(groups) or 1
    n, c_in, h, wd = x.shape
    if w.shape[0] != c_in or c_in % groups:
        raise ValueError('conv2d_transpose: input channels %d, filter %s and groups %d do not match'
                         % (c_in, list(w.shape), groups))
    oh, ow, pads, dil = _transpose_geometry(x.shape, w.shape, strides, paddings, dilations, padding_algorithm,
                                            output_size, output_padding)
    c_out = w.shape[1] * groups
    g = _conv_geometry((n, c_out, oh, ow), w.shape, strides, pads, dil, groups, 'EXPLICIT')
    col = _filter_t_gemm(w, _grouped_rows(x, groups), groups)
    return _from_nchw(_col2im(col, n, c_out, oh, ow, *g), data_format)


def conv2d_transpose_backward(x, w, dout, strides=(1, 1), paddings=(0, 0), dilations=(1, 1), groups=1,
                              padding_algorithm='EXPLICIT', data_format='NCHW', need_input=True, need_filter=True):
    """Paddle op ``conv2d_transpose_grad``: ``(dInput, dFilter)`` -- a conv2d of dOutput, and that conv2d's filter
    gradient against the input."""
    xc = _to_nchw(np.ascontiguousarray(x), data_format)
    dc = _to_nchw(np.ascontiguousarray(dout, dtype=xc.dtype), data_format)
    w = np.asarray(w, dtype=xc.dtype)
    pads = resolve_paddings(paddings, padding_algorithm, xc.shape[2:], w.shape[2:], _pair(strides, 'strides'))
    dil = (1, 1) if padding_algorithm == 'SAME' else dilations
    dx = dw = None
    if need_input:
        dx = _from_nchw(conv2d_forward(dc, w, strides, list(pads), dil, groups), data_format)
    if need_filter:
        dw = conv2d_backward(dc, w, xc, strides, list(pads), dil, groups, need_input=False)[1]
    return dx, dw
