"""Control flow ops: `conditional_block`, `while` and their helpers, with sub-block execution inside the kernels.

Design: a control-flow op's kernel factory compiles its sub-block once into its own plan
(`spec.compile_block(sub_block, feed_names, fetch_names)`, the block compiler the executor hands in as the kernel
context), and every step runs that plan's nodes in order on a fresh `values` list bound from the op's inputs.
The outer executor sees an ordinary op; nothing in the executor knows about blocks.
What the outer plan needs to know comes from the op's slots, as Paddle's builders fill them:

  conditional_block   Cond (bool, numel 1 when is_scalar_condition), Input (every parent variable the sub-block
                      reads) -> Out (every parent variable the sub-block writes), Scope (the sub-run's values)
  while               X (parent variables read inside), Condition -> Out (parent variables written inside and
                      the condition), StepScopes

So a variable the parent reads only inside a sub-block counts as read by the op (it is not freed before), and a
sub-block write is an output of the op (the parent's readers wait for it).

When the condition is false (or a while runs zero times) Paddle leaves the Out variables untouched. The kernel
returns an empty list for the duplicable Out slot: a plan step writes a list slot element by element
(`zip(slots, values)`), so no Out slot is written and each keeps the value it had. When the sub-block does run, an
Out it did not write (a nested conditional_block whose condition was false) becomes None unless it is also an
Input (then the fed value carries through).

Gradients: `conditional_block_grad` runs the grad sub-block that `backward.append_sub_block_backward` builds (as
Paddle's `_append_backward_ops_` recursion does). It needs the forward sub-run's intermediates: the forward kernel
hands its whole values list over as the `Scope` output (a `SubBlockScope`) when some op reads that Scope variable,
and then keeps every sub-block value alive. When the condition was false the input gradients are zeros (Paddle
2.x's AssignZeroToParentScope; 1.8's `sum` skips the unwritten ones, which gives the same numbers). `while`, and
tensor-array reads/writes, have no gradient here: append_backward raises NotImplementedError naming the op when a
gradient would have to flow through one.

Tensor arrays (LOD_TENSOR_ARRAY variables) are Python lists in the values list. `write_to_array` updates the list
in place, as Paddle's does. Because a kernel only sees its inputs, two things differ from Paddle's programs: the
array_write builder also lists the array in a dispensable `Array` input slot (Paddle's op has only X and I), so
the kernel gets the existing list and the plan orders the write after earlier readers; and `create_array` appends
a `create_array` op making the empty list (Paddle's creates the variable only, its scope makes the array lazily),
so a loop that writes an array created outside it has a value to start from. A write_to_array without `Array`
starts a new list.

LoD: when values that carry LoD enter a sub-block (Input of conditional_block, X of while), the op's LoD rule
reads their LoDs and computes those of its outputs from the LoD pass run on the sub-block (executor/passes/lod.py);
the kernel compiles the sub-block with those feed LoDs (`spec.compile_block(..., feed_lod=...)`), puts the LoDs in
the sub-plan's companion slots and hands the outputs' LoDs back. A while's loop-carried variables are fed with the
levels they have on the way out, so the sub-plan is the same for every iteration. conditional_block_grad finds
the forward sub-run's LoDs in its SubBlockScope, under the companions' names. Without LoD, none of this runs.

Sub-block attributes hold the Block (as Paddle's Python API does); kernels look the block up by index in the op's
own program, so a cloned program runs its own copy. `as_sub_block_attr` makes a Block safe to deepcopy (clone
copies op attributes deeply; a Block would drag its unpicklable Program along) and makes `str()` of it
`block[N]`, so an op prints its sub_block as Paddle 2.x does (the block's own text: `to_string()`).
"""
from __future__ import annotations

import numpy as np

from ..framework.lod import NO_LOD, companion
from ..framework.program import Block
from ..framework.registry import _grad_shape_rule, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..framework.variable import EMPTY_VAR_NAME, GRAD_SUFFIX


class _SubBlock(Block):
    """A Block used as an op attribute: deepcopy keeps the reference (kernels resolve the index in their own
    program)."""

    def __deepcopy__(self, memo):
        return self

    def __str__(self):
        # how an op prints its sub_block attribute, as Paddle 2.x's Operator._to_readable_code does
        return 'block[%d]' % self.idx

    __repr__ = __str__          # a list of blocks (pylayer's `blocks`) prints as [block[1], block[2]]


def as_sub_block_attr(block: Block) -> Block:
    """Marks `block` as a sub-block attribute value (see the module docstring)."""
    if type(block) is Block:
        block.__class__ = _SubBlock
    return block


def _sub_block(spec) -> Block:
    attr = spec.attrs.get('sub_block')
    if attr is None:
        raise ValueError("operator '%s' has no sub_block attribute" % spec.op.type)
    idx = attr.idx if isinstance(attr, Block) else int(attr)
    return spec.op.block.program.blocks[idx]


class SubBlockScope:
    """The values of one sub-block run, by name: what `conditional_block_grad` reads forward intermediates from."""
    __slots__ = ('slot_of', 'values')

    def __init__(self, slot_of: dict, values: list):
        self.slot_of = slot_of
        self.values = values

    def get(self, name: str):
        s = self.slot_of.get(name)
        return None if s is None else self.values[s]


def _compile(spec, block, feed_names, fetch_names, feed_lod=()):
    """The sub-block's plan, checking that everything it reads is fed (Paddle lists those in Input / X)."""
    op = spec.op
    plan = spec.compile_block(block, feed_names, fetch_names, feed_lod)
    for _, name, consumer in plan.scope_inputs:
        if consumer is not None:
            raise ValueError("operator '%s' (block %d): variable '%s' read inside its sub-block %d is not listed in "
                             "its inputs" % (op.type, op.block.idx, name, block.idx))
    return plan


def _scalar_condition(cond, op_type: str) -> bool:
    if cond is None:
        raise ValueError("%s: condition should have one initialized input as condition" % op_type)
    c = np.asarray(cond)
    if c.dtype != np.bool_ or c.size != 1:
        raise ValueError("%s: condition input's data type should be bool, numel should be 1, actual numel is %d"
                         % (op_type, c.size))
    return bool(c.reshape(-1)[0])


def _condition_test(spec):
    """Paddle's need_run: the scalar Cond, or (is_scalar_condition False) every Input non-empty."""
    if spec.attrs.get('is_scalar_condition', False):
        def need_run(conds, inputs):
            if len(conds) != 1:
                raise ValueError('conditional_block: condition should have one initialized input as condition')
            return _scalar_condition(conds[0], 'conditional_block')
    else:
        def need_run(conds, inputs):
            return all(x is not None and np.size(x) != 0 for x in inputs)
    return need_run


def _read_anywhere(program, name: str) -> bool:
    return any(name in op.input_arg_names for block in program.blocks for op in block.ops)


# --- LoD through sub-blocks (see the module docstring) ------------------------------------------------------------

def _sub_block_of(op) -> Block:
    attr = op.attrs.get('sub_block')
    return op.block.program.blocks[attr.idx if isinstance(attr, Block) else int(attr)]


def _control_flow_lod(in_slot: str, extra_feed: tuple = (), loop: bool = False):
    """The LoD rule of conditional_block (Input -> Out) and while (X -> Out, loop-carried)."""
    def rule(ctx):
        if ctx.compile_time or ctx.attr('sub_block') is None:
            return                      # at build time the builders set the outputs' lod_level
        names = ctx.input_names(in_slot)
        feed = {n: lv for n in names if (lv := ctx.name_levels(n)) > 0}
        outs = ctx.op.outputs.get('Out') or []
        block = _sub_block_of(ctx.op)
        feed_names = names + [n for slot in extra_feed for n in ctx.input_names(slot) if n not in names]
        levels = dict(feed)
        out = ctx.sub_block_levels(block, feed_names, levels, outs)
        for _ in range(4 if loop else 0):       # loop-carried values keep the levels they leave with
            carried = dict(feed)
            carried.update({n: lv for n, lv in out.items() if n in names})
            if carried == levels:
                break
            levels = carried
            out = ctx.sub_block_levels(block, feed_names, levels, outs)
        if not feed and not out:
            return
        ctx.read(in_slot)
        ctx.compute('Out', [out.get(n, 0) for n in outs])
    return rule


lod_rule('conditional_block')(_control_flow_lod('Input'))
lod_rule('while')(_control_flow_lod('X', ('Condition',), loop=True))


class _SubPlanLoD:
    """Where a sub-plan's LoDs go: companion slots of the fed names (None: no LoD) and of the fetched outputs."""
    __slots__ = ('feed_slots', 'out_slots')

    def __init__(self, plan, feed_names, n_out: int):
        binding = plan.places[0].lod
        self.feed_slots = [binding.feed_slots.get(n) if binding else None for n in feed_names]
        self.out_slots = binding.fetch_slots[:n_out] if binding else [None] * n_out

    def bind(self, values: list, lods) -> None:
        for s, lod in zip(self.feed_slots, lods or ()):
            if s is not None:
                values[s] = lod or NO_LOD

    def outputs(self, values: list) -> list:
        return [NO_LOD if s is None else (values[s] or NO_LOD) for s in self.out_slots]


def _feed_lod(spec, names, loop: bool = False) -> tuple:
    """(name, levels) of the fed names that carry LoD in this plan (loop: the levels they leave the loop with)."""
    if spec.lod is None:
        return ()
    out = []
    for n in dict.fromkeys(names):
        lv = spec.lod.levels.get(n, 0)
        if loop:
            lv = max(lv, spec.lod.out_levels.get(n, 0))
        if lv > 0:
            out.append((n, lv))
    return tuple(out)


# --- conditional_block ------------------------------------------------------------------------------------------

defop('conditional_block', ['Cond', 'Input'], ['Out', 'Scope'],
      {'sub_block': None, 'is_scalar_condition': False, 'skip_eager_deletion_vars': []},
      duplicable=['Cond', 'Input', 'Out'], dispensable=['Input', 'Out', 'Scope'])


@kernel_rule('conditional_block')
def _conditional_block_kernel(spec):
    op = spec.op
    block = _sub_block(spec)
    input_names = [n for n in op.input('Input') if n != EMPTY_VAR_NAME]
    out_names = op.output('Out')
    scope_names = op.output('Scope')
    # a grad op reads the Scope: keep every sub-block value (no last-use frees) and hand the values over
    keep_scope = bool(scope_names) and _read_anywhere(op.block.program, scope_names[0])
    fetch = list(out_names)
    if keep_scope:
        fetch += [n for sop in block.ops for n in sop.input_arg_names + sop.output_arg_names
                  if n != EMPTY_VAR_NAME]
    with_lod = spec.lod is not None and bool(spec.lod.reads)
    plan = _compile(spec, block, input_names, fetch, _feed_lod(spec, input_names) if with_lod else ())
    n_slots, run_block = plan.n_slots, plan.run_in_order
    feed_slots = [plan.slot_of[n] if n != EMPTY_VAR_NAME else None for n in op.input('Input')]
    out_slots = plan.fetch_slots[:len(out_names)]
    slot_of = plan.slot_of
    need_run = _condition_test(spec)
    if with_lod:
        return _conditional_block_with_lod(plan, op, out_names, feed_slots, out_slots, need_run, keep_scope)

    def run(conds, inputs, *_):
        if not need_run(conds, inputs or ()):
            return [], None                     # Out keeps its values (see the module docstring)
        values = [None] * n_slots
        for s, v in zip(feed_slots, inputs or ()):
            if s is not None:
                values[s] = v
        run_block(values)
        return [values[s] for s in out_slots], (SubBlockScope(slot_of, values) if keep_scope else None)
    return run


def _conditional_block_with_lod(plan, op, out_names, feed_slots, out_slots, need_run, keep_scope):
    """conditional_block's kernel when LoD enters its sub-block: the inputs' LoDs in, the outputs' LoDs out."""
    lod = _SubPlanLoD(plan, op.input('Input'), len(out_names))
    n_slots, run_block, slot_of = plan.n_slots, plan.run_in_order, plan.slot_of

    def run(conds, inputs, input_lods):
        if not need_run(conds, inputs or ()):
            return [], None, []
        values = [None] * n_slots
        for s, v in zip(feed_slots, inputs or ()):
            if s is not None:
                values[s] = v
        lod.bind(values, input_lods)
        run_block(values)
        return ([values[s] for s in out_slots], (SubBlockScope(slot_of, values) if keep_scope else None),
                lod.outputs(values))
    return run


# --- conditional_block_grad -------------------------------------------------------------------------------------

defop('conditional_block_grad', ['Cond', 'Input', 'Out', 'Out@GRAD', 'Scope'], ['Cond@GRAD', 'Input@GRAD'],
      {'sub_block': None, 'is_scalar_condition': False, 'skip_eager_deletion_vars': []},
      duplicable=['Cond', 'Input', 'Out', 'Out@GRAD', 'Cond@GRAD', 'Input@GRAD'],
      dispensable=['Input', 'Out', 'Out@GRAD', 'Cond@GRAD', 'Input@GRAD'])
shape_rule('conditional_block_grad')(_grad_shape_rule)


@grad_rule('conditional_block')
def _conditional_block_grad_maker(g):
    op = g.op
    fwd_block = op.block.program.blocks[op.attrs['sub_block'].idx]
    outs = g.output('Out')
    wanted = [n for n in outs if n not in g.no_grad_names]
    grad_block = g.sub_block_backward(fwd_block, wanted, g.no_grad_names)
    inputs = {'Cond': g.input('Cond'), 'Input': g.input('Input'), 'Out': outs,
              'Out@GRAD': [n + GRAD_SUFFIX if n in wanted else EMPTY_VAR_NAME for n in outs],
              'Scope': g.output('Scope')}
    outputs = {'Input@GRAD': g.input_grad('Input')}
    attrs = dict(g.attrs)
    attrs['sub_block'] = as_sub_block_attr(grad_block)
    return [('conditional_block_grad', inputs, outputs, attrs)]


def _zeros_like(x):
    return None if x is None else np.zeros_like(np.asarray(x))


@kernel_rule('conditional_block_grad')
def _conditional_block_grad_kernel(spec):
    op = spec.op
    grad_block = _sub_block(spec)
    input_names = op.input('Input')
    out_names = op.input('Out')
    in_grads = op.output('Input@GRAD')
    wanted = [k for k, n in enumerate(in_grads) if n != EMPTY_VAR_NAME]
    fetch = [input_names[k] + GRAD_SUFFIX for k in wanted]
    plan = spec.compile_block(grad_block, [], fetch)
    run_block, n_slots = plan.run_in_order, plan.n_slots
    fetch_slots = plan.fetch_slots
    # where each value the grad sub-block reads comes from: an Out@GRAD, Input or Out of this op by position, or
    # the forward sub-run's scope by name
    out_grad_pos = {n + GRAD_SUFFIX: k for k, n in enumerate(out_names)}
    input_pos = {n: k for k, n in enumerate(input_names)}
    out_pos = {n: k for k, n in enumerate(out_names)}
    fetched = set(fetch)
    sources = []
    for slot, name, _ in plan.scope_inputs:
        if name in out_grad_pos:
            sources.append((slot, 0, out_grad_pos[name]))
        elif name in input_pos:
            sources.append((slot, 1, input_pos[name]))
        elif name in out_pos:
            sources.append((slot, 2, out_pos[name]))
        elif name not in fetched:
            sources.append((slot, 3, name))
    need_run = _condition_test(spec)
    n_inputs = len(in_grads)
    # forward values that carry LoD in the grad sub-block: their LoDs are in the forward sub-run's scope
    lod_scope_inputs = plan.places[0].lod.scope_inputs if plan.places[0].lod is not None else ()

    def run(conds, inputs, outs, out_grads, scope):
        grads = [None] * n_inputs
        if not need_run(conds, inputs or ()):
            for k in wanted:
                grads[k] = _zeros_like(inputs[k])
            return None, grads
        if scope is None:
            raise RuntimeError("conditional_block_grad: the forward conditional_block kept no scope (variable %s)"
                               % op.input('Scope'))
        values = [None] * n_slots
        for slot, kind, key in sources:
            if kind == 0:
                v = out_grads[key]
                values[slot] = _zeros_like(outs[key]) if v is None else v
            elif kind == 1:
                values[slot] = inputs[key]
            elif kind == 2:
                values[slot] = outs[key]
            else:
                values[slot] = scope.get(key)
        for slot, name in lod_scope_inputs:
            values[slot] = scope.get(companion(name)) or NO_LOD
        run_block(values)
        for k, s in zip(wanted, fetch_slots):
            v = values[s]
            grads[k] = _zeros_like(inputs[k]) if v is None else v
        return None, grads
    return run


# --- select_input / select_output: cond's merge of the two branches --------------------------------------------

defop('select_input', ['X', 'Mask'], ['Out'], duplicable=['X'])
defop('select_output', ['X', 'Mask'], ['Out'], duplicable=['Out'])


def _mask_index(mask, n: int, op_type: str, slot: str) -> int:
    k = int(np.asarray(mask).reshape(-1)[0])
    if not 0 <= k < n:
        raise ValueError("Input 'Mask' in %s is invalid. 'Mask' must be less than the size of %s vector '%s'. But "
                         "received Mask = %d, %s's size = %d." % (op_type, 'input' if slot == 'X' else 'output',
                                                                 slot, k, slot, n))
    return k


@shape_rule('select_input')
def _select_input_shape(ctx):
    x0 = ctx.input_var('X')
    out = ctx.op.block._find_var_recursive(ctx.op.output('Out')[0])
    if x0 is not None and (out is None or not out.has_shape()):
        ctx.set_output('Out', x0.shape if x0.has_shape() else None, x0.dtype)


@kernel_rule('select_input')
def _select_input_kernel(spec):
    def run(xs, mask):
        k = _mask_index(mask, len(xs), 'SelectInputOp', 'X')
        if xs[k] is None:
            raise ValueError("select_input: the selected input %s (Mask = %d) holds no value"
                             % (spec.op.input('X')[k], k))
        return (xs[k],)
    return run


@kernel_rule('select_output')
def _select_output_kernel(spec):
    n = len(spec.op.output('Out'))

    def run(x, mask):
        k = _mask_index(mask, n, 'SelectOutputOp', 'Out')
        outs = [None] * n
        outs[k] = x
        return (outs,)
    return run


@grad_rule('select_input')
def _select_input_grad(g):
    return [('select_output', {'X': g.output_grad('Out'), 'Mask': g.input('Mask')}, {'Out': g.input_grad('X')}, {})]


@grad_rule('select_output')
def _select_output_grad(g):
    return [('select_input', {'X': g.output_grad('Out'), 'Mask': g.input('Mask')}, {'Out': g.input_grad('X')}, {})]


# --- while --------------------------------------------------------------------------------------------------------

defop('while', ['X', 'Condition'], ['Out', 'StepScopes'],
      {'sub_block': None, 'is_test': False, 'skip_eager_deletion_vars': []},
      duplicable=['X', 'Condition', 'Out'], dispensable=['X', 'Out', 'StepScopes'])


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
    feed = x_names + ([cond_name] if cond_name not in x_names else [])
    with_lod = spec.lod is not None and bool(spec.lod.reads)
    plan = _compile(spec, block, feed, list(out_names) + [cond_name],
                    _feed_lod(spec, x_names, loop=True) if with_lod else ())
    n_slots, run_block = plan.n_slots, plan.run_in_order
    x_slots = [plan.slot_of[n] if n != EMPTY_VAR_NAME else None for n in op.input('X')]
    cond_slot = plan.slot_of[cond_name]
    out_slots = plan.fetch_slots[:len(out_names)]
    lod = _SubPlanLoD(plan, op.input('X'), len(out_names)) if with_lod else None

    def run(xs, conds, x_lods=None):
        if not _scalar_condition(conds[0], 'while'):
            return ([], None, []) if with_lod else ([], None)     # zero iterations: Out keeps its values
        values = [None] * n_slots
        for s, v in zip(x_slots, xs or ()):
            if s is not None:
                values[s] = v
        values[cond_slot] = conds[0]
        if with_lod:
            lod.bind(values, x_lods)
        # one values list for all iterations: parent variables carry over, as in Paddle's shared parent scope
        while True:
            run_block(values)
            if not _scalar_condition(values[cond_slot], 'while'):
                break
        if with_lod:
            return [values[s] for s in out_slots], None, lod.outputs(values)
        return [values[s] for s in out_slots], None
    return run


def _no_gradient_through(op_type: str, slot: str):
    def maker(g):
        needs = [n for n in g.input(slot) if n != EMPTY_VAR_NAME and n not in g.no_grad_names]
        if needs:
            raise NotImplementedError(
                "append_backward: paddle_exec cannot propagate gradients through operator '%s' (block %d; the "
                "gradient of %s would flow through it). Mark those variables stop_gradient=True or keep the op "
                "out of the differentiated path." % (op_type, g.op.block.idx, needs))
        return []
    return maker


grad_rule('while')(_no_gradient_through('while', 'X'))


# --- tensor arrays: Python lists ---------------------------------------------------------------------------------

defop('create_array', [], ['Out'])
defop('write_to_array', ['X', 'I', 'Array'], ['Out'], dispensable=['Array'])
defop('read_from_array', ['X', 'I', 'X_W'], ['Out'], dispensable=['X_W'])
defop('lod_array_length', ['X'], ['Out'])

grad_rule('write_to_array')(_no_gradient_through('write_to_array', 'X'))
grad_rule('read_from_array')(_no_gradient_through('read_from_array', 'X'))


def _array_index(i, op_type: str, name: str) -> int:
    if i is None:
        raise ValueError("%s: the index I (%s) holds no value" % (op_type, name))
    k = int(np.asarray(i).reshape(-1)[0])
    if k < 0:
        raise ValueError("%s: the index I (%s) must be non-negative, got %d" % (op_type, name, k))
    return k


@kernel_rule('create_array')
def _create_array_kernel(spec):
    return lambda: ([],)


@shape_rule('write_to_array')
def _write_to_array_shape(ctx):
    x = ctx.input_var('X')
    if x is not None:
        ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype)


@kernel_rule('write_to_array')
def _write_to_array_kernel(spec):
    i_name = spec.op.input('I')[0]

    def run(x, i, array):
        k = _array_index(i, 'write_to_array', i_name)
        array = [] if array is None else array
        if k >= len(array):
            array.extend([None] * (k + 1 - len(array)))
        array[k] = np.array(x, copy=True)       # Paddle copies the tensor into the array
        return (array,)
    return run


@shape_rule('read_from_array')
def _read_from_array_shape(ctx):
    arr = ctx.input_var('X')
    if arr is not None:
        ctx.set_output('Out', arr.shape if arr.has_shape() else None, arr.dtype)


@kernel_rule('read_from_array')
def _read_from_array_kernel(spec):
    i_name = spec.op.input('I')[0]

    def run(array, i, x_w):
        k = _array_index(i, 'read_from_array', i_name)
        n = 0 if array is None else len(array)
        if k >= n or array[k] is None:
            return (None,)          # Paddle leaves Out uninitialized past the end of the array
        return (np.array(array[k], copy=True),)
    return run


@shape_rule('lod_array_length')
def _lod_array_length_shape(ctx):
    ctx.set_output('Out', (1,), 'int64')


@kernel_rule('lod_array_length')
def _lod_array_length_kernel(spec):
    return lambda array: (np.array([0 if array is None else len(array)], dtype=np.int64),)


# --- split_lod_tensor / merge_lod_tensor: IfElse's row routing (level 0, no LoD) ---------------------------------

defop('split_lod_tensor', ['X', 'Mask'], ['OutTrue', 'OutFalse'], {'level': 0})
defop('merge_lod_tensor', ['X', 'Mask', 'InTrue', 'InFalse'], ['Out'], {'level': 0},
      dispensable=['InTrue', 'InFalse'])


def _row_mask(mask, n_rows: int, op_type: str, name: str) -> np.ndarray:
    m = np.asarray(mask).reshape(-1).astype(bool)
    if m.shape[0] != n_rows:
        raise ValueError("%s: Mask %s has %d entries but the input has %d rows" % (op_type, name, m.shape[0], n_rows))
    return m


def _check_level(spec) -> None:
    if spec.attrs.get('level', 0) != 0:
        raise NotImplementedError("operator '%s': only level 0 (rows of a tensor without LoD) is supported"
                                  % spec.op.type)


@shape_rule('split_lod_tensor')
def _split_lod_tensor_shape(ctx):
    x = ctx.input_var('X')
    if x is not None and x.has_shape():
        rows = (-1,) + tuple(x.shape[1:])
        ctx.set_output('OutTrue', rows, x.dtype)
        ctx.set_output('OutFalse', rows, x.dtype)


@kernel_rule('split_lod_tensor')
def _split_lod_tensor_kernel(spec):
    _check_level(spec)
    mask_name = spec.op.input('Mask')[0]

    def run(x, mask):
        m = _row_mask(mask, x.shape[0], 'split_lod_tensor', mask_name)
        return x[m], x[~m]
    return run


@shape_rule('merge_lod_tensor')
def _merge_lod_tensor_shape(ctx):
    src = ctx.input_var('InTrue')
    src = ctx.input_var('InFalse') if src is None else src
    mask = ctx.input_var('Mask')
    if src is not None:
        rows = mask.shape[0] if mask is not None and mask.has_shape() and mask.shape else -1
        ctx.set_output('Out', (rows,) + tuple(src.shape[1:]) if src.has_shape() else None, src.dtype)


@kernel_rule('merge_lod_tensor')
def _merge_lod_tensor_kernel(spec):
    _check_level(spec)
    mask_name = spec.op.input('Mask')[0]

    def run(x, mask, in_true, in_false):
        m = np.asarray(mask).reshape(-1).astype(bool)
        src = in_true if in_true is not None and np.size(in_true) else in_false
        if src is None:
            raise ValueError("merge_lod_tensor: neither InTrue nor InFalse holds a value (Mask %s)" % mask_name)
        out = np.zeros((m.shape[0],) + tuple(np.shape(src)[1:]), dtype=np.asarray(src).dtype)
        if m.any():
            out[m] = in_true
        if not m.all():
            out[~m] = in_false
        return (out,)
    return run


@grad_rule('split_lod_tensor')
def _split_lod_tensor_grad(g):
    return [('merge_lod_tensor', {'X': g.input('X'), 'Mask': g.input('Mask'), 'InTrue': g.output_grad('OutTrue'),
                                  'InFalse': g.output_grad('OutFalse')}, {'Out': g.input_grad('X')},
             {'level': g.attrs.get('level', 0)})]


@grad_rule('merge_lod_tensor')
def _merge_lod_tensor_grad(g):
    return [('split_lod_tensor', {'X': g.output_grad('Out'), 'Mask': g.input('Mask')},
             {'OutTrue': g.input_grad('InTrue'), 'OutFalse': g.input_grad('InFalse')},
             {'level': g.attrs.get('level', 0)})]
