"""fluid.layers' learning-rate decays (1.8's layers/learning_rate_scheduler.py) and `autoincreased_step_counter`.

Every decay builds ops into the main program, as 1.8 does, under `_lr_schedule_guard` (op_role LRSched = 16,
op_role_var []), and returns the Variable an optimizer takes as its learning rate (Optimizer keeps a Variable
learning rate as given, optimizer/base.py):

    lr = fluid.layers.exponential_decay(0.1, decay_steps=100, decay_rate=0.5, staircase=True)
    fluid.optimizer.Momentum(lr, 0.9).minimize(loss)

The step counter. `autoincreased_step_counter(name, begin, step)` creates a persistable int64 [1] global
(stop_gradient), filled by the startup program with `begin - 1` (a `fill_constant`, force_cpu), and *prepends* an
`increment` (step) to the main program's global block, so every run counts before anything reads it. 1.8 fills
`begin - 1` whatever `step` is, so with step 3 and begin 5 the first value is 7: kept, numbers are the contract.
A counter that already exists is returned as it is (no second initialiser or increment). The decays share
`@LR_DECAY_COUNTER@` (begin 0, so the first run sees step 0; noam_decay begins at 1) and each reads it through its
own `cast` to float32.

Data parallel (checked with 1.8.5, CPU_NUM=2, AllReduce and Reduce): every place has its own copy of the counter
(1.8 copies `@LR_DECAY_COUNTER@` to each place even where it shares other persistables), each place increments its
copy once per run, so all places see the same learning rate and the counter in the user's scope (place 0's)
advances by one per run. The data-parallel pass gives this as it is: the increment is an LRSched op, run per place,
and only persistables written by run-once optimizer ops are shared.

Deviation from 1.8: no `Switch`. 1.8 builds piecewise_decay, linear_lr_warmup and polynomial_decay(cycle=True)
with `Switch` (conditional_block ops and sub-blocks); paddle_exec has no control-flow ops, so the branches become a
`where` selection between values computed every run:

    piecewise_decay    values[-1], then for each boundary from the last: where(step < boundary, value, chosen),
                       assigned into the persistable global `learning_rate` (filled with 0.0 by the startup
                       program, as in 1.8) -- the first boundary the step is below wins, as Switch's first case
    linear_lr_warmup   where(step < warmup_steps, start_lr + (end_lr - start_lr) * step / warmup_steps,
                       learning_rate), assigned into the persistable global `learning_rate_warmup`
    polynomial_decay   cycle: where(step == 0, 1.0, ceil(step / decay_steps)) where 1.8 assigns 1.0 into the
                       ceil's output under a Switch case

Each branch is the same op chain 1.8 runs inside the sub-block (the same `scale`s, `fill_constant`s and compares),
so the numbers are identical; only the op list differs (`where` and `assign` in place of `logical_not`,
`logical_and` and `conditional_block`). Dygraph mode does not exist here: every decay builds static ops.
"""
from __future__ import annotations

import math

from ..framework import unique_name
from ..framework.dtype import VarType, to_var_type
from ..framework.program import default_main_program
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from .activation import ceil, cos, exp, floor
from .casting import cast
from .creation import assign, create_global_var, fill_constant
from .helper import LayerHelper
from .indexing import where
from .math import elementwise_min, equal

__all__ = ['exponential_decay', 'natural_exp_decay', 'inverse_time_decay', 'polynomial_decay', 'piecewise_decay',
           'noam_decay', 'cosine_decay', 'linear_lr_warmup']

LR_DECAY_COUNTER = '@LR_DECAY_COUNTER@'
STEP_COUNTER = '@STEP_COUNTER@'


def autoincreased_step_counter(counter_name: str | None = None, begin: int = 1, step: int = 1) -> Variable:
    """fluid.layers.autoincreased_step_counter: an int64 [1] persistable that every run of the main program
    increments by `step` before anything reads it (first value `begin - 1 + step`, as 1.8 computes it)."""
    helper = LayerHelper('global_step_counter')
    name = STEP_COUNTER if counter_name is None else counter_name
    block = helper.main_program.global_block()
    if block.has_var(name):
        return block.var(name)
    counter = helper.create_global_variable(name=name, dtype=VarType.INT64, shape=[1], persistable=True)
    counter.belong_to_optimizer = True
    helper.set_variable_initializer(counter, ConstantInitializer(begin - 1, force_cpu=True))
    block._prepend_op('increment', {'X': [counter]}, {'Out': [counter]}, {'step': float(step)})
    counter.stop_gradient = True
    return counter


def _decay_step_counter(begin: int = 0) -> Variable:
    """The shared decay counter as float32 (a `cast` per decay, as 1.8)."""
    counter = autoincreased_step_counter(LR_DECAY_COUNTER, begin=begin, step=1)
    return cast(counter, 'float32')


def _equal_tmp(x: Variable, y: Variable) -> Variable:
    """`equal` into a `tmp_N` bool, as 1.8's patched `x == y` names it (paddle_exec keeps `==` as identity), so the
    temporaries after it are numbered as in 1.8."""
    cond = x.block.program.current_block().create_var(name=unique_name.generate_with_ignorable_key('tmp'),
                                                      dtype=VarType.BOOL, stop_gradient=True)
    return equal(x, y, cond=cond)


def noam_decay(d_model, warmup_steps, learning_rate=1.0) -> Variable:
    """learning_rate * d_model^-0.5 * min(step^-0.5, warmup_steps^-1.5 * step), step counted from 1."""
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter(1)
        a = global_step ** -0.5
        b = (warmup_steps ** -1.5) * global_step
        return learning_rate * (d_model ** -0.5) * elementwise_min(a, b)


def _decay_ratio(decay_steps, staircase: bool) -> Variable:
    """step / decay_steps, floored when staircase."""
    ratio = _decay_step_counter() / decay_steps
    return floor(ratio) if staircase else ratio


def exponential_decay(learning_rate, decay_steps, decay_rate, staircase: bool = False) -> Variable:
    """learning_rate * decay_rate ^ (step / decay_steps)."""
    with default_main_program()._lr_schedule_guard():
        return learning_rate * (decay_rate ** _decay_ratio(decay_steps, staircase))


def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase: bool = False) -> Variable:
    """learning_rate * exp(-decay_rate * step / decay_steps)."""
    with default_main_program()._lr_schedule_guard():
        return learning_rate * exp(-1 * decay_rate * _decay_ratio(decay_steps, staircase))


def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase: bool = False) -> Variable:
    """learning_rate / (1 + decay_rate * step / decay_steps)."""
    with default_main_program()._lr_schedule_guard():
        return learning_rate / (1 + decay_rate * _decay_ratio(decay_steps, staircase))


def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle: bool = False) -> Variable:
    """(learning_rate - end) * (1 - step / decay_steps) ^ power + end, the step capped at decay_steps; with `cycle`
    decay_steps grows to the next multiple of itself instead (and is decay_steps itself at step 0)."""
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter()
        if cycle:
            div_res = ceil(global_step / decay_steps)
            zero_var = fill_constant(shape=[1], dtype='float32', value=0.0)
            one_var = fill_constant(shape=[1], dtype='float32', value=1.0)
            # 1.8: a Switch case (step == 0) assigns 1.0 into div_res
            div_res = where(_equal_tmp(global_step, zero_var), one_var, div_res)
            decay_steps = decay_steps * div_res
        else:
            decay_steps_var = fill_constant(shape=[1], dtype='float32', value=float(decay_steps))
            global_step = elementwise_min(x=global_step, y=decay_steps_var)
        return (learning_rate - end_learning_rate) * ((1 - global_step / decay_steps) ** power) + end_learning_rate


def piecewise_decay(boundaries, values) -> Variable:
    """values[i] while step < boundaries[i] (the first such i), values[-1] after the last boundary; the result is
    the persistable global `learning_rate`."""
    with default_main_program()._lr_schedule_guard():
        if len(values) - len(boundaries) != 1:
            raise ValueError('len(values) - len(boundaries) should be 1')
        global_step = _decay_step_counter()
        lr = create_global_var(shape=[1], value=0.0, dtype='float32', persistable=True, name='learning_rate')
        cases = []
        for boundary, value in zip(boundaries, values):
            boundary_val = fill_constant(shape=[1], dtype='float32', value=float(boundary), force_cpu=True)
            value_var = fill_constant(shape=[1], dtype='float32', value=float(value))
            cases.append((global_step < boundary_val, value_var))
        chosen = fill_constant(shape=[1], dtype='float32', value=float(values[-1]))
        # from the last case back, so the first case that holds is the one left standing (Switch's order)
        for below_boundary, value_var in reversed(cases):
            chosen = where(below_boundary, value_var, chosen)
        assign(chosen, lr)
        return lr


def cosine_decay(learning_rate, step_each_epoch, epochs) -> Variable:
    """learning_rate * 0.5 * (cos(epoch * pi / epochs) + 1), epoch = floor(step / step_each_epoch)."""
    if not isinstance(learning_rate, (float, Variable)):
        raise TypeError("The type of 'learning_rate' in cosine_decay must be (%s, %s), but received %s. "
                        % (float, Variable, type(learning_rate)))
    with default_main_program()._lr_schedule_guard():
        global_step = _decay_step_counter()
        cur_epoch = floor(global_step / step_each_epoch)
        return learning_rate * 0.5 * (cos(cur_epoch * math.pi / epochs) + 1)


def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr) -> Variable:
    """start_lr rising linearly to end_lr over warmup_steps, then `learning_rate` (a float or a decay's Variable);
    the result is the persistable global `learning_rate_warmup`."""
    dtype = learning_rate.dtype if isinstance(learning_rate, Variable) else VarType.FP32
    linear_step = float(end_lr) - float(start_lr)
    with default_main_program()._lr_schedule_guard():
        lr = create_global_var(shape=[1], value=0.0, dtype=dtype, persistable=True, name='learning_rate_warmup')
        global_step = _decay_step_counter()
        in_warmup = global_step < warmup_steps
        warmup_lr = start_lr + linear_step * (global_step / float(warmup_steps))
        if to_var_type(dtype) != warmup_lr.dtype:
            warmup_lr = cast(warmup_lr, dtype)
        if not isinstance(learning_rate, Variable):
            learning_rate = fill_constant(shape=[1], dtype=dtype, value=float(learning_rate))
        assign(where(in_warmup, warmup_lr, learning_rate), lr)
        return lr
