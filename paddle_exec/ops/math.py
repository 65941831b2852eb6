"""Math ops: mul, matmul (1.x), matmul_v2 (2.x), the elementwise_* family with Paddle's `axis` broadcasting, the
comparison and logical ops, scale, sign, increment, mean and sum.

Numerics: the elementwise, comparison, scale, sign, mean and sum kernels are the numba kernels of
kernels/elementwise.py, kernels/activation.py and kernels/reduce.py; the matrix products (mul, matmul,
matmul_v2) go through numpy's BLAS, which releases the GIL. In a parallel run a large 2-D `mul` computes its row
halves on two of the pool's threads (kernels/intra_op.py: the same bits).

Grad ops read what Paddle's read: `elementwise_add_grad(X, Y, Out@GRAD)` (sub, mul, max, min, pow alike),
`elementwise_div_grad(X, Y, Out, Out@GRAD)`, `matmul_grad(X, Y, Out@GRAD)`. Some gradients are other ops, as
Paddle's grad makers build them: `scale`'s is a `scale` (bias 0), `sum`'s one `scale` (1.0) per input, `sign`'s
a `scale` by 0. Comparisons, logical ops, floordiv and mod have no gradient; increment's is an increment by
-step (Paddle's: it counts a loop's step index back in the loop's gradient).

Compile-time shapes follow Paddle's InferShape, with -1 for unknown dims:
    elementwise   the lower-rank operand aligned at `axis` (-1: trailing); a dim is max(x, y) when one side is
                  > 1 or both are 1, else -1 (Paddle 1.8's GetBroadcastDimsArrays)
    matmul        1.8: a 1-D X is a row, a 1-D Y a column, the batch dims come from the batched operand, and the
                  dims a vector added are dropped again ([K] x [K] -> [1])
    matmul_v2     2.4: numpy's matmul rules, batch dims broadcast; [K] x [K] -> [1]
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, segment_rule, shape_rule
from ..framework.scope import SelectedRows
from ..framework.variable import EMPTY_VAR_NAME
from ..kernels import elementwise as KE
from ..kernels import intra_op
from ..kernels import reduce as KR
from ..kernels import unary as KU
from ..kernels.segment import activation as SA
from ..kernels.segment import blas as SB
from ..kernels.segment import elementwise as SE
from ..kernels.segment import tensor as ST
from ._util import f32, prod, same_shape_as_x, segment_op, sum_to_shape, var_rank
from .activation import declared_dtype, unary_forward, unary_kernel

# --- mul: X flattened to 2-D at x_num_col_dims, Y at y_num_col_dims, one BLAS product -------------------------

defop('mul', ['X', 'Y'], ['Out'], {'x_num_col_dims': 1, 'y_num_col_dims': 1, 'force_fp32_output': False,
                                   'scale_out': 1.0, 'scale_x': 1.0, 'scale_y': [1.0], 'use_mkldnn': False},
      grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('mul')
def _mul_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    xd, yd = ctx.attr('x_num_col_dims'), ctx.attr('y_num_col_dims')
    if not 0 < xd < len(xs):
        raise ValueError("ShapeError: The input tensor X's dimensions of MulOp should be larger than x_num_col_dims. "
                         "But received X's dimensions = %d, X's shape = %s, x_num_col_dims = %d."
                         % (len(xs), list(xs), xd))
    if not 0 < yd < len(ys):
        raise ValueError("ShapeError: The input tensor Y's dimensions of MulOp should be larger than y_num_col_dims. "
                         "But received Y's dimensions = %d, Y's shape = %s, y_num_col_dims = %d."
                         % (len(ys), list(ys), yd))
    if prod(xs[xd:]) >= 0 and prod(ys[:yd]) >= 0 and prod(xs[xd:]) != prod(ys[:yd]):
        raise ValueError("mul: the flattened width of X %s (x_num_col_dims=%d) must equal the flattened height of "
                         "Y %s (y_num_col_dims=%d)" % (list(xs), xd, list(ys), yd))
    ctx.set_output('Out', xs[:xd] + ys[yd:], ctx.in_dtype('X'))


def _flat2(a, k):
    return a.reshape(prod(a.shape[:k]), -1)


@kernel_rule('mul')
def _mul_kernel(spec):
    xd, yd = spec.attr('x_num_col_dims'), spec.attr('y_num_col_dims')
    matrices = xd == 1 and yd == 1

    def run(x, y):
        if matrices and x.ndim == 2 and y.ndim == 2:      # the common fc case: nothing to flatten or restore
            return (intra_op.matmul_rows(x, y),)              # x @ y; row halves on two threads in parallel runs
        out = _flat2(x, xd) @ _flat2(y, yd)
        return (out.reshape(x.shape[:xd] + y.shape[yd:]),)
    return run


@kernel_rule('mul_grad')
def _mul_grad_kernel(spec):
    xd, yd = spec.attr('x_num_col_dims'), spec.attr('y_num_col_dims')
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    matrices = xd == 1 and yd == 1

    def run(x, y, dout):
        if matrices and x.ndim == 2 and y.ndim == 2:
            return (dout @ y.T if want_x else None), (x.T @ dout if want_y else None)
        d2 = dout.reshape(prod(x.shape[:xd]), -1)
        dx = (d2 @ _flat2(y, yd).T).reshape(x.shape) if want_x else None
        dy = (_flat2(x, xd).T @ d2).reshape(y.shape) if want_y else None
        return dx, dy
    return run


# --- matmul (1.x): transpose_X, transpose_Y, alpha -----------------------------------------------------------------

_MATMUL_ATTRS = {'transpose_X': False, 'transpose_Y': False, 'alpha': 1.0, 'Scale_out': 1.0, 'Scale_x': 1.0,
                 'Scale_y': 1.0, 'force_fp32_output': False, 'fused_reshape_Out': [], 'fused_transpose_Out': [],
                 'head_number': 1, 'use_mkldnn': False, 'use_quantizer': False}
defop('matmul', ['X', 'Y'], ['Out'], _MATMUL_ATTRS, grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def _matrix_desc(dims: tuple, is_x: bool, trans: bool) -> tuple[int, int, int]:
    """Paddle's CreateMatrixDescriptor of RowMatrixFromVector(X) / ColumnMatrixFromVector(Y): (batch, h, w),
    batch 0 for a 2-D matrix."""
    if len(dims) == 1:
        dims = (1, dims[0]) if is_x else (dims[0], 1)
    batch = 0 if len(dims) == 2 else prod(dims[:-2])
    h, w = dims[-2], dims[-1]
    return (batch, w, h) if trans else (batch, h, w)


def matmul_out_shape(xs: tuple, ys: tuple, tx: bool, ty: bool) -> tuple:
    """Paddle 1.8 MatMulOp::InferShape."""
    bx, hx, wx = _matrix_desc(xs, True, tx)
    by, hy, wy = _matrix_desc(ys, False, ty)
    if wx == -1:
        wx = hy
    if hy == -1:
        hy = wx
    if wx != hy:
        raise ValueError("matmul: after the optional transposes, Input X's width should be equal to Y's height. "
                         "But received X's shape: %s, Y's shape: %s (transpose_X=%s, transpose_Y=%s)"
                         % (list(xs), list(ys), tx, ty))
    if bx != 0:
        out = list(xs[:-2]) + [hx, wy] if len(xs) > 2 else [hx, wy]
    elif by != 0:
        out = list(ys[:-2]) + [hx, wy]
    else:
        out = [hx, wy]
    if len(xs) == 1 and out[-2] == 1:
        out = out[:-2] + [out[-1]]
    if len(ys) == 1 and out[-1] == 1:
        out = out[:-1]
    return tuple(out) or (1,)


@shape_rule('matmul')
def _matmul_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    ctx.set_output('Out', matmul_out_shape(xs, ys, ctx.attr('transpose_X'), ctx.attr('transpose_Y')),
                   ctx.in_dtype('X'))


def _matmul_operands(x, y, tx: bool, ty: bool):
    """X and Y as Paddle's matmul sees them: 1-D X a row, 1-D Y a column, more than 3 dims folded into one
    batch dim, then the optional transposes (views)."""
    a = x.reshape(1, -1) if x.ndim == 1 else x
    b = y.reshape(-1, 1) if y.ndim == 1 else y
    if a.ndim > 3:
        a = a.reshape((-1,) + a.shape[-2:])
    if b.ndim > 3:
        b = b.reshape((-1,) + b.shape[-2:])
    if tx:
        a = a.swapaxes(-1, -2)
    if ty:
        b = b.swapaxes(-1, -2)
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] != b.shape[0]:
        raise ValueError("matmul: the batch sizes of X %s and Y %s must be equal, or one of them must be a "
                         "matrix" % (list(x.shape), list(y.shape)))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError("matmul: after the optional transposes, Input X's width should be equal to Y's height. "
                         "But received X's shape: %s, Y's shape: %s" % (list(x.shape), list(y.shape)))
    return a, b


def _grad_of_left(d, b, a_ndim: int):
    """dL/da for out = a @ b. A matrix `a` against a batched `b` gets the sum over the batch as one GEMM over
    the folded batch (Paddle's FoldHeadAndLastDims)."""
    if a_ndim == 2 and d.ndim == 3:
        n_batch, m, n = d.shape
        return d.transpose(1, 0, 2).reshape(m, n_batch * n) @ b.transpose(1, 0, 2).reshape(b.shape[1], -1).T
    return np.matmul(d, b.swapaxes(-1, -2))


def _grad_of_right(a, d, b_ndim: int):
    """dL/db for out = a @ b; a matrix `b` against a batched `a` folds the batch into the rows
    (Paddle's FoldInitDims)."""
    if b_ndim == 2 and d.ndim == 3:
        return a.reshape(-1, a.shape[-1]).T @ d.reshape(-1, d.shape[-1])
    return np.matmul(a.swapaxes(-1, -2), d)


def _scaled(arr, alpha: float):
    if alpha != 1.0:
        arr = arr * arr.dtype.type(np.float32(alpha))
    return arr


@kernel_rule('matmul')
def _matmul_kernel(spec):
    tx, ty, alpha = spec.attr('transpose_X'), spec.attr('transpose_Y'), float(spec.attr('alpha'))
    out_shapes: dict = {}

    def run(x, y):
        a, b = _matmul_operands(x, y, tx, ty)
        key = (x.shape, y.shape)
        shape = out_shapes.get(key)
        if shape is None:
            shape = out_shapes[key] = matmul_out_shape(x.shape, y.shape, tx, ty)
        return (_scaled(np.matmul(a, b), alpha).reshape(shape),)
    return run


@kernel_rule('matmul_grad')
def _matmul_grad_kernel(spec):
    tx, ty, alpha = spec.attr('transpose_X'), spec.attr('transpose_Y'), float(spec.attr('alpha'))
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        a, b = _matmul_operands(x, y, tx, ty)
        batch = a.shape[:-2] or b.shape[:-2]
        d = dout.reshape(batch + (a.shape[-2], b.shape[-1]))
        dx = dy = None
        if want_x:
            da = _scaled(_grad_of_left(d, b, a.ndim), alpha)
            dx = (da.swapaxes(-1, -2) if tx else da).reshape(x.shape)
        if want_y:
            db = _scaled(_grad_of_right(a, d, b.ndim), alpha)
            dy = (db.swapaxes(-1, -2) if ty else db).reshape(y.shape)
        return dx, dy
    return run


# --- matmul_v2 (2.x): trans_x, trans_y, numpy broadcasting of the batch dims ---------------------------------------

defop('matmul_v2', ['X', 'Y'], ['Out'], {'trans_x': False, 'trans_y': False, 'use_mkldnn': False},
      grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


def _broadcast_batch(xb: tuple, yb: tuple) -> list:
    """numpy's broadcast of two batch shapes, with -1 for unknown dims (a dim > 1 on either side wins)."""
    n = max(len(xb), len(yb))
    xb, yb = (1,) * (n - len(xb)) + tuple(xb), (1,) * (n - len(yb)) + tuple(yb)
    return [a if a == b else (max(a, b) if a > 1 or b > 1 else (a if b == 1 else (b if a == 1 else -1)))
            for a, b in zip(xb, yb)]


def matmul_v2_out_shape(xs: tuple, ys: tuple, tx: bool, ty: bool) -> tuple:
    """Paddle 2.4 MatmulInferMeta, except that batch dims of different ranks are broadcast as the kernel does
    (2.4 copies the higher-rank operand's batch dims, so [2, 1, 3, 4] x [3, 4, 5] was [2, 1, 3, 5] at compile
    time and [2, 3, 3, 5] at run time)."""
    x_vec, y_vec = len(xs) == 1, len(ys) == 1
    dx = (1,) + tuple(xs) if x_vec else tuple(xs)
    dy = tuple(ys) + (1,) if y_vec else tuple(ys)
    m = dx[-1] if tx else dx[-2]
    n = dy[-2] if ty else dy[-1]
    kx = dx[-2] if tx else dx[-1]
    ky = dy[-1] if ty else dy[-2]
    if not x_vec and not y_vec and kx >= 0 and ky >= 0 and kx != ky:
        raise ValueError("matmul_v2: Input(X) width %d and Input(Y) height %d must be equal. X's shape: %s, Y's "
                         "shape: %s (trans_x=%s, trans_y=%s)" % (kx, ky, list(xs), list(ys), tx, ty))
    out = _broadcast_batch(dx[:-2], dy[:-2])
    if not x_vec:
        out.append(m)
    if not y_vec:
        out.append(n)
    if x_vec and y_vec:
        out.append(1)
    return tuple(out)


@shape_rule('matmul_v2')
def _matmul_v2_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    ctx.set_output('Out', matmul_v2_out_shape(xs, ys, ctx.attr('trans_x'), ctx.attr('trans_y')), ctx.in_dtype('X'))


def _v2_operands(x, y, tx: bool, ty: bool):
    """Both as (batch..., rows, cols) views after the transposes; a vector gains the dim it lacks."""
    a = x.reshape(1, -1) if x.ndim == 1 else (x.swapaxes(-1, -2) if tx else x)
    b = y.reshape(-1, 1) if y.ndim == 1 else (y.swapaxes(-1, -2) if ty else y)
    return a, b


@kernel_rule('matmul_v2')
def _matmul_v2_kernel(spec):
    tx, ty = spec.attr('trans_x'), spec.attr('trans_y')

    def run(x, y):
        a = x.swapaxes(-1, -2) if tx and x.ndim > 1 else x
        b = y.swapaxes(-1, -2) if ty and y.ndim > 1 else y
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError("matmul_v2: Input(X) width %d and Input(Y) height %d must be equal. X's shape: %s, "
                             "Y's shape: %s" % (a.shape[-1], b.shape[-2 if b.ndim > 1 else 0], list(x.shape),
                                                list(y.shape)))
        out = np.matmul(a, b)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


@kernel_rule('matmul_v2_grad')
def _matmul_v2_grad_kernel(spec):
    tx, ty = spec.attr('trans_x'), spec.attr('trans_y')
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        a, b = _v2_operands(x, y, tx, ty)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        d = dout.reshape(batch + (a.shape[-2], b.shape[-1]))
        dx = dy = None
        if want_x:
            da = sum_to_shape(_grad_of_left(d, b, a.ndim), a.shape)
            dx = (da.swapaxes(-1, -2) if tx and x.ndim > 1 else da).reshape(x.shape)
        if want_y:
            db = sum_to_shape(_grad_of_right(a, d, b.ndim), b.shape)
            dy = (db.swapaxes(-1, -2) if ty and y.ndim > 1 else db).reshape(y.shape)
        return dx, dy
    return run


# --- elementwise binary ops and comparisons -------------------------------------------------------------------------

_ELEMENTWISE_ATTRS = {'axis': -1, 'use_mkldnn': False, 'x_data_format': '', 'y_data_format': ''}

# op type -> (forward, backward or None, whether the grad op reads Out)
_ELEMENTWISE = {
    'elementwise_add': (KE.elementwise_add_forward, KE.elementwise_add_backward, False),
    'elementwise_sub': (KE.elementwise_sub_forward, KE.elementwise_sub_backward, False),
    'elementwise_mul': (KE.elementwise_mul_forward, KE.elementwise_mul_backward, False),
    'elementwise_div': (KE.elementwise_div_forward, KE.elementwise_div_backward, True),
    'elementwise_max': (KE.elementwise_max_forward, KE.elementwise_max_backward, False),
    'elementwise_min': (KE.elementwise_min_forward, KE.elementwise_min_backward, False),
    'elementwise_pow': (KE.elementwise_pow_forward, KE.elementwise_pow_backward, False),
    'elementwise_floordiv': (KE.elementwise_floordiv_forward, None, False),
    'elementwise_mod': (KE.elementwise_mod_forward, None, False),
}

_COMPARE = {
    'less_than': KE.less_than_forward, 'less_equal': KE.less_equal_forward,
    'greater_than': KE.greater_than_forward, 'greater_equal': KE.greater_equal_forward,
    'equal': KE.equal_forward, 'not_equal': KE.not_equal_forward,
}


def elementwise_out_shape(xs: tuple, ys: tuple, axis: int, op_type: str = 'elementwise') -> tuple:
    """Paddle's compile-time broadcast of X and Y (unknown dims -1)."""
    xs, ys = tuple(xs), tuple(ys)
    if xs == ys:
        return xs
    big, small = (xs, ys) if len(xs) >= len(ys) else (ys, xs)
    rank = len(big)
    start = rank - len(small) if axis == -1 else axis
    trimmed = small
    while trimmed and trimmed[-1] == 1 and start + len(trimmed) > rank:
        trimmed = trimmed[:-1]      # trailing 1s of the smaller operand do not need a place (Paddle trims them)
    if not 0 <= start <= rank - len(trimmed):
        raise ValueError("%s: axis=%d is out of range for the shape of X = %s and the shape of Y = %s"
                         % (op_type, axis, list(xs), list(ys)))
    padded = (1,) * start + trimmed + (1,) * (rank - start - len(trimmed))
    out = []
    for i, (a, b) in enumerate(zip(big, padded)):
        if a != b and a > 1 and b > 1:
            x_dim, y_dim = (a, b) if len(xs) >= len(ys) else (b, a)
            raise ValueError("%s: Broadcast dimension mismatch. Operands could not be broadcast together with the "
                             "shape of X = %s and the shape of Y = %s. Received [%d] in X is not equal to [%d] in "
                             "Y at i:%d." % (op_type, list(xs), list(ys), x_dim, y_dim, i))
        out.append(max(a, b) if (a > 1 or b > 1 or (a == 1 and b == 1)) else -1)
    return tuple(out)


def _elementwise_shape(ctx):
    out = elementwise_out_shape(ctx.in_shape('X'), ctx.in_shape('Y'), ctx.attr('axis'), ctx.op.type)
    ctx.set_output('Out', out, VarType.BOOL if ctx.op.type in _COMPARE else ctx.in_dtype('X'))


for _t, (_fwd, _bwd, _reads_out) in _ELEMENTWISE.items():
    _grad = None
    if _bwd is not None:
        _grad = GradSpec(('X', 'Y', 'Out', 'Out@GRAD') if _reads_out else ('X', 'Y', 'Out@GRAD'),
                         ('X@GRAD', 'Y@GRAD'))
    defop(_t, ['X', 'Y'], ['Out'], _ELEMENTWISE_ATTRS, grad=_grad)
    shape_rule(_t)(_elementwise_shape)

for _t in _COMPARE:
    defop(_t, ['X', 'Y'], ['Out'], {'axis': -1, 'force_cpu': False})
    shape_rule(_t)(_elementwise_shape)


@kernel_rule(*_ELEMENTWISE)
def _elementwise_kernel(spec):
    forward, axis = _ELEMENTWISE[spec.type][0], spec.attr('axis')
    complex_op = _COMPLEX_ELEMENTWISE.get(spec.type)

    def run(x, y):
        if complex_op is not None and (x.dtype.kind == 'c' or y.dtype.kind == 'c'):
            return (complex_op(*_paddle_aligned(x, y, axis)),)
        return (forward(x, y, axis),)
    if spec.type == 'elementwise_mul':
        return lambda x, y: (_sparse_times_scalar(x, y),) if isinstance(x, SelectedRows) else run(x, y)
    return run


# complex tensors (fft results) go through numpy: + - * / as Paddle 2.x supports them
_COMPLEX_ELEMENTWISE = {'elementwise_add': np.add, 'elementwise_sub': np.subtract,
                        'elementwise_mul': np.multiply, 'elementwise_div': np.divide}


def _paddle_aligned(x, y, axis: int):
    """x and y reshaped so that numpy broadcasting does what Paddle's `axis` says (the lower-rank operand's
    dims placed from `axis` on)."""
    if axis == -1 or x.ndim == y.ndim:
        return x, y
    if x.ndim > y.ndim:
        return x, y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))
    return x.reshape(x.shape + (1,) * (y.ndim - axis - x.ndim)), y


def _complex_elementwise_grad(op_type: str, x, y, dout, axis: int, want_x: bool, want_y: bool):
    """Paddle's complex gradients: conjugates of the partial derivatives (d(x*y)/dx -> conj(y))."""
    a, b = _paddle_aligned(x, y, axis)
    if op_type == 'elementwise_add':
        da, db = dout, dout
    elif op_type == 'elementwise_sub':
        da, db = dout, -dout
    elif op_type == 'elementwise_mul':
        da, db = dout * np.conj(b), dout * np.conj(a)
    else:
        da = dout / np.conj(b)
        db = -dout * np.conj(a / (b * b))
    dx = sum_to_shape(np.broadcast_to(da, dout.shape), a.shape).reshape(x.shape).astype(x.dtype) if want_x else None
    dy = sum_to_shape(np.broadcast_to(db, dout.shape), b.shape).reshape(y.shape).astype(y.dtype) if want_y else None
    return dx, dy


def _sparse_times_scalar(x: SelectedRows, y) -> SelectedRows:
    """Paddle's elementwise_mul on a SelectedRows X (gradient clipping scales sparse gradients): Y must hold one
    element; the rows stay, the values are scaled."""
    y = np.asarray(y)
    if y.size != 1:
        raise ValueError("For elementwise_op, if X is Sparse, Y must be scalar. But received the size of Y = %d"
                         % y.size)
    return SelectedRows(x.rows, x.values * y.reshape(()).astype(x.values.dtype), x.height)


@kernel_rule(*(t + '_grad' for t, v in _ELEMENTWISE.items() if v[1] is not None))
def _elementwise_grad_kernel(spec):
    fwd_type = spec.type[:-len('_grad')]
    _, backward, reads_out = _ELEMENTWISE[fwd_type]
    axis = spec.attr('axis')
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')
    complex_ok = fwd_type in _COMPLEX_ELEMENTWISE

    def run(x, y, dout):
        if complex_ok and (x.dtype.kind == 'c' or y.dtype.kind == 'c'):
            return _complex_elementwise_grad(fwd_type, x, y, dout, axis, want_x, want_y)
        return backward(x, y, dout, axis, want_x, want_y)
    if reads_out:     # the kernel recomputes what it needs from X and Y
        return lambda x, y, out, dout: run(x, y, dout)
    return run


@kernel_rule(*_COMPARE)
def _compare_kernel(spec):
    forward, axis = _COMPARE[spec.type], spec.attr('axis')
    return lambda x, y: (forward(x, y, axis),)


# --- logical ops (bool in, bool out; numpy broadcasting as in 2.x) --------------------------------------------------

_LOGICAL = {'logical_and': np.logical_and, 'logical_or': np.logical_or, 'logical_xor': np.logical_xor}

for _t in _LOGICAL:
    defop(_t, ['X', 'Y'], ['Out'])
defop('logical_not', ['X'], ['Out'])


def _logical_shape(ctx):
    ctx.set_output('Out', elementwise_out_shape(ctx.in_shape('X'), ctx.in_shape('Y'), -1, ctx.op.type), VarType.BOOL)


for _t in _LOGICAL:
    shape_rule(_t)(_logical_shape)


@shape_rule('logical_not')
def _logical_not_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), VarType.BOOL)


@kernel_rule(*_LOGICAL)
def _logical_kernel(spec):
    fn = _LOGICAL[spec.type]
    return lambda x, y: (fn(x, y),)


@kernel_rule('logical_not')
def _logical_not_kernel(spec):
    return lambda x: (np.logical_not(x),)


# --- scale: out = scale * x + bias (bias_after_scale) or scale * (x + bias) -----------------------------------------

defop('scale', ['X', 'ScaleTensor'], ['Out'], {'scale': 1.0, 'bias': 0.0, 'bias_after_scale': True},
      dispensable=['ScaleTensor'])
shape_rule('scale')(same_shape_as_x)


@kernel_rule('scale')
def _scale_kernel(spec):
    bias, after = float(spec.attr('bias')), 1.0 if spec.attr('bias_after_scale') else 0.0
    fixed = unary_kernel(KU.SCALE, [float(spec.attr('scale')), bias, after], declared_dtype(spec))
    if not spec.has_input('ScaleTensor'):
        return fixed

    def run(x, scale_tensor):
        factor = np.asarray(scale_tensor).reshape(-1)
        if factor.size != 1:
            raise ValueError("ScaleTensor of operator 'scale' must hold one element, got %d" % factor.size)
        return (unary_forward(KU.SCALE, [float(factor[0]), bias, after])(x),)
    return run


@grad_rule('scale')
def _scale_grad(g):
    inputs = {'X': g.output_grad('Out')}
    if g.op.input('ScaleTensor'):
        inputs['ScaleTensor'] = g.input('ScaleTensor')
    return [('scale', inputs, {'Out': g.input_grad('X')},
             {'scale': g.attrs['scale'], 'bias': 0.0, 'bias_after_scale': True})]


# --- sign (its gradient is a `scale` by 0, as Paddle's SignGradMaker) and increment ---------------------------------

defop('sign', ['X'], ['Out'])
shape_rule('sign')(same_shape_as_x)


@kernel_rule('sign')
def _sign_kernel(spec):
    return unary_kernel(KU.SIGN, (), declared_dtype(spec))


@grad_rule('sign')
def _sign_grad(g):
    return [('scale', {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')},
             {'scale': 0.0, 'bias': 0.0, 'bias_after_scale': True})]


defop('increment', ['X'], ['Out'], {'step': 1.0})


@shape_rule('increment')
def _increment_shape(ctx):
    xs = ctx.in_shape('X')
    if prod(xs) >= 0 and prod(xs) != 1:
        raise ValueError("increment: the number of elements in X (%s) must be 1, got shape %s"
                         % (ctx.op.input('X')[0], list(xs)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('increment')
def _increment_kernel(spec):
    return unary_kernel(KU.SCALE, [1.0, float(spec.attr('step')), 1.0], declared_dtype(spec))


@grad_rule('increment')
def _increment_grad(g):
    """Paddle's IncrementGradOpMaker: not a derivative but the counter counted back (Out -> X by -step), which is
    how a loop's gradient block (ops/loops.py) finds the step index of each iteration it runs backwards."""
    return [('increment', {'X': g.output('Out')}, {'Out': g.input('X')}, {'step': -float(g.attrs['step'])})]


# --- mean: all elements -> shape [1] ---------------------------------------------------------------------------------

defop('mean', ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('mean')
def _mean_shape(ctx):
    ctx.set_output('Out', (1,), ctx.in_dtype('X'))


@kernel_rule('mean')
def _mean_kernel(spec):
    return lambda x: (KR.mean_forward(x),)


@kernel_rule('mean_grad')
def _mean_grad_kernel(spec):
    return lambda x, dout: (KR.mean_backward(x, dout),)


# --- sum: adds a list of tensors (gradient accumulation); SelectedRows inputs stay sparse when all are sparse ----

defop('sum', ['X'], ['Out'], {'use_mkldnn': False}, duplicable=['X'])


@shape_rule('sum')
def _sum_shape(ctx):
    # as the kernel computes it: sparse (SelectedRows) only when every input is, dense otherwise
    inputs = [v for v in ctx.input_vars('X') if v is not None]
    first = inputs[0]
    sparse = all(v.type == VarType.SELECTED_ROWS for v in inputs)
    ctx.set_output('Out', first.shape, first.dtype, type=VarType.SELECTED_ROWS if sparse else VarType.LOD_TENSOR)


def sum_values(xs):
    """((x0 + x1) + x2) + ... of dense tensors; SelectedRows concatenated when all are sparse, else densified."""
    xs = [x for x in xs if x is not None]
    if all(isinstance(x, SelectedRows) for x in xs):
        return SelectedRows(np.concatenate([x.rows for x in xs]), np.concatenate([x.values for x in xs]),
                            xs[0].height)
    if not any(isinstance(x, SelectedRows) for x in xs):
        return KR.sum_forward(xs)
    out = None
    for x in xs:
        dense = x.to_dense() if isinstance(x, SelectedRows) else x
        out = dense.copy() if out is None else np.add(out, dense, out=out)
    return out


@kernel_rule('sum')
def _sum_kernel(spec):
    return lambda xs: (sum_values(xs),)


@grad_rule('sum')
def _sum_grad(g):
    og = g.output_grad('Out')
    return [('scale', {'X': list(og)}, {'Out': [name]}, {'scale': 1.0, 'bias': 0.0, 'bias_after_scale': True})
            for name in g.input_grad('X') if name != EMPTY_VAR_NAME]


__all__ = ['elementwise_out_shape', 'matmul_out_shape', 'matmul_v2_out_shape', 'sum_values']


# --- segment rules (how these ops run inside a compiled segment; registry.SEGMENT_RULES) ---------------------------

def _mul_compiles(spec) -> bool:
    """The compiled mul takes a 2-D Y and X flattened before its last dim (every fc layer)."""
    xr, yr = var_rank(spec, 'X'), var_rank(spec, 'Y')
    return xr is not None and yr == 2 and spec.attr('y_num_col_dims') == 1 and spec.attr('x_num_col_dims') == xr - 1


@segment_rule('mul')
def _mul_segment(spec):
    if not _mul_compiles(spec):
        return None
    return segment_op(SB.mul, ['X', 'Y'], ['Out'], (spec.attr('x_num_col_dims'), SB.bind()))


@segment_rule('mul_grad')
def _mul_grad_segment(spec):
    if not _mul_compiles(spec):
        return None
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')
    return segment_op(SB.mul_grad, ['X', 'Y', 'Out@GRAD'], ['X@GRAD' if want_x else None, 'Y@GRAD' if want_y else None],
                      (spec.attr('x_num_col_dims'), want_x, want_y, SB.bind()))


_SEGMENT_BINARY = {'elementwise_add': SE.ADD, 'elementwise_sub': SE.SUB, 'elementwise_mul': SE.MUL,
                   'elementwise_div': SE.DIV, 'elementwise_max': SE.MAX, 'elementwise_min': SE.MIN}


@segment_rule(*_SEGMENT_BINARY)
def _elementwise_segment(spec):
    code, axis = _SEGMENT_BINARY[spec.type], int(spec.attr('axis'))
    return segment_op(SE.binary, ['X', 'Y'], ['Out'], (code, axis), fusion=('add', axis) if code == SE.ADD else None,
                      reuse=(SE.binary_inplace, 0))


@segment_rule(*(t + '_grad' for t in _SEGMENT_BINARY))
def _elementwise_grad_segment(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')
    code, axis = _SEGMENT_BINARY[spec.type[:-len('_grad')]], int(spec.attr('axis'))
    outputs = ['X@GRAD' if want_x else None, 'Y@GRAD' if want_y else None]
    fusion = ('add_grad', axis, want_x, want_y) if code == SE.ADD else None
    return segment_op(SE.binary_grad, ['X', 'Y', 'Out@GRAD'], outputs, (code, axis, want_x, want_y), fusion=fusion)


@segment_rule('scale')
def _scale_segment(spec):
    if spec.has_input('ScaleTensor'):
        return None
    values = (f32(spec.attr('scale')), f32(spec.attr('bias')), 1.0 if spec.attr('bias_after_scale') else 0.0)
    return segment_op(SA.forward, ['X'], ['Out'], (KU.SCALE,) + values, fusion=('act', KU.SCALE) + values,
                      reuse=(SA.forward_inplace, 0))


@segment_rule('mean')
def _mean_segment(spec):
    return segment_op(ST.mean, ['X'], ['Out'])


@segment_rule('mean_grad')
def _mean_grad_segment(spec):
    return segment_op(ST.mean_grad, ['X', 'Out@GRAD'], ['X@GRAD'])


@segment_rule('sum')
def _sum_segment(spec):
    return segment_op(ST.add_n, ['X'], ['Out'])
