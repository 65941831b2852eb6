"""The segment pass: runs of ops that have numba kernels become one compiled node each.

    compile_segments(plan, options, context)      # rewrites plan.nodes in place (compile.py, the last plan pass)

1. Candidates. A node is compilable when it is an ordinary op node (its kernel a registry.DeferredKernel: not a
   collective, not a run-once node, not a sub-block runner; or the loss@GRAD seed, whose fill value the
   data-parallel pass hands over as `segment_attrs`), its op has a SEGMENT_RULES entry that accepts this instance,
   and its variables are plain dense tensors (no SelectedRows, no LoD, no readers) of real dtypes the kernels
   compute as the ops do (not complex, whose gradients conjugate, nor bool, nor float16 / bfloat16), of rank >= 1
   where declared (no 0-D tensors).
2. Groups, per place, in plan order: a node joins the open group of its place unless that would make the group
   non-convex, i.e. some node outside the group would be both a descendant of the group and an ancestor of the
   new node (merging would then make a cycle). Nodes that are not compilable do not close a group: Python-only ops
   (py_func, readers, control flow, collectives) that do not depend on it simply run before or after it. A node
   that starts asynchronous work (collective.py's ASYNC_STARTS: a bucket's all-reduce) does close the open groups
   that hold one of its ancestors: the ops after it would otherwise join them and run before it, and the transfer
   would no longer overlap the rest of backward.
   Ancestors and descendants are bit sets over the plan's nodes.
3. Under the parallel policies (RunConfig.compile.split_branches) a group is split into its connected components,
   so independent branches stay separate nodes the pool can run at once (components of fewer than MIN_BRANCH_OPS
   ops run together: a node of their own would cost more than they do); a group is also cut after
   MAX_SEGMENT_OPS ops (bounded compile time; equal pieces share one compiled function). Groups of one op stay
   ordinary nodes. A step's forward and backward are one component, so the parallel policies also get
   segment_split.py's rewrites: a heavy mul_grad becomes a dX node and a dW node (before grouping), and each part is
   cut at its levels of independent products (after the components); a split half runs in a segment even alone;
   a large forward `mul` stays out of the segments, so its kernel can split its rows over the pool.
   The segments made without the split are kept as `plan.in_order_nodes` for the policy's in-order runs.
4. Each group's interface: inputs are the slots its ops read before any of them writes them (feeds, scope values,
   other nodes' outputs); outputs are the slots it writes that a later node reads, or that are fetched or written
   back to the scope, except inputs that are only updated in place (an optimizer's Param: the array in the values
   is the one updated); the rest (intermediates) never reach the plan's values. Frees are the member nodes' frees
   of input slots.
5. Fusion (BuildStrategy.fuse_elewise_add_act_ops): elementwise_add followed by an activation that is the only
   reader of the sum becomes one call (kernels/segment/elementwise.py add_act), and an activation gradient read
   only by elementwise_add_grad becomes act_add_grad. Always: fuse_all_optimizer_ops' coalesce_tensor of the
   gradients whose only reader is the fused update becomes one call with it, the update's parts variant
   (kernels/segment/optimizer.py), which reads each gradient where the backward left it: no buffer, no copy.
   Memory reuse (enable_inplace / memory_optimize): a unary op whose input is an array the segment allocated
   itself, not a view, and dead after it, writes into it.
6. Code: local names (inputs first, then values in the order they are made), so equal groups anywhere give equal
   text and share one compiled function (codegen.py); nodes are relinked in a topological order that keeps plan
   order where it can, and nodes left outside segments get their own kernels now.

The plan stays valid for every policy: a segment is one node with its dependencies (successors, n_deps).
"""
from __future__ import annotations

import heapq

from ...framework import registry
from ...framework.dtype import VarType
from ...framework.variable import EMPTY_VAR_NAME
from ...kernels.segment import elementwise as SE
from ..codegen import Call, segment_key, segment_source
from ..jit_service import segment_code
from ..plan import make_step, spec_slots
from ..segment_node import Segment, SegmentNode
from .collective import ASYNC_STARTS
from .segment_split import heavy, product_levels, row_split_products, split_products

__all__ = ['compile_segments', 'MAX_SEGMENT_OPS', 'MIN_SEGMENT_OPS']

MAX_SEGMENT_OPS = 64
MIN_SEGMENT_OPS = 2
MIN_BRANCH_OPS = 4          # smaller independent parts of a group run together (one node costs more than they do)
_DENSE = (VarType.LOD_TENSOR,)
# dtypes the segment kernels and their twins do not compute as the ops do (complex: conjugate gradients; bool: a
# reduce_sum of bools counts them as int64; half types)
_NOT_COMPILED = frozenset((VarType.COMPLEX64, VarType.COMPLEX128, VarType.BOOL, VarType.FP16, VarType.BF16))


# --- 1. candidates -------------------------------------------------------------------------------------------------

def _dense_vars(op) -> bool:
    block = op.block
    for name in op.input_arg_names + op.output_arg_names:
        if name == EMPTY_VAR_NAME:
            continue
        var = block._find_var_recursive(name)
        if var is None or var.type not in _DENSE or getattr(var, 'lod_level', 0) or var.dtype in _NOT_COMPILED:
            return False
        if var.has_shape() and len(var.shape) == 0:     # 0-D tensors (Paddle 2.x): the kernels take rank >= 1
            return False
    return True


def segment_op_of(node, context):
    """The SegmentOp of `node`, or None when it runs as an ordinary node."""
    op = node.op
    if op is None:
        return None
    kernel = node.kernel
    override = getattr(kernel, 'segment_attrs', None)
    if not isinstance(kernel, registry.DeferredKernel) and override is None:
        return None
    rule = registry.SEGMENT_RULES.get(op.type)
    if rule is None or not _dense_vars(op):
        return None
    if override:
        spec = registry.KernelSpec(op, registry.get(op.type), context)
        spec.attrs = {**op.attrs, **override}
    else:           # the kernel's own spec: a split product gradient's half (segment_split.py) wants one output
        spec = kernel.spec
    try:
        seg = rule(spec)
    except Exception:      # noqa: BLE001 - a rule that cannot make sense of the op leaves it an ordinary node
        return None
    if seg is None or not _wired(node, seg):
        return None
    return seg


def _wired(node, seg) -> bool:
    """Every slot the segment op passes is wired in the node (the rule and the plan agree)."""
    info = registry.get(node.op.type)
    for slot in seg.inputs:
        if slot not in info.inputs or node.in_spec[info.inputs.index(slot)] is None:
            return False
    for slot in seg.outputs:
        if slot is not None and (slot not in info.outputs or node.out_spec[info.outputs.index(slot)] is None):
            return False
    return True


# --- 2, 3. groups --------------------------------------------------------------------------------------------------

def _dependencies(nodes) -> list[set]:
    deps = [set() for _ in nodes]
    for i, nd in enumerate(nodes):
        for s in nd.successors:
            deps[s].add(i)
    return deps


def _relations(deps: list):
    """(ancestor bits, descendant bits) per node, from each node's set of dependencies."""
    n = len(deps)
    succ = [[] for _ in range(n)]
    for j, ds in enumerate(deps):
        for d in ds:
            succ[d].append(j)
    anc = [0] * n
    for j in range(n):
        a = 0
        for d in deps[j]:
            a |= anc[d] | (1 << d)
        anc[j] = a
    desc = [0] * n
    for j in range(n - 1, -1, -1):
        a = 0
        for s in succ[j]:
            a |= desc[s] | (1 << s)
        desc[j] = a
    return anc, desc


def _groups(nodes, compilable: list, anc: list, desc: list) -> list[list[int]]:
    groups: list[list[int]] = []
    open_groups: dict = {}          # place -> [members, member bits, descendant bits]
    for j, nd in enumerate(nodes):
        if not compilable[j]:
            if nd.op is not None and nd.op.type in ASYNC_STARTS:
                for place, g in list(open_groups.items()):
                    if anc[j] & g[1]:
                        groups.append(open_groups.pop(place)[0])
            continue
        g = open_groups.get(nd.place)
        if g is not None and not (anc[j] & g[2] & ~g[1]) and len(g[0]) < MAX_SEGMENT_OPS:
            g[0].append(j)
            g[1] |= 1 << j
            g[2] |= desc[j]
            continue
        if g is not None:
            groups.append(g[0])
        open_groups[nd.place] = [[j], 1 << j, desc[j]]
    groups.extend(g[0] for g in open_groups.values())
    return sorted(groups, key=lambda g: g[0])


def _branches(group: list, deps: list) -> list[list[int]]:
    """The group's connected components of at least MIN_BRANCH_OPS ops, and the smaller ones together (any union of
    components of a convex group is convex: no path joins two of them)."""
    parts = _components(group, deps)
    big = [p for p in parts if len(p) >= MIN_BRANCH_OPS]
    small = sorted(j for p in parts if len(p) < MIN_BRANCH_OPS for j in p)
    return big + ([small] if small else [])


def _components(group: list, deps: list) -> list[list[int]]:
    parent = {j: j for j in group}

    def find(j):
        while parent[j] != j:
            parent[j] = parent[parent[j]]
            j = parent[j]
        return j
    for j in group:
        for d in deps[j]:
            if d in parent:
                parent[find(d)] = find(j)
    parts: dict = {}
    for j in group:
        parts.setdefault(find(j), []).append(j)
    return list(parts.values())


# --- 4, 5. interface, calls, fusion, memory reuse -----------------------------------------------------------------

def _call_of(node, seg) -> Call:
    info = registry.get(node.op.type)
    ins = [node.in_spec[info.inputs.index(slot)] for slot in seg.inputs]
    outs = [None if slot is None else node.out_spec[info.outputs.index(slot)] for slot in seg.outputs]
    updates = tuple(node.out_spec[info.outputs.index(o)] for o, i in seg.inplace.items()
                    if node.out_spec[info.outputs.index(o)] == node.in_spec[info.inputs.index(i)])
    return Call([node], seg.kernel, seg.reference, ins, outs, tuple(seg.args), bool(seg.inplace), not seg.views,
                node.op.type, seg.fusion, seg.reuse, updates)


def _reads(call) -> set:
    return {s for spec in call.ins for s in spec_slots(spec)}


def _writes(call) -> set:
    return {s for spec in call.outs for s in spec_slots(spec)}


def _between_ok(calls: list, i: int, j: int, moved: Call, keep_out: set, later: bool = False) -> bool:
    """Call j may run at position i (i < j; with `later`, i > j): no call between them writes what it reads, or
    reads or writes what it writes."""
    reads, writes = _reads(moved) - keep_out, _writes(moved) - keep_out
    for c in (calls[j + 1:i] if later else calls[i + 1:j]):
        if _writes(c) & (reads | writes) or _reads(c) & writes:
            return False
    return True


def _fuse(calls: list, readers: dict, keep: set, add_act: bool) -> list:
    """A value made by one call and read only by a later one: the pair as one call where a rule fuses them (step 5).
    `add_act`: BuildStrategy.fuse_elewise_add_act_ops (elementwise_add + activation and their gradients)."""
    firsts = ('add', 'act_grad', 'coalesce') if add_act else ('coalesce',)
    k = 0
    while k < len(calls):
        first = calls[k]
        fusion = first.fusion
        if fusion and fusion[0] in firsts:
            mid = first.outs[0]
            if type(mid) is int and mid not in keep and len(readers.get(mid, ())) == 1:
                for j in range(k + 1, len(calls)):
                    second = calls[j]
                    if mid not in _reads(second):
                        continue
                    fused = _fused_call(first, second, mid)
                    if fused is None:
                        break
                    if fusion[0] == 'coalesce':       # the pair runs where the update did
                        if _between_ok(calls, j, k, first, {mid}, later=True):
                            calls[j] = fused
                            del calls[k]
                            k -= 1
                    elif _between_ok(calls, k, j, second, {mid}):
                        calls[k] = fused
                        del calls[j]
                    break
        k += 1
    return calls


def _fused_call(first: Call, second: Call, mid: int):
    f1, f2 = first.fusion, second.fusion
    if f2 is None:
        return None
    label = '%s+%s' % (first.label, second.label)
    if f1[0] == 'coalesce' and f2[0] == 'grad_parts' and second.ins[f2[1]] == mid:
        _, pos, kernel, reference = f2
        ins = list(second.ins)
        ins[pos] = first.ins[0]          # the tuple of the gradients' slots
        return Call(first.nodes + second.nodes, kernel, reference, ins, list(second.outs), second.args,
                    second.in_place, second.fresh, label, None, None, second.updates)
    if f1[0] == 'add' and f2[0] == 'act' and second.ins[0] == mid:
        _, opcode, a, b, c = f2
        return Call(first.nodes + second.nodes, SE.add_act, SE.add_act_ref, list(first.ins), list(second.outs),
                    (f1[1], opcode, a, b, c), False, True, label)
    if f1[0] == 'act_grad' and f1[-1] == 'Out' and f2[0] == 'add_grad' and second.ins[2] == mid:
        _, opcode, a, b, c, _ = f1
        _, axis, want_x, want_y = f2
        return Call(first.nodes + second.nodes, SE.act_add_grad, SE.act_add_grad_ref,
                    [first.ins[0], first.ins[1], second.ins[0], second.ins[1]], list(second.outs),
                    (opcode, axis, want_x, want_y, a, b, c), False, True, label)
    return None


def _reuse_memory(calls: list, inputs: set, outputs: set, readers: dict, members: set) -> None:
    """A unary call whose input is a fresh array of this segment, dead after it, writes into that input."""
    fresh: set = set()
    viewed: set = set()
    last_read: dict = {}
    for k, call in enumerate(calls):
        for s in _reads(call):
            last_read[s] = k
        if not call.fresh:
            viewed |= _reads(call)
    for k, call in enumerate(calls):
        reuse = call.reuse
        if reuse is not None:
            kernel, pos = reuse
            s = call.ins[pos]
            if (type(s) is int and s in fresh and s not in viewed and s not in outputs and s not in inputs
                    and last_read.get(s) == k and sum(1 for spec in call.ins if spec == s) == 1
                    and all(r in members for r in readers.get(s, ()))):
                call.kernel = kernel        # its numpy twin stays the allocating one: same numbers
        if call.fresh:
            fresh |= _writes(call)


def _interface(calls: list, member_ids: set, nodes: list, desc_bits: int, readers: dict, keep: set):
    """(inputs, outputs, frees, updated): an input only ever updated in place (an optimizer's Param) is not an
    output: the array in the plan's values is the one updated (segment_node.py makes sure it can be)."""
    inputs, written, rebound = [], set(), set()
    for call in calls:
        for s in (s for spec in call.ins for s in spec_slots(spec)):     # in argument order: equal groups, equal text
            if s not in written and s not in inputs:
                inputs.append(s)
        writes = _writes(call)
        rebound |= writes - set(call.updates)
        written |= writes
    input_set = set(inputs)
    updated = [s for s in inputs if s in written and s not in rebound]
    outputs = []
    for call in calls:                          # in the order the calls make them: equal groups, equal text
        for s in (s for spec in call.outs for s in spec_slots(spec)):
            if s in updated or s in outputs:
                continue
            outside = [r for r in readers.get(s, ()) if r not in member_ids and desc_bits >> r & 1]
            if s in keep or outside:
                outputs.append(s)
    frees = sorted({s for j in member_ids for s in nodes[j].free if s in input_set and s not in written})
    return inputs, outputs, frees, updated


def _localize(calls: list, inputs: list, outputs: list):
    """Copies of the calls and the interface in local names: inputs 0..n-1, then values in order of making."""
    local = {s: i for i, s in enumerate(inputs)}

    def name(spec, making: bool):
        if spec is None:
            return None
        if type(spec) is tuple:
            return tuple(name(s, making) for s in spec)
        if spec not in local:
            local[spec] = len(local)
        return local[spec]
    out = []
    for call in calls:
        ins = [name(s, False) for s in call.ins]
        outs = [name(s, True) for s in call.outs]
        out.append(Call(call.nodes, call.kernel, call.reference, ins, outs, call.args, call.in_place, call.fresh,
                        call.label))
    return out, [local[s] for s in inputs], [local[s] for s in outputs]


# --- the pass ------------------------------------------------------------------------------------------------------

def compile_segments(plan, options, context) -> None:
    """Rewrites `plan.nodes` into segments (see the module docstring); `options` is RunConfig.compile."""
    nodes = plan.nodes
    if len(nodes) < MIN_SEGMENT_OPS:
        _materialize(nodes)
        return
    seg_ops = [segment_op_of(nd, context) for nd in nodes]
    deps = _dependencies(nodes)
    plan.tier_changes = [0]         # bumped when a segment of this plan starts running compiled
    if not options.split_branches:
        _segment(plan, nodes, seg_ops, deps, options, False)
        return
    split_nodes, split_ops, split_deps, halves = split_products(nodes, seg_ops, deps,
                                                                lambda nd: segment_op_of(nd, context))
    if halves:
        # in-order runs (the threaded policy's probe and fallback) keep the unsplit segments: where overlapping
        # does not pay, the step runs as it did before the split (plan.in_order_nodes; segment_split.py)
        _segment(plan, nodes, seg_ops, deps, options, True, keep_split=False)
        plan.in_order_nodes = plan.nodes
        split_ops = row_split_products(split_nodes, split_ops)
    _segment(plan, split_nodes, split_ops, split_deps, options, True, halves)


def _segment(plan, nodes, seg_ops, deps, options, split: bool, halves: set = frozenset(),
             keep_split: bool = True) -> None:
    """Groups `nodes` into segments and relinks the plan (steps 2-6 of the module docstring); `split`: cut the
    groups into branches (and, with `keep_split`, at their levels of independent products)."""
    anc, desc = _relations(deps)
    groups = _groups(nodes, [s is not None for s in seg_ops], anc, desc)
    if split:
        groups = [part for g in groups for part in _branches(g, deps)]
    if split and keep_split:
        is_heavy = [heavy(nd) for nd in nodes]
        groups = [piece for part in groups for piece in product_levels(part, is_heavy, deps)]
    # a split half always runs in a segment: as an ordinary node its kernel would compute both gradients
    groups = [g for g in groups if len(g) >= MIN_SEGMENT_OPS or halves.intersection(g)]
    if not groups:
        _materialize(nodes)
        return
    readers: dict = {}
    for i, nd in enumerate(nodes):
        for spec in nd.in_spec:
            for s in spec_slots(spec):
                readers.setdefault(s, []).append(i)
    keep = set()
    for place in plan.places:
        keep.update(place.fetch_slots)
        keep.update(s for s, _ in place.scope_outputs)
    unit_of = list(range(len(nodes)))
    units = []                       # per unit: the new node, or the index of an old node
    tier_changes = plan.tier_changes
    for g in groups:
        member_ids = set(g)
        desc_bits = 0
        for j in g:
            desc_bits |= desc[j]
        calls = [_call_of(nodes[j], seg_ops[j]) for j in g]
        calls = _fuse(calls, readers, keep, options.fuse_add_act)
        inputs, outputs, frees, updated = _interface(calls, member_ids, nodes, desc_bits, readers, keep)
        if options.reuse_memory:
            _reuse_memory(calls, set(inputs), set(outputs) | keep, readers, member_ids)
        local_calls, local_in, local_out = _localize(calls, inputs, outputs)
        title = ', '.join(c.label for c in calls)
        source = segment_source(local_calls, local_in, local_out, title)
        code = segment_code(source, segment_key(source), options.cache_dir)
        label = 'segment[%s]' % title
        segment = Segment(local_calls, inputs, outputs, local_in, local_out, frees, [nodes[j] for j in g], code,
                          options.mode, options.compile_after, label, [inputs.index(s) for s in updated])
        unit = len(units)
        segment.tier_changes = tier_changes
        units.append(SegmentNode(0, segment, nodes[g[0]].place))
        for j in g:
            unit_of[j] = ('seg', unit)
    order = _relink(plan, nodes, deps, unit_of, units)
    _materialize([nd for nd in order if not isinstance(nd, SegmentNode)])


def _relink(plan, nodes, deps, unit_of, units):
    """The new node list in a topological order close to plan order, with successors and n_deps."""
    key_of = {}          # unit key -> (first old index, node)
    unit_deps: dict = {}
    for i, nd in enumerate(nodes):
        u = unit_of[i]
        key = u if type(u) is tuple else ('node', i)
        if key not in key_of:
            key_of[key] = (i, units[u[1]] if type(u) is tuple else nd)
        ds = unit_deps.setdefault(key, set())
        for d in deps[i]:
            du = unit_of[d]
            dk = du if type(du) is tuple else ('node', d)
            if dk != key:
                ds.add(dk)
    succ: dict = {k: [] for k in key_of}
    pending = {k: len(ds) for k, ds in unit_deps.items()}
    for k, ds in unit_deps.items():
        for d in ds:
            succ[d].append(k)
    heap = [(key_of[k][0], k) for k, n in pending.items() if n == 0]
    heapq.heapify(heap)
    order_keys = []
    while heap:
        _, k = heapq.heappop(heap)
        order_keys.append(k)
        for s in succ[k]:
            pending[s] -= 1
            if pending[s] == 0:
                heapq.heappush(heap, (key_of[s][0], s))
    if len(order_keys) != len(key_of):
        raise RuntimeError('the segment pass made a dependency cycle (a bug in paddle_exec: please report it)')
    position = {k: p for p, k in enumerate(order_keys)}
    new_nodes = []
    for p, k in enumerate(order_keys):
        nd = key_of[k][1]
        nd.index = p
        new_nodes.append(nd)
    plan.nodes = new_nodes
    plan.link([{position[d] for d in unit_deps[k]} for k in order_keys])
    return new_nodes


def _materialize(nodes) -> None:
    """Nodes that run on their own get their real kernel now (factory errors surface at plan time, as before)."""
    for nd in nodes:
        kernel = nd.kernel
        if isinstance(kernel, registry.DeferredKernel):
            nd.kernel = kernel.materialize()
            nd.step = make_step(nd.kernel, nd.in_spec, nd.out_spec, nd.free)
