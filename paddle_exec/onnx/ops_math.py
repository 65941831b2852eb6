"""ONNX rules for math ops: elementwise_* (with Paddle's `axis` broadcasting), comparisons and logical ops, scale,
mul / matmul / matmul_v2, sum, mean and the reduce_* family, cast, clip, and the activations.

Paddle aligns the lower-rank operand of an elementwise op at `axis` (-1: trailing, as numpy) and drops its
trailing 1s that stick out; ONNX broadcasts numpy-style. When the two differ, the smaller operand is reshaped to
its dims followed by 1s, which numpy broadcasting then aligns where Paddle would.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.dtype import to_numpy
from .converter import Context, OnnxExportError, converts, onnx_dtype

_BINARY = {'elementwise_add': 'Add', 'elementwise_sub': 'Sub', 'elementwise_mul': 'Mul', 'elementwise_div': 'Div',
           'elementwise_max': 'Max', 'elementwise_min': 'Min', 'elementwise_pow': 'Pow',
           'equal': 'Equal', 'less_than': 'Less', 'less_equal': 'LessOrEqual', 'greater_than': 'Greater',
           'greater_equal': 'GreaterOrEqual', 'logical_and': 'And', 'logical_or': 'Or', 'logical_xor': 'Xor'}


def aligned_operands(ctx: Context, op) -> tuple[str, str]:
    """X and Y, the lower-rank one reshaped so that numpy broadcasting aligns it at Paddle's `axis`."""
    x, y = ctx.input(op, 'X'), ctx.input(op, 'Y')
    rx, ry = ctx.rank(x), ctx.rank(y)
    if rx == ry:
        return x, y
    big, small = (x, y) if rx > ry else (y, x)
    rank = max(rx, ry)
    small_shape = ctx.shape(small)
    axis = ctx.attr(op, 'axis', -1)
    start = rank - len(small_shape) if axis == -1 else (axis + rank if axis < 0 else axis)
    trimmed = list(small_shape)
    while trimmed and trimmed[-1] == 1 and start + len(trimmed) > rank:
        trimmed.pop()
    if start + len(trimmed) == rank:
        return x, y
    # 0 copies the input's dim at the same position (Reshape's rule), so unknown dims of the operand are fine
    target = [d if d > 0 else 0 for d in trimmed] + [1] * (rank - start - len(trimmed))
    moved = ctx.reshape(small, target)
    return (big, moved) if rx > ry else (moved, big)


@converts(*_BINARY)
def _binary(ctx: Context, op) -> None:
    x, y = aligned_operands(ctx, op)
    ctx.node(_BINARY[op.type], [x, y], ctx.output(op, 'Out'))


@converts('not_equal')
def _not_equal(ctx: Context, op) -> None:
    x, y = aligned_operands(ctx, op)
    ctx.node('Not', [ctx.node('Equal', [x, y])], ctx.output(op, 'Out'))


@converts('logical_not')
def _logical_not(ctx: Context, op) -> None:
    ctx.node('Not', [ctx.input(op, 'X')], ctx.output(op, 'Out'))


@converts('scale')
def _scale(ctx: Context, op) -> None:
    if ctx.has_input(op, 'ScaleTensor'):
        raise OnnxExportError('scale with a ScaleTensor input is not exported; use the scale attribute')
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    scale, bias = float(ctx.attr(op, 'scale', 1.0)), float(ctx.attr(op, 'bias', 0.0))
    if bias == 0.0:
        if scale == 1.0:
            ctx.identity(x, out)
        else:
            ctx.node('Mul', [x, ctx.scalar_like(scale, x)], out)
    elif ctx.attr(op, 'bias_after_scale', True):
        ctx.node('Add', [ctx.node('Mul', [x, ctx.scalar_like(scale, x)]), ctx.scalar_like(bias, x)], out)
    else:
        ctx.node('Mul', [ctx.node('Add', [x, ctx.scalar_like(bias, x)]), ctx.scalar_like(scale, x)], out)


@converts('mul')
def _mul(ctx: Context, op) -> None:
    """X flattened to 2-D at x_num_col_dims, Y at y_num_col_dims, a MatMul, then X's leading dims + Y's trailing."""
    x, y, out = ctx.input(op, 'X'), ctx.input(op, 'Y'), ctx.output(op, 'Out')
    xd, yd = ctx.attr(op, 'x_num_col_dims', 1), ctx.attr(op, 'y_num_col_dims', 1)
    rx, ry = ctx.rank(x), ctx.rank(y)
    x2 = x if rx == 2 and xd == 1 else ctx.node('Flatten', [x], axis=xd)
    y2 = y if ry == 2 and yd == 1 else ctx.node('Flatten', [y], axis=yd)
    if xd == rx - 1 and yd == ry - 1 and rx == 2 and ry == 2:
        ctx.node('MatMul', [x2, y2], out)
        return
    product = ctx.node('MatMul', [x2, y2])
    dims = ctx.node('Concat', [ctx.shape_of(x, 0, xd), ctx.shape_of(y, yd)], axis=0)
    ctx.node('Reshape', [product, dims], out)


def _swap_last_two(ctx: Context, name: str) -> str:
    rank = ctx.rank(name)
    if rank < 2:
        raise OnnxExportError('matmul: transposing %r needs at least 2 dims, it has %d' % (name, rank))
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return ctx.node('Transpose', [name], perm=perm)


def _matmul(ctx: Context, op, trans_x: bool, trans_y: bool, alpha: float) -> None:
    x, y, out = ctx.input(op, 'X'), ctx.input(op, 'Y'), ctx.output(op, 'Out')
    if ctx.rank(x) < 2 or ctx.rank(y) < 2:
        raise OnnxExportError('%s of a 1-D operand is not exported (reshape it to 2-D first)' % op.type)
    x = _swap_last_two(ctx, x) if trans_x else x
    y = _swap_last_two(ctx, y) if trans_y else y
    if alpha == 1.0:
        ctx.node('MatMul', [x, y], out)
    else:
        ctx.node('Mul', [ctx.node('MatMul', [x, y]), ctx.scalar_like(alpha, ctx.input(op, 'X'))], out)


@converts('matmul')
def _matmul_v1(ctx: Context, op) -> None:
    _matmul(ctx, op, ctx.attr(op, 'transpose_X', False), ctx.attr(op, 'transpose_Y', False),
            float(ctx.attr(op, 'alpha', 1.0)))


@converts('matmul_v2')
def _matmul_v2(ctx: Context, op) -> None:
    _matmul(ctx, op, ctx.attr(op, 'trans_x', False), ctx.attr(op, 'trans_y', False), 1.0)


@converts('sum')
def _sum(ctx: Context, op) -> None:
    ctx.node('Sum', ctx.inputs(op, 'X'), ctx.output(op, 'Out'))


def _keep_paddle_shape(ctx: Context, value: str, out_name: str) -> None:
    """A reduction to a 0-d tensor where Paddle's variable has shape [1]: reshape to [1]."""
    if ctx.var(out_name).has_shape() and list(ctx.shape(out_name)) == [1]:
        ctx.reshape(value, [1], out_name)
    else:
        ctx.identity(value, out_name)


@converts('mean')
def _mean(ctx: Context, op) -> None:
    reduced = ctx.node('ReduceMean', [ctx.input(op, 'X')], keepdims=0)
    ctx.reshape(reduced, [1], ctx.output(op, 'Out'))


_REDUCE = {'reduce_sum': 'ReduceSum', 'reduce_mean': 'ReduceMean', 'reduce_max': 'ReduceMax',
           'reduce_min': 'ReduceMin', 'reduce_prod': 'ReduceProd'}


@converts(*_REDUCE)
def _reduce(ctx: Context, op) -> None:
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    rank = ctx.rank(x)
    dims = ctx.attr(op, 'dim', [0])
    dims = [dims] if isinstance(dims, int) else list(dims)
    axes = list(range(rank)) if ctx.attr(op, 'reduce_all', False) or not dims else [d % rank for d in dims]
    keep = 1 if ctx.attr(op, 'keep_dim', False) else 0
    onnx_type = _REDUCE[op.type]
    if onnx_type == 'ReduceSum':            # opset 13: axes is an input for ReduceSum only
        reduced = ctx.node(onnx_type, [x, ctx.ints(axes)], keepdims=keep)
    else:
        reduced = ctx.node(onnx_type, [x], axes=axes, keepdims=keep)
    _keep_paddle_shape(ctx, reduced, out)


@converts('cast')
def _cast(ctx: Context, op) -> None:
    to = np.dtype(to_numpy(ctx.attr(op, 'out_dtype')))
    ctx.node('Cast', [ctx.input(op, 'X')], ctx.output(op, 'Out'), to=int(onnx_dtype(to)))


@converts('clip')
def _clip(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    if ctx.has_input(op, 'Min') or ctx.has_input(op, 'Max'):
        raise OnnxExportError('clip with Min/Max tensor inputs is not exported; use the min and max attributes')
    ctx.node('Clip', [x, ctx.scalar_like(ctx.attr(op, 'min'), x), ctx.scalar_like(ctx.attr(op, 'max'), x)],
             ctx.output(op, 'Out'))


# --- activations ----------------------------------------------------------------------------------------------------

_UNARY = {'relu': 'Relu', 'sigmoid': 'Sigmoid', 'tanh': 'Tanh', 'exp': 'Exp', 'log': 'Log', 'sqrt': 'Sqrt',
          'abs': 'Abs', 'floor': 'Floor', 'ceil': 'Ceil', 'reciprocal': 'Reciprocal', 'sin': 'Sin', 'cos': 'Cos',
          'erf': 'Erf', 'softsign': 'Softsign', 'sign': 'Sign', 'round': 'Round'}


@converts(*_UNARY)
def _unary(ctx: Context, op) -> None:
    ctx.node(_UNARY[op.type], [ctx.input(op, 'X')], ctx.output(op, 'Out'))


@converts('square')
def _square(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    ctx.node('Mul', [x, x], ctx.output(op, 'Out'))


@converts('rsqrt')
def _rsqrt(ctx: Context, op) -> None:
    ctx.node('Reciprocal', [ctx.node('Sqrt', [ctx.input(op, 'X')])], ctx.output(op, 'Out'))


@converts('pow')
def _pow(ctx: Context, op) -> None:
    if ctx.has_input(op, 'FactorTensor'):
        raise OnnxExportError('pow with a FactorTensor input is not exported; use the factor attribute')
    x = ctx.input(op, 'X')
    ctx.node('Pow', [x, ctx.scalar_like(ctx.attr(op, 'factor', 1.0), x)], ctx.output(op, 'Out'))


@converts('leaky_relu')
def _leaky_relu(ctx: Context, op) -> None:
    ctx.node('LeakyRelu', [ctx.input(op, 'X')], ctx.output(op, 'Out'), alpha=float(ctx.attr(op, 'alpha', 0.02)))


@converts('elu')
def _elu(ctx: Context, op) -> None:
    ctx.node('Elu', [ctx.input(op, 'X')], ctx.output(op, 'Out'), alpha=float(ctx.attr(op, 'alpha', 1.0)))


@converts('selu')
def _selu(ctx: Context, op) -> None:
    ctx.node('Selu', [ctx.input(op, 'X')], ctx.output(op, 'Out'), alpha=float(ctx.attr(op, 'alpha')),
             gamma=float(ctx.attr(op, 'scale')))


@converts('relu6')
def _relu6(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    ctx.node('Clip', [x, ctx.scalar_like(0.0, x), ctx.scalar_like(ctx.attr(op, 'threshold', 6.0), x)],
             ctx.output(op, 'Out'))


@converts('brelu')
def _brelu(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    ctx.node('Clip', [x, ctx.scalar_like(ctx.attr(op, 't_min', 0.0), x),
                      ctx.scalar_like(ctx.attr(op, 't_max', 24.0), x)], ctx.output(op, 'Out'))


@converts('hard_sigmoid')
def _hard_sigmoid(ctx: Context, op) -> None:
    ctx.node('HardSigmoid', [ctx.input(op, 'X')], ctx.output(op, 'Out'), alpha=float(ctx.attr(op, 'slope', 0.2)),
             beta=float(ctx.attr(op, 'offset', 0.5)))


@converts('hard_swish')
def _hard_swish(ctx: Context, op) -> None:
    """x * min(max(x + offset, 0), threshold) / scale."""
    x = ctx.input(op, 'X')
    shifted = ctx.node('Add', [x, ctx.scalar_like(ctx.attr(op, 'offset', 3.0), x)])
    gate = ctx.node('Clip', [shifted, ctx.scalar_like(0.0, x), ctx.scalar_like(ctx.attr(op, 'threshold', 6.0), x)])
    ctx.node('Div', [ctx.node('Mul', [x, gate]), ctx.scalar_like(ctx.attr(op, 'scale', 6.0), x)],
             ctx.output(op, 'Out'))


@converts('swish')
def _swish(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    beta = float(ctx.attr(op, 'beta', 1.0))
    scaled = x if beta == 1.0 else ctx.node('Mul', [x, ctx.scalar_like(beta, x)])
    ctx.node('Mul', [x, ctx.node('Sigmoid', [scaled])], ctx.output(op, 'Out'))


@converts('softplus')
def _softplus(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    beta = float(ctx.attr(op, 'beta', 1.0))
    if beta == 1.0:
        ctx.node('Softplus', [x], ctx.output(op, 'Out'))
    else:       # log(1 + exp(beta x)) / beta
        soft = ctx.node('Softplus', [ctx.node('Mul', [x, ctx.scalar_like(beta, x)])])
        ctx.node('Div', [soft, ctx.scalar_like(beta, x)], ctx.output(op, 'Out'))


@converts('gelu')
def _gelu(ctx: Context, op) -> None:
    """Opset 13 has no Gelu: 0.5 x (1 + erf(x / sqrt 2)), or the tanh form when `approximate`."""
    x = ctx.input(op, 'X')
    if ctx.attr(op, 'approximate', False):
        cube = ctx.node('Mul', [ctx.node('Mul', [x, x]), x])
        inner = ctx.node('Add', [x, ctx.node('Mul', [cube, ctx.scalar_like(0.044715, x)])])
        t = ctx.node('Tanh', [ctx.node('Mul', [inner, ctx.scalar_like(math.sqrt(2.0 / math.pi), x)])])
    else:
        t = ctx.node('Erf', [ctx.node('Div', [x, ctx.scalar_like(math.sqrt(2.0), x)])])
    half_x = ctx.node('Mul', [x, ctx.scalar_like(0.5, x)])
    ctx.node('Mul', [half_x, ctx.node('Add', [t, ctx.scalar_like(1.0, x)])], ctx.output(op, 'Out'))


@converts('logsigmoid')
def _logsigmoid(ctx: Context, op) -> None:
    x = ctx.input(op, 'X')
    ctx.node('Neg', [ctx.node('Softplus', [ctx.node('Neg', [x])])], ctx.output(op, 'Out'))
