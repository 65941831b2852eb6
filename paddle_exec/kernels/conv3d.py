"""3-D convolution and pooling kernels with PaddlePaddle's semantics (``conv3d``, ``conv3d_transpose``, ``pool3d``,
``max_pool3d_with_index``) and max unpooling (``unpool``, ``unpool3d``) of any rank.

The rules are those of the 2-D kernels in ``conv.py``, one dimension more:

- Layout NCDHW inside; ``data_format="NDHWC"`` is transposed in the wrappers. Filters are ``[out_c, in_c / groups,
  kd, kh, kw]`` (conv3d) and ``[in_c, out_c / groups, kd, kh, kw]`` (conv3d_transpose), as in Paddle.
- Paddings: 3 values ``[pd, ph, pw]`` mean ``[pd, pd, ph, ph, pw, pw]``; 6 values are ``[front, back, top,
  bottom, left, right]``. ``SAME``: per axis ``pad_sum = max((ceil(in / s) - 1) * s + k - in, 0)``, the smaller
  half before, and the dilations reset to 1; ``VALID``: zero paddings.
- conv3d: ``vol2col`` in numba into a ``[C * kd * kh * kw, N * Do * Ho * Wo]`` column matrix, then one BLAS
  product per group (numpy releases the GIL). The transpose is the data gradient of the conv3d whose input it
  outputs (``col2vol`` of ``W^T x``).
- pool3d (Paddle ``math/pooling.cc``): windows clipped to the input; ``ceil_mode`` adds ``stride - 1`` before the
  floor division; max starts at ``-FLT_MAX`` and keeps the first maximum of the (d, h, w) scan, which also gets
  the gradient; avg divides by the in-input window (``exclusive``) or ``kd * kh * kw``; ``adaptive`` avg uses the
  windows ``[floor(o * in / out), ceil((o + 1) * in / out))``; as for pool2d, Paddle's pool3d kernel runs max
  pooling with ``adaptive=false`` (adaptive max pooling goes through ``max_pool3d_with_index``).
- max_pool3d_with_index: Mask holds the flat ``(d * H + h) * W + w`` index of each window's first maximum.
- unpool / unpool3d (max unpooling): ``out[n, c, mask[n, c, i]] = x[n, c, i]`` over the flattened spatial dims of
  the output (zeros elsewhere; a later write to the same position wins); the gradient reads ``dout`` back at the
  same indices.
"""
from __future__ import annotations

import numpy as np

from .jit import kernel_jit

__all__ = [
    'resolve_paddings_nd', 'pool_output_size', 'conv_output_size',
    'conv3d_forward', 'conv3d_backward', 'conv3d_transpose_forward', 'conv3d_transpose_backward',
    'conv3d_transpose_output_shape', 'pool3d_forward', 'pool3d_backward', 'pool3d_output_shape',
    'max_pool3d_with_index_forward', 'max_pool3d_with_index_backward', 'unpool_forward', 'unpool_backward',
]

_jit = kernel_jit(error_model='numpy')

FLT_MAX = 3.4028234663852886e38


# ----------------------------------------------------------------------------------------------------------------
# attribute handling (plain Python)

def _triple(v, name, n=3):
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = [int(a) for a in v]
    if len(v) == 1:
        return tuple(v) * n
    if len(v) != n:
        raise ValueError('%s must have %d elements, got %s' % (name, n, v))
    return tuple(v)


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


def conv_output_size(in_size, k, pad_a, pad_b, stride, dilation):
    """Paddle's ``ConvOutputSize``: ``(in + pad_a + pad_b - (dilation * (k - 1) + 1)) // stride + 1``."""
    out = (in_size + pad_a + pad_b - (dilation * (k - 1) + 1)) // stride + 1
    if out <= 0:
        raise ValueError('conv output size is %d (input %d, kernel %d, paddings %d+%d, stride %d, dilation %d); '
                         'it must be positive' % (out, in_size, k, pad_a, pad_b, stride, dilation))
    return out


def pool_output_size(in_size, k, pad_a, pad_b, stride, ceil_mode):
    """Paddle's ``PoolOutputSize``; ``ceil_mode`` adds ``stride - 1`` before the floor division."""
    extra = stride - 1 if ceil_mode else 0
    out = (in_size - k + pad_a + pad_b + extra) // stride + 1
    if out <= 0:
        raise ValueError('pool output size is %d (input %d, ksize %d, paddings %d+%d, stride %d); it must be '
                         'positive' % (out, in_size, k, pad_a, pad_b, stride))
    return out


def _to_ncdhw(x, data_format):
    if data_format in ('NCDHW', 'AnyLayout', 'NCHW'):
        return np.ascontiguousarray(x)
    if data_format == 'NDHWC':
        return np.ascontiguousarray(x.transpose(0, 4, 1, 2, 3))
    raise ValueError("data_format must be 'NCDHW' or 'NDHWC', got %r" % (data_format,))


def _from_ncdhw(x, data_format):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 4, 1)) if data_format == 'NDHWC' else x


# ----------------------------------------------------------------------------------------------------------------
# conv3d

@_jit
def _vol2col(x, kd, kh, kw, sd, sh, sw, pf, pt, pl, dd, dh, dw, od, oh, ow):
    n_, c_, d_, h_, w_ = x.shape
    L = od * oh * ow
    col = np.zeros((c_ * kd * kh * kw, n_ * L), dtype=x.dtype)
    for c in range(c_):
        for a in range(kd):
            for i in range(kh):
                for j in range(kw):
                    row = ((c * kd + a) * kh + i) * kw + j
                    for n in range(n_):
                        for z in range(od):
                            iz = z * sd - pf + a * dd
                            if iz < 0 or iz >= d_:
                                continue
                            for y in range(oh):
                                iy = y * sh - pt + i * dh
                                if iy < 0 or iy >= h_:
                                    continue
                                o = n * L + (z * oh + y) * ow
                                for xo in range(ow):
                                    ix = xo * sw - pl + j * dw
                                    if ix >= 0 and ix < w_:
                                        col[row, o + xo] = x[n, c, iz, iy, ix]
    return col


@_jit
def _col2vol(col, n_, c_, d_, h_, w_, kd, kh, kw, sd, sh, sw, pf, pt, pl, dd, dh, dw, od, oh, ow):
    dx = np.zeros((n_, c_, d_, h_, w_), dtype=col.dtype)
    L = od * oh * ow
    for c in range(c_):
        for a in range(kd):
            for i in range(kh):
                for j in range(kw):
                    row = ((c * kd + a) * kh + i) * kw + j
                    for n in range(n_):
                        for z in range(od):
                            iz = z * sd - pf + a * dd
                            if iz < 0 or iz >= d_:
                                continue
                            for y in range(oh):
                                iy = y * sh - pt + i * dh
                                if iy < 0 or iy >= h_:
                                    continue
                                o = n * L + (z * oh + y) * ow
                                for xo in range(ow):
                                    ix = xo * sw - pl + j * dw
                                    if ix >= 0 and ix < w_:
                                        dx[n, c, iz, iy, ix] += col[row, o + xo]
    return dx


def _conv_geometry(x_shape, w_shape, strides, paddings, dilations, groups, padding_algorithm):
    """(kd, kh, kw, sd, sh, sw, pf, pt, pl, dd, dh, dw, od, oh, ow) of a conv3d on NCDHW ``x_shape``."""
    c = x_shape[1]
    oc, cg = w_shape[0], w_shape[1]
    if cg * groups != c or oc % groups:
        raise ValueError('conv3d: input channels %d, filter %s and groups %d do not match' % (c, list(w_shape), groups))
    ks = tuple(w_shape[2:])
    st = _triple(strides, 'strides')
    dil = _triple(dilations, 'dilations')
    pads = resolve_paddings_nd(paddings, padding_algorithm, x_shape[2:], ks, st)
    if padding_algorithm == 'SAME':
        dil = (1, 1, 1)
    out = tuple(conv_output_size(x_shape[2 + i], ks[i], pads[2 * i], pads[2 * i + 1], st[i], dil[i])
                for i in range(3))
    return ks + st + (pads[0], pads[2], pads[4]) + dil + out


def conv3d_forward(x, w, strides=1, paddings=0, dilations=1, groups=1, padding_algorithm='EXPLICIT',
                   data_format='NCDHW'):
    """Paddle op ``conv3d`` (Input, Filter -> Output), no bias. Returns ``[N, OC, Do, Ho, Wo]`` (or NDHWC)."""
    x = _to_ncdhw(x, data_format)
    w = np.asarray(w, dtype=x.dtype)
    groups = int(groups) or 1
    g = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    n, oc = x.shape[0], w.shape[0]
    col = _vol2col(x, *g)
    m, k = oc // groups, col.shape[0] // groups
    out = np.matmul(w.reshape(groups, m, k), col.reshape(groups, k, -1))        # [g, M, N*L]
    out = np.ascontiguousarray(out.reshape(oc, n, -1).transpose(1, 0, 2)).reshape((n, oc) + g[12:])
    return _from_ncdhw(out, data_format)


def conv3d_backward(x, w, dout, strides=1, paddings=0, dilations=1, groups=1, padding_algorithm='EXPLICIT',
                    data_format='NCDHW', need_input=True, need_filter=True):
    """Paddle op ``conv3d_grad``: ``(dInput, dFilter)``, either None when not needed."""
    x = _to_ncdhw(x, data_format)
    w = np.asarray(w, dtype=x.dtype)
    dout = _to_ncdhw(np.asarray(dout, dtype=x.dtype), data_format)
    groups = int(groups) or 1
    g = _conv_geometry(x.shape, w.shape, strides, paddings, dilations, groups, padding_algorithm)
    n, c = x.shape[:2]
    oc = w.shape[0]
    m, k = oc // groups, c // groups * g[0] * g[1] * g[2]
    d3 = np.ascontiguousarray(dout.reshape(n, oc, -1).transpose(1, 0, 2)).reshape(groups, m, -1)
    dx = dw = None
    if need_filter:
        col = _vol2col(x, *g).reshape(groups, k, -1)
        dw = np.matmul(d3, col.transpose(0, 2, 1)).reshape(w.shape)
    if need_input:
        dcol = np.matmul(w.reshape(groups, m, k).transpose(0, 2, 1), d3).reshape(groups * k, -1)
        dx = _from_ncdhw(_col2vol(dcol, n, c, *x.shape[2:], *g), data_format)
    return dx, dw


# ----------------------------------------------------------------------------------------------------------------
# conv3d_transpose: output size (in - 1) * s - pad_a - pad_b + d * (k - 1) + 1, or output_size (within [that,
# that + s)), or that + output_padding.

def conv3d_transpose_output_shape(in_size, ksize, strides, paddings, dilations, padding_algorithm, output_size=(),
                                  output_padding=()):
    """(spatial output sizes, explicit paddings, dilations) of a conv3d_transpose; ``in_size`` (d, h, w)."""
    st = _triple(strides, 'strides')
    dil = _triple(dilations, 'dilations')
    pads = resolve_paddings_nd(paddings, padding_algorithm, in_size, ksize, st)
    if padding_algorithm == 'SAME':
        dil = (1, 1, 1)
    out = [(in_size[i] - 1) * st[i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (ksize[i] - 1) + 1 for i in range(3)]
    if output_size:
        want = list(_triple(output_size, 'output_size'))
        for i in range(3):
            if not out[i] <= want[i] < out[i] + st[i]:
                raise ValueError('conv3d_transpose: output_size %s must be within [%d, %d) on dim %d (the inferred '
                                 'size and that plus the stride)' % (want, out[i], out[i] + st[i], i))
        out = want
    elif output_padding:
        out = [o + p for o, p in zip(out, _triple(output_padding, 'output_padding'))]
    return tuple(out), pads, dil


def conv3d_transpose_forward(x, w, strides=1, paddings=0, dilations=1, groups=1, padding_algorithm='EXPLICIT',
                             data_format='NCDHW', output_size=(), output_padding=()):
    """Paddle op ``conv3d_transpose`` (Input, Filter -> Output); the bias is a separate elementwise_add."""
    x = _to_ncdhw(x, data_format)
    w = np.asarray(w, dtype=x.dtype)
    groups = int(groups) or 1
    n, c_in = x.shape[:2]
    if w.shape[0] != c_in or c_in % groups:
        raise ValueError('conv3d_transpose: input channels %d, filter %s and groups %d do not match'
                         % (c_in, list(w.shape), groups))
    out, pads, dil = conv3d_transpose_output_shape(x.shape[2:], w.shape[2:], strides, paddings, dilations,
                                                   padding_algorithm, output_size, output_padding)
    c_out = w.shape[1] * groups
    g = _conv_geometry((n, c_out) + out, w.shape, strides, pads, dil, groups, 'EXPLICIT')
    m, k = c_in // groups, int(np.prod(w.shape[1:]))
    x3 = np.ascontiguousarray(x.reshape(n, c_in, -1).transpose(1, 0, 2)).reshape(groups, m, -1)
    col = np.matmul(w.reshape(groups, m, k).transpose(0, 2, 1), x3).reshape(groups * k, -1)
    return _from_ncdhw(_col2vol(col, n, c_out, *out, *g), data_format)


def conv3d_transpose_backward(x, w, dout, strides=1, paddings=0, dilations=1, groups=1,
                              padding_algorithm='EXPLICIT', data_format='NCDHW', need_input=True, need_filter=True):
    """Paddle op ``conv3d_transpose_grad``: ``(dInput, dFilter)`` -- a conv3d of dOutput, and that conv3d's filter
    gradient against the input."""
    xc = _to_ncdhw(x, data_format)
    dc = _to_ncdhw(np.asarray(dout, dtype=xc.dtype), data_format)
    w = np.asarray(w, dtype=xc.dtype)
    pads = resolve_paddings_nd(paddings, padding_algorithm, xc.shape[2:], w.shape[2:], _triple(strides, 'strides'))
    dil = 1 if padding_algorithm == 'SAME' else dilations
    dx = dw = None
    if need_input:
        dx = _from_ncdhw(conv3d_forward(dc, w, strides, list(pads), dil, groups), data_format)
    if need_filter:
        dw = conv3d_backward(dc, w, xc, strides, list(pads), dil, groups, need_input=False)[1]
    return dx, dw


# ----------------------------------------------------------------------------------------------------------------
# pool3d

@_jit
def _window(o, stride, pad, k, size, out_size, adaptive):
    if adaptive:
        start = (o * size) // out_size
        end = -((-(o + 1) * size) // out_size)
    else:
        start = o * stride - pad
        end = min(start + k, size)
        start = max(start, 0)
    return start, end


@_jit
def _pool3d_fwd(x, od, oh, ow, kd, kh, kw, sd, sh, sw, pf, pt, pl, is_max, exclusive, adaptive):
    n_, c_, d_, h_, w_ = x.shape
    out = np.empty((n_, c_, od, oh, ow), dtype=x.dtype)
    for n in range(n_):
        for c in range(c_):
            for pz in range(od):
                zs, ze = _window(pz, sd, pf, kd, d_, od, adaptive)
                for py in range(oh):
                    ys, ye = _window(py, sh, pt, kh, h_, oh, adaptive)
                    for px in range(ow):
                        xs, xe = _window(px, sw, pl, kw, w_, ow, adaptive)
                        if is_max:
                            v = -FLT_MAX
                            for a in range(zs, ze):
                                for i in range(ys, ye):
                                    for j in range(xs, xe):
                                        if x[n, c, a, i, j] > v:
                                            v = x[n, c, a, i, j]
                            out[n, c, pz, py, px] = v
                        else:
                            s = 0.0
                            for a in range(zs, ze):
                                for i in range(ys, ye):
                                    for j in range(xs, xe):
                                        s += x[n, c, a, i, j]
                            if exclusive or adaptive:
                                size = (ze - zs) * (ye - ys) * (xe - xs)
                            else:
                                size = kd * kh * kw
                            out[n, c, pz, py, px] = s / size
    return out


@_jit
def _pool3d_bwd(x, out, dout, kd, kh, kw, sd, sh, sw, pf, pt, pl, is_max, exclusive, adaptive):
    n_, c_, d_, h_, w_ = x.shape
    od, oh, ow = out.shape[2], out.shape[3], out.shape[4]
    dx = np.zeros_like(x)
    for n in range(n_):
        for c in range(c_):
            for pz in range(od):
                zs, ze = _window(pz, sd, pf, kd, d_, od, adaptive)
                for py in range(oh):
                    ys, ye = _window(py, sh, pt, kh, h_, oh, adaptive)
                    for px in range(ow):
                        xs, xe = _window(px, sw, pl, kw, w_, ow, adaptive)
                        g = dout[n, c, pz, py, px]
                        if is_max:
                            v = out[n, c, pz, py, px]
                            found = False
                            for a in range(zs, ze):
                                for i in range(ys, ye):
                                    for j in range(xs, xe):
                                        if not found and x[n, c, a, i, j] == v:
                                            dx[n, c, a, i, j] += g
                                            found = True
                        else:
                            if exclusive or adaptive:
                                size = (ze - zs) * (ye - ys) * (xe - xs)
                            else:
                                size = kd * kh * kw
                            gs = g * np.float32(1.0 / size)  # Paddle: static_cast<T>(float(1.0 / pool_size))
                            for a in range(zs, ze):
                                for i in range(ys, ye):
                                    for j in range(xs, xe):
                                        dx[n, c, a, i, j] += gs
    return dx


def _pool_geometry(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive, padding_algorithm):
    """((od, oh, ow), (kd, kh, kw), (sd, sh, sw), (pf, pt, pl)) of a pool3d on NCDHW ``x_shape``."""
    size = tuple(x_shape[2:])
    ks = size if global_pooling else _triple(ksize, 'ksize')
    st = _triple(strides, 'strides')
    if global_pooling or adaptive:
        pads = (0,) * 6
    else:
        pads = resolve_paddings_nd(paddings, padding_algorithm, size, ks, st)
    if adaptive:
        out = ks
    else:
        out = tuple(pool_output_size(size[i], ks[i], pads[2 * i], pads[2 * i + 1], st[i], ceil_mode) for i in range(3))
    return out, ks, st, (pads[0], pads[2], pads[4])


def pool3d_output_shape(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive, padding_algorithm):
    """The (d, h, w) output size of a pool3d on NCDHW ``x_shape``."""
    return _pool_geometry(x_shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                          padding_algorithm)[0]


def _is_max(pooling_type):
    if pooling_type not in ('max', 'avg'):
        raise ValueError("pooling_type must be 'max' or 'avg', got %r" % (pooling_type,))
    return pooling_type == 'max'


def pool3d_forward(x, ksize, pooling_type='max', strides=1, paddings=0, global_pooling=False, ceil_mode=False,
                   exclusive=True, adaptive=False, padding_algorithm='EXPLICIT', data_format='NCDHW'):
    """Paddle op ``pool3d`` (X -> Out); see the module docstring for the windows and divisors."""
    x = _to_ncdhw(x, data_format)
    is_max = _is_max(pooling_type)
    out, ks, st, pads = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                                       padding_algorithm)
    y = _pool3d_fwd(x, *out, *ks, *st, *pads, is_max, bool(exclusive), bool(adaptive) and not is_max)
    return _from_ncdhw(y, data_format)


def pool3d_backward(x, out, dout, ksize, pooling_type='max', strides=1, paddings=0, global_pooling=False,
                    ceil_mode=False, exclusive=True, adaptive=False, padding_algorithm='EXPLICIT', data_format='NCDHW'):
    """Paddle op ``pool3d_grad`` (X, Out, Out@GRAD -> X@GRAD)."""
    x = _to_ncdhw(x, data_format)
    out = _to_ncdhw(np.asarray(out, dtype=x.dtype), data_format)
    dout = _to_ncdhw(np.asarray(dout, dtype=x.dtype), data_format)
    is_max = _is_max(pooling_type)
    _, ks, st, pads = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, ceil_mode, adaptive,
                                     padding_algorithm)
    dx = _pool3d_bwd(x, out, dout, *ks, *st, *pads, is_max, bool(exclusive), bool(adaptive) and not is_max)
    return _from_ncdhw(dx, data_format)


# ----------------------------------------------------------------------------------------------------------------
# max_pool3d_with_index

@_jit
def _maxpool3d_idx_fwd(x, od, oh, ow, kd, kh, kw, sd, sh, sw, pf, pt, pl, adaptive):
    n_, c_, d_, h_, w_ = x.shape
    out = np.empty((n_, c_, od, oh, ow), dtype=x.dtype)
    mask = np.empty((n_, c_, od, oh, ow), dtype=np.int32)
    for n in range(n_):
        for c in range(c_):
            for pz in range(od):
                zs, ze = _window(pz, sd, pf, kd, d_, od, adaptive)
                for py in range(oh):
                    ys, ye = _window(py, sh, pt, kh, h_, oh, adaptive)
                    for px in range(ow):
                        xs, xe = _window(px, sw, pl, kw, w_, ow, adaptive)
                        v = -FLT_MAX
                        idx = -1
                        for a in range(zs, ze):
                            for i in range(ys, ye):
                                for j in range(xs, xe):
                                    if x[n, c, a, i, j] > v:
                                        v = x[n, c, a, i, j]
                                        idx = (a * h_ + i) * w_ + j
                        out[n, c, pz, py, px] = v
                        mask[n, c, pz, py, px] = idx
    return out, mask


def max_pool3d_with_index_forward(x, ksize, strides=1, paddings=0, global_pooling=False, adaptive=False):
    """Paddle op ``max_pool3d_with_index`` (X -> Out, Mask), NCDHW; returns ``(out, mask)``."""
    x = np.ascontiguousarray(x)
    out, ks, st, pads = _pool_geometry(x.shape, ksize, strides, paddings, global_pooling, False, adaptive,
                                       'EXPLICIT')
    return _maxpool3d_idx_fwd(x, *out, *ks, *st, *pads, bool(adaptive))


def max_pool3d_with_index_backward(dout, mask, x_shape):
    """Paddle op ``max_pool3d_with_index_grad``: ``dX[mask] += dOut`` per (n, c) volume."""
    n, c = int(x_shape[0]), int(x_shape[1])
    spatial = int(np.prod(x_shape[2:]))
    dx = _scatter_add(np.ascontiguousarray(dout).reshape(n * c, -1),
                      np.ascontiguousarray(mask, dtype=np.int32).reshape(n * c, -1), spatial)
    return dx.reshape(tuple(int(v) for v in x_shape))


@_jit
def _scatter_add(src2, idx2, size):
    b_, m_ = src2.shape
    out = np.zeros((b_, size), dtype=src2.dtype)
    for b in range(b_):
        for i in range(m_):
            k = idx2[b, i]
            if k >= 0 and k < size:
                out[b, k] += src2[b, i]
    return out


@_jit
def _scatter_set(src2, idx2, size):
    b_, m_ = src2.shape
    out = np.zeros((b_, size), dtype=src2.dtype)
    for b in range(b_):
        for i in range(m_):
            k = idx2[b, i]
            if k < 0 or k >= size:
                raise IndexError('unpool: an index is outside the output')
            out[b, k] = src2[b, i]
    return out


@_jit
def _gather_at(src2, idx2):
    b_, m_ = idx2.shape
    out = np.empty((b_, m_), dtype=src2.dtype)
    for b in range(b_):
        for i in range(m_):
            out[b, i] = src2[b, idx2[b, i]]
    return out


# ----------------------------------------------------------------------------------------------------------------
# unpool / unpool3d

def unpool_forward(x, indices, out_spatial):
    """Paddle ops ``unpool`` / ``unpool3d`` (X, Indices -> Out), channels first: ``out`` has X's N and C and the
    spatial size ``out_spatial``."""
    x = np.ascontiguousarray(x)
    n, c = x.shape[:2]
    size = int(np.prod(out_spatial))
    out = _scatter_set(x.reshape(n * c, -1), np.ascontiguousarray(indices, dtype=np.int32).reshape(n * c, -1), size)
    return out.reshape((n, c) + tuple(int(v) for v in out_spatial))


def unpool_backward(dout, indices, x_shape):
    """Paddle ops ``unpool_grad`` / ``unpool3d_grad``: ``dX[n, c, i] = dOut[n, c, indices[n, c, i]]``."""
    dout = np.ascontiguousarray(dout)
    n, c = dout.shape[:2]
    dx = _gather_at(dout.reshape(n * c, -1), np.ascontiguousarray(indices, dtype=np.int32).reshape(n * c, -1))
    return dx.reshape(tuple(int(v) for v in x_shape))
