"""paddle.nn's recurrent layers for static mode: the cells (SimpleRNNCell, LSTMCell, GRUCell), RNN and BiRNN that
run a cell over time, and the multi-layer nets SimpleRNN, LSTM and GRU.

The cells are 2.6.2's: parameters weight_ih [gates * hidden, input], weight_hh [gates * hidden, hidden], bias_ih,
bias_hh (names `<cell>_N.w_0/.w_1/.b_0/.b_1`), all drawn from Uniform(-1/sqrt(hidden), 1/sqrt(hidden)); gate
order i, f, g, o for the LSTM, r, z, c for the GRU with h' = (h - c) * z + c.

How the time loop is built differs from 2.6.2, on purpose: RNN and BiRNN run the cell in a StaticRNN
(layers/rnn_cells.rnn: one `recurrent` op, differentiated by recurrent_grad) where 2.6.2 builds a `while` over
tensor arrays, and SimpleRNN / LSTM / GRU stack RNN / BiRNN layers (what 2.6.2 does when it cannot use its fused
`rnn` op) where 2.6.2 on CPU emits one `rnn` op over a coalesced weight list. Values, gradients, parameter names
and shapes are 2.6.2's; the ops in the program are not.

Shapes: inputs [batch, time, input] ([time, batch, input] with time_major); states [layers * directions, batch,
hidden]; `sequence_length` [batch] keeps a finished sequence's state and (as 2.6.2) leaves its outputs as computed.
"""
from __future__ import annotations

import math

from ...layers.activation import relu, sigmoid, tanh
from ...layers.control_flow import _flatten, _map_structure, _pack_like
from ...layers.creation import fill_constant_batch_size_like
from ...layers.manipulation import concat, split, stack, unstack
from ...layers.math import matmul
from ...layers.rnn_cells import rnn as _static_rnn
from .. import functional as F
from .. import initializer as I
from .container import LayerList
from .layers import Layer

__all__ = ['RNNCellBase', 'SimpleRNNCell', 'LSTMCell', 'GRUCell', 'RNN', 'BiRNN', 'SimpleRNN', 'LSTM', 'GRU']


class RNNCellBase(Layer):
    """The base of paddle.nn's cells: `get_initial_states` fills zeros (or init_value) shaped like state_shape."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        batch_ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        dtype = dtype or batch_ref.dtype

        def is_shape(s):
            return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)

        def fill(s):
            if is_shape(s):
                s = list(s) if s and s[0] == -1 else [-1] + list(s)
                return fill_constant_batch_size_like(batch_ref, s, dtype, init_value, input_dim_idx=batch_dim_idx)
            return type(s)(fill(x) for x in s)
        return fill(shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementaion for `state_shape` in the used cell.")

    def _make_weights(self, gates: int, input_size: int, hidden_size: int, weight_ih_attr, weight_hh_attr,
                      bias_ih_attr, bias_hh_attr) -> None:
        if hidden_size <= 0:
            raise ValueError("hidden_size of {} must be greater than 0, but now equals to {}"
                             .format(type(self).__name__, hidden_size))
        std = 1.0 / math.sqrt(hidden_size)
        init = I.Uniform(-std, std)
        self.weight_ih = self.create_parameter((gates * hidden_size, input_size), weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter((gates * hidden_size, hidden_size), weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter((gates * hidden_size,), bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter((gates * hidden_size,), bias_hh_attr, is_bias=True,
                                             default_initializer=init)
        self.input_size, self.hidden_size = input_size, hidden_size

    def _affine(self, x, weight, bias):
        y = matmul(x, weight, transpose_y=True)
        return y if bias is None else y + bias


class SimpleRNNCell(RNNCellBase):
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, activation='tanh', weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        if activation not in ('tanh', 'relu'):
            raise ValueError("activation for SimpleRNNCell should be tanh or relu, but get {}".format(activation))
        self.activation = activation
        self._activation_fn = tanh if activation == 'tanh' else relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        h = self._activation_fn(self._affine(inputs, self.weight_ih, self.bias_ih)
                                + self._affine(states, self.weight_hh, self.bias_hh))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


class LSTMCell(RNNCellBase):
    """i, f, g, o = x W_ih^T + b_ih + h W_hh^T + b_hh; c' = sigmoid(f) c + sigmoid(i) tanh(g);
    h' = sigmoid(o) tanh(c'); states (h, c)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if proj_size:
            raise NotImplementedError("paddle_exec's LSTMCell has no projection (proj_size=%d)" % proj_size)
        self._make_weights(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.proj_size = 0

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        gates = self._affine(inputs, self.weight_ih, self.bias_ih) + self._affine(pre_hidden, self.weight_hh,
                                                                                  self.bias_hh)
        i, f, g, o = split(gates, num_or_sections=4, dim=-1)
        c = sigmoid(f) * pre_cell + sigmoid(i) * tanh(g)
        h = sigmoid(o) * tanh(c)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))


class GRUCell(RNNCellBase):
    """x_r, x_z, x_c = x W_ih^T + b_ih; h_r, h_z, h_c = h W_hh^T + b_hh; r = sigmoid(x_r + h_r),
    z = sigmoid(x_z + h_z), c = tanh(x_c + r h_c), h' = (h - c) z + c."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        x_r, x_z, x_c = split(self._affine(inputs, self.weight_ih, self.bias_ih), num_or_sections=3, dim=-1)
        h_r, h_z, h_c = split(self._affine(states, self.weight_hh, self.bias_hh), num_or_sections=3, dim=-1)
        r = sigmoid(x_r + h_r)
        z = sigmoid(x_z + h_z)
        c = tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


class _CellAdapter:
    """What layers/rnn_cells.rnn calls: `call(inputs, states)` and `get_initial_states` of a paddle.nn cell."""

    def __init__(self, cell):
        self.cell = cell

    def call(self, inputs, states, **kwargs):
        return self.cell(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, batch_dim_idx=0):
        return self.cell.get_initial_states(batch_ref, batch_dim_idx=batch_dim_idx)


class RNN(Layer):
    """Runs `cell` over the time steps of the inputs: (outputs, final states)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _static_rnn(_CellAdapter(self.cell), inputs, initial_states=initial_states,
                           sequence_length=sequence_length, time_major=self.time_major,
                           is_reverse=self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward RNN over the same inputs, outputs concatenated on the last axis."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError("input size of forward cell({}) does not equals that of backward cell({})"
                             .format(cell_fw.input_size, cell_bw.input_size))
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)):
            if len(initial_states) != 2:
                raise ValueError("length of initial_states should be 2 when it is a list/tuple")
            states_fw, states_bw = initial_states
        else:
            states_fw = states_bw = None
        out_fw, st_fw = _static_rnn(_CellAdapter(self.cell_fw), inputs, states_fw, sequence_length,
                                    self.time_major, False, **kwargs)
        out_bw, st_bw = _static_rnn(_CellAdapter(self.cell_bw), inputs, states_bw, sequence_length,
                                    self.time_major, True, **kwargs)
        outputs = _map_structure(lambda x, y: concat([x, y], -1), out_fw, out_bw)
        return outputs, (st_fw, st_bw)


# --- SimpleRNN, LSTM, GRU -----------------------------------------------------------------------------------------

class RNNBase(LayerList):
    """Layers of RNN (or BiRNN) over cells of one kind; states [layers * directions, batch, hidden]."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction='forward', time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 activation='tanh'):
        super().__init__()
        bidirectional_list = ['bidirectional', 'bidirect']
        self.mode = mode
        self.input_size, self.hidden_size = input_size, hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in bidirectional_list else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == 'LSTM' else 1
        kwargs = {'weight_ih_attr': weight_ih_attr, 'weight_hh_attr': weight_hh_attr, 'bias_ih_attr': bias_ih_attr,
                  'bias_hh_attr': bias_hh_attr}
        if mode == 'LSTM':
            make = LSTMCell
        elif mode == 'GRU':
            make = GRUCell
        else:
            make = SimpleRNNCell
            kwargs['activation'] = 'relu' if mode == 'RNN_RELU' else 'tanh'
        if direction in ['forward']:
            self.append(RNN(make(input_size, hidden_size, **kwargs), False, time_major))
            for _ in range(1, num_layers):
                self.append(RNN(make(hidden_size, hidden_size, **kwargs), False, time_major))
        elif direction in bidirectional_list:
            self.append(BiRNN(make(input_size, hidden_size, **kwargs), make(input_size, hidden_size, **kwargs),
                              time_major))
            for _ in range(1, num_layers):
                self.append(BiRNN(make(2 * hidden_size, hidden_size, **kwargs),
                                  make(2 * hidden_size, hidden_size, **kwargs), time_major))
        else:
            raise ValueError("direction should be forward or bidirect (or bidirectional), received direction = {}"
                             .format(direction))

    def _split_states(self, states):
        """[layers * directions, batch, hidden] (per component) -> per layer: a state, or (fw, bw)."""
        comps = [list(unstack(s, axis=0)) for s in (states if self.state_components > 1 else [states])]
        per = []
        for layer in range(self.num_layers):
            dirs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                dirs.append(tuple(c[k] for c in comps) if self.state_components > 1 else comps[0][k])
            per.append(tuple(dirs) if self.num_directions == 2 else dirs[0])
        return per

    def _concat_states(self, per_layer):
        flat = []
        for st in per_layer:
            flat.extend(st if self.num_directions == 2 else [st])
        if self.state_components == 1:
            return stack(flat, axis=0)
        return tuple(stack([s[k] for s in flat], axis=0) for k in range(self.state_components))

    def forward(self, inputs, initial_states=None, sequence_length=None):
        if initial_states is None:
            batch_index = 1 if self.time_major else 0
            shape = [self.num_layers * self.num_directions, -1, self.hidden_size]
            make = [fill_constant_batch_size_like(inputs, shape, inputs.dtype, 0.0, input_dim_idx=batch_index,
                                                  output_dim_idx=1) for _ in range(self.state_components)]
            initial_states = tuple(make) if self.state_components > 1 else make[0]
        states = self._split_states(_pack_like(initial_states, _flatten(initial_states)))
        final_states = []
        for i, rnn_layer in enumerate(self):
            if i > 0:
                inputs = F.dropout(inputs, self.dropout, training=self.training, mode='upscale_in_train')
            state = states[i]
            if self.num_directions == 2 and self.state_components > 1:
                state = (list(state[0]), list(state[1]))
            elif self.state_components > 1:
                state = list(state)
            outputs, final_state = rnn_layer(inputs, state, sequence_length)
            if self.state_components > 1:
                final_state = (tuple(final_state[0]), tuple(final_state[1])) if self.num_directions == 2 \
                    else tuple(final_state)
            final_states.append(final_state)
            inputs = outputs
        return outputs, self._concat_states(final_states)

    def extra_repr(self) -> str:
        main_str = '{input_size}, {hidden_size}'
        if self.num_layers != 1:
            main_str += ', num_layers={num_layers}'
        if self.time_major:
            main_str += ', time_major={time_major}'
        if self.dropout != 0:
            main_str += ', dropout={dropout}'
        return main_str.format(**self.__dict__)


class SimpleRNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward', time_major=False, dropout=0.0,
                 activation='tanh', weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        mode = {'tanh': 'RNN_TANH', 'relu': 'RNN_RELU'}.get(activation)
        if mode is None:
            raise ValueError("Unknown activation '{}'".format(activation))
        self.activation = activation
        super().__init__(mode, input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward', time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        if proj_size:
            raise NotImplementedError("paddle_exec's LSTM has no projection (proj_size=%d)" % proj_size)
        super().__init__('LSTM', input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward', time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__('GRU', input_size, hidden_size, num_layers, direction, time_major, dropout, weight_ih_attr,
                         weight_hh_attr, bias_ih_attr, bias_hh_attr)
