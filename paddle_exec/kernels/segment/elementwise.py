"""Elementwise binary ops for compiled segments: Paddle's `axis` broadcasting, forward, gradients, fused add + act.

    out = binary(x, y, op, axis)                               # elementwise_add/sub/mul/div/max/min
    dx, dy = binary_grad(x, y, dout, op, axis, need_dx, need_dy)
    out = add_act(x, y, axis, act, a, b, c)                    # act(x + y) row by row: no intermediate tensor
    dx, dy = act_add_grad(out, dout, x, y, act, axis, need_dx, need_dy, a, b, c)

The broadcast plan (kernels/elementwise.py: operands aligned at `axis`, size-1 output dims dropped, neighbours of the
same pattern merged, 0 strides on broadcast dims) is computed here in numba from the shapes, and the loops are the
per-op kernels' own (`_binary_loop`, `_binary_grad_loop`), so a compiled segment computes what the plain executor
computes, summation order included. An output has the shape of x or, when x is the broadcast one, of y; a
gradient nobody wants is returned as an empty array of the operand's type.

The references (`*_ref`) use numpy broadcasting on the aligned shapes; a broadcast operand's gradient is summed
over its broadcast dims (rows in order, as the loops do).
"""
from __future__ import annotations

import numpy as np
from numba.extending import overload
from numba.np.unsafe.ndarray import to_fixed_tuple

from .. import elementwise as KE
from .. import unary as KU
from ..jit import kernel_jit
from .activation import backward_ref, forward_ref

__all__ = ['binary', 'binary_inplace', 'binary_ref', 'binary_grad', 'binary_grad_ref', 'add_act', 'add_act_ref',
           'act_add_grad', 'act_add_grad_ref', 'ADD', 'SUB', 'MUL', 'DIV', 'MAX', 'MIN']

_jit = kernel_jit(error_model='numpy')
ADD, SUB, MUL, DIV, MAX, MIN = KE.ADD, KE.SUB, KE.MUL, KE.DIV, KE.MAX, KE.MIN


def as_dtype_of(a, like):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(as_dtype_of)
def _as_dtype_of_impl(a, like):
    """`a` itself when it already has `like`'s dtype (decided when compiling), else a converted copy."""
    if a.dtype == like.dtype:
        return lambda a, like: a
    return lambda a, like: a.astype(like.dtype)


@_jit
def plan(xshape, yshape, axis):
    """(collapsed dims, x strides, y strides, size, x broadcast, y broadcast, output dims).
    kernels/elementwise.py's `_make_plan`, in numba, in one allocation; raises ValueError where that raises."""
    rx = len(xshape)
    ry = len(yshape)
    rank = max(rx, ry)
    buf = np.ones(7 * rank + 7, np.int64)
    xs = buf[0:rank]
    ys = buf[rank:2 * rank]
    out = buf[2 * rank:3 * rank]
    dims = buf[3 * rank:4 * rank + 1]
    pat = buf[4 * rank + 1:5 * rank + 2]
    if rx == ry:
        for i in range(rank):
            xs[i] = xshape[i]
            ys[i] = yshape[i]
    else:
        small = yshape if rx > ry else xshape
        big = xshape if rx > ry else yshape
        n_small = len(small)
        while n_small > 0 and small[n_small - 1] == 1:
            n_small -= 1
        ax = rank - len(small) if axis < 0 else axis
        if ax + n_small > rank:
            raise ValueError('Broadcast dimension mismatch: axis is out of range for the shapes of X and Y')
        for i in range(rank):
            if rx > ry:
                xs[i] = big[i]
            else:
                ys[i] = big[i]
        for i in range(n_small):
            if rx > ry:
                ys[ax + i] = small[i]
            else:
                xs[ax + i] = small[i]
    size = 1
    for i in range(rank):
        a = xs[i]
        b = ys[i]
        if a == b or b == 1:
            out[i] = a
        elif a == 1:
            out[i] = b
        else:
            raise ValueError('Broadcast dimension mismatch: operands could not be broadcast together')
        size *= out[i]
    nd = 0
    for i in range(rank):
        o = out[i]
        if o == 1:
            continue
        p = (1 if xs[i] == o else 0) + (2 if ys[i] == o else 0)
        if nd > 0 and pat[nd - 1] == p:
            dims[nd - 1] *= o
        else:
            dims[nd] = o
            pat[nd] = p
            nd += 1
    if nd == 0:
        dims[0] = 1
        pat[0] = 3
        nd = 1
    shape = dims[:nd]
    xst = buf[5 * rank + 2:5 * rank + 2 + nd]
    yst = buf[6 * rank + 4:6 * rank + 4 + nd]
    xst[:] = 0
    yst[:] = 0
    xacc = 1
    yacc = 1
    for i in range(nd - 1, -1, -1):
        n = shape[i]
        if pat[i] & 1:
            xst[i] = xacc
            xacc *= n
        if pat[i] & 2:
            yst[i] = yacc
            yacc *= n
    xsize = 1
    for d in xshape:
        xsize *= d
    ysize = 1
    for d in yshape:
        ysize *= d
    return shape, xst, yst, size, xsize < size, ysize < size, out


def empty_out(x, y, dims):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(empty_out)
def _empty_out_impl(x, y, dims):
    """An empty array of shape `dims` (the higher rank of x and y, known when compiling) and x's dtype."""
    rank = max(x.ndim, y.ndim)

    def impl(x, y, dims):
        return np.empty(to_fixed_tuple(dims, rank), x.dtype)
    return impl


@_jit
def _is_bias(x, y, axis):
    """y a vector of x's last dim, aligned there (fc's bias): the plan is rows of x against y."""
    return (y.ndim == 1 and x.ndim >= 2 and y.shape[0] > 1 and x.shape[x.ndim - 1] == y.shape[0]
            and (axis == -1 or axis == x.ndim - 1))


def bias_add(x, y, out):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(bias_add)
def _bias_add_impl(x, y, out):
    """out = x + y for a vector y along x's last dimension, element by element as _fwd_row_vv adds. A 2-D x is
    indexed as it is: reshaping it costs as much as the additions at fc sizes (8 x 64); other ranks as rows."""
    if x.ndim == 2:
        def impl(x, y, out):
            n = y.shape[0]
            for i in range(x.shape[0]):
                for k in range(n):
                    out[i, k] = x[i, k] + y[k]
        return impl

    def impl(x, y, out):
        n = y.shape[0]
        x2 = x.reshape(-1, n)
        o2 = out.reshape(-1, n)
        for i in range(x2.shape[0]):
            for k in range(n):
                o2[i, k] = x2[i, k] + y[k]
    return impl


def bias_add_inplace(x, y):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(bias_add_inplace)
def _bias_add_inplace_impl(x, y):
    """x += y for a vector y along x's last dimension (C-contiguous x), element by element as _fwd_row_vv adds.
    Its own loop rather than bias_add(x, y, x): given one array as input and output, that loop does not vectorize
    (measured: 0.15 against 0.04 us on 8 x 64, 60 against 14 us on 512 x 400 float32)."""
    if x.ndim == 2:
        def impl(x, y):
            n = y.shape[0]
            for i in range(x.shape[0]):
                for k in range(n):
                    x[i, k] = x[i, k] + y[k]
        return impl

    def impl(x, y):
        n = y.shape[0]
        x2 = x.reshape(-1, n)
        for i in range(x2.shape[0]):
            for k in range(n):
                x2[i, k] = x2[i, k] + y[k]
    return impl


def _same_dtype(x, y):  # pragma: no cover - replaced by the overload inside numba code
    raise NotImplementedError


@overload(_same_dtype)
def _same_dtype_impl(x, y):
    same = getattr(x, 'dtype', None) == getattr(y, 'dtype', None)
    return lambda x, y: same


@_jit
def binary(x, y, op, axis):
    """Paddle's elementwise op `op` (kernels/elementwise.py opcodes ADD..MIN) with broadcasting at `axis`."""
    x = np.ascontiguousarray(x)
    y = np.ascontiguousarray(as_dtype_of(y, x))
    if x.shape == y.shape:          # the one-row plan: the loop's own row, without building the plan
        out = np.empty(x.shape, x.dtype)
        KE._fwd_row_vv(op, x.reshape(-1), y.reshape(-1), out.reshape(-1))
        return out
    if _is_bias(x, y, axis):        # [..., n] op [n]: the plan's rows, without building the plan
        out = np.empty(x.shape, x.dtype)
        yf = y.reshape(-1)           # y is 1-D here (a reshape keeps other ranks' code typed)
        if op == ADD:               # fc's bias: _fwd_row_vv's addition inlined (a call per row costs 2.5x the adds)
            bias_add(x, yf, out)
            return out
        n = yf.shape[0]
        xf = x.reshape(-1)
        of = out.reshape(-1)
        for start in range(0, xf.shape[0], n):
            KE._fwd_row_vv(op, xf[start:start + n], yf, of[start:start + n])
        return out
    shape, xst, yst, size, xb, yb, dims = plan(x.shape, y.shape, axis)
    out = empty_out(x, y, dims)
    if size:
        KE._binary_loop(op, x.reshape(-1), y.reshape(-1), out.reshape(-1), shape, xst, yst)
    return out


@_jit
def binary_inplace(x, y, op, axis):
    """`binary` written into x (memory reuse: x is a buffer of the segment's own that dies here) when the result has
    x's shape and dtype and x is C-contiguous: fc's bias added to the product (ADD of a vector along the last
    dimension, on the one array so the loop vectorizes) and same-shape operands; anything else as `binary`."""
    if x.flags.c_contiguous and _same_dtype(x, y):
        if x.shape == y.shape:
            yc = np.ascontiguousarray(y)
            KE._fwd_row_vv(op, x.reshape(-1), yc.reshape(-1), x.reshape(-1))
            return x
        if op == ADD and _is_bias(x, y, axis):
            bias_add_inplace(x, np.ascontiguousarray(y).reshape(-1))
            return x
    return binary(x, y, op, axis)


@_jit
def binary_grad(x, y, dout, op, axis, need_dx, need_dy):
    """(dX, dY) of `binary`; an unwanted one is an empty array of its operand's type."""
    x = np.ascontiguousarray(as_dtype_of(x, dout))
    y = np.ascontiguousarray(as_dtype_of(y, dout))
    dout = np.ascontiguousarray(dout)
    if x.shape == y.shape and dout.shape == x.shape:     # the one-row plan, as _binary_grad_loop runs it
        df = dout.reshape(-1)
        dx = np.empty(x.shape, dout.dtype) if need_dx else np.empty(x.shape, dout.dtype)[:0]
        dy = np.empty(y.shape, dout.dtype) if need_dy else np.empty(y.shape, dout.dtype)[:0]
        if need_dx:
            KE._grad_row(op, 0, x.reshape(-1), y.reshape(-1), df, dx.reshape(-1), False)
        if need_dy:
            KE._grad_row(op, 1, x.reshape(-1), y.reshape(-1), df, dy.reshape(-1), False)
        return dx, dy
    if _is_bias(x, y, axis) and dout.shape == x.shape:    # rows of the plan, dY summed over them in order
        yf = y.reshape(-1)
        n = yf.shape[0]
        xf = x.reshape(-1)
        df = dout.reshape(-1)
        dx = np.empty(x.shape, dout.dtype) if need_dx else np.empty(x.shape, dout.dtype)[:0]
        dy = np.zeros(y.shape, dout.dtype) if need_dy else np.empty(y.shape, dout.dtype)[:0]
        dxf = dx.reshape(-1)
        dyf = dy.reshape(-1)
        for start in range(0, xf.shape[0], n):
            if need_dx:
                KE._grad_row(op, 0, xf[start:start + n], yf, df[start:start + n], dxf[start:start + n], False)
            if need_dy:
                KE._grad_row(op, 1, xf[start:start + n], yf, df[start:start + n], dyf, True)
        return dx, dy
    shape, xst, yst, size, xb, yb, dims = plan(x.shape, y.shape, axis)
    if dout.size != size:
        raise ValueError('Out@GRAD does not have the shape of Out')
    dx = (np.zeros(x.shape, dout.dtype) if (xb or size == 0) else np.empty(x.shape, dout.dtype)) if need_dx \
        else np.empty(x.shape, dout.dtype)[:0]
    dy = (np.zeros(y.shape, dout.dtype) if (yb or size == 0) else np.empty(y.shape, dout.dtype)) if need_dy \
        else np.empty(y.shape, dout.dtype)[:0]
    if size and (need_dx or need_dy):
        dummy = np.empty(1, dout.dtype)
        gx = dx.reshape(-1) if need_dx else dummy
        gy = dy.reshape(-1) if need_dy else dummy
        KE._binary_grad_loop(op, x.reshape(-1), y.reshape(-1), dout.reshape(-1), gx, gy, shape, xst, yst,
                             need_dx, need_dy, xb, yb)
    return dx, dy


# --- add + activation, forward and backward in one pass (BuildStrategy.fuse_elewise_add_act_ops) --------------

@_jit
def add_act(x, y, axis, act, a, b, c):
    """act(x + y) (act: a kernels/unary.py opcode with its constants), computed row by row: each row of the sum
    goes through the activation while it is in cache, and the sum is never stored on its own."""
    x = np.ascontiguousarray(x)
    y = np.ascontiguousarray(as_dtype_of(y, x))
    shape, xst, yst, size, xb, yb, dims = plan(x.shape, y.shape, axis)
    if x.size != size or x.ndim < y.ndim:
        raise ValueError('fused elementwise_add + activation: the output must have the shape of X')
    out = np.empty(x.shape, x.dtype)
    if size:
        t = x.dtype.type
        _add_act_loop(x.reshape(-1), y.reshape(-1), out.reshape(-1), shape, xst, yst, act, t(a), t(b), t(c))
    return out


@_jit
def _add_act_loop(x, y, out, shape, xst, yst, act, a, b, c):
    nd = shape.shape[0]
    n = shape[nd - 1]
    sxi = xst[nd - 1]
    syi = yst[nd - 1]
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, out.shape[0], n):
        orow = out[oo:oo + n]
        if sxi == 1 and syi == 1:
            KE._fwd_row_vv(ADD, x[xo:xo + n], y[yo:yo + n], orow)
        elif syi == 0:
            xr = x[xo:xo + n]
            yv = y[yo]
            for k in range(n):
                orow[k] = xr[k] + yv
        else:
            xv = x[xo]
            yr = y[yo:yo + n]
            for k in range(n):
                orow[k] = xv + yr[k]
        KU.forward_loop(act, orow, orow, a, b, c)
        xo, yo = KE._advance(idx, shape, xst, yst, xo, yo)


@_jit
def act_add_grad(out, dout, x, y, act, axis, need_dx, need_dy, a, b, c):
    """(dX, dY) of out = act(x + y): the activation's gradient (read from Out) and elementwise_add's, row by row:
    each row of the sum's gradient is summed into dY while it is in cache."""
    out = np.ascontiguousarray(out)
    dout = np.ascontiguousarray(dout)
    shape, xst, yst, size, xb, yb, dims = plan(x.shape, y.shape, axis)
    if x.size != size or x.ndim < y.ndim or dout.size != size or out.size != size:
        raise ValueError('fused activation + elementwise_add gradient: shapes do not match')
    dt = dout.dtype
    t = dt.type
    dsum = np.empty(out.shape, dt)
    dy = (np.zeros(y.shape, dt) if yb else np.empty(y.shape, dt)) if need_dy else np.empty(y.shape, dt)[:0]
    if size:
        _act_add_grad_loop(act, out.reshape(-1), dout.reshape(-1), dsum.reshape(-1),
                           dy.reshape(-1) if need_dy else dy.reshape(-1)[:0], shape, xst, yst, need_dy, yb,
                           t(a), t(b), t(c))
    dx = dsum.reshape(x.shape) if need_dx else np.empty(x.shape, dt)[:0]
    return dx, dy


@_jit
def _act_add_grad_loop(act, out, dout, dsum, dy, shape, xst, yst, need_dy, dy_acc, a, b, c):
    """The rows of `_binary_grad_loop(ADD, ...)` for dY (dX is the sum's gradient itself), each fed by the
    activation's gradient of that row."""
    nd = shape.shape[0]
    n = shape[nd - 1]
    syi = yst[nd - 1]
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, dout.shape[0], n):
        orow = out[oo:oo + n]
        grow = dsum[oo:oo + n]
        KU.backward_loop(act, orow, orow, dout[oo:oo + n], grow, a, b, c)
        if need_dy:
            if syi == 0:
                total = 0.0
                for k in range(n):
                    total += grow[k]
                dy[yo] += total
            elif dy_acc:
                yr = dy[yo:yo + n]
                for k in range(n):
                    yr[k] += grow[k]
            else:
                yr = dy[yo:yo + n]
                for k in range(n):
                    yr[k] = grow[k]
        xo, yo = KE._advance(idx, shape, xst, yst, xo, yo)


# --- references ------------------------------------------------------------------------------------------------

def _aligned(x, y, axis):
    """x and y reshaped to the aligned shapes of kernels/elementwise.py, and the numpy broadcast output shape."""
    xs, ys = KE._align(tuple(x.shape), tuple(y.shape), axis)
    KE._plan(tuple(x.shape), tuple(y.shape), axis)      # Paddle's errors for shapes that do not broadcast
    return x.reshape(xs), y.reshape(ys)


def _apply(op, x, y):
    if op == ADD:
        return x + y
    if op == SUB:
        return x - y
    if op == MUL:
        return x * y
    if op == DIV:
        if x.dtype.kind in 'iu':
            q = np.abs(x) // np.abs(y)
            return np.where((x < 0) != (y < 0), -q, q).astype(x.dtype)
        return x / y
    if op == MAX:
        return np.where(x > y, x, y)
    return np.where(x < y, x, y)


def _out_shape(x, y, axis):
    return KE._plan(tuple(x.shape), tuple(y.shape), axis).out_shape


def binary_ref(x, y, op, axis):
    y = y.astype(x.dtype, copy=False)
    xa, ya = _aligned(x, y, axis)
    return np.ascontiguousarray(_apply(op, xa, ya).astype(x.dtype, copy=False)).reshape(_out_shape(x, y, axis))


def _sum_to(g, shape, aligned):
    """`g` (of the output's aligned shape) summed to `shape` over the dims where `aligned` is 1 and g's is not, in
    the order of `_binary_grad_loop`: output rows in row-major order, a row whose operand side is one scalar (the
    operand is broadcast along the last output dims) summed in float64 and added to the float32 result, a row of
    the operand's own elements added in the dtype."""
    if g.shape == tuple(shape):
        return g
    dt = g.dtype
    rank = g.ndim
    bdims = [i for i in range(rank) if aligned[i] == 1 and g.shape[i] != 1]
    if not bdims:
        return np.ascontiguousarray(g).reshape(shape)
    kept = [i for i in range(rank) if g.shape[i] != 1]
    tail = []                      # the trailing run of broadcast dims: the scalar-side rows
    for i in reversed(kept):
        if aligned[i] != 1:
            break
        tail.append(i)
    if tail:
        g = g.sum(axis=tuple(tail), dtype=np.float64, keepdims=True)
    rest = [i for i in bdims if i not in tail]
    if not rest:
        return np.ascontiguousarray(g.astype(dt)).reshape(shape)
    moved = np.moveaxis(g, rest, list(range(len(rest))))
    rows = moved.reshape((-1,) + moved.shape[len(rest):])
    if len(rest) == 1 and not tail:
        total = np.add.reduce(rows, axis=0)          # sequential over the rows, in the dtype
    else:
        total = np.zeros(rows.shape[1:], dt)
        for r in rows:
            total = (total + r).astype(dt) if tail else total + r
    return np.ascontiguousarray(total.astype(dt)).reshape(shape)


def _contributions(op, xa, ya, d):
    if op == ADD:
        return d, d
    if op == SUB:
        return d, -d
    if op == MUL:
        return d * ya, d * xa
    if op == DIV:
        return d / ya, -d * (xa / ya) / ya
    if op == MAX:
        return d * (xa > ya), d * (xa <= ya)
    return d * (xa < ya), d * (xa >= ya)


def binary_grad_ref(x, y, dout, op, axis, need_dx, need_dy):
    dt = dout.dtype
    x, y = x.astype(dt, copy=False), y.astype(dt, copy=False)
    xa, ya = _aligned(x, y, axis)
    out_shape = _out_shape(x, y, axis)
    if dout.shape != out_shape:
        raise ValueError('Out@GRAD shape %s does not match Out shape %s' % (list(dout.shape), list(out_shape)))
    d = dout.reshape(np.broadcast_shapes(xa.shape, ya.shape))
    gx, gy = _contributions(op, xa, ya, d)
    dx = _sum_to(np.broadcast_to(gx, d.shape).astype(dt, copy=False), x.shape, xa.shape) if need_dx \
        else np.empty(x.shape, dt)[:0]
    dy = _sum_to(np.broadcast_to(gy, d.shape).astype(dt, copy=False), y.shape, ya.shape) if need_dy \
        else np.empty(y.shape, dt)[:0]
    return dx, dy


def add_act_ref(x, y, axis, act, a, b, c):
    return forward_ref(binary_ref(x, y, ADD, axis), act, a, b, c)


def act_add_grad_ref(out, dout, x, y, act, axis, need_dx, need_dy, a, b, c):
    dsum = backward_ref(out, dout, act, a, b, c)
    _, dy = binary_grad_ref(x, y, dsum, ADD, axis, False, need_dy)
    return (dsum.reshape(x.shape) if need_dx else np.empty(x.shape, dout.dtype)[:0]), dy
