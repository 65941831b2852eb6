"""ONNX rules for network ops: conv2d (and depthwise, transpose), pool2d (and max_pool2d_with_index), batch_norm,
layer_norm, softmax, log_softmax, dropout in inference, and embeddings (lookup_table, lookup_table_v2).

Layouts: NCHW only (ONNX's Conv and pools are NCHW); an NHWC op stops the export with its name. Paddings: Paddle's
4-element form is [top, bottom, left, right], ONNX's [top, left, bottom, right]; SAME is ONNX's SAME_UPPER (the
extra pixel at the end, as Paddle puts it).
"""
from __future__ import annotations

import numpy as np

from .converter import Context, OnnxExportError, converts, onnx_dtype


def _pair(value) -> list:
    return [int(value)] * 2 if isinstance(value, int) else [int(v) for v in value]


def _nchw(ctx: Context, op, key: str = 'data_format') -> None:
    fmt = ctx.attr(op, key, 'NCHW')
    if fmt not in ('NCHW', 'AnyLayout'):
        raise OnnxExportError('op %s with %s=%s is not exported: only NCHW is' % (op.type, key, fmt))


def _pad_attrs(op, paddings, algorithm: str) -> dict:
    if algorithm == 'SAME':
        return {'auto_pad': 'SAME_UPPER'}
    if algorithm == 'VALID':
        return {'pads': [0, 0, 0, 0]}
    p = [int(v) for v in paddings]
    if len(p) == 2:
        return {'pads': [p[0], p[1], p[0], p[1]]}
    if len(p) == 4:
        return {'pads': [p[0], p[2], p[1], p[3]]}
    raise OnnxExportError('op %s: paddings %s must have 2 or 4 elements' % (op.type, p))


@converts('conv2d', 'depthwise_conv2d')
def _conv(ctx: Context, op) -> None:
    _nchw(ctx, op)
    inputs = [ctx.input(op, 'Input'), ctx.input(op, 'Filter')]
    if ctx.has_input(op, 'Bias'):
        inputs.append(ctx.input(op, 'Bias'))
    algorithm = ctx.attr(op, 'padding_algorithm', 'EXPLICIT')
    dilations = [1, 1] if algorithm == 'SAME' else _pair(ctx.attr(op, 'dilations', [1, 1]))
    kernel = ctx.shape(ctx.input(op, 'Filter'))[2:]
    ctx.node('Conv', inputs, ctx.output(op, 'Output'), kernel_shape=kernel, strides=_pair(ctx.attr(op, 'strides')),
             dilations=dilations, group=int(ctx.attr(op, 'groups', 1) or 1),
             **_pad_attrs(op, ctx.attr(op, 'paddings', [0, 0]), algorithm))


@converts('conv2d_transpose', 'depthwise_conv2d_transpose')
def _conv_transpose(ctx: Context, op) -> None:
    _nchw(ctx, op)
    algorithm = ctx.attr(op, 'padding_algorithm', 'EXPLICIT')
    if algorithm == 'SAME':
        raise OnnxExportError('op %s with padding_algorithm SAME is not exported' % op.type)
    attrs = _pad_attrs(op, ctx.attr(op, 'paddings', [0, 0]), algorithm)
    output_padding = ctx.attr(op, 'output_padding', [])
    if output_padding:
        attrs['output_padding'] = _pair(output_padding)
    output_size = ctx.attr(op, 'output_size', [])
    if output_size:
        x_shape, w_shape = ctx.shape(ctx.input(op, 'Input')), ctx.shape(ctx.input(op, 'Filter'))
        strides, dilations = _pair(ctx.attr(op, 'strides')), _pair(ctx.attr(op, 'dilations', [1, 1]))
        pads = attrs['pads']
        natural = [(x_shape[2 + i] - 1) * strides[i] - pads[i] - pads[i + 2] + dilations[i] * (w_shape[2 + i] - 1) + 1
                   for i in range(2)]
        attrs['output_padding'] = [int(o) - n for o, n in zip(_pair(output_size), natural)]
    ctx.node('ConvTranspose', [ctx.input(op, 'Input'), ctx.input(op, 'Filter')], ctx.output(op, 'Output'),
             kernel_shape=ctx.shape(ctx.input(op, 'Filter'))[2:], strides=_pair(ctx.attr(op, 'strides')),
             dilations=_pair(ctx.attr(op, 'dilations', [1, 1])), group=int(ctx.attr(op, 'groups', 1) or 1), **attrs)


@converts('pool2d', 'max_pool2d_with_index')
def _pool2d(ctx: Context, op) -> None:
    """max_pool2d_with_index (adaptive max pooling's op) is a max pool2d; its Mask output is not exported."""
    _nchw(ctx, op)
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    is_max = op.type == 'max_pool2d_with_index' or ctx.attr(op, 'pooling_type', 'max') == 'max'
    ksize = _pair(ctx.attr(op, 'ksize'))
    strides = _pair(ctx.attr(op, 'strides', [1, 1]))
    pad_attrs = _pad_attrs(op, ctx.attr(op, 'paddings', [0, 0]), ctx.attr(op, 'padding_algorithm', 'EXPLICIT'))
    if ctx.attr(op, 'adaptive', False):
        if ksize == [1, 1]:
            ctx.node('GlobalMaxPool' if is_max else 'GlobalAveragePool', [x], out)
            return
        h, w = ctx.shape(x)[2:]
        if h < 0 or w < 0 or h % ksize[0] or w % ksize[1]:
            raise OnnxExportError('op pool2d: adaptive pooling to %s is exported only when the input size (%s) is '
                                  'known and a multiple of it' % (ksize, [h, w]))
        strides = ksize = [h // ksize[0], w // ksize[1]]
        pad_attrs = {'pads': [0, 0, 0, 0]}
    elif ctx.attr(op, 'global_pooling', False):
        ctx.node('GlobalMaxPool' if is_max else 'GlobalAveragePool', [x], out)
        return
    attrs = dict(kernel_shape=ksize, strides=strides, ceil_mode=1 if ctx.attr(op, 'ceil_mode', False) else 0,
                 **pad_attrs)
    if is_max:
        ctx.node('MaxPool', [x], out, **attrs)
    else:
        ctx.node('AveragePool', [x], out, count_include_pad=0 if ctx.attr(op, 'exclusive', True) else 1, **attrs)


@converts('batch_norm')
def _batch_norm(ctx: Context, op) -> None:
    """Inference form: the moving statistics (Mean, Variance) normalise, as Paddle's is_test run does."""
    _nchw(ctx, op, 'data_layout')
    x = ctx.input(op, 'X')
    if ctx.rank(x) < 2:
        raise OnnxExportError('op batch_norm of a %d-D input is not exported' % ctx.rank(x))
    ctx.node('BatchNormalization', [x, ctx.input(op, 'Scale'), ctx.input(op, 'Bias'), ctx.input(op, 'Mean'),
                                    ctx.input(op, 'Variance')], ctx.output(op, 'Y'),
             epsilon=float(ctx.attr(op, 'epsilon', 1e-5)))


@converts('layer_norm')
def _layer_norm(ctx: Context, op) -> None:
    """Opset 13 has no LayerNormalization: (x - mean) / sqrt(var + eps) * scale + bias over the trailing dims."""
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Y')
    shape = ctx.shape(x)
    begin = int(ctx.attr(op, 'begin_norm_axis', 1))
    axes = list(range(begin, len(shape)))
    norm_shape = shape[begin:]
    mean = ctx.node('ReduceMean', [x], axes=axes, keepdims=1)
    centred = ctx.node('Sub', [x, mean])
    var = ctx.node('ReduceMean', [ctx.node('Mul', [centred, centred])], axes=axes, keepdims=1)
    std = ctx.node('Sqrt', [ctx.node('Add', [var, ctx.scalar_like(float(ctx.attr(op, 'epsilon', 1e-5)), x)])])
    y = ctx.node('Div', [centred, std])
    if (ctx.has_input(op, 'Scale') or ctx.has_input(op, 'Bias')) and min(norm_shape) < 0:
        raise OnnxExportError('op layer_norm: the normalised dims %s must be known to apply Scale and Bias'
                              % norm_shape)
    if ctx.has_input(op, 'Scale'):
        y = ctx.node('Mul', [y, ctx.reshape(ctx.input(op, 'Scale'), norm_shape)])
    if ctx.has_input(op, 'Bias'):
        y = ctx.node('Add', [y, ctx.reshape(ctx.input(op, 'Bias'), norm_shape)])
    ctx.identity(y, out)


@converts('softmax')
def _softmax(ctx: Context, op) -> None:
    ctx.node('Softmax', [ctx.input(op, 'X')], ctx.output(op, 'Out'), axis=int(ctx.attr(op, 'axis', -1)))


@converts('log_softmax')
def _log_softmax(ctx: Context, op) -> None:
    ctx.node('LogSoftmax', [ctx.input(op, 'X')], ctx.output(op, 'Out'), axis=int(ctx.attr(op, 'axis', -1)))


@converts('dropout')
def _dropout(ctx: Context, op) -> None:
    """Inference: `downgrade_in_infer` (1.8's default) scales by 1 - p; `upscale_in_train` passes x through."""
    x, out = ctx.input(op, 'X'), ctx.output(op, 'Out')
    if ctx.attr(op, 'dropout_implementation', 'downgrade_in_infer') == 'upscale_in_train':
        ctx.identity(x, out)
    else:
        keep = 1.0 - float(ctx.attr(op, 'dropout_prob', 0.5))
        ctx.node('Mul', [x, ctx.scalar_like(keep, x)], out)


@converts('lookup_table', 'lookup_table_v2')
def _lookup_table(ctx: Context, op) -> None:
    """Gather rows of W; lookup_table's Ids end in a dim of 1, which goes; rows at padding_idx come out zero."""
    w, ids, out = ctx.input(op, 'W'), ctx.input(op, 'Ids'), ctx.output(op, 'Out')
    if op.type == 'lookup_table':
        ids = ctx.node('Squeeze', [ids, ctx.ints([-1])])
    padding_idx = int(ctx.attr(op, 'padding_idx', -1))
    if padding_idx == -1:
        ctx.node('Gather', [w, ids], out, axis=0)
        return
    rows = ctx.node('Gather', [w, ids], axis=0)
    keep = ctx.node('Not', [ctx.node('Equal', [ids, ctx.const(np.asarray(padding_idx, ctx.np_dtype(
        ctx.input(op, 'Ids'))))])])
    mask = ctx.node('Unsqueeze', [ctx.node('Cast', [keep], to=_float_type(ctx, w)), ctx.ints([-1])])
    ctx.node('Mul', [rows, mask], out)


def _float_type(ctx: Context, name: str) -> int:
    return int(onnx_dtype(ctx.np_dtype(name)))
