"""einsum (Paddle 2.x): Operands (a list) -> Out, with Paddle's auxiliary outputs InnerCache and XShape (lists, one
per operand; paddle_exec leaves them empty), attribute `equation`. numpy.einsum computes it (optimize=True picks
a contraction order and uses BLAS).

The gradient of operand i is another einsum: the output gradient and the other operands contracted to operand i's
subscripts; a subscript only operand i has (summed away in the forward) is broadcast back, a repeated subscript
(a diagonal) is written on the diagonal of zeros.
"""
from __future__ import annotations

import string

import numpy as np

from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule

__all__ = ['parse_equation']


def parse_equation(equation: str, ranks) -> tuple[list, str]:
    """(operand subscripts, output subscripts) with '...' spelled out as letters the equation does not use and
    the implicit output made explicit (the labels seen once, sorted, after the broadcast dims)."""
    equation = equation.replace(' ', '')
    lhs, _, rhs = equation.partition('->')
    inputs = lhs.split(',')
    if len(inputs) != len(ranks):
        raise ValueError('Invalid equation: the number of operands is %d, but found %d segments in the label '
                         'equation.' % (len(ranks), len(inputs)))
    unused = [c for c in string.ascii_letters if c not in equation]
    ellipsis_rank = max((r - len(s.replace('...', '')) for s, r in zip(inputs, ranks) if '...' in s), default=0)
    dots = ''.join(unused[:ellipsis_rank])
    spelled = []
    for s, r in zip(inputs, ranks):
        if '...' in s:
            n = r - len(s.replace('...', ''))
            s = s.replace('...', dots[len(dots) - n:] if n else '')
        if len(s) != r:
            raise ValueError('Invalid equation: the label %r does not match an operand of rank %d' % (s, r))
        spelled.append(s)
    if '->' in equation:
        out = rhs.replace('...', dots)
    else:
        labels = ''.join(spelled)
        out = dots + ''.join(sorted(c for c in set(labels) if labels.count(c) == 1 and c not in dots))
    return spelled, out


defop('einsum', ['Operands'], ['Out', 'InnerCache', 'XShape'], {'equation': ''},
      duplicable=['Operands', 'InnerCache', 'XShape'], dispensable=['InnerCache', 'XShape'])
defop('einsum_grad', ['Operands', 'Out@GRAD'], ['Operands@GRAD'], {'equation': ''},
      duplicable=['Operands', 'Operands@GRAD'], dispensable=['Operands@GRAD'])


@shape_rule('einsum')
def _einsum_shape(ctx):
    vars_ = ctx.input_vars('Operands')
    subs, out = parse_equation(ctx.attr('equation'), [len(v.shape) for v in vars_])
    sizes = {}
    for s, v in zip(subs, vars_):
        for c, d in zip(s, v.shape):
            if d != 1 or c not in sizes:
                sizes[c] = d if sizes.get(c, 1) in (1, -1) or d == -1 else sizes[c]
    # a full contraction is [1], as every reduction here (no 0-d tensors)
    ctx.set_output('Out', tuple(sizes.get(c, -1) for c in out) or (1,), vars_[0].dtype)


@kernel_rule('einsum')
def _einsum_kernel(spec):
    equation = spec.attr('equation')
    n = len(spec.op.output('InnerCache')) if spec.has_output('InnerCache') else 0

    def run(xs):
        subs, out = parse_equation(equation, [x.ndim for x in xs])
        result = np.einsum(','.join(subs) + '->' + out, *xs, optimize=True)
        result = np.asarray(result).astype(xs[0].dtype, copy=False)
        result = result.reshape(1) if result.ndim == 0 else result
        empty = [np.zeros((0,), xs[0].dtype) for _ in range(n)]
        return result, (empty or None), (list(empty) or None)
    return run


@grad_rule('einsum')
def _einsum_grad(g):
    return [('einsum_grad', {'Operands': g.input('Operands'), 'Out@GRAD': g.output_grad('Out')},
             {'Operands@GRAD': g.input_grad('Operands')}, {'equation': g.attrs['equation']})]


@shape_rule('einsum_grad')
def _einsum_grad_shape(ctx):
    for i, (name, v) in enumerate(zip(ctx.op.output('Operands@GRAD'), ctx.input_vars('Operands'))):
        if name != '@EMPTY@':
            ctx.set_output('Operands@GRAD', tuple(v.shape), v.dtype, i=i)


def _operand_grad(i: int, subs: list, out: str, xs, dout):
    target = subs[i]
    unique = ''.join(dict.fromkeys(target))
    available = set(out) | {c for j, s in enumerate(subs) if j != i for c in s}
    present = ''.join(c for c in unique if c in available)
    terms = [out] + [s for j, s in enumerate(subs) if j != i]
    operands = [dout] + [x for j, x in enumerate(xs) if j != i]
    g = np.einsum(','.join(terms) + '->' + present, *operands, optimize=True)
    sizes = {c: d for c, d in zip(target, xs[i].shape)}
    # subscripts summed away in the forward (only in this operand): broadcast back
    g = np.broadcast_to(np.expand_dims(g, [k for k, c in enumerate(unique) if c not in available]) if
                        len(present) < len(unique) else g, [sizes[c] for c in unique])
    if unique == target:
        return np.ascontiguousarray(g)
    # a repeated subscript: the gradient lives on the diagonal of the operand's repeated axes
    full = np.zeros(xs[i].shape, g.dtype)
    view = np.einsum(target + '->' + unique, full)
    view.setflags(write=True)
    view[...] = g
    return full


@kernel_rule('einsum_grad')
def _einsum_grad_kernel(spec):
    equation = spec.attr('equation')
    wanted = [n != '@EMPTY@' for n in spec.op.output('Operands@GRAD')]

    def run(xs, dout):
        subs, out = parse_equation(equation, [x.ndim for x in xs])
        dout = np.asarray(dout).reshape(()) if len(out) == 0 else np.asarray(dout)
        return ([_operand_grad(i, subs, out, xs, dout).astype(x.dtype) if w else None
                 for i, (x, w) in enumerate(zip(xs, wanted))],)
    return run
