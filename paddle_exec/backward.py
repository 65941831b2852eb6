"""append_backward / gradients: reverse-mode differentiation on the Program, following Paddle's backward.py.

One backward pass, in Paddle's order (each step is a small function below):

1. The no-grad set: every variable with stop_gradient=True (data, frozen parameters) plus `no_grad_set`.
2. The op path (`_find_op_path`): ops with a grad maker (framework/registry.GRAD_RULES) whose outputs lead to the
   targets, and (for `gradients`) that are reached from the inputs. Path outputs that do not lead to a target
   join the no-grad set (`_find_no_grad_vars`, append_backward only).
3. Grad ops: each path op's grad maker, in reverse order. Gradients of no-grad inputs are `@EMPTY@`; a
   single-variable slot holding only `@EMPTY@` is left empty, as Paddle's drop_empty_grad does. From the second
   pass over the same program on (double backward, a second optimizer), gradient names that already exist get
   the prefix `grad/` * pass number, as Paddle's `_rename_grad_name_`.
4. Accumulation (`_addup_repetitive_outputs`): a gradient written several times (a variable read by several
   ops, or twice by one op) is written as `X@GRAD@RENAME@block0@k` and summed into `X@GRAD` by a `sum` op placed
   before its first reader.
5. Pruning (`_remove_no_grad_branch`): grad ops whose outputs or whose gradient inputs are all no-grad are
   dropped; a no-grad gradient another grad op still reads is made by `fill_zeros_like`.
6. Appending: the target seeds (`fill_constant` 1.0 with op_role Backward|Loss, or the user's target
   gradients), then the grad ops with op_role Backward, creating each gradient variable shaped like its forward
   variable. A grad op none of whose gradient inputs was produced is skipped; a gradient input that was not
   produced (an unused output of a multi-output op) is filled with zeros. Callbacks (error clip) run after
   each grad op.

`append_backward` then stamps `op_role_var = [param, grad]` on the op that last writes each parameter's gradient
and returns [(param, grad)].
"""
from __future__ import annotations

from .framework import registry, unique_name
from .framework.operator import OP_ROLE_ATTR, OP_ROLE_VAR_ATTR, OpRole
from .framework.variable import EMPTY_VAR_NAME, GRAD_SUFFIX, Parameter, Variable

__all__ = ['append_backward', 'gradients', 'calc_gradient', 'Parameter']


# --- names --------------------------------------------------------------------------------------------------------

def _names(items) -> set[str]:
    if items is None:
        return set()
    if not isinstance(items, (set, list, tuple, frozenset)):
        raise TypeError('The type of no_grad_set should be set or list or tuple, but received %s' % type(items))
    out = set()
    for v in items:
        if isinstance(v, Variable):
            out.add(v.name)
        elif isinstance(v, str):
            out.add(v)
        else:
            raise TypeError("The type of no_grad_set's member must be paddle.fluid.Variable or str, but received %s."
                            % type(v))
    return out


def _is_grad_name(name: str) -> bool:
    return GRAD_SUFFIX in name


def strip_grad_suffix(name: str) -> str:
    """`x@GRAD` -> `x`, `x@GRAD@RENAME@block0@1` -> `x`, `grad/grad/x@GRAD` -> `x` (Paddle's _strip_grad_suffix_)."""
    pos = name.find(GRAD_SUFFIX)
    base = name[:pos] if pos != -1 else name
    prefix = base.rfind('grad/')
    return base[prefix + 5:] if prefix != -1 else base


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


# --- grad ops under construction ------------------------------------------------------------------------------

class _GradOp:
    """A grad op before it is appended: plain dicts of slot -> names, renamed freely by the passes below."""
    __slots__ = ('type', 'inputs', 'outputs', 'attrs')

    def __init__(self, type, inputs, outputs, attrs):
        self.type, self.inputs, self.outputs, self.attrs = type, inputs, outputs, attrs

    def input_arg_names(self) -> list[str]:
        return [n for names in self.inputs.values() for n in names]

    def output_arg_names(self) -> list[str]:
        return [n for names in self.outputs.values() for n in names]

    def rename_input(self, old: str, new: str) -> None:
        for names in self.inputs.values():
            names[:] = [new if n == old else n for n in names]

    def rename_output(self, old: str, new: str) -> None:
        for names in self.outputs.values():
            names[:] = [new if n == old else n for n in names]

    def __repr__(self):
        return '_GradOp(%s, %s -> %s)' % (self.type, self.inputs, self.outputs)


# --- 1-2: no-grad set and op path ------------------------------------------------------------------------------

def _stop_gradient_names(program) -> set[str]:
    return {name for block in program.blocks for name, v in block.vars.items() if v.stop_gradient}


def _has_grad_maker(op) -> bool:
    return registry.GRAD_RULES.get(op.type) is not None


def _find_op_path(ops, target_names: set[str], input_names: set[str], no_grad: set[str]) -> list:
    """Paddle's _find_op_path_: ops that lead to the targets (and, given inputs, are reached from them)."""
    relevant = [True] * len(ops)
    if input_names:
        reached = set(input_names)
        for i, op in enumerate(ops):
            if _has_grad_maker(op) and any(n in reached for n in op.input_arg_names):
                reached.update(n for n in op.output_arg_names if n not in no_grad)
            else:
                relevant[i] = False
    wanted = set(target_names)
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if _has_grad_maker(op) and any(n in wanted for n in op.output_arg_names):
            wanted.update(n for n in op.input_arg_names if n not in no_grad)
        else:
            relevant[i] = False
    return [op for op, keep in zip(ops, relevant) if keep]


def _find_no_grad_vars(block, path, target_names: set[str], no_grad: set[str]) -> set[str]:
    """Outputs of path ops that lead to no target (an unused second output) need no gradient."""
    wanted = set(target_names)
    found = set()
    for op in reversed(path):
        ins = set(op.input_arg_names)
        for name in op.output_arg_names:
            var = block._find_var_recursive(name)
            if name not in wanted and name not in ins and var is not None and not var.stop_gradient:
                found.add(name)
        wanted.update(n for n in op.input_arg_names if n not in no_grad)
    return found


# --- 3: grad ops --------------------------------------------------------------------------------------------------

def _make_grad_ops(path, no_grad: set[str]) -> list[_GradOp]:
    grad_ops = []
    for op in reversed(path):
        ctx = registry.GradContext(op, no_grad, append_sub_block_backward)
        info = registry.OPS.get(op.type)
        for type, inputs, outputs, attrs in registry.GRAD_RULES[op.type](ctx):
            gop = _GradOp(type, {k: list(v) for k, v in inputs.items()}, {k: list(v) for k, v in outputs.items()},
                          dict(attrs))
            grad_info = registry.OPS.get(type)
            for slot, names in gop.outputs.items():
                # Paddle drops @EMPTY@ from single-variable gradient slots (drop_empty_grad); lists keep positions
                duplicable = grad_info is not None and slot in grad_info.duplicable or \
                    info is not None and slot.replace(GRAD_SUFFIX, '') in info.duplicable
                if not duplicable and names == [EMPTY_VAR_NAME]:
                    names.clear()
            grad_ops.append(gop)
    return grad_ops


def _rename_existing_grads(grad_ops: list[_GradOp], existing: set[str], prefix: str) -> None:
    """Second and later passes: gradient names that already exist get `prefix` (Paddle's 'grad/' * times)."""
    renamed: dict[str, str] = {}
    for gop in grad_ops:
        for old, new in renamed.items():
            gop.rename_input(old, new)
        for name in gop.output_arg_names():
            if _is_grad_name(name) and name in existing:
                renamed[name] = prefix + name
                gop.rename_output(name, prefix + name)


# --- 3 with checkpoints: forward recomputation (RecomputeOptimizer) -------------------------------------------

def _recompute_segments(ops, checkpoints: list[str]) -> list[list[int]]:
    """Paddle's recompute segments over the op path: [begin, end) op ranges between consecutive checkpoints
    (ordered by the last op writing each), with the ops before the first segment as one more segment."""
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for i, op in enumerate(ops):
        for name in op.input_arg_names:
            readers.setdefault(name, []).append(i)
        for name in op.output_arg_names:
            writers.setdefault(name, []).append(i)
    known = [n for n in dict.fromkeys(checkpoints) if n in writers or n in readers]
    ordered = sorted(known, key=lambda n: max(writers.get(n, [-1])))
    segments = []
    if len(ordered) == 1:
        last = max(writers.get(ordered[0], [-1]))
        if last > 0:
            segments.append([0, last + 1])
    for first, second in zip(ordered, ordered[1:]):
        begin = min(readers.get(first, [len(ops)]))
        end = max(writers.get(second, [-1]))
        if begin < end:
            segments.append([begin, end + 1])
    if segments and segments[0][0] != 0:
        segments.insert(0, [0, segments[0][0]])
    return segments


def _vars_held_in_memory(block, ops, segments) -> set[str]:
    """What recomputation keeps instead of recomputing: variables crossing a segment's border, the outputs of
    stateful ops (dropout's mask must be the one the forward pass drew; Paddle adds a `seed` op for that), and the
    program's inputs."""
    held: set[str] = set()
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for i, op in enumerate(ops):
        for name in op.input_arg_names:
            readers.setdefault(name, []).append(i)
        for name in op.output_arg_names:
            writers.setdefault(name, []).append(i)
    for begin, end in segments:
        for op in ops[begin:end]:
            held.update(n for n in op.output_arg_names if any(j >= end for j in readers.get(n, ())))
            held.update(n for n in op.input_arg_names if any(j < begin for j in writers.get(n, ())))
    for op in ops:
        info = registry.OPS.get(op.type)
        if info is not None and info.stateful:
            held.update(op.output_arg_names)
    for name in readers:
        var = block._find_var_recursive(name)
        if name not in writers and not (var is not None and var.persistable):
            held.add(name)
    return held


def _make_grad_ops_with_checkpoints(block, path, no_grad: set[str], checkpoints: list[str]) -> list[_GradOp]:
    """Paddle's _append_backward_ops_with_checkpoints_: walking the segments backwards, the ops after a segment get
    their grad ops as usual; a segment's forward ops are appended again (outputs renamed `name.subprog_K`, except
    checkpoints, persistables and held variables; ops whose outputs are all held are not repeated), followed by
    their grad ops reading the recomputed variables. The numbers equal a plain backward pass."""
    for op in path:
        if 'sub_block' in op.attrs:
            raise Exception("Recompute don't support ops with sub_block invoke op: %s" % op.type)
    segments = _recompute_segments(path, checkpoints)
    if not segments:
        return _make_grad_ops(path, no_grad)
    held = _vars_held_in_memory(block, path, segments) | set(checkpoints)
    grad_ops: list[_GradOp] = []
    renames: dict[str, str] = {}
    end_of_gap = len(path)
    for k, (begin, end) in enumerate(reversed(segments)):
        grad_ops += _make_grad_ops(path[end:end_of_gap], no_grad)
        end_of_gap = begin
        segment = path[begin:end]
        for op in segment:
            for name in op.input_arg_names + op.output_arg_names:
                var = block._find_var_recursive(name)
                if name in held or name in renames or (var is not None and var.persistable):
                    continue
                renames[name] = '%s.subprog_%d' % (name, k)
                if var is not None and not block.has_var(renames[name]):
                    block.create_var(name=renames[name], shape=var.shape if var.has_shape() else None,
                                     dtype=var.dtype, lod_level=var.lod_level)
        recomputed = []
        for op in segment:
            outs = [n for n in op.output_arg_names
                    if not (block._find_var_recursive(n) is not None and block._find_var_recursive(n).persistable)]
            if all(n in held for n in outs):
                continue
            attrs = {a: v for a, v in op.attrs.items() if a not in (OP_ROLE_ATTR, OP_ROLE_VAR_ATTR)}
            recomputed.append(_GradOp(op.type, {s: list(v) for s, v in op.inputs.items()},
                                      {s: list(v) for s, v in op.outputs.items()}, attrs))
        segment_grads = _make_grad_ops(segment, no_grad)
        for gop in recomputed + segment_grads:
            for old, new in renames.items():
                gop.rename_input(old, new)
                gop.rename_output(old, new)
        grad_ops += recomputed + segment_grads
    return grad_ops


# --- 4: accumulation ----------------------------------------------------------------------------------------------

def _rename_arg(ops, old: str, new: str, begin: int = 0, end: int | None = None) -> None:
    for gop in ops[begin:end]:
        gop.rename_input(old, new)
        gop.rename_output(old, new)


def _addup_repetitive_outputs(grad_ops: list[_GradOp], block_idx: int) -> list[_GradOp]:
    """Paddle's _addup_repetitive_outputs_: repeated gradient outputs are renamed and summed."""
    pending: list[tuple[_GradOp, int]] = []
    rename_count: dict[str, int] = {}
    renamed: dict[str, list[str]] = {}
    start_idx: dict[str, int] = {}

    def next_name(var):
        k = rename_count.get(var, 0)
        rename_count[var] = k + 1
        return '%s@RENAME@block%d@%d' % (var, block_idx, k)

    for idx, gop in enumerate(grad_ops):
        for var in gop.input_arg_names():
            if _is_grad_name(var) and len(renamed.get(var, ())) > 1:
                pending.append((_GradOp('sum', {'X': list(renamed[var])}, {'Out': [var]}, {'use_mkldnn': False}),
                                idx))
                renamed[var] = [var]
        ins = set(gop.input_arg_names())
        slots = list(gop.outputs)
        for slot_idx, slot in enumerate(slots):
            names = gop.outputs[slot]
            for arg_idx in range(len(names)):
                var = names[arg_idx]
                if not _is_grad_name(var) or var == EMPTY_VAR_NAME or var in ins:
                    continue        # not a gradient, empty, or updated in place
                if not renamed.get(var):
                    renamed[var] = [var]
                    start_idx[var] = idx
                    continue
                if len(renamed[var]) == 1:
                    first = next_name(var)
                    renamed[var][0] = first
                    _rename_arg(grad_ops, var, first, start_idx[var], idx)
                    _rename_arg([p for p, _ in pending], var, first)
                    for earlier in slots[:slot_idx]:
                        gop.outputs[earlier] = [first if n == var else n for n in gop.outputs[earlier]]
                    names[:arg_idx] = [first if n == var else n for n in names[:arg_idx]]
                new = next_name(var)
                names[arg_idx] = new
                renamed[var].append(new)
    for var, parts in renamed.items():
        if len(parts) > 1:
            pending.append((_GradOp('sum', {'X': list(parts)}, {'Out': [var]}, {'use_mkldnn': False}),
                            len(grad_ops)))
    result = list(grad_ops)
    for gop, idx in reversed(pending):
        result.insert(idx, gop)
    return result


# --- 5: pruning -----------------------------------------------------------------------------------------------

def _remove_no_grad_branch(grad_ops: list[_GradOp], no_grad_grads: set[str]) -> list[_GradOp]:
    """Paddle's _remove_no_grad_branch_ (`no_grad_grads` holds gradient names, and grows)."""
    def removable(gop):
        outs = [n for n in gop.output_arg_names()]
        if not outs or all(n in no_grad_grads or n == EMPTY_VAR_NAME for n in outs):
            return True
        grad_ins = [n for n in gop.input_arg_names() if _is_grad_name(n)]
        if grad_ins and all(n in no_grad_grads for n in grad_ins):
            no_grad_grads.update(outs)
            return True
        return False

    kept = [gop for gop in grad_ops if not removable(gop)]
    result = []
    for gop in kept:
        for name in gop.input_arg_names():
            if _is_grad_name(name) and name in no_grad_grads:
                result.append(_GradOp('fill_zeros_like', {'X': [strip_grad_suffix(name)]}, {'Out': [name]}, {}))
        result.append(gop)
    return result


def _rename_collisions(grad_ops: list[_GradOp], existing: set[str], renames: dict[str, str]) -> None:
    """Paddle's _rename_grad_: outputs whose names exist already get a unique name; `renames` maps reads too."""
    for gop in grad_ops:
        for old, new in renames.items():
            gop.rename_input(old, new)
        for name in gop.output_arg_names():
            if _is_grad_name(name) and name in existing:
                new = unique_name.generate(name)
                gop.rename_output(name, new)
                renames[name] = new


# --- 6: appending ---------------------------------------------------------------------------------------------

def _create_grad_var(block, name: str) -> Variable:
    fwd = block._find_var_recursive(strip_grad_suffix(name))
    if fwd is None:
        return block.create_var(name=name)
    return block.create_var(name=name, shape=fwd.shape if fwd.has_shape() else None, dtype=fwd.dtype,
                            lod_level=fwd.lod_level)


def _fresh_zero_name(block, name: str) -> str:
    new = name
    while block.has_var(new):
        new = unique_name.generate(name)
    return new


def _append_grad_ops(block, grad_ops: list[_GradOp], produced: set[str], callbacks) -> dict[str, str]:
    """Appends the grad ops; returns grad_to_var (gradient name -> forward name) of what was appended."""
    grad_to_var: dict[str, str] = {}
    for gop in grad_ops:
        grad_ins = [n for n in gop.input_arg_names() if _is_grad_name(n) and n != EMPTY_VAR_NAME]
        if grad_ins and not any(n in produced for n in grad_ins):
            continue                        # nothing flows into it: its gradients stay unwritten
        outs = [n for n in gop.output_arg_names() if n != EMPTY_VAR_NAME]
        if not outs:
            continue
        for name in grad_ins:
            if name in produced:
                continue
            # an unused output of a multi-output op: its gradient is zero
            zero = _fresh_zero_name(block, name)
            gop.rename_input(name, zero)
            _create_grad_var(block, zero)
            block.append_op('fill_zeros_like', {'X': [strip_grad_suffix(name)]}, {'Out': [zero]})
            produced.add(zero)
        for name in outs:
            if not block.has_var(name):
                _create_grad_var(block, name)
        op = block.append_op(gop.type, gop.inputs, gop.outputs, gop.attrs)
        produced.update(outs)
        for name in outs:
            if _is_grad_name(name) and '@RENAME@' not in name:
                grad_to_var[name] = strip_grad_suffix(name)
        if callbacks:
            grad_to_var['__current_op_desc__'] = op
            for cb in callbacks:
                cb(block=block, context=grad_to_var)
    grad_to_var.pop('__current_op_desc__', None)
    return grad_to_var


def _backward(block, targets: list[Variable], target_grads: list, inputs: list[Variable], no_grad_set: set[str],
              callbacks=None, seed_with_shape_op: bool = False, checkpoints=None) -> dict[str, str]:
    """One backward pass; returns forward name -> final gradient name for every gradient written."""
    program = block.program
    program._appending_grad_times += 1
    times = program._appending_grad_times
    existing = set(block.vars)
    no_grad = _stop_gradient_names(program) | set(no_grad_set)
    target_names = {t.name for t in targets}
    input_names = {v.name for v in inputs}
    path = _find_op_path(block.ops, target_names, input_names, no_grad)
    if not inputs:
        no_grad |= _find_no_grad_vars(block, path, target_names, no_grad)

    with program._backward_role_guard():
        produced = _append_seeds(block, targets, target_grads, existing, seed_with_shape_op)
        if checkpoints:
            grad_ops = _make_grad_ops_with_checkpoints(block, path, no_grad, checkpoints)
        else:
            grad_ops = _make_grad_ops(path, no_grad)
        if times > 1:
            _rename_existing_grads(grad_ops, existing, 'grad/' * times)
        grad_ops = _addup_repetitive_outputs(grad_ops, block.idx)
        grad_ops = _remove_no_grad_branch(grad_ops, {n + GRAD_SUFFIX for n in no_grad})
        renames = {t.name + GRAD_SUFFIX: seed for t, seed in zip(targets, produced)}
        renames = {k: v for k, v in renames.items() if k != v}
        _rename_collisions(grad_ops, existing, renames)
        grad_to_var = _append_grad_ops(block, grad_ops, set(produced), callbacks)
    program._bump()
    return {fwd: g for g, fwd in grad_to_var.items()}


def _append_seeds(block, targets, target_grads, existing: set[str], for_gradients: bool) -> list[str]:
    """The gradient each target starts from: ones, or the given target gradient. append_backward seeds the loss
    with fill_constant(1.0) (op_role Backward|Loss); gradients() with ones of the target's runtime shape."""
    seeds = []
    for target, given in zip(targets, target_grads):
        if given is not None:
            if tuple(given.shape) != tuple(target.shape):
                raise ValueError('The shapes of target and grad are different: %s %s' % (target.name, given.name))
            seeds.append(given.name)
            continue
        name = target.name + GRAD_SUFFIX
        while name in existing:           # a second pass over the same target (Paddle's _rename_grad_)
            name = unique_name.generate(target.name + GRAD_SUFFIX)
        _create_grad_var(block, name)
        known = target.has_shape() and all(d > 0 for d in target.shape)
        if not for_gradients:
            block.append_op('fill_constant', {}, {'Out': [name]},
                            {'shape': list(target.shape) if known and target.shape else [1], 'value': 1.0,
                             'dtype': int(target.dtype), 'force_cpu': False,
                             OP_ROLE_ATTR: int(OpRole.Backward | OpRole.Loss)})
        elif 'shape' in registry.OPS:
            shape_name = target.name + '_shape'
            block.create_var(name=shape_name, dtype='int32', shape=[len(target.shape)], stop_gradient=True)
            block.append_op('shape', {'Input': [target.name]}, {'Out': [shape_name]})
            block.append_op('fill_constant', {'ShapeTensor': [shape_name]}, {'Out': [name]},
                            {'shape': list(target.shape), 'value': 1.0, 'dtype': int(target.dtype)})
        elif known:
            block.append_op('fill_constant', {}, {'Out': [name]},
                            {'shape': list(target.shape), 'value': 1.0, 'dtype': int(target.dtype)})
        else:
            # without a `shape` op: ones_like(target) = 0 * target + 1
            zeros = _fresh_zero_name(block, name + '@ZERO')
            _create_grad_var(block, zeros)
            block.append_op('fill_zeros_like', {'X': [target.name]}, {'Out': [zeros]})
            block.append_op('scale', {'X': [zeros]}, {'Out': [name]}, {'scale': 1.0, 'bias': 1.0})
        seeds.append(name)
    return seeds


# --- sub-blocks (control flow) ------------------------------------------------------------------------------

def append_sub_block_backward(sub_block, target_names, no_grad_names) -> object:
    """The grad block of a control-flow op's sub-block, as Paddle's `_append_backward_ops_` recursion makes it.

    A new block (child of the current block, `forward_block_idx` = the sub-block) receives the grad ops of the
    sub-block ops that lead to `target_names` (the op's outputs whose gradients `name@GRAD` come from outside),
    accumulated and pruned as in the main pass. Nested control-flow ops recurse through their grad makers. The
    grad block also gets copies of the forward variables its ops refer to, because Block lookups here follow
    parent blocks only (Paddle's also follow forward_block_idx), and shape rules need them."""
    program = sub_block.program
    grad_block = program._create_block()
    grad_block.forward_block_idx = sub_block.idx
    try:
        no_grad = _stop_gradient_names(program) | set(no_grad_names)
        path = _find_op_path(sub_block.ops, set(target_names), set(), no_grad)
        grad_ops = _make_grad_ops(path, no_grad)
        grad_ops = _addup_repetitive_outputs(grad_ops, sub_block.idx)   # Paddle names renames after it
        grad_ops = _remove_no_grad_branch(grad_ops, {n + GRAD_SUFFIX for n in no_grad})
        for gop in grad_ops:
            for name in gop.input_arg_names() + gop.output_arg_names():
                for fwd_name in (name, strip_grad_suffix(name)):
                    if grad_block._find_var_recursive(fwd_name) is None:
                        fwd = sub_block._find_var_recursive(fwd_name)
                        if fwd is not None:
                            grad_block.vars[fwd_name] = _mirror_var(fwd, grad_block)
        for name in target_names:       # the incoming gradients (made in the parent later): shape rules need them
            if grad_block._find_var_recursive(name + GRAD_SUFFIX) is None:
                _create_grad_var(grad_block, name + GRAD_SUFFIX)
        _append_grad_ops(grad_block, grad_ops, {n + GRAD_SUFFIX for n in target_names}, None)
    finally:
        program._rollback()
    return grad_block


def _mirror_var(var, block):
    import copy
    mirror = copy.copy(var)
    mirror.block = block
    return mirror


# --- the public functions -------------------------------------------------------------------------------------

def append_backward(loss: Variable, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None) -> list[tuple]:
    """Appends the backward ops of `loss` to its program; returns [(parameter, gradient)] for the trainable
    parameters (or `parameter_list`) that receive a gradient."""
    if not isinstance(loss, Variable):
        raise TypeError("The type of 'loss' in fluid.backward.append_backward must be Variable, but received %s"
                        % type(loss).__name__)
    if callbacks is not None and not isinstance(callbacks, list):
        raise TypeError("The type of 'callbacks' in fluid.backward.append_backward must be list, but received %s"
                        % type(callbacks).__name__)
    for cb in callbacks or ():
        if not callable(cb):
            raise ValueError("'callback' must be a callable object.")
    program = loss.block.program
    block = program.global_block()
    for op in block.ops:
        if loss.name in op.output_arg_names:
            op._set_attr(OP_ROLE_ATTR, int(OpRole.Forward | OpRole.Loss))
    grad_of = _backward(block, [loss], [None], [], _names(no_grad_set), callbacks,
                        checkpoints=[c.name if isinstance(c, Variable) else c for c in checkpoints or ()])

    if parameter_list is not None:
        if not isinstance(parameter_list, (list, tuple, set)):
            raise TypeError("The type of 'parameter_list' in fluid.backward.append_backward must be list, tuple or "
                            "set, but received %s" % type(parameter_list).__name__)
        names = [p.name if isinstance(p, Variable) else p for p in parameter_list]
    else:
        names = [p.name for p in block.all_parameters() if p.trainable]
    params_grads = []
    for name in names:
        gname = grad_of.get(name)
        if gname is None or not block.has_var(gname):
            continue
        param, grad = block.var(name), block.var(gname)
        writer = next(op for op in reversed(block.ops) if gname in op.output_arg_names)
        writer._set_attr(OP_ROLE_VAR_ATTR, [param.name, gname] + list(writer.attrs.get(OP_ROLE_VAR_ATTR, [])))
        params_grads.append((param, grad))
    return params_grads


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """Paddle's calc_gradient: the gradient variable of each input (None where the targets do not depend on it);
    a single gradient (not a list) when there is one input."""
    targets, inputs = _as_list(targets), _as_list(inputs)
    target_gradients = _as_list(target_gradients) or [None] * len(targets)
    if len(targets) != len(target_gradients):
        raise ValueError('Should have the same number of target_gradients as targets')
    block = targets[0].block
    for v in targets + inputs + [g for g in target_gradients if g is not None]:
        if v.block.program is not block.program:
            raise ValueError('all targets, inputs and target_gradients must be in the same program (%r is not)'
                             % v.name)
    grad_of = _backward(block, targets, target_gradients, inputs, _names(no_grad_set), seed_with_shape_op=True)
    grads = [block.var(grad_of[v.name]) if v.name in grad_of else None for v in inputs]
    return grads[0] if len(grads) == 1 else grads


def gradients(targets, inputs, target_gradients=None, no_grad_set=None) -> list:
    """Gradients of `targets` with respect to `inputs` (None where an input does not affect the targets).

    As in Paddle, a single input whose gradient does not exist gives an empty list."""
    if not isinstance(targets, (Variable, list, tuple)):
        raise TypeError("The type of 'targets' in fluid.backward.gradients must be Variable or list, but received %s"
                        % type(targets).__name__)
    if not isinstance(inputs, (Variable, list, tuple)):
        raise TypeError("The type of 'inputs' in fluid.backward.gradients must be Variable or list, but received %s"
                        % type(inputs).__name__)
    return _as_list(calc_gradient(targets, inputs, target_gradients, no_grad_set))
