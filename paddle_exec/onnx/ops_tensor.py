"""ONNX rules for tensor-shaping ops: reshape(2), transpose(2), concat, split, stack, squeeze(2), unsqueeze(2),
flatten(2), flatten_contiguous_range, slice, expand(_v2), gather, shape, fill_constant, assign, assign_value,
arg_max / arg_min and top_k (v1, v2).

Shapes given as attributes become int64 constants (opset 13 takes axes, shapes and splits as inputs). Paddle's
reshape and ONNX's agree on 0 (copy the input's dim) and -1 (infer). Inputs that carry a shape at run time
(ShapeTensor, StartsTensor, ...) are exported where ONNX has the same input, and otherwise stop the export with the
op and input named.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import to_numpy
from .converter import Context, OnnxExportError, converts, onnx_dtype


def _no_tensor_inputs(ctx: Context, op, slots) -> None:
    for slot in slots:
        if ctx.has_input(op, slot):
            raise OnnxExportError('op %s with a %s input is not exported; give the value as an attribute'
                                  % (op.type, slot))


@converts('reshape', 'reshape2')
def _reshape(ctx: Context, op) -> None:
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    if ctx.has_input(op, 'ShapeTensor'):
        parts = [ctx.node('Cast', [ctx.reshape(n, [1])], to=7) for n in ctx.inputs(op, 'ShapeTensor')]
        ctx.node('Reshape', [x, ctx.node('Concat', parts, axis=0)], out)
    elif ctx.has_input(op, 'Shape'):
        ctx.node('Reshape', [x, ctx.node('Cast', [ctx.input(op, 'Shape')], to=7)], out)
    else:
        ctx.reshape(x, [int(d) for d in ctx.attr(op, 'shape')], out)


@converts('transpose', 'transpose2')
def _transpose(ctx: Context, op) -> None:
    ctx.node('Transpose', [ctx.input(op, 'X')], ctx.output(op, 'Out'), perm=[int(a) for a in ctx.attr(op, 'axis')])


@converts('concat')
def _concat(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['AxisTensor'])
    ctx.node('Concat', ctx.inputs(op, 'X'), ctx.output(op, 'Out'), axis=int(ctx.attr(op, 'axis', 0)))


@converts('split')
def _split(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['AxisTensor', 'SectionsTensorList'])
    x, outs = ctx.input(op, 'X'), op.outputs['Out']
    axis = int(ctx.attr(op, 'axis', 0))
    sections = [int(s) for s in ctx.attr(op, 'sections', [])]
    if not sections:                    # `num` equal parts
        ctx.node('Split', [x], outs, axis=axis)
        return
    if -1 in sections:
        size = ctx.shape(x)[axis]
        if size < 0:
            raise OnnxExportError('op split: a -1 section needs the size of axis %d, which is unknown' % axis)
        sections[sections.index(-1)] = size - sum(s for s in sections if s != -1)
    ctx.node('Split', [x, ctx.ints(sections)], outs, axis=axis)


@converts('stack')
def _stack(ctx: Context, op) -> None:
    axis = int(ctx.attr(op, 'axis', 0))
    parts = [ctx.node('Unsqueeze', [n, ctx.ints([axis])]) for n in ctx.inputs(op, 'X')]
    ctx.node('Concat', parts, ctx.output(op, 'Y'), axis=axis)


@converts('squeeze', 'squeeze2')
def _squeeze(ctx: Context, op) -> None:
    """Paddle drops a listed axis only when its size is 1; ONNX requires it, so the sizes must be known."""
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    shape = ctx.shape(x)
    axes = [int(a) % len(shape) for a in ctx.attr(op, 'axes', [])]
    if not axes:
        axes = [i for i, d in enumerate(shape) if d == 1]
    if any(shape[a] < 0 for a in axes):
        raise OnnxExportError('op %s: the size of axes %s of %r is unknown, and Paddle squeezes them only when it is '
                              '1' % (op.type, axes, x))
    axes = [a for a in axes if shape[a] == 1]
    if axes:
        ctx.node('Squeeze', [x, ctx.ints(axes)], out)
    else:
        ctx.identity(x, out)


@converts('unsqueeze', 'unsqueeze2')
def _unsqueeze(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['AxesTensor', 'AxesTensorList'])
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    # Paddle inserts the axes one by one, each against the rank so far; ONNX takes them against the output rank
    rank = ctx.rank(x)
    placed: list = []
    for a in (int(a) for a in ctx.attr(op, 'axes')):
        a = a + rank + len(placed) + 1 if a < 0 else a
        placed = [p + 1 if p >= a else p for p in placed] + [a]
    ctx.node('Unsqueeze', [x, ctx.ints(sorted(placed))], out)


@converts('flatten', 'flatten2')
def _flatten(ctx: Context, op) -> None:
    ctx.node('Flatten', [ctx.input(op, 'X')], ctx.output(op, 'Out'), axis=int(ctx.attr(op, 'axis', 1)))


@converts('flatten_contiguous_range')
def _flatten_range(ctx: Context, op) -> None:
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    rank = ctx.rank(x)
    start, stop = int(ctx.attr(op, 'start_axis', 1)) % max(rank, 1), int(ctx.attr(op, 'stop_axis', -1)) % max(rank, 1)
    parts = []
    if start > 0:
        parts.append(ctx.shape_of(x, 0, start))
    parts.append(ctx.ints([-1]))
    if stop < rank - 1:
        parts.append(ctx.shape_of(x, stop + 1))
    ctx.node('Reshape', [x, ctx.node('Concat', parts, axis=0) if len(parts) > 1 else parts[0]], out)


@converts('slice')
def _slice(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['StartsTensor', 'EndsTensor', 'StartsTensorList', 'EndsTensorList'])
    x, out = ctx.input(op, 'Input'), ctx.output(op, 'Out')
    axes = [int(a) for a in ctx.attr(op, 'axes')]
    sliced = ctx.node('Slice', [x, ctx.ints(ctx.attr(op, 'starts')), ctx.ints(ctx.attr(op, 'ends')), ctx.ints(axes)])
    decrease = [int(a) for a in ctx.attr(op, 'decrease_axis', [])]
    if not decrease:
        ctx.identity(sliced, out)
    elif len(decrease) == ctx.rank(x):         # Paddle keeps one dim when every dim is decreased
        ctx.reshape(sliced, [1], out)
    else:
        ctx.node('Squeeze', [sliced, ctx.ints(decrease)], out)


@converts('expand')
def _expand(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['ExpandTimes', 'expand_times_tensor'])
    ctx.node('Tile', [ctx.input(op, 'X'), ctx.ints(ctx.attr(op, 'expand_times'))], ctx.output(op, 'Out'))


@converts('expand_v2')
def _expand_v2(ctx: Context, op) -> None:
    """Paddle's -1 keeps the input's dim; ONNX Expand broadcasts, so a 1 there does the same."""
    _no_tensor_inputs(ctx, op, ['Shape', 'expand_shapes_tensor'])
    shape = [1 if int(d) == -1 else int(d) for d in ctx.attr(op, 'shape')]
    ctx.node('Expand', [ctx.input(op, 'X'), ctx.ints(shape)], ctx.output(op, 'Out'))


@converts('gather')
def _gather(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['Axis'])
    ctx.node('Gather', [ctx.input(op, 'X'), ctx.input(op, 'Index')], ctx.output(op, 'Out'),
             axis=int(ctx.attr(op, 'axis', 0)))


@converts('shape')
def _shape(ctx: Context, op) -> None:
    """Paddle's shape op gives int32."""
    ctx.node('Cast', [ctx.node('Shape', [ctx.input(op, 'Input')])], ctx.output(op, 'Out'),
             to=int(onnx_dtype(np.int32)))


@converts('fill_constant')
def _fill_constant(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['ShapeTensor', 'ShapeTensorList', 'ValueTensor'])
    dtype = np.dtype(to_numpy(ctx.attr(op, 'dtype')))
    text = ctx.attr(op, 'str_value', '')
    value = float(text) if text else ctx.attr(op, 'value', 0.0)
    array = np.full([int(d) for d in ctx.attr(op, 'shape')], value, dtype=dtype)
    ctx.identity(ctx.const(array, hint='fill'), ctx.output(op, 'Out'))


@converts('assign')
def _assign(ctx: Context, op) -> None:
    ctx.identity(ctx.input(op, 'X'), ctx.output(op, 'Out'))


@converts('arg_max', 'arg_min')
def _arg_max(ctx: Context, op) -> None:
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    if ctx.attr(op, 'flatten', False):
        x = ctx.reshape(x, [-1])
    keep = 1 if ctx.attr(op, 'keepdims', False) else 0
    index = ctx.node('ArgMax' if op.type == 'arg_max' else 'ArgMin', [x], axis=int(ctx.attr(op, 'axis', -1)),
                     keepdims=keep)
    code = int(ctx.attr(op, 'dtype', -1))
    dtype = np.dtype(np.int64) if code == -1 else np.dtype(to_numpy(code))     # -1: Paddle's int64 default
    if dtype == np.int64:
        ctx.identity(index, out)
    else:
        ctx.node('Cast', [index], out, to=int(onnx_dtype(dtype)))


@converts('top_k', 'top_k_v2')
def _top_k(ctx: Context, op) -> None:
    _no_tensor_inputs(ctx, op, ['K'])
    x = ctx.input(op, 'X')
    attrs = {'axis': int(ctx.attr(op, 'axis', -1))}
    if op.type == 'top_k_v2':
        attrs.update(largest=int(bool(ctx.attr(op, 'largest', True))), sorted=int(bool(ctx.attr(op, 'sorted', True))))
    ctx.node('TopK', [x, ctx.ints([int(ctx.attr(op, 'k', 1))])],
             [ctx.output(op, 'Out'), ctx.output(op, 'Indices')], **attrs)


_VALUE_ATTRS = ('fp32_values', 'int32_values', 'int64_values', 'bool_values', 'values')


@converts('assign_value')
def _assign_value(ctx: Context, op) -> None:
    """A constant: the values live in the attribute named after the dtype (Paddle's), or in `values`."""
    dtype = np.dtype(to_numpy(ctx.attr(op, 'dtype')))
    values = next((ctx.attr(op, key) for key in _VALUE_ATTRS if ctx.attr(op, key)), [])
    array = np.asarray(values, dtype=dtype).reshape([int(d) for d in ctx.attr(op, 'shape')])
    ctx.identity(ctx.const(array, hint='value'), ctx.output(op, 'Out'))
