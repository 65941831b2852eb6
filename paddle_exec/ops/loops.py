"""Loops and their gradients: `while` / `while_grad` (fluid.layers.While, while_loop, DynamicRNN, the 2.x static
RNN) and `recurrent` / `recurrent_grad` (fluid.layers.StaticRNN). Like conditional_block (ops/control_flow.py),
each compiles its sub-block once into a plan of its own and runs it in its kernel.

    while(X, Condition) -> Out, StepScopes          attrs sub_block, is_test
    while_grad(X, Out, Out@GRAD, StepScopes) -> X@GRAD          attrs sub_block (the grad block)
    recurrent(inputs, initial_states, parameters) -> outputs, step_scopes
        attrs sub_block, ex_states, states, reverse, has_states, is_train
    recurrent_grad(inputs, initial_states, parameters, outputs, outputs@GRAD, step_scopes)
        -> inputs@GRAD, initial_states@GRAD, parameters@GRAD

while. All iterations share one values list: parent variables carry over, as in Paddle's shared parent scope.
The gradient needs what each iteration computed, as Paddle keeps a scope per step: when a while_grad reads the
StepScopes output, the forward kernel keeps every value of the sub-block alive and records, per iteration, the
values of the loop's variables (`LoopRoles`):
    carried       read in the block before the block writes them, then written (a loop variable: h = f(h)):
                  their value at the *start* of the iteration (Paddle 2.x copies them into the step scope)
    written       written before any read (the block's own temporaries, locals or not): their value at the end
and neither for a variable an op updates in place (X and Out of one op: `increment(i)`, an array's write):
those are read as they are after the loop, and the gradient block restores them itself (increment's gradient is
an increment by -step, as Paddle's: DynamicRNN's step index counts back down), nor for tensor arrays (lists
updated in place; an element written at step t stays). `WhileSteps` holds them.

while_grad runs the grad block (backward.append_sub_block_backward on the loop's block, its targets the parent
variables the block writes, whose gradients come in from outside or from the next iteration) once per forward
iteration, last first, on one values list:
    - the forward values of iteration t (the records above) are bound before its run; parent variables the block
      does not write (parameters) and the in-place ones (the step index) are bound once
    - Out@GRAD comes in once; a missing one is zeros (arrays: none)
    - the gradient of a carried variable or array is carried from one run to the next (it is what the block
      computed for the start of the later iteration); a written-first parent variable's gradient applies to the
      last iteration only, and is zeros after it
    - the gradient of a variable the block only reads (a parameter) is each run's contribution, summed
X@GRAD: the sum, for read-only variables; what the last run (iteration 0) left, for carried variables and arrays;
zeros where no gradient reached. A counter the block increments in place (the step index) is counted back by the
grad block, and its parent value is set to the counted-back one, as Paddle's while_grad leaves it in the parent
scope: a gradient op after while_grad that reads it (an array element written before the loop) reads the index it
read forward. Gradients reach a loop variable through its last write in the block (a read of
the new value later in the same iteration is not followed), as in Paddle's block backward.

recurrent (Paddle's RecurrentOp). `inputs` are [seq_len, ...]; step t (from the end when `reverse`) runs the block
on a fresh values list with each input sliced at t under its own name, each ex_state (the previous memory) bound to
the previous step's state (initial_states at the first step) and the parameters; each output's step value is
stacked into outputs. recurrent_grad runs the grad block per step, last first: output gradients sliced at t, the
states' gradients from the step after (zeros at the last), the step's forward values; input gradients are stacked,
ex_state gradients passed to the step before (initial_states@GRAD at the end), parameter gradients summed.

LoD: while reads the LoD of what enters (ops/control_flow.py `_control_flow_lod`); while_grad reads X's LoDs and
gives each X@GRAD the LoD of its X. recurrent works on dense [seq_len, batch, ...] tensors and passes no LoD.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.lod import NO_LOD, companion
from ..framework.registry import _grad_shape_rule, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..framework.variable import EMPTY_VAR_NAME, GRAD_SUFFIX
from .control_flow import (
    _compile,
    _control_flow_lod,
    _feed_lod,
    _read_anywhere,
    _scalar_condition,
    _sub_block,
    _SubPlanLoD,
    as_sub_block_attr,
)

__all__ = ['LoopRoles', 'WhileSteps', 'RecurrentSteps']

defop('while', ['X', 'Condition'], ['Out', 'StepScopes'],
      {'sub_block': None, 'is_test': False, 'skip_eager_deletion_vars': []},
      duplicable=['X', 'Condition', 'Out'], dispensable=['X', 'Out', 'StepScopes'])
defop('while_grad', ['X', 'Out', 'Out@GRAD', 'StepScopes'], ['X@GRAD'],
      {'sub_block': None, 'is_test': False, 'skip_eager_deletion_vars': [], 'original_output_grad': []},
      duplicable=['X', 'Out', 'Out@GRAD', 'X@GRAD'], dispensable=['Out', 'Out@GRAD', 'X@GRAD'])
shape_rule('while_grad')(_grad_shape_rule)
lod_rule('while')(_control_flow_lod('X', ('Condition',), loop=True))

_RECURRENT_ATTRS = {'sub_block': None, 'ex_states': [], 'states': [], 'reverse': False, 'has_states': False,
                    'is_train': True, 'skip_eager_deletion_vars': []}
defop('recurrent', ['inputs', 'initial_states', 'parameters'], ['outputs', 'step_scopes'], _RECURRENT_ATTRS,
      duplicable=['inputs', 'initial_states', 'parameters', 'outputs'],
      dispensable=['initial_states', 'parameters', 'step_scopes'])
defop('recurrent_grad', ['inputs', 'initial_states', 'parameters', 'outputs', 'outputs@GRAD', 'step_scopes'],
      ['inputs@GRAD', 'initial_states@GRAD', 'parameters@GRAD'], _RECURRENT_ATTRS,
      duplicable=['inputs', 'initial_states', 'parameters', 'outputs', 'outputs@GRAD', 'inputs@GRAD',
                  'initial_states@GRAD', 'parameters@GRAD'],
      dispensable=['initial_states', 'parameters', 'outputs@GRAD', 'inputs@GRAD', 'initial_states@GRAD',
                   'parameters@GRAD'])
shape_rule('recurrent_grad')(_grad_shape_rule)


def _zeros_like(x):
    return None if x is None else np.zeros_like(np.asarray(x))


def _is_array(block, name: str) -> bool:
    var = block._find_var_recursive(name)
    return var is not None and var.type == VarType.LOD_TENSOR_ARRAY


class LoopRoles:
    """How the ops of a loop's block use each variable (see the module docstring): `carried`, `written` (first
    access a write), `read_only`, `inplace` (an op's input and output at once), and the names whose values each
    iteration records: `start_names` (carried) and `end_names` (written), neither in place nor arrays."""

    def __init__(self, block):
        first: dict[str, str] = {}
        self.inplace: set[str] = set()
        written: set[str] = set()
        for op in block.ops:
            ins = [n for n in op.input_arg_names if n != EMPTY_VAR_NAME]
            outs = [n for n in op.output_arg_names if n != EMPTY_VAR_NAME]
            for n in ins:
                first.setdefault(n, 'read')
            for n in outs:
                first.setdefault(n, 'write')
            written.update(outs)
            self.inplace.update(set(ins) & set(outs))
        self.carried = {n for n in written if first[n] == 'read'}
        self.written = written - self.carried
        self.read_only = {n for n, how in first.items() if how == 'read' and n not in written}
        recorded = [n for n in first if n not in self.inplace and not _is_array(block, n)]
        self.start_names = [n for n in recorded if n in self.carried]
        self.end_names = [n for n in recorded if n in self.written]


class WhileSteps:
    """What a forward while keeps for its gradient: per iteration, (start values, end values) of the names of
    `start_names` / `end_names` (their LoD companions included, after them)."""
    __slots__ = ('start_names', 'end_names', 'iterations')

    def __init__(self, start_names: list, end_names: list):
        self.start_names = start_names
        self.end_names = end_names
        self.iterations: list = []


class RecurrentSteps:
    """What a forward recurrent op keeps for its gradient: the values list of each step and the plan's slot map."""
    __slots__ = ('slot_of', 'values')

    def __init__(self, slot_of: dict, seq_len: int):
        self.slot_of = slot_of
        self.values: list = [None] * seq_len


# --- while ----------------------------------------------------------------------------------------------------------

def _with_companions(names: list, slot_of: dict) -> list:
    return names + [companion(n) for n in names if companion(n) in slot_of]


@kernel_rule('while')
def _while_kernel(spec):
    op = spec.op
    block = _sub_block(spec)
    x_names = [n for n in op.input('X') if n != EMPTY_VAR_NAME]
    cond_names = op.input('Condition')
    if len(cond_names) != 1:
        raise ValueError("operator 'while' needs exactly one Condition, got %s" % cond_names)
    cond_name = cond_names[0]
    out_names = op.output('Out')
    steps_names = op.output('StepScopes')
    keep_steps = bool(steps_names) and _read_anywhere(op.block.program, steps_names[0])
    feed = x_names + ([cond_name] if cond_name not in x_names else [])
    fetch = list(out_names) + [cond_name]
    if keep_steps:        # the gradient reads every value: none is freed inside the block
        fetch += [n for sop in block.ops for n in sop.input_arg_names + sop.output_arg_names if n != EMPTY_VAR_NAME]
    with_lod = spec.lod is not None and bool(spec.lod.reads)
    plan = _compile(spec, block, feed, fetch, _feed_lod(spec, x_names, loop=True) if with_lod else ())
    n_slots, run_block = plan.n_slots, plan.run_in_order
    x_slots = [plan.slot_of[n] if n != EMPTY_VAR_NAME else None for n in op.input('X')]
    cond_slot = plan.slot_of[cond_name]
    out_slots = plan.fetch_slots[:len(out_names)]
    lod = _SubPlanLoD(plan, op.input('X'), len(out_names)) if with_lod else None
    if keep_steps:
        roles = LoopRoles(block)
        start_names = _with_companions([n for n in roles.start_names if n in plan.slot_of], plan.slot_of)
        end_names = _with_companions([n for n in roles.end_names if n in plan.slot_of], plan.slot_of)
        start_slots = [plan.slot_of[n] for n in start_names]
        end_slots = [plan.slot_of[n] for n in end_names]

    def run(xs, conds, x_lods=None):
        steps = WhileSteps(start_names, end_names) if keep_steps else None
        if not _scalar_condition(conds[0], 'while'):
            return ([], steps, []) if with_lod else ([], steps)     # zero iterations: Out keeps its values
        values = [None] * n_slots
        for s, v in zip(x_slots, xs or ()):
            if s is not None:
                values[s] = v
        values[cond_slot] = conds[0]
        if with_lod:
            lod.bind(values, x_lods)
        while True:
            if keep_steps:
                start = [values[s] for s in start_slots]
            run_block(values)
            if keep_steps:
                steps.iterations.append((start, [values[s] for s in end_slots]))
            if not _scalar_condition(values[cond_slot], 'while'):
                break
        if with_lod:
            return [values[s] for s in out_slots], steps, lod.outputs(values)
        return [values[s] for s in out_slots], steps
    return run


@grad_rule('while')
def _while_grad_maker(g):
    op = g.op
    fwd_block = op.block.program.blocks[op.attrs['sub_block'].idx]
    outs = g.output('Out')
    wanted = [n for n in outs if n not in g.no_grad_names]
    grad_block = g.sub_block_backward(fwd_block, wanted, g.no_grad_names)
    out_grads = [n + GRAD_SUFFIX if n in wanted else EMPTY_VAR_NAME for n in outs]
    attrs = dict(g.attrs)
    attrs['sub_block'] = as_sub_block_attr(grad_block)
    attrs['original_output_grad'] = [n for n in out_grads if n != EMPTY_VAR_NAME]
    return [('while_grad', {'X': g.input('X'), 'Out': outs, 'Out@GRAD': out_grads,
                            'StepScopes': g.output('StepScopes')},
             {'X@GRAD': g.input_grad('X')}, attrs)]


@lod_rule('while_grad')
def _while_grad_lod(ctx):
    names = ctx.op.inputs.get('X') or []
    levels = [ctx.name_levels(n) if n != EMPTY_VAR_NAME else 0 for n in names]
    if any(levels):
        ctx.read('X')
        ctx.compute('X@GRAD', levels)


def _restore_in_place(parent_value, counted_back) -> None:
    """Writes a counter's counted-back value into the parent's array, as Paddle's while_grad leaves it in the
    parent scope: the gradients of ops before the loop that read the counter (an array write at the start index)
    see the value they read in the forward pass."""
    if (isinstance(parent_value, np.ndarray) and parent_value.flags.writeable and counted_back is not None
            and np.shape(counted_back) == parent_value.shape):
        np.copyto(parent_value, counted_back)


class _GradSources:
    """Where each value the grad plan reads comes from (see while_grad in the module docstring)."""

    def __init__(self, plan, op, steps_names: tuple):
        x_names, out_names = op.input('X'), op.input('Out')
        og_pos = {n: k for k, n in enumerate(op.input('Out@GRAD')) if n != EMPTY_VAR_NAME}
        x_pos = {n: k for k, n in enumerate(x_names) if n != EMPTY_VAR_NAME}
        out_pos = {n: k for k, n in enumerate(out_names)}
        start_names, end_names = steps_names
        start_pos = {n: k for k, n in enumerate(start_names)}
        end_pos = {n: k for k, n in enumerate(end_names)}
        self.once, self.per_step_start, self.per_step_end = [], [], []
        lod = plan.places[0].lod
        reads = [(slot, name) for slot, name, _ in plan.scope_inputs]
        reads += list(lod.scope_inputs) if lod is not None else []
        for slot, name in reads:
            if name in start_pos:
                self.per_step_start.append((slot, start_pos[name]))
            elif name in end_pos:
                self.per_step_end.append((slot, end_pos[name]))
            elif name in og_pos:
                self.once.append((slot, 'og', og_pos[name]))
            elif name in x_pos:
                self.once.append((slot, 'x', x_pos[name]))
            elif name in out_pos:
                self.once.append((slot, 'out', out_pos[name]))
            elif name.endswith('@LOD') and name[:-4] in x_pos:
                self.once.append((slot, 'x_lod', x_pos[name[:-4]]))


@kernel_rule('while_grad')
def _while_grad_kernel(spec):
    op = spec.op
    grad_block = _sub_block(spec)
    program = op.block.program
    fwd_block = program.blocks[grad_block.forward_block_idx]
    roles = LoopRoles(fwd_block)
    x_names, out_names = op.input('X'), op.input('Out')
    xg_names = op.output('X@GRAD')
    fetch = [n for n in xg_names if n != EMPTY_VAR_NAME]
    plan = spec.compile_block(grad_block, [], fetch)
    slot_of, run_block, n_slots = plan.slot_of, plan.run_in_order, plan.n_slots
    fwd_steps_names = op.input('StepScopes')
    with_lod = spec.lod is not None and bool(spec.lod.computes)
    out_pos = {n: k for k, n in enumerate(out_names)}
    # gradient slots by role: summed (read-only variables), cleared after the first run (written-first parents)
    summed = [(k, slot_of[g]) for k, (x, g) in enumerate(zip(x_names, xg_names))
              if g != EMPTY_VAR_NAME and x in roles.read_only and not _is_array(op.block, x)]
    cleared = [slot_of[n + GRAD_SUFFIX] for n in out_names
               if n in roles.written and n + GRAD_SUFFIX in slot_of and not _is_array(op.block, n)]
    result_slots = [slot_of.get(g) if g != EMPTY_VAR_NAME else None for g in xg_names]
    summed_k = {k for k, _ in summed}
    # loop counters the grad block counts back (increment's gradient): their parent value is set back too
    counters = [(k, slot_of[x]) for k, x in enumerate(x_names)
                if x in roles.inplace and x in slot_of and not _is_array(op.block, x)]
    state: dict = {}

    def sources(steps):
        key = (tuple(steps.start_names), tuple(steps.end_names))
        if state.get('key') != key:
            state['key'], state['sources'] = key, _GradSources(plan, op, key)
        return state['sources']

    def run(xs, outs, ogs, steps, x_lods=None):
        xs = xs or []
        grads = [None] * len(xg_names)
        iterations = steps.iterations if steps is not None else []
        if steps is None and fwd_steps_names:
            raise RuntimeError("while_grad: the forward while kept no step values (variable %s)" % fwd_steps_names)
        values = [None] * n_slots
        if iterations:
            src = sources(steps)
            for slot, kind, k in src.once:
                if kind == 'og':
                    v = ogs[k] if ogs is not None else None
                    if v is None and not _is_array(op.block, out_names[k]):
                        v = _zeros_like(outs[k])
                    values[slot] = v
                elif kind == 'x':
                    values[slot] = xs[k]
                elif kind == 'out':
                    values[slot] = outs[k]
                else:
                    values[slot] = (x_lods[k] if x_lods else None) or NO_LOD
            acc: dict = {}
            for t in range(len(iterations) - 1, -1, -1):
                start, end = iterations[t]
                for slot, k in src.per_step_start:
                    values[slot] = start[k]
                for slot, k in src.per_step_end:
                    values[slot] = end[k]
                run_block(values)
                for k, slot in summed:
                    v = values[slot]
                    if v is not None:
                        acc[k] = v if k not in acc else acc[k] + v
                        values[slot] = None
                if t == len(iterations) - 1:
                    for slot in cleared:
                        values[slot] = _zeros_like(values[slot])
            for k, slot in enumerate(result_slots):
                if slot is not None:
                    grads[k] = acc.get(k) if k in summed_k else values[slot]
            for k, slot in counters:
                _restore_in_place(xs[k], values[slot])
        else:
            # no iteration ran: a loop variable's gradient passes through unchanged
            og_of = {n: ogs[k] for k, n in enumerate(out_names)} if ogs is not None else {}
            for k, x in enumerate(x_names):
                if xg_names[k] != EMPTY_VAR_NAME and x in out_pos:
                    grads[k] = og_of.get(x)
        for k, x in enumerate(x_names):
            if xg_names[k] != EMPTY_VAR_NAME and grads[k] is None and not isinstance(xs[k], list):
                grads[k] = _zeros_like(xs[k])
        if with_lod:
            return grads, [(lod or NO_LOD) for lod in (x_lods or [NO_LOD] * len(x_names))]
        return (grads,)
    return run


# --- recurrent (StaticRNN) --------------------------------------------------------------------------------------

def _names(op, slot: str) -> list:
    return [n for n in op.input(slot) if n != EMPTY_VAR_NAME]


@shape_rule('recurrent')
def _recurrent_shape(ctx):
    """The outputs are declared by the StaticRNN builder ([seq_len] + the step output's shape)."""


@kernel_rule('recurrent')
def _recurrent_kernel(spec):
    op = spec.op
    block = _sub_block(spec)
    in_names, init_names, param_names = _names(op, 'inputs'), _names(op, 'initial_states'), _names(op, 'parameters')
    ex_states, states = list(spec.attr('ex_states')), list(spec.attr('states'))
    out_names = op.output('outputs')
    scopes = op.output('step_scopes')
    keep_steps = bool(scopes) and _read_anywhere(op.block.program, scopes[0])
    feed = in_names + ex_states + [n for n in param_names if n not in in_names + ex_states]
    fetch = out_names + states
    if keep_steps:
        fetch += [n for sop in block.ops for n in sop.input_arg_names + sop.output_arg_names if n != EMPTY_VAR_NAME]
    plan = _compile(spec, block, feed, fetch)
    slot_of, run_block, n_slots = plan.slot_of, plan.run_in_order, plan.n_slots
    in_slots = [slot_of[n] for n in in_names]
    ex_slots = [slot_of[n] for n in ex_states]
    param_slots = [slot_of[n] for n in param_names]
    out_slots = plan.fetch_slots[:len(out_names)]
    state_slots = plan.fetch_slots[len(out_names):len(out_names) + len(states)]
    reverse = bool(spec.attr('reverse'))
    if len(ex_states) != len(init_names):
        raise ValueError("recurrent: %d ex_states but %d initial_states" % (len(ex_states), len(init_names)))

    def run(inputs, inits, params):
        seq_len = int(np.shape(inputs[0])[0])
        mems = list(inits or ())
        outs = [[None] * seq_len for _ in out_names]
        steps = RecurrentSteps(slot_of, seq_len) if keep_steps else None
        for t in (range(seq_len - 1, -1, -1) if reverse else range(seq_len)):
            values = [None] * n_slots
            for s, x in zip(in_slots, inputs):
                values[s] = x[t]
            for s, m in zip(ex_slots, mems):
                values[s] = m
            for s, p in zip(param_slots, params or ()):
                values[s] = p
            run_block(values)
            for j, s in enumerate(out_slots):
                outs[j][t] = values[s]
            mems = [values[s] for s in state_slots]
            if keep_steps:
                steps.values[t] = values
        return [np.stack(o) for o in outs], steps
    return run


@grad_rule('recurrent')
def _recurrent_grad_maker(g):
    op = g.op
    block = op.block.program.blocks[op.attrs['sub_block'].idx]
    targets = [n for n in op.output('outputs') + list(op.attrs.get('states') or []) if n not in g.no_grad_names]
    grad_block = g.sub_block_backward(block, targets, g.no_grad_names)
    attrs = dict(g.attrs)
    attrs['sub_block'] = as_sub_block_attr(grad_block)
    return [('recurrent_grad',
             {'inputs': g.input('inputs'), 'initial_states': g.input('initial_states'),
              'parameters': g.input('parameters'), 'outputs': g.output('outputs'),
              'outputs@GRAD': g.output_grad('outputs'), 'step_scopes': g.output('step_scopes')},
             {'inputs@GRAD': g.input_grad('inputs'), 'initial_states@GRAD': g.input_grad('initial_states'),
              'parameters@GRAD': g.input_grad('parameters')}, attrs)]


@kernel_rule('recurrent_grad')
def _recurrent_grad_kernel(spec):
    op = spec.op
    grad_block = _sub_block(spec)
    in_names, param_names = _names(op, 'inputs'), _names(op, 'parameters')
    out_names = op.input('outputs')
    ex_states, states = list(spec.attr('ex_states')), list(spec.attr('states'))
    in_grads, init_grads = op.output('inputs@GRAD'), op.output('initial_states@GRAD')
    param_grads = op.output('parameters@GRAD')
    fetch = ([n + GRAD_SUFFIX for n in in_names] + [n + GRAD_SUFFIX for n in ex_states]
             + [n + GRAD_SUFFIX for n in param_names])
    plan = spec.compile_block(grad_block, [], fetch)
    run_block, n_slots = plan.run_in_order, plan.n_slots
    og_pos = {n + GRAD_SUFFIX: k for k, n in enumerate(out_names)}
    state_pos = {n + GRAD_SUFFIX: k for k, n in enumerate(states)}
    param_pos = {n: k for k, n in enumerate(param_names)}
    n_in, n_ex = len(in_names), len(ex_states)
    in_slots = plan.fetch_slots[:n_in]
    ex_slots = plan.fetch_slots[n_in:n_in + n_ex]
    pg_slots = plan.fetch_slots[n_in + n_ex:]
    reads = [(slot, name) for slot, name, _ in plan.scope_inputs]
    reverse = bool(spec.attr('reverse'))

    def bind(values, fwd, slot_of, t, outputs, out_grads, params, carry):
        for slot, name in reads:
            if name in og_pos:
                k = og_pos[name]
                g = out_grads[k] if out_grads is not None else None
                values[slot] = np.zeros_like(outputs[k][t]) if g is None else g[t]
            elif name in state_pos:
                k = state_pos[name]
                ref = fwd[slot_of[states[k]]] if states[k] in slot_of else None
                values[slot] = carry[k] if carry[k] is not None else _zeros_like(ref)
            elif name in param_pos:
                values[slot] = params[param_pos[name]]
            elif name in slot_of:
                values[slot] = fwd[slot_of[name]]

    def run(inputs, inits, params, outputs, out_grads, steps):
        if steps is None:
            raise RuntimeError("recurrent_grad: the forward recurrent op kept no step values (variable %s)"
                               % op.input('step_scopes'))
        seq_len = len(steps.values)
        d_in = [[None] * seq_len for _ in in_names]
        d_params = [None] * len(param_names)
        carry = [None] * n_ex
        for t in (range(seq_len) if reverse else range(seq_len - 1, -1, -1)):
            values = [None] * n_slots
            bind(values, steps.values[t], steps.slot_of, t, outputs, out_grads, params, carry)
            run_block(values)
            for k, s in enumerate(in_slots):
                d_in[k][t] = values[s]
            carry = [values[s] for s in ex_slots]
            for k, s in enumerate(pg_slots):
                v = values[s]
                if v is not None:
                    d_params[k] = v if d_params[k] is None else d_params[k] + v
        dx = [None if name == EMPTY_VAR_NAME else
              np.stack([np.zeros_like(inputs[k][t]) if v is None else v for t, v in enumerate(d_in[k])])
              for k, name in enumerate(in_grads)]
        dinit = [None if name == EMPTY_VAR_NAME else (_zeros_like(inits[k]) if carry[k] is None else carry[k])
                 for k, name in enumerate(init_grads)]
        dparams = [None if name == EMPTY_VAR_NAME else (_zeros_like(params[k]) if d_params[k] is None
                                                         else d_params[k])
                   for k, name in enumerate(param_grads)]
        return dx, dinit, dparams
    return run
