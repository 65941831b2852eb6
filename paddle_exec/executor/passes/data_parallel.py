"""The data-parallel pass: one ExecutionPlan that runs a Block on N CPU places, as Paddle's multi_devices pass.

    plan = build_data_parallel_plan(program, n_places=2, feed_names=['x', 'y'], fetch_names=['mean_0.tmp_0'],
                                    loss_name='mean_0.tmp_0', reduce_mode=False, gradient_scale=0)

1. The per-place op list is the block's ops with three changes:
   - the `loss@GRAD` seed (the op whose op_role is Backward|Loss) is seeded by the gradient scale strategy:
     `1 / (places * trainers)` under CoeffNumDevice, 1 under One; under Customized the op is dropped and the user
     feeds `loss@GRAD`;
   - after each backward op whose `op_role_var` names (param, grad) pairs, a collective op for every such grad:
     `all_reduce` (AllReduce) or `reduce` onto the parameter's owner place (Reduce). Only when a loss is given and
     there are several places, as in Paddle;
   - under Reduce, optimizer ops (op_role Optimize) whose `op_role_var` names a parameter run once, on the owner
     place of that parameter. Owners are chosen as Paddle does: the place with the fewest parameter elements so far.
2. `BlockAnalysis` of that list gives per-place slots, dependencies, scope bindings and frees.
3. The plan replicates it: place p uses slots `s + p * slots_per_place`. An ordinary op becomes one node per place;
   a collective op, and under Reduce a run-once optimizer op, becomes one node spanning the places. A node's
   dependencies are those of its op on every place it touches, so the per-place ordering rules (read/write order,
   safe frees) carry over to the combined graph.

Collectives sum in a fixed order: ((g0 + g1) + g2) + ..., the order of Paddle's CPU all-reduce, so a run is
reproducible to the bit whatever the thread timing. Sparse gradients (SelectedRows) are combined by concatenating
rows and values in place order (Paddle's reduce + broadcast of SelectedRows). After `all_reduce` every place holds
the same summed array; it is copied per place only if a later op updates the gradient in place. A run-once node
writes its outputs into every place's slots (Paddle's broadcast after a Reduce-mode update); the persistables that
only run-once nodes write are *shared* by all places' scopes (`plan.shared_persistables`), the rest are copied.

executor/graphs.py draws the compiled graph for BuildStrategy.debug_graphviz_path.
"""
from __future__ import annotations

import numpy as np

from ...framework import registry
from ...framework.collective import settings_of
from ...framework.dtype import to_numpy
from ...framework.operator import OP_ROLE_ATTR, OP_ROLE_VAR_ATTR, Operator, OpRole
from ...framework.registry import OpInfo
from ...framework.scope import SelectedRows
from ...framework.variable import EMPTY_VAR_NAME
from ..plan import BlockAnalysis, ExecutionPlan, PlanNode, place_binding
from .collective import BUCKET_INFOS, has_cross_process_ops, plan_collectives, span_node

__all__ = ['build_data_parallel_plan', 'is_inference_program',
           'shared_persistables']

LOSS_GRAD_ROLE = int(OpRole.Backward | OpRole.Loss)
COLLECTIVE_INFOS = {
    'all_reduce': OpInfo('all_reduce', ('X',), ('Out',)),
    'reduce': OpInfo('reduce', ('X',), ('Out',)),
}
# BuildStrategy.GradientScaleStrategy values
_COEFF_NUM_DEVICE, _ONE, _CUSTOMIZED = 0, 1, 2


def is_inference_program(program) -> bool:
    """No backward and no optimizer ops: such a program may run on fewer places than it has (partial feeds)."""
    for op in program.global_block().ops:
        role = int(op.attrs.get(OP_ROLE_ATTR, 0))
        if op.type.endswith('_grad') or role & (OpRole.Backward | OpRole.Optimize):
            return False
    return True


def _role(op) -> int:
    return int(op.attrs.get(OP_ROLE_ATTR, 0))


def _param_grad_pairs(op) -> list[tuple[str, str]]:
    names = op.attrs.get(OP_ROLE_VAR_ATTR) or []
    return [(names[k], names[k + 1]) for k in range(0, len(names) - 1, 2)]


def _numel(var) -> int:
    n = 1
    for d in (var.shape if var is not None else ()):
        n *= abs(int(d)) or 1
    return n


class _Layout:
    """Which ops of the per-place list run once, and on which place (Reduce mode)."""

    def __init__(self):
        self.owner_of_param: dict[str, int] = {}
        self.load: list[int] = []

    def owner(self, param: str, block, n_places: int) -> int:
        place = self.owner_of_param.get(param)
        if place is None:
            if not self.load:
                self.load = [0] * n_places
            place = min(range(n_places), key=lambda p: (self.load[p], p))
            self.load[place] += _numel(block._find_var_recursive(param))
            self.owner_of_param[param] = place
        return place


def _per_place_ops(program, n_places: int, loss_name, reduce_mode: bool, scale_strategy: int, n_trainers: int = 1):
    """The op list of one place (collectives inserted) and, per op index, None (replicated), ('all', None)
    (a collective over every place) or ('once', owner place). With several trainers the gradients get an
    `all_reduce` even on one place: the collective pass (passes/collective.py) makes it cross the processes."""
    block = program.global_block()
    ops, kinds = [], []
    seed_index = None
    collective = False
    layout = _Layout()
    for op in block.ops:
        role = _role(op)
        if loss_name and seed_index is None and role == LOSS_GRAD_ROLE:
            seed_index = len(ops)
            collective = n_places > 1 or n_trainers > 1
            if scale_strategy == _CUSTOMIZED:
                seed_index = -1          # the user feeds loss@GRAD
                continue
        kind = None
        if reduce_mode and collective and role & OpRole.Optimize:
            pairs = _param_grad_pairs(op)
            if pairs:
                kind = ('once', layout.owner(pairs[0][0], block, n_places))
        ops.append(op)
        kinds.append(kind)
        if collective and role & OpRole.Backward:
            for param, grad in _param_grad_pairs(op):
                if grad == EMPTY_VAR_NAME or grad not in op.output_arg_names:
                    continue
                if reduce_mode:
                    owner = layout.owner(param, block, n_places)
                    ops.append(Operator(block, 'reduce', {'X': [grad]}, {'Out': [grad]}, {'root': owner}))
                    kinds.append(('reduce', owner))
                else:
                    ops.append(Operator(block, 'all_reduce', {'X': [grad]}, {'Out': [grad]}, {}))
                    kinds.append(('all', None))
    return ops, kinds, (seed_index if seed_index is not None and seed_index >= 0 else None)


# --- kernels of the nodes this pass adds ------------------------------------------------------------------------

def sum_in_place_order(values: list, name: str):
    """g0 + g1 + ... left to right (dense), or the rows/values of every place concatenated (SelectedRows)."""
    for p, v in enumerate(values):
        if v is None:
            raise RuntimeError("The gradient '%s' has no value on place %d when it is summed over places: the op "
                               "that computes it did not run there" % (name, p))
    first = values[0]
    if len(values) == 1:
        return first
    if isinstance(first, SelectedRows):
        rows = np.concatenate([v.rows for v in values])
        vals = np.concatenate([v.values for v in values])
        return SelectedRows(rows, vals, first.height)
    total = first + values[1]
    for v in values[2:]:
        total += v
    return total


def _all_reduce_kernel(name: str, n_places: int, copy_per_place: bool):
    def run(grads):
        total = sum_in_place_order(grads, name)
        if copy_per_place and isinstance(total, np.ndarray):
            return ([total] + [total.copy() for _ in range(n_places - 1)],)
        return ([total] * n_places,)
    return run


def _reduce_kernel(name: str):
    return lambda grads: (sum_in_place_order(grads, name),)


def _seed_kernel(op, coeff: float):
    """The loss@GRAD seed: the fill_constant with the gradient scale's value. `segment_attrs` tells the segment pass
    (passes/segments.py) which value to compile in."""
    dtype = to_numpy(op.attrs.get('dtype', 5))
    shape = tuple(op.attrs.get('shape') or [1])

    def seed(*unused):
        return (np.full(shape, coeff, dtype=dtype),)
    seed.segment_attrs = {'value': coeff, 'str_value': ''}
    return seed


def _broadcast_kernel(kernel, out_spec: tuple, n_places: int, copies: tuple):
    """A run-once op whose outputs go to every place: out k is repeated per place (copied where `copies[k]`)."""
    def run(*inputs):
        res = kernel(*inputs)
        out = []
        for k, spec in enumerate(out_spec):
            if spec is None:
                out.append(None)
                continue
            v = res[k]
            items = list(v) if type(spec) is tuple else [v]
            if copies[k]:
                out.append(items + [np.array(x, copy=True) if isinstance(x, np.ndarray) else x
                                    for _ in range(n_places - 1) for x in items])
            else:
                out.append(items * n_places)
        return tuple(out)
    return run


# --- the plan -----------------------------------------------------------------------------------------------

def _shift(spec, offset: int):
    if spec is None:
        return None
    if type(spec) is tuple:
        return tuple(None if s is None else s + offset for s in spec)
    return spec + offset


def _spread(spec, stride: int, n_places: int):
    """One output slot spec over every place: a tuple of slots, place-major for duplicable specs."""
    if spec is None:
        return None
    if type(spec) is tuple:
        return tuple(s + p * stride for p in range(n_places) for s in spec if s is not None)
    return tuple(spec + p * stride for p in range(n_places))


def _written_only_once(ops, kinds) -> set[str]:
    """Variables that only run-once nodes write."""
    written_by: dict[str, set] = {}
    for op, kind in zip(ops, kinds):
        for name in op.output_arg_names:
            written_by.setdefault(name, set()).add(kind[0] if kind else 'each')
    return {n for n, k in written_by.items() if k == {'once'}}


def _written_in_place(ops) -> set[str]:
    """Variables some op updates in place (an output declared `inplace` in the op's schema)."""
    names: set[str] = set()
    for op in ops:
        info = COLLECTIVE_INFOS.get(op.type) or BUCKET_INFOS.get(op.type) or registry.get(op.type)
        for out_slot in info.inplace:
            names.update(op.outputs.get(out_slot, ()))
    return names


def shared_persistables(program, n_places: int, loss_name=None, reduce_mode: bool = False,
                        gradient_scale: int = _COEFF_NUM_DEVICE) -> set[str]:
    """The persistables all places share (Reduce mode): those only run-once optimizer ops write."""
    if not reduce_mode:
        return set()
    ops, kinds, _ = _per_place_ops(program, n_places, loss_name, reduce_mode, gradient_scale)
    return {n for n in _written_only_once(ops, kinds) if (v := program.global_block()._find_var_recursive(n))
            is not None and v.persistable}


def build_data_parallel_plan(program, n_places: int, feed_names, fetch_names, loss_name=None,
                             reduce_mode: bool = False, gradient_scale: int = _COEFF_NUM_DEVICE,
                             n_ranks: int | None = None, context=None, feed_lod=(), n_trainers: int = 1,
                             fuse_all_reduce: bool = True, fuse_grad_size_mb: float = 32.0) -> ExecutionPlan:
    """The multi-place plan of `program`'s global block; see the module docstring. `gradient_scale` is
    BuildStrategy.GradientScaleStrategy's value; `context` the compile context kernels are made with; `n_ranks` the
    loss@GRAD seed's divisor (places times trainers); `feed_lod` the (name, levels) of fed names that carry LoD
    (every place's share carries as many levels). With several trainers, or cross-process collectives in the
    program, the collective pass fuses the gradients into buckets of `fuse_grad_size_mb` (passes/collective.py)."""
    scale_strategy = gradient_scale
    n_ranks = n_ranks or n_places
    block = program.global_block()
    if reduce_mode and n_trainers > 1:
        raise NotImplementedError('ReduceStrategy.Reduce with several trainers (BuildStrategy.num_trainers = %d) is '
                                  'not supported: use ReduceStrategy.AllReduce' % n_trainers)
    ops, kinds, seed_index = _per_place_ops(program, n_places, loss_name, reduce_mode, scale_strategy, n_trainers)
    extra_deps: dict = {}
    if n_trainers > 1 or has_cross_process_ops(program):
        settings = settings_of(program)
        if settings is not None:
            fuse_all_reduce, fuse_grad_size_mb = settings.fuse_all_reduce_ops, settings.fuse_grad_size_in_MB
        seed_op = ops[seed_index] if seed_index is not None else None
        ops, kinds, extra_deps = plan_collectives(block, ops, kinds, n_places, n_trainers, fuse_all_reduce,
                                                  fuse_grad_size_mb)
        seed_index = next(j for j, op in enumerate(ops) if op is seed_op) if seed_op is not None else None
    a = BlockAnalysis(block, feed_names, fetch_names, ops=ops, op_infos={**COLLECTIVE_INFOS, **BUCKET_INFOS},
                      feed_lod=feed_lod)
    for j, more in extra_deps.items():
        a.deps[j] |= more
    stride = len(a.slot_of)
    coeff = 1.0 / n_ranks if scale_strategy == _COEFF_NUM_DEVICE else 1.0

    shared = _written_only_once(ops, kinds) & a.persistable if reduce_mode else set()
    inplace_written = _written_in_place(ops)

    # node ids: per op index, the node of each place
    node_of: list[list[int]] = []
    count = 0
    for kind in kinds:
        if kind is None:
            node_of.append(list(range(count, count + n_places)))
            count += n_places
        else:
            node_of.append([count] * n_places)
            count += 1

    nodes: list[PlanNode] = []
    deps: list[set[int]] = []
    for j, op in enumerate(ops):
        kind = kinds[j]
        in_spec, out_spec, free = a.in_specs[j], a.out_specs[j], a.frees[j]
        if kind is None:
            lod_step = a.lod_steps[j]
            for p in range(n_places):
                off = p * stride
                kernel = (_seed_kernel(op, coeff) if j == seed_index
                          else registry.make_kernel(op, context, a.op_lods[j]))
                nodes.append(PlanNode(len(nodes), op, kernel, tuple(_shift(s, off) for s in in_spec),
                                      tuple(_shift(s, off) for s in out_spec), [s + off for s in free], place=p,
                                      lod=None if lod_step is None else lod_step.shifted(off)))
                deps.append({node_of[d][p] for d in a.deps[j]})
            continue
        all_free = [s + p * stride for p in range(n_places) for s in free]
        grad = op.input_arg_names[0] if op.type in COLLECTIVE_INFOS else None
        if kind[0] in ('bucket_start', 'bucket_wait', 'span'):
            kernel, ins, outs, label = span_node(op, kind, in_spec, out_spec, stride, n_places, inplace_written)
            node = PlanNode(len(nodes), op, kernel, ins, outs, all_free, place=0, label=label)
        elif kind[0] == 'all':
            slots = _spread(in_spec[0], stride, n_places)
            kernel = _all_reduce_kernel(grad, n_places, grad in inplace_written)
            node = PlanNode(len(nodes), op, kernel, (slots,), (slots,), all_free, place=0,
                            label='all_reduce(%s)' % grad)
        elif kind[0] == 'reduce':
            owner = kind[1]
            kernel = _reduce_kernel(grad)
            node = PlanNode(len(nodes), op, kernel, (_spread(in_spec[0], stride, n_places),),
                            (_shift(out_spec[0], owner * stride),), all_free, place=owner,
                            label='reduce(%s -> place %d)' % (grad, owner))
        else:                       # run once on the owner place, outputs broadcast
            owner = kind[1]
            off = owner * stride
            spread = tuple(_spread(s, stride, n_places) for s in out_spec)
            info = registry.get(op.type)
            copies = tuple(any(n in a.persistable and n not in shared for n in op.outputs.get(slot, ()))
                           for slot in info.outputs)
            kernel = _broadcast_kernel(registry.make_kernel(op, context, a.op_lods[j]), out_spec, n_places, copies)
            node = PlanNode(len(nodes), op, kernel, tuple(_shift(s, off) for s in in_spec), spread, all_free,
                            place=owner, label='%s (once, on place %d)' % (op.type, owner))
        nodes.append(node)
        deps.append({node_of[d][p] for p in range(n_places) for d in a.deps[j]})

    first = place_binding(a)
    plan = ExecutionPlan(stride * n_places, nodes, [first.shifted(p * stride) for p in range(n_places)], a.slot_of)
    plan.link(deps)
    plan.analysis = a
    plan.slots_per_place = stride
    plan.shared_persistables = shared
    plan.loss_grad_fed = scale_strategy == _CUSTOMIZED and loss_name is not None
    return plan
