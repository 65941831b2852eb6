"""fluid.contrib's basic_gru and basic_lstm (contrib/layers/rnn_impl.py in Paddle 1.8): multi-layer, optionally
bidirectional GRU / LSTM nets over padded batches, built as 1.8 builds them.

Each direction is one StaticRNN whose step runs the layers' units (BasicGRUUnit / BasicLSTMUnit, named
`<name>_layers_<i>` forward and `<name>_reverse_layers_<i>` backward; named parameters get `_fw_w_<i>`-style
suffixes) one above the other, each with its own memory (from init_hidden / init_cell [layers * directions, batch,
hidden], else zeros), a sequence_length mask keeping a finished sequence's state, dropout between layers. The
backward direction runs on the time-reversed input and its output is reversed back. Returns the top layer's
outputs ([batch, time, hidden * directions] when batch_first) and the last states [layers * directions, batch,
hidden].
"""
from __future__ import annotations

import copy

from .attribute import shape
from .common import dropout
from .manipulation import concat, reshape, reverse, transpose
from .math import elementwise_mul
from .rnn_blocks import StaticRNN
from .rnn_cells import BasicGRUUnit, BasicLSTMUnit
from .sequence import sequence_mask

__all__ = ['basic_gru', 'basic_lstm']


def _layer_attr(attr, suffix: str):
    if attr is not None and attr.name is not None:
        attr = copy.deepcopy(attr)
        attr.name += suffix
    return attr


def _keep_finished(new, old, step_mask):
    return elementwise_mul(new, step_mask, axis=0) - elementwise_mul(old, (step_mask - 1), axis=0)


def _basic_rnn(kind: str, input, init_states: list, hidden_size: int, num_layers: int, sequence_length,
               dropout_prob, bidirectional: bool, batch_first: bool, param_attr, bias_attr, make_unit, name: str):
    """The net of basic_gru (kind 'gru': states [hidden]) or basic_lstm ('lstm': states [hidden, cell])."""
    n_states = 1 if kind == 'gru' else 2
    units = {'fw': [make_unit(name + '_layers_' + str(i), _layer_attr(param_attr, '_fw_w_' + str(i)),
                              _layer_attr(bias_attr, '_fw_b_' + str(i))) for i in range(num_layers)]}
    if bidirectional:
        def bw_bias(i):
            if kind == 'lstm' and (bias_attr is None or bias_attr.name is None):
                return param_attr          # 1.8's basic_lstm gives an unnamed backward bias the param_attr: kept
            return _layer_attr(bias_attr, '_bw_b_' + str(i))
        units['bw'] = [make_unit(name + '_reverse_layers_' + str(i), _layer_attr(param_attr, '_bw_w_' + str(i)),
                                 bw_bias(i)) for i in range(num_layers)]
    if batch_first:
        input = transpose(input, [1, 0, 2])
    mask = None
    if sequence_length is not None:
        mask = sequence_mask(sequence_length, maxlen=shape(input)[0], dtype='float32')
        mask = transpose(mask, [1, 0])
    direc_num = 2 if bidirectional else 1
    if init_states[0] is not None:
        init_states = [reshape(s, shape=[num_layers, direc_num, -1, hidden_size]) for s in init_states]

    def one_direction(rnn_input, unit_list, mask, direc_index):
        # the initial states' slices are parent-block values (Paddle's Variable.__getitem__ appends to the
        # variable's own block), so they are cut before the step block opens
        inits = ([[s[i, direc_index] for s in init_states] for i in range(num_layers)]
                 if init_states[0] is not None else None)
        rnn = StaticRNN()
        with rnn.step():
            step_input = rnn.step_input(rnn_input)
            step_mask = rnn.step_input(mask) if mask is not None else None
            for i in range(num_layers):
                if inits is not None:
                    pre = [rnn.memory(init=s) for s in inits[i]]
                elif kind == 'gru':
                    pre = [rnn.memory(batch_ref=rnn_input, shape=[-1, hidden_size], ref_batch_dim_idx=1)]
                else:
                    pre = [rnn.memory(batch_ref=rnn_input, shape=[-1, hidden_size]) for _ in range(2)]
                new = unit_list[i](step_input, *pre)
                new = [new] if kind == 'gru' else list(new)
                if step_mask is not None:
                    new = [_keep_finished(n, p, step_mask) for n, p in zip(new, pre)]
                for p, n in zip(pre, new):
                    rnn.update_memory(p, n)
                for n in new:
                    rnn.step_output(n)
                step_input = new[0]
                if dropout_prob is not None and dropout_prob > 0.0:
                    if kind == 'gru':
                        step_input = dropout(step_input, dropout_prob=dropout_prob)
                    else:
                        step_input = dropout(step_input, dropout_prob=dropout_prob,
                                             dropout_implementation='upscale_in_train')
            rnn.step_output(step_input)
        rnn_out = rnn()
        last = []
        for k in range(n_states):
            per_layer = [rnn_out[i * n_states + k][-1] for i in range(num_layers)]
            last.append(reshape(concat(per_layer, axis=0), shape=[num_layers, -1, hidden_size]))
        return rnn_out[-1], last

    fw_out, fw_last = one_direction(input, units['fw'], mask, 0)
    if not bidirectional:
        rnn_out, last = fw_out, fw_last
    else:
        bw_mask = reverse(mask, axis=[0]) if mask is not None else None
        bw_out, bw_last = one_direction(reverse(input, axis=[0]), units['bw'], bw_mask, 1)
        rnn_out = concat([fw_out, reverse(bw_out, axis=[0])], axis=2)
        last = [reshape(concat([f, b], axis=1), shape=[num_layers * direc_num, -1, hidden_size])
                for f, b in zip(fw_last, bw_last)]
    if batch_first:
        rnn_out = transpose(rnn_out, [1, 0, 2])
    return (rnn_out, *last)


def basic_gru(input, init_hidden, hidden_size, num_layers=1, sequence_length=None, dropout_prob=0.0,
              bidirectional=False, batch_first=True, param_attr=None, bias_attr=None, gate_activation=None,
              activation=None, dtype='float32', name='basic_gru'):
    """(outputs, last hidden) of a GRU net of BasicGRUUnits (see the module docstring)."""
    def make_unit(unit_name, p_attr, b_attr):
        return BasicGRUUnit(unit_name, hidden_size, p_attr, b_attr, gate_activation, activation, dtype)
    return _basic_rnn('gru', input, [init_hidden], hidden_size, num_layers, sequence_length, dropout_prob,
                      bidirectional, batch_first, param_attr, bias_attr, make_unit, name)


def basic_lstm(input, init_hidden, init_cell, hidden_size, num_layers=1, sequence_length=None, dropout_prob=0.0,
               bidirectional=False, batch_first=True, param_attr=None, bias_attr=None, gate_activation=None,
               activation=None, forget_bias=1.0, dtype='float32', name='basic_lstm'):
    """(outputs, last hidden, last cell) of an LSTM net of BasicLSTMUnits (see the module docstring)."""
    def make_unit(unit_name, p_attr, b_attr):
        return BasicLSTMUnit(unit_name, hidden_size, param_attr=p_attr, bias_attr=b_attr,
                             gate_activation=gate_activation, activation=activation, forget_bias=forget_bias,
                             dtype=dtype)
    return _basic_rnn('lstm', input, [init_hidden, init_cell], hidden_size, num_layers, sequence_length,
                      dropout_prob, bidirectional, batch_first, param_attr, bias_attr, make_unit, name)
