"""Creation, shape, joining and reduction ops for compiled segments, and their numpy twins.

    fill(shape, value, code)                    fill_constant: `shape` a tuple, `code` the dtype's index in DTYPES
    reshape(x, target, rank)                    reshape2 (target: the attribute, 0 copies a dim, -1 is inferred;
                                                rank its length, a literal); reshape_grad(xshape, dout)
    xshape_of(x)                                the v2 ops' XShape value (no data, X's dims after a leading 0)
    concat(xs, axis, rank) / concat_grad        along `axis` (normalised); xs a tuple of same-rank arrays
    add_n(xs)                                   sum: ((x0 + x1) + x2) + ..., in the dtype
    coalesce(xs)                                xs end to end in one new 1-D buffer (coalesce_tensor)
    mean(x), mean_grad(x, dout)                 all elements, accumulated in float64 (kernels/reduce.py's loop)
    reduce(x, op, d0, d1, keep_dim, rank)       reduce_sum / reduce_mean over the adjacent dims d0..d1 (the segment
    reduce_grad(x, dout, op, d0, d1)            rules compile only adjacent dims); rank: the output's, a literal

`rank` arguments are forced to literals (numba.literally) so that output shapes are tuples of a length known when
compiling; they are computed by the segment rules from the op's attributes and the input's rank.
"""
from __future__ import annotations

import numpy as np
from numba import literal_unroll, literally, types
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.unsafe.ndarray import to_fixed_tuple

from .. import reduce as KR
from ..jit import kernel_jit

__all__ = ['fill', 'fill_ref', 'DTYPE_CODES', 'reshape', 'reshape_ref', 'reshape_grad', 'reshape_grad_ref', 'xshape_of',
           'xshape_of_ref', 'reshape_with_xshape', 'reshape_with_xshape_ref', 'concat', 'concat_ref', 'concat_grad',
           'concat_grad_ref', 'add_n', 'add_n_ref', 'mean', 'mean_ref', 'mean_grad', 'mean_grad_ref', 'reduce',
           'reduce_ref', 'reduce_grad', 'reduce_grad_ref', 'SUM', 'MEAN']

_jit = kernel_jit(error_model='numpy')
SUM, MEAN = KR.SUM, KR.MEAN


# fill's dtype argument: a code (a literal in the generated text; numba's cache cannot hold a dtype argument)
DTYPES = (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64)   # numba has no float16
DTYPE_CODES = {np.dtype(t): k for k, t in enumerate(DTYPES)}


def _full(shape, value, code):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_full)
def _full_impl(shape, value, code):
    if not isinstance(code, types.IntegerLiteral):
        raise TypingError('fill: the dtype code must be a literal')
    dtype = DTYPES[code.literal_value]
    return lambda shape, value, code: np.full(shape, value, dtype)


@_jit
def fill(shape, value, code):
    """fill_constant: `code` indexes DTYPES."""
    literally(code)
    return _full(shape, value, code)


def fill_ref(shape, value, code):
    return np.full(shape, value, DTYPES[code])


# --- reshape -----------------------------------------------------------------------------------------------------

@_jit
def _target_dims(xshape, target):
    n = len(target)
    dims = np.empty(n, np.int64)
    unknown = -1
    capacity = 1
    for i in range(n):
        d = target[i]
        if d == -1:
            unknown = i
            dims[i] = 1
        elif d == 0:
            if i >= len(xshape):
                raise ValueError('reshape: a 0 in the target shape is past the input dimensions')
            dims[i] = xshape[i]
        else:
            dims[i] = d
        capacity *= dims[i]
    size = 1
    for d in xshape:
        size *= d
    if unknown >= 0:
        if capacity == 0 or size % capacity != 0:
            raise ValueError("reshape: the input size is not divisible by the known capacity of 'shape'")
        dims[unknown] = size // capacity
    elif capacity != size:
        raise ValueError("reshape: the input size differs from the capacity of 'shape'")
    return dims


@_jit
def reshape(x, target, rank):
    literally(rank)
    return np.ascontiguousarray(x).reshape(to_fixed_tuple(_target_dims(x.shape, target), rank))


def reshape_ref(x, target, rank):
    dims = []
    for i, d in enumerate(target):
        dims.append(x.shape[i] if d == 0 else d)
    return np.ascontiguousarray(x).reshape(dims)


@_jit
def reshape_with_xshape(x, target, rank):
    """reshape2 with its XShape output."""
    literally(rank)
    return reshape(x, target, rank), xshape_of(x)


def reshape_with_xshape_ref(x, target, rank):
    return reshape_ref(x, target, rank), xshape_of_ref(x)


@_jit
def xshape_of(x):
    return np.empty((0,) + x.shape, x.dtype)


def xshape_of_ref(x):
    return np.empty((0,) + x.shape, x.dtype)


def _dims_after_first(xshape):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_dims_after_first)
def _dims_after_first_impl(xshape):
    n = len(xshape) - 1

    def impl(xshape):
        dims = np.empty(n, np.int64)
        for i in range(n):
            dims[i] = xshape[i + 1]
        return to_fixed_tuple(dims, n)
    return impl


@_jit
def reshape_grad(xshape, dout):
    return np.ascontiguousarray(dout).reshape(_dims_after_first(xshape.shape))


def reshape_grad_ref(xshape, dout):
    return np.ascontiguousarray(dout).reshape(xshape.shape[1:])


# --- concat -------------------------------------------------------------------------------------------------------

@_jit
def concat(xs, axis, rank):
    literally(rank)
    first = xs[0]
    dims = np.empty(rank, np.int64)
    for i in range(rank):
        dims[i] = first.shape[i]
    total = 0
    for x in literal_unroll(xs):     # the arrays may differ in type (a read-only one among them)
        for i in range(rank):
            if i != axis and x.shape[i] != first.shape[i]:
                raise ValueError('concat: the inputs differ in a dimension other than the axis')
        total += x.shape[axis]
    dims[axis] = total
    out = np.empty(to_fixed_tuple(dims, rank), first.dtype)
    pre = 1
    for i in range(axis):
        pre *= dims[i]
    post = 1
    for i in range(axis + 1, rank):
        post *= dims[i]
    o2 = out.reshape(pre, total * post)
    start = 0
    for x in literal_unroll(xs):
        w = x.shape[axis] * post
        x2 = np.ascontiguousarray(x).reshape(pre, w)
        for p in range(pre):
            o2[p, start:start + w] = x2[p]
        start += w
    return out


def concat_ref(xs, axis, rank):
    return np.concatenate(xs, axis=axis)


@_jit
def concat_grad(xs, dout, axis):
    """The parts of dout along `axis`, one per input, each C-contiguous (a tuple like xs)."""
    dout = np.ascontiguousarray(dout)
    rank = dout.ndim
    pre = 1
    for i in range(axis):
        pre *= dout.shape[i]
    post = 1
    for i in range(axis + 1, rank):
        post *= dout.shape[i]
    total = dout.shape[axis] * post
    d2 = dout.reshape(pre, total)
    parts = []
    start = 0
    for x in literal_unroll(xs):     # the arrays may differ in type (a read-only one among them)
        part = np.empty(x.shape, dout.dtype)
        w = x.shape[axis] * post
        p2 = part.reshape(pre, w)
        for p in range(pre):
            p2[p] = d2[p, start:start + w]
        start += w
        parts.append(part)
    if start != total:
        raise ValueError('concat_grad: Out@GRAD does not have the concatenated size')
    return parts


def concat_grad_ref(xs, dout, axis):
    bounds = np.cumsum([x.shape[axis] for x in xs])[:-1]
    return [np.ascontiguousarray(p) for p in np.split(dout, bounds, axis=axis)]


# --- sum, mean, reduce ----------------------------------------------------------------------------------------

@_jit
def add_n(xs):
    first = xs[0]
    out = np.empty(first.shape, first.dtype)
    flat = out.reshape(-1)
    for x in literal_unroll(xs):     # the arrays may differ in type (a read-only one among them): no indexing
        if x.shape != first.shape:
            raise ValueError('sum: the inputs differ in shape')
    if len(xs) == 1:
        flat[:] = np.ascontiguousarray(first).reshape(-1)
        return out
    k = 0
    for x in literal_unroll(xs):
        if k == 1:
            KR._add_into(flat, np.ascontiguousarray(first).reshape(-1), np.ascontiguousarray(x).reshape(-1))
        elif k > 1:
            KR._add_into(flat, flat, np.ascontiguousarray(x).reshape(-1))
        k += 1
    return out


def add_n_ref(xs):
    out = np.array(xs[0], copy=True)
    if len(xs) > 1:
        out = xs[0] + xs[1]
        for x in xs[2:]:
            out = out + x
    return np.ascontiguousarray(out)


@_jit
def coalesce(xs):
    """The arrays of `xs` end to end in one new 1-D buffer, in order (coalesce_tensor of fresh gradients)."""
    n = 0
    for x in literal_unroll(xs):     # the arrays differ in rank (a weight's and a bias's gradient)
        n += x.size
    out = np.empty(n, xs[0].dtype)
    start = 0
    for x in literal_unroll(xs):
        out[start:start + x.size] = np.ascontiguousarray(x).reshape(-1)
        start += x.size
    return out


def coalesce_ref(xs):
    return np.concatenate([np.ascontiguousarray(x).reshape(-1) for x in xs])


def _acc_zero(x):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_acc_zero)
def _acc_zero_impl(x):
    """kernels/reduce.py's accumulator: float64 for floats, int64 for integers."""
    if str(x.dtype).startswith('float'):
        return lambda x: np.float64(0.0)
    return lambda x: np.int64(0)


def _acc_buf(x, n):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_acc_buf)
def _acc_buf_impl(x, n):
    if str(x.dtype).startswith('float'):
        return lambda x, n: np.empty(n, np.float64)
    return lambda x, n: np.empty(n, np.int64)


@_jit
def mean(x):
    out = np.empty(1, x.dtype)
    if x.size == 0:
        out[0] = np.nan
        return out
    KR._reduce_loop(MEAN, np.ascontiguousarray(x).reshape(-1), out, 1, x.size, 1, _acc_zero(x), _acc_buf(x, 0))
    return out


def _acc_dtype(x):
    return np.float64 if x.dtype.kind == 'f' else np.int64


def mean_ref(x):
    if x.size == 0:
        return np.full(1, np.nan, x.dtype)
    return np.array([x.sum(dtype=_acc_dtype(x)) / x.size]).astype(x.dtype)


@_jit
def mean_grad(x, dout):
    if dout.size != 1:
        raise ValueError('mean_grad: Out@GRAD must hold one element')
    return np.full(x.shape, np.float64(dout.reshape(-1)[0]) / x.size, dout.dtype)


def mean_grad_ref(x, dout):
    if dout.size != 1:
        raise ValueError('mean_grad: Out@GRAD must hold one element')
    return np.full(x.shape, float(dout.reshape(-1)[0]) / x.size, dtype=dout.dtype)


@_jit
def _split3(shape, d0, d1):
    pre = 1
    r = 1
    post = 1
    for i in range(len(shape)):
        if i < d0:
            pre *= shape[i]
        elif i <= d1:
            r *= shape[i]
        else:
            post *= shape[i]
    return pre, r, post


@_jit
def reduce(x, op, d0, d1, keep_dim, rank):
    """reduce_sum (op SUM) / reduce_mean (MEAN) of x over dims d0..d1, to `rank` dims (keep_dim: those dims kept
    as 1; nothing left: [1])."""
    literally(rank)
    x = np.ascontiguousarray(x)
    pre, r, post = _split3(x.shape, d0, d1)
    dims = np.ones(rank, np.int64)
    k = 0
    for i in range(x.ndim):
        if i < d0 or i > d1:
            dims[k] = x.shape[i]
            k += 1
        elif keep_dim:
            k += 1
    out = np.empty(to_fixed_tuple(dims, rank), x.dtype)
    acc0 = _acc_zero(x)
    if x.size == 0:
        out.reshape(-1)[:] = 0
        return out
    KR._reduce_loop(op, x.reshape(-1), out.reshape(-1), pre, r, post, acc0, _acc_buf(x, post if post > 1 else 0))
    return out


def reduce_ref(x, op, d0, d1, keep_dim, rank):
    pre = int(np.prod(x.shape[:d0], dtype=np.int64))
    r = int(np.prod(x.shape[d0:d1 + 1], dtype=np.int64))
    dims = [d for i, d in enumerate(x.shape) if i < d0 or i > d1 or keep_dim]
    for i in range(d0, d1 + 1):
        if keep_dim:
            dims[i] = 1
    dims = dims or [1]
    x3 = np.ascontiguousarray(x).reshape(pre, r, -1)
    total = x3.sum(axis=1, dtype=_acc_dtype(x))
    if op == MEAN:
        total = total / r
    return total.astype(x.dtype).reshape(dims)


@_jit
def reduce_grad(x, dout, op, d0, d1):
    pre, r, post = _split3(x.shape, d0, d1)
    if dout.size != pre * post:
        raise ValueError('reduce_grad: Out@GRAD does not have the shape of Out')
    dx = np.empty(x.shape, dout.dtype)
    if dx.size:
        d = np.ascontiguousarray(dout).reshape(-1)
        KR._reduce_grad_loop(op, dx.reshape(-1), d, d, dx.reshape(-1), pre, r, post)
    return dx


def reduce_grad_ref(x, dout, op, d0, d1):
    pre = int(np.prod(x.shape[:d0], dtype=np.int64))
    r = int(np.prod(x.shape[d0:d1 + 1], dtype=np.int64))
    d = np.ascontiguousarray(dout).reshape(pre, 1, -1)
    if op == MEAN:
        d = d / r
    return np.ascontiguousarray(np.broadcast_to(d, (pre, r, d.shape[2])).astype(dout.dtype)).reshape(x.shape)
