"""Work the parallel policies can overlap inside one segment group: product gradients split, groups cut by levels.

    nodes, seg_ops, deps, halves = split_products(nodes, seg_ops, deps, segment_op_of)   # before grouping
    seg_ops = row_split_products(nodes, seg_ops)               # (segments.py, split_branches only)
    parts = product_levels(part, heavy, deps)                  # per group part, after the connected components

A training step's group is one connected component (everything meets at the loss), so splitting a group into its
components leaves it whole, and one segment runs every product of the step on one thread. Paddle's
ParallelExecutor overlaps independent ops on its pool; these rewrites give the threaded policy the same freedom
where the time is, the matrix products:

1. `split_products`: a heavy `mul_grad` (see `heavy`) whose dX and dW are both wanted becomes two nodes, one per
   gradient. The two read the same inputs and write different outputs, so they are independent: the weight
   gradient of layer k (and its optimizer update) can run beside the dX chain through the layers below. Each half
   computes exactly the product the whole op computed (mul_grad's dX and dY never share a sum), so the bits stay.
   The halves' dependencies are re-derived from their slots (read-after-write, write-after-read, write-after-write;
   a dependency no slot explains is kept for both halves). A slot either half reads is no longer freed by any node:
   the plan clears a slot at its last reader only when every other reader is an ancestor, which the halves no
   longer guarantee; such values live until the end of the run, as other values do.
2. `product_levels`: a node's level is the number of heavy nodes on the longest path from the group's start to it
   (itself included). Levels are layers of the DAG (an edge never goes to a lower level), so every set of
   consecutive levels is convex. A level holding two or more heavy nodes (independent: a path between them would
   cross levels) is cut into: the nodes no heavy node of the level precedes ('pre'), for each heavy node the nodes
   only it precedes, and the nodes two or more precede ('post'); every part is convex and the parts form a DAG
   (pre -> own parts -> post). Runs of consecutive levels with at most one heavy node stay together: they are a
   chain of products with light work beside it, which one thread runs best.

3. `row_split_products`: in a split plan, a forward `mul` of a 2-D X and a weight of at least ROW_SPLIT_WEIGHT
   elements is left out of the segments: as an ordinary node its kernel (ops/math.py) splits the product into
   row halves that two of the pool's threads compute at once in parallel runs (kernels/intra_op.py: same bits,
   decided per run by the product's size). The forward is a chain, so without this it runs on one thread while
   the other core waits; the elementwise ops between the products stay segments.

When a plan was split, segments.py also keeps the segments it would have made without the split
(`plan.in_order_nodes`): the threaded policy's in-order runs use them, so its probe weighs the split step on the
pool against the step as one function, and keeps the latter where overlap does not pay (small products, a second
core busy with other work).

For DeepFM's tower (429 -> 400 -> 400 -> 400 -> 1, batch 512), the forward is three `mul` nodes (each on two
threads) with the segments between them, the last of which holds the rest of the forward and the backward down to
the last layer's bias gradient; then each layer's dX (with the relu and bias gradients after it) and dW
are two segments the pool runs at once, and the dense update of the layer's weight, which waits for both (the
update writes the weight dX reads), a third.
"""
from __future__ import annotations

from ...framework import registry
from ..plan import PlanNode, make_step, spec_slots, with_lod

__all__ = ['HEAVY_PRODUCT', 'ROW_SPLIT_WEIGHT', 'SPLIT_GRADS', 'heavy', 'split_products', 'product_levels',
           'row_split_products']

# a product whose weight has at least this many elements is worth a node of its own (a hand-off costs ~50 us;
# 128 x 128 float32 at batch 64 takes about as long)
HEAVY_PRODUCT = 16384
# op type -> (its segment rule's kernel's gradient outputs computed by separate products)
SPLIT_GRADS = {'mul_grad': ('X@GRAD', 'Y@GRAD')}
# a forward mul whose weight has at least this many elements is left out of the segments of a split plan, so that
# its kernel can compute its row halves on two threads (kernels/intra_op.py decides at run time, by the batch)
ROW_SPLIT_WEIGHT = 65536
_PRODUCTS = ('mul', 'mul_grad')


def heavy(node) -> bool:
    """A matrix product (mul, mul_grad) whose weight `Y` is declared with at least HEAVY_PRODUCT elements."""
    return _weight_size(node) >= HEAVY_PRODUCT


def _weight_size(node) -> int:
    """The declared element count of a product's (mul, mul_grad) weight `Y`; 0 for other nodes or unknown shapes."""
    op = node.op
    if op is None or op.type not in _PRODUCTS:
        return 0
    var = _declared(op, 'Y')
    if var is None:
        return 0
    n = 1
    for d in var.shape:
        if d < 0:
            return 0
        n *= d
    return n


class _HalfSpec(registry.KernelSpec):
    """An op's KernelSpec in which one gradient output counts as not wanted."""

    def __init__(self, spec: registry.KernelSpec, dropped: str):
        super().__init__(spec.op, spec.info, spec.context, spec.lod)
        self.attrs = spec.attrs
        self.dropped = dropped

    def has_output(self, slot: str) -> bool:
        return slot != self.dropped and super().has_output(slot)


def _reads(node) -> set:
    return {s for spec in node.in_spec for s in spec_slots(spec)}


def _writes(node) -> set:
    return {s for spec in node.out_spec for s in spec_slots(spec)}


def _conflict(a, b) -> bool:
    wa, wb = _writes(a), _writes(b)
    return bool(wa & _reads(b) or _reads(a) & wb or wa & wb)


def _halves(node, segment_op_of):
    """The two nodes (and their segment ops) of a splittable product gradient, or None."""
    outs = SPLIT_GRADS.get(node.op.type) if node.op is not None else None
    kernel = node.kernel
    if not outs or not isinstance(kernel, registry.DeferredKernel) or not heavy(node):
        return None
    spec = kernel.spec
    if not all(spec.has_output(o) for o in outs):
        return None
    info = registry.get(node.op.type)
    made = []
    for keep in outs:
        dropped = [o for o in outs if o != keep]
        half_spec = spec
        for o in dropped:
            half_spec = _HalfSpec(half_spec, o)
        out_spec = tuple(None if info.outputs[k] in dropped else s for k, s in enumerate(node.out_spec))
        half = PlanNode(node.index, node.op, registry.DeferredKernel(kernel.factory, half_spec), node.in_spec,
                        out_spec, (), node.place, '%s[%s]' % (node.label, keep), node.lod)
        half.cost = node.cost
        half_op = segment_op_of(half)
        if half_op is None:
            return None
        made.append((half, half_op))
    return made


def row_split_products(nodes: list, seg_ops: list) -> list:
    """`seg_ops` with every heavy 2-D forward `mul` left out of the segments (None): as an ordinary node its kernel
    computes the product's row halves on two of the pool's threads in parallel runs (see the module docstring)."""
    out = list(seg_ops)
    for i, nd in enumerate(nodes):
        if out[i] is not None and nd.op.type == 'mul' and _weight_size(nd) >= ROW_SPLIT_WEIGHT and _matrices(nd.op):
            out[i] = None
    return out


def _matrices(op) -> bool:
    """A mul of a 2-D X and a 2-D Y, nothing flattened."""
    if op.attrs.get('x_num_col_dims', 1) != 1 or op.attrs.get('y_num_col_dims', 1) != 1:
        return False
    for slot in ('X', 'Y'):
        var = _declared(op, slot)
        if var is None or len(var.shape) != 2:
            return False
    return True


def _declared(op, slot: str):
    """The Variable of `op`'s first input in `slot` when its shape is declared; else None."""
    names = op.inputs.get(slot) or []
    var = op.block._find_var_recursive(names[0]) if names else None
    return var if var is not None and var.has_shape() else None


def split_products(nodes: list, seg_ops: list, deps: list, segment_op_of):
    """(nodes, seg_ops, deps, halves) with every heavy two-gradient product gradient split in two (see the module
    docstring); `deps[i]` the set of node i's dependencies, `halves` the indices of the new nodes,
    `segment_op_of(node)` a node's SegmentOp (or None)."""
    mapping: list[list[int]] = []
    new_nodes, new_ops, halves = [], [], set()
    for i, nd in enumerate(nodes):
        made = _halves(nd, segment_op_of) if seg_ops[i] is not None else None
        if made is None:
            mapping.append([len(new_nodes)])
            new_nodes.append(nd)
            new_ops.append(seg_ops[i])
            continue
        mapping.append([])
        for half, half_op in made:
            mapping[i].append(len(new_nodes))
            halves.add(len(new_nodes))
            new_nodes.append(half)
            new_ops.append(half_op)
    if not halves:
        return nodes, seg_ops, deps, halves
    new_deps: list[set] = [set() for _ in new_nodes]
    for i, ds in enumerate(deps):
        for d in ds:
            pairs = [(a, b) for a in mapping[d] for b in mapping[i]]
            if len(pairs) > 1:
                explained = [(a, b) for a, b in pairs if _conflict(new_nodes[a], new_nodes[b])]
                pairs = explained or pairs
            for a, b in pairs:
                new_deps[b].add(a)
    _unfree(new_nodes, {s for h in halves for s in _reads(new_nodes[h])})
    return new_nodes, new_ops, new_deps, halves


def _unfree(nodes: list, kept: set) -> None:
    """No node clears a slot in `kept` (read by a split half: see the module docstring)."""
    for nd in nodes:
        if nd.free and any(s in kept for s in nd.free):
            nd.free = tuple(s for s in nd.free if s not in kept)
            nd.step = make_step(nd.kernel, nd.in_spec, nd.out_spec, nd.free)
            if nd.lod is not None:
                nd.step = with_lod(nd.step, nd.lod)


def product_levels(part: list, is_heavy: list, deps: list) -> list[list[int]]:
    """`part` (node indices in topological order, a convex set) cut at its levels of independent heavy nodes (see
    the module docstring); the pieces in a topological order, each in plan order."""
    members = set(part)
    level: dict = {}
    for j in part:
        lv = max((level[d] for d in deps[j] if d in members), default=0)
        level[j] = lv + (1 if is_heavy[j] else 0)
    by_level: dict = {}
    for j in part:
        by_level.setdefault(level[j], []).append(j)
    pieces: list[list[int]] = []
    band: list[int] = []            # consecutive levels with at most one heavy node
    for lv in sorted(by_level):
        nodes = by_level[lv]
        tops = [j for j in nodes if is_heavy[j]]
        if len(tops) < 2:
            band.extend(nodes)
            continue
        if band:
            pieces.append(sorted(band))
            band = []
        pieces.extend(_cut_level(nodes, tops, is_heavy, deps))
    if band:
        pieces.append(sorted(band))
    return pieces


def _cut_level(nodes: list, tops: list, is_heavy: list, deps: list) -> list[list[int]]:
    """One level: pre, each heavy node's own part, post (see the module docstring)."""
    in_level = set(nodes)
    top_bit = {j: 1 << k for k, j in enumerate(tops)}
    above: dict = {}                 # node -> bit set of the level's heavy nodes that precede it (or are it)
    for j in nodes:                  # topological order
        bits = top_bit.get(j, 0)
        for d in deps[j]:
            if d in in_level:
                bits |= above[d]
        above[j] = bits
    pre = [j for j in nodes if not above[j]]
    own = [[j for j in nodes if above[j] == top_bit[t]] for t in tops]
    post = [j for j in nodes if above[j] and above[j] & (above[j] - 1)]
    return [p for p in [pre] + own + [post] if p]
