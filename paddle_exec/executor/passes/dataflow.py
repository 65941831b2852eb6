"""Data-flow facts of an op list, shared by the stage passes (stage.py, smart_stage.py).

    preds, succs = data_flow(block.ops)     # preds[j]: the ops whose outputs op j reads; succs the inverse
    ancestors_closure(seeds, preds)         # the seeds and everything they depend on
    multiply_written(ops)                   # variables written by more than one op (in-place updates)
    is_reader_var(var)                      # a reader handle (a data source, never carried across a stage)
"""
from __future__ import annotations

from ...framework.dtype import VarType
from ...framework.variable import EMPTY_VAR_NAME

__all__ = ['data_flow', 'ancestors_closure', 'is_reader_var', 'multiply_written']


def data_flow(ops) -> tuple[list[set], list[set]]:
    """preds[j]: the ops whose outputs op j reads (last writer before j of each input); succs: the inverse."""
    last_writer: dict[str, int] = {}
    preds: list[set] = []
    for j, op in enumerate(ops):
        p = {last_writer[n] for n in op.input_arg_names if n in last_writer}
        p.discard(j)
        preds.append(p)
        for n in op.output_arg_names:
            if n != EMPTY_VAR_NAME:
                last_writer[n] = j
    succs: list[set] = [set() for _ in ops]
    for j, p in enumerate(preds):
        for i in p:
            succs[i].add(j)
    return preds, succs


def ancestors_closure(seeds, preds) -> set:
    done = set()
    todo = list(seeds)
    while todo:
        j = todo.pop()
        if j in done:
            continue
        done.add(j)
        todo.extend(preds[j] - done)
    return done


def is_reader_var(var) -> bool:
    return var is not None and var.type == VarType.READER


def multiply_written(ops) -> set[str]:
    counts: dict[str, int] = {}
    for op in ops:
        for n in set(op.output_arg_names):
            counts[n] = counts.get(n, 0) + 1
    return {n for n, c in counts.items() if c > 1 and n != EMPTY_VAR_NAME}
