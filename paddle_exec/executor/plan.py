"""Program -> ExecutionPlan: everything a run needs, analysed once.

    plan = build_plan(block, feed_names, fetch_names, context)
    values = plan.new_values()          # one list slot per variable
    ...bind feeds and scope values per place, then a policy runs plan.nodes...

An ExecutionPlan holds
    slot_of        variable name -> integer slot in the per-run `values` list (place 0's; place p adds
                   p * slots_per_place)
    nodes          one PlanNode per op (per place), a topological order of the DAG:
                     step(values)  reads its input slots, calls the kernel, writes its output slots and clears
                                   the slots whose last use it is (`free`)
                     successors    nodes that wait for this one;  n_deps  how many nodes this one waits for
    places         one PlaceBinding per place:
                     feed_slots     fed name -> slot
                     scope_inputs   (slot, name, consumer op) read from the scope at the start of a run: persistables
                                    and any value no earlier op produces and nobody feeds
                     scope_outputs  (slot, name) persistables written back to the scope at the end of a run
                     fetch_slots    one slot per fetched name
                     lod            None, or where LoD goes (LoDBinding): the companion slots of LoD feeds,
                                    fetches, scope inputs and persistable outputs
    stage          the producer side of a staged program (passes/stage.py), or None
    analysis       the BlockAnalysis it was built from

LoD (passes/lod.py): a variable that carries LoD at run time gets a companion pseudo-variable `<name>@LOD` whose
slot holds its LoD; the analysis treats companions as names like any other (slots, read/write order, frees). An op
that passes LoD on gets a `LoDStep` (slot copies, derived LoDs, run-time checked shares, clears) that its node's
step runs around the kernel; an op whose kernel reads or computes LoD has the companion slots in its in_spec /
out_spec after its schema slots. A plan where nothing carries LoD has no companion, no LoDStep and `lod` None in
every PlaceBinding: its steps are the same closures as without LoD.

Dependencies follow the program order of reads and writes (read-after-write, write-after-read, write-after-write),
so in-place updates such as an optimizer's ParamOut = Param wait for every reader of the parameter. A slot is
cleared after its last reader only when every other reader is an ancestor of that reader in the DAG, so a parallel
policy can never clear a value that an unfinished op still needs; other values simply die with the run.

A plan is the same for every policy: the sequential order is `nodes` itself, the parallel policies use
`successors`/`n_deps`. Data parallelism (passes/data_parallel.py) builds one plan over several places from the
per-place analysis `BlockAnalysis`. Kernels are made with a `context` (compile.py's KernelContext) through which
control-flow ops compile their sub-blocks into plans of their own; `run_in_order` runs such a plan.
"""
from __future__ import annotations

from operator import itemgetter

from ..framework import registry
from ..framework.lod import NO_LOD
from ..framework.variable import EMPTY_VAR_NAME
from .passes.lod import analyse_lod, companion
from .policies.base import run_in_order


class LoDStep:
    """What a node's step does with LoD besides its kernel's extra inputs and outputs (passes/lod.py), in slots:
    `copies` (src, dst) and `derives` (fn, src specs, dst) before the kernel; `checked` (x, out, src, dst) shares
    made after it when out has as many rows as x; `clears` companion slots set to no LoD after it."""
    __slots__ = ('copies', 'derives', 'checked', 'clears')

    def __init__(self, copies=(), derives=(), checked=(), clears=()):
        self.copies = tuple(copies)
        self.derives = tuple(derives)
        self.checked = tuple(checked)
        self.clears = tuple(clears)

    def shifted(self, offset: int) -> LoDStep:
        def sh(spec):
            if spec is None:
                return None
            if type(spec) is tuple:
                return tuple(None if s is None else s + offset for s in spec)
            return spec + offset
        return LoDStep([(a + offset, b + offset) for a, b in self.copies],
                       [(fn, tuple(sh(s) for s in srcs), d + offset) for fn, srcs, d in self.derives],
                       [tuple(x + offset for x in c) for c in self.checked],
                       [c + offset for c in self.clears])


class PlanNode:
    __slots__ = ('index', 'op', 'step', 'successors', 'n_deps', 'place', 'label', 'kernel', 'in_spec', 'out_spec',
                 'free', 'cost', 'lod')

    def __init__(self, index, op, kernel, in_spec, out_spec, free, place=0, label=None, lod: LoDStep | None = None):
        self.index = index
        self.op = op
        self.kernel = kernel
        self.in_spec = in_spec
        self.out_spec = out_spec
        self.free = free
        self.place = place
        self.label = label or (op.type if op is not None else 'node')
        self.successors: tuple = ()
        self.n_deps = 0
        self.cost = 0.0
        self.lod = lod
        self.step = make_step(kernel, in_spec, out_spec, free)
        if lod is not None:
            self.step = with_lod(self.step, lod)

    def describe(self) -> str:
        if self.op is None:
            return self.label
        where = ' on place %d' % self.place if self.place else ''
        return self.op.describe() + where

    @property
    def op_nodes(self) -> tuple:
        """The op nodes this node runs: itself (a SegmentNode: its member nodes, in order)."""
        return (self,)

    def __repr__(self):
        return 'PlanNode(%d, %s)' % (self.index, self.label)


def spec_slots(spec) -> list:
    """The slots of one entry of a node's in_spec / out_spec: None (an unset slot), one slot, or a tuple of slots
    (a duplicable input or output) whose unset members are None."""
    if spec is None:
        return []
    if type(spec) is tuple:
        return [s for s in spec if s is not None]
    return [spec]


def make_step(kernel, in_spec, out_spec, free):
    """A closure that runs one op on the `values` list. Specialised on the common shapes of slot specs."""
    simple_in = all(type(s) is int for s in in_spec)
    if simple_in and len(in_spec) == 1:
        s0 = in_spec[0]
        gather = lambda values: (values[s0],)
    elif simple_in and in_spec:
        gather = itemgetter(*in_spec)
    elif not in_spec:
        gather = lambda values: ()
    else:
        def gather(values):
            return [values[s] if type(s) is int else
                    (None if s is None else [None if i is None else values[i] for i in s])  # None: @EMPTY@
                    for s in in_spec]
    outs = tuple((k, s) for k, s in enumerate(out_spec) if s is not None)
    free = tuple(free)
    if len(outs) == 1 and type(outs[0][1]) is int and len(free) <= 1:
        # the common op (one output, at most one value dying here): no loops, and for one plain input no gather
        return _one_output_step(kernel, in_spec if simple_in and len(in_spec) == 1 else None, gather, outs[0],
                                free[0] if free else None)

    def step(values):
        res = kernel(*gather(values))
        for k, s in outs:
            if type(s) is int:
                values[s] = res[k]
            else:
                # zip: a kernel may return fewer values than the slot lists, and the rest keep their values
                # (ops/control_flow.py relies on it: a conditional_block whose condition is false returns [])
                for i, v in zip(s, res[k]):
                    if i is not None:           # an @EMPTY@ entry of a list slot: nobody wants that gradient
                        values[i] = v
        for s in free:
            values[s] = None
    return step


def _rows(value) -> int:
    shape = getattr(value, 'shape', None)
    return shape[0] if shape else -1


def _gather_lods(values: list, spec):
    if spec is None:
        return None
    if type(spec) is tuple:
        return [None if s is None else values[s] for s in spec]
    return values[spec]


def with_lod(step, lod: LoDStep):
    """`step` with the LoD work of a LoDStep around it (see LoDStep)."""
    copies, derives, checked, clears = lod.copies, lod.derives, lod.checked, lod.clears

    def lod_step(values):
        for src, dst in copies:
            values[dst] = values[src]
        for fn, srcs, dst in derives:
            values[dst] = fn(*[_gather_lods(values, spec) for spec in srcs])
        pending = [(out, dst, values[src], _rows(values[x])) for x, out, src, dst in checked]
        step(values)
        for out, dst, src_lod, rows in pending:
            values[dst] = src_lod if src_lod and _rows(values[out]) == rows else NO_LOD
        for dst in clears:
            values[dst] = NO_LOD
    return lod_step


def _one_output_step(kernel, single_in, gather, out, free_slot):
    k0, o0 = out
    if single_in is not None:
        s0 = single_in[0]
        if free_slot is None:
            def step(values):
                values[o0] = kernel(values[s0])[k0]
        else:
            def step(values):
                values[o0] = kernel(values[s0])[k0]
                values[free_slot] = None
    elif free_slot is None:
        def step(values):
            values[o0] = kernel(*gather(values))[k0]
    else:
        def step(values):
            values[o0] = kernel(*gather(values))[k0]
            values[free_slot] = None
    return step


class BlockAnalysis:
    """The per-place facts of a Block: slots, per-op slot specs, dependencies, scope bindings, frees.

    `ops` replaces the block's op list (the data-parallel pass inserts collective ops this way); `op_infos` gives
    the schema (registry.OpInfo) of op types that are not in the registry, such as those collectives."""

    def __init__(self, block, feed_names, fetch_names, skip_ops=(), ops=None, op_infos=None, feed_lod=()):
        self.block = block
        self.ops = (list(ops) if ops is not None
                    else [op for i, op in enumerate(block.ops) if i not in skip_ops])
        self.op_infos = op_infos or {}
        self.feed_names = list(feed_names)
        self.fetch_names = list(fetch_names)
        self.lod = analyse_lod(block, self.ops, self.feed_names, self.fetch_names, feed_lod)
        self.op_lods = self.lod.ops
        # what each op reads and writes, its LoD companions included
        self.reads = [op.input_arg_names if ol is None else op.input_arg_names + ol.read_names()
                      for op, ol in zip(self.ops, self.op_lods)]
        self.writes = [op.output_arg_names if ol is None else op.output_arg_names + ol.write_names()
                       for op, ol in zip(self.ops, self.op_lods)]
        self.slot_of: dict[str, int] = {}
        for reads, writes in zip(self.reads, self.writes):
            for name in reads + writes:
                self._slot(name)
        for name in self.feed_names + self.fetch_names:
            self._slot(name)
        levels = self.lod.levels
        self.feed_lod_names = {n: companion(n) for n in self.feed_names if n in self.lod.feed_levels}
        self.fetch_lod_names = [companion(n) if n in levels else None for n in self.fetch_names]
        self.scope_lod_names = {n: companion(n) for n in self.lod.scope_levels}
        for name in list(self.feed_lod_names.values()) + list(self.scope_lod_names.values()) + [
                n for n in self.fetch_lod_names if n is not None]:
            self._slot(name)
        self._analyse()

    def _slot(self, name: str) -> int | None:
        if name == EMPTY_VAR_NAME:
            return None
        s = self.slot_of.get(name)
        if s is None:
            s = self.slot_of[name] = len(self.slot_of)
        return s

    def _spec(self, names_by_slot: dict, schema: tuple, duplicable) -> tuple:
        spec = []
        for slot in schema:
            names = names_by_slot.get(slot)
            if not names:
                spec.append(None)
            elif slot in duplicable:
                spec.append(tuple(self.slot_of.get(n) for n in names))
            else:
                spec.append(self.slot_of.get(names[0]) if names[0] != EMPTY_VAR_NAME else None)
        return tuple(spec)

    def _analyse(self) -> None:
        block = self.block
        fed = set(self.feed_names)
        produced: set[str] = set()
        self.scope_inputs: list[tuple[int, str, object]] = []
        seen_scope_input: set[str] = set()
        self.in_specs, self.out_specs = [], []
        last_writer: dict[str, int] = {}
        readers: dict[str, list[int]] = {}
        self.deps: list[set[int]] = []
        all_readers: dict[str, list[int]] = {}
        fed |= set(self.feed_lod_names.values()) | set(self.scope_lod_names.values())
        for j, op in enumerate(self.ops):
            info = self.op_infos.get(op.type) or registry.get(op.type)
            in_spec = self._spec(op.inputs, info.inputs, info.duplicable)
            out_spec = self._spec(op.outputs, info.outputs, info.duplicable)
            op_lod = self.op_lods[j]
            if op_lod is not None:
                in_spec += tuple(self._lod_spec(spec) for spec in op_lod.reads)
                out_spec += tuple(self._lod_spec(spec) for spec in op_lod.computes)
            self.in_specs.append(in_spec)
            self.out_specs.append(out_spec)
            deps: set[int] = set()
            for name in set(self.reads[j]):
                if name == EMPTY_VAR_NAME:
                    continue
                if name not in produced and name not in fed and name not in seen_scope_input:
                    seen_scope_input.add(name)
                    self.scope_inputs.append((self.slot_of[name], name, op))
                if name in last_writer:
                    deps.add(last_writer[name])
                readers.setdefault(name, []).append(j)
                all_readers.setdefault(name, []).append(j)
            for name in set(self.writes[j]):
                if name == EMPTY_VAR_NAME:
                    continue
                if name in last_writer:
                    deps.add(last_writer[name])
                deps.update(r for r in readers.get(name, ()) if r != j)
                last_writer[name] = j
                readers[name] = []
                produced.add(name)
            deps.discard(j)
            self.deps.append(deps)
        for name in self.fetch_names:
            if name not in produced and name not in fed and name not in seen_scope_input:
                seen_scope_input.add(name)
                self.scope_inputs.append((self.slot_of[name], name, None))
        self.produced = produced
        self.last_writer = last_writer
        persistable = {n for n in self.slot_of if (v := block._find_var_recursive(n)) is not None and v.persistable}
        self.persistable = persistable
        self.scope_outputs = [(self.slot_of[n], n) for n in self.slot_of if n in produced and n in persistable]
        # a fetched value that outlives the run (a persistable, a fed or scope value) is copied, as Paddle's fetch
        # op copies; values the run produces are handed over as they are
        self.fetch_copy = [n in persistable or n not in produced for n in self.fetch_names]
        keep = persistable | fed | set(self.fetch_names) | seen_scope_input
        keep.update(n for n in self.fetch_lod_names if n is not None)
        self.frees = self._frees(all_readers, keep)
        self.lod_steps = [self._lod_step(ol) for ol in self.op_lods]
        self.lod_binding = self._lod_binding() if self.lod.any else None

    def _lod_spec(self, spec):
        if spec is None:
            return None
        if type(spec) is tuple:
            return tuple(None if n is None else self.slot_of[n] for n in spec)
        return self.slot_of[spec]

    def _lod_step(self, op_lod) -> LoDStep | None:
        if op_lod is None or not op_lod.steps_anything:
            return None
        slot = self.slot_of
        return LoDStep([(slot[a], slot[b]) for a, b in op_lod.copies],
                       [(fn, tuple(self._lod_spec(sp) for sp in srcs), slot[d]) for fn, srcs, d in op_lod.derives],
                       [(slot[x], slot[o], slot[a], slot[b]) for x, o, a, b in op_lod.checked],
                       [slot[c] for c in op_lod.clears])

    def _lod_binding(self) -> LoDBinding:
        slot, levels = self.slot_of, self.lod.levels
        return LoDBinding({n: slot[c] for n, c in self.feed_lod_names.items()},
                          [None if c is None else slot[c] for c in self.fetch_lod_names],
                          [(slot[c], n) for n, c in self.scope_lod_names.items()],
                          [(slot[companion(n)], n) for s, n in self.scope_outputs if n in levels])

    def _frees(self, all_readers: dict, keep: set) -> list[list[int]]:
        n = len(self.ops)
        ancestors = [0] * n
        for j in range(n):
            a = 0
            for d in self.deps[j]:
                a |= ancestors[d] | (1 << d)
            ancestors[j] = a
        frees: list[list[int]] = [[] for _ in range(n)]
        writers: dict[str, list[int]] = {}
        for j, names in enumerate(self.writes):
            for name in names:
                writers.setdefault(name, []).append(j)
        for name, rs in all_readers.items():
            if name in keep:
                continue
            last = rs[-1]
            others = set(rs[:-1]) | set(writers.get(name, ()))
            others.discard(last)
            if all(ancestors[last] >> o & 1 for o in others):
                frees[last].append(self.slot_of[name])
        # a value nobody reads is dropped right after the op that made it
        for name, ws in writers.items():
            if name not in all_readers and name not in keep and name != EMPTY_VAR_NAME:
                last = ws[-1]
                if all(ancestors[last] >> o & 1 for o in ws[:-1]):
                    frees[last].append(self.slot_of[name])
        return frees


class LoDBinding:
    """Where a place's LoDs meet the outside: companion slots of LoD feeds (name -> slot), of fetches (one per
    fetched name, None for a fetch without LoD), of scope inputs and of persistable outputs ((slot, name))."""
    __slots__ = ('feed_slots', 'fetch_slots', 'scope_inputs', 'scope_outputs')

    def __init__(self, feed_slots: dict, fetch_slots: list, scope_inputs: list, scope_outputs: list):
        self.feed_slots = feed_slots
        self.fetch_slots = fetch_slots
        self.scope_inputs = scope_inputs
        self.scope_outputs = scope_outputs

    def shifted(self, offset: int) -> LoDBinding:
        return LoDBinding({n: s + offset for n, s in self.feed_slots.items()},
                          [None if s is None else s + offset for s in self.fetch_slots],
                          [(s + offset, n) for s, n in self.scope_inputs],
                          [(s + offset, n) for s, n in self.scope_outputs])


class PlaceBinding:
    """How one place's slots meet the outside: feeds, scope inputs and outputs, fetches, and LoD (None: no LoD)."""
    __slots__ = ('feed_slots', 'fetch_slots', 'scope_inputs', 'scope_outputs', 'lod')

    def __init__(self, feed_slots: dict, fetch_slots: list, scope_inputs: list, scope_outputs: list,
                 lod: LoDBinding | None = None):
        self.feed_slots = feed_slots
        self.fetch_slots = fetch_slots
        self.scope_inputs = scope_inputs
        self.scope_outputs = scope_outputs
        self.lod = lod

    def shifted(self, offset: int) -> PlaceBinding:
        """The same binding for the place whose slots start at `offset`."""
        return PlaceBinding({n: s + offset for n, s in self.feed_slots.items()},
                            [s + offset for s in self.fetch_slots],
                            [(s + offset, n, op) for s, n, op in self.scope_inputs],
                            [(s + offset, n) for s, n in self.scope_outputs],
                            None if self.lod is None else self.lod.shifted(offset))


class ExecutionPlan:
    """Nodes plus bindings; see the module docstring."""

    def __init__(self, n_slots: int, nodes: list, places: list, slot_of: dict | None = None):
        self.n_slots = n_slots
        self.nodes = nodes
        self.places = places
        self.n_places = len(places)
        self.slot_of = slot_of or {}
        self.roots = [nd.index for nd in nodes if nd.n_deps == 0]
        self.analysis = None
        self.stage = None
        self.binds_runtimes = False
        self.feed_bindings: list = []

    # place 0's binding, under the names single-place code reads
    @property
    def feed_slots(self) -> dict:
        return self.places[0].feed_slots

    @property
    def fetch_slots(self) -> list:
        return self.places[0].fetch_slots

    @property
    def scope_inputs(self) -> list:
        return self.places[0].scope_inputs

    @property
    def scope_outputs(self) -> list:
        return self.places[0].scope_outputs

    def new_values(self) -> list:
        return [None] * self.n_slots

    def run_in_order(self, values: list) -> None:
        """Runs every node in program order on the caller's thread (what a control-flow op does with its
        sub-block's plan)."""
        run_in_order(self.nodes, values)

    def link(self, deps: list) -> None:
        """Sets successors / n_deps from per-node dependency sets."""
        succ: list[list[int]] = [[] for _ in self.nodes]
        for j, ds in enumerate(deps):
            for d in ds:
                succ[d].append(j)
        for nd, s, ds in zip(self.nodes, succ, deps):
            nd.successors = tuple(sorted(s))
            nd.n_deps = len(ds)
        self.roots = [nd.index for nd in self.nodes if nd.n_deps == 0]


def place_binding(a: BlockAnalysis) -> PlaceBinding:
    """Place 0's binding of an analysed block."""
    return PlaceBinding({n: a.slot_of[n] for n in a.feed_names}, [a.slot_of[n] for n in a.fetch_names],
                        a.scope_inputs, a.scope_outputs, a.lod_binding)


def plan_of(a: BlockAnalysis, context=None) -> ExecutionPlan:
    """The single-place plan of an analysed block (its ops, in order)."""
    nodes = [PlanNode(j, op, registry.make_kernel(op, context, a.op_lods[j]), a.in_specs[j], a.out_specs[j],
                      a.frees[j], lod=a.lod_steps[j])
             for j, op in enumerate(a.ops)]
    plan = ExecutionPlan(len(a.slot_of), nodes, [place_binding(a)], a.slot_of)
    plan.link(a.deps)
    plan.analysis = a
    return plan


def build_plan(block, feed_names, fetch_names, context=None, feed_lod=()) -> ExecutionPlan:
    """The single-place plan of a Block; `feed_lod` gives (name, levels) for the fed names that carry LoD."""
    return plan_of(BlockAnalysis(block, feed_names, fetch_names, feed_lod=feed_lod), context)
