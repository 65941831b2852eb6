"""detection_map as Paddle 1.8 runs it (numerics in kernels/detection_map.py):

    detection_map(DetectRes, Label, HasState?, PosCount?, TruePos?, FalsePos?)
        -> MAP, AccumPosCount, AccumTruePos, AccumFalsePos
       attrs: class_num, overlap_threshold, evaluate_difficult, ap_type ('integral' | '11point'), background_label

DetectRes [M, 6] and Label [N, 5 or 6] are LoD tensors, one sequence per image. MAP is this batch's mAP; with
HasState holding a nonzero value the accumulated state (PosCount [class_num, 1] int32; TruePos / FalsePos [K, 2]
rows (score, flag) with a one-level LoD cutting them by class) is added first, which is how
fluid.metrics.DetectionMAP accumulates over batches (its states are both the inputs and the outputs). The Accum*
outputs hold the state after this batch, classes 0 .. class_num - 1 only. Before the first run the states hold
no value (nothing initialises them, as in Paddle): those inputs may be uninitialised (OpInfo.uninitialized_ok) and
are not read while HasState is 0.

The state outputs' LoD is computed at run time; at build time they get lod_level 1 (Paddle's InferShape leaves it 0)
so that the persistable states feeding the next run are read from the scope with their LoD.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, kernel_rule, lod_rule, shape_rule
from ..kernels import detection_map as K
from ._lod import check_rows, input_name

__all__ = []

defop('detection_map', ['DetectRes', 'Label', 'HasState', 'PosCount', 'TruePos', 'FalsePos'],
      ['MAP', 'AccumPosCount', 'AccumTruePos', 'AccumFalsePos'],
      {'class_num': 0, 'background_label': 0, 'overlap_threshold': 0.5, 'evaluate_difficult': True,
       'ap_type': 'integral'},
      dispensable=['HasState', 'PosCount', 'TruePos', 'FalsePos'], stateful=True,
      uninitialized_ok=['PosCount', 'TruePos', 'FalsePos'])


@shape_rule('detection_map')
def _map_shape(ctx):
    ds, ls = ctx.in_shape('DetectRes'), ctx.in_shape('Label')
    if len(ds) != 2 or ds[1] not in (6, -1):
        raise ValueError("operator 'detection_map': The shape of Input(DetectRes) should be [N, 6], got %s"
                         % (list(ds),))
    if len(ls) != 2 or ls[1] not in (5, 6, -1):
        raise ValueError("operator 'detection_map': The shape of Input(Label) should be [N, 5] or [N, 6], got %s"
                         % (list(ls),))
    if ctx.attr('ap_type') not in ('integral', '11point'):
        raise ValueError("operator 'detection_map': The ap_type should be 'integral' or '11point', got %r"
                         % (ctx.attr('ap_type'),))
    dtype = ctx.in_dtype('DetectRes')
    ctx.set_output('MAP', (1,), dtype)
    ctx.set_output('AccumPosCount', (int(ctx.attr('class_num')), 1), VarType.INT32)
    ctx.set_output('AccumTruePos', (-1, 2), dtype)
    ctx.set_output('AccumFalsePos', (-1, 2), dtype)


@lod_rule('detection_map')
def _map_lod(ctx):
    for slot in ('DetectRes', 'Label', 'TruePos', 'FalsePos'):
        ctx.read(slot)
    ctx.compute('AccumTruePos', 1)
    ctx.compute('AccumFalsePos', 1)


def _state_records(table, lod, class_num: int) -> dict:
    """class -> (scores, flags) of a TruePos / FalsePos state ([K, 2] rows cut by class)."""
    offsets = lod[0] if lod else np.zeros(class_num + 1, np.int64)
    table = np.asarray(table).reshape(-1, 2)
    return {c: (table[offsets[c]:offsets[c + 1], 0], table[offsets[c]:offsets[c + 1], 1].astype(np.int64))
            for c in range(min(class_num, offsets.shape[0] - 1))}


def _merge(state: dict, label: int, scores, flags) -> None:
    if label in state:
        old_scores, old_flags = state[label]
        state[label] = (np.concatenate([old_scores, scores]), np.concatenate([old_flags, flags]))
    else:
        state[label] = (scores, flags)


def _state_table(records: dict, class_num: int, dtype):
    rows, offsets = [], [0]
    for c in range(class_num):
        if c in records:
            scores, flags = records[c]
            rows.append(np.stack([scores.astype(dtype), flags.astype(dtype)], axis=1))
            offsets.append(offsets[-1] + scores.shape[0])
        else:
            offsets.append(offsets[-1])
    table = np.concatenate(rows) if rows else np.zeros((0, 2), dtype)
    return table, as_lod([offsets])


@kernel_rule('detection_map')
def _map_kernel(spec):
    class_num, background = int(spec.attr('class_num')), int(spec.attr('background_label'))
    evaluate_difficult, ap_type = bool(spec.attr('evaluate_difficult')), spec.attr('ap_type')
    threshold = np.float32(spec.attr('overlap_threshold'))
    det_name, label_name = input_name(spec, 'DetectRes'), input_name(spec, 'Label')

    def run(detect, label, has_state, pos_count, true_pos, false_pos, det_lod, label_lod, tp_lod, fp_lod):
        if not label_lod or len(label_lod) != 1:
            raise EnforceNotMet("DetectionMAPOp: Only support LodTensor of lod_level with 1 in label, but received "
                                "%d ('%s')." % (len(label_lod or ()), label_name))
        if not det_lod:
            raise EnforceNotMet("DetectionMAPOp: Input(DetectRes) '%s' must be a LoD tensor (one sequence per image)"
                                % det_name)
        gt_offsets, det_offsets = label_lod[0], det_lod[0]
        if gt_offsets.shape[0] != det_offsets.shape[0]:
            raise EnforceNotMet("DetectionMAPOp: The batch_size of input(Label) and input(Detection) must be the "
                                "same, but received %d:%d" % (gt_offsets.shape[0], det_offsets.shape[0]))
        check_rows(gt_offsets, label.shape[0], 'DetectionMAPOp', label_name)
        check_rows(det_offsets, detect.shape[0], 'DetectionMAPOp', det_name)
        if label.shape[1] not in (5, 6):
            raise EnforceNotMet("DetectionMAPOp: The input label width must be 5, but received %d, please check your "
                                "input data ('%s')" % (label.shape[1], label_name))
        state = has_state is not None and int(np.asarray(has_state).reshape(-1)[0]) != 0
        positives, tp_state, fp_state = {}, {}, {}
        if pos_count is not None and state:
            counts = np.asarray(pos_count).reshape(-1)
            positives = {c: int(counts[c]) for c in range(class_num)}
            tp_state = _state_records(true_pos, tp_lod, class_num)
            fp_state = _state_records(false_pos, fp_lod, class_num)
        for c, n in K.positive_counts(label, label.shape[1] == 6, evaluate_difficult).items():
            positives[c] = positives.get(c, 0) + n
        rows = detect.shape[0]
        out_label, out_score, out_tp = np.empty(rows, np.int64), np.empty(rows, detect.dtype), np.empty(rows, np.int64)
        n = K.match_detections(label.astype(detect.dtype, copy=False), gt_offsets, label.shape[1] == 6, detect,
                               det_offsets, evaluate_difficult, threshold, out_label, out_score, out_tp) \
            if rows else 0
        for c in np.unique(out_label[:n]):
            mine = out_label[:n] == c
            _merge(tp_state, int(c), out_score[:n][mine], out_tp[:n][mine])
            _merge(fp_state, int(c), out_score[:n][mine], 1 - out_tp[:n][mine])
        m_ap = K.average_precision(positives, tp_state, fp_state, ap_type, background)
        counts = np.array([[positives.get(c, 0)] for c in range(class_num)], np.int32).reshape(class_num, 1)
        tp_table, tp_out_lod = _state_table(tp_state, class_num, detect.dtype)
        fp_table, fp_out_lod = _state_table(fp_state, class_num, detect.dtype)
        return (np.array([m_ap], detect.dtype), counts, tp_table, fp_table, tp_out_lod, fp_out_lod)
    return run
