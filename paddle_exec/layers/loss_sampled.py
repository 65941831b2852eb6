"""Losses over many classes that look at only some of them (fluid 1.x signatures): nce (noise-contrastive
estimation), hsigmoid (hierarchical sigmoid over a binary class tree) and sampled_softmax_with_cross_entropy.
Built as Paddle 1.8.5 builds them: parameters `nce_N.w_0` [num_total_classes, dim] / `nce_N.b_0`,
`hierarchical_sigmoid_N.w_0` [num_classes - 1, dim] (custom tree: [num_classes, dim]) / `.b_0`; nce returns its
`Cost` divided by num_neg_samples + 1 (a `scale` op), sampled softmax its loss divided by num_true.

Sampling follows Paddle's samplers draw for draw (kernels/sampling.py): with the same `seed`, paddle_exec samples
the classes real Paddle samples; seed 0 means a fresh random seed at each run, as in Paddle.

    cost = fluid.layers.nce(input=emb, label=word, num_total_classes=10000, num_neg_samples=5, seed=1)
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..initializer import NumpyArrayInitializer
from ..param_attr import ParamAttr
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['nce', 'hsigmoid', 'sampled_softmax_with_cross_entropy']

_SAMPLERS = {'uniform': 0, 'log_uniform': 1, 'custom_dist': 2}


def _alias_tables(custom_dist, n: int):
    """Walker's alias tables, computed as fluid.layers.nce computes them (queues of big and little buckets)."""
    alias_probs, alias = [0] * n, [0] * n
    bigs, littles = [], []
    for i in range(n):
        normal_prob = custom_dist[i] * n
        if normal_prob - 1.0 > 0:
            bigs.append((i, normal_prob))
        elif 1.0 - normal_prob > 0:
            littles.append((i, normal_prob))
        else:
            alias_probs[i], alias[i] = normal_prob, -1
    while bigs and littles:
        big, little = bigs.pop(0), littles.pop(0)
        alias_probs[little[0]], alias[little[0]] = little[1], big[0]
        big_left = big[1] + little[1] - 1
        if big_left - 1.0 > 0:
            bigs.append((big[0], big_left))
        elif 1.0 - big_left > 0:
            littles.append((big[0], big_left))
        else:
            alias_probs[big[0]], alias[big[0]] = big_left, -1
    for rest in (bigs, littles):
        if rest:
            i, _ = rest.pop(0)
            alias_probs[i], alias[i] = 1.0, -1
    return alias, alias_probs


def _constant_parameter(helper: LayerHelper, array: np.ndarray) -> Variable:
    param = helper.create_parameter(ParamAttr(), list(array.shape), array.dtype.name,
                                    default_initializer=NumpyArrayInitializer(array))
    param.stop_gradient = True
    return param


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None, bias_attr=None, num_neg_samples=None,
        name=None, sampler='uniform', custom_dist=None, seed=0, is_sparse=False) -> Variable:
    """Noise-contrastive estimation: each row's true labels against `num_neg_samples` classes drawn from
    `sampler` ('uniform', 'log_uniform' or 'custom_dist' with probabilities `custom_dist`); returns [N, 1]."""
    helper = LayerHelper('nce', name=name)
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'nce')
    check_variable_and_dtype(label, 'label', ['int64'], 'nce')
    dim = input.shape[1]
    w = helper.create_parameter(param_attr, [num_total_classes, dim], input.dtype)
    inputs = {}
    if bias_attr is not False:
        b = helper.create_parameter(bias_attr, [num_total_classes, 1], input.dtype, is_bias=True)
        inputs['Bias'] = [b]
    cost = helper.create_variable_for_type_inference(input.dtype)
    sample_logits = helper.create_variable_for_type_inference(input.dtype)
    sample_labels = helper.create_variable_for_type_inference(label.dtype)
    inputs.update({'Input': [input], 'Label': [label], 'Weight': [w]})
    inputs['SampleWeight'] = [sample_weight] if sample_weight is not None else []
    if sampler not in _SAMPLERS:
        raise Exception('Unsupported sampler type.')
    if sampler == 'custom_dist':
        if custom_dist is None:
            raise AssertionError('custom_dist must be given with sampler="custom_dist"')
        alias, alias_probs = _alias_tables(custom_dist, num_total_classes)
        inputs['CustomDistProbs'] = [_constant_parameter(helper, np.array(custom_dist).astype('float32'))]
        inputs['CustomDistAlias'] = [_constant_parameter(helper, np.array(alias).astype('int32'))]
        inputs['CustomDistAliasProbs'] = [_constant_parameter(helper, np.array(alias_probs).astype('float32'))]
    num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
    attrs = {'num_total_classes': int(num_total_classes), 'num_neg_samples': num_neg_samples, 'seed': seed,
             'sampler': _SAMPLERS[sampler], 'is_sparse': is_sparse, 'remote_prefetch': is_sparse}
    helper.append_op('nce', inputs, {'Cost': [cost], 'SampleLogits': [sample_logits],
                                     'SampleLabels': [sample_labels]}, attrs)
    return cost / (num_neg_samples + 1)


def hsigmoid(input, label, num_classes, param_attr=None, bias_attr=None, name=None, path_table=None, path_code=None,
             is_custom=False, is_sparse=False) -> Variable:
    """Hierarchical sigmoid: the loss of the path to `label` in the default complete binary tree over
    `num_classes`, or in a custom tree (`is_custom`, per-sample `path_table` nodes and `path_code` bits)."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'hsigmoid')
    check_variable_and_dtype(label, 'label', ['int64'], 'hsigmoid')
    helper = LayerHelper('hierarchical_sigmoid', name=name)
    dtype = input.dtype
    out = helper.create_variable_for_type_inference(dtype)
    pre_out = helper.create_variable_for_type_inference(dtype)
    dim = input.shape[1]
    if (num_classes is None or num_classes < 2) and not is_custom:
        raise ValueError('num_classes must not be less than 2 with default tree')
    if not is_custom and is_sparse:
        is_sparse = False          # Paddle prints "Sparse mode should not be used without custom tree"
    if not is_custom and (path_table is not None or path_code is not None):
        raise ValueError('only num_classes should be passed without custom tree')
    if is_custom and path_code is None:
        raise ValueError('path_code should not be None with custom tree')
    if is_custom and path_table is None:
        raise ValueError('path_table should not be None with custom tree')
    if is_custom and num_classes is None:
        raise ValueError('num_classes should not be None with custom tree')
    rows = num_classes if is_custom else num_classes - 1
    weights = helper.create_parameter(param_attr, [rows, dim], dtype)
    inputs = {'X': [input], 'W': [weights], 'Label': [label]}
    if path_table is not None:
        inputs['PathTable'] = [path_table]
    if path_code is not None:
        inputs['PathCode'] = [path_code]
    if bias_attr is not False:
        inputs['Bias'] = [helper.create_parameter(bias_attr, [rows, 1], dtype, is_bias=True)]
    helper.append_op('hierarchical_sigmoid', inputs, {'Out': [out], 'PreOut': [pre_out], 'W_Out': [weights]},
                     {'num_classes': num_classes, 'is_sparse': is_sparse, 'remote_prefetch': is_sparse})
    return out


def sampled_softmax_with_cross_entropy(logits, label, num_samples, num_true=1, remove_accidental_hits=True,
                                       use_customized_samples=False, customized_samples=None,
                                       customized_probabilities=None, seed=0) -> Variable:
    """Softmax cross entropy over the true classes and `num_samples` classes drawn (log-uniformly, without
    repetition) for the batch, with logits corrected by the sampling probability; returns [N, 1]."""
    helper = LayerHelper('sample_logits')
    samples = customized_samples if use_customized_samples else \
        helper.create_variable_for_type_inference(VarType.INT64)
    probabilities = customized_probabilities if use_customized_samples else \
        helper.create_variable_for_type_inference(logits.dtype)
    sampled_logits = helper.create_variable_for_type_inference(logits.dtype)
    sampled_label = helper.create_variable_for_type_inference(VarType.INT64)
    sampled_softlabel = helper.create_variable_for_type_inference(logits.dtype)
    logits_dim = helper.create_variable_for_type_inference(logits.dtype)
    labels_dim = helper.create_variable_for_type_inference(logits.dtype)
    inputs = {'Logits': [logits], 'Labels': [label]}
    if use_customized_samples:
        inputs['CustomizedSamples'] = [customized_samples]
        inputs['CustomizedProbabilities'] = [customized_probabilities]
    helper.append_op('sample_logits', inputs,
                     {'Samples': [samples], 'Probabilities': [probabilities], 'SampledLabels': [sampled_label],
                      'SampledLogits': [sampled_logits], 'LogitsDim': [logits_dim], 'LabelsDim': [labels_dim]},
                     {'use_customized_samples': use_customized_samples, 'uniq': True,
                      'remove_accidental_hits': remove_accidental_hits, 'num_samples': num_samples, 'seed': seed})
    loss = helper.create_variable_for_type_inference(logits.dtype)
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op('one_hot', {'X': [sampled_label]}, {'Out': [sampled_softlabel]}, {'depth': num_samples + 1})
    helper.append_op('softmax_with_cross_entropy', {'Logits': [sampled_logits], 'Label': [sampled_softlabel]},
                     {'Softmax': [softmax], 'Loss': [loss]},
                     {'soft_label': True, 'ignore_index': False, 'numeric_stable_mode': False})
    return loss / num_true
