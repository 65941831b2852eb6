"""`pylayer` and `pylayer_grad`: Paddle 2.6's static PyLayer (paddle.static.nn.static_pylayer), a forward sub-block
with a user-written backward sub-block.

    pylayer        Input (the forward_fn's inputs) -> Out (its outputs, parent variables), Scope;
                   attrs blocks = [forward block, backward block] (the backward one only with a backward_fn)
    pylayer_grad   Input, Out, Out@GRAD, Scope -> Input@GRAD; attrs backward_block

The forward block runs like a conditional_block whose condition holds (ops/control_flow.py: compiled once into a
plan of its own, run on a fresh values list bound from Input). The gradient is not derived from the forward block:
the grad maker hands the backward block the builder made from backward_fn. That block reads the Out@GRAD
variables (by their `<out>@GRAD` names) and writes `<input>@GRAD` for each input; the grad kernel feeds it the
incoming output gradients (zeros for an output no gradient reached, as Paddle fills them) and returns what it
wrote, in the op's Input@GRAD slots (whatever backward.py named them). An Input whose `<input>@GRAD` the backward
block does not write gets no gradient: the builder lists there, after the user's inputs, the parent variables the
forward block reads (parameters, closures), which Paddle's sub-block reads from the parent scope instead. The
forward block may read only its Input (a program from Paddle whose forward block reads other parent variables is
refused when the plan is made, naming the variable); the backward block may read the Out@GRAD and Input
variables.

Paddle's pylayer_grad has no Out input; it is listed here so that a missing output gradient can be zeros of the
output's shape.
"""
from __future__ import annotations

from ..framework.registry import _grad_shape_rule, defop, grad_rule, kernel_rule, shape_rule
from ..framework.variable import EMPTY_VAR_NAME, GRAD_SUFFIX
from .control_flow import _compile, _zeros_like, as_sub_block_attr

defop('pylayer', ['Input'], ['Out', 'Scope'], {'blocks': []}, duplicable=['Input', 'Out'],
      dispensable=['Input', 'Out', 'Scope'])


def _block_of(op, attr):
    return op.block.program.blocks[attr.idx if hasattr(attr, 'idx') else int(attr)]


@kernel_rule('pylayer')
def _pylayer_kernel(spec):
    op = spec.op
    forward_block = _block_of(op, spec.attrs['blocks'][0])
    input_names = [n for n in op.input('Input') if n != EMPTY_VAR_NAME]
    out_names = op.output('Out')
    plan = _compile(spec, forward_block, input_names, out_names)
    n_slots, run_block = plan.n_slots, plan.run_in_order
    feed_slots = [plan.slot_of.get(n) if n != EMPTY_VAR_NAME else None for n in op.input('Input')]
    out_slots = plan.fetch_slots[:len(out_names)]

    def run(inputs):
        values = [None] * n_slots
        for s, v in zip(feed_slots, inputs or ()):
            if s is not None:
                values[s] = v
        run_block(values)
        return [values[s] for s in out_slots], None
    return run


defop('pylayer_grad', ['Input', 'Out', 'Out@GRAD', 'Scope'], ['Input@GRAD'], {'backward_block': None},
      duplicable=['Input', 'Out', 'Out@GRAD', 'Input@GRAD'], dispensable=['Out@GRAD', 'Scope', 'Input@GRAD'])
shape_rule('pylayer_grad')(_grad_shape_rule)


@grad_rule('pylayer')
def _pylayer_grad_maker(g):
    blocks = g.attrs.get('blocks') or []
    if len(blocks) < 2:
        raise ValueError("operator 'pylayer' (outputs %s) has no backward block: static_pylayer was built without "
                         'a backward_fn, so its inputs must have stop_gradient=True' % g.output('Out'))
    outs = g.output('Out')
    inputs = {'Input': g.input('Input'), 'Out': outs,
              'Out@GRAD': [EMPTY_VAR_NAME if n in g.no_grad_names else n + GRAD_SUFFIX for n in outs],
              'Scope': g.output('Scope')}
    backward_block = g.op.block.program.blocks[blocks[1].idx]
    written = {n for bop in backward_block.ops for n in bop.output_arg_names}
    # an Input the backward block writes no gradient for (a parameter the forward block reads) gets none
    in_grads = [n if n != EMPTY_VAR_NAME and n in written else EMPTY_VAR_NAME for n in g.input_grad('Input')]
    attrs = {'backward_block': as_sub_block_attr(blocks[1])}
    return [('pylayer_grad', inputs, {'Input@GRAD': in_grads}, attrs)]


@kernel_rule('pylayer_grad')
def _pylayer_grad_kernel(spec):
    op = spec.op
    backward_block = _block_of(op, spec.attrs['backward_block'])
    input_names, out_names = op.input('Input'), op.input('Out')
    in_grads = op.output('Input@GRAD')
    written = {n for bop in backward_block.ops for n in bop.output_arg_names}
    # a gradient the backward block does not write (a program made elsewhere) is zeros
    wanted = [k for k, n in enumerate(in_grads) if n != EMPTY_VAR_NAME and input_names[k] + GRAD_SUFFIX in written]
    zero_filled = [k for k, n in enumerate(in_grads) if n != EMPTY_VAR_NAME and k not in wanted]
    plan = spec.compile_block(backward_block, [], [input_names[k] + GRAD_SUFFIX for k in wanted])
    run_block, n_slots, fetch_slots = plan.run_in_order, plan.n_slots, plan.fetch_slots
    out_grad_pos = {n + GRAD_SUFFIX: k for k, n in enumerate(out_names)}
    input_pos = {n: k for k, n in enumerate(input_names)}
    sources = []          # (slot, from an output gradient?, position)
    for slot, name, _ in plan.scope_inputs:
        if name in out_grad_pos:
            sources.append((slot, True, out_grad_pos[name]))
        elif name in input_pos:
            sources.append((slot, False, input_pos[name]))
        else:
            raise ValueError("operator 'pylayer_grad': the backward block %d reads '%s', which is neither an output "
                             'gradient nor an input of the static_pylayer' % (backward_block.idx, name))
    n_inputs = len(in_grads)

    def run(inputs, outs, out_grads, scope):
        values = [None] * n_slots
        for slot, is_out_grad, k in sources:
            if is_out_grad:
                v = out_grads[k] if out_grads else None
                values[slot] = _zeros_like(outs[k]) if v is None else v
            else:
                values[slot] = inputs[k]
        run_block(values)
        grads = [None] * n_inputs
        for k, s in zip(wanted, fetch_slots):
            grads[k] = values[s]
        for k in zero_filled:
            grads[k] = _zeros_like(inputs[k])
        return (grads,)
    return run
