"""Optimizers that wrap another optimizer (Paddle 1.8's fluid.optimizer): Lookahead, Recompute, Pipeline.

- LookaheadOptimizer (Zhang et al. 2019): the inner optimizer updates the "fast" parameters every step; every
  k-th step the slow copies (`<param>@SLOW`, set from the parameters by the startup program) move to
  `alpha * fast + (1 - alpha) * slow` and the fast parameters are reset to them. Built as 1.8 builds it: the
  persistable globals `lookahead_k` (int32), `lookahead_alpha`, `lookahead_step` (int32, incremented each run)
  and a Switch on `step % k == 0` holding the assign ops.
- RecomputeOptimizer: the backward pass recomputes the forward activations between the checkpoints
  (`_set_checkpoints([...])`) instead of keeping them (backward.append_backward(checkpoints=...)); the numbers
  equal the inner optimizer's.
- PipelineOptimizer: Paddle 1.8 splits the program into sections at `cut_list` and runs them asynchronously on
  `place_list` through `Executor.train_from_dataset`. Here every section would run on the CPU of the same
  process, so the program stays in one stage: `minimize` is the inner optimizer's, the program records its
  section list (`_pipeline_opt`, one section) and runs with `Executor.run`; a non-empty cut_list warns that it
  is not split. The numbers are those of synchronous training.
"""
from __future__ import annotations

import warnings

from ..framework.program import default_startup_program
from ..framework.variable import Variable
from ..layers import control_flow, math
from ..layers.creation import assign, create_global_var, fill_constant

__all__ = ['LookaheadOptimizer', 'RecomputeOptimizer', 'PipelineOptimizer']


class LookaheadOptimizer:
    """Lookahead around `inner_optimizer` (alpha in [0, 1], k a positive int); see the module docstring."""

    def __init__(self, inner_optimizer, alpha=0.5, k=5):
        if inner_optimizer is None:
            raise AssertionError('inner optimizer can not be None')
        if not 0.0 <= alpha <= 1.0:
            raise AssertionError('alpha should be larger or equal to 0.0, and less or equal than 1.0')
        if not (isinstance(k, int) and k > 0):
            raise AssertionError('k should be a positive integer')
        self.inner_optimizer = inner_optimizer
        self.alpha = alpha
        self.k = k
        self.type = 'lookahead'

    def minimize(self, loss, startup_program=None):
        mini_out = self.inner_optimizer.minimize(loss, startup_program=startup_program)
        startup_program = startup_program or default_startup_program()
        main_block = loss.block
        params = [p.name for p in main_block.all_parameters()]
        slow_of = {}
        for name in params:
            fast = main_block.var(name)
            slow_of[name] = main_block.create_var(name=name + '@SLOW', shape=fast.shape, dtype=fast.dtype,
                                                  persistable=True)
        startup_block = startup_program.global_block()
        for name in params:
            fast = startup_block.var(name)
            slow = startup_block.create_var(name=name + '@SLOW', shape=fast.shape, dtype=fast.dtype,
                                            persistable=True)
            startup_block.append_op('assign', {'X': [fast]}, {'Out': [slow]})
        k = create_global_var(name='lookahead_k', shape=[1], value=int(self.k), dtype='int32', persistable=True)
        alpha = create_global_var(name='lookahead_alpha', shape=[1], value=float(self.alpha), dtype='float32',
                                  persistable=True)
        step = create_global_var(name='lookahead_step', shape=[1], value=0, dtype='int32', persistable=True)
        math.increment(x=step, value=1.0, in_place=True)
        # Paddle 1.8 compares the int32 remainder with a float32 zero (reading its bits as int32); an int32 zero
        # is the same test
        zero = fill_constant(shape=[1], dtype='int32', value=0)
        one = fill_constant(shape=[1], dtype='float32', value=1.0)
        mod = math.elementwise_mod(step, k)
        with control_flow.Switch() as switch:
            with switch.case(math.equal(mod, zero)):
                for name in params:
                    fast, slow = main_block.var(name), slow_of[name]
                    mixed = math.elementwise_add(math.elementwise_mul(fast, alpha),
                                                 math.elementwise_mul(slow, math.elementwise_sub(one, alpha)))
                    assign(input=mixed, output=slow)
                    assign(input=mixed, output=fast)
            with switch.default():
                pass
        return mini_out


class RecomputeOptimizer:
    """Recompute around `optimizer`: call `_set_checkpoints([vars])`, then minimize."""

    def __init__(self, optimizer):
        self._optimizer = optimizer
        self._checkpoints = None
        self._learning_rate = optimizer._learning_rate
        self._learning_rate_map = optimizer._learning_rate_map

    def _set_checkpoints(self, checkpoints):
        self._checkpoints = checkpoints

    def load(self, stat_dict):
        raise NotImplementedError('load function is not supported by Recompute Optimizer for now')

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads=params_grads)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        if self._checkpoints is None:
            raise AssertionError('You should call _set_checkpoints first')
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks,
                                        checkpoints=self._checkpoints)

    def apply_optimize(self, loss, startup_program, params_grads):
        return self._optimizer.apply_optimize(loss, startup_program=startup_program, params_grads=params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        if not isinstance(loss, Variable):
            raise AssertionError('The loss should be an Variable.')
        if self._checkpoints is None:
            raise AssertionError('You should call _set_checkpoints first')
        params_grads = self.backward(loss, startup_program=startup_program, parameter_list=parameter_list,
                                     no_grad_set=no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program=startup_program, params_grads=params_grads)
        return optimize_ops, params_grads


class PipelineOptimizer:
    """Pipeline around `optimizer`, run as one stage (see the module docstring)."""

    def __init__(self, optimizer, cut_list=None, place_list=None, concurrency_list=None, queue_size=30,
                 sync_steps=1, start_cpu_core_id=0):
        self._optimizer = optimizer
        self._cut_list = cut_list
        self._place_list = place_list
        self._concurrency_list = concurrency_list
        self._queue_size = queue_size
        self._sync_steps = sync_steps
        self._start_cpu_core_id = start_cpu_core_id

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        result = self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        if self._cut_list:
            warnings.warn('PipelineOptimizer: paddle_exec runs the program as one stage; cut_list %r does not split '
                          'it (the numbers are those of synchronous training)'
                          % ([[v.name for v in cut] for cut in self._cut_list],), stacklevel=2)
        program = loss.block.program
        program._pipeline_opt = {
            'trainer': 'PipelineTrainer', 'device_worker': 'Section',
            'section_program_list': [{'program': program, 'input_set': set(), 'output_set': set()}],
            'place_list': self._place_list, 'concurrency_list': self._concurrency_list,
            'queue_size': self._queue_size, 'start_cpu_core_id': self._start_cpu_core_id,
            'sync_steps': self._sync_steps, 'param_need_sync': []}
        return result
