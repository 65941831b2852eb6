"""Recurrent ops over LoD sequences and their one-step units, as Paddle 1.8 runs them: lstm, lstmp, gru (the ops of
fluid.layers.dynamic_lstm / dynamic_lstmp / dynamic_gru), lstm_unit and gru_unit, with their gradients.

    lstm(Input, H0?, C0?, Weight, Bias) -> Hidden, Cell, BatchGate, BatchCellPreAct
        attrs use_peepholes, is_reverse, gate_activation, cell_activation, candidate_activation
    lstmp(Input, H0?, C0?, Weight, ProjWeight, Bias) -> Projection, Cell, BatchGate, BatchCellPreAct, BatchHidden
        the same attrs and proj_activation, cell_clip, proj_clip
    gru(Input, H0?, Weight, Bias?) -> Hidden, BatchGate, BatchResetHiddenPrev, BatchHidden
        attrs activation, gate_activation, is_reverse, origin_mode
    lstm_unit(X, C_prev) -> C, H                      attr forget_bias
    gru_unit(Input, HiddenPrev, Weight, Bias?) -> Gate, ResetHiddenPrev, Hidden
        attrs activation, gate_activation (ints: 0 identity, 1 sigmoid, 2 tanh, 3 relu), origin_mode

The numerics, gate orders and Paddle's peculiarities (the lstm gradient ignores Cell@GRAD; lstmp applies the cell
activation to the projection; gru skips step 0's weight gradients when H0 has no gradient) are described in
kernels/lstm.py and kernels/gru.py; the slots are those of Paddle 1.8.5's ops and grad ops (checked by printing
1.8.5's programs).

LoD: the sequence ops (lstm, lstmp, gru) read Input's one-level LoD (Paddle: "Only support one level sequence
now"), and their sequence outputs (Hidden, Cell, Projection) share it; the Batch* outputs are in time-step order and
carry no LoD here (Paddle gives them its internal three-level batch index as a LoD, which is not a valid LoD). Their
grad ops read Input's LoD again, and Input@GRAD shares it. H0 / C0 are one row per sequence, in the order of the
sequences. The units work on plain batches and pass no LoD.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import gru as KG
from ..kernels import lstm as KL
from ..kernels.blas import blas_functions, one_thread
from ..kernels.recurrent import activation_code
from ._lod import input_name, last_level

__all__ = []

_LSTM_ATTRS = {'use_peepholes': True, 'is_reverse': False, 'gate_activation': 'sigmoid', 'cell_activation': 'tanh',
               'candidate_activation': 'tanh'}
_LSTMP_ATTRS = dict(_LSTM_ATTRS, proj_activation='tanh', cell_clip=0.0, proj_clip=0.0)
_GRU_ATTRS = {'activation': 'tanh', 'gate_activation': 'sigmoid', 'is_reverse': False, 'origin_mode': False}

defop('lstm', ['Input', 'H0', 'C0', 'Weight', 'Bias'], ['Hidden', 'Cell', 'BatchGate', 'BatchCellPreAct'],
      _LSTM_ATTRS, dispensable=['H0', 'C0'],
      grad=GradSpec(('Input', 'H0', 'C0', 'Weight', 'Bias', 'Hidden', 'Cell', 'BatchGate', 'BatchCellPreAct',
                     'Hidden@GRAD'), ('Input@GRAD', 'H0@GRAD', 'C0@GRAD', 'Weight@GRAD', 'Bias@GRAD')))
defop('lstmp', ['Input', 'H0', 'C0', 'Weight', 'ProjWeight', 'Bias'],
      ['Projection', 'Cell', 'BatchGate', 'BatchCellPreAct', 'BatchHidden'], _LSTMP_ATTRS, dispensable=['H0', 'C0'],
      grad=GradSpec(('Input', 'H0', 'C0', 'Weight', 'ProjWeight', 'Bias', 'Projection', 'Cell', 'BatchGate',
                     'BatchCellPreAct', 'BatchHidden', 'Projection@GRAD'),
                    ('Input@GRAD', 'H0@GRAD', 'C0@GRAD', 'Weight@GRAD', 'ProjWeight@GRAD', 'Bias@GRAD')))
defop('gru', ['Input', 'H0', 'Weight', 'Bias'], ['Hidden', 'BatchGate', 'BatchResetHiddenPrev', 'BatchHidden'],
      _GRU_ATTRS, dispensable=['H0', 'Bias'],
      grad=GradSpec(('Input', 'H0', 'Weight', 'Bias', 'Hidden', 'BatchGate', 'BatchResetHiddenPrev', 'BatchHidden',
                     'Hidden@GRAD'), ('Input@GRAD', 'H0@GRAD', 'Weight@GRAD', 'Bias@GRAD')))
defop('lstm_unit', ['X', 'C_prev'], ['C', 'H'], {'forget_bias': 0.0},
      grad=GradSpec(('X', 'C_prev', 'C', 'H@GRAD', 'C@GRAD'), ('X@GRAD', 'C_prev@GRAD')))
defop('gru_unit', ['Input', 'HiddenPrev', 'Weight', 'Bias'], ['Gate', 'ResetHiddenPrev', 'Hidden'],
      {'activation': 2, 'gate_activation': 1, 'origin_mode': False}, dispensable=['Bias'],
      grad=GradSpec(('Input', 'HiddenPrev', 'Weight', 'Bias', 'Gate', 'ResetHiddenPrev', 'Hidden@GRAD'),
                    ('Input@GRAD', 'HiddenPrev@GRAD', 'Weight@GRAD', 'Bias@GRAD')))


# --- shapes -------------------------------------------------------------------------------------------------------

def _shape_of(ctx, slot: str) -> tuple:
    v = ctx.input_var(slot)
    if v is None:
        raise ValueError("operator '%s' needs input %s" % (ctx.op.type, slot))
    return tuple(v.shape)


def _check_param(ctx, slot: str, want: list) -> None:
    v = ctx.input_var(slot)
    if v is None or not v.has_shape():
        return
    got = list(v.shape)
    if got != want and -1 not in want:
        raise ValueError("%s: the shape of Input(%s) '%s' should be %s, but received %s"
                         % (ctx.op.type, slot, v.name, want, got))


def _lstm_shapes(ctx, proj: bool) -> None:
    in_shape = _shape_of(ctx, 'Input')
    if len(in_shape) != 2:
        raise ValueError("%s: Input(Input)'s rank must be 2, but received %s ('%s')"
                         % (ctx.op.type, list(in_shape), ctx.input_var('Input').name))
    frame = in_shape[1] // 4 if in_shape[1] > 0 else -1
    dtype = ctx.in_dtype('Input')
    width = _shape_of(ctx, 'ProjWeight')[1] if proj else frame
    _check_param(ctx, 'Weight', [width, 4 * frame])
    _check_param(ctx, 'Bias', [1, (7 if ctx.attr('use_peepholes') else 4) * frame])
    if proj:
        _check_param(ctx, 'ProjWeight', [frame, width])
    rows = in_shape[0]
    ctx.set_output('Projection' if proj else 'Hidden', (rows, width), dtype)
    ctx.set_output('Cell', (rows, frame), dtype)
    ctx.set_output('BatchGate', in_shape, dtype)
    ctx.set_output('BatchCellPreAct', (rows, frame), dtype)
    if proj:
        ctx.set_output('BatchHidden', (rows, frame), dtype)


shape_rule('lstm')(lambda ctx: _lstm_shapes(ctx, False))
shape_rule('lstmp')(lambda ctx: _lstm_shapes(ctx, True))


@shape_rule('gru')
def _gru_shape(ctx):
    in_shape = _shape_of(ctx, 'Input')
    w = _shape_of(ctx, 'Weight')
    frame = w[0]
    if in_shape[1] > 0 and frame > 0 and in_shape[1] != 3 * frame:
        raise ValueError("gru: the second dimension of Input(Input) '%s' should be 3 times of frame_size in GRUOp, "
                         "but received %d (frame_size %d)" % (ctx.input_var('Input').name, in_shape[1], frame))
    _check_param(ctx, 'Weight', [frame, 3 * frame])
    _check_param(ctx, 'Bias', [1, 3 * frame])
    dtype = ctx.in_dtype('Input')
    rows = in_shape[0]
    ctx.set_output('Hidden', (rows, frame), dtype)
    ctx.set_output('BatchGate', in_shape, dtype)
    ctx.set_output('BatchResetHiddenPrev', (rows, frame), dtype)
    ctx.set_output('BatchHidden', (rows, frame), dtype)


@shape_rule('lstm_unit')
def _lstm_unit_shape(ctx):
    x, c = _shape_of(ctx, 'X'), _shape_of(ctx, 'C_prev')
    if len(x) != 2 or len(c) != 2:
        raise ValueError("lstm_unit: Input(X) and Input(C_prev) must be 2-D, got %s and %s" % (list(x), list(c)))
    if x[1] > 0 and c[1] > 0 and x[1] != 4 * c[1]:
        raise ValueError("lstm_unit: the second dimension of Input(X) should be 4 times of C_prev's, got %d and %d"
                         % (x[1], c[1]))
    dtype = ctx.in_dtype('X')
    ctx.set_output('C', c, dtype)
    ctx.set_output('H', c, dtype)


@shape_rule('gru_unit')
def _gru_unit_shape(ctx):
    x, h = _shape_of(ctx, 'Input'), _shape_of(ctx, 'HiddenPrev')
    frame = h[1]
    if x[1] > 0 and frame > 0 and x[1] != 3 * frame:
        raise ValueError("gru_unit: The input_size must be 3 times of frame_size in GRUUnitOp, but received "
                         "input_size %d, frame_size %d" % (x[1], frame))
    _check_param(ctx, 'Weight', [frame, 3 * frame])
    _check_param(ctx, 'Bias', [1, 3 * frame])
    dtype = ctx.in_dtype('Input')
    ctx.set_output('Gate', (x[0], 3 * frame), dtype)
    ctx.set_output('ResetHiddenPrev', (x[0], frame), dtype)
    ctx.set_output('Hidden', (x[0], frame), dtype)


# --- LoD ---------------------------------------------------------------------------------------------------------

def _sequence_lod(*outputs):
    def rule(ctx):
        ctx.read('Input')
        for slot in outputs:
            ctx.share('Input', slot)
    return rule


lod_rule('lstm')(_sequence_lod('Hidden', 'Cell'))
lod_rule('lstmp')(_sequence_lod('Projection', 'Cell'))
lod_rule('gru')(_sequence_lod('Hidden'))
lod_rule('lstm_grad', 'lstmp_grad', 'gru_grad')(_sequence_lod('Input@GRAD'))


def _no_lod(ctx):
    """The units work on plain batches."""


lod_rule('lstm_unit', 'gru_unit', 'lstm_unit_grad', 'gru_unit_grad')(_no_lod)


# --- kernels ------------------------------------------------------------------------------------------------------

def _rows(x, dtype) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=dtype)


def _optional(x, dtype, width: int) -> tuple[np.ndarray, bool]:
    if x is None:
        return np.zeros((0, width), dtype), False
    return _rows(x, dtype), True


def _offsets(spec, x, x_lod, op_name: str) -> np.ndarray:
    return last_level(x_lod, x, op_name, input_name(spec, 'Input'), 'Input', max_levels=1)


def _check_initial(spec, slot: str, value, n_seq: int, width: int) -> None:
    if value is not None and tuple(value.shape) != (n_seq, width):
        raise EnforceNotMet("%s: Input(%s) '%s' should have one row of %d values per sequence (%d sequences), but "
                            "received shape %s" % (spec.type, slot, input_name(spec, slot), width, n_seq,
                                                   list(value.shape)))


class _LSTMAttrs:
    """What an lstm / lstmp kernel reads from its attributes, once per plan."""

    def __init__(self, spec, proj: bool):
        self.peepholes = bool(spec.attr('use_peepholes'))
        self.reverse = bool(spec.attr('is_reverse'))
        self.gate = activation_code(spec.attr('gate_activation'), 'gate_activation')
        self.cell = activation_code(spec.attr('cell_activation'), 'cell_activation')
        self.cand = activation_code(spec.attr('candidate_activation'), 'candidate_activation')
        self.cell_clip = float(spec.attr('cell_clip') or 0.0) if proj else 0.0
        self.proj_clip = float(spec.attr('proj_clip') or 0.0) if proj else 0.0
        # Paddle 1.8 applies the cell activation to the projection unless proj_activation is identity
        proj_act = activation_code(spec.attr('proj_activation'), 'proj_activation') if proj else 0
        self.proj = self.cell if proj_act != 0 else 0

    def check(self, bias, frame: int, dtype) -> np.ndarray:
        if self.peepholes:
            return np.ascontiguousarray(np.asarray(bias, dtype).reshape(-1)[4 * frame:7 * frame].reshape(3, frame))
        return np.zeros((3, frame), dtype)


def _lstm_kernel(spec, proj: bool):
    a = _LSTMAttrs(spec, proj)
    fns = blas_functions()
    op_name = 'LSTMPOp' if proj else 'LSTMOp'

    def run(x, h0, c0, weight, proj_w, bias, x_lod):
        offsets = _offsets(spec, x, x_lod, op_name)
        dtype = x.dtype
        frame = x.shape[1] // 4
        width = proj_w.shape[1] if proj else frame
        n_seq = offsets.shape[0] - 1
        _check_initial(spec, 'H0', h0, n_seq, width)
        _check_initial(spec, 'C0', c0, n_seq, frame)
        h0_a, has_h0 = _optional(h0, dtype, width)
        c0_a, has_c0 = _optional(c0, dtype, frame)
        pw = _rows(proj_w, dtype) if proj else np.zeros((frame, 0), dtype)
        with one_thread():
            out, cell, gate, cell_act, hidden = KL.lstm_forward(
                fns, _rows(x, dtype), offsets, _rows(weight, dtype), _rows(bias, dtype).reshape(1, -1),
                a.check(bias, frame, dtype), h0_a, c0_a, has_h0, has_c0, a.reverse, a.cell_clip, a.gate, a.cell,
                a.cand, pw, proj, a.proj, a.proj_clip)
        if proj:
            return out, cell, gate, cell_act, hidden
        return out, cell, gate, cell_act
    return run


@kernel_rule('lstm')
def _lstm_forward_kernel(spec):
    run = _lstm_kernel(spec, False)
    return lambda x, h0, c0, weight, bias, x_lod: run(x, h0, c0, weight, None, bias, x_lod)


@kernel_rule('lstmp')
def _lstmp_forward_kernel(spec):
    return _lstm_kernel(spec, True)


def _lstm_grad_kernel(spec, proj: bool):
    a = _LSTMAttrs(spec, proj)
    fns = blas_functions()
    op_name = 'LSTMPGradOp' if proj else 'LSTMGradOp'
    want = {slot: spec.has_output(slot + '@GRAD') for slot in ('Input', 'H0', 'C0', 'Weight', 'ProjWeight', 'Bias')}

    def run(x, h0, c0, weight, proj_w, bias, out, cell, gate, cell_act, hidden, dout, x_lod):
        offsets = _offsets(spec, x, x_lod, op_name)
        dtype = x.dtype
        frame = x.shape[1] // 4
        width = out.shape[1]
        h0_a, has_h0 = _optional(h0, dtype, width)
        c0_a, has_c0 = _optional(c0, dtype, frame)
        pw = _rows(proj_w, dtype) if proj else np.zeros((frame, 0), dtype)
        hid = _rows(hidden, dtype) if proj else np.zeros((0, frame), dtype)
        dout = np.zeros(out.shape, dtype) if dout is None else _rows(dout, dtype)
        with one_thread():
            dx, dw, dgate_bias, dcheck, dh0, dc0, dpw = KL.lstm_backward(
                fns, offsets, _rows(weight, dtype), a.check(bias, frame, dtype), h0_a, c0_a, has_h0, has_c0,
                _rows(out, dtype), _rows(cell, dtype), _rows(gate, dtype), _rows(cell_act, dtype), hid, dout,
                a.reverse, a.cell_clip, a.gate, a.cell, a.cand, pw, proj, a.proj, a.proj_clip,
                has_h0 and want['H0'], has_c0 and want['C0'])
        dbias = None
        if want['Bias']:
            parts = [dgate_bias] + ([dcheck.reshape(-1)] if a.peepholes else [])
            dbias = np.concatenate(parts).reshape(np.shape(bias))
        grads = [dx if want['Input'] else None, dh0 if has_h0 and want['H0'] else None,
                 dc0 if has_c0 and want['C0'] else None, dw if want['Weight'] else None]
        if proj:
            grads.append(dpw if want['ProjWeight'] else None)
        return tuple(grads) + (dbias,)
    return run


@kernel_rule('lstm_grad')
def _lstm_backward_kernel(spec):
    run = _lstm_grad_kernel(spec, False)
    return lambda x, h0, c0, w, b, hidden, cell, gate, act, dh, x_lod: run(x, h0, c0, w, None, b, hidden, cell, gate,
                                                                          act, None, dh, x_lod)


@kernel_rule('lstmp_grad')
def _lstmp_backward_kernel(spec):
    return _lstm_grad_kernel(spec, True)


def _gru_codes(spec) -> tuple[int, int]:
    return (activation_code(spec.attr('gate_activation'), 'gate_activation'),
            activation_code(spec.attr('activation'), 'activation'))


@kernel_rule('gru')
def _gru_forward_kernel(spec):
    gate_code, node_code = _gru_codes(spec)
    reverse, origin = bool(spec.attr('is_reverse')), bool(spec.attr('origin_mode'))
    fns = blas_functions()

    def run(x, h0, weight, bias, x_lod):
        offsets = _offsets(spec, x, x_lod, 'GRUOp')
        dtype = x.dtype
        frame = weight.shape[0]
        _check_initial(spec, 'H0', h0, offsets.shape[0] - 1, frame)
        h0_a, has_h0 = _optional(h0, dtype, frame)
        b = np.zeros((1, 3 * frame), dtype) if bias is None else _rows(bias, dtype).reshape(1, -1)
        with one_thread():
            return KG.gru_forward(fns, _rows(x, dtype), offsets, _rows(weight, dtype), b, h0_a, has_h0, reverse,
                                  gate_code, node_code, origin)
    return run


@kernel_rule('gru_grad')
def _gru_backward_kernel(spec):
    gate_code, node_code = _gru_codes(spec)
    reverse, origin = bool(spec.attr('is_reverse')), bool(spec.attr('origin_mode'))
    want = {slot: spec.has_output(slot + '@GRAD') for slot in ('Input', 'H0', 'Weight', 'Bias')}
    fns = blas_functions()

    def run(x, h0, weight, bias, hidden, gate, reset_prev, batch_hidden, dh, x_lod):
        offsets = _offsets(spec, x, x_lod, 'GRUGradOp')
        dtype = x.dtype
        frame = weight.shape[0]
        h0_a, has_h0 = _optional(h0, dtype, frame)
        dh = np.zeros(hidden.shape, dtype) if dh is None else _rows(dh, dtype)
        with one_thread():
            dx, dw, db, dh0 = KG.gru_backward(fns, offsets, _rows(weight, dtype), h0_a, has_h0, want['H0'],
                                              _rows(gate, dtype), _rows(reset_prev, dtype),
                                              _rows(batch_hidden, dtype), dh, reverse, gate_code, node_code, origin)
        return (dx if want['Input'] else None, dh0 if has_h0 and want['H0'] else None,
                dw if want['Weight'] else None,
                db.reshape(np.shape(bias)) if want['Bias'] and bias is not None else None)
    return run


@kernel_rule('lstm_unit')
def _lstm_unit_kernel(spec):
    forget_bias = float(spec.attr('forget_bias'))

    def run(x, c_prev):
        dtype = x.dtype
        return KL.lstm_unit_forward(_rows(x, dtype), _rows(c_prev, dtype), forget_bias)
    return run


@kernel_rule('lstm_unit_grad')
def _lstm_unit_grad_kernel(spec):
    forget_bias = float(spec.attr('forget_bias'))
    want_x, want_c = spec.has_output('X@GRAD'), spec.has_output('C_prev@GRAD')

    def run(x, c_prev, c, dh, dc):
        dtype = x.dtype
        empty = np.zeros((0, c.shape[1]), dtype)
        dx, dc_prev = KL.lstm_unit_backward(_rows(x, dtype), _rows(c_prev, dtype), _rows(c, dtype),
                                            empty if dh is None else _rows(dh, dtype),
                                            empty if dc is None else _rows(dc, dtype), forget_bias)
        return (dx if want_x else None), (dc_prev if want_c else None)
    return run


def _unit_codes(spec) -> tuple[int, int]:
    codes = []
    for name in ('gate_activation', 'activation'):
        code = int(spec.attr(name))
        if code not in (0, 1, 2, 3):
            raise ValueError("gru_unit: Unsupported activation type %d for %s, only supports identity (0), sigmoid "
                             "(1), tanh (2) and relu (3)" % (code, name))
        codes.append(code)
    return codes[0], codes[1]


@kernel_rule('gru_unit')
def _gru_unit_kernel(spec):
    gate_code, node_code = _unit_codes(spec)
    origin = bool(spec.attr('origin_mode'))
    fns = blas_functions()

    def run(x, h_prev, weight, bias):
        dtype = x.dtype
        b = np.zeros((1, 0), dtype) if bias is None else _rows(bias, dtype).reshape(1, -1)
        return KG.gru_unit_forward(fns, _rows(x, dtype), _rows(h_prev, dtype), _rows(weight, dtype), b,
                                   bias is not None, gate_code, node_code, origin)
    return run


@kernel_rule('gru_unit_grad')
def _gru_unit_grad_kernel(spec):
    gate_code, node_code = _unit_codes(spec)
    origin = bool(spec.attr('origin_mode'))
    want = {slot: spec.has_output(slot + '@GRAD') for slot in ('Input', 'HiddenPrev', 'Weight', 'Bias')}
    fns = blas_functions()

    def run(x, h_prev, weight, bias, gate, reset_prev, dh):
        dtype = x.dtype
        dg, dh_prev, dw, db = KG.gru_unit_backward(fns, _rows(h_prev, dtype), _rows(weight, dtype),
                                                   _rows(gate, dtype), _rows(reset_prev, dtype), _rows(dh, dtype),
                                                   gate_code, node_code, origin)
        return (dg if want['Input'] else None, dh_prev if want['HiddenPrev'] else None,
                dw if want['Weight'] else None,
                db.reshape(np.shape(bias)) if want['Bias'] and bias is not None else None)
    return run
