"""fluid.contrib.memory_usage_calc (Paddle 1.8's module path): memory_usage, 1.8's estimate of the memory a
program's outputs take for a batch size (each LoD tensor output once, -1 dims times the batch size, plus 5-10%)."""
from __future__ import annotations

import numpy as np

from ...framework.dtype import VarType, to_numpy
from ...framework.program import Program
from ...framework.variable import EMPTY_VAR_NAME

__all__ = ['memory_usage']


def memory_usage(program: Program, batch_size: int) -> tuple[float, float, str]:
    """(min, max, unit): the summed size of the program's LoD tensor outputs for `batch_size`, times 1.05 and 1.1,
    in B, KB or MB as 1.8 reports it."""
    if not isinstance(program, Program):
        raise TypeError('Calculating Memory Usage requires Program as its Parameter.But you passed in %s'
                        % type(program))
    if batch_size <= 0:
        raise ValueError('The batch size need to be positive.')
    block = program.global_block()
    total, seen = 0.0, {EMPTY_VAR_NAME}
    for op in block.ops:
        for name in op.output_arg_names:
            if name in seen:
                continue
            seen.add(name)
            var = block.vars.get(name)
            if var is None or var.type != VarType.LOD_TENSOR:
                continue
            count, negative = 1, 0
            for d in var.shape:
                if d < 0:
                    if negative:
                        raise ValueError('Var %s has more than one negative dim.' % name)
                    negative += 1
                    count *= batch_size * (-d)
                else:
                    count *= d
            total += count * np.dtype(to_numpy(var.dtype)).itemsize
    unit = 'B'
    if total > 1024:
        total, unit = total / 1024, 'KB'
        if total > 1024:
            total, unit = total / 1024, 'MB'
    return total * 1.05, total * 1.1, unit
