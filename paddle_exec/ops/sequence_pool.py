"""Sequence ops that pool or mix the rows of each sequence: sequence_pool (and through it sequence_first_step /
sequence_last_step), sequence_softmax and sequence_conv, with their gradients, as Paddle 1.8 runs them.

    sequence_pool(X) -> Out, MaxIndex      attrs pooltype (AVERAGE, SUM, SQRT, MAX, FIRST, LAST), is_test,
                                           pad_value (what an empty sequence gives)
        LoD: pools the last level; Out keeps the levels above it (a 2-level X gives Out its top level), so the
        compile-time lod_level of Out is X's minus one. Grad: sequence_pool_grad(X, MaxIndex, Out@GRAD).
    sequence_softmax(X) -> Out             softmax within each sequence of the last level; X holds one value
                                           per row. Out shares X's LoD. Grad: (Out, Out@GRAD, X) -> X@GRAD.
    sequence_conv(X, Filter, PaddingData?) -> Out
                                           attrs contextStart, contextLength, contextStride (1 only),
                                           paddingTrainable: a context projection of contextLength rows per row
                                           (within the sequence; zero or trainable padding outside), times
                                           Filter [contextLength * D, filters]. Out shares X's LoD.

Each reads its input's LoD as a kernel input (LoD rule `read('X')`); the numerics are kernels/sequence_pool.py.
An input without LoD is refused with Paddle's "does not contain LoD information" naming the variable.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.registry import GradSpec, _grad_shape_rule, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..kernels import sequence_pool as KP
from ._lod import input_name, last_level, rows2d

__all__ = []


# --- sequence_pool -------------------------------------------------------------------------------------------------

defop('sequence_pool', ['X'], ['Out', 'MaxIndex'], {'is_test': False, 'pooltype': 'AVERAGE', 'pad_value': 0.0},
      dispensable=['MaxIndex'])
defop('sequence_pool_grad', ['X', 'MaxIndex', 'Out@GRAD'], ['X@GRAD'],
      {'is_test': False, 'pooltype': 'AVERAGE', 'pad_value': 0.0}, dispensable=['MaxIndex'])


def _pool_mode(pooltype: str) -> int:
    mode = KP.POOL_MODES.get(str(pooltype).upper())
    if mode is None:
        raise ValueError("sequence_pool: pooltype must be one of %s, got %r" % (sorted(KP.POOL_MODES), pooltype))
    return mode


@shape_rule('sequence_pool')
def _pool_shape(ctx):
    _pool_mode(ctx.attr('pooltype'))
    x = ctx.input_var('X')
    shape = (-1,) + tuple(x.shape[1:])
    ctx.set_output('Out', shape, x.dtype)
    if ctx.has_output('MaxIndex'):
        ctx.set_output('MaxIndex', shape)


@lod_rule('sequence_pool')
def _pool_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', max(ctx.levels('X') - 1, 0))


@kernel_rule('sequence_pool')
def _pool_kernel(spec):
    mode = _pool_mode(spec.attr('pooltype'))
    pad_value = float(spec.attr('pad_value'))
    name = input_name(spec, 'X')

    def run(x, x_lod):
        offsets = last_level(x_lod, x, 'SequencePoolOp', name, max_levels=2)
        out, index = KP.pool_forward(rows2d(x), offsets, mode, pad_value)
        out = out.reshape((out.shape[0],) + x.shape[1:])
        index = index.reshape(out.shape) if mode == KP.POOL_MODES['MAX'] else None
        return out, index, x_lod[:-1]
    return run


@grad_rule('sequence_pool')
def _pool_grad_maker(g):
    inputs = {'X': g.input('X'), 'Out@GRAD': g.output_grad('Out')}
    if str(g.attrs.get('pooltype', 'AVERAGE')).upper() == 'MAX':
        inputs['MaxIndex'] = g.output('MaxIndex')
    return [('sequence_pool_grad', inputs, {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


shape_rule('sequence_pool_grad')(_grad_shape_rule)


def _grad_reads_x(ctx):
    ctx.read('X')
    ctx.share('X', 'X@GRAD')


lod_rule('sequence_pool_grad')(_grad_reads_x)


@kernel_rule('sequence_pool_grad')
def _pool_grad_kernel(spec):
    mode = _pool_mode(spec.attr('pooltype'))
    name = input_name(spec, 'X')

    def run(x, index, dout, x_lod):
        offsets = last_level(x_lod, x, 'SequencePoolGradOp', name, max_levels=2)
        dx = KP.pool_backward(rows2d(dout), offsets, mode, None if index is None else rows2d(index), x.shape[0])
        return (dx.reshape(x.shape),)
    return run


# --- sequence_softmax ----------------------------------------------------------------------------------------------

defop('sequence_softmax', ['X'], ['Out'], {'use_cudnn': False, 'data_format': 'AnyLayout'},
      grad=GradSpec(('Out', 'Out@GRAD', 'X'), ('X@GRAD',)))


@shape_rule('sequence_softmax')
def _softmax_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape, x.dtype)


@lod_rule('sequence_softmax')
def _softmax_lod(ctx):
    ctx.read('X')
    ctx.share('X', 'Out')


lod_rule('sequence_softmax_grad')(_grad_reads_x)


def _softmax_offsets(x, x_lod, name: str) -> np.ndarray:
    offsets = last_level(x_lod, x, 'SequenceSoftmaxOp', name)
    if x.size != x.shape[0]:
        raise EnforceNotMet("The width of each timestep in Input(X) of SequenceSoftmaxOp should be 1: '%s' has "
                            "shape %s" % (name, list(x.shape)))
    return offsets


@kernel_rule('sequence_softmax')
def _softmax_kernel(spec):
    name = input_name(spec, 'X')

    def run(x, x_lod):
        offsets = _softmax_offsets(x, x_lod, name)
        return (KP.softmax_forward(x.reshape(-1), offsets).reshape(x.shape),)
    return run


@kernel_rule('sequence_softmax_grad')
def _softmax_grad_kernel(spec):
    name = input_name(spec, 'X')

    def run(out, dout, x, x_lod):
        offsets = _softmax_offsets(x, x_lod, name)
        return (KP.softmax_backward(out.reshape(-1), dout.reshape(-1), offsets).reshape(x.shape),)
    return run


# --- sequence_conv -------------------------------------------------------------------------------------------------

_CONV_ATTRS = {'contextStart': 0, 'contextLength': 1, 'contextStride': 1, 'paddingTrainable': False}
defop('sequence_conv', ['X', 'PaddingData', 'Filter'], ['Out'], _CONV_ATTRS, dispensable=['PaddingData'],
      grad=GradSpec(('X', 'Filter', 'PaddingData', 'Out@GRAD'), ('X@GRAD', 'Filter@GRAD', 'PaddingData@GRAD')))


def _conv_geometry(attr) -> tuple[int, int, int, int]:
    start, length, stride = int(attr('contextStart')), int(attr('contextLength')), int(attr('contextStride'))
    if stride != 1:
        raise ValueError("sequence_conv: currently, SequenceConvOp only supports contextStride=1, got %d" % stride)
    if length < 1:
        raise ValueError("sequence_conv: contextLength must be positive, got %d" % length)
    return start, length, max(0, -start), max(0, start + length - 1)


@shape_rule('sequence_conv')
def _conv_shape(ctx):
    start, length, up_pad, down_pad = _conv_geometry(ctx.attr)
    x, w = ctx.input_var('X'), ctx.input_var('Filter')
    if len(x.shape) != 2 or len(w.shape) != 2:
        raise ValueError("sequence_conv: Input(X) and Input(Filter) must be 2-D, got X %s ('%s') and Filter %s"
                         % (list(x.shape), x.name, list(w.shape)))
    if x.shape[1] > 0 and w.shape[0] > 0 and w.shape[0] != length * x.shape[1]:
        raise ValueError("sequence_conv: Filter's height should be context_length * input_hidden_size: Filter '%s' "
                         "has shape %s, contextLength %d, X '%s' width %d"
                         % (w.name, list(w.shape), length, x.name, x.shape[1]))
    if ctx.attr('paddingTrainable'):
        pad = ctx.input_var('PaddingData')
        if pad is None:
            raise ValueError("sequence_conv: paddingTrainable needs Input(PaddingData)")
        if list(pad.shape) != [up_pad + down_pad, x.shape[1]]:
            raise ValueError("Input(PaddingData)'s shape is not consistent with 'context_start' and "
                             "'context_length'. Received Input(PaddingData) '%s': input rank %d, input shape %s "
                             "(expected [%d, %d])" % (pad.name, len(pad.shape), list(pad.shape), up_pad + down_pad,
                                                      x.shape[1]))
    ctx.set_output('Out', (x.shape[0], w.shape[1]), x.dtype)


@lod_rule('sequence_conv')
def _conv_lod(ctx):
    ctx.read('X')
    ctx.share('X', 'Out')


lod_rule('sequence_conv_grad')(_grad_reads_x)


@kernel_rule('sequence_conv')
def _conv_kernel(spec):
    start, length, _, _ = _conv_geometry(spec.attr)
    trainable = bool(spec.attr('paddingTrainable'))
    name = input_name(spec, 'X')

    def run(x, padding, w, x_lod):
        offsets = last_level(x_lod, x, 'SequenceConvOp', name, max_levels=1)
        col = KP.context_project(x, offsets, start, length, padding if trainable else None)
        return (col @ w,)
    return run


@kernel_rule('sequence_conv_grad')
def _conv_grad_kernel(spec):
    start, length, _, _ = _conv_geometry(spec.attr)
    trainable = bool(spec.attr('paddingTrainable'))
    want_x, want_w = spec.has_output('X@GRAD'), spec.has_output('Filter@GRAD')
    want_pad = trainable and spec.has_output('PaddingData@GRAD')
    name = input_name(spec, 'X')

    def run(x, w, padding, dout, x_lod):
        offsets = last_level(x_lod, x, 'SequenceConvGradOp', name, max_levels=1)
        dw = dx = dpad = None
        if want_w:
            col = KP.context_project(x, offsets, start, length, padding if trainable else None)
            dw = col.T @ dout
        if want_x or want_pad:
            dcol = dout @ w.T
            dx, dpad = KP.context_project_backward(dcol, offsets, start, length, x.shape[0],
                                                   padding.shape if trainable else None)
        return (dx if want_x else None), dw, (dpad if want_pad else None)
    return run
