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
- extend_with_decoupled_weight_decay(Optimizer class) (fluid.contrib, 1.8): a subclass whose minimize first
  appends `param = param - param * coeff` (op_role Optimize, name scope `weight decay`) for every parameter with
  a gradient (and `apply_decay_param_fun(name)` true), then the optimizer's own update: decoupled weight decay
  (Loshchilov & Hutter), as 1.8 builds it.
"""
from __future__ import annotations

import warnings

from ..framework.program import default_startup_program, name_scope
from ..framework.variable import Variable
from ..layers import control_flow, math
from ..layers.creation import assign, create_global_var, fill_constant
from .base import Optimizer

__all__ = ['LookaheadOptimizer', 'RecomputeOptimizer', 'PipelineOptimizer', 'extend_with_decoupled_weight_decay']


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


class DecoupledWeightDecay:
    """The mixin of extend_with_decoupled_weight_decay (put before the optimizer class)."""

    def __init__(self, coeff=0.0, apply_decay_param_fun=None, **kwargs):
        if not isinstance(coeff, (float, Variable)):
            raise TypeError('coeff should be float or Variable.')
        self._params_name = set()
        self._apply_decay_param_fun = apply_decay_param_fun
        self._coeff = coeff
        super().__init__(**kwargs)

    def _scale_parameters(self, params_and_grads):
        if isinstance(self._coeff, float) and self._coeff == 0.0:
            return []
        scaled = []
        for param, grad in params_and_grads:
            if grad is None:
                continue
            if self._apply_decay_param_fun is not None and not self._apply_decay_param_fun(param.name):
                continue
            if isinstance(self._coeff, Variable) and self._coeff.dtype != param.dtype:
                raise AssertionError('the type of coeff(%s) and parameter(%s) is not consistent.'
                                     % (self._coeff.dtype, param.dtype))
            with param.block.program._optimized_guard([param, grad]), name_scope('weight decay'):
                if param.name in self._params_name:
                    raise AssertionError('parameter %s is decayed twice' % param.name)
                scaled.append((param, grad, param * self._coeff))
                self._params_name.add(param.name)
        return scaled

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss=loss, startup_program=startup_program, parameter_list=parameter_list,
                                     no_grad_set=no_grad_set)
        for param, grad, scaled_param in self._scale_parameters(params_grads):
            with param.block.program._optimized_guard([param, grad]), name_scope('weight decay'):
                assign(input=math.elementwise_sub(x=param, y=scaled_param), output=param)
        optimize_ops = self.apply_optimize(loss=loss, params_grads=params_grads, startup_program=startup_program)
        return optimize_ops, params_grads

    def __str__(self):
        return ' '.join(['Weight Decay, params:', ','.join(self._params_name)])


def extend_with_decoupled_weight_decay(base_optimizer):
    """fluid.contrib.extend_with_decoupled_weight_decay: `base_optimizer` (an Optimizer subclass) with decoupled
    weight decay; the new class takes `weight_decay` (a float or Variable coefficient) and
    `apply_decay_param_fun` before the optimizer's own keyword arguments."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError('The input(base_optimizer) should be a derived class of Optimizer.')

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecay, base_optimizer):
        def __init__(self, weight_decay, apply_decay_param_fun=None, **kwargs):
            super().__init__(weight_decay, apply_decay_param_fun, **kwargs)
    return OptimizerWithDecoupledWeightDecay
