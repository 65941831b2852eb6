"""Parameter averaging for evaluation: fluid.optimizer.ExponentialMovingAverage and fluid.optimizer.ModelAverage.

Both are built from ordinary ops the way Paddle 1.8's python/paddle/fluid/optimizer.py builds them, so the
variables, the training-program ops and the numbers are Paddle's:

- each keeps its state in persistable variables of the main program, updated by ops appended to it
  (op_role Optimize, op_role_var [param, tmp], name scope `moving_average` / `move_average`);
- each builds two small Programs at construction: `apply_program` copies every parameter into a backup variable
  (`<param>.ema_tmp_N` / `<param>.tmp_N`) and overwrites the parameter with its average, `restore_program` copies
  the backups back. `apply(executor, need_restore=True)` runs the first (a context manager that runs the second
  on exit when `need_restore`), `restore(executor)` the second. The variables these programs share with the main
  program are declared persistable in them (Paddle's `Block._clone_variable`), so a run reads and writes them in
  the executor's scope.

ExponentialMovingAverage: `ema = ema * decay + param * (1 - decay)` after every training step (`update()`), with
`decay` the persistable `scheduled_ema_decay_rate`; with `thres_steps` it is min(decay, (t + 1) / (t + 10)) computed
by ops in the main program each step. The step counter `@EMA_STEP_COUNTER@` is incremented by an `increment` op at
the head of the main program. `apply` divides the EMA by (1 - decay^step) when step > 0 (bias correction) and
writes that back INTO the EMA variable before copying it to the parameter, as Paddle does: applying twice corrects
twice, and training continues from the corrected EMA.
Where Paddle switches with `Switch` (conditional_block ops), which paddle_exec does not have, a `where` op over
[1]-shaped values selects the same value: the scheduled decay, and a divisor of exactly 1 when step == 0.
Paddle's dtype rules are kept: an int64 `thres_steps` (fluid.layers.autoincreased_step_counter) makes
(t + 1) / (t + 10) an integer division compared with an int64 tensor holding int(decay), so the decay stays
`decay`, as in Paddle 1.8.

ModelAverage: one `average_accumulates` op per parameter keeps sum_1/sum_2/sum_3 and the int64 counters
num_accumulates/old_num_accumulates/num_updates (accumulators of an Optimizer, so named `<param>_sum_1_0`, ...);
`apply` sets param = (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates) with sum, cast and
elementwise_div ops.
"""
from __future__ import annotations

import contextlib

from ..framework import unique_name
from ..framework.dtype import VarType
from ..framework.program import Program, default_main_program, name_scope, program_guard
from ..framework.variable import Variable
from ..layers import math as M
from ..layers.casting import cast
from ..layers.creation import assign, create_global_var, fill_constant
from ..layers.helper import LayerHelper
from ..layers.indexing import where
from ..layers.learning_rate import autoincreased_step_counter
from .base import Optimizer

__all__ = ['ExponentialMovingAverage', 'ModelAverage']

EMA_STEP_COUNTER = '@EMA_STEP_COUNTER@'
EMA_DECAY_NAME = 'scheduled_ema_decay_rate'


def _is_averaged(param) -> bool:
    """Paddle's `param.do_model_average != False`: None (not set) counts as yes."""
    flag = getattr(param, 'do_model_average', None)
    return flag is None or bool(flag)


def _clone_persistable(block, var: Variable) -> Variable:
    """Paddle's `Block._clone_variable(var)`: the same name in `block`, persistable, so running that block's
    program reads and writes the value kept in the scope."""
    return block.create_var(name=var.name, shape=var.shape if var.has_shape() else None, dtype=var.dtype,
                            type=var.type, persistable=True, stop_gradient=True)


def _run(executor, program: Program) -> None:
    if executor is None or not hasattr(executor, 'run'):
        raise TypeError('apply/restore need the Executor that trains the program, got %r' % (executor,))
    executor.run(program)


class _ApplyRestore:
    """apply() / restore() over the subclass's `apply_program` (parameters take the averaged values, the current
    ones saved) and `restore_program` (the saved values put back)."""

    @contextlib.contextmanager
    def apply(self, executor, need_restore: bool = True):
        """Parameters hold the averaged values inside the block; restored on exit when `need_restore`."""
        _run(executor, self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor) -> None:
        """Puts back the parameter values saved by the last apply()."""
        _run(executor, self.restore_program)


class ExponentialMovingAverage(_ApplyRestore):
    """fluid.optimizer.ExponentialMovingAverage / paddle.static.ExponentialMovingAverage (static graph only).

        ema = fluid.optimizer.ExponentialMovingAverage(0.999, thres_steps=global_steps)
        ema.update()                        # after optimizer.minimize, in the training program
        ...
        with ema.apply(exe):                # parameters hold the bias-corrected EMA inside
            exe.run(test_program, ...)
    """

    def __init__(self, decay: float = 0.999, thres_steps: Variable | None = None, name: str | None = None):
        if thres_steps is not None and not isinstance(thres_steps, Variable):
            raise TypeError('ExponentialMovingAverage: thres_steps must be a Variable (e.g. a global step counter), '
                            'got %s' % type(thres_steps).__name__)
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name if name is not None else ''
        self._decay_var = self._get_ema_decay()
        self._step_counter_name = EMA_STEP_COUNTER
        self._params_tmps = []
        for param in default_main_program().global_block().all_parameters():
            if _is_averaged(param):
                tmp = param.block.create_var(name=unique_name.generate('.'.join([self._name + param.name, 'ema_tmp'])),
                                             shape=param.shape, dtype=param.dtype, persistable=False,
                                             stop_gradient=True)
                self._params_tmps.append((param, tmp))
        self._ema_vars: dict[str, Variable] = {}
        for param, tmp in self._params_tmps:
            with param.block.program._optimized_guard([param, tmp]), name_scope('moving_average'):
                self._ema_vars[param.name] = self._create_ema_var(param)
        self.apply_program = self._build_apply_program()
        self.restore_program = self._build_restore_program()

    # --- the training program ---------------------------------------------------------------------------------
    def _get_ema_decay(self) -> Variable:
        with default_main_program()._lr_schedule_guard():
            decay_var = create_global_var(shape=[1], value=self._decay, dtype='float32', persistable=True,
                                          name=EMA_DECAY_NAME)
            if self._thres_steps is not None:
                self._schedule_decay(decay_var)
        return decay_var

    def _schedule_decay(self, decay_var: Variable) -> None:
        """decay_var = min(decay, (t + 1) / (t + 10)) each step, with Paddle's dtype rules (see the module doc)."""
        t = self._thres_steps
        decay_t = M.elementwise_div(M.scale(t, 1.0, 1.0), M.scale(t, 1.0, 10.0))
        # Paddle's `decay_t < decay` compares with a tensor of decay_t's dtype (int(decay) for integer steps)
        below = M.less_than(decay_t, fill_constant([1], decay_t.dtype, self._decay))
        if decay_t.dtype != decay_var.dtype:
            decay_t = cast(decay_t, decay_var.dtype)
        assign(where(below, decay_t, fill_constant([1], decay_var.dtype, self._decay)), decay_var)

    def _create_ema_var(self, param) -> Variable:
        return create_global_var(name=unique_name.generate(self._name + param.name + '_ema'), shape=param.shape,
                                 value=0.0, dtype=param.dtype, persistable=True)

    def update(self) -> None:
        """Appends the EMA update of every parameter to the main program (call it after minimize)."""
        autoincreased_step_counter(self._step_counter_name)
        for param, tmp in self._params_tmps:
            with param.block.program._optimized_guard([param, tmp]), name_scope('moving_average'):
                param_ema = self._ema_vars[param.name]
                kept = M.elementwise_mul(param_ema, self._decay_var)
                added = M.elementwise_mul(param, M.scale(self._decay_var, -1.0, 1.0))
                assign(M.elementwise_add(kept, added), param_ema)

    # --- apply / restore ----------------------------------------------------------------------------------------
    def _build_apply_program(self) -> Program:
        program = Program()
        block = program.global_block()
        with program_guard(program):
            step = create_global_var(name=self._step_counter_name, shape=[1], value=0, dtype='int64',
                                     persistable=True)
            step = cast(step, 'float32')
            decay_pow = M.elementwise_pow(_clone_persistable(block, self._decay_var), step)
            for param, tmp in self._params_tmps:
                ema = _clone_persistable(block, self._ema_vars[param.name])
                param, tmp = _clone_persistable(block, param), _clone_persistable(block, tmp)
                assign(param, tmp)
                # bias correction when step > 0 (Paddle's Switch): divide by 1 - decay^step, else by exactly 1
                started = M.greater_than(step, fill_constant([1], 'float32', 0.0))
                divisor = where(started, M.scale(decay_pow, -1.0, 1.0), fill_constant([1], 'float32', 1.0))
                assign(M.elementwise_div(ema, divisor), ema)
                assign(ema, param)
        return program

    def _build_restore_program(self) -> Program:
        program = Program()
        block = program.global_block()
        with program_guard(program):
            for param, tmp in self._params_tmps:
                assign(_clone_persistable(block, tmp), _clone_persistable(block, param))
        return program



class ModelAverage(_ApplyRestore, Optimizer):
    """fluid.optimizer.ModelAverage: the average of each parameter over a sliding window of recent steps.

    The window restarts when num_accumulates >= min_average_window and
    num_accumulates >= min(max_average_window, num_updates * average_window_rate). Build it after minimize, in the
    training program; `apply(exe)` / `restore(exe)` as ExponentialMovingAverage's.
    """

    def __init__(self, average_window_rate: float, min_average_window: int = 10000,
                 max_average_window: int = 10000, regularization=None, name: str | None = None):
        super().__init__(0.0, regularization=regularization, name=name)
        self.average_window = float(average_window_rate)
        self.min_average_window = int(min_average_window)
        self.max_average_window = int(max_average_window)
        self.params_grads = []
        for param in default_main_program().global_block().all_parameters():
            if _is_averaged(param):
                backup = param.block.create_var(
                    name=unique_name.generate_with_ignorable_key('.'.join([param.name, 'tmp'])),
                    shape=param.shape, dtype=param.dtype, persistable=False, stop_gradient=True)
                self.params_grads.append((param, backup))
        for param, backup in self.params_grads:
            with param.block.program._optimized_guard([param, backup]), name_scope('move_average'):
                self._append_average_accumulate_op(param)
        self.apply_program = Program()
        with program_guard(self.apply_program):
            for param_backup in self.params_grads:
                self._add_average_apply_op(self.apply_program.global_block(), param_backup)
        self.restore_program = Program()
        with program_guard(self.restore_program):
            for param, backup in self.params_grads:
                block = self.restore_program.global_block()
                assign(_clone_persistable(block, backup), _clone_persistable(block, param))

    _COUNTERS = ('num_accumulates', 'old_num_accumulates', 'num_updates')

    def _append_average_accumulate_op(self, param) -> None:
        self.helper = LayerHelper('average_accumulate')
        sums = [self._add_accumulator(name, param) for name in ('sum_1', 'sum_2', 'sum_3')]
        counts = [self._add_accumulator(name, param, dtype=VarType.INT64, shape=[1]) for name in self._COUNTERS]
        self.helper.append_op(
            'average_accumulates',
            {'param': [param], 'in_sum_1': [sums[0]], 'in_sum_2': [sums[1]], 'in_sum_3': [sums[2]],
             'in_num_accumulates': [counts[0]], 'in_old_num_accumulates': [counts[1]],
             'in_num_updates': [counts[2]]},
            {'out_sum_1': [sums[0]], 'out_sum_2': [sums[1]], 'out_sum_3': [sums[2]],
             'out_num_accumulates': [counts[0]], 'out_old_num_accumulates': [counts[1]],
             'out_num_updates': [counts[2]]},
            {'average_window': self.average_window, 'min_average_window': self.min_average_window,
             'max_average_window': self.max_average_window})

    def _add_average_apply_op(self, block, param_backup) -> None:
        param, backup = (_clone_persistable(block, v) for v in param_backup)
        sum_1, sum_2, sum_3, n_acc, n_old, _ = (
            _clone_persistable(block, self._get_accumulator(name, param))
            for name in ('sum_1', 'sum_2', 'sum_3') + self._COUNTERS)
        assign(param, backup)
        count = M.sums([n_acc, n_old])
        total = M.sums([sum_1, sum_2, sum_3])
        dtype = 'float32' if self._dtype is None else self._dtype
        count, total = cast(count, dtype), cast(total, dtype)
        block.append_op('elementwise_div', {'X': [total], 'Y': [count]}, {'Out': [param]}, {'axis': -1})

    def minimize(self, *args, **kwargs):
        raise NotImplementedError('ModelAverage is not an update rule: build it after optimizer.minimize(loss) and '
                                  'use apply()/restore()')

