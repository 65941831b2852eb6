"""paddle.einsum (2.x): one `einsum` op over all operands (with the InnerCache / XShape outputs 2.6.2's builder
creates), numpy's einsum inside; see ops/einsum.py for the gradient."""
from __future__ import annotations

from ..layers.checks import check_variable_and_dtype
from ._append import append_op

__all__ = ['einsum']


def einsum(equation, *operands):
    """paddle.einsum: the Einstein summation `equation` ('ij,jk->ik', '...' for broadcast dims, the output
    implicit when '->' is left out) over the operands."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError('einsum(): must provide at least one operand')
    for v in operands:
        check_variable_and_dtype(v, 'operands', ('float16', 'float32', 'float64'), 'einsum')
    n = len(operands)
    out, _, _ = append_op('einsum', {'Operands': list(operands)},
                          {'Out': operands[0].dtype, 'InnerCache': [operands[0].dtype] * n,
                           'XShape': [operands[0].dtype] * n}, {'equation': equation})
    return out
