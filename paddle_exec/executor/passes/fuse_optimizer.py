"""BuildStrategy.fuse_all_optimizer_ops: same-type optimizer ops become one op over coalesced buffers.

    program = fuse_optimizer_ops(program)       # a new Program when something was fused, else the same one

As Paddle's fuse_sgd_op_pass / fuse_momentum_op_pass / fuse_adam_op_pass (with coalesce_grad_tensor_pass), on the
Program instead of the SSA graph. For each group of `sgd`, `momentum` or `adam` ops that agree on everything but
their parameter (type, attributes, learning-rate variable, dtype), with dense gradients and at least two members:

    coalesce_tensor(Input=[p1, p2, ...], Output=[p1, p2, ...], FusedOutput=@FUSEDVAR@_adam_Param_p1, copy_data)
    coalesce_tensor(... Moment1, Moment2, Beta1Pow, Beta2Pow the same ...)
    ...
    coalesce_tensor(Input=[g1, g2, ...], Output=[g1, g2, ...], FusedOutput=@FUSEDVAR@_adam_Grad_g1, copy_data)
    adam(Param=@FUSEDVAR@_adam_Param_p1, Grad=@FUSEDVAR@_adam_Grad_g1, Moment1=..., LearningRate=lr, ...)

the last two at the place of the group's last op (the others removed), the parameters' and accumulators'
coalesce ops at the start of the program when no op before the update writes those variables (they then depend
on nothing and split no compiled segment), else with the update. The fused names are Paddle's
(`@FUSEDVAR@_<op type>_<slot>_<first variable>`). The parameters and accumulators are coalesced once: after the
first run the scope holds views of one buffer each (ops/fused.py), so later runs copy nothing and the one update
writes the parameters in place, one pass over memory (the per-op kernels, compiled into a segment like any dense
update). The gradients are new arrays every step: in a compiled segment their coalesce_tensor and the update run
as one call that reads each gradient where it lies (segments.py step 5, the updates' parts variants), so no
gradient buffer is made; op by op (segments off) they are copied into their buffer each run.

Numbers: the element-wise updates are those of the separate ops, bit for bit. Adam's bias correction reads the
first parameter's Beta1Pow / Beta2Pow for all (Paddle: "The LearningRate, Beta1Pow, Beta2Pow should be equal"),
which holds when the parameters were trained together from the start; every accumulator is still advanced.

Not fused (left as they are), as in Paddle: sparse (SelectedRows) gradients, groups of one, ops whose variables
something between the group's first and last op touches (moving the update later would change what that reads),
and under ReduceStrategy.Reduce (each parameter's update runs on its owner place); here also any op with a tensor
where Paddle takes an attribute (Beta1Tensor, ...).
"""
from __future__ import annotations

import numpy as np

from ...framework.dtype import VarType
from ...framework.operator import BOOKKEEPING_ATTRS, OP_ROLE_ATTR, Operator, OpRole
from ...framework.program import Program
from .rewrite import rewritten_program

__all__ = ['fuse_optimizer_ops', 'FUSED_VAR_PREFIX', 'FUSABLE']

FUSED_VAR_PREFIX = '@FUSEDVAR@'
# op type -> (the slots updated in place besides Param, the optional tensor slots that must be unset)
FUSABLE = {
    'sgd': ((), ()),
    'momentum': (('Velocity',), ()),
    'adam': (('Moment1', 'Moment2', 'Beta1Pow', 'Beta2Pow'), ('Beta1Tensor', 'Beta2Tensor', 'SkipUpdate',
                                                             'MasterParam')),
}
_OUT_SLOT = {'Param': 'ParamOut', 'Velocity': 'VelocityOut', 'Moment1': 'Moment1Out', 'Moment2': 'Moment2Out',
             'Beta1Pow': 'Beta1PowOut', 'Beta2Pow': 'Beta2PowOut'}


def _one(op, slot: str) -> str | None:
    names = op.inputs.get(slot) or []
    return names[0] if len(names) == 1 else None


def _group_key(op, block):
    """What members of one fused group share, or None when `op` cannot be fused."""
    aux, unset = FUSABLE[op.type]
    if any(op.inputs.get(s) for s in unset):
        return None
    names = {s: _one(op, s) for s in ('Param', 'Grad', 'LearningRate') + aux}
    if any(n is None for n in names.values()):
        return None
    for slot in ('Param',) + aux:       # updated in place: the output names the input variable
        if op.outputs.get(_OUT_SLOT[slot]) != [names[slot]]:
            return None
    grad = block._find_var_recursive(names['Grad'])
    if grad is None or grad.type != VarType.LOD_TENSOR:
        return None
    dtypes = set()
    for slot in ('Param', 'Grad') + aux:
        var = block._find_var_recursive(names[slot])
        if var is None or not var.has_shape() or any(d < 0 for d in var.shape):
            return None
        dtypes.add(var.dtype)
    if len(dtypes) != 1:
        return None
    attrs = tuple(sorted((k, repr(v)) for k, v in op.attrs.items() if k not in BOOKKEEPING_ATTRS))
    return op.type, names['LearningRate'], dtypes.pop(), attrs


def _groups(block) -> list[list[int]]:
    """Indices of the ops of each fusable group, in program order."""
    groups: dict = {}
    for i, op in enumerate(block.ops):
        if op.type in FUSABLE:
            key = _group_key(op, block)
            if key is not None:
                groups.setdefault(key, []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _touched(op) -> set[str]:
    return set(op.input_arg_names) | set(op.output_arg_names)


def _safe(block, members: list[int]) -> list[int]:
    """The members whose parameters appear once and whose variables no other op between the group's first and
    last member reads or writes (all of them, or none)."""
    ops = block.ops
    params = [_one(ops[i], 'Param') for i in members]
    if len(set(params)) != len(params):
        return []
    mine = set()
    for i in members:
        mine |= _touched(ops[i])
    mine.discard(_one(ops[members[0]], 'LearningRate'))
    inside = set(members)
    for j in range(members[0], members[-1] + 1):
        if j not in inside and _touched(ops[j]) & mine:
            return []
    return members


def _fused_name(op_type: str, slot: str, first: str) -> str:
    return '%s_%s_%s_%s' % (FUSED_VAR_PREFIX, op_type, slot, first)


def _fuse_group(block, members: list, new_vars: dict) -> tuple[list, list]:
    """(the coalesce_tensor ops of the parameters and accumulators, the coalesce_tensor op of the gradients and the
    one update op) that replace the ops `members`."""
    first = members[0]
    aux, _ = FUSABLE[first.type]
    role = {OP_ROLE_ATTR: int(OpRole.Optimize), 'op_role_var': []}
    dtype = block._find_var_recursive(_one(first, 'Param')).dtype
    ops, fused = [], {}
    for slot in ('Param',) + aux + ('Grad',):
        names = [_one(op, slot) for op in members]
        total = sum(int(np.prod(block._find_var_recursive(n).shape)) for n in names)
        name = _fused_name(first.type, slot, names[0])
        new_vars[name] = dict(shape=[total], dtype=dtype)
        fused[slot] = name
        ops.append(Operator(block, 'coalesce_tensor', {'Input': names}, {'Output': names, 'FusedOutput': [name]},
                            {'dtype': int(dtype), 'copy_data': True, 'set_constant': False, 'constant': 0.0,
                             'check_name': False, **role}))
    inputs = {k: list(v) for k, v in first.inputs.items()}
    outputs = {k: list(v) for k, v in first.outputs.items()}
    for slot, name in fused.items():
        inputs[slot] = [name]
        if slot in _OUT_SLOT:
            outputs[_OUT_SLOT[slot]] = [name]
    attrs = dict(first.attrs, **role)
    return ops[:-1], [ops[-1], Operator(block, first.type, inputs, outputs, attrs)]


def _written_before(block, members: list[int], names: set) -> bool:
    """Whether an op before the group's last member, other than the members, writes one of `names`."""
    inside = set(members)
    return any(j not in inside and set(block.ops[j].output_arg_names) & names for j in range(members[-1]))


def fuse_optimizer_ops(program: Program) -> Program:
    """The program with each fusable group of optimizer ops fused (see the module docstring)."""
    block = program.global_block()
    groups = [g for g in (_safe(block, g) for g in _groups(block)) if g]
    if not groups:
        return program
    new_block_ops, new_vars, front = {}, {}, []
    out = rewritten_program(program)
    target = out.global_block()
    for members in groups:
        states, update = _fuse_group(target, [block.ops[i] for i in members], new_vars)
        state_names = {n for op in states for n in op.input('Input')}
        if _written_before(block, members, state_names):
            update = states + update
        else:
            # nothing before the update writes the parameters or accumulators: their coalesce ops go first, where
            # they depend on nothing and split no compiled segment (they copy nothing after the first run)
            front.extend(states)
        new_block_ops[members[-1]] = update
        for i in members[:-1]:
            new_block_ops[i] = []
    ops = list(front)
    for i, op in enumerate(block.ops):
        ops.extend(new_block_ops.get(i, [op]))
    for name, kw in new_vars.items():
        target.create_var(name=name, persistable=False, **kw)
    target.ops = ops
    return out
