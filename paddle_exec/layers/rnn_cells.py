"""fluid 1.8's cell-based RNN API: RNNCell, GRUCell, LSTMCell and `rnn` (fluid.layers.rnn), the units they are
made of, BasicGRUUnit and BasicLSTMUnit (fluid.contrib.layers.rnn_impl), and the beam-search step and decoder
builders (beam_search, beam_search_decode, gather_tree: ops/beam_search.py).

Built as Paddle 1.8 builds them (python/paddle/fluid/layers/rnn.py, contrib/layers/rnn_impl.py):
- a unit creates its parameters on its first call, named after `<name>/<Unit class>_N` as 1.8's dygraph Layer
  does (`GRUCell/BasicGRUUnit_0.w_0`), from the width of the first input; BasicGRUUnit: gate weight
  [in + hidden, 2 hidden] (r, u), candidate weight [in + hidden, hidden], their biases; BasicLSTMUnit: one weight
  [in + hidden, 4 hidden] split into i, j, f, o, and a `forget_bias` fill_constant made when the unit is made;
- `rnn(cell, inputs, initial_states, sequence_length, time_major, is_reverse)` is a StaticRNN over the time axis
  (inputs batch-major unless time_major are transposed first), states from `cell.get_initial_states` (a
  fill_constant_batch_size_like per state) unless given; with sequence_length, a sequence_mask keeps a finished
  sequence's state (new * m - old * (m - 1)); it returns (outputs, final states), the final state the last step's.

1.8's units are dygraph Layers usable in static mode; paddle_exec has no dygraph, so these are plain classes with
the same call, parameter names and `parameters()`.
"""
from __future__ import annotations

import copy
from functools import partial

from ..framework import unique_name
from ..framework.variable import Variable
from .activation import sigmoid, tanh
from .attribute import shape
from .checks import check_dtype, check_type, check_variable_and_dtype
from .control_flow import _flatten, _map_structure, _pack_like, _same_structure
from .creation import fill_constant, fill_constant_batch_size_like
from .helper import LayerHelper
from .manipulation import concat, reverse, split, transpose
from .math import elementwise_add, elementwise_mul, matmul
from .rnn_blocks import StaticRNN
from .sequence import sequence_mask

__all__ = ['RNNCell', 'GRUCell', 'LSTMCell', 'rnn', 'BasicGRUUnit', 'BasicLSTMUnit', 'beam_search',
           'beam_search_decode', 'gather_tree']


class _Unit:
    """What 1.8's dygraph Layer gives the units: a unique full name, parameters made on the first call."""

    def __init__(self, name_scope: str, dtype):
        self._full_name = unique_name.generate(name_scope + '/' + type(self).__name__)
        self._helper = LayerHelper(self._full_name, name=self._full_name)
        self._dtype = dtype
        self._built = False
        self._params: list = []

    def full_name(self) -> str:
        return self._full_name

    def create_parameter(self, attr, shape, dtype, is_bias: bool = False):
        p = self._helper.create_parameter(attr, shape, dtype, is_bias=is_bias)
        self._params.append(p)
        return p

    def parameters(self) -> list:
        return list(self._params)

    def __call__(self, *inputs):
        if not self._built:
            self._build_once(*inputs)
            self._built = True
        return self.forward(*inputs)


def _suffixed(attr, suffix: str):
    if attr is not None and getattr(attr, 'name', None) is not None:
        attr = copy.deepcopy(attr)
        attr.name += suffix
    return attr


class BasicGRUUnit(_Unit):
    """One GRU step: r, u = act_g([x, h] W_g + b_g); c = act([x, r * h] W_c + b_c); h' = u * h + (1 - u) * c."""

    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, dtype='float32'):
        super().__init__(name_scope, dtype)
        self._name = name_scope
        self._hiden_size = hidden_size
        self._param_attr = param_attr
        self._bias_attr = bias_attr
        self._gate_activation = gate_activation or sigmoid
        self._activation = activation or tanh

    def _build_once(self, input, pre_hidden):
        self._input_size = input.shape[-1]
        assert self._input_size > 0
        n, h = self._input_size, self._hiden_size
        self._gate_weight = self.create_parameter(_suffixed(self._param_attr, '_gate'), [n + h, 2 * h], self._dtype)
        self._candidate_weight = self.create_parameter(_suffixed(self._param_attr, '_candidate'), [n + h, h],
                                                       self._dtype)
        self._gate_bias = self.create_parameter(_suffixed(self._bias_attr, '_gate'), [2 * h], self._dtype,
                                                is_bias=True)
        self._candidate_bias = self.create_parameter(_suffixed(self._bias_attr, '_candidate'), [h], self._dtype,
                                                     is_bias=True)

    def forward(self, input, pre_hidden):
        gate_input = matmul(x=concat([input, pre_hidden], 1), y=self._gate_weight)
        gate_input = self._gate_activation(elementwise_add(gate_input, self._gate_bias))
        r, u = split(gate_input, num_or_sections=2, dim=1)
        candidate = matmul(concat([input, r * pre_hidden], 1), self._candidate_weight)
        c = self._activation(elementwise_add(candidate, self._candidate_bias))
        return u * pre_hidden + (1 - u) * c


class BasicLSTMUnit(_Unit):
    """One LSTM step: i, j, f, o = [x, h] W + b; c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j);
    h' = tanh(c') * sigmoid(o)."""

    def __init__(self, name_scope, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, forget_bias=1.0, dtype='float32'):
        super().__init__(name_scope, dtype)
        self._name = name_scope
        self._hiden_size = hidden_size
        self._param_attr = param_attr
        self._bias_attr = bias_attr
        self._gate_activation = gate_activation or sigmoid
        self._activation = activation or tanh
        self._forget_bias = fill_constant([1], dtype=dtype, value=forget_bias)
        self._forget_bias.stop_gradient = False

    def _build_once(self, input, pre_hidden, pre_cell):
        self._input_size = input.shape[-1]
        assert self._input_size > 0
        h = self._hiden_size
        self._weight = self.create_parameter(self._param_attr, [self._input_size + h, 4 * h], self._dtype)
        self._bias = self.create_parameter(self._bias_attr, [4 * h], self._dtype, is_bias=True)

    def forward(self, input, pre_hidden, pre_cell):
        gate_input = elementwise_add(matmul(x=concat([input, pre_hidden], 1), y=self._weight), self._bias)
        i, j, f, o = split(gate_input, num_or_sections=4, dim=-1)
        new_cell = elementwise_add(elementwise_mul(pre_cell, sigmoid(elementwise_add(f, self._forget_bias))),
                                   elementwise_mul(sigmoid(i), tanh(j)))
        new_hidden = tanh(new_cell) * sigmoid(o)
        return new_hidden, new_cell


# --- cells ----------------------------------------------------------------------------------------------------------

def _is_shape(value) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(d, int) for d in value)


def _map_shapes(fn, shapes):
    if _is_shape(shapes):
        return fn(list(shapes))
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


class RNNCell:
    """The base of the cells `rnn` runs: `call(inputs, states) -> (outputs, new_states)`."""

    def call(self, inputs, states, **kwargs):
        raise NotImplementedError("RNNCell must implent the call function.")

    def __call__(self, inputs, states, **kwargs):
        return self.call(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, shape=None, dtype='float32', init_value=0, batch_dim_idx=0):
        """States shaped like `shape` (default `state_shape`; -1 for the batch put first when missing), the batch
        size taken from dim `batch_dim_idx` of the first tensor of batch_ref, filled with init_value."""
        check_variable_and_dtype(batch_ref, 'batch_ref', ['float32', 'float64', 'int32', 'int64'], 'RNNCell')
        check_type(shape, 'shape', (list, tuple, type(None), int), 'RNNCell')
        check_dtype(dtype, 'dtype', ['float32', 'float64'], 'RNNCell')
        batch_ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        shapes = _map_shapes(lambda s: s if s[0] == -1 else [-1] + s, shapes)
        try:
            dtypes = self.state_dtype if dtype is None else dtype
        except NotImplementedError:
            dtypes = 'float32'
        leaves: list = []
        _map_shapes(lambda s: leaves.append(s), shapes)
        flat_dtypes = _flatten(dtypes)
        if len(flat_dtypes) == 1:
            flat_dtypes = flat_dtypes * len(leaves)
        states = [fill_constant_batch_size_like(input=batch_ref, shape=s, dtype=d, value=init_value,
                                                input_dim_idx=batch_dim_idx) for s, d in zip(leaves, flat_dtypes)]
        it = iter(states)
        return _map_shapes(lambda s: next(it), shapes)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementaion for `state_shape` in the used cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementaion for `state_dtype` in the used cell.")


class GRUCell(RNNCell):
    """A GRU cell on BasicGRUUnit: the output and the state are the new hidden state."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None, activation=None,
                 dtype='float32', name='GRUCell'):
        check_type(hidden_size, 'hidden_size', (int), 'GRUCell')
        check_dtype(dtype, 'dtype', ['float32', 'float64'], 'GRUCell')
        self.hidden_size = hidden_size
        self.gru_unit = BasicGRUUnit(name, hidden_size, param_attr, bias_attr, gate_activation, activation, dtype)

    def call(self, inputs, states):
        check_variable_and_dtype(inputs, 'inputs', ['float32', 'float64'], 'GRUCell')
        check_variable_and_dtype(states, 'states', ['float32', 'float64'], 'GRUCell')
        new_hidden = self.gru_unit(inputs, states)
        return new_hidden, new_hidden

    @property
    def state_shape(self):
        return [self.hidden_size]


class LSTMCell(RNNCell):
    """An LSTM cell on BasicLSTMUnit: states [hidden, cell], the output the new hidden state."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None, activation=None,
                 forget_bias=1.0, dtype='float32', name='LSTMCell'):
        check_type(hidden_size, 'hidden_size', (int), 'LSTMCell')
        check_dtype(dtype, 'dtype', ['float32', 'float64'], 'LSTMCell')
        self.hidden_size = hidden_size
        self.lstm_unit = BasicLSTMUnit(name, hidden_size, param_attr, bias_attr, gate_activation, activation,
                                       forget_bias, dtype)

    def call(self, inputs, states):
        check_variable_and_dtype(inputs, 'inputs', ['float32', 'float64'], 'LSTMCell')
        check_type(states, 'states', list, 'LSTMCell')
        for i, state in enumerate(states):
            check_variable_and_dtype(state, 'state[' + str(i) + ']', ['float32', 'float64'], 'LSTMCell')
        pre_hidden, pre_cell = states
        new_hidden, new_cell = self.lstm_unit(inputs, pre_hidden, pre_cell)
        return new_hidden, [new_hidden, new_cell]

    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]


# --- rnn ------------------------------------------------------------------------------------------------------------

def _maybe_copy(state, new_state, step_mask):
    return elementwise_mul(new_state, step_mask, axis=0) - elementwise_mul(state, (step_mask - 1), axis=0)


def _transpose_batch_time(x):
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


def _switch_grad(x, stop=False):
    x.stop_gradient = stop
    return x


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False, is_reverse=False, **kwargs):
    """Runs `cell` over the time steps of inputs (a StaticRNN; see the module docstring)."""
    check_type(inputs, 'inputs', (Variable, list, tuple), 'rnn')
    if isinstance(inputs, (list, tuple)):
        for i, input_x in enumerate(inputs):
            check_variable_and_dtype(input_x, 'inputs[' + str(i) + ']', ['float32', 'float64'], 'rnn')
    check_type(initial_states, 'initial_states', (Variable, list, tuple, type(None)), 'rnn')
    check_type(sequence_length, 'sequence_length', (Variable, type(None)), 'rnn')
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    initial_states = _map_structure(_switch_grad, initial_states)
    if not time_major:
        inputs = _map_structure(_transpose_batch_time, inputs)
    mask = None
    if sequence_length is not None:
        max_seq_len = shape(_flatten(inputs)[0])[0]
        mask = sequence_mask(sequence_length, maxlen=max_seq_len, dtype=_flatten(initial_states)[0].dtype)
        mask = transpose(mask, [1, 0])
    if is_reverse:
        inputs = _map_structure(lambda x: reverse(x, axis=[0]), inputs)
        mask = reverse(mask, axis=[0]) if mask is not None else None
    static_rnn = StaticRNN()
    with static_rnn.step():
        inputs = _map_structure(static_rnn.step_input, inputs)
        states = _map_structure(static_rnn.memory, initial_states)
        copy_states = _map_structure(lambda x: x, states)
        outputs, new_states = cell.call(inputs, copy_states, **kwargs)
        if not _same_structure(states, new_states):
            raise ValueError("The structure of the cell's new states %s differs from its states %s"
                             % (new_states, states))
        if mask is not None:
            step_mask = static_rnn.step_input(mask)
            new_states = _map_structure(partial(_maybe_copy, step_mask=step_mask), states, new_states)
        _map_structure(static_rnn.update_memory, states, new_states)
        flat_outputs = _flatten(outputs)
        _map_structure(static_rnn.step_output, outputs)
        _map_structure(static_rnn.step_output, new_states)
    rnn_out = static_rnn()
    rnn_out = rnn_out if isinstance(rnn_out, list) else [rnn_out]
    final_outputs = _pack_like(outputs, rnn_out[:len(flat_outputs)])
    final_states = _pack_like(new_states, [x[-1] for x in rnn_out[len(flat_outputs):]])
    if is_reverse:
        final_outputs = _map_structure(lambda x: reverse(x, axis=[0]), final_outputs)
    if not time_major:
        final_outputs = _map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_states


# --- beam search (ops/beam_search.py) -------------------------------------------------------------------------------

def beam_search(pre_ids, pre_scores, ids, scores, beam_size, end_id, level=0, is_accumulated=True, name=None,
                return_parent_idx=False):
    """One beam-search step: the beam_size best candidates of each source, with their 2-level LoD."""
    check_variable_and_dtype(pre_ids, 'pre_ids', ['int64'], 'beam_search')
    check_variable_and_dtype(pre_scores, 'pre_scores', ['float32', 'float64'], 'beam_search')
    check_type(ids, 'ids', (Variable, type(None)), 'beam_search')
    check_variable_and_dtype(scores, 'scores', ['float32', 'float64'], 'beam_search')
    helper = LayerHelper('beam_search', name=name)
    inputs = {'pre_ids': [pre_ids], 'pre_scores': [pre_scores], 'scores': [scores]}
    if ids is not None:
        inputs['ids'] = [ids]
    selected_scores = helper.create_variable_for_type_inference(dtype=pre_scores.dtype)
    selected_ids = helper.create_variable_for_type_inference(dtype=pre_ids.dtype)
    parent_idx = helper.create_variable_for_type_inference(dtype='int32')
    helper.append_op('beam_search', inputs,
                     {'selected_ids': [selected_ids], 'selected_scores': [selected_scores],
                      'parent_idx': [parent_idx]},
                     {'level': level, 'beam_size': beam_size, 'end_id': end_id, 'is_accumulated': is_accumulated})
    if return_parent_idx:
        return selected_ids, selected_scores, parent_idx
    return selected_ids, selected_scores


def beam_search_decode(ids, scores, beam_size, end_id, name=None):
    """The hypotheses of each source, backtraced from the arrays of per-step beam_search results."""
    check_variable_and_dtype(ids, 'ids', ['int64'], 'beam_search_encode')
    check_variable_and_dtype(scores, 'scores', ['float32'], 'beam_search_encode')
    helper = LayerHelper('beam_search_decode', name=name)
    sentence_ids = helper.create_variable_for_type_inference(dtype=ids.dtype)
    sentence_scores = helper.create_variable_for_type_inference(dtype=scores.dtype)
    helper.append_op('beam_search_decode', {'Ids': [ids], 'Scores': [scores]},
                     {'SentenceIds': [sentence_ids], 'SentenceScores': [sentence_scores]},
                     {'beam_size': beam_size, 'end_id': end_id})
    return sentence_ids, sentence_scores


def gather_tree(ids, parents):
    """The full beam of each final step: ids [time, batch, beam] gathered along `parents` (gather_tree op)."""
    check_variable_and_dtype(ids, 'ids', ['int32', 'int64'], 'gather_tree')
    check_variable_and_dtype(parents, 'parents', ['int32', 'int64'], 'gather_tree')
    helper = LayerHelper('gather_tree')
    out = helper.create_variable_for_type_inference(dtype=ids.dtype)
    helper.append_op('gather_tree', {'Ids': [ids], 'Parents': [parents]}, {'Out': [out]})
    return out
