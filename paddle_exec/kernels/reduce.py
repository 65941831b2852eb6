"""Reduction kernels: Paddle's ``reduce_*`` ops, ``mean``, ``sum`` (of a list) and ``softmax`` / ``log_softmax``.

Paddle ops implemented here:

- ``reduce_sum / reduce_mean / reduce_max / reduce_min / reduce_prod`` over ``dim`` (negative allowed), with
  ``keep_dim`` and ``reduce_all``. As in Paddle 1.8 - 2.4 (no 0-D tensors) a reduction to no dims gives shape
  [1]; an empty ``dim`` or one naming every dim means reduce_all. Grads: sum broadcasts dOut, mean divides by the
  reduced count, max/min send dOut to *every* position equal to the result, prod uses dOut * out / x (so a zero
  in x gives nan/inf there, as in Paddle).
- ``mean``: all elements to shape [1].  ``sum``: out = ((x0 + x1) + x2) + ... in the input dtype, the order of
  Paddle's sum kernel (it accumulates gradients).
- ``softmax`` / ``log_softmax`` along ``axis``: shifted by the max and, like Paddle's CPU kernels, the shifted
  logits are clipped at -64 before exp (ValueClip), so log_softmax never goes below about -64 - log(n).

Sums accumulate in float64 for floating inputs (int64 for integers) and are cast to the output dtype.
Every reduction runs on a (pre, r, post) view: ``r`` the reduced extent, ``pre``/``post`` the kept extents
before and after it. Reduced dims that are not adjacent are first moved to the back (one transposed copy).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Sequence

import numpy as np

from .jit import kernel_jit

__all__ = [
    "reduce_sum_forward", "reduce_sum_backward", "reduce_mean_forward", "reduce_mean_backward",
    "reduce_max_forward", "reduce_max_backward", "reduce_min_forward", "reduce_min_backward",
    "reduce_prod_forward", "reduce_prod_backward",
    "mean_forward", "mean_backward", "sum_forward",
    "softmax_forward", "softmax_backward", "log_softmax_forward", "log_softmax_backward",
    "reduce_out_shape",
]

_jit = kernel_jit(error_model="numpy")

SUM, MEAN, MAX, MIN, PROD = range(5)

_SOFTMAX_CLIP = -64.0  # Paddle's ValueClip threshold on the shifted logits


# ----------------------------------------------------------------------------------------------------------
# loops
# ----------------------------------------------------------------------------------------------------------

@_jit
def _sum_row(row, acc0):
    """Sum of a contiguous row with four independent accumulators (3x faster than one dependency chain)."""
    n = row.shape[0]
    a0 = acc0
    a1 = acc0
    a2 = acc0
    a3 = acc0
    n4 = n - n % 4
    for i in range(0, n4, 4):
        a0 += row[i]
        a1 += row[i + 1]
        a2 += row[i + 2]
        a3 += row[i + 3]
    for i in range(n4, n):
        a0 += row[i]
    return (a0 + a1) + (a2 + a3)


@_jit
def _reduce_loop(op, x, out, pre, r, post, acc0, buf):
    """out[p, j] = reduce_i x[p, i, j] on flat arrays; ``acc0`` is a zero of the accumulator type and ``buf``
    a scratch row of ``post`` accumulators of that type."""
    if post == 1:
        for p in range(pre):
            row = x[p * r:(p + 1) * r]
            if op == SUM or op == MEAN:
                acc = _sum_row(row, acc0)
                out[p] = acc / r if op == MEAN else acc
            elif op == PROD:
                acc = acc0 + 1
                for i in range(r):
                    acc *= row[i]
                out[p] = acc
            elif op == MAX:
                m = row[0]
                for i in range(1, r):
                    if row[i] > m:
                        m = row[i]
                out[p] = m
            else:
                m = row[0]
                for i in range(1, r):
                    if row[i] < m:
                        m = row[i]
                out[p] = m
        return
    if op == MAX or op == MIN:
        for p in range(pre):
            base = p * r * post
            orow = out[p * post:(p + 1) * post]
            first = x[base:base + post]
            for j in range(post):
                orow[j] = first[j]
            for i in range(1, r):
                row = x[base + i * post:base + (i + 1) * post]
                if op == MAX:
                    for j in range(post):
                        if row[j] > orow[j]:
                            orow[j] = row[j]
                else:
                    for j in range(post):
                        if row[j] < orow[j]:
                            orow[j] = row[j]
        return
    for p in range(pre):
        base = p * r * post
        if op == PROD:
            for j in range(post):
                buf[j] = acc0 + 1
            for i in range(r):
                row = x[base + i * post:base + (i + 1) * post]
                for j in range(post):
                    buf[j] *= row[j]
        else:
            for j in range(post):
                buf[j] = acc0
            for i in range(r):
                row = x[base + i * post:base + (i + 1) * post]
                for j in range(post):
                    buf[j] += row[j]
        orow = out[p * post:(p + 1) * post]
        if op == MEAN:
            for j in range(post):
                orow[j] = buf[j] / r
        else:
            for j in range(post):
                orow[j] = buf[j]


@_jit
def _reduce_grad_loop(op, x, out, dout, dx, pre, r, post):
    """dx[p, i, j] from dout[p, j] (and x, out for max/min/prod) on flat arrays."""
    if post == 1:  # rows of length r share one dout value
        for p in range(pre):
            d = dout[p]
            o = out[p]
            grow = dx[p * r:(p + 1) * r]
            xrow = x[p * r:(p + 1) * r]
            if op == SUM:
                for i in range(r):
                    grow[i] = d
            elif op == MEAN:
                dm = d / r
                for i in range(r):
                    grow[i] = dm
            elif op == PROD:
                for i in range(r):
                    grow[i] = d * o / xrow[i]
            else:
                for i in range(r):
                    grow[i] = d if xrow[i] == o else 0
        return
    for p in range(pre):
        drow = dout[p * post:(p + 1) * post]
        orow = out[p * post:(p + 1) * post]
        for i in range(r):
            base = (p * r + i) * post
            grow = dx[base:base + post]
            xrow = x[base:base + post]
            if op == SUM:
                for j in range(post):
                    grow[j] = drow[j]
            elif op == MEAN:
                for j in range(post):
                    grow[j] = drow[j] / r
            elif op == PROD:
                for j in range(post):
                    grow[j] = drow[j] * orow[j] / xrow[j]
            else:  # MAX / MIN: every position equal to the result gets the whole gradient
                for j in range(post):
                    grow[j] = drow[j] if xrow[j] == orow[j] else 0


@_jit
def _add_into(out, a, b):
    for i in range(out.shape[0]):
        out[i] = a[i] + b[i]


@_jit
def _softmax_loop(x, out, pre, n, post, log, clip):
    """``clip`` is -64 in x's dtype (keeps the exp in float32 for float32 input)."""
    if post == 1:
        for p in range(pre):
            row = x[p * n:(p + 1) * n]
            orow = out[p * n:(p + 1) * n]
            m = row[0]
            for i in range(1, n):
                if row[i] > m:
                    m = row[i]
            s = 0.0
            if log:
                for i in range(n):
                    e = max(row[i] - m, clip)
                    orow[i] = e
                    s += math.exp(e)
                ls = math.log(s)
                for i in range(n):
                    orow[i] = orow[i] - ls
            else:
                for i in range(n):
                    ev = math.exp(max(row[i] - m, clip))
                    orow[i] = ev
                    s += ev
                inv = 1.0 / s
                for i in range(n):
                    orow[i] = orow[i] * inv
        return
    m = np.empty(post, x.dtype)
    s = np.empty(post, np.float64)
    for p in range(pre):
        base = p * n * post
        for j in range(post):
            m[j] = x[base + j]
            s[j] = 0.0
        for i in range(1, n):
            row = x[base + i * post:base + (i + 1) * post]
            for j in range(post):
                if row[j] > m[j]:
                    m[j] = row[j]
        for i in range(n):
            row = x[base + i * post:base + (i + 1) * post]
            orow = out[base + i * post:base + (i + 1) * post]
            if log:
                for j in range(post):
                    e = max(row[j] - m[j], clip)
                    orow[j] = e
                    s[j] += math.exp(e)
            else:
                for j in range(post):
                    ev = math.exp(max(row[j] - m[j], clip))
                    orow[j] = ev
                    s[j] += ev
        if log:
            for j in range(post):
                s[j] = math.log(s[j])
        else:
            for j in range(post):
                s[j] = 1.0 / s[j]
        for i in range(n):
            orow = out[base + i * post:base + (i + 1) * post]
            if log:
                for j in range(post):
                    orow[j] = orow[j] - s[j]
            else:
                for j in range(post):
                    orow[j] = orow[j] * s[j]


@_jit
def _softmax_grad_loop(out, dout, dx, pre, n, post, log):
    """softmax: dx = (dout - sum(dout * out)) * out;  log_softmax: dx = dout - exp(out) * sum(dout)."""
    if post == 1:
        for p in range(pre):
            orow = out[p * n:(p + 1) * n]
            drow = dout[p * n:(p + 1) * n]
            grow = dx[p * n:(p + 1) * n]
            acc = 0.0
            if log:
                for i in range(n):
                    acc += drow[i]
                for i in range(n):
                    grow[i] = drow[i] - math.exp(orow[i]) * acc
            else:
                for i in range(n):
                    acc += drow[i] * orow[i]
                for i in range(n):
                    grow[i] = (drow[i] - acc) * orow[i]
        return
    s = np.empty(post, np.float64)
    for p in range(pre):
        base = p * n * post
        for j in range(post):
            s[j] = 0.0
        for i in range(n):
            orow = out[base + i * post:base + (i + 1) * post]
            drow = dout[base + i * post:base + (i + 1) * post]
            if log:
                for j in range(post):
                    s[j] += drow[j]
            else:
                for j in range(post):
                    s[j] += drow[j] * orow[j]
        for i in range(n):
            orow = out[base + i * post:base + (i + 1) * post]
            drow = dout[base + i * post:base + (i + 1) * post]
            grow = dx[base + i * post:base + (i + 1) * post]
            if log:
                for j in range(post):
                    grow[j] = drow[j] - math.exp(orow[j]) * s[j]
            else:
                for j in range(post):
                    grow[j] = (drow[j] - s[j]) * orow[j]


# ----------------------------------------------------------------------------------------------------------
# plans: dims -> (pre, r, post) or a transposition first
# ----------------------------------------------------------------------------------------------------------

class _Plan(NamedTuple):
    out_shape: tuple
    pre: int
    r: int
    post: int
    perm: tuple | None   # transpose x by this (kept dims, then reduced dims) before reducing; None: no need
    inv_perm: tuple | None


# distinct (shape, dim, keep_dim, reduce_all) plans kept (an LRU cache, bounded: a program fed ever new shapes
# must not grow it without end; a miss costs a few microseconds)
PLAN_CACHE_SIZE = 1024


def _normalize_dims(shape: tuple, dim, reduce_all: bool) -> tuple:
    rank = len(shape)
    if dim is None:
        dims: tuple = ()
    elif isinstance(dim, (int, np.integer)):
        dims = (int(dim),)
    else:
        dims = tuple(int(d) for d in dim)
    if reduce_all or not dims:
        return tuple(range(rank))
    norm = set()
    for d in dims:
        if not -rank <= d < rank:
            raise ValueError(f"The reduce dim index {d} should be in the range [-{rank}, {rank}) for an input of "
                             f"shape {list(shape)}")
        norm.add(d + rank if d < 0 else d)
    return tuple(sorted(norm))


def _make_plan(shape: tuple, dims: tuple, keep_dim: bool) -> _Plan:
    rank = len(shape)
    red = set(dims)
    if keep_dim:
        out_shape = tuple(1 if i in red else n for i, n in enumerate(shape))
    else:
        out_shape = tuple(n for i, n in enumerate(shape) if i not in red)
    if not out_shape:
        out_shape = (1,)
    # runs of kept (False) / reduced (True) dims, size-1 dims ignored
    runs: list[list] = []
    for i in range(rank):
        if shape[i] == 1:
            continue
        kind = i in red
        if runs and runs[-1][0] == kind:
            runs[-1][1] *= shape[i]
        else:
            runs.append([kind, shape[i]])
    kinds = [k for k, _ in runs]
    sizes = [n for _, n in runs]
    if kinds.count(True) <= 1:
        if True in kinds:
            at = kinds.index(True)
            pre = int(np.prod(sizes[:at], dtype=np.int64))
            r = sizes[at]
            post = int(np.prod(sizes[at + 1:], dtype=np.int64))
        else:
            pre, r, post = int(np.prod(sizes, dtype=np.int64)), 1, 1
        return _Plan(out_shape, pre, r, post, None, None)
    kept = [i for i in range(rank) if i not in red]
    perm = tuple(kept + sorted(red))
    inv = tuple(int(i) for i in np.argsort(perm))
    pre = int(np.prod([shape[i] for i in kept], dtype=np.int64))
    r = int(np.prod([shape[i] for i in red], dtype=np.int64))
    return _Plan(out_shape, pre, r, 1, perm, inv)


def _plan(shape: tuple, dim, keep_dim: bool, reduce_all: bool) -> _Plan:
    return _cached_plan(shape, tuple(dim) if isinstance(dim, list) else dim, keep_dim, reduce_all)


@functools.lru_cache(maxsize=PLAN_CACHE_SIZE)
def _cached_plan(shape: tuple, dim, keep_dim: bool, reduce_all: bool) -> _Plan:
    return _make_plan(shape, _normalize_dims(shape, dim, reduce_all), keep_dim)


def reduce_out_shape(x_shape, dim=None, keep_dim: bool = False, reduce_all: bool = False) -> tuple:
    """Output shape of a Paddle reduce op (a reduction to no dims gives [1])."""
    return _plan(tuple(x_shape), dim, keep_dim, reduce_all).out_shape


def _acc_zero(dtype):
    return np.float64(0.0) if dtype.kind == "f" else np.int64(0)


def _reduce(op: int, x: np.ndarray, dim, keep_dim: bool, reduce_all: bool, out_dtype=None) -> np.ndarray:
    plan = _plan(x.shape, dim, keep_dim, reduce_all)
    out = np.empty(plan.out_shape, dtype=x.dtype if out_dtype is None else out_dtype)
    if x.size == 0:
        if op in (MAX, MIN) and plan.r == 0:
            raise ValueError("reduce_max/reduce_min over an empty dimension")
        out.fill(1 if op == PROD else 0)
        return out
    src = x if plan.perm is None else np.ascontiguousarray(x.transpose(plan.perm))
    acc0 = _acc_zero(x.dtype)
    buf = np.empty(plan.post if plan.post > 1 else 0, dtype=type(acc0))
    _reduce_loop(op, src.ravel(), out.reshape(-1), plan.pre, plan.r, plan.post, acc0, buf)
    return out


def _reduce_backward(op: int, x: np.ndarray, out: np.ndarray | None, dout: np.ndarray, dim, keep_dim: bool,
                     reduce_all: bool) -> np.ndarray:
    plan = _plan(x.shape, dim, keep_dim, reduce_all)
    if dout.size != plan.pre * plan.post:
        raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match Out shape {list(plan.out_shape)}")
    dtype = dout.dtype
    if plan.perm is None:
        dx = np.empty(x.shape, dtype=dtype)
    else:
        dx = np.empty(tuple(x.shape[i] for i in plan.perm), dtype=dtype)
    if dx.size:
        if out is None:  # sum / mean read neither x nor out: pass placeholders
            xs = dx
            o = dout
        else:
            xs = x if plan.perm is None else np.ascontiguousarray(x.transpose(plan.perm))
            xs = xs if xs.dtype == dtype else xs.astype(dtype)
            o = out if out.dtype == dtype else out.astype(dtype)
        _reduce_grad_loop(op, xs.ravel(), o.ravel(), dout.ravel(), dx.reshape(-1), plan.pre, plan.r, plan.post)
    if plan.perm is not None:
        dx = np.ascontiguousarray(dx.transpose(plan.inv_perm))
    return dx


DimArg = int | Sequence[int] | None


def reduce_sum_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False, reduce_all: bool = False,
                       out_dtype=None) -> np.ndarray:
    """Paddle ``reduce_sum`` (``out_dtype``: Paddle's out_dtype attribute, default the input dtype)."""
    return _reduce(SUM, x, dim, keep_dim, reduce_all, out_dtype)


def reduce_sum_backward(x: np.ndarray, dout: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                        reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_sum_grad``: dOut broadcast to x's shape."""
    return _reduce_backward(SUM, x, None, dout, dim, keep_dim, reduce_all)


def reduce_mean_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                        reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_mean``."""
    return _reduce(MEAN, x, dim, keep_dim, reduce_all)


def reduce_mean_backward(x: np.ndarray, dout: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                         reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_mean_grad``: dOut / (number of reduced elements), broadcast."""
    return _reduce_backward(MEAN, x, None, dout, dim, keep_dim, reduce_all)


def reduce_max_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                       reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_max``."""
    return _reduce(MAX, x, dim, keep_dim, reduce_all)


def reduce_max_backward(x: np.ndarray, out: np.ndarray, dout: np.ndarray, dim: DimArg = None,
                        keep_dim: bool = False, reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_max_grad``: dOut at every position where x == out (ties all get it), else 0."""
    return _reduce_backward(MAX, x, out, dout, dim, keep_dim, reduce_all)


def reduce_min_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                       reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_min``."""
    return _reduce(MIN, x, dim, keep_dim, reduce_all)


def reduce_min_backward(x: np.ndarray, out: np.ndarray, dout: np.ndarray, dim: DimArg = None,
                        keep_dim: bool = False, reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_min_grad``: dOut at every position where x == out, else 0."""
    return _reduce_backward(MIN, x, out, dout, dim, keep_dim, reduce_all)


def reduce_prod_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                        reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_prod``."""
    return _reduce(PROD, x, dim, keep_dim, reduce_all)


def reduce_prod_backward(x: np.ndarray, out: np.ndarray, dout: np.ndarray, dim: DimArg = None,
                         keep_dim: bool = False, reduce_all: bool = False) -> np.ndarray:
    """Paddle ``reduce_prod_grad``: dOut * out / x (nan/inf where x == 0, as Paddle)."""
    return _reduce_backward(PROD, x, out, dout, dim, keep_dim, reduce_all)


_NO_BUF = np.empty(0, dtype=np.float64)


def mean_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``mean``: the mean of all elements, shape [1]."""
    if x.size and x.dtype.kind == 'f' and x.flags.c_contiguous:
        # every training step's loss: the same loop and arithmetic as _reduce, without its shape plan
        out = np.empty(1, dtype=x.dtype)
        _reduce_loop(MEAN, x.reshape(-1), out, 1, x.size, 1, np.float64(0.0), _NO_BUF)
        return out
    return _reduce(MEAN, x, None, False, True)


def mean_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``mean_grad``: dOut[0] / numel(x) everywhere."""
    if x.size and dout.size == 1:
        # as _reduce_grad_loop computes it: the quotient in double precision, stored in dout's dtype
        return np.full(x.shape, float(dout.reshape(-1)[0]) / x.size, dtype=dout.dtype)
    return _reduce_backward(MEAN, x, None, dout, None, False, True)


def sum_forward(xs: Sequence[np.ndarray]) -> np.ndarray:
    """Paddle ``sum`` (adds a list of same-shape tensors, e.g. gradient accumulation): ((x0 + x1) + x2) + ..."""
    if not xs:
        raise ValueError("The sum op needs at least one input")
    first = xs[0]
    out = np.empty(first.shape, dtype=first.dtype)
    flat = out.reshape(-1)
    if len(xs) == 1:
        flat[:] = first.reshape(-1)
        return out
    for x in xs[1:]:
        if x.shape != first.shape:
            raise ValueError(f"The sum op needs inputs of one shape, got {list(first.shape)} and {list(x.shape)}")
    if out.size:
        _add_into(flat, first.ravel(), xs[1].ravel())
        for x in xs[2:]:
            _add_into(flat, flat, x.ravel())
    return out


def _axis_split(shape: tuple, axis: int) -> tuple[int, int, int]:
    rank = len(shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of range for an input of shape {list(shape)}")
    if axis < 0:
        axis += rank
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def _softmax(x: np.ndarray, axis: int, log: bool) -> np.ndarray:
    out = np.empty(x.shape, dtype=x.dtype)
    if out.size:
        pre, n, post = _axis_split(x.shape, axis)
        _softmax_loop(x.ravel(), out.reshape(-1), pre, n, post, log, x.dtype.type(_SOFTMAX_CLIP))
    return out


def _softmax_backward(out: np.ndarray, dout: np.ndarray, axis: int, log: bool) -> np.ndarray:
    if out.shape != dout.shape:
        raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match Out shape {list(out.shape)}")
    dx = np.empty(dout.shape, dtype=dout.dtype)
    if dx.size:
        pre, n, post = _axis_split(out.shape, axis)
        _softmax_grad_loop(out.ravel(), dout.ravel(), dx.reshape(-1), pre, n, post, log)
    return dx


def softmax_forward(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``softmax`` along ``axis`` (shifted logits clipped at -64, as Paddle)."""
    return _softmax(x, axis, False)


def softmax_backward(out: np.ndarray, dout: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``softmax_grad`` (reads Out): dx = (dout - sum(dout * out, axis)) * out."""
    return _softmax_backward(out, dout, axis, False)


def log_softmax_forward(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``log_softmax`` along ``axis``: (x - max) clipped at -64, minus log(sum(exp(.)))."""
    return _softmax(x, axis, True)


def log_softmax_backward(out: np.ndarray, dout: np.ndarray, axis: int = -1) -> np.ndarray:
    """Paddle ``log_softmax_grad`` (reads Out): dx = dout - exp(out) * sum(dout, axis)."""
    return _softmax_backward(out, dout, axis, True)


# ----------------------------------------------------------------------------------------------------------
# logsumexp, reduce_all / reduce_any, and the isfinite family (kept apart from the opcode loops above)
#
# - ``logsumexp`` over the (pre, r, post) plan of the reduce ops: ``m + log(sum(exp(x - m)))`` with m the max
#   of the row, computed in the input dtype as Paddle's kernel does (float64 would differ by an ulp in float32).
#   A row of -inf gives nan (-inf - -inf), as in Paddle 2.x.
#   Gradient: ``dout * exp(x - out)``.
# - ``reduce_all`` / ``reduce_any`` of booleans (other dtypes are read as ``!= 0``); an empty row is True / False.
# - ``isfinite`` / ``isnan`` / ``isinf`` (Paddle 1.8's ops): one bool [1] for the whole tensor (all finite, any nan,
#   any inf); the ``*_v2`` ops of Paddle 2.x: elementwise, same shape.
# ----------------------------------------------------------------------------------------------------------

@_jit
def _logsumexp_loop(x, out, pre, r, post, zero):
    for p in range(pre):
        for q in range(post):
            base = p * r * post + q
            m = x[base]
            for i in range(1, r):
                v = x[base + i * post]
                if v > m:
                    m = v
            s = zero
            for i in range(r):
                s += math.exp(x[base + i * post] - m)
            out[p * post + q] = math.log(s) + m


@_jit
def _logsumexp_grad_loop(x, out, dout, dx, pre, r, post):
    for p in range(pre):
        for q in range(post):
            base = p * r * post + q
            o = np.float64(out[p * post + q])
            d = np.float64(dout[p * post + q])
            for i in range(r):
                dx[base + i * post] = d * math.exp(np.float64(x[base + i * post]) - o)


@_jit
def _bool_reduce_loop(x, out, pre, r, post, want_all):
    for p in range(pre):
        for q in range(post):
            base = p * r * post + q
            acc = want_all
            for i in range(r):
                if x[base + i * post] != want_all:
                    acc = not want_all
                    break
            out[p * post + q] = acc


def _planned_input(x: np.ndarray, plan: _Plan) -> np.ndarray:
    return x.ravel() if plan.perm is None else np.ascontiguousarray(x.transpose(plan.perm)).ravel()


def logsumexp_forward(x: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                      reduce_all: bool = False) -> np.ndarray:
    """Paddle op ``logsumexp`` (attributes axis, keepdim, reduce_all): log(sum(exp(x))) computed stably."""
    plan = _plan(x.shape, dim, keep_dim, reduce_all)
    out = np.empty(plan.out_shape, dtype=x.dtype)
    if x.dtype.kind != "f":
        raise TypeError("logsumexp supports float32 and float64 inputs, got %s" % x.dtype)
    if out.size:
        if plan.r == 0:
            out.fill(-np.inf)     # log of an empty sum
        else:
            _logsumexp_loop(_planned_input(x, plan), out.reshape(-1), plan.pre, plan.r, plan.post, x.dtype.type(0))
    return out


def logsumexp_backward(x: np.ndarray, out: np.ndarray, dout: np.ndarray, dim: DimArg = None, keep_dim: bool = False,
                       reduce_all: bool = False) -> np.ndarray:
    """Paddle op ``logsumexp_grad`` (X, Out, Out@GRAD): ``dout * exp(x - out)`` broadcast over the reduced dims."""
    plan = _plan(x.shape, dim, keep_dim, reduce_all)
    if dout.size != plan.pre * plan.post:
        raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match Out shape {list(plan.out_shape)}")
    shape = x.shape if plan.perm is None else tuple(x.shape[i] for i in plan.perm)
    dx = np.empty(shape, dtype=dout.dtype)
    if dx.size:
        _logsumexp_grad_loop(_planned_input(x, plan), out.ravel(), dout.ravel(), dx.reshape(-1), plan.pre, plan.r,
                             plan.post)
    return dx if plan.perm is None else np.ascontiguousarray(dx.transpose(plan.inv_perm))


def bool_reduce_forward(x: np.ndarray, want_all: bool, dim: DimArg = None, keep_dim: bool = False,
                        reduce_all: bool = False) -> np.ndarray:
    """Paddle ops ``reduce_all`` (``want_all``) and ``reduce_any``: a bool tensor of the reduce ops' shape."""
    plan = _plan(x.shape, dim, keep_dim, reduce_all)
    x = x if x.dtype == np.bool_ else x != 0
    out = np.empty(plan.out_shape, dtype=np.bool_)
    if out.size:
        _bool_reduce_loop(_planned_input(x, plan), out.reshape(-1), plan.pre, plan.r, plan.post, bool(want_all))
    return out


ISFINITE, ISNAN, ISINF = range(3)


@_jit
def _classify_loop(x, out, kind):
    for i in range(x.size):
        v = x[i]
        if kind == 0:
            out[i] = not (math.isnan(v) or math.isinf(v))
        elif kind == 1:
            out[i] = math.isnan(v)
        else:
            out[i] = math.isinf(v)


def classify_forward(x: np.ndarray, kind: int) -> np.ndarray:
    """Paddle 2.x ``isfinite_v2`` / ``isnan_v2`` / ``isinf_v2`` (``kind``: ISFINITE, ISNAN, ISINF), elementwise."""
    out = np.empty(x.shape, dtype=np.bool_)
    if x.dtype.kind not in 'fc':       # integers are always finite, never nan or inf
        out.fill(kind == ISFINITE)
    elif out.size:
        _classify_loop(np.ascontiguousarray(x).ravel(), out.reshape(-1), kind)
    return out


def overflow_forward(x: np.ndarray, kind: int) -> np.ndarray:
    """Paddle 1.8 ``isfinite`` / ``isnan`` / ``isinf``: one bool [1] for the whole tensor (all finite / any nan /
    any inf)."""
    flags = classify_forward(x, kind)
    return np.array([bool(flags.all()) if kind == ISFINITE else bool(flags.any())])


__all__ += ["logsumexp_forward", "logsumexp_backward", "bool_reduce_forward", "classify_forward",
            "overflow_forward", "ISFINITE", "ISNAN", "ISINF"]


# ----------------------------------------------------------------------------------------------------------
# dot and bmm: products, so numpy's (einsum / BLAS matmul, which release the GIL) rather than numba loops
# ----------------------------------------------------------------------------------------------------------

def dot_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Paddle (<= 2.4) op ``dot``: the sum over the last axis of x * y, that axis kept as 1 ([N, 1] or [1])."""
    return np.einsum("...i,...i->...", x, y)[..., None].astype(x.dtype, copy=False)


def dot_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, want_x: bool = True, want_y: bool = True):
    """Paddle op ``dot_grad``: (dX, dY) = (dout * y, dout * x), dout broadcast along the last axis."""
    d = dout.reshape(x.shape[:-1] + (1,))
    return ((y * d).astype(x.dtype, copy=False) if want_x else None,
            (x * d).astype(y.dtype, copy=False) if want_y else None)


def bmm_forward(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Paddle op ``bmm``: [B, M, K] x [B, K, N] -> [B, M, N]."""
    return np.matmul(x, y)


def bmm_backward(x: np.ndarray, y: np.ndarray, dout: np.ndarray, want_x: bool = True, want_y: bool = True):
    """Paddle op ``bmm_grad``: (dout @ y^T, x^T @ dout) per batch."""
    return (np.matmul(dout, y.transpose(0, 2, 1)) if want_x else None,
            np.matmul(x.transpose(0, 2, 1), dout) if want_y else None)


__all__ += ["dot_forward", "dot_backward", "bmm_forward", "bmm_backward"]
