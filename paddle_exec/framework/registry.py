"""The op registry: one dict per rule, filled by decorators keyed on the op type (as autodidax keeps impl_rules).

    OPS           type -> OpInfo      the schema: input/output slots in order, default attributes, which slots
                                      take lists (duplicable) and which may be absent (dispensable)
    SHAPE_RULES   type -> fn(ShapeContext)     compile-time shape/dtype inference, run by Block.append_op
    KERNEL_RULES  type -> fn(KernelSpec) -> run(*inputs) -> tuple(outputs)
                                      a kernel *factory*: called once when an ExecutionPlan is built, with the
                                      op's attributes and which slots are wired; returns the function the
                                      executor calls every step with one value per input slot (a list for a
                                      duplicable slot, None for an absent one), returning one value per output
                                      slot in schema order (None where the slot is absent)
    GRAD_RULES    type -> fn(GradContext) -> list of (type, inputs, outputs, attrs)
                                      the grad-op maker used by append_backward
    SEGMENT_RULES type -> fn(KernelSpec) -> SegmentOp or None
                                      how the op runs inside a compiled segment (executor/passes/segments.py):
                                      a numba function the generated segment code calls, its constant
                                      arguments (attributes, fixed once per plan) and the numpy reference that
                                      runs it while the segment compiles; None for an instance that cannot be
                                      compiled (a sparse gradient, an attribute the numba function lacks), which
                                      then runs on its own as an ordinary node
    LOD_RULES     type -> fn(LoDContext)      how the op passes LoD on (see "LoD rules" below)

What the layers above hand in, so that nothing here imports them: a kernel factory that runs a sub-block
(control flow) gets it compiled through `spec.compile_block(block, feed_names, fetch_names)`, which the executor's
compile step provides as the spec's `context`; a grad maker that differentiates a sub-block calls
`g.sub_block_backward(block, target_names, no_grad_names)`, which backward.py provides.

Adding an op is one module edit in `paddle_exec/ops/<family>.py`: `defop(...)` plus its rules. The executor
never changes. `defop(..., grad=GradSpec)` also defines the `<type>_grad` op's schema and a default grad maker
that wires forward inputs/outputs and their `@GRAD` names the way Paddle's DefaultGradOpMaker does.

LoD rules. A LoD rule states, given how many LoD levels the op's inputs carry, what LoD its outputs get; the same
rule runs at build time (infer_shape: it sets the outputs' compile-time `lod_level`, as Paddle's compile-time
ShareLoD does) and when a plan is made (executor/passes/lod.py: it decides which values carry LoD at run time and
what each step does with it). What a rule may declare, on a LoDContext:

    ctx.share('X', 'Out')           Out gets X's LoD: one slot copy in the step, no kernel change
    ctx.share_if_rows_kept('X', 'Out')   the same, but at run time only when Out has as many rows as X (Paddle's
                                    reshape: "only pass LoD when the first dimension is unchanged")
    ctx.read('X')                   the kernel gets X's LoD as an extra input after its schema inputs (in the
                                    order of the reads; a list for a duplicable slot; None when X has no LoD)
    ctx.compute('Out', levels)      the kernel returns Out's LoD as an extra output after its schema outputs (in
                                    the order of the computes), a LoD of `levels` levels (0: Out carries none;
                                    a duplicable slot: a list of LoDs, `levels` one int per variable or one for all)
    ctx.derive('Out', fn, ['X', 'Y'], levels)    Out's LoD is fn(LoD of X, LoD of Y), computed in the step
                                    before the kernel, from the LoDs alone (concat on axis 0, lod_reset)
Anything not declared has no LoD. Ops without a rule get `default_lod_rule`: a `<type>_grad` op shares each
forward input's LoD with that input's gradient; any other op with slots X and Out shares X's LoD with Out when
Out keeps X's rows (compile-time first dimensions equal, and checked again at run time), which is Paddle's
common ShareLoD("X", "Out"). Ops where Paddle differs register a rule (ops/lod_rules.py lists them).

Each rule is registered once per op type: a second `defop`, `shape_rule`, `kernel_rule` or `grad_rule` for the
same type raises ValueError naming the type and both places (file:line), so two family modules can never
silently disagree about an op. The one exception is on purpose: `defop(..., grad=GradSpec)` installs *defaults*
(the grad maker of `<type>` and the shape rule of `<type>_grad`), and an explicit `@grad_rule` / `@shape_rule`
for that type replaces a default, whether it is registered before or after the `defop`.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from .variable import EMPTY_VAR_NAME, GRAD_SUFFIX


@dataclass
class OpInfo:
    type: str
    inputs: tuple
    outputs: tuple
    attrs: dict = field(default_factory=dict)
    duplicable: frozenset = frozenset()
    dispensable: frozenset = frozenset()
    # ops with side effects or randomness are never skipped, deduplicated or reordered across runs
    stateful: bool = False
    # output slot -> input slot updated in place (ParamOut -> Param): the executor keeps them in one buffer
    inplace: dict = field(default_factory=dict)
    # input slots whose scope variable may hold no value yet: the kernel then gets None instead of the run failing
    # (Paddle's kernels that test IsInitialized(), e.g. detection_map's accumulated states before the first run)
    uninitialized_ok: frozenset = frozenset()


class RuleTable(dict):
    """op type -> rule, for one kind of rule. A plain dict to read (`get`, `in`, iteration stay dict-fast); written
    only through `register`, which remembers where each rule came from and refuses a second one for a type."""

    def __init__(self, what: str):
        super().__init__()
        self.what = what                      # 'op', 'shape rule', ...: how errors name this table
        self.sites: dict[str, tuple] = {}     # type -> (file, line) of the registration
        self.defaults: set[str] = set()       # types whose rule is a default an explicit rule may replace

    def register(self, type: str, rule, site: tuple, default: bool = False) -> None:
        if type in self:
            if default:
                return                        # an explicit rule came first: it stays
            if type not in self.defaults:
                raise ValueError("%s of op type '%s' registered twice: first at %s, again at %s"
                                 % (self.what, type, _format_site(self.sites[type]), _format_site(site)))
            self.defaults.discard(type)       # an explicit rule replaces defop's default
        elif default:
            self.defaults.add(type)
        dict.__setitem__(self, type, rule)
        self.sites[type] = site

    def __setitem__(self, type, rule):
        raise TypeError("the %s table is filled by defop and the rule decorators (RuleTable.register), not by "
                        "assignment (op type '%s')" % (self.what, type))

    def setdefault(self, type, rule=None):
        raise TypeError("the %s table is filled by defop and the rule decorators (RuleTable.register), not by "
                        "setdefault (op type '%s')" % (self.what, type))

    def update(self, *args, **kwargs):
        raise TypeError('the %s table is filled by defop and the rule decorators (RuleTable.register), not by '
                        'update' % self.what)

    def forget(self, type: str) -> None:
        """Removes `type`'s rule and what is known about it (for tests that register throwaway ops)."""
        self.pop(type, None)
        self.sites.pop(type, None)
        self.defaults.discard(type)


OPS: RuleTable = RuleTable('op')               # type -> OpInfo
SHAPE_RULES: RuleTable = RuleTable('shape rule')
KERNEL_RULES: RuleTable = RuleTable('kernel rule')
GRAD_RULES: RuleTable = RuleTable('grad rule')
SEGMENT_RULES: RuleTable = RuleTable('segment rule')
LOD_RULES: RuleTable = RuleTable('LoD rule')


def _caller_site(depth: int = 2) -> tuple:
    """(file, line) of the code that called the registering function."""
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, frame.f_lineno


def _format_site(site: tuple) -> str:
    filename, line = site
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if filename.startswith(package_root + os.sep):
        filename = os.path.relpath(filename, package_root)
    return '%s:%d' % (filename, line)


@dataclass
class GradSpec:
    """Which forward slots the grad op reads and which input gradients it writes.

    Names are forward slot names (`X`, `Out`) and their gradient slots (`Out@GRAD`, `X@GRAD`)."""
    inputs: tuple
    outputs: tuple
    attrs: dict | None = None     # extra attributes for the grad op (forward attributes are always copied)


def defop(type: str, inputs=(), outputs=(), attrs=None, duplicable=(), dispensable=(), grad: GradSpec | None = None,
          stateful: bool = False, inplace=None, uninitialized_ok=()) -> OpInfo:
    """Registers the schema of op `type`; with `grad`, also the schema of `<type>_grad` and the default grad maker
    and grad shape rule (which an explicit `@grad_rule(type)` / `@shape_rule(type + '_grad')` may replace)."""
    site = _caller_site()
    info = OpInfo(type, tuple(inputs), tuple(outputs), dict(attrs or {}), frozenset(duplicable),
                  frozenset(dispensable), stateful, dict(inplace or {}), frozenset(uninitialized_ok))
    OPS.register(type, info, site)
    if grad is not None:
        gtype = type + '_grad'
        gdup = {s for s in grad.inputs + grad.outputs if s.replace(GRAD_SUFFIX, '') in info.duplicable}
        gdisp = set(grad.outputs) | {s for s in grad.inputs if s.replace(GRAD_SUFFIX, '') in info.dispensable}
        OPS.register(gtype, OpInfo(gtype, tuple(grad.inputs), tuple(grad.outputs),
                                   {**info.attrs, **(grad.attrs or {})}, frozenset(gdup), frozenset(gdisp)), site)
        GRAD_RULES.register(type, _default_grad_maker(gtype, grad), site, default=True)
        SHAPE_RULES.register(gtype, _grad_shape_rule, site, default=True)
    return info


def shape_rule(type: str):
    """Decorator: `fn(ShapeContext)` is the compile-time shape rule of `type`."""
    site = _caller_site()

    def register(fn):
        SHAPE_RULES.register(type, fn, site)
        return fn
    return register


def kernel_rule(*types: str):
    """Decorator: `fn(KernelSpec) -> run` is the kernel factory of each of `types`."""
    site = _caller_site()

    def register(fn):
        for t in types:
            KERNEL_RULES.register(t, fn, site)
        return fn
    return register


def grad_rule(type: str):
    """Decorator: `fn(GradContext) -> [(type, inputs, outputs, attrs)]` is the grad-op maker of `type`."""
    site = _caller_site()

    def register(fn):
        GRAD_RULES.register(type, fn, site)
        return fn
    return register


def segment_rule(*types: str):
    """Decorator: `fn(KernelSpec) -> SegmentOp | None` is how each of `types` runs inside a compiled segment."""
    site = _caller_site()

    def register(fn):
        for t in types:
            SEGMENT_RULES.register(t, fn, site)
        return fn
    return register


def lod_rule(*types: str):
    """Decorator: `fn(LoDContext)` is the LoD rule of each of `types` (see the module docstring)."""
    site = _caller_site()

    def register(fn):
        for t in types:
            LOD_RULES.register(t, fn, site)
        return fn
    return register


def get(type: str) -> OpInfo:
    info = OPS.get(type)
    if info is None:
        raise ValueError("Operator '%s' has not been registered in paddle_exec" % type)
    return info


# --- filling in an op at build time -------------------------------------------------------------------------------

def complete_op(op) -> None:
    """Checks the op's slots against its schema and fills in default attributes."""
    info = get(op.type)
    for slot in op.inputs:
        if slot not in info.inputs:
            raise ValueError("operator '%s' has no input slot %r (it has %s)" % (op.type, slot, list(info.inputs)))
    for slot in op.outputs:
        if slot not in info.outputs:
            raise ValueError("operator '%s' has no output slot %r (it has %s)"
                             % (op.type, slot, list(info.outputs)))
    for name, default in info.attrs.items():
        if name not in op.attrs:
            op.attrs[name] = list(default) if isinstance(default, list) else default


class ShapeContext:
    """What a shape rule sees: the op's input variables and attributes; it sets output shapes and dtypes."""

    def __init__(self, op):
        self.op = op
        self.block = op.block

    def attr(self, name: str):
        return self.op.attrs[name]

    def has_input(self, slot: str) -> bool:
        return bool(self.op.inputs.get(slot))

    def has_output(self, slot: str) -> bool:
        return bool(self.op.outputs.get(slot))

    def input_var(self, slot: str, i: int = 0):
        names = self.op.inputs.get(slot) or []
        return self.block._find_var_recursive(names[i]) if i < len(names) else None

    def input_vars(self, slot: str) -> list:
        return [self.block._find_var_recursive(n) for n in self.op.inputs.get(slot) or []]

    def in_shape(self, slot: str, i: int = 0) -> tuple:
        v = self.input_var(slot, i)
        if v is None:
            raise ValueError("operator '%s' needs input %s" % (self.op.type, slot))
        return tuple(v.shape)

    def in_dtype(self, slot: str, i: int = 0):
        v = self.input_var(slot, i)
        if v is None:
            raise ValueError("operator '%s' needs input %s" % (self.op.type, slot))
        return v.dtype

    def set_output(self, slot: str, shape, dtype=None, i: int | None = None, lod_level: int | None = None,
                   type=None) -> None:
        names = self.op.outputs.get(slot) or []
        for k, name in enumerate(names):
            if i is not None and k != i:
                continue
            if name == EMPTY_VAR_NAME:
                continue
            v = self.block._find_var_recursive(name)
            if v is None:
                v = self.block.create_var(name=name)
            if shape is not None:
                v.shape = shape
            if dtype is not None:
                v.dtype = dtype
            if lod_level is not None:
                v.lod_level = lod_level
            if type is not None:
                v.type = type


def infer_shape(op) -> None:
    """The op's shape rule, then its LoD rule at compile time (outputs' `lod_level`)."""
    rule = SHAPE_RULES.get(op.type)
    if rule is not None:
        rule(ShapeContext(op))
    apply_compile_time_lod(op)


# --- LoD rules ----------------------------------------------------------------------------------------------------

class LoDContext:
    """What a LoD rule sees: the op (attributes, compile-time variables) and how many LoD levels each input
    carries (`levels`); what it declares is collected in `actions` (see the module docstring):

        ('share', src_name, dst_name, rows_checked)
        ('read', slot)                     ('compute', slot, levels)
        ('derive', dst_slot, fn, src_slots, levels)
    """

    def __init__(self, op, levels_of, sub_block_levels=None):
        self.op = op
        self.attrs = op.attrs
        self._levels_of = levels_of
        self._sub_block_levels = sub_block_levels
        self.actions: list[tuple] = []

    @property
    def compile_time(self) -> bool:
        """True when the rule runs at build time (infer_shape), False when a plan is made."""
        return self._sub_block_levels is None

    def name_levels(self, name: str) -> int:
        """LoD levels the variable `name` carries (0: none)."""
        return self._levels_of(name) if name != EMPTY_VAR_NAME else 0

    def sub_block_levels(self, block, feed_names, feed_levels: dict, fetch_names) -> dict:
        """name -> LoD levels of `fetch_names` after `block` runs once fed `feed_names`, of which those in
        `feed_levels` carry LoD (plan time only: {} at build time). What a control-flow op's rule asks."""
        if self._sub_block_levels is None:
            return {}
        return self._sub_block_levels(block, list(feed_names), dict(feed_levels), list(fetch_names))

    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def input_names(self, slot: str) -> list[str]:
        return [n for n in self.op.inputs.get(slot) or [] if n != EMPTY_VAR_NAME]

    def output_names(self, slot: str) -> list[str]:
        return [n for n in self.op.outputs.get(slot) or [] if n != EMPTY_VAR_NAME]

    def has_input(self, slot: str) -> bool:
        return bool(self.input_names(slot))

    def has_output(self, slot: str) -> bool:
        return bool(self.output_names(slot))

    def levels(self, slot: str, i: int = 0) -> int:
        """LoD levels of the i-th variable of input slot `slot` (0 when absent or without LoD)."""
        names = self.op.inputs.get(slot) or []
        if i >= len(names) or names[i] == EMPTY_VAR_NAME:
            return 0
        return self._levels_of(names[i])

    def var(self, name: str):
        """The compile-time Variable called `name` (None if the block has none)."""
        return self.op.block._find_var_recursive(name)

    def share(self, src: str, dst: str, i: int = 0) -> None:
        """Every variable of output slot `dst` gets the LoD of the i-th variable of input slot `src`."""
        self._share(src, dst, i, False)

    def share_if_rows_kept(self, src: str, dst: str, i: int = 0) -> None:
        """share(), but at run time only when the output has as many rows as the input."""
        self._share(src, dst, i, True)

    def _share(self, src: str, dst: str, i: int, checked: bool) -> None:
        names = self.op.inputs.get(src) or []
        if i >= len(names) or names[i] == EMPTY_VAR_NAME:
            return
        for out in self.output_names(dst):
            self.actions.append(('share', names[i], out, checked))

    def read(self, slot: str) -> None:
        self.actions.append(('read', slot))

    def compute(self, slot: str, levels) -> None:
        """`levels`: an int, or for a duplicable slot one int per variable."""
        levels = [int(n) for n in levels] if isinstance(levels, (list, tuple)) else int(levels)
        self.actions.append(('compute', slot, levels))

    def derive(self, dst: str, fn, srcs, levels: int) -> None:
        self.actions.append(('derive', dst, fn, tuple(srcs), int(levels)))


def rows_kept(op, src: str, dst: str) -> bool:
    """Whether compile-time shapes say variable `dst` has as many rows as `src` (equal first dimensions, -1 with
    -1): the condition under which the default rule shares LoD."""
    block = op.block
    a, b = block._find_var_recursive(src), block._find_var_recursive(dst)
    if a is None or b is None or not a.has_shape() or not b.has_shape() or not a.shape or not b.shape:
        return False
    return a.shape[0] == b.shape[0]


def default_lod_rule(ctx: LoDContext) -> None:
    """Paddle's common ShareLoD (see the module docstring)."""
    op = ctx.op
    if op.type.endswith('_grad'):
        for slot in op.outputs:
            if slot.endswith(GRAD_SUFFIX):
                fwd = slot[:-len(GRAD_SUFFIX)]
                for k, (src, dst) in enumerate(zip(op.inputs.get(fwd) or [], op.outputs[slot])):
                    if src != EMPTY_VAR_NAME and dst != EMPTY_VAR_NAME:
                        ctx.actions.append(('share', src, dst, False))
        return
    xs, outs = ctx.input_names('X'), ctx.output_names('Out')
    if xs and len(outs) == 1 and rows_kept(op, xs[0], outs[0]):
        ctx.share_if_rows_kept('X', 'Out')


def lod_rule_of(type: str):
    return LOD_RULES.get(type, default_lod_rule)


def apply_compile_time_lod(op) -> None:
    """Runs the op's LoD rule on compile-time `lod_level`s and sets its outputs' `lod_level` (Paddle's
    compile-time ShareLoD / SetLoDLevel). Outputs the rule says nothing about keep theirs."""
    block = op.block

    def levels_of(name):
        v = block._find_var_recursive(name)
        return int(v.lod_level or 0) if v is not None else 0

    ctx = LoDContext(op, levels_of)
    lod_rule_of(op.type)(ctx)
    for action in ctx.actions:
        kind = action[0]
        if kind == 'share':
            targets, level = [action[2]], levels_of(action[1])
        elif kind == 'compute':
            targets, level = ctx.output_names(action[1]), action[2]
        elif kind == 'derive':
            targets, level = ctx.output_names(action[1]), action[4]
        else:
            continue
        levels = level if isinstance(level, list) else [level] * len(targets)
        for name, n in zip(targets, levels):
            v = block._find_var_recursive(name)
            if v is not None:
                v.lod_level = n


def _grad_shape_rule(ctx: ShapeContext) -> None:
    """A grad op's `X@GRAD` outputs take the shape and dtype of the forward variable `X`."""
    for slot, names in ctx.op.outputs.items():
        if not slot.endswith(GRAD_SUFFIX):
            continue
        for k, name in enumerate(names):
            fwd_name = name.split(GRAD_SUFFIX)[0]
            fwd = ctx.block._find_var_recursive(fwd_name)
            if fwd is not None and name != EMPTY_VAR_NAME:
                ctx.set_output(slot, fwd.shape if fwd.has_shape() else None, fwd.dtype, i=k)


# --- kernels --------------------------------------------------------------------------------------------------

class KernelSpec:
    """What a kernel factory sees when a plan is built: the op, its attributes, which slots are wired, and the
    compile context (see the module docstring)."""

    def __init__(self, op, info: OpInfo, context=None, lod=None):
        self.op = op
        self.info = info
        self.attrs = op.attrs
        self.type = op.type
        self.context = context
        self.lod = lod            # the op's run-time LoD facts (executor/passes/lod.py OpLoD), None without LoD

    def lod_levels(self, slot: str, i: int = 0) -> int:
        """How many LoD levels the i-th variable of input or output slot `slot` carries at run time in this plan
        (0: none)."""
        if self.lod is None:
            return 0
        if slot in self.op.inputs:
            names, levels = self.op.inputs[slot], self.lod.levels
        else:
            names, levels = self.op.outputs.get(slot) or [], self.lod.out_levels
        return levels.get(names[i], 0) if i < len(names) else 0

    def compile_block(self, block, feed_names, fetch_names, feed_lod=()):
        """`block` compiled into a plan of its own (nodes, slot_of, fetch_slots, scope_inputs, run_in_order);
        `feed_lod` gives (name, levels) for the fed names that carry LoD (the plan's `places[0].lod` then says
        where their LoDs go and where fetched LoDs are)."""
        if self.context is None:
            raise RuntimeError("operator '%s' runs a sub-block, which needs the executor's compile context: run "
                               "it through an Executor" % self.type)
        return self.context.compile_block(block, feed_names, fetch_names, tuple(feed_lod))

    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def has_input(self, slot: str) -> bool:
        return any(n != EMPTY_VAR_NAME for n in self.op.inputs.get(slot) or [])

    def has_output(self, slot: str) -> bool:
        return any(n != EMPTY_VAR_NAME for n in self.op.outputs.get(slot) or [])

    def output_var(self, slot: str, i: int = 0):
        names = self.op.outputs.get(slot) or []
        return self.op.block._find_var_recursive(names[i]) if i < len(names) else None

    def input_var(self, slot: str, i: int = 0):
        names = self.op.inputs.get(slot) or []
        return self.op.block._find_var_recursive(names[i]) if i < len(names) else None


def make_kernel(op, context=None, lod=None):
    """The per-step function for `op` (see KERNEL_RULES); `context` is the executor's compile context, `lod` the
    op's run-time LoD facts in this plan (None when it handles no LoD).

    When the context defers kernels (`context.defers(op)`: segments are compiled and the op has a segment rule) and
    the op handles no LoD, the factory runs at the kernel's first call instead (DeferredKernel): an op that ends up
    inside a compiled segment never needs its own kernel, and some factories compile numba code when they run."""
    info = get(op.type)
    factory = KERNEL_RULES.get(op.type)
    if factory is None:
        raise NotImplementedError("operator '%s' has no kernel in paddle_exec" % op.type)
    spec = KernelSpec(op, info, context, lod)
    if lod is None and context is not None and context.defers(op):
        return DeferredKernel(factory, spec)
    return factory(spec)


class DeferredKernel:
    """A kernel whose factory runs at its first call (see make_kernel); `spec` is what the factory will see."""

    __slots__ = ('factory', 'spec', '_kernel')

    def __init__(self, factory, spec: KernelSpec):
        self.factory = factory
        self.spec = spec
        self._kernel = None

    def materialize(self):
        """The real kernel, made now if it was not yet (two threads making it at once both get a valid one)."""
        kernel = self._kernel
        if kernel is None:
            kernel = self._kernel = self.factory(self.spec)
        return kernel

    def __call__(self, *inputs):
        return (self._kernel or self.materialize())(*inputs)


@dataclass
class SegmentOp:
    """How one op runs inside a compiled segment (what a SEGMENT_RULES entry returns).

    kernel     a numba function (module-level, compiled with kernels/jit.py) called by the generated code as
               `kernel(*inputs, *args)`; it returns the outputs: the value itself when `outputs` has one entry, a
               tuple otherwise
    inputs     the op's input slots passed, in order (a duplicable slot is passed as a tuple of arrays)
    outputs    the op's output slots the kernel returns, in order (None: a returned value nobody wants)
    args       constant arguments after the inputs: Python ints, floats, bools, tuples of them, numpy scalar types
               (attributes, read once per plan)
    reference  a numpy function with the kernel's signature and results: the segment's first tier, run while the
               segment compiles; it must call no numba code
    inplace    output slot -> input slot the kernel writes into and returns (optimizer updates)
    fusion     what the code generator may fuse (BuildStrategy.fuse_elewise_add_act_ops): ('add', axis),
               ('add_grad', axis, want_x, want_y), ('act', opcode, a, b, c), ('act_grad', opcode, a, b, c, dep);
               and always (fuse_all_optimizer_ops' pair): ('coalesce',) a gradient buffer made from its parts,
               ('grad_parts', grad position, kernel, reference) an update whose variant takes the gradient as the
               tuple of its parts
    reuse      (kernel, input position): a variant writing its output into that input, used when the input is a
               buffer of the segment's own that dies there (memory reuse)
    views      the outputs may be views of the inputs (reshape): no memory reuse writes into either
    """
    kernel: object
    inputs: tuple
    outputs: tuple
    args: tuple = ()
    reference: object = None
    inplace: dict = field(default_factory=dict)
    fusion: tuple | None = None
    reuse: tuple | None = None
    views: bool = False


# --- gradients ------------------------------------------------------------------------------------------------

class GradContext:
    """What a grad maker sees: the forward op, and `grad_name` mapping a forward var to its gradient var."""

    def __init__(self, op, no_grad_names: set, sub_block_backward=None):
        self.op = op
        self.attrs = {k: v for k, v in op.attrs.items()
                      if k not in ('op_role', 'op_role_var', 'op_namescope', 'op_callstack')}
        self.no_grad_names = no_grad_names
        self._sub_block_backward = sub_block_backward

    def sub_block_backward(self, block, target_names, no_grad_names):
        """The grad block of a sub-block (backward.append_sub_block_backward, handed in by backward.py)."""
        if self._sub_block_backward is None:
            raise RuntimeError("operator '%s' differentiates a sub-block, which needs append_backward"
                               % self.op.type)
        return self._sub_block_backward(block, target_names, no_grad_names)

    def input(self, slot: str) -> list[str]:
        return self.op.input(slot)

    def output(self, slot: str) -> list[str]:
        return self.op.output(slot)

    def input_grad(self, slot: str) -> list[str]:
        """`X@GRAD` names for the forward input slot, EMPTY where no gradient is wanted."""
        return [EMPTY_VAR_NAME if n in self.no_grad_names else n + GRAD_SUFFIX for n in self.op.input(slot)]

    def output_grad(self, slot: str) -> list[str]:
        return [n + GRAD_SUFFIX for n in self.op.output(slot)]


def _default_grad_maker(gtype: str, spec: GradSpec):
    def maker(g: GradContext):
        inputs, outputs = {}, {}
        for slot in spec.inputs:
            if slot.endswith(GRAD_SUFFIX):
                inputs[slot] = g.output_grad(slot[:-len(GRAD_SUFFIX)])
            elif slot in g.op.inputs:
                inputs[slot] = g.input(slot)
            else:
                inputs[slot] = g.output(slot)
        for slot in spec.outputs:
            outputs[slot] = g.input_grad(slot[:-len(GRAD_SUFFIX)])
        return [(gtype, inputs, outputs, dict(g.attrs))]
    return maker
