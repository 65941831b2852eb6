"""Reduction ops: reduce_sum / reduce_mean / reduce_max / reduce_min / reduce_prod, 2.x's reduce_amax / reduce_amin
(the max / min whose gradient is shared among ties), softmax and log_softmax, on the numba kernels of
kernels/reduce.py.

Attributes are Paddle's: `dim` (a list, negative allowed), `keep_dim`, `reduce_all`, plus `in_dtype` /
`out_dtype` (-1: the input dtype; reduce_sum honours out_dtype, as paddle.sum(dtype=...) sets it). An empty
`dim` means every dim. Shapes follow Paddle 1.8 - 2.4's ReduceOp::InferShape: reduce_all or no dim left gives
[1] (there are no 0-D tensors before 2.5), keep_dim keeps the reduced dims as 1.

Grad ops read what Paddle's read: reduce_sum_grad / reduce_mean_grad (X, Out@GRAD), reduce_max / min / prod
_grad (X, Out, Out@GRAD), softmax_grad / log_softmax_grad (Out, Out@GRAD).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, segment_rule, shape_rule
from ..kernels import reduce as KR
from ..kernels.segment import loss as SL
from ..kernels.segment import tensor as ST
from ._util import segment_op, var_rank

_REDUCE_ATTRS = {'dim': [0], 'keep_dim': False, 'reduce_all': False, 'in_dtype': -1, 'out_dtype': -1}

# op type -> (forward, backward, whether the grad op reads Out)
_REDUCE = {
    'reduce_sum': (KR.reduce_sum_forward, KR.reduce_sum_backward, False),
    'reduce_mean': (KR.reduce_mean_forward, KR.reduce_mean_backward, False),
    'reduce_max': (KR.reduce_max_forward, KR.reduce_max_backward, True),
    'reduce_min': (KR.reduce_min_forward, KR.reduce_min_backward, True),
    'reduce_prod': (KR.reduce_prod_forward, KR.reduce_prod_backward, True),
}


def _extreme_share_backward(x, out, dout, dims, keep_dim, reduce_all):
    """reduce_amax / reduce_amin's gradient: dout shared evenly among the elements equal to the extreme (2.x;
    reduce_max gives every tie the whole dout)."""
    red = normalized_dims('reduce_amax', x.ndim, dims, reduce_all)
    kept = tuple(1 if i in red else n for i, n in enumerate(x.shape))
    ties = x == out.reshape(kept)
    count = ties.sum(axis=red, keepdims=True)
    return (ties * (dout.reshape(kept) / count)).astype(x.dtype)


_REDUCE['reduce_amax'] = (KR.reduce_max_forward, _extreme_share_backward, True)
_REDUCE['reduce_amin'] = (KR.reduce_min_forward, _extreme_share_backward, True)

for _t, (_, _, _reads_out) in _REDUCE.items():
    defop(_t, ['X'], ['Out'], _REDUCE_ATTRS,
          grad=GradSpec(('X', 'Out', 'Out@GRAD') if _reads_out else ('X', 'Out@GRAD'), ('X@GRAD',)))


def normalized_dims(op_type: str, rank: int, dims, reduce_all: bool) -> tuple[int, ...]:
    """The reduced dims, non-negative and sorted; every dim when reduce_all or `dims` is empty."""
    dims = [dims] if isinstance(dims, int) else list(dims or [])
    if reduce_all or not dims:
        return tuple(range(rank))
    out = set()
    for d in dims:
        if not -rank <= d < rank:
            raise ValueError("%s: the reduce dim index %d should be in the range [-dimension(X), dimension(X)) "
                             "= [%d, %d)" % (op_type, d, -rank, rank))
        out.add(d + rank if d < 0 else d)
    return tuple(sorted(out))


def reduce_out_shape(op_type: str, xs: tuple, dims, keep_dim: bool, reduce_all: bool) -> tuple:
    """Paddle's ReduceOp::InferShape (unknown dims stay -1)."""
    red = set(normalized_dims(op_type, len(xs), dims, reduce_all))
    if keep_dim:
        return tuple(1 if i in red else n for i, n in enumerate(xs))
    return tuple(n for i, n in enumerate(xs) if i not in red) or (1,)


def _out_dtype(attr: int, x_dtype):
    return x_dtype if attr is None or int(attr) < 0 else VarType(int(attr))


def _reduce_shape(ctx):
    xs = ctx.in_shape('X')
    out = reduce_out_shape(ctx.op.type, xs, ctx.attr('dim'), ctx.attr('keep_dim'), ctx.attr('reduce_all'))
    dtype = None
    if ctx.op.type == 'reduce_sum':
        dtype = _out_dtype(ctx.attr('out_dtype'), ctx.in_dtype('X'))
        if dtype == VarType.BOOL:
            dtype = VarType.INT64        # Paddle 2.x's sum counts bools (phi's SumKernel)
    ctx.set_output('Out', out, dtype or ctx.in_dtype('X'))


for _t in _REDUCE:
    shape_rule(_t)(_reduce_shape)


def _kernel_dims(spec):
    """(dims, keep_dim, reduce_all) for the kernels: dims as a hashable tuple (the kernels cache plans on it)."""
    dims = spec.attr('dim')
    dims = (dims,) if isinstance(dims, int) else tuple(dims or ())
    reduce_all = bool(spec.attr('reduce_all')) or not dims
    return dims, bool(spec.attr('keep_dim')), reduce_all


@kernel_rule(*_REDUCE)
def _reduce_kernel(spec):
    forward = _REDUCE[spec.type][0]
    dims, keep_dim, reduce_all = _kernel_dims(spec)
    if spec.type == 'reduce_sum' and int(spec.attr('out_dtype')) >= 0:
        out_dtype = to_numpy(VarType(int(spec.attr('out_dtype'))))
        return lambda x: (forward(x, dims, keep_dim, reduce_all, out_dtype),)
    if spec.type == 'reduce_sum':   # bools are counted (int64), as Paddle 2.x's SumKernel does
        return lambda x: (forward(x.astype(np.int64) if x.dtype == np.bool_ else x, dims, keep_dim, reduce_all),)
    return lambda x: (forward(x, dims, keep_dim, reduce_all),)


@kernel_rule(*(t + '_grad' for t in _REDUCE))
def _reduce_grad_kernel(spec):
    _, backward, reads_out = _REDUCE[spec.type[:-len('_grad')]]
    dims, keep_dim, reduce_all = _kernel_dims(spec)
    if reads_out:
        return lambda x, out, dout: (backward(x, out, dout, dims, keep_dim, reduce_all),)

    def run(x, dout):
        dx = backward(x, dout, dims, keep_dim, reduce_all)
        return (dx if dx.dtype == x.dtype else dx.astype(x.dtype),)
    return run


# --- softmax / log_softmax along `axis` -----------------------------------------------------------------------------

defop('softmax', ['X'], ['Out'], {'axis': -1, 'data_format': 'AnyLayout', 'is_test': False, 'use_cudnn': False,
                                  'use_mkldnn': False},
      grad=GradSpec(('Out', 'Out@GRAD'), ('X@GRAD',)))
defop('log_softmax', ['X'], ['Out'], {'axis': -1, 'use_mkldnn': False},
      grad=GradSpec(('Out', 'Out@GRAD'), ('X@GRAD',)))


def _softmax_shape(ctx):
    xs = ctx.in_shape('X')
    axis, rank = ctx.attr('axis'), len(xs)
    if not -rank <= axis < rank:
        raise ValueError("%s: Attr(axis) value should be in range [-R, R-1], R is the rank of Input(X). Received "
                         "axis %d for X of shape %s" % (ctx.op.type, axis, list(xs)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


shape_rule('softmax')(_softmax_shape)
shape_rule('log_softmax')(_softmax_shape)

_SOFTMAX = {'softmax': (KR.softmax_forward, KR.softmax_backward),
            'log_softmax': (KR.log_softmax_forward, KR.log_softmax_backward)}


@kernel_rule(*_SOFTMAX)
def _softmax_kernel(spec):
    forward, axis = _SOFTMAX[spec.type][0], spec.attr('axis')
    return lambda x: (forward(x, axis),)


@kernel_rule(*(t + '_grad' for t in _SOFTMAX))
def _softmax_grad_kernel(spec):
    backward, axis = _SOFTMAX[spec.type[:-len('_grad')]][1], spec.attr('axis')
    return lambda out, dout: (backward(out, dout, axis),)


__all__ = ['normalized_dims', 'reduce_out_shape']


# --- logsumexp (attributes axis, keepdim, reduce_all: not the reduce ops' names) ------------------------------------

defop('logsumexp', ['X'], ['Out'], {'axis': [0], 'keepdim': False, 'reduce_all': False},
      grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


def _logsumexp_dims(attr):
    axis = attr('axis')
    axis = (axis,) if isinstance(axis, int) else tuple(axis or ())
    return axis, bool(attr('keepdim')), bool(attr('reduce_all')) or not axis


@shape_rule('logsumexp')
def _logsumexp_shape(ctx):
    axis, keepdim, reduce_all = _logsumexp_dims(ctx.attr)
    ctx.set_output('Out', reduce_out_shape('logsumexp', ctx.in_shape('X'), axis, keepdim, reduce_all),
                   ctx.in_dtype('X'))


@kernel_rule('logsumexp')
def _logsumexp_kernel(spec):
    dims = _logsumexp_dims(spec.attr)
    return lambda x: (KR.logsumexp_forward(x, *dims),)


@kernel_rule('logsumexp_grad')
def _logsumexp_grad_kernel(spec):
    dims = _logsumexp_dims(spec.attr)
    return lambda x, out, dout: (KR.logsumexp_backward(x, out, dout, *dims),)


# --- reduce_all / reduce_any: bool reductions with the reduce ops' attributes, no gradient ----------------------------

_BOOL_REDUCE = {'reduce_all': True, 'reduce_any': False}
for _t in _BOOL_REDUCE:
    defop(_t, ['X'], ['Out'], _REDUCE_ATTRS)


def _bool_reduce_shape(ctx):
    xs = ctx.in_shape('X')
    ctx.set_output('Out', reduce_out_shape(ctx.op.type, xs, ctx.attr('dim'), ctx.attr('keep_dim'),
                                           ctx.attr('reduce_all')), VarType.BOOL)


for _t in _BOOL_REDUCE:
    shape_rule(_t)(_bool_reduce_shape)


@kernel_rule(*_BOOL_REDUCE)
def _bool_reduce_kernel(spec):
    want_all = _BOOL_REDUCE[spec.type]
    dims, keep_dim, reduce_all = _kernel_dims(spec)
    return lambda x: (KR.bool_reduce_forward(x, want_all, dims, keep_dim, reduce_all),)


# --- isfinite / isnan / isinf (1.8: one bool for the whole tensor) and their 2.x *_v2 (elementwise) -----------------

_CLASSIFY = {'isfinite': KR.ISFINITE, 'isnan': KR.ISNAN, 'isinf': KR.ISINF}
for _t in _CLASSIFY:
    defop(_t, ['X'], ['Out'])
    defop(_t + '_v2', ['X'], ['Out'])


def _overflow_shape(ctx):
    # Paddle 1.8's builders declare has_nan / has_inf's output with X's dtype; the kernel writes a bool, so the
    # variable is typed by what it holds
    ctx.set_output('Out', (1,), VarType.BOOL)


def _classify_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), VarType.BOOL)


for _t, _kind in _CLASSIFY.items():
    shape_rule(_t)(_overflow_shape)
    shape_rule(_t + '_v2')(_classify_shape)
    kernel_rule(_t)(lambda spec, kind=_kind: (lambda x: (KR.overflow_forward(x, kind),)))
    kernel_rule(_t + '_v2')(lambda spec, kind=_kind: (lambda x: (KR.classify_forward(x, kind),)))


# --- dot and bmm: products reduced over the last axis (numpy's BLAS for bmm) ------------------------------------------

defop('dot', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))
defop('bmm', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def _shapes_match(a, b) -> bool:
    return len(a) == len(b) and all(p < 0 or q < 0 or p == q for p, q in zip(a, b))


@shape_rule('dot')
def _dot_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(xs) not in (1, 2):
        raise ValueError('ShapeError: The dimensions of input tensor X (%s) should be 1 or 2' % list(xs))
    if not _shapes_match(xs, ys):
        raise ValueError('ShapeError: The shape of input tensor Y: %s should match with input tenosr X: %s'
                         % (list(ys), list(xs)))
    # Paddle <= 2.4 keeps the reduced axis as 1: [N, 1] for 2-D inputs, [1] for 1-D
    ctx.set_output('Out', tuple(xs[:-1]) + (1,), ctx.in_dtype('X'))


@kernel_rule('dot')
def _dot_kernel(spec):
    def run(x, y):
        if x.shape != y.shape:
            raise ValueError('ShapeError: The shape of input tensor Y: %s should match with input tenosr X: %s'
                             % (list(y.shape), list(x.shape)))
        return (KR.dot_forward(x, y),)
    return run


@kernel_rule('dot_grad')
def _dot_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        return KR.dot_backward(x, y, dout, want_x, want_y)
    return run


@shape_rule('bmm')
def _bmm_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(xs) != 3:
        raise ValueError("Input(X) of BmmOp must be 3-dimensional in BmmOp, but received X's shape: [%s]"
                         % ', '.join(map(str, xs)))
    if len(ys) != 3:
        raise ValueError("Input(Y) of BmmOp must be 3-dimensional in BmmOp, but received Y's shape: [%s]"
                         % ', '.join(map(str, ys)))
    if xs[0] >= 0 and ys[0] >= 0 and xs[0] != ys[0]:
        raise ValueError("Input(X) and Input(Y) must have the same batch size in BmmOp, but received X's batch "
                         "size: [%s],Y's batch size [%s]" % (xs[0], ys[0]))
    if xs[2] >= 0 and ys[1] >= 0 and xs[2] != ys[1]:
        raise ValueError("Input(X)'s width must be equal with Input(Y)'s height in BmmOp, but receive X's width: "
                         "[%s],Y's height: [%s]." % (xs[2], ys[1]))
    ctx.set_output('Out', (xs[0], xs[1], ys[2]), ctx.in_dtype('X'))


@kernel_rule('bmm')
def _bmm_kernel(spec):
    def run(x, y):
        if x.ndim != 3 or y.ndim != 3 or x.shape[0] != y.shape[0] or x.shape[2] != y.shape[1]:
            raise ValueError('bmm: X %s and Y %s must be [B, M, K] and [B, K, N]' % (list(x.shape), list(y.shape)))
        return (KR.bmm_forward(x, y),)
    return run


@kernel_rule('bmm_grad')
def _bmm_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        return KR.bmm_backward(x, y, dout, want_x, want_y)
    return run


# --- segment rules: reduce_sum / reduce_mean over adjacent dims, in the input's dtype ------------------------------

_SEGMENT_REDUCE = {'reduce_sum': ST.SUM, 'reduce_mean': ST.MEAN}


def _adjacent_dims(spec) -> tuple | None:
    rank = var_rank(spec, 'X')
    if rank is None or rank == 0 or int(spec.attr('out_dtype')) >= 0:
        return None
    dims, keep_dim, reduce_all = _kernel_dims(spec)
    try:
        red = normalized_dims(spec.type, rank, dims, reduce_all)
    except ValueError:
        return None
    if list(red) != list(range(red[0], red[-1] + 1)):
        return None
    out_rank = rank if keep_dim else max(rank - len(red), 1)
    return red[0], red[-1], keep_dim, out_rank


@segment_rule(*_SEGMENT_REDUCE)
def _reduce_segment(spec):
    found = _adjacent_dims(spec)
    if found is None:
        return None
    d0, d1, keep_dim, out_rank = found
    return segment_op(ST.reduce, ['X'], ['Out'], (_SEGMENT_REDUCE[spec.type], d0, d1, keep_dim, out_rank))


@segment_rule(*(t + '_grad' for t in _SEGMENT_REDUCE))
def _reduce_grad_segment(spec):
    found = _adjacent_dims(spec)
    if found is None:
        return None
    d0, d1 = found[:2]
    return segment_op(ST.reduce_grad, ['X', 'Out@GRAD'], ['X@GRAD'], (_SEGMENT_REDUCE[spec.type[:-5]], d0, d1))


@segment_rule('softmax')
def _softmax_segment(spec):
    rank = var_rank(spec, 'X')
    if rank is None or int(spec.attr('axis')) not in (-1, rank - 1):
        return None
    return segment_op(SL.softmax, ['X'], ['Out'])


@segment_rule('softmax_grad')
def _softmax_grad_segment(spec):
    rank = var_rank(spec, 'Out')
    if rank is None or int(spec.attr('axis')) not in (-1, rank - 1):
        return None
    return segment_op(SL.softmax_grad, ['Out', 'Out@GRAD'], ['X@GRAD'])
