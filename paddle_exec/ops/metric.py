"""Metric ops: top_k (1.x), top_k_v2 (2.x), accuracy and auc.

    top_k      X [..., D] -> Out, Indices [..., k] (int64) along the last axis; `k` from the attribute or the
               optional `K` tensor. Differentiable in Out: top_k_grad(X, Indices, Out@GRAD) -> X@GRAD.
    top_k_v2   the same along `axis`, `largest` (False: the k smallest); `sorted=False` returns them sorted
               too (Paddle leaves that order unspecified). Grad: top_k_v2_grad.
    accuracy   (Out, Indices, Label) -> Accuracy [1] float32, Correct [1] int32, Total [1] int32: a row counts
               when its Label is among its top-k Indices (the output of top_k). No gradient.
    auc        (Predict, Label, StatPos, StatNeg) -> AUC [1] float64, StatPosOut, StatNegOut: Paddle's bucketed
               ROC AUC. The stat tensors are persistable int64 bucket counts updated in place (StatPosOut IS
               StatPos); with `slide_steps` > 0 they hold a window per recent batch, a sum window and a batch
               counter, and AUC is over the last `slide_steps` batches; with 0 it accumulates every batch.

The selection reproduces Paddle's CPU kernel, ties included (see kernels/metric.py). Compile-time shapes use -1
where Paddle's would depend on a runtime value (k from the `K` tensor).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import metric as KM


def _dims(shape) -> str:
    return ', '.join(str(d) for d in shape)


def _k_of(k_tensor, k_attr: int) -> int:
    return int(np.asarray(k_tensor).reshape(-1)[0]) if k_tensor is not None else int(k_attr)


def _norm_axis(axis: int, rank: int, op_type: str) -> int:
    if not -rank <= axis < rank:
        raise ValueError("the axis of %s must be [-%d, %d), but you set axis is %d" % (op_type, rank, rank, axis))
    return axis + rank if axis < 0 else axis


def _check_k(k: int, op_type: str) -> None:
    if k < 1:
        raise ValueError("operator '%s': Attribute k must be >= 1, but got k is %d." % (op_type, k))


def _select(x: np.ndarray, k: int, axis: int, largest: bool, op_type: str):
    """Top-k of `x` along `axis` through the 2-D row kernel; (values, indices) shaped like x with k at axis."""
    if x.shape[axis] < k:
        raise ValueError("operator '%s': input must have >= k columns, but the input's dim %d is %d < k = %d"
                         % (op_type, axis, x.shape[axis], k))
    moved = np.moveaxis(x, axis, -1)
    values, indices = KM.top_k(moved.reshape(-1, moved.shape[-1]), k, largest)
    lead = moved.shape[:-1]
    return (np.ascontiguousarray(np.moveaxis(values.reshape(lead + (k,)), -1, axis)),
            np.ascontiguousarray(np.moveaxis(indices.reshape(lead + (k,)), -1, axis)))


def _scatter_back(x_shape, indices: np.ndarray, dout: np.ndarray, axis: int) -> np.ndarray:
    moved_idx = np.moveaxis(indices, axis, -1)
    k = moved_idx.shape[-1]
    cols = x_shape[axis]
    dx = KM.top_k_backward(moved_idx.reshape(-1, k), np.moveaxis(dout, axis, -1).reshape(-1, k), cols)
    lead = moved_idx.shape[:-1]
    return np.ascontiguousarray(np.moveaxis(dx.reshape(lead + (cols,)), -1, axis))


# --- top_k (1.x): the last axis -----------------------------------------------------------------------------------

defop('top_k', ['X', 'K'], ['Out', 'Indices'], {'k': 1}, dispensable=['K'],
      grad=GradSpec(('X', 'Indices', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('top_k')
def _top_k_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) < 1:
        raise ValueError("operator 'top_k': input must have >= 1d shape")
    if ctx.has_input('K'):
        k = -1
    else:
        k = ctx.attr('k')
        _check_k(k, 'top_k')
    out = tuple(xs[:-1]) + (k,)
    ctx.set_output('Out', out, ctx.in_dtype('X'))
    ctx.set_output('Indices', out, VarType.INT64)


@kernel_rule('top_k')
def _top_k(spec):
    k_attr = spec.attr('k')

    def run(x, k_tensor=None):
        k = _k_of(k_tensor, k_attr)
        _check_k(k, 'top_k')
        return _select(x, k, x.ndim - 1, True, 'top_k')
    return run


@kernel_rule('top_k_grad')
def _top_k_grad(spec):
    return lambda x, indices, dout: (_scatter_back(x.shape, indices, dout, x.ndim - 1),)


# --- top_k_v2 (2.x): any axis, largest or smallest --------------------------------------------------------------

defop('top_k_v2', ['X', 'K'], ['Out', 'Indices'], {'k': 1, 'axis': -1, 'largest': True, 'sorted': True},
      dispensable=['K'], grad=GradSpec(('X', 'Indices', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('top_k_v2')
def _top_k_v2_shape(ctx):
    xs = list(ctx.in_shape('X'))
    axis = _norm_axis(ctx.attr('axis'), len(xs), 'top_k_v2') if xs else 0
    if ctx.has_input('K'):
        k = -1
    else:
        k = ctx.attr('k')
        _check_k(k, 'top_k_v2')
        if xs and xs[axis] >= 0 and xs[axis] < k:
            raise ValueError("the input dim %d of top_k_v2 is %d, smaller than k = %d (input shape [%s])"
                             % (axis, xs[axis], k, _dims(xs)))
    if xs:
        xs[axis] = k
    ctx.set_output('Out', tuple(xs), ctx.in_dtype('X'))
    ctx.set_output('Indices', tuple(xs), VarType.INT64)


@kernel_rule('top_k_v2')
def _top_k_v2(spec):
    k_attr, axis_attr, largest = spec.attr('k'), spec.attr('axis'), bool(spec.attr('largest'))

    def run(x, k_tensor=None):
        k = _k_of(k_tensor, k_attr)
        _check_k(k, 'top_k_v2')
        if x.ndim == 0:
            return x.copy(), np.zeros((), np.int64)
        return _select(x, k, _norm_axis(axis_attr, x.ndim, 'top_k_v2'), largest, 'top_k_v2')
    return run


@kernel_rule('top_k_v2_grad')
def _top_k_v2_grad(spec):
    axis_attr = spec.attr('axis')

    def run(x, indices, dout):
        if x.ndim == 0:
            return (np.asarray(dout, x.dtype).copy(),)
        return (_scatter_back(x.shape, indices, dout, _norm_axis(axis_attr, x.ndim, 'top_k_v2_grad')),)
    return run


# --- accuracy -----------------------------------------------------------------------------------------------------

defop('accuracy', ['Out', 'Indices', 'Label'], ['Accuracy', 'Correct', 'Total'])


@shape_rule('accuracy')
def _accuracy_shape(ctx):
    ls = ctx.in_shape('Label')
    if len(ls) != 2:
        raise ValueError("ShapeError: label's dimensions of AccuracyOp must be 2. But received label's dimensions "
                         "= %d, label's shape = [%s]" % (len(ls), _dims(ls)))
    ctx.set_output('Accuracy', (1,), VarType.FP32)
    ctx.set_output('Correct', (1,), VarType.INT32)
    ctx.set_output('Total', (1,), VarType.INT32)


@kernel_rule('accuracy')
def _accuracy(spec):
    def run(out, indices, label):
        rows = out.shape[0]
        if label.shape[0] != rows:
            raise ValueError("ShapeError: the output's num_rows of AccuracyOp must be the same as label's num_rows. "
                             "But received output's shape = [%s], label's shape = [%s], output's num_rows = %d, "
                             "label's num_rows = %d" % (_dims(out.shape), _dims(label.shape), rows, label.shape[0]))
        flat_label = label.reshape(-1)
        if rows and flat_label.min() < 0:
            bad = int(np.argmax(flat_label < 0))
            raise ValueError("label of AccuracyOp must >= 0, But received label[%d] is %d"
                             % (bad, flat_label[bad]))
        correct = KM.accuracy_count(indices.reshape(rows, -1), flat_label) if rows else 0
        accuracy = np.float32(correct) / np.float32(rows) if rows else np.float32(0.0)
        return (np.array([accuracy], np.float32), np.array([correct], np.int32), np.array([rows], np.int32))
    return run


# --- auc ----------------------------------------------------------------------------------------------------------

defop('auc', ['Predict', 'Label', 'StatPos', 'StatNeg'], ['AUC', 'StatPosOut', 'StatNegOut'],
      {'curve': 'ROC', 'num_thresholds': (2 << 12) - 1, 'slide_steps': 1},
      inplace={'StatPosOut': 'StatPos', 'StatNegOut': 'StatNeg'}, stateful=True)


@shape_rule('auc')
def _auc_shape(ctx):
    ps, ls = ctx.in_shape('Predict'), ctx.in_shape('Label')
    if len(ps) != 2:
        raise ValueError("The Input(Predict) of auc must be a 2-D tensor [batch_size, 1 or 2], but received its "
                         "shape [%s]" % _dims(ps))
    if ps[0] >= 0 and ls and ls[0] >= 0 and ps[0] != ls[0]:
        raise ValueError("Out and Label should have same height, but received Predict's shape [%s], Label's shape "
                         "[%s]" % (_dims(ps), _dims(ls)))
    ctx.set_output('AUC', (1,), VarType.FP64)
    ctx.set_output('StatPosOut', ctx.in_shape('StatPos'), VarType.INT64)
    ctx.set_output('StatNegOut', ctx.in_shape('StatNeg'), VarType.INT64)


def _writable_flat(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the array updated in place, its flat view): the input itself when it can be written in place."""
    if not (isinstance(a, np.ndarray) and a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable):
        a = np.array(a, np.int64, order='C', copy=True)
    return a, a.reshape(-1)


@kernel_rule('auc')
def _auc(spec):
    num_thresholds, slide_steps = int(spec.attr('num_thresholds')), int(spec.attr('slide_steps'))
    if spec.attr('curve') != 'ROC':
        raise NotImplementedError("operator 'auc': only curve='ROC' is implemented (as in Paddle's kernel), got %r"
                                  % spec.attr('curve'))
    window = (1 + slide_steps) * (num_thresholds + 1) + (1 if slide_steps > 0 else 0)
    stat_names = (spec.op.input('StatPos')[0], spec.op.input('StatNeg')[0])

    def run(predict, label, stat_pos, stat_neg):
        if predict.shape[0] != label.shape[0]:
            raise ValueError("operator 'auc': Predict has %d rows but Label has %d"
                             % (predict.shape[0], label.shape[0]))
        pos_prob = predict.reshape(predict.shape[0], -1)[:, -1]
        if pos_prob.size and (pos_prob.max() > 1 or pos_prob.min() < 0 or np.isnan(pos_prob).any()):
            raise RuntimeError("operator 'auc': the predict data must be in [0, 1] (The predict data must less or "
                               "equal 1 / gather or equal 0.), got values in [%g, %g]"
                               % (np.nanmin(pos_prob), np.nanmax(pos_prob)))
        stat_pos, pos = _writable_flat(stat_pos)
        stat_neg, neg = _writable_flat(stat_neg)
        for name, flat in zip(stat_names, (pos, neg)):
            if flat.size < window:
                raise ValueError("operator 'auc': %s holds %d counts, fewer than the %d that num_thresholds=%d "
                                 "and slide_steps=%d need" % (name, flat.size, window, num_thresholds, slide_steps))
        KM.auc_stat(pos_prob, label.reshape(-1), num_thresholds, slide_steps, pos, neg)
        offset = slide_steps * (num_thresholds + 1)
        auc = KM.auc_value(pos[offset:], neg[offset:], num_thresholds)
        if slide_steps:
            pos[(slide_steps + 1) * (num_thresholds + 1)] += 1
            neg[(slide_steps + 1) * (num_thresholds + 1)] += 1
        return np.array([auc], np.float64), stat_pos, stat_neg
    return run


# --- mean_iou -----------------------------------------------------------------------------------------------------
# Paddle's MeanIoUKernel: per class, correct = predictions equal to it and to the label, wrong = the label's and
# the prediction's class each counted on a mismatch (both added to the In* accumulators given); mean IoU = the sum
# over classes of correct / (correct + wrong) (0 where nothing was seen) divided by the classes seen, added to the
# InMeanIou given.

defop('mean_iou', ['Predictions', 'Labels', 'InWrongs', 'InCorrects', 'InMeanIou'],
      ['OutMeanIou', 'OutWrong', 'OutCorrect'], {'num_classes': 2},
      duplicable=['InWrongs', 'InCorrects', 'InMeanIou'], dispensable=['InWrongs', 'InCorrects', 'InMeanIou'])


@shape_rule('mean_iou')
def _mean_iou_shape(ctx):
    n = ctx.attr('num_classes')
    ctx.set_output('OutMeanIou', (1,), VarType.FP32)
    ctx.set_output('OutWrong', (n,), VarType.INT32)
    ctx.set_output('OutCorrect', (n,), VarType.INT32)


@kernel_rule('mean_iou')
def _mean_iou(spec):
    num_classes = int(spec.attr('num_classes'))

    def run(predictions, labels, in_wrongs, in_corrects, in_mean_ious):
        pred = np.asarray(predictions).reshape(-1).astype(np.int64)
        lab = np.asarray(labels).reshape(-1).astype(np.int64)
        for name, values in (('Predictions', pred), ('Labels', lab)):
            if values.size and (values.min() < 0 or values.max() >= num_classes):
                raise ValueError("operator 'mean_iou': %s must be in [0, num_classes=%d), got %d"
                                 % (name, num_classes, values[(values < 0) | (values >= num_classes)][0]))
        hit = pred == lab
        correct = np.bincount(pred[hit], minlength=num_classes).astype(np.int32)
        wrong = (np.bincount(lab[~hit], minlength=num_classes)
                 + np.bincount(pred[~hit], minlength=num_classes)).astype(np.int32)
        for extra in in_wrongs or ():
            wrong += np.asarray(extra, np.int32).reshape(-1)
        for extra in in_corrects or ():
            correct += np.asarray(extra, np.int32).reshape(-1)
        denominator = wrong + correct
        valid = np.int32(np.count_nonzero(denominator > 0))
        iou_sum = np.sum(correct.astype(np.float32) / np.maximum(denominator, 1).astype(np.float32),
                         dtype=np.float32)
        mean = np.float32(sum(float(np.asarray(m).reshape(-1)[0]) for m in in_mean_ious or ()))
        with np.errstate(divide='ignore', invalid='ignore'):
            mean = np.float32(mean + iou_sum / np.float32(valid))
        return np.array([mean], np.float32), wrong, correct
    return run
