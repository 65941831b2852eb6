"""Sequence metric ops: edit_distance and chunk_eval (numerics in kernels/sequence_metric.py). Neither has a
gradient.

Both take their sequences either as LoD (level 0 of the input value, when the value carries one) or padded: rows
of a [batch, max_len] tensor with a lengths tensor (edit_distance's HypsLength / RefsLength, chunk_eval's
SeqLength), as Paddle 1.8 accepts them.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import defop, kernel_rule, shape_rule
from ..kernels import sequence_metric as K


def _level0(value):
    lod = value.lod() if hasattr(value, 'lod') else None
    return lod[0] if lod else None


def _array(value):
    return np.asarray(value.value if hasattr(value, 'value') and hasattr(value, 'lod') else value)


def _seqs(op_type: str, slot: str, value, lengths):
    arr = _array(value)
    if lengths is not None:
        return arr, K.sequences(arr.shape[0], lengths=lengths, row_width=arr.shape[1] if arr.ndim > 1 else 1)
    offsets = _level0(value)
    if offsets is None:
        raise ValueError("operator '%s': Input(%s) has no LoD; give the sequence lengths (padded input) or feed a "
                         "LoDTensor" % (op_type, slot))
    return arr, K.sequences(arr.shape[0], offsets=offsets)


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


@kernel_rule('edit_distance')
def _edit_distance(spec):
    normalized = bool(spec.attr('normalized'))

    def run(hyps, refs, hyps_length, refs_length):
        h, h_seqs = _seqs('edit_distance', 'Hyps', hyps, hyps_length)
        r, r_seqs = _seqs('edit_distance', 'Refs', refs, refs_length)
        if h_seqs[1].size != r_seqs[1].size:
            raise ValueError("operator 'edit_distance': Input(Hyps) and Input(Refs) must have the same number of "
                             "sequences, got %d and %d" % (h_seqs[1].size, r_seqs[1].size))
        out, count = K.edit_distance(h, h_seqs, r, r_seqs, normalized)
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


@kernel_rule('chunk_eval')
def _chunk_eval(spec):
    num_types, scheme = int(spec.attr('num_chunk_types')), spec.attr('chunk_scheme')
    excluded = tuple(spec.attr('excluded_chunk_types') or ())

    def run(inference, label, seq_length):
        lab, seqs = _seqs('chunk_eval', 'Label', label, seq_length)
        return K.chunk_eval(_array(inference), lab, seqs, num_types, scheme, excluded)
    return run
