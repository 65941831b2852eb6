"""Metric layers (fluid 1.x signatures): accuracy, topk, auc.

They append the ops Paddle 1.8.5 appends, with its names: `accuracy` is a `top_k` (`top_k_N.tmp_0/1`) followed by
an `accuracy` op whose outputs are `accuracy_N.tmp_0` (Accuracy), `.tmp_1` (Correct) and `.tmp_2` (Total);
`auc` creates four persistable int64 stat variables (`_generated_var_N`, zero-filled by the startup program)
and appends two `auc` ops, the batch AUC over the last `slide_steps` batches and the global AUC over all of them.
`topk` marks both outputs stop_gradient, as fluid does; paddle.topk (static/metric.py) keeps values
differentiable. `ctr_metric_bundle` (fluid.contrib 1.8, paddle.static 2.x) accumulates the sums CTR models
report: squared and absolute error, predicted probability, sigmoid of the prediction, positives, instances.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from .checks import check_variable_and_dtype
from .creation import fill_constant
from .helper import LayerHelper
from .manipulation import reshape

__all__ = ['accuracy', 'auc', 'topk', 'ctr_metric_bundle', 'mean_iou']


def topk(input, k, name=None) -> tuple[Variable, Variable]:
    """fluid.layers.topk: the k largest values of the last dimension and their int64 indices (`top_k`)."""
    helper = LayerHelper('top_k', name=name)
    inputs, attrs = {'X': [input]}, {}
    if isinstance(k, Variable):
        inputs['K'] = [k]
    else:
        attrs['k'] = int(k)
    values = helper.create_variable_for_type_inference(input.dtype)
    indices = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('top_k', inputs, {'Out': [values], 'Indices': [indices]}, attrs)
    values.stop_gradient = True
    indices.stop_gradient = True
    return values, indices


def accuracy_op(helper: LayerHelper, topk_out: Variable, topk_indices: Variable, label: Variable, correct=None,
                total=None) -> Variable:
    """The `accuracy` op on top-k results; shared by fluid.layers.accuracy and paddle.metric.accuracy."""
    acc_out = helper.create_variable_for_type_inference(VarType.FP32)
    if correct is None:
        correct = helper.create_variable_for_type_inference(VarType.INT32)
    if total is None:
        total = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('accuracy', {'Out': [topk_out], 'Indices': [topk_indices], 'Label': [label]},
                     {'Accuracy': [acc_out], 'Correct': [correct], 'Total': [total]})
    return acc_out


def accuracy(input, label, k=1, correct=None, total=None) -> Variable:
    """fluid.layers.accuracy: the fraction of rows whose `label` is among the top `k` of `input` ([1] float32).
    `correct` / `total`, when given, receive the int32 counts."""
    helper = LayerHelper('accuracy')
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'accuracy')
    topk_out, topk_indices = topk(input, k=k)
    return accuracy_op(helper, topk_out, topk_indices, label, correct, total)


def auc(input, label, curve='ROC', num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1):
    """fluid.layers.auc: (global AUC, batch AUC, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]).

    `input` [N, 2] (or [N, 1]) holds the positive-class probability in its last column; `label` [N, 1] int."""
    helper = LayerHelper('auc')
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'auc')
    check_variable_and_dtype(label, 'label', ['int32', 'int64'], 'auc')
    auc_out = helper.create_variable_for_type_inference(VarType.FP64)
    batch_auc_out = helper.create_variable_for_type_inference(VarType.FP64)
    # the batch stats keep one window per recent batch, a sum window and the batch counter
    batch_len = (1 + slide_steps) * (num_thresholds + 1) + 1
    batch_stat_pos = helper.create_global_variable(persistable=True, dtype=VarType.INT64, shape=[batch_len])
    batch_stat_neg = helper.create_global_variable(persistable=True, dtype=VarType.INT64, shape=[batch_len])
    stat_pos = helper.create_global_variable(persistable=True, dtype=VarType.INT64, shape=[1, num_thresholds + 1])
    stat_neg = helper.create_global_variable(persistable=True, dtype=VarType.INT64, shape=[1, num_thresholds + 1])
    for var in (batch_stat_pos, batch_stat_neg, stat_pos, stat_neg):
        helper.set_variable_initializer(var, ConstantInitializer(value=0.0, force_cpu=False))
    for out, pos, neg, steps in ((batch_auc_out, batch_stat_pos, batch_stat_neg, slide_steps),
                                 (auc_out, stat_pos, stat_neg, 0)):
        helper.append_op('auc', {'Predict': [input], 'Label': [label], 'StatPos': [pos], 'StatNeg': [neg]},
                         {'AUC': [out], 'StatPosOut': [pos], 'StatNegOut': [neg]},
                         {'curve': curve, 'num_thresholds': num_thresholds, 'slide_steps': steps})
    return auc_out, batch_auc_out, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]


def ctr_metric_bundle(input, label, ins_tag_weight=None):
    """Running sums over every run: (sqrerr, abserr, prob, q, pos_num, ins_num) as persistable float32 [1]
    variables (zeroed by the startup program): sum((input - label)^2), sum(|input - label|), sum(input),
    sum(sigmoid(input)), sum(label) and the instance count; q and the count are multiplied by the first
    `ins_tag_weight` (Paddle 2.x; 1 when not given, which is Paddle 1.8's contrib version). Paddle appends an
    `l1_norm` op for the absolute error; here it is `abs` then `reduce_sum` (the same number)."""
    if tuple(input.shape) != tuple(label.shape):
        raise AssertionError('ctr_metric_bundle: input and label must have the same shape, got %s and %s'
                             % (list(input.shape), list(label.shape)))
    helper = LayerHelper('ctr_metric_bundle')
    if ins_tag_weight is None:
        ins_tag_weight = fill_constant(shape=[1, 1], dtype='float32', value=1.0)
    local = [helper.create_global_variable(persistable=True, dtype=VarType.FP32, shape=[1]) for _ in range(6)]
    local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num = local
    batch = [helper.create_global_variable(persistable=False, dtype=VarType.FP32, shape=[1]) for _ in range(6)]
    batch_sqrerr, batch_abserr, batch_prob, batch_q, batch_pos_num, batch_ins_num = batch
    for var in local + batch:
        helper.set_variable_initializer(var, ConstantInitializer(value=0.0, force_cpu=True))
    diff = helper.create_variable_for_type_inference(VarType.FP32)
    abs_diff = helper.create_variable_for_type_inference(VarType.FP32)
    sig = helper.create_variable_for_type_inference(VarType.FP32)
    ones = helper.create_variable_for_type_inference(VarType.FP32)
    weight = helper.create_variable_for_type_inference(VarType.FP32)

    def add_into(total, x):
        helper.append_op('elementwise_add', {'X': [x], 'Y': [total]}, {'Out': [total]}, {'axis': -1})

    def reduce_into(out, x):
        helper.append_op('reduce_sum', {'X': [x]}, {'Out': [out]}, {'dim': [0], 'keep_dim': False,
                                                                    'reduce_all': True})

    helper.append_op('elementwise_sub', {'X': [input], 'Y': [label]}, {'Out': [diff]}, {'axis': -1})
    helper.append_op('squared_l2_norm', {'X': [diff]}, {'Out': [batch_sqrerr]})
    add_into(local_sqrerr, batch_sqrerr)
    helper.append_op('abs', {'X': [diff]}, {'Out': [abs_diff]})
    reduce_into(batch_abserr, abs_diff)
    add_into(local_abserr, batch_abserr)
    reduce_into(batch_prob, input)
    add_into(local_prob, batch_prob)
    helper.append_op('sigmoid', {'X': [input]}, {'Out': [sig]})
    reduce_into(batch_q, sig)
    reduce_into(batch_pos_num, label)
    add_into(local_pos_num, batch_pos_num)
    helper.append_op('fill_constant_batch_size_like', {'Input': [label]}, {'Out': [ones]},
                     {'shape': [-1, 1], 'dtype': int(VarType.FP32), 'value': 1.0})
    reduce_into(batch_ins_num, ones)
    helper.append_op('slice', {'Input': [ins_tag_weight]}, {'Out': [weight]},
                     {'axes': [0], 'starts': [0], 'ends': [1]})
    weight = reshape(weight, [1])     # the first weight as a [1] tensor, so the counts keep their shape
    for count, total in ((batch_ins_num, local_ins_num), (batch_q, local_q)):
        helper.append_op('elementwise_mul', {'X': [count], 'Y': [weight]}, {'Out': [count]}, {'axis': 0})
        add_into(total, count)
    return local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num


def mean_iou(input, label, num_classes):
    """fluid.layers.mean_iou: (mean IoU [1] float32, wrong counts [num_classes] int32, correct counts
    [num_classes] int32) of integer predictions against labels (semantic segmentation)."""
    helper = LayerHelper('mean_iou')
    check_variable_and_dtype(input, 'Predictions', ['int32', 'int64'], 'mean_iou')
    check_variable_and_dtype(label, 'Labels', ['int32', 'int64'], 'mean_iou')
    out_mean_iou = helper.create_variable_for_type_inference(VarType.FP32)
    out_wrong = helper.create_variable_for_type_inference(VarType.INT32)
    out_correct = helper.create_variable_for_type_inference(VarType.INT32)
    helper.append_op('mean_iou', {'Predictions': [input], 'Labels': [label]},
                     {'OutMeanIou': [out_mean_iou], 'OutWrong': [out_wrong], 'OutCorrect': [out_correct]},
                     {'num_classes': num_classes})
    return out_mean_iou, out_wrong, out_correct
