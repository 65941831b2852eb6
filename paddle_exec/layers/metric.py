"""Metric layers (fluid 1.x signatures): accuracy, topk, auc, ctr_metric_bundle (1.8 contrib, 2.x paddle.static).

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

__all__ = ['accuracy', 'auc', 'topk', 'ctr_metric_bundle', 'ctr_metric_bundle_v2', 'mean_iou']


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
    """CTR metrics accumulated over batches in persistable [1] float32 variables, built as Paddle builds them:
    returns (local_sqrerr, local_abserr, local_prob, local_q, local_pos_num, local_ins_num), the running sums of
    (input - label)^2, |input - label|, input, sigmoid(input), label and the instance count, each starting at 0
    (startup program) and growing by the batch's value every run. fluid.contrib's (1.8) has no `ins_tag_weight`;
    paddle.static's (2.x, `ctr_metric_bundle_v2`) multiplies the batch's q and count by the first weight, 1 when
    none is given."""
    return _ctr_metric_bundle(input, label, ins_tag_weight, weighted=ins_tag_weight is not None)


def ctr_metric_bundle_v2(input, label, ins_tag_weight=None):
    """paddle.static.ctr_metric_bundle (2.x): see ctr_metric_bundle."""
    return _ctr_metric_bundle(input, label, ins_tag_weight, weighted=True)


def _ctr_metric_bundle(input, label, ins_tag_weight, weighted: bool):
    if weighted and ins_tag_weight is None:
        ins_tag_weight = fill_constant(shape=[1, 1], dtype='float32', value=1.0)
    assert tuple(input.shape) == tuple(label.shape), (
        'ctr_metric_bundle: input and label must have the same shape, got %s and %s'
        % (list(input.shape), list(label.shape)))
    helper = LayerHelper('ctr_metric_bundle', input=input, label=label)

    def global_var(persistable, shape):
        return helper.create_global_variable(persistable=persistable, dtype='float32', shape=shape)

    local_abserr, local_sqrerr, local_prob, local_q, local_pos_num, local_ins_num = (
        global_var(True, [1]) for _ in range(6))
    tmp_res_elesub, tmp_res_sigmoid, tmp_ones = (global_var(False, [-1]) for _ in range(3))
    batch_prob, batch_abserr, batch_sqrerr, batch_q, batch_pos_num, batch_ins_num = (
        global_var(False, [1]) for _ in range(6))
    for var in [local_abserr, batch_abserr, local_sqrerr, batch_sqrerr, local_prob, batch_prob, local_q, batch_q,
                batch_pos_num, batch_ins_num, local_pos_num, local_ins_num]:
        helper.set_variable_initializer(var, ConstantInitializer(value=0.0, force_cpu=True))

    def add_into(batch, local):
        helper.append_op(type='elementwise_add', inputs={'X': [batch], 'Y': [local]}, outputs={'Out': [local]})

    helper.append_op(type='elementwise_sub', inputs={'X': [input], 'Y': [label]}, outputs={'Out': [tmp_res_elesub]})
    helper.append_op(type='squared_l2_norm', inputs={'X': [tmp_res_elesub]}, outputs={'Out': [batch_sqrerr]})
    add_into(batch_sqrerr, local_sqrerr)
    helper.append_op(type='l1_norm', inputs={'X': [tmp_res_elesub]}, outputs={'Out': [batch_abserr]})
    add_into(batch_abserr, local_abserr)
    helper.append_op(type='reduce_sum', inputs={'X': [input]}, outputs={'Out': [batch_prob]})
    add_into(batch_prob, local_prob)
    helper.append_op(type='sigmoid', inputs={'X': [input]}, outputs={'Out': [tmp_res_sigmoid]})
    helper.append_op(type='reduce_sum', inputs={'X': [tmp_res_sigmoid]}, outputs={'Out': [batch_q]})
    if not weighted:
        add_into(batch_q, local_q)
    helper.append_op(type='reduce_sum', inputs={'X': [label]}, outputs={'Out': [batch_pos_num]})
    add_into(batch_pos_num, local_pos_num)
    helper.append_op(type='fill_constant_batch_size_like', inputs={'Input': label}, outputs={'Out': [tmp_ones]},
                     attrs={'shape': [-1, 1], 'dtype': tmp_ones.dtype, 'value': 1.0})
    helper.append_op(type='reduce_sum', inputs={'X': [tmp_ones]}, outputs={'Out': [batch_ins_num]})
    if not weighted:
        add_into(batch_ins_num, local_ins_num)
    else:
        # 2.x: the first instance weight (the slice writes it back into ins_tag_weight, as Paddle's does)
        helper.append_op(type='slice', inputs={'Input': ins_tag_weight}, outputs={'Out': ins_tag_weight},
                         attrs={'axes': [0], 'starts': [0], 'ends': [1]})
        for batch, local in ((batch_ins_num, local_ins_num), (batch_q, local_q)):
            helper.append_op(type='elementwise_mul', inputs={'X': [batch], 'Y': [ins_tag_weight]},
                             outputs={'Out': [batch]}, attrs={'axis': 0})
            add_into(batch, local)
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
