"""What the sequence ops share: reading a LoD kernel input, with Paddle's errors naming the variable.

A kernel whose LoD rule declares `ctx.read('X')` gets X's LoD (framework/lod.py: a tuple of int64 offset arrays,
possibly empty) as an extra argument; None when X carries no LoD in this plan. These helpers turn it into the
offsets a kernel loops over, and refuse what Paddle refuses, naming the op and the variable.

A complete op that reads its input's LoD and gives its output a new one (the pattern of ops/sequence_rows.py):

    defop('my_seq_op', ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))

    @lod_rule('my_seq_op')
    def _(ctx):
        ctx.read('X')                  # the kernel's extra argument, after its schema inputs
        ctx.compute('Out', 1)          # the kernel's extra result, after its schema outputs: a 1-level LoD

    @kernel_rule('my_seq_op')
    def _(spec):
        name = input_name(spec, 'X')
        def run(x, x_lod):
            offsets = last_level(x_lod, x, 'MySeqOp', name)      # Paddle's error when X has no LoD
            out, out_offsets = numba_kernel(rows2d(x), offsets)   # one loop over the sequences
            return out, as_lod([out_offsets])
        return run

    @lod_rule('my_seq_op_grad')
    def _(ctx):
        ctx.read('X')                  # the grad kernel needs the forward LoD too
        ctx.share('X', 'X@GRAD')

An op that only passes LoD on needs nothing (the default shares X's LoD with Out when the rows are kept) or a
`ctx.share(...)` rule; its kernel never sees a LoD.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet

__all__ = ['require_lod', 'last_level', 'check_rows', 'rows2d', 'input_name']


def input_name(spec, slot: str, i: int = 0) -> str:
    names = spec.op.inputs.get(slot) or []
    return names[i] if i < len(names) else '?'


def require_lod(lod, op_name: str, var: str, slot: str = 'X'):
    """`lod`, or Paddle's "does not contain LoD information" error."""
    if not lod:
        raise EnforceNotMet("Input(%s) Tensor of %s does not contain LoD information: the variable '%s' has no LoD "
                            "(feed it as a LoDTensor, or a nested list when it is declared with lod_level > 0)"
                            % (slot, op_name, var))
    return lod


def check_rows(offsets: np.ndarray, rows: int, op_name: str, var: str) -> None:
    """The LoD must end at the tensor's rows (the kernels index rows by it)."""
    if int(offsets[-1]) != rows:
        raise EnforceNotMet("%s: the LoD of '%s' covers %d rows but the tensor has %d rows (its last offset must "
                            "equal the first dimension)" % (op_name, var, int(offsets[-1]), rows))


def last_level(lod, x, op_name: str, var: str, slot: str = 'X', max_levels: int | None = None) -> np.ndarray:
    """The offsets of the last LoD level of `x` (checked against its rows)."""
    lod = require_lod(lod, op_name, var, slot)
    if max_levels is not None and len(lod) > max_levels:
        raise EnforceNotMet('%s only supports %s LoD: Input(%s) \'%s\' has %d levels'
                            % (op_name, 'one level of' if max_levels == 1 else 'at most %d levels of' % max_levels,
                               slot, var, len(lod)))
    offsets = lod[-1]
    check_rows(offsets, x.shape[0], op_name, var)
    return offsets


def rows2d(x: np.ndarray) -> np.ndarray:
    """x as [rows, width] (trailing dimensions flattened; a vector is one column)."""
    return x.reshape(x.shape[0], -1) if x.ndim != 2 else x
