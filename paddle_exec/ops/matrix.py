"""Matrix-shaped ops: trace, diagonal, diag_v2 (2.x) and diag (1.8), diag_embed, fill_diagonal_tensor, mv, addmm,
multi_dot, the norms p_norm and frobenius_norm, tril_indices / triu_indices.

Slots and attributes are Paddle's (2.6.2; trace in 1.8 named its axes dim1 / dim2, which the kernel also reads).
Numerics are numpy's (products through BLAS, which releases the GIL). Gradients, as Paddle's:
    trace / diagonal        dout placed on the diagonal of zeros
    diag_v2                 a vector's gradient is the diagonal of dout, a matrix's is dout on its diagonal
    diag_embed              the diagonal of dout
    fill_diagonal_tensor    dX = dout with the diagonal zeroed (Y gets no gradient, as in 2.6.2)
    mv(X, Vec)              dX = dout vec^T, dVec = X^T dout
    addmm(Input, X, Y)      dInput = Beta dout (summed to Input's shape), dX = Alpha dout Y^T, dY = Alpha X^T dout
    multi_dot               the products of the other factors on either side
    p_norm(porder)          sign(x) |x|^(p-1) / ||x||^(p-1) (inf: to the extreme elements, shared among ties)
    frobenius_norm          x / ||x||
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import norm_axis, sum_to_shape

__all__ = ['diagonal_view']


def _axes(attrs_get, rank: int, op_type: str) -> tuple[int, int]:
    a1 = attrs_get('dim1', None)
    a1 = attrs_get('axis1', 0) if a1 is None else a1
    a2 = attrs_get('dim2', None)
    a2 = attrs_get('axis2', 1) if a2 is None else a2
    a1, a2 = norm_axis(a1, rank, op_type, 'axis1'), norm_axis(a2, rank, op_type, 'axis2')
    if a1 == a2:
        raise ValueError("The dimensions should not be identical %d vs %d." % (a1, a2))
    return a1, a2


def _diag_len(n1: int, n2: int, offset: int) -> int:
    if n1 < 0 or n2 < 0:
        return -1
    return max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))


def diagonal_view(x, offset: int, a1: int, a2: int):
    return np.diagonal(x, offset, a1, a2)


def _place_diagonal(shape, dtype, values, offset: int, a1: int, a2: int):
    """Zeros of `shape` with `values` on the (offset, a1, a2) diagonal (the gradient of taking it)."""
    out = np.zeros(shape, dtype)
    view = np.diagonal(out, offset, a1, a2)
    view.setflags(write=True)
    view[...] = values
    return out


# --- trace, diagonal -----------------------------------------------------------------------------------------------

defop('trace', ['Input'], ['Out'], {'offset': 0, 'axis1': 0, 'axis2': 1},
      grad=GradSpec(('Input', 'Out@GRAD'), ('Input@GRAD',)))
defop('diagonal', ['Input'], ['Out'], {'offset': 0, 'axis1': 0, 'axis2': 1},
      grad=GradSpec(('Input', 'Out@GRAD'), ('Input@GRAD',)))


@shape_rule('trace')
def _trace_shape(ctx):
    xs = ctx.in_shape('Input')
    if len(xs) < 2:
        raise ValueError("The rank of Input(Input) of trace should be >= 2, but received %d" % len(xs))
    a1, a2 = _axes(ctx.op.attrs.get, len(xs), 'trace')
    ctx.set_output('Out', tuple(n for i, n in enumerate(xs) if i not in (a1, a2)) or (1,), ctx.in_dtype('Input'))


@shape_rule('diagonal')
def _diagonal_shape(ctx):
    xs = ctx.in_shape('Input')
    a1, a2 = _axes(ctx.op.attrs.get, len(xs), 'diagonal')
    rest = tuple(n for i, n in enumerate(xs) if i not in (a1, a2))
    ctx.set_output('Out', rest + (_diag_len(xs[a1], xs[a2], ctx.attr('offset')),), ctx.in_dtype('Input'))


@kernel_rule('trace')
def _trace_kernel(spec):
    offset = spec.attr('offset')

    def run(x):
        a1, a2 = _axes(spec.attrs.get, x.ndim, 'trace')
        out = np.trace(x, offset, a1, a2).astype(x.dtype, copy=False)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


@kernel_rule('trace_grad')
def _trace_grad_kernel(spec):
    offset = spec.attr('offset')

    def run(x, dout):
        a1, a2 = _axes(spec.attrs.get, x.ndim, 'trace')
        rest = tuple(n for i, n in enumerate(x.shape) if i not in (a1, a2))
        d = np.asarray(dout).reshape(rest)
        n = _diag_len(x.shape[a1], x.shape[a2], offset)
        return (_place_diagonal(x.shape, x.dtype, np.repeat(d[..., None], n, -1), offset, a1, a2),)
    return run


@kernel_rule('diagonal')
def _diagonal_kernel(spec):
    offset = spec.attr('offset')

    def run(x):
        a1, a2 = _axes(spec.attrs.get, x.ndim, 'diagonal')
        return (np.ascontiguousarray(np.diagonal(x, offset, a1, a2)),)
    return run


@kernel_rule('diagonal_grad')
def _diagonal_grad_kernel(spec):
    offset = spec.attr('offset')

    def run(x, dout):
        a1, a2 = _axes(spec.attrs.get, x.ndim, 'diagonal')
        return (_place_diagonal(x.shape, x.dtype, dout, offset, a1, a2),)
    return run


# --- diag_v2 (2.x), diag (1.8), diag_embed --------------------------------------------------------------------------

defop('diag_v2', ['X'], ['Out'], {'offset': 0, 'padding_value': 0.0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('diag', ['Diagonal'], ['Out'])


@shape_rule('diag_v2')
def _diag_v2_shape(ctx):
    xs, k = ctx.in_shape('X'), ctx.attr('offset')
    if len(xs) <= 1:
        n = xs[0] if xs else 1
        ctx.set_output('Out', (-1, -1) if n < 0 else (n + abs(k),) * 2, ctx.in_dtype('X'))
    elif len(xs) == 2:
        ctx.set_output('Out', (_diag_len(xs[0], xs[1], k),), ctx.in_dtype('X'))
    else:
        raise ValueError("The input tensor X's dimensions of DiagV2Op should be either 1 or 2, but received %d."
                         % len(xs))


@kernel_rule('diag_v2')
def _diag_v2_kernel(spec):
    k, pad = spec.attr('offset'), float(spec.attr('padding_value'))

    def run(x):
        if x.ndim <= 1:
            v = x.reshape(-1)
            n = v.size + abs(k)
            return (_diag_with(np.full((n, n), pad, x.dtype), v, k),)
        return (np.ascontiguousarray(np.diagonal(x, k)),)
    return run


def _diag_with(out, values, k: int):
    idx = np.arange(values.size)
    rows, cols = (idx, idx + k) if k >= 0 else (idx - k, idx)
    out[rows, cols] = values
    return out


@kernel_rule('diag_v2_grad')
def _diag_v2_grad_kernel(spec):
    k = spec.attr('offset')

    def run(x, dout):
        if x.ndim <= 1:
            return (np.ascontiguousarray(np.diagonal(dout, k)).reshape(x.shape),)
        return (_place_diagonal(x.shape, x.dtype, dout, k, 0, 1),)
    return run


@shape_rule('diag')
def _diag_shape(ctx):
    xs = ctx.in_shape('Diagonal')
    if len(xs) != 1:
        raise ValueError("The input of diag should be a 1-D tensor, got shape %s" % list(xs))
    ctx.set_output('Out', (xs[0], xs[0]), ctx.in_dtype('Diagonal'))


@kernel_rule('diag')
def _diag_kernel(spec):
    return lambda d: (np.diag(d.reshape(-1)).astype(d.dtype, copy=False),)


defop('diag_embed', ['Input'], ['Out'], {'offset': 0, 'dim1': -2, 'dim2': -1},
      grad=GradSpec(('Input', 'Out@GRAD'), ('Input@GRAD',)))


def _embed_dims(rank_out: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1 = norm_axis(dim1, rank_out, 'diag_embed', 'dim1')
    d2 = norm_axis(dim2, rank_out, 'diag_embed', 'dim2')
    if d1 == d2:
        raise ValueError('dim1 and dim2 cannot be the same dimension.')
    return d1, d2


@shape_rule('diag_embed')
def _diag_embed_shape(ctx):
    xs = ctx.in_shape('Input')
    d1, d2 = _embed_dims(len(xs) + 1, ctx.attr('dim1'), ctx.attr('dim2'))
    n = xs[-1] + abs(ctx.attr('offset')) if xs[-1] >= 0 else -1
    out, rest = [], list(xs[:-1])
    for i in range(len(xs) + 1):
        out.append(n if i in (d1, d2) else rest.pop(0))
    ctx.set_output('Out', tuple(out), ctx.in_dtype('Input'))


@kernel_rule('diag_embed')
def _diag_embed_kernel(spec):
    offset, dim1, dim2 = spec.attr('offset'), spec.attr('dim1'), spec.attr('dim2')

    def run(x):
        d1, d2 = _embed_dims(x.ndim + 1, dim1, dim2)
        n = x.shape[-1] + abs(offset)
        rest = list(x.shape[:-1])
        shape = tuple(n if i in (d1, d2) else rest.pop(0) for i in range(x.ndim + 1))
        return (_place_diagonal(shape, x.dtype, x, offset, d1, d2),)
    return run


@kernel_rule('diag_embed_grad')
def _diag_embed_grad_kernel(spec):
    offset, dim1, dim2 = spec.attr('offset'), spec.attr('dim1'), spec.attr('dim2')

    def run(x, dout):
        d1, d2 = _embed_dims(x.ndim + 1, dim1, dim2)
        return (np.ascontiguousarray(np.diagonal(dout, offset, d1, d2)).reshape(x.shape),)
    return run


# as in Paddle 2.6.2, only X gets a gradient (Y's diagonal values get none)
defop('fill_diagonal_tensor', ['X', 'Y'], ['Out'], {'offset': 0, 'dim1': 0, 'dim2': 1},
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('fill_diagonal_tensor')
def _fill_diagonal_tensor_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('fill_diagonal_tensor')
def _fill_diagonal_tensor_kernel(spec):
    offset, dim1, dim2 = spec.attr('offset'), spec.attr('dim1'), spec.attr('dim2')

    def run(x, y):
        out = x.copy()
        view = np.diagonal(out, offset, norm_axis(dim1, x.ndim, 'fill_diagonal_tensor'),
                           norm_axis(dim2, x.ndim, 'fill_diagonal_tensor'))
        view.setflags(write=True)
        view[...] = y.reshape(view.shape)
        return (out,)
    return run


@kernel_rule('fill_diagonal_tensor_grad')
def _fill_diagonal_tensor_grad_kernel(spec):
    offset, dim1, dim2 = spec.attr('offset'), spec.attr('dim1'), spec.attr('dim2')

    def run(dout):
        dx = dout.copy()
        view = np.diagonal(dx, offset, norm_axis(dim1, dout.ndim, 'fill_diagonal_tensor'),
                           norm_axis(dim2, dout.ndim, 'fill_diagonal_tensor'))
        view.setflags(write=True)
        view[...] = 0
        return (dx,)
    return run


# --- mv, addmm, multi_dot -------------------------------------------------------------------------------------------

defop('mv', ['X', 'Vec'], ['Out'], grad=GradSpec(('X', 'Vec', 'Out@GRAD'), ('X@GRAD', 'Vec@GRAD')))


@shape_rule('mv')
def _mv_shape(ctx):
    xs, vs = ctx.in_shape('X'), ctx.in_shape('Vec')
    if len(xs) != 2 or len(vs) != 1:
        raise ValueError("mv: X must be 2-D and Vec 1-D, got X %s and Vec %s" % (list(xs), list(vs)))
    if xs[1] >= 0 and vs[0] >= 0 and xs[1] != vs[0]:
        raise ValueError("X's second dimension is expected to be equal to Vec's first dimension, but received X's "
                         "shape = [%s], Vec's shape = [%s]" % (', '.join(map(str, xs)), vs[0]))
    ctx.set_output('Out', (xs[0],), ctx.in_dtype('X'))


@kernel_rule('mv')
def _mv_kernel(spec):
    return lambda x, vec: (x @ vec,)


@kernel_rule('mv_grad')
def _mv_grad_kernel(spec):
    want_x, want_v = spec.has_output('X@GRAD'), spec.has_output('Vec@GRAD')
    return lambda x, vec, dout: ((np.outer(dout, vec).astype(x.dtype) if want_x else None),
                                 (x.T @ dout if want_v else None))


defop('addmm', ['Input', 'X', 'Y'], ['Out'], {'Alpha': 1.0, 'Beta': 1.0},
      grad=GradSpec(('Input', 'X', 'Y', 'Out@GRAD'), ('Input@GRAD', 'X@GRAD', 'Y@GRAD')))


@shape_rule('addmm')
def _addmm_shape(ctx):
    xs, ys, ins = ctx.in_shape('X'), ctx.in_shape('Y'), ctx.in_shape('Input')
    if len(xs) != 2 or len(ys) != 2:
        raise ValueError("The input tensor X and Y of addmm should be 2-D, got X %s and Y %s" % (list(xs), list(ys)))
    if xs[1] >= 0 and ys[0] >= 0 and xs[1] != ys[0]:
        raise ValueError("The input tensor X's width must be equal with matrix Y' height. But received X's shape = "
                         "[%s], Y's shape = [%s]." % (', '.join(map(str, xs)), ', '.join(map(str, ys))))
    if len(ins) not in (1, 2):
        raise ValueError("The input tensor input's dimension must be 2 or 1. But received input's dimension = [%d]."
                         % len(ins))
    ctx.set_output('Out', (xs[0], ys[1]), ctx.in_dtype('X'))


@kernel_rule('addmm')
def _addmm_kernel(spec):
    alpha, beta = float(spec.attr('Alpha')), float(spec.attr('Beta'))

    def run(inp, x, y):
        t = x.dtype.type
        return ((t(beta) * inp + t(alpha) * (x @ y)).astype(x.dtype, copy=False),)
    return run


@kernel_rule('addmm_grad')
def _addmm_grad_kernel(spec):
    alpha, beta = float(spec.attr('Alpha')), float(spec.attr('Beta'))
    want = [spec.has_output(s) for s in ('Input@GRAD', 'X@GRAD', 'Y@GRAD')]

    def run(inp, x, y, dout):
        t = x.dtype.type
        di = sum_to_shape(t(beta) * dout, inp.shape).astype(inp.dtype) if want[0] else None
        dx = (t(alpha) * (dout @ y.T)).astype(x.dtype) if want[1] else None
        dy = (t(alpha) * (x.T @ dout)).astype(y.dtype) if want[2] else None
        return di, dx, dy
    return run


defop('multi_dot', ['X'], ['Out'], duplicable=['X'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('multi_dot')
def _multi_dot_shape(ctx):
    shapes = [tuple(v.shape) for v in ctx.input_vars('X')]
    if len(shapes) < 2:
        raise ValueError('multi_dot(): expected at least 2 tensors but got %d' % len(shapes))
    rows = shapes[0][0] if len(shapes[0]) == 2 else None
    cols = shapes[-1][-1] if len(shapes[-1]) == 2 else None
    out = tuple(d for d in (rows, cols) if d is not None) or (1,)
    ctx.set_output('Out', out, ctx.input_vars('X')[0].dtype)


@kernel_rule('multi_dot')
def _multi_dot_kernel(spec):
    def run(xs):
        out = np.linalg.multi_dot(xs)
        return (np.asarray(out).reshape(1) if np.ndim(out) == 0 else out,)
    return run


@kernel_rule('multi_dot_grad')
def _multi_dot_grad_kernel(spec):
    wanted = [n != '@EMPTY@' for n in spec.op.output('X@GRAD')]

    def run(xs, dout):
        mats = [x.reshape(1, -1) if (i == 0 and x.ndim == 1) else (x.reshape(-1, 1) if x.ndim == 1 else x)
                for i, x in enumerate(xs)]
        d = dout.reshape(mats[0].shape[0], mats[-1].shape[1])
        grads = []
        for i, (x, want) in enumerate(zip(xs, wanted)):
            if not want:
                grads.append(None)
                continue
            left = np.linalg.multi_dot(mats[:i]) if i > 1 else (mats[0] if i == 1 else None)
            right = np.linalg.multi_dot(mats[i + 1:]) if len(mats) - i > 2 else (
                mats[-1] if i == len(mats) - 2 else None)
            g = d
            if right is not None:
                g = g @ right.T
            if left is not None:
                g = left.T @ g
            grads.append(g.reshape(x.shape).astype(x.dtype))
        return (grads,)
    return run


# --- norms -----------------------------------------------------------------------------------------------------------

defop('p_norm', ['X'], ['Out'], {'porder': 2.0, 'axis': -1, 'epsilon': 1e-12, 'keepdim': False, 'asvector': False},
      grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _p_norm_axes(spec_attr, rank: int):
    if spec_attr('asvector'):
        return tuple(range(rank))
    return (norm_axis(spec_attr('axis'), rank, 'p_norm'),)


@shape_rule('p_norm')
def _p_norm_shape(ctx):
    xs = ctx.in_shape('X')
    axes = _p_norm_axes(ctx.attr, len(xs))
    keep = ctx.attr('keepdim')
    out = tuple(1 if i in axes else n for i, n in enumerate(xs)) if keep else tuple(
        n for i, n in enumerate(xs) if i not in axes)
    ctx.set_output('Out', out or (1,), ctx.in_dtype('X'))


def p_norm_value(x, p: float, axes: tuple, keepdims: bool):
    a = np.abs(x)
    if p == np.inf:
        return a.max(axis=axes, keepdims=keepdims)
    if p == -np.inf:
        return a.min(axis=axes, keepdims=keepdims)
    if p == 0:
        return (a != 0).sum(axis=axes, keepdims=keepdims).astype(x.dtype)
    return (a ** p).sum(axis=axes, keepdims=keepdims) ** (1.0 / p)


@kernel_rule('p_norm')
def _p_norm_kernel(spec):
    p, keep = float(spec.attr('porder')), bool(spec.attr('keepdim'))

    def run(x):
        axes = _p_norm_axes(spec.attr, x.ndim)
        out = p_norm_value(x, p, axes, keep).astype(x.dtype, copy=False)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


@kernel_rule('p_norm_grad')
def _p_norm_grad_kernel(spec):
    p, eps = float(spec.attr('porder')), float(spec.attr('epsilon'))

    def run(x, out, dout):
        axes = _p_norm_axes(spec.attr, x.ndim)
        kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        norm, d = out.reshape(kept), dout.reshape(kept)
        if p == 0:
            return (np.zeros(x.shape, x.dtype),)
        if np.isinf(p):
            ties = np.abs(x) == norm
            share = ties / np.maximum(ties.sum(axis=axes, keepdims=True), 1)
            return ((np.sign(x) * share * d).astype(x.dtype),)
        g = np.sign(x) * np.abs(x) ** (p - 1) / np.maximum(norm, eps) ** (p - 1) * d
        return (g.astype(x.dtype),)
    return run


defop('frobenius_norm', ['X'], ['Out'], {'dim': [], 'keep_dim': False, 'reduce_all': False, 'in_dtype': -1,
                                         'out_dtype': -1},
      grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _fro_axes(spec_attr, rank: int):
    dims = list(spec_attr('dim') or [])
    if spec_attr('reduce_all') or not dims:
        return tuple(range(rank))
    return tuple(sorted({norm_axis(d, rank, 'frobenius_norm') for d in dims}))


@shape_rule('frobenius_norm')
def _fro_shape(ctx):
    xs = ctx.in_shape('X')
    axes = _fro_axes(ctx.attr, len(xs))
    keep = ctx.attr('keep_dim')
    out = tuple(1 if i in axes else n for i, n in enumerate(xs)) if keep else tuple(
        n for i, n in enumerate(xs) if i not in axes)
    ctx.set_output('Out', out or (1,), ctx.in_dtype('X'))


@kernel_rule('frobenius_norm')
def _fro_kernel(spec):
    keep = bool(spec.attr('keep_dim'))

    def run(x):
        axes = _fro_axes(spec.attr, x.ndim)
        out = np.sqrt((np.abs(x) ** 2).sum(axis=axes, keepdims=keep)).astype(x.real.dtype, copy=False)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


@kernel_rule('frobenius_norm_grad')
def _fro_grad_kernel(spec):
    def run(x, out, dout):
        axes = _fro_axes(spec.attr, x.ndim)
        kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
        return ((x / out.reshape(kept) * dout.reshape(kept)).astype(x.dtype),)
    return run


# --- renorm: slices along `axis` rescaled to p-norm <= max_norm ------------------------------------------------------

defop('renorm', ['X'], ['Out'], {'p': 2.0, 'axis': 0, 'max_norm': 1.0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


def _renorm_parts(x, p: float, axis: int, max_norm: float):
    """(the norms of the slices, kept as [.., n, ..] broadcastable, the scale applied)."""
    axes = tuple(i for i in range(x.ndim) if i != axis)
    norms = (np.abs(x) ** p).sum(axis=axes, keepdims=True) ** (1.0 / p)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    return norms, scale, axes


@shape_rule('renorm')
def _renorm_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('renorm')
def _renorm_kernel(spec):
    p, axis_attr, max_norm = float(spec.attr('p')), spec.attr('axis'), float(spec.attr('max_norm'))

    def run(x):
        _, scale, _ = _renorm_parts(x, p, norm_axis(axis_attr, x.ndim, 'renorm'), max_norm)
        return ((x * scale).astype(x.dtype),)
    return run


@kernel_rule('renorm_grad')
def _renorm_grad_kernel(spec):
    p, axis_attr, max_norm = float(spec.attr('p')), spec.attr('axis'), float(spec.attr('max_norm'))

    def run(x, dout):
        norms, scale, axes = _renorm_parts(x, p, norm_axis(axis_attr, x.ndim, 'renorm'), max_norm)
        # a rescaled slice: d(max_norm x / (n + eps)) = scale dout - max_norm (dout . x) dn/dx / (n + eps)^2
        dnorm = np.sign(x) * np.abs(x) ** (p - 1) * norms ** (1 - p)
        inner = (dout * x).sum(axis=axes, keepdims=True)
        rescaled = scale * dout - max_norm * dnorm * inner / (norms + 1e-7) ** 2
        return (np.where(norms > max_norm, rescaled, dout).astype(x.dtype),)
    return run


# --- tril_indices / triu_indices ----------------------------------------------------------------------------------

defop('tril_indices', [], ['out'], {'rows': 0, 'cols': 0, 'offset': 0, 'dtype': int(VarType.INT64)})
defop('triu_indices', [], ['out'], {'row': 0, 'col': 0, 'offset': 0, 'dtype': int(VarType.INT64)})


def _tri_indices(op_type: str, attr):
    rows, cols = (attr('rows'), attr('cols')) if op_type == 'tril_indices' else (attr('row'), attr('col'))
    fn = np.tril_indices if op_type == 'tril_indices' else np.triu_indices
    return np.stack(fn(rows, attr('offset'), cols)).astype(to_numpy(VarType(int(attr('dtype')))))


@shape_rule('tril_indices')
def _tril_indices_shape(ctx):
    ctx.set_output('out', _tri_indices(ctx.op.type, ctx.attr).shape, VarType(int(ctx.attr('dtype'))))


shape_rule('triu_indices')(_tril_indices_shape)


@kernel_rule('tril_indices', 'triu_indices')
def _tri_indices_kernel(spec):
    value = _tri_indices(spec.type, spec.attr)
    return lambda: (value.copy(),)
