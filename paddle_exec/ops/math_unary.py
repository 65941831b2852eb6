"""Paddle 2.x's elementwise math functions: acos, asin, atan, acosh, asinh, atanh, cosh, sinh, tan, expm1, log2,
log10, trunc, digamma, lgamma, erfinv, logit, the Bessel functions i0 / i0e / i1 / i1e, polygamma, and fluid 1.8's
soft_relu. Each is an opcode of the unary machine (kernels/unary.py; special functions in kernels/special.py), so
they share the activations' kernels: one jitted loop call per run, attributes cast as Paddle casts them.

Slots, attributes and gradients are Paddle's (2.6.2's op definitions; 1.8.5's for acos / asin / atan / soft_relu,
which agree): X -> Out, except that 2.x's newer ops i0, i0e, i1, i1e and polygamma name their slots x -> out. The
grad ops read what Paddle's read (`GRAD_DEPENDENCY`): X for most, Out for expm1, erfinv and soft_relu, nothing for
trunc (its gradient is zero).
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import unary as K
from .activation import declared_dtype, unary_backward, unary_kernel

# op type -> (opcode, default attributes, attributes passed to the loop as its constant a)
MATH_FUNCTIONS: dict[str, tuple[int, dict, tuple]] = {
    'acos': (K.ACOS, {}, ()), 'asin': (K.ASIN, {}, ()), 'atan': (K.ATAN, {}, ()),
    'acosh': (K.ACOSH, {}, ()), 'asinh': (K.ASINH, {}, ()), 'atanh': (K.ATANH, {}, ()),
    'cosh': (K.COSH, {}, ()), 'sinh': (K.SINH, {}, ()), 'tan': (K.TAN, {}, ()),
    'expm1': (K.EXPM1, {}, ()), 'log2': (K.LOG2, {}, ()), 'log10': (K.LOG10, {}, ()),
    'trunc': (K.TRUNC, {}, ()), 'digamma': (K.DIGAMMA, {}, ()), 'lgamma': (K.LGAMMA, {}, ()),
    'erfinv': (K.ERFINV, {}, ()), 'logit': (K.LOGIT, {'eps': 1e-6}, ('eps',)),
    'soft_relu': (K.SOFT_RELU, {'threshold': 40.0}, ('threshold',)),
    'i0': (K.I0, {}, ()), 'i0e': (K.I0E, {}, ()), 'i1': (K.I1, {}, ()), 'i1e': (K.I1E, {}, ()),
    'polygamma': (K.POLYGAMMA, {'n': 0}, ('n',)),
}
LOWERCASE_SLOTS = frozenset({'i0', 'i0e', 'i1', 'i1e', 'polygamma'})


def _slots(op_type: str) -> tuple[str, str]:
    return ('x', 'out') if op_type in LOWERCASE_SLOTS else ('X', 'Out')


def _grad_spec(op_type: str) -> GradSpec:
    x, out = _slots(op_type)
    dep = K.GRAD_DEPENDENCY[op_type]
    reads = {'x': (x, out + '@GRAD'), 'out': (out, out + '@GRAD'), 'none': (out + '@GRAD',)}[dep]
    return GradSpec(reads, (x + '@GRAD',))


def _same_shape(ctx):
    x, out = _slots(ctx.op.type)
    ctx.set_output(out, ctx.in_shape(x), ctx.in_dtype(x))


for _t, (_code, _attrs, _) in MATH_FUNCTIONS.items():
    _x, _out = _slots(_t)
    defop(_t, [_x], [_out], _attrs, grad=_grad_spec(_t))
    shape_rule(_t)(_same_shape)


def _loop_values(spec) -> list:
    return [float(spec.attr(n)) for n in MATH_FUNCTIONS[spec.type.replace('_grad', '')][2]]


@kernel_rule(*MATH_FUNCTIONS)
def _math_kernel(spec):
    opcode = MATH_FUNCTIONS[spec.type][0]
    return unary_kernel(opcode, _loop_values(spec), declared_dtype(spec, _slots(spec.type)[0]))


@kernel_rule(*(t + '_grad' for t in MATH_FUNCTIONS))
def _math_grad_kernel(spec):
    fwd_type = spec.type[:-len('_grad')]
    if K.GRAD_DEPENDENCY[fwd_type] == 'none':
        return lambda dout: (np.zeros(dout.shape, dout.dtype),)
    backward = unary_backward(MATH_FUNCTIONS[fwd_type][0], _loop_values(spec),
                              declared_dtype(spec, _slots(fwd_type)[1] + '@GRAD'))
    return lambda dep, dout: (backward(dep, dout),)


__all__ = ['MATH_FUNCTIONS', 'LOWERCASE_SLOTS']
