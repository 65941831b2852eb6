"""Structured sequence losses and decoders with fluid 1.8's signatures, checks and names: linear_chain_crf and
crf_decoding (sharing the transition parameter by its ParamAttr name), warpctc and ctc_greedy_decoder (2.x's
paddle.nn.functional.ctc_loss builds on warpctc).

Each appends the ops of ops/crf.py and ops/ctc.py as 1.8's builder does (same slots, attributes and temporaries:
`linear_chain_crf_0.w_0`, `linear_chain_crf_0.tmp_3`, `warpctc_0.tmp_0`, ...). Every builder takes the LoD form
(a lod_level=1 input) or the padded form (lengths given), as 1.8 does.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Parameter, Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper
from .manipulation import squeeze
from .metric import topk

__all__ = ['linear_chain_crf', 'crf_decoding', 'warpctc', 'ctc_greedy_decoder', 'get_parameter']


def get_parameter(helper: LayerHelper, name: str) -> Parameter:
    """The main program's parameter called `name` (Paddle's LayerHelper.get_parameter)."""
    block = helper.main_program.global_block()
    param = block.vars.get(name)
    if not isinstance(param, Parameter):
        raise ValueError('no Parameter name %s found' % name)
    return param


def linear_chain_crf(input, label, param_attr=None, length=None) -> Variable:
    """The linear-chain CRF cost (log Z - score of the label sequence), one row per sequence; the transition
    parameter is [tags + 2, tags] (start weights, end weights, tag-to-tag weights)."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'linear_chain_crf')
    check_variable_and_dtype(label, 'label', ['int64'], 'linear_chain_crf')
    helper = LayerHelper('linear_chain_crf')
    size = input.shape[2] if length is not None else input.shape[1]
    transition = helper.create_parameter(param_attr, [size + 2, size], input.dtype)
    alpha, emission_exps, transition_exps, log_likelihood = (
        helper.create_variable_for_type_inference(input.dtype) for _ in range(4))
    inputs = {'Emission': [input], 'Transition': [transition], 'Label': [label]}
    if length is not None:
        inputs['Length'] = [length]
    helper.append_op('linear_chain_crf', inputs,
                     {'Alpha': [alpha], 'EmissionExps': [emission_exps], 'TransitionExps': [transition_exps],
                      'LogLikelihood': [log_likelihood]})
    return log_likelihood


def crf_decoding(input, param_attr, label=None, length=None) -> Variable:
    """The Viterbi path of each sequence under the transition parameter named by `param_attr` (made by
    linear_chain_crf); with `label`, 1 where the path equals the label and 0 elsewhere."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'crf_decoding')
    helper = LayerHelper('crf_decoding')
    transition = get_parameter(helper, param_attr.name)
    viterbi_path = helper.create_variable_for_type_inference(VarType.INT64)
    inputs = {'Emission': [input], 'Transition': [transition]}
    if label is not None:
        inputs['Label'] = [label]
    if length is not None:
        inputs['Length'] = [length]
    helper.append_op('crf_decoding', inputs, {'ViterbiPath': [viterbi_path]})
    return viterbi_path


def warpctc(input, label, blank=0, norm_by_times=False, input_length=None, label_length=None,
            _float_types=('float32',)) -> Variable:
    """The CTC loss of each sequence ([batch, 1]): LoD logits [Lp, C] and int32 LoD labels, or padded
    time-major logits [max_T, batch, C] with labels [batch, max_L] and int64 input_length / label_length."""
    helper = LayerHelper('warpctc')
    check_variable_and_dtype(input, 'input', list(_float_types), 'warpctc')
    check_variable_and_dtype(label, 'label', ['int32'], 'warpctc')
    inputs = {'Logits': [input], 'Label': [label]}
    if input_length is not None and label_length is not None:
        check_variable_and_dtype(input_length, 'LogitsLength', ['int64'], 'warpctc')
        check_variable_and_dtype(label_length, 'LabelLength', ['int64'], 'warpctc')
        inputs['LogitsLength'] = [input_length]
        inputs['LabelLength'] = [label_length]
    loss_out = helper.create_variable_for_type_inference(input.dtype)
    grad_out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('warpctc', inputs, {'WarpCTCGrad': [grad_out], 'Loss': [loss_out]},
                     {'blank': blank, 'norm_by_times': norm_by_times})
    return loss_out


def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Best class per step (top_k), then repeated ids merged and blanks removed per sequence (ctc_align): a LoD
    tensor of ids, or with `input_length` ([batch, N, C] input) the padded ids and their lengths."""
    helper = LayerHelper('ctc_greedy_decoder', name=name)
    _, topk_indices = topk(input, k=1)
    ctc_out = helper.create_variable_for_type_inference(VarType.INT64)
    if input_length is None:
        helper.append_op('ctc_align', {'Input': [topk_indices]}, {'Output': [ctc_out]},
                         {'merge_repeated': True, 'blank': blank})
        return ctc_out
    ctc_out_len = helper.create_variable_for_type_inference(VarType.INT64)
    ctc_input = squeeze(topk_indices, [2])
    helper.append_op('ctc_align', {'Input': [ctc_input], 'InputLength': [input_length]},
                     {'Output': [ctc_out], 'OutputLength': [ctc_out_len]},
                     {'merge_repeated': True, 'blank': blank, 'padding_value': padding_value})
    return ctc_out, ctc_out_len

