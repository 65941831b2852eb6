"""Classification losses of paddle.nn.functional (Paddle 2.x signatures): nll_loss, margin_cross_entropy (one
card), class_center_sample, hsigmoid_loss, sigmoid_focal_loss, dice_loss, and rnnt_loss.

nll_loss, margin_cross_entropy, class_center_sample, hsigmoid_loss (`hierarchical_sigmoid`) and rnnt_loss
(`warprnnt`) append one op each as Paddle 2.6 does; sigmoid_focal_loss and dice_loss are built from tensor ops.

    loss = F.nll_loss(F.log_softmax(logits), label, weight=w, ignore_index=0)
    loss = F.margin_cross_entropy(cosine_logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0)
"""
from __future__ import annotations

from ...framework.dtype import convert_dtype
from ...framework.program import default_main_program
from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper
from ...tensor.manipulation import reshape, squeeze, unsqueeze
from ...tensor.math import divide, mean, multiply, pow, sum
from .activation import sigmoid
from .input import one_hot
from .loss import binary_cross_entropy_with_logits

__all__ = ['nll_loss', 'margin_cross_entropy', 'class_center_sample', 'hsigmoid_loss', 'sigmoid_focal_loss',
           'dice_loss', 'rnnt_loss']


def nll_loss(input, label, weight=None, ignore_index=-100, reduction='mean', name=None) -> Variable:
    """-input[label] (times weight[label]) per sample; inputs of rank 3 or more than 4 are viewed as [N, C, 1, -1]
    (and 'none' results reshaped back), as Paddle does."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in nll_loss should be 'sum', 'mean' or 'none', but received %s, "
                         "which is not allowed." % reduction)
    input_shape, label_shape = list(input.shape), list(label.shape)
    input_dims, label_dims = len(input_shape), len(label_shape)
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError('Expected input_dims - 1 = label_dims or input_dims == label_dims             (got '
                         'input_dims%d, label_dims%d)' % (input_dims, label_dims))
    if input_dims < 2:
        raise ValueError('Expected 2 or more dimensions (got {})'.format(input_dims))
    if input_shape[1] < 1:
        raise ValueError('Expected 1 or more classess (got num classes{})'.format(input_shape[1]))
    n, c = input_shape[0], input_shape[1]
    helper = LayerHelper('nll_loss', name=name)
    if input_dims not in (2, 4):
        input = reshape(input, shape=[n, c, 1, -1])
        label = reshape(label, shape=[n, 1, -1])
        out_shape = [n] + input_shape[2:]
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'nll_loss')
    check_variable_and_dtype(label, 'label', ['int64'], 'nll_loss')
    inputs = {'X': [input], 'Label': [label]}
    if isinstance(weight, Variable):
        inputs['Weight'] = [weight]
    out = helper.create_variable_for_type_inference(input.dtype)
    total_weight = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('nll_loss', inputs, {'Out': [out], 'Total_weight': [total_weight]},
                     {'reduction': reduction, 'ignore_index': ignore_index})
    if input_dims not in (2, 4) and reduction == 'none':
        out = reshape(out, shape=out_shape)
    return out


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None,
                         return_softmax=False, reduction='mean'):
    """ArcFace / CosFace / SphereFace combined margins on cosine logits, then softmax cross entropy; the class
    dimension on one card (`group` None or False)."""
    if reduction not in ('mean', 'sum', 'none', None):
        raise AssertionError("reduction should be 'mean', 'sum', 'none' or None, got %r" % (reduction,))
    if group not in (None, False):
        raise ValueError('margin_cross_entropy: paddle_exec runs on one card; give group=None (got %r)' % (group,))
    input_dims, label_dims = len(logits.shape), len(label.shape)
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError('Expected input_dims - 1 = label_dims or input_dims == label_dims             (got '
                         'input_dims{}, label_dims{})'.format(input_dims, label_dims))
    if input_dims - 1 == label_dims:
        label = unsqueeze(label, axis=-1)
    helper = LayerHelper('margin_cross_entropy')
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    check_variable_and_dtype(logits, 'logits', ['float16', 'float32', 'float64'], 'margin_cross_entropy')
    check_variable_and_dtype(label, 'label', ['int32', 'int64'], 'margin_cross_entropy')
    helper.append_op('margin_cross_entropy', {'Logits': [logits], 'Label': [label]},
                     {'Softmax': [softmax], 'Loss': [loss]},
                     {'return_softmax': return_softmax, 'ring_id': 0, 'rank': 0, 'nranks': 1, 'margin1': margin1,
                      'margin2': margin2, 'margin3': margin3, 'scale': scale})
    if reduction == 'mean':
        loss = mean(loss)
    elif reduction == 'sum':
        loss = sum(loss)
    return (loss, softmax) if return_softmax else loss


def class_center_sample(label, num_classes, num_samples, group=None):
    """PartialFC's sampling: every class in `label` (ascending) plus random negative classes up to
    `num_samples`; returns (label remapped to positions in the sample, the sampled class ids). Seeded by the
    program's random_seed when set (a fresh seed otherwise), drawing as Paddle's CPU kernel draws."""
    if group not in (None, False):
        raise ValueError('class_center_sample: paddle_exec runs on one card; give group=None (got %r)' % (group,))
    if num_samples > num_classes:
        raise ValueError('Expected num_samples less than or equal to {}, got num_samples {}'.format(
            num_classes, num_samples))
    size = 1
    for d in label.shape:
        size *= d
    if size != -1 and size < 1:
        raise ValueError('Expected label_size > 0              (got label_size: {})'.format(size))
    if len(label.shape) != 1:
        raise ValueError('Expected label_dims == 1              (got label_dims: {})'.format(len(label.shape)))
    seed = default_main_program().random_seed or None
    check_variable_and_dtype(label, 'label', ['int64', 'int32'], 'class_center_sample')
    helper = LayerHelper('class_center_sample')
    remapped = helper.create_variable_for_type_inference(label.dtype)
    sampled = helper.create_variable_for_type_inference(label.dtype)
    helper.append_op('class_center_sample', {'Label': [label]},
                     {'RemappedLabel': [remapped], 'SampledLocalClassCenter': [sampled]},
                     {'num_classes': num_classes, 'num_samples': num_samples, 'ring_id': 0, 'nranks': 1, 'rank': 0,
                      'fix_seed': seed is not None, 'seed': seed if seed is not None else 0})
    return remapped, sampled


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None, is_sparse=False,
                  name=None) -> Variable:
    """fluid's hsigmoid with the weight and bias given as tensors (the `hierarchical_sigmoid` op)."""
    if num_classes < 2:
        raise ValueError('Expected num_classes >= 2 (got {})'.format(num_classes))
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'hsigmoid_loss')
    check_variable_and_dtype(label, 'label', ['int64'], 'hsigmoid_loss')
    check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'hsigmoid_loss')
    inputs = {'X': [input], 'W': [weight], 'Label': [label]}
    for slot, value, dtypes in (('Bias', bias, ['float32', 'float64']), ('PathTable', path_table, ['int64']),
                                ('PathCode', path_code, ['int64'])):
        if value is not None:
            check_variable_and_dtype(value, slot.lower(), dtypes, 'hsigmoid_loss')
            inputs[slot] = [value]
    helper = LayerHelper('hsigmoid_loss', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    pre_out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('hierarchical_sigmoid', inputs, {'Out': [out], 'PreOut': [pre_out], 'W_Out': [weight]},
                     {'num_classes': num_classes, 'is_sparse': is_sparse})
    return out


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction='sum',
                       name=None) -> Variable:
    """alpha_t * (1 - p_t)^gamma * BCE(logit, label) (p_t the probability of the true outcome), divided by
    `normalizer` when given, then reduced ('sum' by default, as Paddle)."""
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in sigmoid_focal_loss should be 'sum', 'mean' or 'none', but "
                         "received %s, which is not allowed." % reduction)
    if normalizer is not None:
        check_variable_and_dtype(normalizer, 'normalizer', ['float32', 'float64'], 'sigmoid_focal_loss')
        if len(normalizer.shape) > 1:
            raise ValueError('Expected zero or one dimension of normalizer in sigmoid_focal_loss but got {}.'.format(
                len(normalizer.shape)))
    check_variable_and_dtype(logit, 'logit', ['float32', 'float64'], 'sigmoid_focal_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'sigmoid_focal_loss')
    bce_name = name if reduction == 'none' and normalizer is None else None
    loss = binary_cross_entropy_with_logits(logit, label, None, reduction='none', name=bce_name)
    pred = sigmoid(logit)
    p_t = pred * label + (1 - pred) * (1 - label)
    alpha_t = alpha * label + (1 - alpha) * (1 - label)
    loss = multiply(alpha_t, loss)
    loss = multiply(pow(1 - p_t, gamma), loss)
    if normalizer is not None:
        loss = divide(loss, normalizer, name=name if reduction == 'none' else None)
    if reduction == 'mean':
        return mean(loss, name=name)
    if reduction == 'sum':
        return sum(loss, name=name)
    return loss


def dice_loss(input, label, epsilon=0.00001, name=None) -> Variable:
    """1 - 2 |X n Y| / (|X| + |Y| + epsilon) per sample, averaged; `label` holds class ids with a last dimension
    of 1."""
    if convert_dtype(input.dtype) not in ('float32', 'float64'):
        raise AssertionError('dice_loss: input must be float32 or float64')
    if len(input.shape) < 2:
        raise AssertionError('The rank of input should be greater than or equal to 2.')
    if len(input.shape) != len(label.shape):
        raise AssertionError('The rank of input and label should be equal, but received input: %d, label: %d.'
                             % (len(input.shape), len(label.shape)))
    if label.shape[-1] != 1:
        raise AssertionError('The last dimension of label should be 1, but received %d.' % label.shape[-1])
    if tuple(input.shape[:-1]) != tuple(label.shape[:-1]):
        raise AssertionError('All dimensions should be equal except the last one.')
    label = one_hot(squeeze(label, [-1]), input.shape[-1])
    reduce_dim = list(range(1, len(input.shape)))
    inse = sum(multiply(input, label), axis=reduce_dim)
    denominator = sum(input, axis=reduce_dim) + sum(label, axis=reduce_dim)
    return mean(1 - inse * 2 / (denominator + epsilon))


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001, reduction='mean',
              name=None) -> Variable:
    """RNN-Transducer loss (Graves 2012) over logits [B, T, U + 1, V]: the `warprnnt` op gives each sequence's
    negative log-likelihood ('mean' divides the sum by B, as Paddle)."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'warprnnt')
    check_variable_and_dtype(label, 'label', ['int32'], 'warprnnt')
    check_variable_and_dtype(input_lengths, 'input_lengths', ['int32'], 'warprnnt')
    check_variable_and_dtype(label_lengths, 'label_lengths', ['int32'], 'warprnnt')
    if reduction not in ('mean', 'sum', 'none'):
        raise AssertionError("reduction should be 'mean', 'sum' or 'none', got %r" % (reduction,))
    helper = LayerHelper('warprnnt')
    loss = helper.create_variable_for_type_inference(input.dtype)
    grad = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('warprnnt', {'input': [input], 'label': [label], 'input_lengths': [input_lengths],
                                  'label_lengths': [label_lengths]},
                     {'warprnntgrad': [grad], 'loss': [loss]}, {'blank': blank, 'fastemit_lambda': fastemit_lambda})
    batch = input.shape[0]
    if reduction == 'mean':
        return sum(loss, name=name) / batch
    if reduction == 'sum':
        return sum(loss, name=name)
    return loss
