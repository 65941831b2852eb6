"""A Program a fusion pass may rewrite without touching the user's: `rewritten_program(program)`.

The copy shares everything with the original (its attributes, its sub-blocks, its Operators and Variables) except
the global block: a new Block holding a copy of the variable table (the pass adds its fused variables there) and
the same op list (the pass replaces it). Operators the pass keeps stay bound to the original block, so what they
look up (variables, the program's LR schedulers) is unchanged; the new ones are bound to the copy's block. The copy
gets an id of its own, so no cache keyed by a program's id confuses the two.
"""
from __future__ import annotations

import itertools

from ...framework.program import Block, Program

__all__ = ['rewritten_program']

# ids far above the ones Program() hands out, never reused
_rewrite_ids = itertools.count(1 << 40)


def rewritten_program(program: Program) -> Program:
    out = Program.__new__(Program)          # a shallow copy (Program refuses pickling, which copy.copy uses)
    out.__dict__.update(program.__dict__)
    out._id = next(_rewrite_ids)
    original = program.global_block()
    block = Block(out, 0)
    block.vars = dict(original.vars)
    block.ops = list(original.ops)
    out.blocks = [block] + program.blocks[1:]
    return out
