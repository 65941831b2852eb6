"""Sequence metric ops: edit_distance and chunk_eval (numerics in kernels/sequence_metric.py). Neither has a
gradient.

Both take their sequences either as LoD or padded, as Paddle 1.8 accepts them:
- LoD: the ops' LoD rules read their inputs' LoD; the sequences are level 0 (edit_distance: of Hyps and of Refs;
  chunk_eval: of Label, and Inference must carry the same one-level LoD, as 1.8 checks);
- padded: rows of a [batch, max_len] tensor with a lengths tensor (edit_distance's HypsLength / RefsLength,
  chunk_eval's SeqLength; chunk_eval reads SeqLength only when Label carries no LoD).
Neither output carries LoD.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import sequence_metric as K
from ._lod import check_rows, input_name, require_lod


def _padded_seqs(arr, lengths):
    return K.sequences(arr.shape[0], lengths=lengths, row_width=arr.shape[1] if arr.ndim > 1 else 1)


# --- edit_distance ----------------------------------------------------------------------------------------------

defop('edit_distance', ['Hyps', 'Refs', 'HypsLength', 'RefsLength'], ['SequenceNum', 'Out'], {'normalized': False},
      dispensable=['HypsLength', 'RefsLength'])


@shape_rule('edit_distance')
def _edit_distance_shape(ctx):
    hs, rs = ctx.in_shape('Hyps'), ctx.in_shape('Refs')
    if ctx.has_input('HypsLength') != ctx.has_input('RefsLength'):
        raise ValueError("operator 'edit_distance': give both HypsLength and RefsLength, or neither")
    if not ctx.has_input('HypsLength') and (len(hs) != 2 or hs[1] not in (1, -1) or len(rs) != 2
                                              or rs[1] not in (1, -1)):
        raise ValueError("operator 'edit_distance': Input(Hyps) and Input(Refs) must be LoD tensors of shape [-1, "
                         "1] when no lengths are given, got %s and %s" % (list(hs), list(rs)))
    ctx.set_output('Out', (hs[0] if ctx.has_input('HypsLength') else -1, 1), VarType.FP32)
    ctx.set_output('SequenceNum', (1,), VarType.INT64)


@lod_rule('edit_distance')
def _edit_distance_lod(ctx):
    ctx.read('Hyps')
    ctx.read('Refs')


def _lod_seqs(spec, slot: str, arr, lod):
    name = input_name(spec, slot)
    offsets = require_lod(lod, 'EditDistanceOp', name, slot)[0]
    check_rows(offsets, arr.shape[0], 'EditDistanceOp', name)
    return K.sequences(arr.shape[0], offsets=offsets)


@kernel_rule('edit_distance')
def _edit_distance(spec):
    normalized = bool(spec.attr('normalized'))

    def run(hyps, refs, hyps_length, refs_length, hyps_lod, refs_lod):
        if hyps_length is not None and refs_length is not None:
            h_seqs, r_seqs = _padded_seqs(hyps, hyps_length), _padded_seqs(refs, refs_length)
        else:
            h_seqs, r_seqs = _lod_seqs(spec, 'Hyps', hyps, hyps_lod), _lod_seqs(spec, 'Refs', refs, refs_lod)
        if h_seqs[1].size != r_seqs[1].size:
            raise EnforceNotMet("operator 'edit_distance': Input(Hyps) '%s' and Input(Refs) '%s' must have the same "
                                "number of sequences, got %d and %d"
                                % (input_name(spec, 'Hyps'), input_name(spec, 'Refs'), h_seqs[1].size,
                                   r_seqs[1].size))
        out, count = K.edit_distance(hyps, h_seqs, refs, r_seqs, normalized)
        return count, out
    return run


# --- chunk_eval -------------------------------------------------------------------------------------------------

_CHUNK_OUT = ['Precision', 'Recall', 'F1-Score', 'NumInferChunks', 'NumLabelChunks', 'NumCorrectChunks']
defop('chunk_eval', ['Inference', 'Label', 'SeqLength'], _CHUNK_OUT,
      {'num_chunk_types': 0, 'chunk_scheme': 'IOB', 'excluded_chunk_types': []}, dispensable=['SeqLength'])


@shape_rule('chunk_eval')
def _chunk_eval_shape(ctx):
    inf, lab = ctx.in_shape('Inference'), ctx.in_shape('Label')
    if len(inf) != len(lab) or any(a >= 0 and b >= 0 and a != b for a, b in zip(inf, lab)):
        raise ValueError("operator 'chunk_eval': Input(Inference)'s shape must be the same as Input(Label)'s shape, "
                         "got %s and %s" % (list(inf), list(lab)))
    if ctx.attr('chunk_scheme') not in ('IOB', 'IOE', 'IOBES', 'plain'):
        raise ValueError("operator 'chunk_eval': Unknown chunk scheme %r" % (ctx.attr('chunk_scheme'),))
    for slot in _CHUNK_OUT[:3]:
        ctx.set_output(slot, (1,), VarType.FP32)
    for slot in _CHUNK_OUT[3:]:
        ctx.set_output(slot, (1,), VarType.INT64)


@lod_rule('chunk_eval')
def _chunk_eval_lod(ctx):
    ctx.read('Inference')
    ctx.read('Label')


def _lengths_text(offsets) -> str:
    return ', '.join(str(int(o)) for o in offsets) + ', '


@kernel_rule('chunk_eval')
def _chunk_eval(spec):
    num_types, scheme = int(spec.attr('num_chunk_types')), spec.attr('chunk_scheme')
    excluded = tuple(spec.attr('excluded_chunk_types') or ())
    inf_name, lab_name = input_name(spec, 'Inference'), input_name(spec, 'Label')

    def run(inference, label, seq_length, inference_lod, label_lod):
        if label_lod:
            if len(label_lod) != 1:
                raise EnforceNotMet("ChunkEvalOp: Only support one level LoD sequence now, but received %d ('%s')."
                                    % (len(label_lod), lab_name))
            offsets = label_lod[0]
            if not inference_lod or len(inference_lod) != 1 or not np.array_equal(inference_lod[0], offsets):
                raise EnforceNotMet("ChunkEvalOp: Input(Inference) and Input(Label) of Op(chunk_eval) should have "
                                    "same LoD information, but received [[%s]] (Inference '%s') vs [[%s]] (Label "
                                    "'%s')."
                                    % (_lengths_text(inference_lod[0]) if inference_lod else '', inf_name,
                                       _lengths_text(offsets), lab_name))
            check_rows(offsets, label.shape[0], 'ChunkEvalOp', lab_name)
            seqs = K.sequences(label.shape[0], offsets=offsets)
        elif seq_length is not None:
            seqs = _padded_seqs(inference, seq_length)
        else:
            raise EnforceNotMet("ChunkEvalOp: Input(Label) '%s' carries no LoD, so it is the padded form, which needs "
                                "Input(SeqLength)" % lab_name)
        return K.chunk_eval(inference, label, seqs, num_types, scheme, excluded)
    return run
