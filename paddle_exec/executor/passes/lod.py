"""The LoD pass: which values of a plan carry LoD at run time, and what each op does with it.

    lod = analyse_lod(block, ops, feed_names, fetch_names, feed_lod=(('words', 1),))
    lod.levels            name -> LoD levels it carries (only names that carry some)
    lod.ops[j]            OpLoD of op j, or None when op j neither reads nor writes LoD
    lod.companion(name)   the name of the slot holding `name`'s LoD: 'words@LOD'

Values stay plain ndarrays in their slots; a variable that carries LoD gets a *companion* pseudo-variable,
`<name>@LOD`, whose slot holds its LoD (framework/lod.py: a tuple of read-only int64 offset arrays, () for none).
BlockAnalysis (plan.py) treats companions as ordinary names: they get slots, take part in the read/write order
and are freed after their last reader, and each place of a data-parallel plan has its own.

Which names carry LoD is decided here, once per plan, from
  - the fed names that carry LoD (`feed_lod`, part of the plan's cache key: a program fed with and without LoD
    gets two plans),
  - values read from the scope (read before any op writes them, not fed) whose compile-time `lod_level` > 0,
    and fetched names only the scope holds (their LoD is whatever the scope's tensor has),
  - the ops, in program order: each op's LoD rule (framework/registry.py LOD_RULES) runs on the levels its inputs
    carry at that point and declares shares, reads, computes and derives (see the registry's docstring).
A plan in which nothing carries LoD has no companion and no OpLoD: it runs exactly as without this pass.

What a step does for an op with an OpLoD (plan.py `make_step`):
    copies    (src, dst) companion slots: dst = src, before the kernel runs
    derives   (fn, src spec, dst): dst = fn(LoDs...), before the kernel runs
    checked   (x slot, out slot, src, dst): after the kernel, dst = src if Out has as many rows as X, else ()
    clears    companion slots of outputs this op writes without LoD (another op gives the name LoD): ()
and the kernel's extra inputs (reads) and outputs (computes) are slots of its in_spec / out_spec.
`OpLoD.levels` (name -> levels, for the op's inputs and outputs) is what the kernel factory sees as
`spec.lod_levels(slot)`.

Control-flow ops see their sub-block through their LoD rule like any op: the rule reads the LoD of the values the
sub-block gets and computes that of the values it gives back; the kernel compiles the sub-block with
`spec.compile_block(..., feed_lod=...)`, which runs this pass on the sub-block.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...framework import registry
from ...framework.lod import LOD_SUFFIX, companion
from ...framework.variable import EMPTY_VAR_NAME

__all__ = ['LOD_SUFFIX', 'companion', 'OpLoD', 'LoDAnalysis', 'analyse_lod', 'sub_block_lod_levels']

@dataclass
class OpLoD:
    """The run-time LoD facts of one op in one plan (see the module docstring)."""
    levels: dict = field(default_factory=dict)     # input name -> levels, for the inputs that carry LoD
    out_levels: dict = field(default_factory=dict)  # output name -> levels, for the outputs the op gives LoD
    reads: list = field(default_factory=list)      # per read: companion name, tuple of them (duplicable), or None
    computes: list = field(default_factory=list)   # per compute: the same, for outputs
    copies: list = field(default_factory=list)     # (src companion, dst companion)
    checked: list = field(default_factory=list)    # (x name, out name, src companion, dst companion)
    derives: list = field(default_factory=list)    # (fn, tuple of src companion specs, dst companion)
    clears: list = field(default_factory=list)     # dst companions

    def read_names(self) -> list[str]:
        """Companion names the step reads (for the dependency and free analysis)."""
        names = [n for spec in self.reads for n in _flat(spec)]
        names += [src for src, _ in self.copies] + [c[2] for c in self.checked]
        names += [c[0] for c in self.checked]
        names += [n for _, srcs, _ in self.derives for spec in srcs for n in _flat(spec)]
        return names

    def write_names(self) -> list[str]:
        names = [n for spec in self.computes for n in _flat(spec)]
        names += [dst for _, dst in self.copies] + [c[3] for c in self.checked]
        names += [dst for _, _, dst in self.derives] + list(self.clears)
        return names

    @property
    def steps_anything(self) -> bool:
        """Whether the step must do LoD work besides the kernel's extra inputs and outputs."""
        return bool(self.copies or self.checked or self.derives or self.clears)


def _flat(spec) -> list:
    if spec is None:
        return []
    if type(spec) is tuple:
        return [n for n in spec if n is not None]
    return [spec]


@dataclass
class LoDAnalysis:
    levels: dict          # name -> levels, every name that carries LoD somewhere in the plan
    ops: list             # OpLoD or None per op
    feed_levels: dict     # fed name -> levels
    scope_levels: dict    # scope-read name -> levels (compile-time lod_level, at least 1 for a fetched one)
    final: dict           # name -> levels after the last op, for the names that carry LoD then

    @property
    def any(self) -> bool:
        return bool(self.levels)

    @staticmethod
    def companion(name: str) -> str:
        return companion(name)


def _var_lod_level(block, name: str) -> int:
    v = block._find_var_recursive(name)
    return int(v.lod_level or 0) if v is not None else 0


def analyse_lod(block, ops, feed_names, fetch_names, feed_lod=()) -> LoDAnalysis:
    """See the module docstring. `feed_lod` is a sequence of (fed name, levels)."""
    feed_levels = {name: int(n) for name, n in feed_lod if n}
    fed = set(feed_names)
    current: dict[str, int] = dict(feed_levels)
    written: set[str] = set()
    scope_levels: dict[str, int] = {}
    per_op: list = []
    for op in ops:
        for name in op.input_arg_names:
            if name == EMPTY_VAR_NAME or name in written or name in fed or name in scope_levels:
                continue
            n = _var_lod_level(block, name)
            if n > 0:
                scope_levels[name] = n
                current[name] = n
        per_op.append(_op_lod(op, current))
        written.update(op.output_arg_names)
    final = {n: v for n, v in current.items() if v > 0}
    for name in fetch_names:
        if name not in written and name not in fed and name not in scope_levels:
            scope_levels[name] = max(_var_lod_level(block, name), 1)     # read the scope's LoD, whatever it is
    carriers = dict(scope_levels)
    carriers.update(feed_levels)
    for op_lod in per_op:
        if op_lod is not None:
            for name, n in op_lod.out_levels.items():
                carriers[name] = max(carriers.get(name, 0), n)
    # outputs written without LoD by one op while another gives the name LoD: that op clears the companion
    result = []
    for op, op_lod in zip(ops, per_op):
        given = op_lod.out_levels if op_lod is not None else {}
        clears = [companion(n) for n in op.output_arg_names
                  if n != EMPTY_VAR_NAME and n in carriers and n not in given]
        if clears:
            if op_lod is None:
                op_lod = _PendingOpLoD()
            op_lod.clears.extend(dict.fromkeys(clears))
        result.append(op_lod.finish() if op_lod is not None else None)
    return LoDAnalysis(carriers, result, feed_levels, scope_levels, final)


class _PendingOpLoD(OpLoD):
    """An OpLoD being filled in."""

    def finish(self) -> OpLoD | None:
        if not (self.reads or self.computes or self.copies or self.checked or self.derives or self.clears):
            return None
        return OpLoD(self.levels, self.out_levels, self.reads, self.computes, self.copies, self.checked,
                     self.derives, self.clears)


def _slot_spec(op, slot: str, schema_duplicable: bool, levels: dict, inputs: bool):
    names = (op.inputs if inputs else op.outputs).get(slot) or []
    if schema_duplicable:
        return tuple(companion(n) if n != EMPTY_VAR_NAME and levels.get(n, 0) > 0 else None for n in names)
    if not names or names[0] == EMPTY_VAR_NAME or levels.get(names[0], 0) <= 0:
        return None
    return companion(names[0])


def _op_lod(op, current: dict) -> _PendingOpLoD | None:
    """Runs the op's LoD rule on the run-time levels in `current` and updates `current` with its outputs."""
    rule = registry.lod_rule_of(op.type)
    ctx = registry.LoDContext(op, lambda name: current.get(name, 0), _sub_block_levels)
    rule(ctx)
    if not ctx.actions:
        for name in op.output_arg_names:
            current.pop(name, None)
        return None
    info = registry.OPS.get(op.type)
    duplicable = info.duplicable if info is not None else frozenset()
    pending = _PendingOpLoD()
    for name in op.input_arg_names:
        if current.get(name, 0) > 0:
            pending.levels[name] = current[name]
    out_levels: dict[str, int] = {}
    for action in ctx.actions:
        kind = action[0]
        if kind == 'share':
            _, src, dst, checked = action
            n = current.get(src, 0)
            if n <= 0:
                continue
            out_levels[dst] = n
            if checked:
                pending.checked.append((src, dst, companion(src), companion(dst)))
            elif src != dst:
                pending.copies.append((companion(src), companion(dst)))
        elif kind == 'read':
            pending.reads.append(_slot_spec(op, action[1], action[1] in duplicable, current, True))
        elif kind == 'compute':
            _, slot, n = action
            names = op.outputs.get(slot) or []
            per_name = n if isinstance(n, list) else [n] * len(names)
            wanted = {x: k for x, k in zip(names, per_name) if x != EMPTY_VAR_NAME and k > 0}
            out_levels.update(wanted)
            pending.computes.append(_slot_spec(op, slot, slot in duplicable, wanted, False))
        elif kind == 'derive':
            _, slot, fn, srcs, n = action
            if n <= 0:
                continue
            src_specs = tuple(_slot_spec(op, s, s in duplicable, current, True) for s in srcs)
            for x in op.outputs.get(slot) or []:
                if x != EMPTY_VAR_NAME:
                    out_levels[x] = n
                    pending.derives.append((fn, src_specs, companion(x)))
    for name in op.output_arg_names:
        if name in out_levels:
            current[name] = out_levels[name]
        else:
            current.pop(name, None)
    pending.out_levels = out_levels
    return pending


def _sub_block_levels(block, feed_names: list, feed_levels: dict, fetch_names: list) -> dict:
    return sub_block_lod_levels(block, feed_names, tuple(feed_levels.items()), fetch_names)


def sub_block_lod_levels(block, feed_names, feed_lod, fetch_names) -> dict:
    """name -> LoD levels of the fetched names after one run of `block` fed with `feed_lod` (what a control-flow
    op's LoD rule asks of its sub-block)."""
    final = analyse_lod(block, block.ops, feed_names, fetch_names, feed_lod).final
    return {n: final[n] for n in fetch_names if final.get(n, 0) > 0}
