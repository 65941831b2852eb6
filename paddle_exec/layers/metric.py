"""Metric layers (fluid 1.x signatures): accuracy, topk, auc.

They append the ops Paddle 1.8.5 appends, with its names: `accuracy` is a `top_k` (`top_k_N.tmp_0/1`) followed by
an `accuracy` op whose outputs are `accuracy_N.tmp_0` (Accuracy), `.tmp_1` (Correct) and `.tmp_2` (Total);
`auc` creates four persistable int64 stat variables (`_generated_var_N`, zero-filled by the startup program)
and appends two `auc` ops, the batch AUC over the last `slide_steps` batches and the global AUC over all of them.
`topk` marks both outputs stop_gradient, as fluid does; paddle.topk (static/metric.py) keeps values
differentiable.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['accuracy', 'auc', 'topk']


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
