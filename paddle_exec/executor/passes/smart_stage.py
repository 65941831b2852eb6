"""SmartStage: move every op that only depends on the data in front of the stage, automatically (DeepRec's pass).

Switched on by `BuildStrategy.do_smart_stage = True` (CompiledProgram / ParallelExecutor) or
`static.enable_smart_stage(program)` (plain Executor); it needs at least one `staged` in the program (otherwise a
warning, and nothing changes). It rewrites the physical execution graph only: the Program, `str(program)` and
what is saved stay as written.

The pass marks the *compute side* of the global block: every op reachable (by data flow) from
    - an op that reads a persistable variable (parameters, optimizer state, any other persistable; reader handles
      do not count: they are the data source),
    - an op that reads a variable the user feeds (no op of the block computes it and it is not persistable),
    - a control-flow op (one with a sub-block), a backward, optimizer or learning-rate op,
    - an op that computes a variable named by `static.mark_target_node([...])`,
    - an op that writes a variable some other op also writes (in-place updates stay where they are).
Every other op downstream of the producer side (the stage inputs and everything computed from them) moves in front
of the stage, with whatever it needs that is not on the compute side (constants, say). Every value a compute-side
op reads from the producer side then crosses the boundary through the buffer (passes/stage.py `carried`).

    before                                             after
    read -> decode_csv -> stage -> hash -> lookup      read -> decode_csv -> stage -> hash  ||  lookup(table)
                                                                                  [buffer: hash ids]

executor/graphs.py draws the split (Graphviz): producer ops in one cluster, consumer ops in another, the values
crossing the boundary in orange.
"""
from __future__ import annotations

from ...framework.operator import OP_ROLE_ATTR, OpRole
from ...framework.variable import EMPTY_VAR_NAME
from .dataflow import ancestors_closure, is_reader_var, multiply_written

__all__ = ['grow_producer', 'compute_side']

_COMPUTE_ROLES = OpRole.Backward | OpRole.Optimize | OpRole.LRSched


def _is_compute_root(block, op, produced_before: set, targets: set, versioned: set) -> bool:
    if 'sub_block' in op.attrs or int(op.attrs.get(OP_ROLE_ATTR, 0)) & _COMPUTE_ROLES:
        return True
    outputs = set(op.output_arg_names)
    if outputs & targets or outputs & versioned:
        return True
    for n in op.input_arg_names:
        if n == EMPTY_VAR_NAME:
            continue
        var = block._find_var_recursive(n)
        if var is not None and var.persistable and not is_reader_var(var):
            return True                      # parameters and other state
        if n not in produced_before and (var is None or not var.persistable):
            return True                      # fed by the user (or only held by the scope)
    return False


def compute_side(block, producer: set, succs: list, targets: set) -> set:
    """The op indices outside `producer` that must stay in the step (see the module docstring)."""
    ops = block.ops
    versioned = multiply_written(ops)
    roots = set()
    produced: set[str] = set()
    for j, op in enumerate(ops):
        if j not in producer and _is_compute_root(block, op, produced, targets, versioned):
            roots.add(j)
        produced.update(op.output_arg_names)
    compute = set()
    todo = list(roots)
    while todo:
        j = todo.pop()
        if j in compute or j in producer:
            continue
        compute.add(j)
        todo.extend(succs[j])
    return compute


def grow_producer(block, producer: set, preds: list, succs: list, targets: set) -> list:
    """The ops SmartStage adds to the producer side: the non-compute ops downstream of it, and their non-compute
    ancestors."""
    compute = compute_side(block, producer, succs, targets)
    downstream = set()
    todo = [s for j in producer for s in succs[j]]
    while todo:
        j = todo.pop()
        if j in downstream or j in producer or j in compute:
            continue
        downstream.add(j)
        todo.extend(succs[j])
    grown = ancestors_closure(downstream, preds) - producer
    # an ancestor on the compute side cannot exist: it would have made its descendant compute side
    assert not grown & compute, 'SmartStage: an op to move depends on the compute side'
    return sorted(grown)
