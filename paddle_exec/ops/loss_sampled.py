"""Loss ops over sampled or tree-coded classes: nce, hierarchical_sigmoid, sample_logits (numerics and the
samplers in kernels/loss_sampled.py and kernels/sampling.py).

Paddle 1.8's schemas and grad wiring:
- `nce_grad` reads Input, Label, Bias, Weight, SampleLogits, SampleLabels, SampleWeight, the custom-distribution
  tables and Cost@GRAD; it writes Input@GRAD, Weight@GRAD (a SelectedRows of the sampled rows with
  is_sparse=True), Bias@GRAD. The sampler is rebuilt from the attributes (seed, sampler) to get each class's
  probability, as Paddle's grad kernel does.
- `hierarchical_sigmoid_grad` reads X, W, Label, PathTable, PathCode, Bias, PreOut and Out@GRAD; W_Out is W
  itself (Paddle writes it only for remote prefetch). With is_sparse=True (custom trees), W@GRAD is a
  SelectedRows over the rows the paths use.
- `sample_logits_grad` reads Samples and SampledLogits@GRAD and scatters the latter into Logits@GRAD.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule
from ..framework.scope import SelectedRows
from ..kernels import loss_sampled as K

# --- nce ------------------------------------------------------------------------------------------------------

_NCE_TABLES = ['CustomDistProbs', 'CustomDistAlias', 'CustomDistAliasProbs']
_NCE_ATTRS = {'num_total_classes': 0, 'num_neg_samples': 10, 'seed': 0, 'sampler': 0, 'is_sparse': False,
              'remote_prefetch': False, 'custom_neg_classes': [], 'epmap': [], 'table_names': [],
              'height_sections': [], 'is_test': False}

defop('nce', ['Input', 'Label', 'Weight', 'Bias', 'SampleWeight'] + _NCE_TABLES,
      ['Cost', 'SampleLogits', 'SampleLabels'], _NCE_ATTRS, dispensable=['Bias', 'SampleWeight'] + _NCE_TABLES,
      stateful=True)
defop('nce_grad', ['Input', 'Label', 'Bias', 'Weight', 'SampleLogits', 'SampleLabels', 'SampleWeight']
      + _NCE_TABLES + ['Cost@GRAD'], ['Input@GRAD', 'Bias@GRAD', 'Weight@GRAD'], _NCE_ATTRS,
      dispensable=['Bias', 'SampleWeight', 'Input@GRAD', 'Bias@GRAD', 'Weight@GRAD'] + _NCE_TABLES)


@grad_rule('nce')
def _nce_grad_maker(g):
    inputs = {slot: g.input(slot) for slot in ['Input', 'Label', 'Weight'] if g.op.inputs.get(slot)}
    for slot in ['Bias', 'SampleWeight'] + _NCE_TABLES:
        if g.op.inputs.get(slot):
            inputs[slot] = g.input(slot)
    inputs.update({'SampleLogits': g.output('SampleLogits'), 'SampleLabels': g.output('SampleLabels'),
                   'Cost@GRAD': g.output_grad('Cost')})
    outputs = {'Input@GRAD': g.input_grad('Input'), 'Weight@GRAD': g.input_grad('Weight')}
    if g.op.inputs.get('Bias'):
        outputs['Bias@GRAD'] = g.input_grad('Bias')
    return [('nce_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('nce')
def _nce_shape(ctx):
    xs, ls, ws = ctx.in_shape('Input'), ctx.in_shape('Label'), ctx.in_shape('Weight')
    if xs[0] >= 0 and ls[0] >= 0 and xs[0] != ls[0]:
        raise ValueError("operator 'nce': The first dimension of Input(Input) and Input(Label) should be equal in "
                         "runtime, got %s and %s" % (list(xs), list(ls)))
    if len(ws) != 2 or (xs[-1] >= 0 and ws[1] >= 0 and xs[-1] != ws[1]):
        raise ValueError("operator 'nce': Input(Weight) should be [num_total_classes, dim] with dim = the last "
                         "dimension of Input(Input), got %s and %s" % (list(ws), list(xs)))
    if ctx.attr('num_total_classes') != ws[0] and ws[0] >= 0:
        raise ValueError("operator 'nce': The number of total classes should be equal to the first dimension of "
                         "Input(Weight), got %d and %d" % (ctx.attr('num_total_classes'), ws[0]))
    num_true = ls[1] if len(ls) == 2 else 1
    custom = ctx.attr('custom_neg_classes')
    width = num_true + (len(custom) if custom else ctx.attr('num_neg_samples'))
    ctx.set_output('Cost', (xs[0], 1), ctx.in_dtype('Input'))
    ctx.set_output('SampleLogits', (xs[0], width), ctx.in_dtype('Input'))
    ctx.set_output('SampleLabels', (xs[0], width), VarType.INT64)


@shape_rule('nce_grad')
def _nce_grad_shape(ctx):
    for slot, fwd in (('Input@GRAD', 'Input'), ('Bias@GRAD', 'Bias')):
        if ctx.has_output(slot):
            ctx.set_output(slot, ctx.in_shape(fwd), ctx.in_dtype(fwd))
    if ctx.has_output('Weight@GRAD'):
        kind = VarType.SELECTED_ROWS if ctx.attr('is_sparse') else VarType.LOD_TENSOR
        ctx.set_output('Weight@GRAD', ctx.in_shape('Weight'), ctx.in_dtype('Weight'), type=kind)


def _nce_settings(spec):
    custom = spec.attr('custom_neg_classes') or ()
    num_neg = len(custom) if custom else int(spec.attr('num_neg_samples'))
    return num_neg, int(spec.attr('sampler')), int(spec.attr('seed')), tuple(int(c) for c in custom)


def _custom_tables(probs, alias, alias_probs):
    return None if probs is None else (probs, alias, alias_probs)


@kernel_rule('nce')
def _nce(spec):
    num_neg, sampler, seed, custom_neg = _nce_settings(spec)

    def run(x, label, weight, bias, sample_weight, probs, alias, alias_probs):
        return K.nce_forward(x, label, weight, bias, sample_weight, num_neg, sampler, seed,
                             _custom_tables(probs, alias, alias_probs), custom_neg)
    return run


def _rows_of(labels, dw_dense):
    rows = np.unique(labels.reshape(-1))
    return SelectedRows(rows, dw_dense[rows], dw_dense.shape[0])


@kernel_rule('nce_grad')
def _nce_grad(spec):
    num_neg, sampler, seed, _ = _nce_settings(spec)
    sparse = bool(spec.attr('is_sparse'))
    want_x, want_w, want_b = (spec.has_output(s) for s in ('Input@GRAD', 'Weight@GRAD', 'Bias@GRAD'))

    def run(x, label, bias, weight, logits, labels, sample_weight, probs, alias, alias_probs, dcost):
        dx, dw, db = K.nce_backward(x, weight, want_b, sample_weight, logits, labels, dcost, num_neg, sampler, seed,
                                    _custom_tables(probs, alias, alias_probs))
        if sparse and want_w:
            dw = _rows_of(labels, dw)
        return (dx if want_x else None), (db if want_b else None), (dw if want_w else None)
    return run


# --- hierarchical_sigmoid ---------------------------------------------------------------------------------------

_HSIG_ATTRS = {'num_classes': 2, 'is_sparse': False, 'remote_prefetch': False, 'epmap': [], 'table_names': [],
               'height_sections': [], 'trainer_id': 0}
_HSIG_OPTIONAL = ['PathTable', 'PathCode', 'Bias']

defop('hierarchical_sigmoid', ['X', 'W', 'Label'] + _HSIG_OPTIONAL, ['Out', 'PreOut', 'W_Out'], _HSIG_ATTRS,
      dispensable=_HSIG_OPTIONAL + ['W_Out'])
defop('hierarchical_sigmoid_grad', ['X', 'W', 'Label'] + _HSIG_OPTIONAL + ['PreOut', 'Out@GRAD'],
      ['X@GRAD', 'W@GRAD', 'Bias@GRAD'], _HSIG_ATTRS,
      dispensable=_HSIG_OPTIONAL + ['X@GRAD', 'W@GRAD', 'Bias@GRAD'])


@grad_rule('hierarchical_sigmoid')
def _hsig_grad_maker(g):
    inputs = {slot: g.input(slot) for slot in ['X', 'W', 'Label'] + _HSIG_OPTIONAL if g.op.inputs.get(slot)}
    inputs.update({'PreOut': g.output('PreOut'), 'Out@GRAD': g.output_grad('Out')})
    outputs = {'X@GRAD': g.input_grad('X'), 'W@GRAD': g.input_grad('W')}
    if g.op.inputs.get('Bias'):
        outputs['Bias@GRAD'] = g.input_grad('Bias')
    return [('hierarchical_sigmoid_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('hierarchical_sigmoid')
def _hsig_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('PathTable'):
        length = ctx.in_shape('PathTable')[1]
    else:
        length = K.default_code_length(ctx.attr('num_classes'))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Out', (xs[0], 1), dtype)
    ctx.set_output('PreOut', (xs[0], length), dtype)
    if ctx.has_output('W_Out'):
        ctx.set_output('W_Out', ctx.in_shape('W'), ctx.in_dtype('W'))


@shape_rule('hierarchical_sigmoid_grad')
def _hsig_grad_shape(ctx):
    for slot, fwd in (('X@GRAD', 'X'), ('Bias@GRAD', 'Bias')):
        if ctx.has_output(slot):
            ctx.set_output(slot, ctx.in_shape(fwd), ctx.in_dtype(fwd))
    if ctx.has_output('W@GRAD'):
        kind = VarType.SELECTED_ROWS if ctx.attr('is_sparse') else VarType.LOD_TENSOR
        ctx.set_output('W@GRAD', ctx.in_shape('W'), ctx.in_dtype('W'), type=kind)


@kernel_rule('hierarchical_sigmoid')
def _hsig(spec):
    num_classes = int(spec.attr('num_classes'))

    def run(x, w, label, path_table, path_code, bias):
        nodes, bits, lengths = K.hsigmoid_paths(label, num_classes, path_table, path_code)
        out, pre = K.hsigmoid_forward(x, w, bias, nodes, bits, lengths)
        return out, pre, w
    return run


@kernel_rule('hierarchical_sigmoid_grad')
def _hsig_grad(spec):
    num_classes = int(spec.attr('num_classes'))
    sparse = bool(spec.attr('is_sparse'))
    want_x, want_w, want_b = (spec.has_output(s) for s in ('X@GRAD', 'W@GRAD', 'Bias@GRAD'))

    def run(x, w, label, path_table, path_code, bias, pre_out, dout):
        nodes, bits, lengths = K.hsigmoid_paths(label, num_classes, path_table, path_code)
        dx, dw, db = K.hsigmoid_backward(x, w, pre_out, nodes, bits, lengths, dout, want_b)
        if sparse and want_w:
            if path_table is None:
                raise ValueError("operator 'hierarchical_sigmoid_grad': Sparse mode should not be used without "
                                 "custom tree!")
            dw = _rows_of(nodes[nodes >= 0], dw)
        return (dx if want_x else None), (dw if want_w else None), (db if want_b else None)
    return run


# --- sample_logits --------------------------------------------------------------------------------------------

_SL_ATTRS = {'use_customized_samples': False, 'uniq': True, 'remove_accidental_hits': True, 'num_samples': 1,
             'seed': 0}
defop('sample_logits', ['Logits', 'Labels', 'CustomizedSamples', 'CustomizedProbabilities'],
      ['Samples', 'Probabilities', 'SampledLogits', 'SampledLabels', 'LogitsDim', 'LabelsDim'], _SL_ATTRS,
      dispensable=['CustomizedSamples', 'CustomizedProbabilities', 'LogitsDim', 'LabelsDim'], stateful=True)
defop('sample_logits_grad', ['LogitsDim', 'LabelsDim', 'Samples', 'SampledLogits@GRAD'], ['Logits@GRAD'],
      _SL_ATTRS, dispensable=['LogitsDim', 'LabelsDim'])


@grad_rule('sample_logits')
def _sample_logits_grad_maker(g):
    inputs = {'Samples': g.output('Samples'), 'SampledLogits@GRAD': g.output_grad('SampledLogits')}
    for slot in ('LogitsDim', 'LabelsDim'):
        if g.op.outputs.get(slot):
            inputs[slot] = g.output(slot)
    return [('sample_logits_grad', inputs, {'Logits@GRAD': g.input_grad('Logits')}, dict(g.attrs))]


@shape_rule('sample_logits')
def _sample_logits_shape(ctx):
    xs, ls = ctx.in_shape('Logits'), ctx.in_shape('Labels')
    if len(xs) != 2 or len(ls) != 2:
        raise ValueError("operator 'sample_logits': Logits and Labels should be 2-D, got %s and %s"
                         % (list(xs), list(ls)))
    width = ls[1] + ctx.attr('num_samples')
    dtype = ctx.in_dtype('Logits')
    if not ctx.attr('use_customized_samples'):
        ctx.set_output('Samples', (xs[0], width), VarType.INT64)
        ctx.set_output('Probabilities', (xs[0], width), dtype)
    ctx.set_output('SampledLogits', (xs[0], width), dtype)
    ctx.set_output('SampledLabels', tuple(ls), VarType.INT64)
    ctx.set_output('LogitsDim', (0,) + tuple(xs), dtype)
    ctx.set_output('LabelsDim', (0,) + tuple(ls), dtype)


@shape_rule('sample_logits_grad')
def _sample_logits_grad_shape(ctx):
    dims = ctx.input_var('LogitsDim')
    if dims is not None:
        ctx.set_output('Logits@GRAD', tuple(dims.shape[1:]), ctx.in_dtype('SampledLogits@GRAD'))


@kernel_rule('sample_logits')
def _sample_logits(spec):
    num_samples, seed = int(spec.attr('num_samples')), int(spec.attr('seed'))
    remove_hits, customized = bool(spec.attr('remove_accidental_hits')), bool(spec.attr('use_customized_samples'))

    def run(logits, labels, custom_samples, custom_probs):
        samples, probs, sampled, sampled_labels = K.sample_logits_forward(
            logits, labels, num_samples, seed, remove_hits,
            (custom_samples, custom_probs) if customized else None)
        # LogitsDim / LabelsDim carry only the shapes (for the gradient), as XShape does
        return (samples, probs, sampled, sampled_labels, np.empty((0,) + logits.shape, logits.dtype),
                np.empty((0,) + np.shape(labels), logits.dtype))
    return run


@kernel_rule('sample_logits_grad')
def _sample_logits_grad(spec):
    def run(logits_dim, labels_dim, samples, d_sampled):
        return (K.sample_logits_backward(logits_dim.shape[1:], samples, d_sampled, d_sampled.dtype),)
    return run


# --- class_center_sample (Paddle 2.x, one card) -----------------------------------------------------------------

defop('class_center_sample', ['Label'], ['RemappedLabel', 'SampledLocalClassCenter'],
      {'num_classes': 0, 'num_samples': 0, 'ring_id': 0, 'rank': 0, 'nranks': 1, 'fix_seed': False, 'seed': 0},
      stateful=True)


@shape_rule('class_center_sample')
def _class_center_sample_shape(ctx):
    ls = ctx.in_shape('Label')
    if len(ls) != 1:
        raise ValueError("operator 'class_center_sample': Rank of Input(Label) should be equal to 1, but the value "
                         "given is %d." % len(ls))
    if ctx.attr('nranks') != 1:
        raise ValueError("operator 'class_center_sample': paddle_exec runs on one card (nranks=1)")
    ctx.set_output('RemappedLabel', ls, ctx.in_dtype('Label'))
    ctx.set_output('SampledLocalClassCenter', (-1,), ctx.in_dtype('Label'))


@kernel_rule('class_center_sample')
def _class_center_sample(spec):
    num_classes, num_samples = int(spec.attr('num_classes')), int(spec.attr('num_samples'))
    if num_classes <= 0 or num_samples <= 0 or num_samples > num_classes:
        raise ValueError("operator 'class_center_sample': need 0 < num_samples <= num_classes, got num_samples %d "
                         "and num_classes %d" % (num_samples, num_classes))
    seed = int(spec.attr('seed')) if spec.attr('fix_seed') else 0
    return lambda label: K.class_center_sample(label, num_classes, num_samples, seed)
