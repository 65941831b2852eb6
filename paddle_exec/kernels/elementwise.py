"""Elementwise binary kernels: Paddle's ``elementwise_*`` ops, the comparison ops and ``where``.

Paddle ops implemented here (forward, and backward where Paddle has a grad op):

===================  ===================================  ==========================================
Paddle op            forward                              backward (dX, dY before reduction)
===================  ===================================  ==========================================
elementwise_add      x + y                                dout, dout
elementwise_sub      x - y                                dout, -dout
elementwise_mul      x * y                                dout * y, dout * x
elementwise_div      x / y (ints: truncating)             dout / y, -dout * out / y
elementwise_max      x > y ? x : y                        dout * (x > y), dout * (x <= y)
elementwise_min      x < y ? x : y                        dout * (x < y), dout * (x >= y)
elementwise_pow      pow(x, y) (ints: rounded)            dout * y * x^(y-1), dout * log(x) * x^y
elementwise_floordiv trunc(x / y) (as Paddle <= 2.4)      -
elementwise_mod      Python-style remainder               -
less_than ... equal  bool; float equal is |x - y| < 1e-8  -
where                cond ? x : y                         cond ? dout : 0, cond ? 0 : dout
===================  ===================================  ==========================================

Broadcasting (``axis`` attribute) follows Paddle: the lower-rank operand has its trailing size-1 dims trimmed
and is aligned with the higher-rank one starting at ``axis`` (``axis=-1``: align trailing dims); then every
dim must be equal or 1 on one side (Paddle 1.8 "common broadcast", Paddle 2.x numpy rules). Gradients of a
broadcast operand are summed back to its shape in row-major order of the output, accumulating in the gradient's
dtype as Paddle's CPU kernels do (a row that reduces to a single element is summed in float64).

How it runs: the shapes are turned once (an LRU cache per ``(x.shape, y.shape, axis)``, bounded: a program fed
ever new shapes must not grow it without end; a miss costs a few microseconds) into a *plan*: the output
dims with size-1 dims dropped and adjacent dims of the same broadcast pattern merged, plus per-operand element
strides (0 on broadcast dims). Typical cases collapse to 1-D (same shape, scalar) or 2-D (bias add). One
jitted loop per family walks that collapsed shape; the op is a small integer ``opcode``.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

from .jit import kernel_jit

__all__ = [
    "elementwise_add_forward", "elementwise_add_backward",
    "elementwise_sub_forward", "elementwise_sub_backward",
    "elementwise_mul_forward", "elementwise_mul_backward",
    "elementwise_div_forward", "elementwise_div_backward",
    "elementwise_max_forward", "elementwise_max_backward",
    "elementwise_min_forward", "elementwise_min_backward",
    "elementwise_pow_forward", "elementwise_pow_backward",
    "elementwise_floordiv_forward", "elementwise_mod_forward",
    "less_than_forward", "less_equal_forward", "greater_than_forward", "greater_equal_forward",
    "equal_forward", "not_equal_forward",
    "where_forward", "where_backward",
    "broadcast_shape", "sum_to_shape",
]

# error_model="numpy": float division by zero gives inf/nan as in C++, instead of raising.
_jit = kernel_jit(error_model="numpy")

# Binary opcodes.
ADD, SUB, MUL, DIV, MAX, MIN, POW, FLOORDIV, MOD = range(9)
# Comparison opcodes.
LT, LE, GT, GE, EQ, NE = range(6)


# ----------------------------------------------------------------------------------------------------------
# scalar helpers: integer-aware division and power (Paddle semantics)
# ----------------------------------------------------------------------------------------------------------

def _tdiv(a, b):  # pragma: no cover - replaced by the overload inside jitted code
    raise NotImplementedError


@overload(_tdiv)
def _tdiv_impl(a, b):
    if isinstance(a, types.Integer):
        def impl(a, b):  # C++ integer division truncates toward zero
            q = a // b
            if (a % b != 0) and ((a < 0) != (b < 0)):
                q += 1
            return q
        return impl

    def impl_f(a, b):
        return a / b
    return impl_f


def _tfloordiv(a, b):  # pragma: no cover
    raise NotImplementedError


@overload(_tfloordiv)
def _tfloordiv_impl(a, b):
    if isinstance(a, types.Integer):
        def impl(a, b):
            return _tdiv(a, b)
        return impl

    def impl_f(a, b):
        return math.trunc(a / b)
    return impl_f


def _tpow(a, b):  # pragma: no cover
    raise NotImplementedError


@overload(_tpow)
def _tpow_impl(a, b):
    if isinstance(a, types.Integer):
        def impl(a, b):  # Paddle: llrint(pow(double, double)) for integer types
            return round(math.pow(float(a), float(b)))
        return impl

    def impl_f(a, b):
        return a ** b
    return impl_f


@_jit
def _binop_common(op, a, b):
    """ADD..MIN. Kept apart from the rare ops: a loop over this function alone gets unswitched on ``op``
    and vectorized by LLVM; the calls in POW/FLOORDIV/MOD would prevent that."""
    if op == ADD:
        return a + b
    elif op == SUB:
        return a - b
    elif op == MUL:
        return a * b
    elif op == DIV:
        return _tdiv(a, b)
    elif op == MAX:
        return a if a > b else b
    else:  # MIN
        return a if a < b else b


@_jit
def _binop_rare(op, a, b):
    if op == POW:
        return _tpow(a, b)
    elif op == FLOORDIV:
        return _tfloordiv(a, b)
    else:  # MOD: Paddle adjusts C's remainder to the divisor's sign, i.e. Python's %
        return a % b


@_jit
def _cmpop(op, a, b):
    if op == LT:
        return a < b
    elif op == LE:
        return a <= b
    elif op == GT:
        return a > b
    elif op == GE:
        return a >= b
    eq = a == b
    if not eq and not (math.isinf(a) or math.isinf(b)):
        # Paddle: floats are equal when |a - b| < 1e-8 (a - b in the input type); inf only equals itself.
        # For integers a != b means |a - b| >= 1, so this never changes their result.
        eq = abs(float(a - b)) < 1e-8
    if op == EQ:
        return eq
    return not eq


@_jit
def _bingrad(op, x, y, d):
    """(dX, dY) contributions of one output element, for every op but POW (see _pow_grad_loop)."""
    if op == ADD:
        return d, d
    elif op == SUB:
        return d, -d
    elif op == MUL:
        return d * y, d * x
    elif op == DIV:
        return d / y, -d * (x / y) / y
    elif op == MAX:  # Paddle multiplies by the mask (so inf * 0 = nan, as there)
        return d * (x > y), d * (x <= y)
    else:  # MIN
        return d * (x < y), d * (x >= y)


# ----------------------------------------------------------------------------------------------------------
# loops over a collapsed broadcast shape: flat arrays + (shape, x strides, y strides)
# ----------------------------------------------------------------------------------------------------------

# The inner collapsed dim always has strides (1, 1), (1, 0) or (0, 1): a row is vector-vector, vector-scalar
# or scalar-vector. Rows are slices indexed from 0, and the frequent ops get a loop of their own: a loop whose
# body branches on ``op`` is not vectorized by LLVM once the function holds other loops (measured: ~6x slower).
# The rare ops (POW, FLOORDIV, MOD) have their own plain loop so that they cost no compile time unless used.

@_jit
def _fwd_row_vv(op, xr, yr, orow):
    n = orow.shape[0]
    if op == ADD:
        for k in range(n):
            orow[k] = xr[k] + yr[k]
    elif op == SUB:
        for k in range(n):
            orow[k] = xr[k] - yr[k]
    elif op == MUL:
        for k in range(n):
            orow[k] = xr[k] * yr[k]
    elif op == DIV:
        for k in range(n):
            orow[k] = _tdiv(xr[k], yr[k])
    elif op == MAX:
        for k in range(n):
            orow[k] = xr[k] if xr[k] > yr[k] else yr[k]
    else:
        for k in range(n):
            orow[k] = xr[k] if xr[k] < yr[k] else yr[k]


@_jit
def _advance(idx, shape, xst, yst, xo, yo):
    """Step the outer-dims counter ``idx`` by one row; returns the new (x offset, y offset)."""
    d = shape.shape[0] - 2
    while d >= 0:
        idx[d] += 1
        xo += xst[d]
        yo += yst[d]
        if idx[d] < shape[d]:
            break
        xo -= xst[d] * shape[d]
        yo -= yst[d] * shape[d]
        idx[d] = 0
        d -= 1
    return xo, yo


@_jit
def _binary_loop(op, x, y, out, shape, xst, yst):
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
            _fwd_row_vv(op, x[xo:xo + n], y[yo:yo + n], orow)
        elif syi == 0:  # vector op scalar, e.g. [N, C] op [N, 1]: rarer, left unvectorized (compiles faster)
            xr = x[xo:xo + n]
            yv = y[yo]
            for k in range(n):
                orow[k] = _binop_common(op, xr[k], yv)
        else:
            xv = x[xo]
            yr = y[yo:yo + n]
            for k in range(n):
                orow[k] = _binop_common(op, xv, yr[k])
        xo, yo = _advance(idx, shape, xst, yst, xo, yo)


@_jit
def _binary_loop_rare(op, x, y, out, shape, xst, yst):
    """POW / FLOORDIV / MOD: a plain loop, compiled only when one of them is used."""
    nd = shape.shape[0]
    n = shape[nd - 1]
    sxi = xst[nd - 1]
    syi = yst[nd - 1]
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, out.shape[0], n):
        for k in range(n):
            out[oo + k] = _binop_rare(op, x[xo + k * sxi], y[yo + k * syi])
        xo, yo = _advance(idx, shape, xst, yst, xo, yo)


@_jit
def _compare_loop(op, x, y, out, shape, xst, yst):
    nd = shape.shape[0]
    n = shape[nd - 1]
    sxi = xst[nd - 1]
    syi = yst[nd - 1]
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, out.shape[0], n):
        for k in range(n):
            out[oo + k] = _cmpop(op, x[xo + k * sxi], y[yo + k * syi])
        xo, yo = _advance(idx, shape, xst, yst, xo, yo)


@_jit
def _grad_row(op, which, xr, yr, dr, gr, acc):
    """One row of dX (``which`` 0) or dY (1), vector-vector case; ``acc``: add into ``gr`` instead of storing."""
    n = dr.shape[0]
    if op == ADD or (op == SUB and which == 0):
        if acc:
            for k in range(n):
                gr[k] += dr[k]
        else:
            for k in range(n):
                gr[k] = dr[k]
    elif op == SUB:
        if acc:
            for k in range(n):
                gr[k] -= dr[k]
        else:
            for k in range(n):
                gr[k] = -dr[k]
    elif op == MUL:
        other = yr if which == 0 else xr
        if acc:
            for k in range(n):
                gr[k] += dr[k] * other[k]
        else:
            for k in range(n):
                gr[k] = dr[k] * other[k]
    elif op == DIV and which == 0 and not acc:
        for k in range(n):
            gr[k] = dr[k] / yr[k]
    else:
        for k in range(n):
            gx, gy = _bingrad(op, xr[k], yr[k], dr[k])
            g = gx if which == 0 else gy
            if acc:
                gr[k] += g
            else:
                gr[k] = g


@_jit
def _binary_grad_loop(op, x, y, dout, dx, dy, shape, xst, yst, need_dx, need_dy, dx_acc, dy_acc):
    """dX/dY of one binary op; ``*_acc`` means that operand is broadcast, so its gradient is summed
    (in row-major order of the output, as Paddle's CPU kernel does).

    A row where one operand is a scalar (strides (1, 0) or (0, 1)) copies that scalar into ``sbuf`` and
    computes the scalar side's gradients into ``gbuf`` before summing them, so that every row goes through the
    vectorized ``_grad_row`` from a single call site (LLVM inlines it once: a quarter of the compile time)."""
    nd = shape.shape[0]
    n = shape[nd - 1]
    sxi = xst[nd - 1]
    syi = yst[nd - 1]
    vv = sxi == 1 and syi == 1
    sbuf = np.empty(0 if vv else n, x.dtype)
    gbuf = np.empty(0 if vv else n, dout.dtype)
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, dout.shape[0], n):
        drow = dout[oo:oo + n]
        if vv:
            xr = x[xo:xo + n]
            yr = y[yo:yo + n]
        elif syi == 0:
            xr = x[xo:xo + n]
            sbuf.fill(y[yo])
            yr = sbuf
        else:
            sbuf.fill(x[xo])
            xr = sbuf
            yr = y[yo:yo + n]
        for which in range(2):
            if not (need_dx if which == 0 else need_dy):
                continue
            scalar_side = (which == 0 and sxi == 0) or (which == 1 and syi == 0)
            if scalar_side:
                g = gbuf
                acc = False
            elif which == 0:
                g = dx[xo:xo + n]
                acc = dx_acc
            else:
                g = dy[yo:yo + n]
                acc = dy_acc
            _grad_row(op, which, xr, yr, drow, g, acc)
            if scalar_side:
                total = 0.0
                for k in range(n):
                    total += gbuf[k]
                if which == 0:
                    dx[xo] += total
                else:
                    dy[yo] += total
        xo, yo = _advance(idx, shape, xst, yst, xo, yo)


@_jit
def _pow_grad_loop(x, y, dout, dx, dy, shape, xst, yst, need_dx, need_dy):
    """elementwise_pow_grad, a plain loop accumulating into zeroed dx / dy (compiled only when used)."""
    nd = shape.shape[0]
    n = shape[nd - 1]
    sxi = xst[nd - 1]
    syi = yst[nd - 1]
    idx = np.zeros(nd, np.int64)
    xo = 0
    yo = 0
    for oo in range(0, dout.shape[0], n):
        for k in range(n):
            xi = xo + k * sxi
            yi = yo + k * syi
            xv = x[xi]
            yv = y[yi]
            d = dout[oo + k]
            if need_dx:
                dx[xi] += d * yv * xv ** (yv - 1)
            if need_dy:
                dy[yi] += d * math.log(xv) * xv ** yv
        xo, yo = _advance(idx, shape, xst, yst, xo, yo)


@_jit
def _where_loop(cond, x, y, out):
    for i in range(out.shape[0]):
        out[i] = x[i] if cond[i] else y[i]


@_jit
def _where_grad_loop(cond, dout, dx, dy, need_dx, need_dy):
    for i in range(dout.shape[0]):
        d = dout[i]
        zero = d - d
        if need_dx:
            dx[i] = d if cond[i] else zero
        if need_dy:
            dy[i] = zero if cond[i] else d


# ----------------------------------------------------------------------------------------------------------
# broadcast plans
# ----------------------------------------------------------------------------------------------------------

class _Plan(NamedTuple):
    out_shape: tuple
    size: int
    shape: np.ndarray  # collapsed output dims (int64)
    xst: np.ndarray    # element strides of flat x over the collapsed dims (0 = broadcast)
    yst: np.ndarray
    x_bcast: bool      # x has fewer elements than out (its gradient must be summed)
    y_bcast: bool


# distinct (x.shape, y.shape, axis) plans kept; each is a few small arrays
PLAN_CACHE_SIZE = 1024


def _trim_trailing_ones(shape: tuple) -> tuple:
    n = len(shape)
    while n > 0 and shape[n - 1] == 1:
        n -= 1
    return shape[:n]


def _align(xshape: tuple, yshape: tuple, axis: int) -> tuple[tuple, tuple]:
    """Both shapes padded with 1s to the larger rank the Paddle way (lower rank placed at ``axis``)."""
    xr, yr = len(xshape), len(yshape)
    if xr == yr:
        return xshape, yshape
    swap = xr < yr
    big, small = (yshape, xshape) if swap else (xshape, yshape)
    rank = len(big)
    ax = rank - len(small) if axis < 0 else axis
    trimmed = _trim_trailing_ones(small)
    if ax + len(trimmed) > rank:
        raise ValueError(
            f"Broadcast dimension mismatch: axis={axis} is out of range for the shape of X = {list(xshape)} "
            f"and the shape of Y = {list(yshape)}"
        )
    padded = (1,) * ax + trimmed + (1,) * (rank - ax - len(trimmed))
    return (padded, big) if swap else (big, padded)


def _make_plan(xshape: tuple, yshape: tuple, axis: int) -> _Plan:
    xs, ys = _align(xshape, yshape, axis)
    out = []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise ValueError(
                "Broadcast dimension mismatch. Operands could not be broadcast together with the shape of "
                f"X = {list(xshape)} and the shape of Y = {list(yshape)}. Received [{a}] in X is not equal "
                f"to [{b}] in Y at the {i}-th dimension (axis={axis})."
            )
    out_shape = tuple(out)
    size = int(np.prod(out_shape, dtype=np.int64)) if out_shape else 1
    # collapse: drop size-1 output dims, merge neighbours with the same (x full?, y full?) pattern
    dims: list[list] = []
    for o, a, b in zip(out, xs, ys):
        if o == 1:
            continue
        pat = (a == o, b == o)
        if dims and dims[-1][1] == pat:
            dims[-1][0] *= o
        else:
            dims.append([o, pat])
    if not dims:
        dims = [[1, (True, True)]]
    shape = np.array([d[0] for d in dims], dtype=np.int64)
    xst = np.zeros(len(dims), dtype=np.int64)
    yst = np.zeros(len(dims), dtype=np.int64)
    xacc = yacc = 1
    for i in range(len(dims) - 1, -1, -1):
        n, (xf, yf) = dims[i]
        if xf:
            xst[i] = xacc
            xacc *= n
        if yf:
            yst[i] = yacc
            yacc *= n
    xsize = int(np.prod(xshape, dtype=np.int64)) if xshape else 1
    ysize = int(np.prod(yshape, dtype=np.int64)) if yshape else 1
    return _Plan(out_shape, size, shape, xst, yst, xsize < size, ysize < size)


@functools.lru_cache(maxsize=PLAN_CACHE_SIZE)
def _plan(xshape: tuple, yshape: tuple, axis: int) -> _Plan:
    return _make_plan(xshape, yshape, axis)


def broadcast_shape(x_shape, y_shape, axis: int = -1) -> tuple:
    """Output shape of a Paddle elementwise op on operands of these shapes (raises ValueError if invalid)."""
    return _plan(tuple(x_shape), tuple(y_shape), axis).out_shape


@functools.lru_cache(maxsize=32)
def _dummy(dtype) -> np.ndarray:
    """A one-element placeholder array of `dtype`, made once per dtype (a loop argument that is not read)."""
    return np.empty(1, dtype=dtype)


# ----------------------------------------------------------------------------------------------------------
# wrappers
# ----------------------------------------------------------------------------------------------------------

def _binary(op: int, x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    plan = _plan(x.shape, y.shape, axis)
    out = np.empty(plan.out_shape, dtype=x.dtype)
    if plan.size:
        loop = _binary_loop if op <= MIN else _binary_loop_rare
        loop(op, x.ravel(), y.ravel(), out.reshape(-1), plan.shape, plan.xst, plan.yst)
    return out


def _compare(op: int, x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    plan = _plan(x.shape, y.shape, axis)
    out = np.empty(plan.out_shape, dtype=np.bool_)
    if plan.size:
        _compare_loop(op, x.ravel(), y.ravel(), out.reshape(-1), plan.shape, plan.xst, plan.yst)
    return out


def _binary_backward(op: int, x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int,
                     need_dx: bool, need_dy: bool) -> tuple:
    dtype = dout.dtype
    if x.dtype != dtype:
        x = x.astype(dtype)
    if y.dtype != dtype:
        y = y.astype(dtype)
    plan = _plan(x.shape, y.shape, axis)
    if dout.shape != plan.out_shape:
        raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match Out shape {list(plan.out_shape)}")
    dx = dy = None
    zero_x = plan.x_bcast or plan.size == 0 or op == POW
    zero_y = plan.y_bcast or plan.size == 0 or op == POW
    if need_dx:
        dx = np.zeros(x.shape, dtype) if zero_x else np.empty(x.shape, dtype)
    if need_dy:
        dy = np.zeros(y.shape, dtype) if zero_y else np.empty(y.shape, dtype)
    if plan.size and (need_dx or need_dy):
        dummy = _dummy(dtype)
        gx = dx.reshape(-1) if need_dx else dummy
        gy = dy.reshape(-1) if need_dy else dummy
        if op == POW:
            _pow_grad_loop(x.ravel(), y.ravel(), dout.ravel(), gx, gy, plan.shape, plan.xst, plan.yst,
                           need_dx, need_dy)
        else:
            _binary_grad_loop(op, x.ravel(), y.ravel(), dout.ravel(), gx, gy, plan.shape, plan.xst, plan.yst,
                              need_dx, need_dy, plan.x_bcast, plan.y_bcast)
    return dx, dy


def elementwise_add_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_add``: out = x + y with Paddle broadcasting at ``axis``."""
    return _binary(ADD, x, y, axis)


def elementwise_add_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_add_grad``: (dX, dY) = (dout, dout), each summed to its operand's shape."""
    return _binary_backward(ADD, x, y, dout, axis, need_dx, need_dy)


def elementwise_sub_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_sub``: out = x - y."""
    return _binary(SUB, x, y, axis)


def elementwise_sub_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_sub_grad``: (dX, dY) = (dout, -dout)."""
    return _binary_backward(SUB, x, y, dout, axis, need_dx, need_dy)


def elementwise_mul_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_mul``: out = x * y."""
    return _binary(MUL, x, y, axis)


def elementwise_mul_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_mul_grad``: (dX, dY) = (dout * y, dout * x)."""
    return _binary_backward(MUL, x, y, dout, axis, need_dx, need_dy)


def elementwise_div_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_div``: out = x / y (integer types truncate toward zero, as C++)."""
    return _binary(DIV, x, y, axis)


def elementwise_div_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_div_grad``: (dX, dY) = (dout / y, -dout * out / y) with out = x / y recomputed."""
    return _binary_backward(DIV, x, y, dout, axis, need_dx, need_dy)


def elementwise_max_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_max``: out = x > y ? x : y."""
    return _binary(MAX, x, y, axis)


def elementwise_max_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_max_grad``: dX = dout * (x > y), dY = dout * (x <= y) (ties go to Y)."""
    return _binary_backward(MAX, x, y, dout, axis, need_dx, need_dy)


def elementwise_min_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_min``: out = x < y ? x : y."""
    return _binary(MIN, x, y, axis)


def elementwise_min_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_min_grad``: dX = dout * (x < y), dY = dout * (x >= y) (ties go to Y)."""
    return _binary_backward(MIN, x, y, dout, axis, need_dx, need_dy)


def elementwise_pow_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_pow``: out = pow(x, y) (integer types: pow in double, rounded)."""
    return _binary(POW, x, y, axis)


def elementwise_pow_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, axis: int = -1,
                             need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``elementwise_pow_grad``: dX = dout * y * x^(y-1), dY = dout * log(x) * x^y."""
    return _binary_backward(POW, x, y, dout, axis, need_dx, need_dy)


def elementwise_floordiv_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_floordiv`` (<= 2.4): out = trunc(x / y) - truncation, not floor. No grad."""
    return _binary(FLOORDIV, x, y, axis)


def elementwise_mod_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``elementwise_mod``: remainder with the sign of y (Python's %). No grad."""
    return _binary(MOD, x, y, axis)


def less_than_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``less_than``: bool out = x < y."""
    return _compare(LT, x, y, axis)


def less_equal_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``less_equal``: bool out = x <= y."""
    return _compare(LE, x, y, axis)


def greater_than_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``greater_than``: bool out = x > y."""
    return _compare(GT, x, y, axis)


def greater_equal_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``greater_equal``: bool out = x >= y."""
    return _compare(GE, x, y, axis)


def equal_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``equal``: bool out = x == y; floats compare as |x - y| < 1e-8 (inf equals only itself)."""
    return _compare(EQ, x, y, axis)


def not_equal_forward(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``not_equal``: bool out = not equal(x, y)."""
    return _compare(NE, x, y, axis)


def sum_to_shape(g: np.ndarray, shape) -> np.ndarray:
    """Sum ``g`` over the dims along which an operand of ``shape`` was broadcast (numpy trailing alignment)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    dx, _ = _binary_backward(ADD, np.empty(shape, g.dtype), g, g, -1, True, False)
    return dx


def where_forward(condition: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Paddle ``where``: out = condition ? x : y (operands are broadcast numpy-style if shapes differ)."""
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    cond = condition if condition.dtype == np.bool_ else condition.astype(np.bool_)
    if not (cond.shape == x.shape == y.shape):
        shape = np.broadcast_shapes(cond.shape, x.shape, y.shape)
        cond = np.ascontiguousarray(np.broadcast_to(cond, shape))
        x = np.ascontiguousarray(np.broadcast_to(x, shape))
        y = np.ascontiguousarray(np.broadcast_to(y, shape))
    out = np.empty(x.shape, dtype=x.dtype)
    _where_loop(cond.ravel(), x.ravel(), y.ravel(), out.reshape(-1))
    return out


def where_backward(condition: np.ndarray, x: np.ndarray, y: np.ndarray, dout: np.ndarray,
                   need_dx: bool = True, need_dy: bool = True) -> tuple:
    """Paddle ``where_grad``: dX = condition ? dout : 0, dY = condition ? 0 : dout (summed to x/y shapes)."""
    cond = condition if condition.dtype == np.bool_ else condition.astype(np.bool_)
    if cond.shape != dout.shape:
        cond = np.ascontiguousarray(np.broadcast_to(cond, dout.shape))
    dx = np.empty(dout.shape, dout.dtype) if need_dx else None
    dy = np.empty(dout.shape, dout.dtype) if need_dy else None
    dummy = _dummy(dout.dtype)
    _where_grad_loop(cond.ravel(), dout.ravel(), dx.reshape(-1) if need_dx else dummy,
                     dy.reshape(-1) if need_dy else dummy, need_dx, need_dy)
    if need_dx:
        dx = sum_to_shape(dx, x.shape)
    if need_dy:
        dy = sum_to_shape(dy, y.shape)
    return dx, dy
