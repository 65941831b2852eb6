"""paddle.static.nn.static_pylayer: Paddle 2.6's static PyLayer, a forward function whose gradient is another
function the user writes (the ops are `pylayer` / `pylayer_grad`, ops/pylayer.py).

    def forward_fn(x):  return paddle.exp(x)
    def backward_fn(dy): return dy * 2.0                  # any function of the output gradients
    y = paddle.static.nn.static_pylayer(forward_fn, [x], backward_fn)

As in Paddle: forward_fn's ops go into a new sub-block, its outputs are assigned to new parent-block variables
(`_generated_var_N`), and one `pylayer` op in the parent lists the inputs and those outputs. backward_fn is called
in a second sub-block on copies of the outputs' gradients (read by their `<out>@GRAD` names); it returns one
gradient per input, each assigned to `<input>@GRAD` in that block (Paddle renames the variable instead; the values
are the same), zeros for a None (what 2.6.2 computes for it). The blocks attribute holds [forward, backward].
Without backward_fn every input must have stop_gradient=True (ValueError otherwise, Paddle's wording).

Parent variables forward_fn reads besides its inputs (a parameter, a closure) are listed in the op's Input after
the inputs, so the plan hands them to the forward block; the backward block writes no gradient for them, so they
get none (as in Paddle, where the sub-block reads them from the parent scope).
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import GRAD_SUFFIX, Variable
from ..ops.control_flow import as_sub_block_attr
from .control_flow import BlockGuard, _copy_to_parent_block, _reads_and_writes
from .creation import assign, zeros_like
from .helper import LayerHelper

__all__ = ['static_pylayer']


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _map_structure(fn, value):
    if isinstance(value, (list, tuple)):
        return type(value)(_map_structure(fn, v) for v in value)
    return fn(value)


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """Builds forward_fn(*inputs) as a pylayer op whose gradient is backward_fn (see the module docstring)."""
    assert isinstance(inputs, list)
    if backward_fn is None:
        for input_var in inputs:
            if input_var.stop_gradient is False:
                raise ValueError('``stop_gradient`` attr of all inputs to ``forward_fn`` are expected to be True, '
                                 'when ``backward_fn == None``, but {}.stop_gradient got {}'.format(
                                     input_var.name, input_var.stop_gradient))
    if name is not None and not isinstance(name, str):
        raise TypeError("The type of 'name' in base.layers.static_pylayer must be (str, NoneType), but received %s."
                        % type(name).__name__)
    assert forward_fn is not None and callable(forward_fn)
    helper = LayerHelper('static_pylayer', name=name)
    program = helper.main_program
    parent = program.current_block()
    fwd_inputs = [v for v in inputs if isinstance(v, Variable)]
    with BlockGuard(program):
        forward_block = program.current_block()
        origin_output = forward_fn(*inputs)
        output = None
        if origin_output is not None:
            output = _map_structure(lambda v: _copy_to_parent_block(v, helper) if isinstance(v, Variable) else v,
                                    origin_output)
        fwd_outputs = [v for v in _flatten(output) if isinstance(v, Variable)] if output is not None else []
        # parent variables forward_fn reads besides its inputs (parameters, closures): listed after the inputs so
        # the plan feeds them (Paddle's sub-scope sees the parent scope instead); they get no gradient
        reads, _ = _reads_and_writes(forward_block)
        input_names = {v.name for v in fwd_inputs}
        extra_reads = [parent._var_recursive(n) for n in reads
                       if n not in input_names and n not in forward_block.vars]
    step_scope = parent.create_var(type=VarType.STEP_SCOPES)
    blocks = [as_sub_block_attr(forward_block)]
    op = parent.append_op('pylayer', {'Input': fwd_inputs + extra_reads}, {'Out': fwd_outputs, 'Scope': [step_scope]},
                          {'blocks': blocks})
    if backward_fn is not None:
        assert callable(backward_fn)
        _build_backward_block(program, parent, forward_block, fwd_inputs, fwd_outputs, backward_fn, blocks)
        op.attrs['blocks'] = blocks
    return output


def _build_backward_block(program, parent, forward_block, fwd_inputs, fwd_outputs, backward_fn, blocks) -> None:
    # the output gradients exist only while the block is built: backward.py creates the real ones later
    grad_vars = [parent.create_var(name=v.name + GRAD_SUFFIX, dtype=v.dtype, shape=v.shape, type=v.type)
                 for v in fwd_outputs]
    with BlockGuard(program):
        backward_block = program.current_block()
        inside = []
        for grad in grad_vars:
            local = backward_block.create_var(dtype=grad.dtype, shape=grad.shape, type=grad.type)
            assign(grad, local)
            inside.append(local)
        grads = backward_fn(*inside)
        if grads is not None:
            flat = _flatten(grads)
            assert len(fwd_inputs) == len(flat), (
                'needs to keep the number of inputs to ``forward_fn`` the same as the number of outputs to '
                '``backward_fn``, but got {} and {}'.format(len(fwd_inputs), len(flat)))
            for grad, fwd_input in zip(flat, fwd_inputs):
                target = backward_block.create_var(name=fwd_input.name + GRAD_SUFFIX, dtype=fwd_input.dtype,
                                                   shape=fwd_input.shape)
                if isinstance(grad, Variable):
                    assign(grad, target)
                else:       # None: zeros, as 2.6.2's pylayer_grad gives
                    assign(zeros_like(fwd_input), target)
        backward_block.forward_block_idx = forward_block.idx
        for bop in backward_block.ops:
            bop.attrs['op_role'] = 1          # OpRole.Backward, as Paddle marks this block's ops
    for grad in grad_vars:
        parent._remove_var(grad.name)
    blocks.append(as_sub_block_attr(backward_block))
