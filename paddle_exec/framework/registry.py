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

What the layers above hand in, so that nothing here imports them: a kernel factory that runs a sub-block
(control flow) gets it compiled through `spec.compile_block(block, feed_names, fetch_names)`, which the executor's
compile step provides as the spec's `context`; a grad maker that differentiates a sub-block calls
`g.sub_block_backward(block, target_names, no_grad_names)`, which backward.py provides.

Adding an op is one module edit in `paddle_exec/ops/<family>.py`: `defop(...)` plus its rules. The executor
never changes. `defop(..., grad=GradSpec)` also defines the `<type>_grad` op's schema and a default grad maker
that wires forward inputs/outputs and their `@GRAD` names the way Paddle's DefaultGradOpMaker does.
"""
from __future__ import annotations

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


OPS: dict[str, OpInfo] = {}
SHAPE_RULES: dict = {}
KERNEL_RULES: dict = {}
GRAD_RULES: dict = {}


@dataclass
class GradSpec:
    """Which forward slots the grad op reads and which input gradients it writes.

    Names are forward slot names (`X`, `Out`) and their gradient slots (`Out@GRAD`, `X@GRAD`)."""
    inputs: tuple
    outputs: tuple
    attrs: dict | None = None     # extra attributes for the grad op (forward attributes are always copied)


def defop(type: str, inputs=(), outputs=(), attrs=None, duplicable=(), dispensable=(), grad: GradSpec | None = None,
          stateful: bool = False, inplace=None) -> OpInfo:
    info = OpInfo(type, tuple(inputs), tuple(outputs), dict(attrs or {}), frozenset(duplicable),
                  frozenset(dispensable), stateful, dict(inplace or {}))
    OPS[type] = info
    if grad is not None:
        gtype = type + '_grad'
        gdup = {s for s in grad.inputs + grad.outputs if s.replace(GRAD_SUFFIX, '') in info.duplicable}
        gdisp = set(grad.outputs) | {s for s in grad.inputs if s.replace(GRAD_SUFFIX, '') in info.dispensable}
        OPS[gtype] = OpInfo(gtype, tuple(grad.inputs), tuple(grad.outputs), {**info.attrs, **(grad.attrs or {})},
                            frozenset(gdup), frozenset(gdisp))
        GRAD_RULES.setdefault(type, _default_grad_maker(gtype, grad))
        SHAPE_RULES.setdefault(gtype, _grad_shape_rule)
    return info


def shape_rule(type: str):
    def register(fn):
        SHAPE_RULES[type] = fn
        return fn
    return register


def kernel_rule(*types: str):
    def register(fn):
        for t in types:
            KERNEL_RULES[t] = fn
        return fn
    return register


def grad_rule(type: str):
    def register(fn):
        GRAD_RULES[type] = fn
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
    rule = SHAPE_RULES.get(op.type)
    if rule is not None:
        rule(ShapeContext(op))


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

    def __init__(self, op, info: OpInfo, context=None):
        self.op = op
        self.info = info
        self.attrs = op.attrs
        self.type = op.type
        self.context = context

    def compile_block(self, block, feed_names, fetch_names):
        """`block` compiled into a plan of its own (nodes, slot_of, fetch_slots, scope_inputs, run_in_order)."""
        if self.context is None:
            raise RuntimeError("operator '%s' runs a sub-block, which needs the executor's compile context: run "
                               "it through an Executor" % self.type)
        return self.context.compile_block(block, feed_names, fetch_names)

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


def make_kernel(op, context=None):
    """The per-step function for `op` (see KERNEL_RULES); `context` is the executor's compile context."""
    info = get(op.type)
    factory = KERNEL_RULES.get(op.type)
    if factory is None:
        raise NotImplementedError("operator '%s' has no kernel in paddle_exec" % op.type)
    return factory(KernelSpec(op, info, context))


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
