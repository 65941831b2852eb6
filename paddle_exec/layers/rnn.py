"""Recurrent-op builders with fluid 1.8's signatures, checks and names: dynamic_lstm, dynamic_lstmp, dynamic_gru,
lstm_unit and gru_unit (fluid.layers.rnn).

Each appends the op of ops/rnn.py exactly as 1.8's builder does: the same parameters (`lstm_0.w_0` [F, 4F],
`lstm_0.b_0` [1, 7F] with peepholes, `gru_0.w_0` [F, 3F], ...), temporaries and attributes. Two of 1.8's quirks are
kept because programs depend on them: gru_unit always writes activation 2 (tanh) and gate_activation 1 (sigmoid)
whatever it is given, and lstm_unit first concatenates x_t and hidden_t_prev and projects them with an `fc`.
"""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .common import fc
from .helper import LayerHelper
from .manipulation import concat

__all__ = ['dynamic_lstm', 'dynamic_lstmp', 'dynamic_gru', 'gru_unit', 'lstm_unit']

_FLOATS = ['float32', 'float64']


def _check_initial(value, name: str, op_name: str) -> None:
    check_type(value, name, (Variable, type(None)), op_name)
    if isinstance(value, Variable):
        check_variable_and_dtype(value, name, _FLOATS, op_name)


def dynamic_lstm(input, size, h_0=None, c_0=None, param_attr=None, bias_attr=None, use_peepholes=True,
                 is_reverse=False, gate_activation='sigmoid', cell_activation='tanh', candidate_activation='tanh',
                 dtype='float32', name=None):
    """An LSTM over each sequence of `input` ([T, size], the projected input; size = 4 * hidden). Returns
    (hidden, cell), both [T, size // 4] with input's LoD."""
    assert bias_attr is not False, "bias_attr should not be False in dynamic_lstm."
    check_variable_and_dtype(input, 'input', _FLOATS, 'dynamic_lstm')
    _check_initial(h_0, 'h_0', 'dynamic_lstm')
    _check_initial(c_0, 'c_0', 'dynamic_lstm')
    helper = LayerHelper('lstm', name=name)
    size = size // 4
    weight = helper.create_parameter(param_attr, [size, 4 * size], dtype)
    bias = helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * size], dtype, is_bias=True)
    hidden = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    batch_gate = helper.create_variable_for_type_inference(dtype)
    batch_cell_pre_act = helper.create_variable_for_type_inference(dtype)
    inputs = {'Input': [input], 'Weight': [weight], 'Bias': [bias]}
    batch_size = input.shape[0]
    if h_0 is not None:
        assert tuple(h_0.shape) == (batch_size, size), 'The shape of h0 should be (batch_size, %d)' % size
        inputs['H0'] = [h_0]
    if c_0 is not None:
        assert tuple(c_0.shape) == (batch_size, size), 'The shape of c0 should be (batch_size, %d)' % size
        inputs['C0'] = [c_0]
    helper.append_op('lstm', inputs,
                     {'Hidden': [hidden], 'Cell': [cell], 'BatchGate': [batch_gate],
                      'BatchCellPreAct': [batch_cell_pre_act]},
                     {'use_peepholes': use_peepholes, 'is_reverse': is_reverse, 'gate_activation': gate_activation,
                      'cell_activation': cell_activation, 'candidate_activation': candidate_activation})
    return hidden, cell


def dynamic_lstmp(input, size, proj_size, param_attr=None, bias_attr=None, use_peepholes=True, is_reverse=False,
                  gate_activation='sigmoid', cell_activation='tanh', candidate_activation='tanh',
                  proj_activation='tanh', dtype='float32', name=None, h_0=None, c_0=None, cell_clip=None,
                  proj_clip=None):
    """An LSTM with a recurrent projection of size proj_size. Returns (projection [T, proj_size], cell
    [T, size // 4])."""
    assert bias_attr is not False, "bias_attr should not be False in dynamic_lstmp."
    check_variable_and_dtype(input, 'input', _FLOATS, 'dynamic_lstmp')
    _check_initial(h_0, 'h_0', 'dynamic_lstmp')
    _check_initial(c_0, 'c_0', 'dynamic_lstmp')
    helper = LayerHelper('lstmp', name=name)
    size = size // 4
    weight = helper.create_parameter(param_attr, [proj_size, 4 * size], dtype)
    proj_weight = helper.create_parameter(param_attr, [size, proj_size], dtype)
    bias = helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * size], dtype, is_bias=True)
    projection = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    helper.create_variable_for_type_inference(dtype)          # 1.8 makes an ordered_proj0 temporary it never uses
    batch_hidden = helper.create_variable_for_type_inference(dtype)
    batch_gate = helper.create_variable_for_type_inference(dtype)
    batch_cell_pre_act = helper.create_variable_for_type_inference(dtype)
    inputs = {'Input': [input], 'Weight': [weight], 'ProjWeight': [proj_weight], 'Bias': [bias]}
    batch_size = input.shape[0]
    if h_0 is not None:
        assert tuple(h_0.shape) == (batch_size, proj_size), 'The shape of h0 should be (batch_size, %d)' % proj_size
        inputs['H0'] = [h_0]
    if c_0 is not None:
        assert tuple(c_0.shape) == (batch_size, size), 'The shape of c0 should be (batch_size, %d)' % size
        inputs['C0'] = [c_0]
    if cell_clip:
        assert cell_clip >= 0, "cell_clip should not be negative."
    if proj_clip:
        assert proj_clip >= 0, "proj_clip should not be negative."
    helper.append_op('lstmp', inputs,
                     {'Projection': [projection], 'Cell': [cell], 'BatchHidden': [batch_hidden],
                      'BatchGate': [batch_gate], 'BatchCellPreAct': [batch_cell_pre_act]},
                     {'use_peepholes': use_peepholes, 'cell_clip': float(cell_clip or 0.0),
                      'proj_clip': float(proj_clip or 0.0), 'is_reverse': is_reverse,
                      'gate_activation': gate_activation, 'cell_activation': cell_activation,
                      'candidate_activation': candidate_activation, 'proj_activation': proj_activation})
    return projection, cell


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False, gate_activation='sigmoid',
                candidate_activation='tanh', h_0=None, origin_mode=False):
    """A GRU over each sequence of `input` ([T, 3 * size], the projected input). Returns hidden [T, size]."""
    check_variable_and_dtype(input, 'input', _FLOATS, 'dynamic_gru')
    _check_initial(h_0, 'h_0', 'dynamic_gru')
    helper = LayerHelper('gru')
    dtype = input.dtype
    weight = helper.create_parameter(param_attr, [size, 3 * size], dtype)
    bias = helper.create_parameter(bias_attr, [1, 3 * size], dtype, is_bias=True)
    batch_size = input.shape[0]
    inputs = {'Input': [input], 'Weight': [weight]}
    if bias is not None:
        inputs['Bias'] = [bias]
    if h_0 is not None:
        assert tuple(h_0.shape) == (batch_size, size), 'The shape of h0 should be(batch_size, %d)' % size
        inputs['H0'] = [h_0]
    hidden = helper.create_variable_for_type_inference(dtype)
    batch_gate = helper.create_variable_for_type_inference(dtype)
    batch_reset_hidden_prev = helper.create_variable_for_type_inference(dtype)
    batch_hidden = helper.create_variable_for_type_inference(dtype)
    helper.append_op('gru', inputs,
                     {'Hidden': [hidden], 'BatchGate': [batch_gate],
                      'BatchResetHiddenPrev': [batch_reset_hidden_prev], 'BatchHidden': [batch_hidden]},
                     {'is_reverse': is_reverse, 'gate_activation': gate_activation,
                      'activation': candidate_activation, 'origin_mode': origin_mode})
    return hidden


_UNIT_ACTIVATIONS = {'identity': 0, 'sigmoid': 1, 'tanh': 2, 'relu': 3}


def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation='tanh', gate_activation='sigmoid',
             origin_mode=False):
    """One GRU step: input [N, size] (projected, size = 3 * hidden), hidden [N, size // 3]. Returns
    (updated_hidden, reset_hidden_prev, gate)."""
    check_variable_and_dtype(input, 'input', _FLOATS, 'gru_unit')
    check_variable_and_dtype(hidden, 'hidden', _FLOATS, 'gru_unit')
    check_type(size, 'size', (int), 'gru_unit')
    _UNIT_ACTIVATIONS[activation]                 # 1.8 looks both names up (a KeyError for an unknown one) ...
    _UNIT_ACTIVATIONS[gate_activation]
    helper = LayerHelper('gru_unit')
    dtype = input.dtype
    size = size // 3
    weight = helper.create_parameter(param_attr, [size, 3 * size], dtype)
    gate = helper.create_variable_for_type_inference(dtype)
    reset_hidden_pre = helper.create_variable_for_type_inference(dtype)
    updated_hidden = helper.create_variable_for_type_inference(dtype)
    inputs = {'Input': [input], 'HiddenPrev': [hidden], 'Weight': [weight]}
    if bias_attr is not False:
        bias = helper.create_parameter(bias_attr, [1, 3 * size], dtype, is_bias=True)
        inputs['Bias'] = [bias]
    helper.append_op('gru_unit', inputs,
                     {'Gate': [gate], 'ResetHiddenPrev': [reset_hidden_pre], 'Hidden': [updated_hidden]},
                     {'activation': 2, 'gate_activation': 1,      # ... and then writes tanh and sigmoid regardless
                      'origin_mode': origin_mode})
    return updated_hidden, reset_hidden_pre, gate


def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None, name=None):
    """One LSTM step: fc(concat(x_t, hidden_t_prev)) then the lstm_unit op. Returns (hidden, cell)."""
    helper = LayerHelper('lstm_unit', name=name)
    check_variable_and_dtype(x_t, 'x_t', _FLOATS, 'lstm_unit')
    check_variable_and_dtype(hidden_t_prev, 'hidden_t_prev', _FLOATS, 'lstm_unit')
    check_variable_and_dtype(cell_t_prev, 'cell_t_prev', _FLOATS, 'lstm_unit')
    if len(x_t.shape) != 2:
        raise ValueError("Rank of x_t must be 2.")
    if len(hidden_t_prev.shape) != 2:
        raise ValueError("Rank of hidden_t_prev must be 2.")
    if len(cell_t_prev.shape) != 2:
        raise ValueError("Rank of cell_t_prev must be 2.")
    if x_t.shape[0] != hidden_t_prev.shape[0] or x_t.shape[0] != cell_t_prev.shape[0]:
        raise ValueError("The 1st dimensions of x_t, hidden_t_prev and cell_t_prev must be the same.")
    if hidden_t_prev.shape[1] != cell_t_prev.shape[1]:
        raise ValueError("The 2nd dimensions of hidden_t_prev and cell_t_prev must be the same.")
    size = cell_t_prev.shape[1]
    concat_out = concat(input=[x_t, hidden_t_prev], axis=1)
    fc_out = fc(input=concat_out, size=4 * size, param_attr=param_attr,
                bias_attr=True if bias_attr is None else bias_attr)
    dtype = x_t.dtype
    c = helper.create_variable_for_type_inference(dtype)
    h = helper.create_variable_for_type_inference(dtype)
    helper.append_op('lstm_unit', {'X': [fc_out], 'C_prev': [cell_t_prev]}, {'C': [c], 'H': [h]},
                     {'forget_bias': forget_bias})
    return h, c
