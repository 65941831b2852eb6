"""fluid 1.8's decoding API (fluid.layers.rnn): Decoder, BeamSearchDecoder and dynamic_decode, built as Paddle 1.8
builds them (python/paddle/fluid/layers/rnn.py).

BeamSearchDecoder keeps `beam_size` hypotheses per batch entry on dense tensors (no LoD): the cell runs on
[batch * beam, ...], log-softmax scores of finished beams are masked so they only extend with end_token, the
best beam_size of beam * vocab per entry are kept (topk; beam = index // vocab, token = index % vocab) and the
states, finished flags and lengths are gathered to the surviving beams (gather_nd); `finalize` rebuilds the full
sequences with gather_tree. dynamic_decode runs `decoder.step` in a While until every beam is finished (or
max_step_num), writing each step's outputs into tensor arrays created outside the loop, stacking them after it
(tensor_array_to_tensor); in training mode (is_test=False) inputs and states go through tensor arrays too, so the
loop can be differentiated.

BasicDecoder runs a cell and lets a DecodeHelper pick each step's ids and next inputs: TrainingHelper feeds the
given target inputs (teacher forcing; finished at each sequence's length), GreedyEmbeddingHelper the argmax's
embedding (finished at end_token), SampleEmbeddingHelper a sampled id's (sampling_id over the softmax, optionally
tempered).
"""
from __future__ import annotations

import collections

import numpy as np

from ..framework.dtype import convert_dtype
from ..framework.program import default_main_program
from ..framework.variable import Variable
from .activation import log, softmax
from .attribute import shape
from .casting import cast
from .checks import check_type
from .control_flow import While, _flatten, _map_structure, array_read, array_write, create_array
from .creation import assign, fill_constant, fill_constant_batch_size_like, zeros_like
from .creation import range as arange
from .image import pad
from .indexing import argmax, gather_nd, slice
from .manipulation import expand, reshape, squeeze, stack, transpose, unsqueeze
from .math import (
    elementwise_add,
    elementwise_floordiv,
    elementwise_mod,
    elementwise_mul,
    equal,
    increment,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    reduce_all,
)
from .metric import topk
from .rnn_cells import gather_tree
from .select import sampling_id, tensor_array_to_tensor

__all__ = ['Decoder', 'BeamSearchDecoder', 'dynamic_decode', 'DecodeHelper', 'TrainingHelper',
           'GreedyEmbeddingHelper', 'SampleEmbeddingHelper', 'BasicDecoder']


class Decoder:
    """The base of the decoders dynamic_decode runs: initialize, step, finalize."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError


class BeamSearchDecoder(Decoder):
    """Beam search over a cell (see the module docstring)."""

    OutputWrapper = collections.namedtuple('OutputWrapper', ('scores', 'predicted_ids', 'parent_ids'))
    StateWrapper = collections.namedtuple('StateWrapper', ('cell_states', 'log_probs', 'finished', 'lengths'))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam, ...], each entry repeated beam_size times in a row."""
        check_type(x, 'x', (Variable), 'BeamSearchDecoder.tile_beam_merge_with_batch')
        x = unsqueeze(x, [1])
        expand_times = [1] * len(x.shape)
        expand_times[1] = beam_size
        x = expand(x, expand_times)
        x = transpose(x, list(range(2, len(x.shape))) + [0, 1])
        x = reshape(x, shape=[0] * (len(x.shape) - 2) + [-1])
        return transpose(x, [len(x.shape) - 1] + list(range(0, len(x.shape) - 1)))

    def _split_batch_beams(self, x):
        check_type(x, 'x', (Variable), 'BeamSearchDecoder._split_batch_beams')
        return reshape(x, shape=(-1, self.beam_size) + tuple(x.shape[1:]))

    def _merge_batch_beams(self, x):
        check_type(x, 'x', (Variable), 'BeamSearchDecoder._merge_batch_beams')
        return reshape(x, shape=(-1,) + tuple(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        check_type(x, 'x', (Variable), 'BeamSearchDecoder._expand_to_beam_size')
        x = unsqueeze(x, [1])
        expand_times = [1] * len(x.shape)
        expand_times[1] = self.beam_size
        return expand(x, expand_times)

    def _mask_probs(self, probs, finished):
        """A finished beam's next log-probs: 0 for end_token, -inf (-1e9) for the rest."""
        finished = cast(finished, dtype=probs.dtype)
        return elementwise_mul(expand(unsqueeze(finished, [2]), [1, 1, self.vocab_size]), self.noend_mask_tensor,
                               axis=-1) - elementwise_mul(probs, (finished - 1), axis=0)

    def _gather(self, x, indices, batch_size):
        """x[b, indices[b, k]] for every batch entry b and beam k."""
        batch_size = cast(batch_size, indices.dtype) if batch_size.dtype != indices.dtype else batch_size
        batch_size.stop_gradient = True
        batch_pos = expand(unsqueeze(arange(0, batch_size, 1, dtype=indices.dtype), [1]), [1, self.beam_size])
        topk_coordinates = stack([batch_pos, indices], axis=2)
        topk_coordinates.stop_gradient = True
        return gather_nd(x, topk_coordinates)

    def initialize(self, initial_cell_states):
        self.kinf = 1e9
        state = _flatten(initial_cell_states)[0]
        self.batch_size = shape(state)[0]
        self.start_token_tensor = fill_constant(shape=[1], dtype='int64', value=self.start_token)
        self.end_token_tensor = fill_constant(shape=[1], dtype='int64', value=self.end_token)
        init_cell_states = _map_structure(self._expand_to_beam_size, initial_cell_states)
        init_inputs = expand(unsqueeze(expand(self.start_token_tensor, [self.batch_size]), [1]), [1, self.beam_size])
        log_probs = expand(assign(np.array([[0.] + [-self.kinf] * (self.beam_size - 1)], dtype='float32')),
                           [self.batch_size, 1])
        init_finished = fill_constant_batch_size_like(input=state, shape=[-1, self.beam_size], dtype='bool',
                                                      value=False, force_cpu=True)
        init_lengths = zeros_like(init_inputs)
        init_inputs = self.embedding_fn(init_inputs) if self.embedding_fn else init_inputs
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished, init_lengths), \
            init_finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        self.vocab_size = logits.shape[-1]
        self.vocab_size_tensor = fill_constant(shape=[1], dtype='int64', value=self.vocab_size)
        noend_array = [-self.kinf] * self.vocab_size
        noend_array[self.end_token] = 0
        self.noend_mask_tensor = assign(np.array(noend_array, 'float32'))
        step_log_probs = log(softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = elementwise_add(x=step_log_probs, y=beam_state.log_probs, axis=0)
        scores = reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = topk(input=scores, k=self.beam_size)
        beam_indices = elementwise_floordiv(topk_indices, self.vocab_size_tensor)
        token_indices = elementwise_mod(topk_indices, self.vocab_size_tensor)
        next_log_probs = self._gather(reshape(log_probs, [-1, self.beam_size * self.vocab_size]), topk_indices,
                                      self.batch_size)
        next_cell_states = _map_structure(lambda x: self._gather(x, beam_indices, self.batch_size),
                                          next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + cast(logical_not(next_finished), beam_state.lengths.dtype)
        next_finished = logical_or(next_finished, equal(token_indices, self.end_token_tensor))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = _map_structure(self._merge_batch_beams, inputs)
        cell_states = _map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = _map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time=time, logits=cell_outputs, next_cell_states=next_cell_states,
                                               beam_state=states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states


def _named_map(fn, *structures):
    """_map_structure that rebuilds namedtuples (the decoders' wrappers) as namedtuples."""
    first = structures[0]
    if isinstance(first, tuple) and hasattr(first, '_fields'):
        return type(first)(*[_named_map(fn, *parts) for parts in zip(*structures)])
    if isinstance(first, (list, tuple)):
        return type(first)(_named_map(fn, *parts) for parts in zip(*structures))
    return _map_structure(fn, *structures)


def _create_array_out_of_while(dtype):
    program = default_main_program()
    current = program.current_block_idx
    program.current_block_idx = program.current_block().parent_idx
    array = create_array(dtype)
    program.current_block_idx = current
    return array


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Runs decoder.step in a While until all beams finish (see the module docstring)."""
    initial_inputs, initial_states, initial_finished = decoder.initialize(inits)
    global_inputs, global_states, global_finished = initial_inputs, initial_states, initial_finished
    global_finished.stop_gradient = True
    step_idx = fill_constant(shape=[1], dtype='int64', value=0)
    cond = logical_not(reduce_all(initial_finished))
    if max_step_num is not None:
        max_step_num = fill_constant(shape=[1], dtype='int64', value=max_step_num)
    while_op = While(cond, is_test=is_test)
    sequence_lengths = cast(zeros_like(initial_finished), 'int64')
    sequence_lengths.stop_gradient = True
    if is_test:
        inputs = _named_map(lambda x: x, initial_inputs)
        states = _named_map(lambda x: x, initial_states)
    else:
        inputs_arrays = _named_map(lambda x: array_write(x, step_idx), initial_inputs)
        states_arrays = _named_map(lambda x: array_write(x, step_idx), initial_states)

    def _maybe_copy(state, new_state, step_mask):
        state_dtype = state.dtype
        if convert_dtype(state_dtype) in ['bool']:
            state = cast(state, dtype='float32')
            new_state = cast(new_state, dtype='float32')
        if step_mask.dtype != state.dtype:
            step_mask = cast(step_mask, dtype=state.dtype)
            step_mask.stop_gradient = True
        new_state = elementwise_mul(state, step_mask, axis=0) - elementwise_mul(new_state, (step_mask - 1), axis=0)
        if convert_dtype(state_dtype) in ['bool']:
            new_state = cast(new_state, dtype=state_dtype)
        return new_state

    with while_op.block():
        if not is_test:
            inputs = _named_map(lambda array: array_read(array, step_idx), inputs_arrays)
            states = _named_map(lambda array: array_read(array, step_idx), states_arrays)
        outputs, next_states, next_inputs, next_finished = decoder.step(step_idx, inputs, states, **kwargs)
        next_finished = logical_or(next_finished, global_finished)
        next_sequence_lengths = elementwise_add(sequence_lengths,
                                                cast(logical_not(global_finished), sequence_lengths.dtype))
        if impute_finished:
            next_states = _named_map(lambda x, y: _maybe_copy(x, y, global_finished), states, next_states)
        outputs_arrays = _named_map(lambda x: _create_array_out_of_while(x.dtype), outputs)
        _named_map(lambda x, x_array: array_write(x, i=step_idx, array=x_array), outputs, outputs_arrays)
        increment(x=step_idx, value=1.0, in_place=True)
        if is_test:
            _named_map(assign, next_inputs, global_inputs)
            _named_map(assign, next_states, global_states)
        else:
            _named_map(lambda x, x_array: array_write(x, i=step_idx, array=x_array), next_inputs, inputs_arrays)
            _named_map(lambda x, x_array: array_write(x, i=step_idx, array=x_array), next_states, states_arrays)
        assign(next_finished, global_finished)
        assign(next_sequence_lengths, sequence_lengths)
        if max_step_num is not None:
            logical_and(logical_not(reduce_all(global_finished)), less_equal(step_idx, max_step_num), cond)
        else:
            logical_not(reduce_all(global_finished), cond)
    final_outputs = _named_map(lambda array: tensor_array_to_tensor(array, axis=0, use_stack=True)[0],
                               outputs_arrays)
    if is_test:
        final_states = global_states
    else:
        final_states = _named_map(lambda array: array_read(array, step_idx), states_arrays)
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _named_map(lambda x: transpose(x, [1, 0] + list(range(2, len(x.shape)))), final_outputs)
    return (final_outputs, final_states, sequence_lengths) if return_length else (final_outputs, final_states)


# --- BasicDecoder and its helpers -----------------------------------------------------------------------------------

class DecodeHelper:
    """What BasicDecoder asks at each step: initialize, sample, next_inputs."""

    def initialize(self):
        pass

    def sample(self, time, outputs, states):
        pass

    def next_inputs(self, time, outputs, states, sample_ids):
        pass


class TrainingHelper(DecodeHelper):
    """Teacher forcing: step t reads inputs[:, t] (inputs[t] when time_major); finished at sequence_length."""

    def __init__(self, inputs, sequence_length, time_major=False):
        self.inputs = inputs
        self.sequence_length = sequence_length
        self.time_major = time_major
        self.inputs_ = _map_structure(
            lambda x: pad(x, paddings=([0, 1] + [0, 0] * (len(x.shape) - 1)) if time_major
                          else ([0, 0, 0, 1] + [0, 0] * (len(x.shape) - 2))), self.inputs)

    def initialize(self):
        init_finished = equal(self.sequence_length,
                              fill_constant(shape=[1], dtype=self.sequence_length.dtype, value=0))
        init_inputs = _map_structure(lambda x: x[0] if self.time_major else x[:, 0], self.inputs)
        return init_inputs, init_finished

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        time = cast(time, 'int32') if convert_dtype(time.dtype) not in ['int32'] else time
        if self.sequence_length.dtype != time.dtype:
            self.sequence_length = cast(self.sequence_length, time.dtype)
        next_time = time + 1
        finished = less_equal(self.sequence_length, next_time)

        def _slice(x):
            axes = [0 if self.time_major else 1]
            return squeeze(slice(x, axes=axes, starts=[next_time], ends=[next_time + 1]), axes=axes)
        return finished, _map_structure(_slice, self.inputs_), states


class GreedyEmbeddingHelper(DecodeHelper):
    """The argmax id's embedding is the next input; finished at end_token."""

    def __init__(self, embedding_fn, start_tokens, end_token):
        self.embedding_fn = embedding_fn
        self.start_tokens = start_tokens
        self.end_token = fill_constant(shape=[1], dtype='int64', value=end_token)

    def initialize(self):
        init_finished = fill_constant_batch_size_like(input=self.start_tokens, shape=[-1], dtype='bool',
                                                      value=False, force_cpu=True)
        return self.embedding_fn(self.start_tokens), init_finished

    def sample(self, time, outputs, states):
        return argmax(outputs, axis=-1)

    def next_inputs(self, time, outputs, states, sample_ids):
        finished = equal(sample_ids, self.end_token)
        return finished, self.embedding_fn(sample_ids), states


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper drawing the id from softmax(outputs / softmax_temperature) (sampling_id)."""

    def __init__(self, embedding_fn, start_tokens, end_token, softmax_temperature=None, seed=None):
        super().__init__(embedding_fn, start_tokens, end_token)
        self.softmax_temperature = (fill_constant(shape=[1], dtype='float32', value=softmax_temperature)
                                    if softmax_temperature is not None else None)
        self.seed = seed

    def sample(self, time, outputs, states):
        logits = (outputs / self.softmax_temperature) if self.softmax_temperature is not None else outputs
        probs = softmax(logits)
        probs.stop_gradient = True
        return sampling_id(probs, seed=self.seed, dtype=self.start_tokens.dtype)


class BasicDecoder(Decoder):
    """A cell, an optional output_fn, and a DecodeHelper choosing ids and next inputs."""

    OutputWrapper = collections.namedtuple('OutputWrapper', ('cell_outputs', 'sample_ids'))

    def __init__(self, cell, helper, output_fn=None):
        self.cell = cell
        self.helper = helper
        self.output_fn = output_fn

    def initialize(self, initial_cell_states):
        initial_inputs, initial_finished = self.helper.initialize()
        return initial_inputs, initial_cell_states, initial_finished

    def step(self, time, inputs, states, **kwargs):
        cell_outputs, cell_states = self.cell(inputs, states, **kwargs)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        sample_ids = self.helper.sample(time=time, outputs=cell_outputs, states=cell_states)
        sample_ids.stop_gradient = True
        finished, next_inputs, next_states = self.helper.next_inputs(time=time, outputs=cell_outputs,
                                                                     states=cell_states, sample_ids=sample_ids)
        return self.OutputWrapper(cell_outputs, sample_ids), next_states, next_inputs, finished
