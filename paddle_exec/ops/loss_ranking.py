"""Ranking and pairwise loss ops: rank_loss, margin_rank_loss, bpr_loss (numerics in kernels/loss_ranking.py).

Schemas, shape checks and gradient wiring are Paddle 1.8's: `rank_loss_grad` reads Label, Left, Right and
Out@GRAD; `margin_rank_loss_grad` reads Label, Activated and Out@GRAD (the forward's `Activated` output keeps
which pairs are inside the margin); `bpr_loss_grad` reads X, Label and Y@GRAD. Labels get no gradient.
"""
from __future__ import annotations

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import loss_ranking as K


def _same_dims(op_type: str, ctx, *slots) -> tuple:
    shapes = [tuple(ctx.in_shape(s)) for s in slots]
    first = shapes[0]
    for slot, shape in zip(slots[1:], shapes[1:]):
        if len(shape) != len(first) or any(a >= 0 and b >= 0 and a != b for a, b in zip(first, shape)):
            raise ValueError("operator '%s': The shape of Input(%s) %s and Input(%s) %s should be equal."
                             % (op_type, slots[0], list(first), slot, list(shape)))
    return first


# --- rank_loss ------------------------------------------------------------------------------------------------

defop('rank_loss', ['Label', 'Left', 'Right'], ['Out'],
      grad=GradSpec(('Label', 'Left', 'Right', 'Out@GRAD'), ('Left@GRAD', 'Right@GRAD')))


@shape_rule('rank_loss')
def _rank_loss_shape(ctx):
    shape = _same_dims('rank_loss', ctx, 'Label', 'Left', 'Right')
    if len(shape) > 2 or (len(shape) == 2 and shape[1] not in (1, -1)):
        raise ValueError("operator 'rank_loss': The dimensions of Input(Label) should be 1 or 2 with the second "
                         "dimension 1, got %s" % (list(shape),))
    ctx.set_output('Out', shape, ctx.in_dtype('Left'))


@kernel_rule('rank_loss')
def _rank_loss(spec):
    return lambda label, left, right: (K.rank_loss_forward(label, left, right),)


@kernel_rule('rank_loss_grad')
def _rank_loss_grad(spec):
    want_left, want_right = spec.has_output('Left@GRAD'), spec.has_output('Right@GRAD')

    def run(label, left, right, dout):
        dleft, dright = K.rank_loss_backward(dout, label, left, right)
        return (dleft if want_left else None), (dright if want_right else None)
    return run


# --- margin_rank_loss -----------------------------------------------------------------------------------------

defop('margin_rank_loss', ['X1', 'X2', 'Label'], ['Activated', 'Out'], {'margin': 0.0},
      grad=GradSpec(('Label', 'Activated', 'Out@GRAD'), ('X1@GRAD', 'X2@GRAD')))


@shape_rule('margin_rank_loss')
def _margin_rank_shape(ctx):
    shape = _same_dims('margin_rank_loss', ctx, 'Label', 'X1', 'X2')
    if len(shape) != 2 or shape[1] not in (1, -1):
        raise ValueError("operator 'margin_rank_loss': The rank of Input(Label) should be 2 with the second dimension "
                         "1, got %s" % (list(shape),))
    dtype = ctx.in_dtype('X1')
    ctx.set_output('Activated', shape, dtype)
    ctx.set_output('Out', shape, dtype)


@kernel_rule('margin_rank_loss')
def _margin_rank(spec):
    margin = float(spec.attr('margin'))

    def run(x1, x2, label):
        out, activated = K.margin_rank_loss_forward(label, x1, x2, margin)
        return activated, out
    return run


@kernel_rule('margin_rank_loss_grad')
def _margin_rank_grad(spec):
    want_x1, want_x2 = spec.has_output('X1@GRAD'), spec.has_output('X2@GRAD')

    def run(label, activated, dout):
        dx1, dx2 = K.margin_rank_loss_backward(dout, activated, label)
        return (dx1 if want_x1 else None), (dx2 if want_x2 else None)
    return run


# --- bpr_loss -------------------------------------------------------------------------------------------------

defop('bpr_loss', ['X', 'Label'], ['Y'], grad=GradSpec(('X', 'Label', 'Y@GRAD'), ('X@GRAD',)))


@shape_rule('bpr_loss')
def _bpr_shape(ctx):
    xs, ls = ctx.in_shape('X'), ctx.in_shape('Label')
    if len(xs) != len(ls):
        raise ValueError("operator 'bpr_loss': Input(X) and Input(Label) shall have the same rank, got %s and %s"
                         % (list(xs), list(ls)))
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(xs[:-1], ls[:-1])):
        raise ValueError("operator 'bpr_loss': Input(X) and Input(Label) shall have the same shape except the last "
                         "dimension, got %s and %s" % (list(xs), list(ls)))
    if ls[-1] not in (1, -1):
        raise ValueError("operator 'bpr_loss': the last dimension of Input(Label) should be 1, got %s"
                         % (list(ls),))
    ctx.set_output('Y', tuple(xs[:-1]) + (1,), ctx.in_dtype('X'))


@kernel_rule('bpr_loss')
def _bpr(spec):
    return lambda x, label: (K.bpr_loss_forward(x, label),)


@kernel_rule('bpr_loss_grad')
def _bpr_grad(spec):
    return lambda x, label, dy: (K.bpr_loss_backward(x, label, dy),)
