"""Loss ops: cross_entropy, cross_entropy2, softmax_with_cross_entropy, sigmoid_cross_entropy_with_logits,
bce_loss, log_loss, huber_loss.

The numerics live in `kernels/loss.py` (verified against Paddle 1.8.5); this module holds the schemas, shapes and
the glue. Paddle facts kept here:
- fluid 1.8's `layers.cross_entropy` with hard labels builds `cross_entropy2` (outputs Y, MatchX = x[label],
  XShape) whose gradient op is named `cross_entropy_grad2` and reads MatchX instead of X.
- `softmax_with_cross_entropy` reads Paddle 2.x's `use_softmax` attribute when set (1.8 has none: True). False
  treats Logits as probabilities (Softmax is Logits itself, the loss is `-log(p[label])`, the gradient
  `-dLoss / p[label]`).
- an ignored hard label (== ignore_index) gets loss 0 and gradient 0 (Paddle >= 2.0; 1.8 left `softmax * dLoss` in
  those rows, a gradient of nothing: not reproduced).
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, segment_rule, shape_rule
from ..kernels import loss as KL
from ..kernels.segment import loss as SL
from ._util import segment_op, var_rank


def _label_shape_error(op_type, xs, ls, soft):
    want = 'the shape of X' if soft else 'the shape of X with 1 in the last dimension'
    raise ValueError("operator '%s': Label must have %s (soft_label=%s); X %s, Label %s"
                     % (op_type, want, soft, list(xs), list(ls)))


def _check_label(op_type, xs, ls, soft, axis=-1, label_without_last=False):
    """Label's shape against X's. `label_without_last`: hard labels may also drop X's last dimension (Paddle 1.8's
    cross_entropy / cross_entropy2 take Label [N, T] for X [N, T, D]; their Y then has Label's shape)."""
    axis %= max(len(xs), 1)
    if label_without_last and not soft and len(ls) == len(xs) - 1:
        if any(a >= 0 and b >= 0 and a != b for a, b in zip(xs[:-1], ls)):
            _label_shape_error(op_type, xs, ls, soft)
        return
    if len(ls) != len(xs):
        _label_shape_error(op_type, xs, ls, soft)
    for i, (a, b) in enumerate(zip(xs, ls)):
        if a < 0 or b < 0:
            continue
        want = a if soft or i != axis else 1
        if b != want:
            _label_shape_error(op_type, xs, ls, soft)


def _with_one_at(shape, axis):
    shape = list(shape)
    shape[axis] = 1
    return tuple(shape)


def _hard_loss_shape(xs, ls):
    """Y of cross_entropy / cross_entropy2: X's shape with 1 last, or Label's when it has no last dimension."""
    return tuple(ls) if len(ls) == len(xs) - 1 else _with_one_at(xs, -1)


def _as_label_shape(y, x, label):
    return y.reshape(label.shape) if label.ndim == x.ndim - 1 else y


# ---------------------------------------------------------------------------------------------------------------
# cross_entropy (soft or hard labels on probabilities, last axis)

defop('cross_entropy', ['X', 'Label'], ['Y'], {'soft_label': False, 'ignore_index': -100},
      grad=GradSpec(('X', 'Label', 'Y@GRAD'), ('X@GRAD',)))


@shape_rule('cross_entropy')
def _xent_shape(ctx):
    xs, ls = ctx.in_shape('X'), ctx.in_shape('Label')
    _check_label('cross_entropy', xs, ls, ctx.attr('soft_label'), label_without_last=True)
    ctx.set_output('Y', _hard_loss_shape(xs, ls), ctx.in_dtype('X'))


@kernel_rule('cross_entropy')
def _xent_kernel(spec):
    soft, ignore = bool(spec.attr('soft_label')), int(spec.attr('ignore_index'))
    return lambda x, label: (_as_label_shape(KL.cross_entropy_forward(x, label, soft_label=soft,
                                                                      ignore_index=ignore), x, label),)


@kernel_rule('cross_entropy_grad')
def _xent_grad_kernel(spec):
    soft, ignore = bool(spec.attr('soft_label')), int(spec.attr('ignore_index'))
    return lambda x, label, dy: (KL.cross_entropy_backward(x, label, dy, soft_label=soft, ignore_index=ignore),)


# ---------------------------------------------------------------------------------------------------------------
# cross_entropy2 (hard labels; its grad op is `cross_entropy_grad2`)

defop('cross_entropy2', ['X', 'Label'], ['Y', 'XShape', 'MatchX'], {'ignore_index': -100})
defop('cross_entropy_grad2', ['Label', 'MatchX', 'XShape', 'Y@GRAD'], ['X@GRAD'], {'ignore_index': -100})


@grad_rule('cross_entropy2')
def _xent2_grad_maker(g):
    return [('cross_entropy_grad2',
             {'Label': g.input('Label'), 'MatchX': g.output('MatchX'), 'XShape': g.output('XShape'),
              'Y@GRAD': g.output_grad('Y')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@shape_rule('cross_entropy2')
def _xent2_shape(ctx):
    xs, ls = ctx.in_shape('X'), ctx.in_shape('Label')
    _check_label('cross_entropy2', xs, ls, False, label_without_last=True)
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', _hard_loss_shape(xs, ls), dtype)
    ctx.set_output('MatchX', _hard_loss_shape(xs, ls), dtype)
    ctx.set_output('XShape', (0,) + tuple(xs), dtype)


@shape_rule('cross_entropy_grad2')
def _xent2_grad_shape(ctx):
    xshape = ctx.input_var('XShape')
    ctx.set_output('X@GRAD', tuple(xshape.shape[1:]), xshape.dtype)


def _flat_hard_labels(label, n):
    return np.ascontiguousarray(label, dtype=np.int64).reshape(n)


@kernel_rule('cross_entropy2')
def _xent2_kernel(spec):
    ignore = int(spec.attr('ignore_index'))

    def run(x, label):
        y = _as_label_shape(KL.cross_entropy_forward(x, label, ignore_index=ignore), x, label)  # checks the range
        d = x.shape[-1]
        x2 = x.reshape(-1, d)
        lab = _flat_hard_labels(label, x2.shape[0])
        kept = lab != ignore
        match = np.zeros(x2.shape[0], dtype=x.dtype)
        match[kept] = x2[np.nonzero(kept)[0], lab[kept]]
        # XShape carries only the shape of X (Paddle keeps no data in it)
        return y, np.empty((0,) + x.shape, dtype=x.dtype), match.reshape(y.shape)
    return run


@kernel_rule('cross_entropy_grad2')
def _xent2_grad_kernel(spec):
    ignore = int(spec.attr('ignore_index'))

    def run(label, match_x, xshape, dy):
        x_shape = xshape.shape[1:]
        d = x_shape[-1]
        n = int(np.prod(x_shape[:-1], dtype=np.int64))
        lab = _flat_hard_labels(label, n)
        kept = np.nonzero(lab != ignore)[0]
        dx = np.zeros((n, d), dtype=dy.dtype)
        dx[kept, lab[kept]] = -dy.reshape(n)[kept] / match_x.reshape(n)[kept]
        return (dx.reshape(x_shape),)
    return run


# ---------------------------------------------------------------------------------------------------------------
# softmax_with_cross_entropy

defop('softmax_with_cross_entropy', ['Logits', 'Label'], ['Softmax', 'Loss'],
      {'soft_label': False, 'ignore_index': -100, 'numeric_stable_mode': True, 'axis': -1},
      grad=GradSpec(('Label', 'Softmax', 'Loss@GRAD'), ('Logits@GRAD',)))


@shape_rule('softmax_with_cross_entropy')
def _swce_shape(ctx):
    xs, ls = ctx.in_shape('Logits'), ctx.in_shape('Label')
    axis = ctx.attr('axis')
    if not -len(xs) <= axis < len(xs):
        raise ValueError("operator 'softmax_with_cross_entropy': axis %d is out of range for Logits of rank %d"
                         % (axis, len(xs)))
    _check_label('softmax_with_cross_entropy', xs, ls, ctx.attr('soft_label'), axis)
    dtype = ctx.in_dtype('Logits')
    ctx.set_output('Softmax', xs, dtype)
    ctx.set_output('Loss', _with_one_at(xs, axis), dtype)


def _last_axis(a, axis):
    return a if axis in (-1, a.ndim - 1) else np.moveaxis(a, axis, -1)


@kernel_rule('softmax_with_cross_entropy')
def _swce_kernel(spec):
    soft, ignore, axis = bool(spec.attr('soft_label')), int(spec.attr('ignore_index')), int(spec.attr('axis'))
    if spec.attr('use_softmax', True):
        def run(logits, label):
            return KL.softmax_with_cross_entropy_forward(logits, label, soft_label=soft, ignore_index=ignore,
                                                         axis=axis)
        return run

    def run_on_probabilities(probs, label):
        loss = KL.cross_entropy_forward(_last_axis(probs, axis), _last_axis(label, axis), soft_label=soft,
                                        ignore_index=ignore)
        return probs, np.ascontiguousarray(np.moveaxis(loss, -1, axis))
    return run_on_probabilities


@kernel_rule('softmax_with_cross_entropy_grad')
def _swce_grad_kernel(spec):
    soft, ignore, axis = bool(spec.attr('soft_label')), int(spec.attr('ignore_index')), int(spec.attr('axis'))
    if spec.attr('use_softmax', True):
        def run(label, softmax, dloss):
            return (KL.softmax_with_cross_entropy_backward(softmax, label, dloss, soft_label=soft,
                                                           ignore_index=ignore, axis=axis),)
        return run

    def run_on_probabilities(label, probs, dloss):
        dx = KL.cross_entropy_backward(_last_axis(probs, axis), _last_axis(label, axis), _last_axis(dloss, axis),
                                       soft_label=soft, ignore_index=ignore)
        return (np.ascontiguousarray(np.moveaxis(dx, -1, axis)),)
    return run_on_probabilities


# ---------------------------------------------------------------------------------------------------------------
# elementwise losses: sigmoid_cross_entropy_with_logits, bce_loss, log_loss

def _same_shape_check(op_type, a_slot, b_slot, ctx):
    a, b = ctx.in_shape(a_slot), ctx.in_shape(b_slot)
    if len(a) != len(b) or any(x >= 0 and y >= 0 and x != y for x, y in zip(a, b)):
        raise ValueError("operator '%s': %s and %s must have the same shape, got %s and %s"
                         % (op_type, a_slot, b_slot, list(a), list(b)))
    return a


defop('sigmoid_cross_entropy_with_logits', ['X', 'Label'], ['Out'], {'ignore_index': -100, 'normalize': False},
      grad=GradSpec(('X', 'Label', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sigmoid_cross_entropy_with_logits')
def _sce_shape(ctx):
    xs = _same_shape_check('sigmoid_cross_entropy_with_logits', 'X', 'Label', ctx)
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('sigmoid_cross_entropy_with_logits')
def _sce_kernel(spec):
    ignore, normalize = int(spec.attr('ignore_index')), bool(spec.attr('normalize'))
    return lambda x, label: (KL.sigmoid_cross_entropy_with_logits_forward(x, label, ignore, normalize),)


@kernel_rule('sigmoid_cross_entropy_with_logits_grad')
def _sce_grad_kernel(spec):
    ignore, normalize = int(spec.attr('ignore_index')), bool(spec.attr('normalize'))
    return lambda x, label, dout: (KL.sigmoid_cross_entropy_with_logits_backward(x, label, dout, ignore,
                                                                                 normalize),)


defop('bce_loss', ['X', 'Label'], ['Out'], grad=GradSpec(('X', 'Label', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('bce_loss')
def _bce_shape(ctx):
    xs = _same_shape_check('bce_loss', 'X', 'Label', ctx)
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('bce_loss')
def _bce_kernel(spec):
    return lambda x, label: (KL.bce_loss_forward(x, label),)


@kernel_rule('bce_loss_grad')
def _bce_grad_kernel(spec):
    return lambda x, label, dout: (KL.bce_loss_backward(x, label, dout),)


defop('log_loss', ['Predicted', 'Labels'], ['Loss'], {'epsilon': 1e-4},
      grad=GradSpec(('Predicted', 'Labels', 'Loss@GRAD'), ('Predicted@GRAD',)))


@shape_rule('log_loss')
def _log_loss_shape(ctx):
    ps = _same_shape_check('log_loss', 'Predicted', 'Labels', ctx)
    if len(ps) != 2 or ps[1] not in (1, -1):
        raise ValueError("operator 'log_loss': the rank of Input(Predicted) must be 2 and the shape is "
                         "[batch_size, 1], got %s" % (list(ps),))
    ctx.set_output('Loss', ps, ctx.in_dtype('Predicted'))


@kernel_rule('log_loss')
def _log_loss_kernel(spec):
    eps = float(spec.attr('epsilon'))
    return lambda p, label: (KL.log_loss_forward(p, label, eps),)


@kernel_rule('log_loss_grad')
def _log_loss_grad_kernel(spec):
    eps = float(spec.attr('epsilon'))
    return lambda p, label, dloss: (KL.log_loss_backward(p, label, dloss, eps),)


# ---------------------------------------------------------------------------------------------------------------
# huber_loss: Residual = Y - X; Out = r^2 / 2 if |r| <= delta else delta * (|r| - delta / 2)

defop('huber_loss', ['X', 'Y'], ['Residual', 'Out'], {'delta': 1.0},
      grad=GradSpec(('Residual', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('huber_loss')
def _huber_shape(ctx):
    xs = _same_shape_check('huber_loss', 'X', 'Y', ctx)
    ctx.set_output('Residual', xs, ctx.in_dtype('X'))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('huber_loss')
def _huber_kernel(spec):
    delta = float(spec.attr('delta'))

    def run(x, y):
        r = y - x
        a = np.abs(r)
        out = np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)).astype(x.dtype, copy=False)
        return r, out
    return run


@kernel_rule('huber_loss_grad')
def _huber_grad_kernel(spec):
    delta = float(spec.attr('delta'))
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(residual, dout):
        d_r = (np.clip(residual, -delta, delta) * dout).astype(dout.dtype, copy=False)   # d out / d residual
        return (-d_r if want_x else None), (d_r if want_y else None)
    return run


# ---------------------------------------------------------------------------------------------------------------
# smooth_l1_loss (Diff = (X - Y) * InsideWeight, Out [N, 1]), kldiv_loss, label_smooth: see kernels/loss.py

defop('smooth_l1_loss', ['X', 'Y', 'InsideWeight', 'OutsideWeight'], ['Diff', 'Out'], {'sigma': 1.0},
      dispensable=['InsideWeight', 'OutsideWeight'],
      grad=GradSpec(('InsideWeight', 'OutsideWeight', 'Diff', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@grad_rule('smooth_l1_loss')
def _smooth_l1_grad_maker(g):
    inputs = {'Diff': g.output('Diff'), 'Out@GRAD': g.output_grad('Out')}
    for slot in ('InsideWeight', 'OutsideWeight'):
        if g.op.inputs.get(slot):
            inputs[slot] = g.input(slot)
    outputs = {'X@GRAD': g.input_grad('X'), 'Y@GRAD': g.input_grad('Y')}
    return [('smooth_l1_loss_grad', inputs, outputs, dict(g.attrs))]


@shape_rule('smooth_l1_loss')
def _smooth_l1_shape(ctx):
    xs = _same_shape_check('smooth_l1_loss', 'X', 'Y', ctx)
    if len(xs) < 2:
        raise ValueError("operator 'smooth_l1_loss': the rank of X should be greater than or equal to 2, got shape "
                         "%s" % (list(xs),))
    if ctx.has_input('InsideWeight') != ctx.has_input('OutsideWeight'):
        raise ValueError("operator 'smooth_l1_loss': If weights are provided, must specify both inside and outside "
                         "weights.")
    if ctx.has_input('InsideWeight'):
        _same_shape_check('smooth_l1_loss', 'X', 'InsideWeight', ctx)
        _same_shape_check('smooth_l1_loss', 'X', 'OutsideWeight', ctx)
    ctx.set_output('Diff', xs, ctx.in_dtype('X'))
    ctx.set_output('Out', (xs[0], 1), ctx.in_dtype('X'))


@kernel_rule('smooth_l1_loss')
def _smooth_l1_kernel(spec):
    sigma = float(spec.attr('sigma'))
    return lambda x, y, iw, ow: KL.smooth_l1_loss_forward(x, y, iw, ow, sigma)


@kernel_rule('smooth_l1_loss_grad')
def _smooth_l1_grad_kernel(spec):
    sigma = float(spec.attr('sigma'))
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(iw, ow, diff, dout):
        dx = KL.smooth_l1_loss_backward(diff, dout, iw, ow, sigma)
        return (dx if want_x else None), (-dx if want_y else None)
    return run


defop('kldiv_loss', ['X', 'Target'], ['Loss'], {'reduction': 'mean'},
      grad=GradSpec(('X', 'Target', 'Loss@GRAD'), ('X@GRAD',)))


@shape_rule('kldiv_loss')
def _kldiv_shape(ctx):
    xs = _same_shape_check('kldiv_loss', 'X', 'Target', ctx)
    reduction = ctx.attr('reduction')
    if reduction not in ('none', 'batchmean', 'mean', 'sum'):
        raise ValueError("operator 'kldiv_loss': Attr(reduction) can only be 'none'|'batchmean'|'sum'|'mean', got %r"
                         % (reduction,))
    ctx.set_output('Loss', xs if reduction == 'none' else (1,), ctx.in_dtype('X'))


@kernel_rule('kldiv_loss')
def _kldiv_kernel(spec):
    reduction = spec.attr('reduction')
    return lambda x, target: (KL.kldiv_loss_forward(x, target, reduction),)


@kernel_rule('kldiv_loss_grad')
def _kldiv_grad_kernel(spec):
    reduction = spec.attr('reduction')
    return lambda x, target, dloss: (KL.kldiv_loss_backward(target, dloss, reduction),)


defop('label_smooth', ['X', 'PriorDist'], ['Out'], {'epsilon': 0.0}, dispensable=['PriorDist'],
      grad=GradSpec(('Out@GRAD',), ('X@GRAD',)))


@shape_rule('label_smooth')
def _label_smooth_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('PriorDist'):
        n = 1
        for d in ctx.in_shape('PriorDist'):
            n *= d
        if xs[-1] >= 0 and n >= 0 and n != xs[-1]:
            raise ValueError("operator 'label_smooth': The number of elements in input 'PriorDist' must be equal to "
                             "the dimension of each label. But received each label's dimension=[%d], number of "
                             "elements in input 'PriorDist' is [%d]" % (xs[-1], n))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('label_smooth')
def _label_smooth_kernel(spec):
    eps = float(spec.attr('epsilon'))
    return lambda x, prior: (KL.label_smooth_forward(x, prior, eps),)


@kernel_rule('label_smooth_grad')
def _label_smooth_grad_kernel(spec):
    eps = float(spec.attr('epsilon'))
    return lambda dout: (KL.label_smooth_backward(dout, eps),)


# --- segment rules: hard-label softmax_with_cross_entropy over the last axis, sigmoid_cross_entropy_with_logits -----

def _swce_compiles(spec, logits_slot: str) -> bool:
    rank = var_rank(spec, logits_slot)
    return (rank is not None and not spec.attr('soft_label') and spec.attr('use_softmax', True)
            and int(spec.attr('axis')) in (-1, rank - 1))


@segment_rule('softmax_with_cross_entropy')
def _swce_segment(spec):
    if not _swce_compiles(spec, 'Logits'):
        return None
    return segment_op(SL.softmax_xent, ['Logits', 'Label'], ['Softmax', 'Loss'], (int(spec.attr('ignore_index')),))


@segment_rule('softmax_with_cross_entropy_grad')
def _swce_grad_segment(spec):
    if not _swce_compiles(spec, 'Softmax'):
        return None
    return segment_op(SL.softmax_xent_grad, ['Label', 'Softmax', 'Loss@GRAD'], ['Logits@GRAD'],
                      (int(spec.attr('ignore_index')), False))


@segment_rule('sigmoid_cross_entropy_with_logits')
def _sce_segment(spec):
    return segment_op(SL.sigmoid_xent, ['X', 'Label'], ['Out'],
                      (int(spec.attr('ignore_index')), bool(spec.attr('normalize'))))


@segment_rule('sigmoid_cross_entropy_with_logits_grad')
def _sce_grad_segment(spec):
    return segment_op(SL.sigmoid_xent_grad, ['X', 'Label', 'Out@GRAD'], ['X@GRAD'],
                      (int(spec.attr('ignore_index')), bool(spec.attr('normalize'))))
