"""The linear-chain CRF ops as Paddle 1.8 runs them (numerics and the transition layout in kernels/crf.py):

    linear_chain_crf(Emission, Transition, Label, Length?) -> Alpha, EmissionExps, TransitionExps, LogLikelihood
    linear_chain_crf_grad(Emission, Transition, Label, Alpha, EmissionExps, TransitionExps, Length?,
                          LogLikelihood@GRAD) -> Emission@GRAD, Transition@GRAD
    crf_decoding(Emission, Transition, Label?, Length?) -> ViterbiPath

Two input forms, as 1.8's: LoD (Emission [rows, D], Label [rows, 1], sequences = level 0 of the LoD) or padded
(Emission [batch, max_len, D], Label [batch, max_len] or [batch, max_len, 1], Length [batch] or [batch, 1]).
linear_chain_crf cuts its sequences by *Label's* LoD (Paddle's kernel does); crf_decoding by Emission's.
LogLikelihood (the cost, log Z - score, one row per sequence) carries no LoD; Emission@GRAD gets Emission's.
ViterbiPath has Emission's rows and LoD ([batch, max_len] in the padded form, 0 past each length); given a Label
it is 1 where the best tag equals the label and 0 elsewhere.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import crf as K
from ._lod import check_rows, input_name, require_lod

__all__ = []

defop('linear_chain_crf', ['Emission', 'Transition', 'Label', 'Length'],
      ['Alpha', 'EmissionExps', 'TransitionExps', 'LogLikelihood'], dispensable=['Length'],
      grad=GradSpec(('Emission', 'Transition', 'Label', 'Alpha', 'EmissionExps', 'TransitionExps', 'Length',
                     'LogLikelihood@GRAD'), ('Emission@GRAD', 'Transition@GRAD')))
defop('crf_decoding', ['Emission', 'Transition', 'Label', 'Length'], ['ViterbiPath'],
      dispensable=['Label', 'Length'])


def _check_transition(op_name: str, ts, tags) -> None:
    if len(ts) != 2:
        raise ValueError("operator '%s': The Input(Transition) should be a 2-D tensor, got shape %s"
                         % (op_name, list(ts)))
    if ts[0] > 0 and ts[1] > 0 and ts[0] - 2 != ts[1]:
        raise ValueError("operator '%s': An invalid dimension for the Input(Transition), which should be a 2-D "
                         "tensor with shape [(D + 2) x D], got %s" % (op_name, list(ts)))
    if tags > 0 and ts[1] > 0 and tags != ts[1]:
        raise ValueError("operator '%s': The last dimension of the Input(Emission) and the Input(Transition) should "
                         "be equal to the tag number, got %d and %s" % (op_name, tags, list(ts)))


def _check_emission(op_name: str, ctx) -> tuple:
    es = ctx.in_shape('Emission')
    if ctx.has_input('Length'):
        if len(es) != 3:
            raise ValueError("operator '%s': The Input(Emission) should be a 3-D tensor [batch, max_len, tags] when "
                             "Input(Length) is given, got shape %s" % (op_name, list(es)))
    elif len(es) != 2:
        raise ValueError("operator '%s': The Input(Emission) should be a 2-D LoD tensor [rows, tags] (or 3-D with "
                         "Input(Length)), got shape %s" % (op_name, list(es)))
    _check_transition(op_name, ctx.in_shape('Transition'), es[-1])
    return es


@shape_rule('linear_chain_crf')
def _crf_shape(ctx):
    es = _check_emission('linear_chain_crf', ctx)
    ls = ctx.in_shape('Label')
    if ctx.has_input('Length'):
        if not (len(ls) == 2 or (len(ls) == 3 and ls[2] == 1)):
            raise ValueError("operator 'linear_chain_crf': The Input(Label) should be a 3-D tensor with last "
                             "dimension fixed to 1 or a 2-D tensor in padding mode, got shape %s" % (list(ls),))
    elif len(ls) != 2:
        raise ValueError("operator 'linear_chain_crf': The Input(Label) should be a 2-D tensor with the 2nd "
                         "dimensions fixed to 1, got shape %s" % (list(ls),))
    dtype = ctx.in_dtype('Emission')
    ctx.set_output('Alpha', es, dtype)
    ctx.set_output('EmissionExps', es, dtype)
    ctx.set_output('TransitionExps', ctx.in_shape('Transition'), dtype)
    ctx.set_output('LogLikelihood', (es[0], 1), dtype)


@lod_rule('linear_chain_crf')
def _crf_lod(ctx):
    ctx.read('Label')


@lod_rule('linear_chain_crf_grad')
def _crf_grad_lod(ctx):
    ctx.read('Label')
    if not ctx.has_input('Length'):
        ctx.share('Emission', 'Emission@GRAD')


def _sequences(spec, op_name: str, emission, label, length, label_lod):
    """(x [rows, D], labels [rows] int64, starts, lengths) of the LoD or the padded form."""
    if length is not None:
        batch, max_len, tags = emission.shape
        lengths = np.asarray(length).reshape(-1).astype(np.int64)
        if lengths.shape[0] != batch:
            raise EnforceNotMet("%s: the size of Input(Length) must be equal to the batch size of Input(Emission): "
                                "'%s' has %d lengths, '%s' has %d sequences"
                                % (op_name, input_name(spec, 'Length'), lengths.shape[0],
                                   input_name(spec, 'Emission'), batch))
        if np.any(lengths < 0) or np.any(lengths > max_len):
            raise EnforceNotMet("%s: every Input(Length) '%s' must lie in [0, %d], got %s"
                                % (op_name, input_name(spec, 'Length'), max_len, lengths.tolist()))
        x = emission.reshape(batch * max_len, tags)
        labels = None if label is None else np.asarray(label).reshape(-1)
        if labels is not None and labels.shape[0] != batch * max_len:
            raise EnforceNotMet("%s: Input(Label) '%s' must hold [batch, max_len] = [%d, %d] labels, got shape %s"
                                % (op_name, input_name(spec, 'Label'), batch, max_len, list(np.shape(label))))
        return x, labels, np.arange(batch, dtype=np.int64) * max_len, lengths
    slot = 'Label' if op_name == 'LinearChainCRF' else 'Emission'
    offsets = require_lod(label_lod, op_name, input_name(spec, slot), slot)[0]
    check_rows(offsets, emission.shape[0], op_name, input_name(spec, slot))
    labels = None
    if label is not None:
        labels = np.asarray(label).reshape(-1)
        if labels.shape[0] != emission.shape[0]:
            raise EnforceNotMet("%s: The first dimension of Input(Emission) and Input(Label) should be the same: "
                                "'%s' has %d rows, '%s' has %d"
                                % (op_name, input_name(spec, 'Emission'), emission.shape[0],
                                   input_name(spec, 'Label'), labels.shape[0]))
    return emission, labels, offsets[:-1].copy(), np.diff(offsets)


def _raise_status(status: int, row: int, spec, op_name: str) -> None:
    if status == K.BAD_LABEL:
        raise EnforceNotMet("%s: An invalid tag label that execesses the largest tag number: row %d of Input(Label) "
                            "'%s'" % (op_name, row, input_name(spec, 'Label')))
    if status == K.ZERO_SUM:
        raise EnforceNotMet("%s: The unnormalized probabilities of all possible unfinished sequences must be greater "
                            "than 0 (row %d of Input(Emission) '%s')" % (op_name, row, input_name(spec, 'Emission')))


@kernel_rule('linear_chain_crf')
def _crf_kernel(spec):
    def run(emission, transition, label, length, label_lod):
        x, labels, starts, lengths = _sequences(spec, 'LinearChainCRF', emission, label, length, label_lod)
        labels = labels.astype(np.int64, copy=False)
        alpha = np.zeros_like(x)
        x_exps = np.empty_like(x)
        w_exps = np.empty_like(transition)
        cost = np.empty((starts.shape[0], 1), emission.dtype)
        status, row = K.crf_forward(x, transition, labels, starts, lengths, alpha, x_exps, w_exps, cost[:, 0])
        _raise_status(status, row, spec, 'LinearChainCRF')
        return alpha.reshape(emission.shape), x_exps.reshape(emission.shape), w_exps, cost
    return run


@kernel_rule('linear_chain_crf_grad')
def _crf_grad_kernel(spec):
    want_x, want_w = spec.has_output('Emission@GRAD'), spec.has_output('Transition@GRAD')

    def run(emission, transition, label, alpha, x_exps, w_exps, length, dcost, label_lod):
        x, labels, starts, lengths = _sequences(spec, 'LinearChainCRFGrad', x_exps, label, length, label_lod)
        labels = labels.astype(np.int64, copy=False)
        dx = np.zeros_like(x)
        dw = np.zeros_like(w_exps)
        g = np.asarray(dcost).reshape(-1)
        status, row = K.crf_backward(x, w_exps, alpha.reshape(x.shape), labels, starts, lengths, g, dx, dw, want_w)
        _raise_status(status, row, spec, 'LinearChainCRFGrad')
        return (dx.reshape(x_exps.shape) if want_x else None), (dw if want_w else None)
    return run


@shape_rule('crf_decoding')
def _decoding_shape(ctx):
    es = _check_emission('crf_decoding', ctx)
    if ctx.has_input('Label'):
        ls = ctx.in_shape('Label')
        if not ctx.has_input('Length') and (len(ls) != 2 or ls[1] not in (1, -1)):
            raise ValueError("operator 'crf_decoding': The Input(Label) should be a 2-D tensor with the 2nd "
                             "dimensions fixed to 1, got shape %s" % (list(ls),))
    shape = (es[0], es[1]) if ctx.has_input('Length') else (es[0], 1)
    ctx.set_output('ViterbiPath', shape, VarType.INT64)


@lod_rule('crf_decoding')
def _decoding_lod(ctx):
    ctx.read('Emission')
    ctx.read('Label')
    if not ctx.has_input('Length'):
        ctx.share('Emission', 'ViterbiPath')


@kernel_rule('crf_decoding')
def _decoding_kernel(spec):
    def run(emission, transition, label, length, emission_lod, label_lod):
        if length is None:
            for slot, lod in (('Emission', emission_lod), ('Label', label_lod if label is not None else ())):
                if lod and len(lod) != 1:
                    raise EnforceNotMet("CRFDecoding: The Input(%s) should be a sequence with lod level 1. But "
                                        "received: lod level %d ('%s')" % (slot, len(lod), input_name(spec, slot)))
            if label is not None and not label_lod:
                raise EnforceNotMet("CRFDecoding: The Input(Label) should be a sequence with lod level 1. But "
                                    "received: lod level 0 ('%s')" % input_name(spec, 'Label'))
        x, labels, starts, lengths = _sequences(spec, 'CRFDecoding', emission, label, length, emission_lod)
        path = np.zeros(x.shape[0], np.int64)
        K.crf_viterbi(x, transition.astype(x.dtype, copy=False), starts, lengths, np.finfo(x.dtype).min, path)
        if labels is not None:
            path = (labels == path).astype(np.int64)
            if length is not None:       # padding after each length stays 0
                steps = np.arange(emission.shape[1])
                path = np.where((steps[None, :] < lengths[:, None]).reshape(-1), path, 0)
        return (path.reshape(emission.shape[:2]) if length is not None else path.reshape(-1, 1)),
    return run
