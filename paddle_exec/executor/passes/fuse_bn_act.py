"""BuildStrategy.fuse_bn_act_ops: batch_norm + relu, and relu_grad + batch_norm_grad, become one op each.

    program = fuse_bn_act_ops(program, keep=fetch_names)   # a new Program when something was fused, else the same

As Paddle's fuse_bn_act_pass, on the Program. Forward: a training-mode `batch_norm` whose output `Y` only a `relu`
reads becomes `fused_batch_norm_act` (act_type 'relu') with batch_norm's inputs, the relu's output as `Y`, and
batch_norm's other outputs, at batch_norm's place; the relu goes. Backward: a `relu_grad` whose `X@GRAD` only a
`batch_norm_grad` reads (as its `Y@GRAD`) becomes, with it, `fused_batch_norm_act_grad` (X, Scale, Bias, the relu's
output as `Y`, SavedMean, SavedVariance, ReserveSpace, and the relu's `Out@GRAD` as `Y@GRAD`) at batch_norm_grad's
place. The attributes are batch_norm's and the relu's, plus act_type, as Paddle copies them; ops/fused.py runs them
on batch_norm's own loops with `act='relu'` (kernels/norm.py), one pass each, never storing the pre-activation
value or its gradient.

Paddle 1.8.5 runs this pass on GPUs only (cuDNN, float16, NHWC) and skips it on a CPU place with a warning; here it
applies to float32 and float64 in any layout (the fused op keeps batch_norm's `data_layout`). Left alone: batch
norms with global statistics or is_test, an intermediate value something else reads (or a run fetches: `keep`), or
one that an op between the two touches.
"""
from __future__ import annotations

from ...framework.dtype import VarType
from ...framework.operator import Operator
from ...framework.program import Program
from ...framework.variable import EMPTY_VAR_NAME
from .rewrite import rewritten_program

__all__ = ['fuse_bn_act_ops']

_FLOATS = (VarType.FP32, VarType.FP64)


def _readers(program: Program) -> dict[str, list]:
    """name -> the ops (of any block) that read it."""
    out: dict[str, list] = {}
    for block in program.blocks:
        for op in block.ops:
            for name in set(op.input_arg_names):
                out.setdefault(name, []).append(op)
    return out


def _only(op, slot: str) -> str | None:
    names = op.outputs.get(slot) or op.inputs.get(slot) or []
    return names[0] if len(names) == 1 and names[0] != EMPTY_VAR_NAME else None


def _untouched_between(ops, start: int, stop: int, names: set) -> bool:
    for j in range(start + 1, stop):
        op = ops[j]
        if (set(op.input_arg_names) | set(op.output_arg_names)) & names:
            return False
    return True


def _training_bn(op, block) -> bool:
    attrs = op.attrs
    if attrs.get('use_global_stats') or attrs.get('is_test') or attrs.get('fuse_with_relu'):
        return False
    x = block._find_var_recursive(_only(op, 'X') or '')
    return x is not None and x.dtype in _FLOATS


def _forward_pairs(block, readers, keep) -> list[tuple[int, int]]:
    ops, index = block.ops, {id(op): i for i, op in enumerate(block.ops)}
    pairs = []
    for i, op in enumerate(ops):
        if op.type != 'batch_norm' or not _training_bn(op, block):
            continue
        y = op.outputs.get('Y', [None])[0]
        users = readers.get(y, [])
        if y is None or y in keep or len(users) != 1 or users[0].type != 'relu' or id(users[0]) not in index:
            continue
        j = index[id(users[0])]
        out = _only(users[0], 'Out')
        if j > i and out is not None and out != y and _untouched_between(ops, i, j, {out}):
            pairs.append((i, j))
    return pairs


def _backward_pairs(block, readers, keep) -> list[tuple[int, int]]:
    ops, index = block.ops, {id(op): i for i, op in enumerate(block.ops)}
    pairs = []
    for i, op in enumerate(ops):
        if op.type != 'relu_grad':
            continue
        d_mid = _only(op, 'X@GRAD')
        users = readers.get(d_mid, [])
        if d_mid is None or d_mid in keep or len(users) != 1 or users[0].type != 'batch_norm_grad' \
                or id(users[0]) not in index:
            continue
        j = index[id(users[0])]
        bn_grad = users[0]
        out, d_out = _only(op, 'Out'), _only(op, 'Out@GRAD')
        if j > i and out and d_out and bn_grad.inputs.get('Y@GRAD') == [d_mid] and _training_bn(bn_grad, block) \
                and not bn_grad.inputs.get('Mean') and _untouched_between(ops, i, j, {out, d_out}):
            pairs.append((i, j))
    return pairs


def _fused_forward(block, bn, relu) -> Operator:
    outputs = {k: list(bn.outputs.get(k, [])) for k in ('MeanOut', 'VarianceOut', 'SavedMean', 'SavedVariance',
                                                        'ReserveSpace')}
    outputs['Y'] = relu.output('Out')
    inputs = {k: list(bn.inputs.get(k, [])) for k in ('X', 'Scale', 'Bias', 'Mean', 'Variance')}
    attrs = dict(relu.attrs)
    attrs.update(bn.attrs)
    attrs['act_type'] = 'relu'
    return Operator(block, 'fused_batch_norm_act', inputs, outputs, attrs)


def _fused_backward(block, relu_grad, bn_grad) -> Operator:
    inputs = {k: list(bn_grad.inputs.get(k, [])) for k in ('X', 'Scale', 'Bias', 'SavedMean', 'SavedVariance',
                                                           'ReserveSpace')}
    inputs['Y'] = relu_grad.input('Out')
    inputs['Y@GRAD'] = relu_grad.input('Out@GRAD')
    outputs = {k: list(bn_grad.outputs.get(k, [])) for k in ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')}
    attrs = dict(relu_grad.attrs)
    attrs.update(bn_grad.attrs)
    attrs['act_type'] = 'relu'
    return Operator(block, 'fused_batch_norm_act_grad', inputs, outputs, attrs)


def fuse_bn_act_ops(program: Program, keep=()) -> Program:
    """The program with batch_norm + relu pairs fused (see the module docstring); `keep`: names a run fetches."""
    block = program.global_block()
    readers, keep = _readers(program), set(keep)
    forward, backward = _forward_pairs(block, readers, keep), _backward_pairs(block, readers, keep)
    if not forward and not backward:
        return program
    out = rewritten_program(program)
    target = out.global_block()
    replace: dict[int, list] = {}
    for i, j in forward:                 # at batch_norm's place
        replace[i] = [_fused_forward(target, block.ops[i], block.ops[j])]
        replace[j] = []
    for i, j in backward:                # at batch_norm_grad's place
        replace[j] = [_fused_backward(target, block.ops[i], block.ops[j])]
        replace[i] = []
    target.ops = [new for i, op in enumerate(block.ops) for new in replace.get(i, [op])]
    return out
