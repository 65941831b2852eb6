"""Classification losses and sequence metrics (fluid 1.x signatures), built as Paddle 1.8.5 builds them:
center_loss (its centers a parameter `center_loss_N.w_0` updated by the op itself; the update rate a persistable
`centerloss_alpha` filled by a fill_constant in the main program, as Paddle's create_variable(initializer=...)
does), teacher_student_sigmoid_loss, sigmoid_focal_loss, dice_loss (ordinary layers), edit_distance and
chunk_eval.

edit_distance's `ignored_tokens` erases tokens with `sequence_erase`, a LoD op (issue 11); given padded input
with lengths, give tokens already removed.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .common import one_hot
from .helper import LayerHelper, unnamed_variable
from .math import elementwise_div, elementwise_mul, reduce_mean, reduce_sum

__all__ = ['center_loss', 'teacher_student_sigmoid_loss', 'sigmoid_focal_loss', 'dice_loss', 'edit_distance',
           'chunk_eval']


def center_loss(input, label, num_classes, alpha, param_attr, update_center=True) -> Variable:
    """Center loss (Wen et al. 2016): |x - center[label]|^2 / 2 per sample ([N, 1]); with update_center the
    centers move toward their samples by `alpha` (a float or a [1] Variable) at every run."""
    helper = LayerHelper('center_loss')
    dtype = input.dtype
    centers = helper.create_parameter(param_attr, [num_classes, input.shape[1]], dtype)
    centers.stop_gradient = True
    if isinstance(alpha, Variable):
        alpha_param = alpha
    else:
        if not isinstance(alpha, float):
            raise AssertionError('alpha of center_loss must be a float or a Variable, got %r' % (alpha,))
        alpha_param = helper.create_variable(name='centerloss_alpha', shape=[1], dtype='float32', persistable=True,
                                             stop_gradient=True)
        helper.append_op('fill_constant', {}, {'Out': [alpha_param]},
                         {'shape': [1], 'dtype': int(VarType.FP32), 'value': float(alpha), 'force_cpu': False})
    diff = helper.create_variable_for_type_inference(dtype)
    loss = helper.create_variable_for_type_inference(dtype)
    helper.append_op('center_loss', {'X': [input], 'Label': [label], 'Centers': [centers],
                                     'CenterUpdateRate': [alpha_param]},
                     {'SampleCenterDiff': [diff], 'Loss': [loss], 'CentersOut': [centers]},
                     {'cluster_num': num_classes, 'need_update': update_center})
    return loss


def teacher_student_sigmoid_loss(input, label, soft_max_up_bound=15.0, soft_max_lower_bound=-15.0) -> Variable:
    """Click loss plus distillation from a teacher score encoded in the label (see
    kernels/loss_classification.py); [N, 1] logits and labels."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'teacher_student_sigmoid_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'teacher_student_sigmoid_loss')
    helper = LayerHelper('teacher_student_sigmoid_loss')
    out = unnamed_variable(helper, input.dtype)
    helper.append_op('teacher_student_sigmoid_loss', {'X': [input], 'Label': [label]}, {'Y': [out]},
                     {'soft_max_lower_bound': float(soft_max_lower_bound),
                      'soft_max_up_bound': float(soft_max_up_bound)})
    return out


def sigmoid_focal_loss(x, label, fg_num, gamma=2.0, alpha=0.25) -> Variable:
    """Focal loss of RetinaNet on [N, C] logits, [N, 1] int32 labels in 0..C (0: background) and the int32
    foreground count `fg_num`; returns [N, C]."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'sigmoid_focal_loss')
    check_variable_and_dtype(label, 'label', ['int32'], 'sigmoid_focal_loss')
    check_variable_and_dtype(fg_num, 'fg_num', ['int32'], 'sigmoid_focal_loss')
    helper = LayerHelper('sigmoid_focal_loss')
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('sigmoid_focal_loss', {'X': [x], 'Label': [label], 'FgNum': [fg_num]}, {'Out': [out]},
                     {'gamma': gamma, 'alpha': alpha})
    return out


def dice_loss(input, label, epsilon=0.00001, name=None) -> Variable:
    """1 - 2 |X n Y| / (|X| + |Y|) per sample, averaged: `input` probabilities [N, ..., C], `label` classes
    [N, ..., 1]."""
    label = one_hot(label, depth=input.shape[-1])
    reduce_dim = list(range(1, len(input.shape)))
    inse = reduce_sum(elementwise_mul(input, label), dim=reduce_dim)
    denominator = reduce_sum(input, dim=reduce_dim) + reduce_sum(label, dim=reduce_dim)
    dice_score = 1 - elementwise_div(inse * 2, denominator + epsilon)
    return reduce_mean(dice_score)


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None) -> tuple[Variable, Variable]:
    """Levenshtein distance of each hypothesis to its reference (divided by the reference length when
    `normalized`); returns (distances [N, 1] float32, sequence count [1] int64)."""
    check_variable_and_dtype(input, 'input', ['int64'], 'edit_distance')
    check_variable_and_dtype(label, 'label', ['int64'], 'edit_distance')
    helper = LayerHelper('edit_distance')
    if ignored_tokens:
        erased_input = helper.create_variable_for_type_inference(VarType.INT64)
        erased_label = helper.create_variable_for_type_inference(VarType.INT64)
        helper.append_op('sequence_erase', {'X': [input]}, {'Out': [erased_input]}, {'tokens': ignored_tokens})
        helper.append_op('sequence_erase', {'X': [label]}, {'Out': [erased_label]}, {'tokens': ignored_tokens})
        input, label = erased_input, erased_label
    inputs = {'Hyps': [input], 'Refs': [label]}
    if input_length is not None and label_length is not None:
        inputs['HypsLength'] = [input_length]
        inputs['RefsLength'] = [label_length]
    out = helper.create_variable_for_type_inference(VarType.INT64)
    sequence_num = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('edit_distance', inputs, {'Out': [out], 'SequenceNum': [sequence_num]},
                     {'normalized': normalized})
    return out, sequence_num


def chunk_eval(input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None, seq_length=None):
    """Chunk precision, recall and F1 of tagged sequences (IOB / IOE / IOBES / plain) and the chunk counts:
    (precision, recall, f1_score, num_infer_chunks, num_label_chunks, num_correct_chunks)."""
    check_variable_and_dtype(input, 'input', ['int64'], 'chunk_eval')
    check_variable_and_dtype(label, 'label', ['int64'], 'chunk_eval')
    helper = LayerHelper('chunk_eval')
    floats = [helper.create_variable_for_type_inference(VarType.FP32) for _ in range(3)]
    counts = [helper.create_variable_for_type_inference(VarType.INT64) for _ in range(3)]
    inputs = {'Inference': [input], 'Label': [label]}
    if seq_length is not None:
        inputs['SeqLength'] = [seq_length]
    names = ['Precision', 'Recall', 'F1-Score', 'NumInferChunks', 'NumLabelChunks', 'NumCorrectChunks']
    helper.append_op('chunk_eval', inputs, {n: [v] for n, v in zip(names, floats + counts)},
                     {'num_chunk_types': num_chunk_types, 'chunk_scheme': chunk_scheme,
                      'excluded_chunk_types': excluded_chunk_types or []})
    return tuple(floats + counts)
