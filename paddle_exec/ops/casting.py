"""The cast op: cast(X) -> Out, attrs in_dtype and out_dtype (VarType codes).

Floats to ints truncate and nonzero to bool is True (numpy's astype, as Paddle's static_cast). The gradient is a
cast of Out@GRAD back to the input's dtype (Paddle's CastOpGradMaker).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule

__all__: list[str] = []


defop('cast', ['X'], ['Out'], {'in_dtype': 5, 'out_dtype': 5})


@shape_rule('cast')
def _cast_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.attr('out_dtype'))


@kernel_rule('cast')
def _cast(spec):
    dtype = to_numpy(spec.attr('out_dtype'))
    return lambda x: (np.array(x, dtype=dtype),)


@grad_rule('cast')
def _cast_grad_maker(g):
    # Paddle's CastOpGradMaker: the gradient is cast back to the input's dtype
    return [('cast', {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')},
             {'in_dtype': g.attrs['out_dtype'], 'out_dtype': g.attrs['in_dtype']})]
