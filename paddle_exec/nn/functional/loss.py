"""Losses (paddle.nn.functional, Paddle 2.x signatures) over the shared loss layers.

`reduction` follows Paddle 2.x: 'none' keeps the elementwise loss, 'mean' / 'sum' append paddle.mean /
paddle.sum (the tensor API's reduce ops). F.cross_entropy with `use_softmax=True` (the default) is one
`softmax_with_cross_entropy` op with the 2.x `use_softmax` attribute; a label of rank input.rank - 1 is first
unsqueezed at `axis`, as Paddle does; per-class `weight` and `label_smoothing` follow Paddle 2.6.
"""
from __future__ import annotations

from ... import tensor
from ...framework import unique_name
from ...framework.dtype import VarType
from ...layers import loss as _loss
from ...layers import math as _math
from ...layers.checks import check_variable_and_dtype
from ...layers.creation import fill_constant
from ...layers.helper import LayerHelper
from .common import label_smooth
from .input import one_hot

__all__ = ['square_error_cost', 'mse_loss', 'cross_entropy', 'softmax_with_cross_entropy', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'log_loss']

log_loss = _loss.log_loss


def _tensor_api(name: str):
    """paddle.<name> of the tensor API (sum, unsqueeze, cast, ...), looked up when a loss needs it."""
    fn = getattr(tensor, name, None)
    if fn is None:
        raise NotImplementedError('paddle.%s is not available in paddle_exec yet (needed by this loss)' % name)
    return fn


def _check_reduction(reduction, api):
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in %s should be 'sum', 'mean' or 'none', but received %s, which "
                         "is not allowed." % (api, reduction))


def _reduce(out, reduction, name=None):
    if reduction == 'sum':
        return _tensor_api('sum')(out, name=name)
    if reduction == 'mean':
        return _tensor_api('mean')(out, name=name)
    return out


def square_error_cost(input, label):
    return _loss.square_error_cost(input, label)


def mse_loss(input, label, reduction='mean', name=None):
    """F.mse_loss: square(input - label), then the reduction."""
    _check_reduction(reduction, 'MSELoss')
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'mse_loss')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'mse_loss')
    diff = _math.elementwise_sub(input, label)
    if reduction == 'none':
        return _math.unary('square', diff, name=name)
    return _reduce(_math.unary('square', diff), reduction, name)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """F.softmax_with_cross_entropy: the fluid layer (unreduced loss with 1 at `axis`)."""
    return _loss.softmax_with_cross_entropy(logits, label, soft_label, ignore_index, numeric_stable_mode,
                                            return_softmax, axis)


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction='mean', soft_label=False, axis=-1,
                  use_softmax=True, label_smoothing=0.0, name=None):
    """F.cross_entropy: softmax (unless use_softmax=False) + cross entropy along `axis`, then the reduction.

    As Paddle 2.6: `label_smoothing` > 0 turns hard labels into smoothed one-hot soft labels; `weight` (one per
    class) multiplies each sample's loss by its label's weight (soft labels: the label-weighted sum), ignored
    labels weighing 0; 'mean' with ignore_index >= 0 divides the summed loss by the number (or the total weight)
    of the labels not ignored, with a weight by the total weight, else it is paddle.mean.
    """
    _check_reduction(reduction, 'softmax_cross_entropy')
    if ignore_index > 0 and soft_label:
        raise ValueError("When soft_label == True, the value of 'ignore_index' in softmax_cross_entropyshould be "
                         "'-100', but received %s, which is not allowed." % ignore_index)
    input_dims, label_dims = len(input.shape), len(label.shape)
    if input_dims == 0:
        raise ValueError('The dimention of input should be larger than zero!')
    if input_dims - 1 == label_dims:
        label = _tensor_api('unsqueeze')(label, axis=axis)
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError('Expected nput_dims - 1 = label_dims or input_dims == label_dims (got nput_dims%d, '
                         'label_dims%d)' % (input_dims, label_dims))
    if label_smoothing > 0.0:
        soft_label = True
        if input_dims - 1 == label_dims:
            label = _tensor_api('squeeze')(label, axis=axis)
            label = one_hot(label, input.shape[-1])
        label = label_smooth(label, epsilon=label_smoothing)
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'softmax_cross_entropy')
    check_variable_and_dtype(label, 'label', ['uint8', 'int8', 'int16', 'int32', 'int64', 'float32', 'float64'],
                             'softmax_cross_entropy')
    out, _ = _loss.softmax_with_cross_entropy_op(input, label, soft_label, ignore_index, True, axis,
                                                 use_softmax=use_softmax)
    weights = None
    if weight is not None:
        check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'softmax_cross_entropy')
        weights = _sample_weights(input, label, weight, soft_label, ignore_index, axis, out)
        out = _tensor_api('multiply')(out, weights, name=name if reduction == 'none' else None)
    if reduction == 'sum':
        return _reduce(out, 'sum', name)
    if reduction == 'mean':
        if ignore_index >= 0:
            return _mean_over_kept_labels(out, label, ignore_index, name, weights)
        if weights is not None:
            return _divide_by_nonzero(_tensor_api('sum')(out, name=name), _tensor_api('sum')(weights))
        return _reduce(out, 'mean', name)
    if input_dims - 1 == label_dims:
        out = _tensor_api('squeeze')(out, axis=axis)
    return out


def _sample_weights(input, label, weight, soft_label, ignore_index, axis, out):
    """Each sample's weight, shaped like the loss: label @ weight for soft labels, weight[label] (0 where
    ignored) for hard ones."""
    api = _tensor_api
    if soft_label:
        gathered = api('matmul')(api('cast')(label, weight.dtype), weight, transpose_x=False, transpose_y=True)
        return api('reshape')(gathered, shape=list(out.shape))
    if input.shape[axis] != weight.shape[-1]:
        raise ValueError("input's class_dimension({}) must equal to weight's class_dimension({}) when weight is "
                         "provided".format(input.shape[axis], weight.shape[-1]))
    kept = api('not_equal')(label, fill_constant([1], label.dtype, ignore_index))
    valid_label = api('multiply')(api('cast')(kept, label.dtype), label)
    mask = api('cast')(kept, input.dtype)
    if len(mask.shape) > 1 and mask.shape[axis] == 1:
        mask = api('squeeze')(mask, axis)
    rank = len(valid_label.shape)
    if axis != -1 and axis != rank - 1:
        perm = list(range(axis % rank)) + list(range(axis % rank + 1, rank)) + [axis % rank]
        valid_label = api('transpose')(valid_label, perm)
    gathered = api('multiply')(api('gather_nd')(weight, valid_label), mask)
    return api('reshape')(gathered, shape=list(label.shape))


def _divide_by_nonzero(total, count):
    """total / (count + (count == 0)): Paddle 2.x's guard against an empty denominator."""
    is_zero = _tensor_api('cast')(_tensor_api('equal')(count, fill_constant([1], count.dtype, 0.0)), count.dtype)
    return _math.elementwise_div(total, _math.elementwise_add(count, is_zero))


def _mean_over_kept_labels(out, label, ignore_index, name, weights=None):
    """sum(loss) / the count (or, with weights, the total weight) of the labels not ignored, as Paddle 2.x
    builds it."""
    sum_ = _tensor_api('sum')
    out_sum = sum_(out, name=name)
    ignore = fill_constant([1], label.dtype, ignore_index)
    mask = _tensor_api('cast')(_tensor_api('not_equal')(label, ignore), out_sum.dtype)
    if weights is not None:
        mask = _tensor_api('multiply')(mask, weights)
    return _divide_by_nonzero(out_sum, sum_(mask, name=name))


def binary_cross_entropy(input, label, weight=None, reduction='mean', name=None):
    """F.binary_cross_entropy on probabilities: the `bce_loss` op, times `weight`, then the reduction."""
    _check_reduction(reduction, 'binary_cross_entropy')
    out = _loss.bce(input, label, name=name if weight is None and reduction == 'none' else None)
    if weight is not None:
        out = _math.elementwise_mul(out, weight, name=name if reduction == 'none' else None)
    return _reduce(out, reduction, name)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction='mean', pos_weight=None, name=None):
    """F.binary_cross_entropy_with_logits: `sigmoid_cross_entropy_with_logits`, times `1 + (pos_weight - 1) *
    label` and `weight` when given, then the reduction."""
    _check_reduction(reduction, 'binary_cross_entropy_with_logits')
    check_variable_and_dtype(logit, 'logit', ['float32', 'float64'], 'binary_cross_entropy_with_logits')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'binary_cross_entropy_with_logits')
    plain = reduction == 'none' and pos_weight is None and weight is None
    out = _loss.sigmoid_cross_entropy_with_logits(logit, label, name=name if plain else None)
    if pos_weight is not None:
        check_variable_and_dtype(pos_weight, 'pos_weight', ['float32', 'float64'],
                                 'binary_cross_entropy_with_logits')
        one = fill_constant([1], logit.dtype, 1.0)
        log_weight = _math.elementwise_add(_math.elementwise_mul(label, _math.elementwise_sub(pos_weight, one)), one)
        out = _math.elementwise_mul(out, log_weight,
                                    name=name if reduction == 'none' and weight is None else None)
    if weight is not None:
        check_variable_and_dtype(weight, 'weight', ['float32', 'float64'], 'binary_cross_entropy_with_logits')
        out = _math.elementwise_mul(out, weight, name=name if reduction == 'none' else None)
    return _reduce(out, reduction, name)


# ---------------------------------------------------------------------------------------------------------------
# smooth_l1_loss (the `huber_loss` op), kl_div (Paddle 2.4 static mode)

__all__ += ['smooth_l1_loss', 'kl_div']


def smooth_l1_loss(input, label, reduction='mean', delta=1.0, name=None):
    """F.smooth_l1_loss: Paddle 2.x builds `huber_loss` (0.5 * z^2 if |z| <= delta else delta * (|z| - delta /
    2)) under the helper `huber_loss`, then paddle.mean / paddle.sum."""
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'smooth_l1_loss')
    check_variable_and_dtype(label, 'label', ['float16', 'float32', 'float64'], 'smooth_l1_loss')
    helper = LayerHelper('huber_loss', name=name)
    residual = helper.create_variable_for_type_inference(input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('huber_loss', {'X': [input], 'Y': [label]}, {'Out': [out], 'Residual': [residual]},
                     {'delta': delta})
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in smooth_l1_loss should be 'sum', 'mean' or 'none', but received "
                         "%s, which is not allowed." % reduction)
    return _reduce(out, reduction)


def kl_div(input, label, reduction='mean', name=None):
    """F.kl_div: `kldiv_loss` with reduction 'none' (helper `kl_div`), then paddle.mean / paddle.sum, or for
    'batchmean' sum / shape(input)[0] cast to the loss type, as Paddle 2.x builds it. A float32 / float64 pair is
    cast to float64 first."""
    cast = _tensor_api('cast')
    if input.dtype == VarType.FP32 and label.dtype == VarType.FP64:
        input = cast(input, 'float64')
    elif input.dtype == VarType.FP64 and label.dtype == VarType.FP32:
        label = cast(label, 'float64')
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'kl_div')
    check_variable_and_dtype(label, 'label', ['float32', 'float64'], 'kl_div')
    if not isinstance(reduction, str):
        raise TypeError("The type of 'reduction' in kl_div must be %s, but received %s. " % (str, type(reduction)))
    loss = _loss.kldiv_loss_op(input, label, 'none', LayerHelper('kl_div', name=name))
    if reduction in ('mean', 'sum'):
        return _reduce(loss, reduction)
    if reduction == 'batchmean':
        batch_size = _tensor_api('shape')(input)[0]
        total = _tensor_api('sum')(loss)
        return _divide_by_int(total, batch_size)
    return loss


def _divide_by_int(x, n):
    """x / n for an int tensor n as Paddle 2.x's `/` operator builds it: `cast` n to x's type, `elementwise_div`,
    both into temporaries named tmp_K."""
    block = x.block.program.current_block()
    n_float = block.create_var(name=unique_name.generate_with_ignorable_key('tmp'), dtype=x.dtype)
    block.append_op('cast', {'X': [n]}, {'Out': [n_float]}, {'in_dtype': int(n.dtype), 'out_dtype': int(x.dtype)})
    out = block.create_var(name=unique_name.generate_with_ignorable_key('tmp'), dtype=x.dtype)
    block.append_op('elementwise_div', {'X': [x], 'Y': [n_float]}, {'Out': [out]}, {'axis': -1})
    return out
