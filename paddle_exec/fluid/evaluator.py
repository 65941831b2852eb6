"""fluid.evaluator (Paddle 1.8): evaluators that keep their running totals in persistable variables of the program
(`<name>_N_<state>`), updated by `sum` ops every run, zeroed by reset(executor) and read by eval(executor) through
small programs of their own. Paddle 1.8 deprecates them in favour of fluid.metrics (constructing one warns as
Paddle's does).

- ChunkEvaluator: totals of chunk_eval's inferred / labelled / correct chunk counts; eval gives precision, recall
  and F1 over everything seen.
- EditDistance: total distance, sequence count and count of sequences with a nonzero distance; eval gives the
  average distance and the instance error rate.

Both ChunkEvaluator and EditDistance read LoD sequences (their layers get no lengths), so they run once the
executor carries a feed's LoD to the ops.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..framework import unique_name
from ..framework.program import Program, program_guard
from ..framework.variable import Variable
from ..layers import casting, math
from ..layers.creation import fill_constant
from ..layers.helper import LayerHelper
from ..layers.loss_classification import chunk_eval, edit_distance

__all__ = ['ChunkEvaluator', 'EditDistance']

def _clone_var_(block, var: Variable) -> Variable:
    return block.create_var(name=var.name, shape=var.shape, dtype=var.dtype, type=var.type, lod_level=var.lod_level,
                            persistable=True)


class Evaluator:
    """The base: `states` (persistable accumulators) and `metrics` (this batch's values)."""

    def __init__(self, name: str, **kwargs):
        warnings.warn('The %s is deprecated, because maintain a modified program inside evaluator cause bug easily, '
                      'please use fluid.metrics.%s instead.' % (type(self).__name__, type(self).__name__), Warning)
        self.states: list[Variable] = []
        self.metrics: list[Variable] = []
        self.helper = LayerHelper(name, **kwargs)

    def reset(self, executor, reset_program=None):
        """Zeroes every state (runs a program of fill_constant ops)."""
        reset_program = Program() if reset_program is None else reset_program
        with program_guard(main_program=reset_program):
            for var in self.states:
                g_var = _clone_var_(reset_program.current_block(), var)
                fill_constant(shape=g_var.shape, value=0.0, dtype=g_var.dtype, out=g_var)
        executor.run(reset_program)

    def eval(self, executor, eval_program=None):
        raise NotImplementedError()

    def _create_state(self, suffix: str, dtype, shape) -> Variable:
        state = self.helper.create_variable(name='_'.join([unique_name.generate(self.helper.name), suffix]),
                                            persistable=True, dtype=dtype, shape=shape)
        self.states.append(state)
        return state

    def _root_block_only(self):
        if self.helper.main_program.current_block().idx != 0:
            raise ValueError('You can only invoke Evaluator in root block')


class ChunkEvaluator(Evaluator):
    def __init__(self, input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None):
        super().__init__('chunk_eval')
        self._root_block_only()
        self.num_infer_chunks = self._create_state(dtype='int64', shape=[1], suffix='num_infer_chunks')
        self.num_label_chunks = self._create_state(dtype='int64', shape=[1], suffix='num_label_chunks')
        self.num_correct_chunks = self._create_state(dtype='int64', shape=[1], suffix='num_correct_chunks')
        precision, recall, f1_score, num_infer, num_label, num_correct = chunk_eval(
            input=input, label=label, chunk_scheme=chunk_scheme, num_chunk_types=num_chunk_types,
            excluded_chunk_types=excluded_chunk_types)
        for state, batch in ((self.num_infer_chunks, num_infer), (self.num_label_chunks, num_label),
                             (self.num_correct_chunks, num_correct)):
            math.sums(input=[state, batch], out=state)
        self.metrics.extend([precision, recall, f1_score])

    def eval(self, executor, eval_program=None):
        eval_program = Program() if eval_program is None else eval_program
        block = eval_program.current_block()
        num_infer, num_label, num_correct = (v[0] for v in executor.run(
            eval_program, fetch_list=[_clone_var_(block, state) for state in self.states]))
        precision = float(num_correct) / num_infer if num_infer else 0
        recall = float(num_correct) / num_label if num_label else 0
        f1_score = float(2 * precision * recall) / (precision + recall) if num_correct else 0
        return (np.array([precision], dtype='float32'), np.array([recall], dtype='float32'),
                np.array([f1_score], dtype='float32'))


class EditDistance(Evaluator):
    def __init__(self, input, label, ignored_tokens=None, **kwargs):
        super().__init__('edit_distance', **kwargs)
        self._root_block_only()
        self.total_distance = self._create_state(dtype='float32', shape=[1], suffix='total_distance')
        self.seq_num = self._create_state(dtype='int64', shape=[1], suffix='seq_num')
        self.instance_error = self._create_state(dtype='int64', shape=[1], suffix='instance_error')
        distances, seq_num = edit_distance(input=input, label=label, ignored_tokens=ignored_tokens)
        zero = fill_constant(shape=[1], value=0.0, dtype='float32')
        seq_right_count = math.reduce_sum(casting.cast(x=math.equal(distances, zero), dtype='int64'))
        instance_error_count = math.elementwise_sub(x=seq_num, y=seq_right_count)
        total_distance = math.reduce_sum(distances)
        math.sums(input=[self.total_distance, total_distance], out=self.total_distance)
        math.sums(input=[self.seq_num, seq_num], out=self.seq_num)
        math.sums(input=[self.instance_error, instance_error_count], out=self.instance_error)
        self.metrics.append(total_distance)
        self.metrics.append(instance_error_count)

    def eval(self, executor, eval_program=None):
        eval_program = Program() if eval_program is None else eval_program
        block = eval_program.current_block()
        with program_guard(main_program=eval_program):
            total_distance = _clone_var_(block, self.total_distance)
            seq_num = casting.cast(x=_clone_var_(block, self.seq_num), dtype='float32')
            instance_error = casting.cast(x=_clone_var_(block, self.instance_error), dtype='float32')
            avg_distance = math.elementwise_div(x=total_distance, y=seq_num)
            avg_instance_error = math.elementwise_div(x=instance_error, y=seq_num)
            result = executor.run(eval_program, fetch_list=[avg_distance, avg_instance_error])
        return np.array(result[0]), np.array(result[1])
