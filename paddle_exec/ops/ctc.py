"""The CTC ops as Paddle 1.8 runs them (numerics in kernels/ctc.py):

    warpctc(Logits, Label, LogitsLength?, LabelLength?) -> WarpCTCGrad, Loss        blank, norm_by_times
    warpctc_grad(WarpCTCGrad, Logits, Loss@GRAD, LogitsLength?) -> Logits@GRAD
    ctc_align(Input, InputLength?) -> Output, OutputLength?                          blank, merge_repeated,
                                                                                     padding_value

warpctc takes LoD input (Logits [rows, C] and Label [label rows, 1] int32, sequences = level 0 of each LoD, as
absolute row offsets) or the padded form of 1.8 / 2.x (Logits [max_T, batch, C] time-major, Label [batch,
max_L] with LogitsLength and LabelLength, int64 [batch]). Loss is [batch, 1] without LoD. Like Paddle, the op
computes the gradient in the forward pass (WarpCTCGrad, [max_T, batch, C]); warpctc_grad scales it by each
sequence's loss gradient, divides it by the sequence's length when norm_by_times (in both forms, as 1.8.5 and
2.6.2 do), and gives it the Logits' layout and LoD.

ctc_align (what ctc_greedy_decoder appends after top_k) works on LoD ids when Input carries a LoD: Output holds
the aligned ids with a one-level LoD of the new lengths (when every sequence comes out empty, Paddle's [[-1]]
with all-zero offsets). Without LoD it is the padded form: Input [batch, T] with InputLength, Output [batch, T]
filled with padding_value past each new length, OutputLength [batch, 1]. At build time Output keeps lod_level 0
(1.8's ctc_align declares none; the LoD appears at run time).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import NO_LOD, as_lod
from ..framework.registry import defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..kernels import ctc as K
from ..kernels.sequence import absolute_offsets
from ._lod import check_rows, input_name, require_lod

__all__ = []

defop('warpctc', ['Logits', 'Label', 'LogitsLength', 'LabelLength'], ['WarpCTCGrad', 'Loss'],
      {'blank': 0, 'norm_by_times': False}, dispensable=['LogitsLength', 'LabelLength'])
defop('warpctc_grad', ['WarpCTCGrad', 'Logits', 'Loss@GRAD', 'LogitsLength'], ['Logits@GRAD'],
      {'blank': 0, 'norm_by_times': False}, dispensable=['LogitsLength'])
defop('ctc_align', ['Input', 'InputLength'], ['Output', 'OutputLength'],
      {'blank': 0, 'merge_repeated': True, 'padding_value': 0}, dispensable=['InputLength', 'OutputLength'])


def _padded(ctx) -> bool:
    return ctx.has_input('LogitsLength') and ctx.has_input('LabelLength')


@shape_rule('warpctc')
def _warpctc_shape(ctx):
    ls = ctx.in_shape('Logits')
    if _padded(ctx) and len(ls) != 3:
        raise ValueError("operator 'warpctc': Input(Logits) should be a 3-D tensor [max_logit_length, batch_size, "
                         "num_classes + 1] when LogitsLength and LabelLength are given, got shape %s" % (list(ls),))
    if not _padded(ctx) and len(ls) != 2:
        raise ValueError("operator 'warpctc': Input(Logits) should be a 2-D LoD tensor [Lp, num_classes + 1], or "
                         "3-D with LogitsLength and LabelLength, got shape %s" % (list(ls),))
    width = ls[-1]
    blank = int(ctx.attr('blank'))
    if width > 0 and not 0 <= blank < width:
        raise ValueError("operator 'warpctc': The value of Attr(blank) should be in interval [0, %d), got %d"
                         % (width, blank))
    dtype = ctx.in_dtype('Logits')
    ctx.set_output('Loss', (-1, 1), dtype)
    ctx.set_output('WarpCTCGrad', tuple(ls) if len(ls) == 3 else (-1, -1, width), dtype)


@grad_rule('warpctc')
def _warpctc_grad_maker(g):
    inputs = {'WarpCTCGrad': g.output('WarpCTCGrad'), 'Logits': g.input('Logits'),
              'Loss@GRAD': g.output_grad('Loss')}
    if g.input('LogitsLength'):
        inputs['LogitsLength'] = g.input('LogitsLength')
    return [('warpctc_grad', inputs, {'Logits@GRAD': g.input_grad('Logits')}, dict(g.attrs))]


@shape_rule('warpctc_grad')
def _warpctc_grad_shape(ctx):
    ctx.set_output('Logits@GRAD', ctx.in_shape('Logits'), ctx.in_dtype('Logits'))


@lod_rule('warpctc')
def _warpctc_lod(ctx):
    ctx.read('Logits')
    ctx.read('Label')


@lod_rule('warpctc_grad')
def _warpctc_grad_lod(ctx):
    ctx.read('Logits')
    ctx.share('Logits', 'Logits@GRAD')


def _lengths(value, batch: int, spec, slot: str) -> np.ndarray:
    lengths = np.asarray(value).reshape(-1).astype(np.int64)
    if lengths.shape[0] != batch:
        raise EnforceNotMet("warpctc: Input(%s) '%s' must hold one length per sequence (%d), got %d"
                            % (slot, input_name(spec, slot), batch, lengths.shape[0]))
    return lengths


def _logit_sequences(spec, logits, logits_length, logits_lod):
    """(logits [rows, C], bases, step, lengths, max_T) of either form."""
    if logits_length is not None:
        max_t, batch, width = logits.shape
        lengths = _lengths(logits_length, batch, spec, 'LogitsLength')
        if np.any(lengths < 0) or np.any(lengths > max_t):
            raise EnforceNotMet("warpctc: every LogitsLength '%s' must lie in [0, %d], got %s"
                                % (input_name(spec, 'LogitsLength'), max_t, lengths.tolist()))
        return logits.reshape(max_t * batch, width), np.arange(batch, dtype=np.int64), batch, lengths, max_t
    name = input_name(spec, 'Logits')
    offsets = absolute_offsets(require_lod(logits_lod, 'WarpCTCOp', name, 'Logits'), 0)
    check_rows(offsets, logits.shape[0], 'WarpCTCOp', name)
    lengths = np.diff(offsets)
    return logits.reshape(logits.shape[0], -1), offsets[:-1].copy(), 1, lengths, int(lengths.max(initial=0))


@kernel_rule('warpctc')
def _warpctc_kernel(spec):
    blank = int(spec.attr('blank'))

    def run(logits, label, logits_length, label_length, logits_lod, label_lod):
        padded = logits_length is not None and label_length is not None
        x, bases, step, lengths, max_t = _logit_sequences(spec, logits, logits_length if padded else None,
                                                          logits_lod)
        batch, width = bases.shape[0], x.shape[1]
        if not 0 <= blank < width:
            raise EnforceNotMet("warpctc: The value of Attr(blank) should be in interval [0, %d), got %d"
                                % (width, blank))
        if padded:
            labels = np.asarray(label).reshape(batch, -1)
            label_lengths = _lengths(label_length, batch, spec, 'LabelLength')
            if np.any(label_lengths < 0) or np.any(label_lengths > labels.shape[1]):
                raise EnforceNotMet("warpctc: every LabelLength '%s' must lie in [0, %d], got %s"
                                    % (input_name(spec, 'LabelLength'), labels.shape[1], label_lengths.tolist()))
            label_starts = np.arange(batch, dtype=np.int64) * labels.shape[1]
        else:
            name = input_name(spec, 'Label')
            label_offsets = absolute_offsets(require_lod(label_lod, 'WarpCTCOp', name, 'Label'), 0)
            labels = np.asarray(label)
            if labels.size != labels.shape[0]:
                raise EnforceNotMet("WarpCTCOp: The width of each timestep in Input(Label) should be 1: '%s' has shape "
                                    "%s" % (name, list(labels.shape)))
            check_rows(label_offsets, labels.shape[0], 'WarpCTCOp', name)
            if label_offsets.shape[0] != bases.shape[0] + 1:
                raise EnforceNotMet("WarpCTCOp: The number of sequences of Input(Logits) should be equal to that of "
                                    "Input(Label): '%s' has %d, '%s' has %d"
                                    % (input_name(spec, 'Logits'), bases.shape[0], name, label_offsets.shape[0] - 1))
            label_starts, label_lengths = label_offsets[:-1].copy(), np.diff(label_offsets)
        flat = np.ascontiguousarray(labels).reshape(-1).astype(np.int64)
        used = np.zeros(flat.shape[0], bool)
        for start, n in zip(label_starts, label_lengths):
            used[start:start + n] = True
        if np.any(used & ((flat < 0) | (flat >= width))):
            raise EnforceNotMet("warpctc: the labels of Input(Label) '%s' must lie in [0, %d)"
                                % (input_name(spec, 'Label'), width))
        loss = np.empty((batch, 1), logits.dtype)
        grad = np.zeros((max_t * batch, width), logits.dtype)
        K.ctc_loss_and_grad(x, bases, step, lengths, flat, label_starts, label_lengths, blank, loss[:, 0], grad)
        return grad.reshape(max_t, batch, width), loss
    return run


@kernel_rule('warpctc_grad')
def _warpctc_grad_kernel(spec):
    norm_by_times = bool(spec.attr('norm_by_times'))

    def run(warpctc_grad, logits, loss_grad, logits_length, logits_lod):
        x, bases, step, lengths, _ = _logit_sequences(spec, logits, logits_length, logits_lod)
        out = np.zeros(x.shape, logits.dtype)
        grad = warpctc_grad.reshape(-1, warpctc_grad.shape[-1])
        K.ctc_scale_grad(grad, bases, step, lengths, np.asarray(loss_grad, logits.dtype).reshape(-1), norm_by_times,
                         out)
        return (out.reshape(logits.shape),)
    return run


@shape_rule('ctc_align')
def _align_shape(ctx):
    shape, dtype = ctx.in_shape('Input'), ctx.in_dtype('Input')
    if ctx.has_input('InputLength'):
        ctx.set_output('Output', shape, dtype)
        ctx.set_output('OutputLength', (shape[0], 1), VarType.INT64)
    else:
        ctx.set_output('Output', (-1, 1), dtype)


@lod_rule('ctc_align')
def _align_lod(ctx):
    ctx.read('Input')
    ctx.compute('Output', 1 if ctx.levels('Input') > 0 and not ctx.compile_time else 0)


@kernel_rule('ctc_align')
def _align_kernel(spec):
    blank, merge = int(spec.attr('blank')), bool(spec.attr('merge_repeated'))
    padding_value = int(spec.attr('padding_value'))
    name = input_name(spec, 'Input')

    def run(ids, input_length, ids_lod):
        if ids_lod:
            offsets = absolute_offsets(ids_lod, 0)
            check_rows(offsets, ids.shape[0], 'CTCAlignOp', name)
            flat = ids.reshape(-1)
            out = np.empty(flat.shape[0], ids.dtype)
            out_lengths = np.zeros(offsets.shape[0] - 1, np.int64)
            written = K.ctc_align(flat, offsets[:-1].copy(), np.diff(offsets), blank, merge, out, 0, out_lengths)
            out_offsets = np.zeros(offsets.shape[0], np.int64)
            np.cumsum(out_lengths, out=out_offsets[1:])
            out = out[:written].reshape(-1, 1) if written else np.full((1, 1), -1, ids.dtype)
            return out, None, as_lod([out_offsets])
        if input_length is None:
            raise EnforceNotMet("CTCAlignOp: Input(Input) '%s' carries no LoD, so it is the padded form, which needs "
                                "Input(InputLength)" % name)
        batch, width = ids.shape[0], ids.shape[1]
        lengths = np.asarray(input_length).reshape(-1).astype(np.int64)
        out = np.full(batch * width, padding_value, ids.dtype)
        out_lengths = np.zeros(batch, np.int64)
        K.ctc_align(np.ascontiguousarray(ids).reshape(-1), np.arange(batch, dtype=np.int64) * width,
                    np.minimum(lengths, width), blank, merge, out, width, out_lengths)
        return out.reshape(batch, width), out_lengths.reshape(batch, 1).astype(ids.dtype), NO_LOD
    return run
