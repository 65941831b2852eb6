"""Classification loss ops: teacher_student_sigmoid_loss, sigmoid_focal_loss, center_loss (Paddle 1.8), nll_loss
and margin_cross_entropy (Paddle 2.x); numerics in kernels/loss_classification.py.

Paddle facts kept here: center_loss updates its Centers parameter in place from the forward pass (CentersOut is
Centers; the parameter has no gradient) and its grad op reads only SampleCenterDiff and Loss@GRAD; nll_loss's
mean/sum results are 0-D (Paddle 2.x) and its grad reads Total_weight; margin_cross_entropy runs on one card
(ring_id / rank / nranks must describe a single rank: Paddle 2.6 has no CPU kernel for it at all).
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ..kernels import loss_classification as K

# --- teacher_student_sigmoid_loss ---------------------------------------------------------------------------------

defop('teacher_student_sigmoid_loss', ['X', 'Label'], ['Y'],
      {'soft_max_up_bound': 15.0, 'soft_max_lower_bound': -15.0},
      grad=GradSpec(('X', 'Label', 'Y@GRAD'), ('X@GRAD',)))


@shape_rule('teacher_student_sigmoid_loss')
def _tss_shape(ctx):
    xs, ls = ctx.in_shape('X'), ctx.in_shape('Label')
    if len(xs) != 2 or xs[1] not in (1, -1):
        raise ValueError("operator 'teacher_student_sigmoid_loss': Input(X)'s shape should be [batch_size, 1], got "
                         "%s" % (list(xs),))
    if len(ls) != 2 or ls[1] not in (1, -1):
        raise ValueError("operator 'teacher_student_sigmoid_loss': Input(Label)'s shape should be [batch_size, 1], "
                         "got %s" % (list(ls),))
    ctx.set_output('Y', (xs[0], 1), ctx.in_dtype('X'))


@kernel_rule('teacher_student_sigmoid_loss')
def _tss(spec):
    return lambda x, label: (K.teacher_student_sigmoid_loss_forward(x, label),)


@kernel_rule('teacher_student_sigmoid_loss_grad')
def _tss_grad(spec):
    lower, upper = float(np.float32(spec.attr('soft_max_lower_bound'))), \
        float(np.float32(spec.attr('soft_max_up_bound')))
    return lambda x, label, dy: (K.teacher_student_sigmoid_loss_backward(x, label, dy, lower, upper),)


# --- sigmoid_focal_loss -------------------------------------------------------------------------------------------

defop('sigmoid_focal_loss', ['X', 'Label', 'FgNum'], ['Out'], {'gamma': 2.0, 'alpha': 0.25},
      grad=GradSpec(('X', 'Label', 'FgNum', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sigmoid_focal_loss')
def _focal_shape(ctx):
    xs, ls, fs = ctx.in_shape('X'), ctx.in_shape('Label'), ctx.in_shape('FgNum')
    if len(xs) != len(ls) or ls[-1] not in (1, -1):
        raise ValueError("operator 'sigmoid_focal_loss': Input(X) and Input(Label) should have the same rank and "
                         "Label's last dimension should be 1, got %s and %s" % (list(xs), list(ls)))
    if fs and int(np.prod(fs)) not in (1,) and all(d > 0 for d in fs):
        raise ValueError("operator 'sigmoid_focal_loss': Input(FgNum) should hold one number, got shape %s"
                         % (list(fs),))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('sigmoid_focal_loss')
def _focal(spec):
    gamma, alpha = float(np.float32(spec.attr('gamma'))), float(np.float32(spec.attr('alpha')))
    return lambda x, label, fg_num: (K.sigmoid_focal_loss_forward(x, label, fg_num, gamma, alpha),)


@kernel_rule('sigmoid_focal_loss_grad')
def _focal_grad(spec):
    gamma, alpha = float(np.float32(spec.attr('gamma'))), float(np.float32(spec.attr('alpha')))
    return lambda x, label, fg_num, dout: (K.sigmoid_focal_loss_backward(x, label, fg_num, dout, gamma, alpha),)


# --- center_loss --------------------------------------------------------------------------------------------------

defop('center_loss', ['X', 'Label', 'Centers', 'CenterUpdateRate'], ['SampleCenterDiff', 'Loss', 'CentersOut'],
      {'cluster_num': 0, 'need_update': True}, inplace={'CentersOut': 'Centers'})
defop('center_loss_grad', ['SampleCenterDiff', 'Loss@GRAD'], ['X@GRAD'])


@grad_rule('center_loss')
def _center_grad_maker(g):
    return [('center_loss_grad', {'SampleCenterDiff': g.output('SampleCenterDiff'), 'Loss@GRAD': g.output_grad('Loss')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@shape_rule('center_loss')
def _center_shape(ctx):
    xs, cs = ctx.in_shape('X'), ctx.in_shape('Centers')
    if len(cs) != 2 or (xs[-1] >= 0 and cs[1] >= 0 and xs[-1] != cs[1]):
        raise ValueError("operator 'center_loss': Input(Centers) should be [cluster_num, feature dim], got %s for X "
                         "%s" % (list(cs), list(xs)))
    dtype = ctx.in_dtype('X')
    ctx.set_output('SampleCenterDiff', (xs[0], xs[-1]), dtype)
    ctx.set_output('Loss', (xs[0], 1), dtype)
    ctx.set_output('CentersOut', cs, ctx.in_dtype('Centers'))


@shape_rule('center_loss_grad')
def _center_grad_shape(ctx):
    ctx.set_output('X@GRAD', ctx.in_shape('SampleCenterDiff'), ctx.in_dtype('SampleCenterDiff'))


def _writable(a):
    return a if a.flags.c_contiguous and a.flags.writeable else np.array(a, order='C', copy=True)


@kernel_rule('center_loss')
def _center(spec):
    need_update, cluster_num = bool(spec.attr('need_update')), int(spec.attr('cluster_num'))

    def run(x, label, centers, rate):
        return K.center_loss_forward(x, label, _writable(centers) if need_update else centers, rate, need_update,
                                     cluster_num)
    return run


@kernel_rule('center_loss_grad')
def _center_grad(spec):
    return lambda diff, dloss: ((np.asarray(dloss).reshape(-1, 1) * diff).astype(diff.dtype),)


# --- nll_loss (Paddle 2.x) ------------------------------------------------------------------------------------

defop('nll_loss', ['X', 'Label', 'Weight'], ['Out', 'Total_weight'], {'ignore_index': -100, 'reduction': 'mean'},
      dispensable=['Weight'], grad=GradSpec(('X', 'Label', 'Weight', 'Total_weight', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('nll_loss')
def _nll_shape(ctx):
    xs, ls = ctx.in_shape('X'), ctx.in_shape('Label')
    if len(xs) not in (2, 4):
        raise ValueError("operator 'nll_loss': the rank of Input(X) should be 2 or 4, got %s" % (list(xs),))
    if len(ls) != len(xs) - 1 or (xs[0] >= 0 and ls[0] >= 0 and xs[0] != ls[0]):
        raise ValueError("operator 'nll_loss': Input(X) and Input(Label) should have the same batch size and Label "
                         "one dimension less, got %s and %s" % (list(xs), list(ls)))
    if ctx.attr('reduction') not in ('none', 'mean', 'sum'):
        raise ValueError("operator 'nll_loss': reduction should be 'none', 'mean' or 'sum', got %r"
                         % (ctx.attr('reduction'),))
    dtype = ctx.in_dtype('X')
    out = ((xs[0],) if len(xs) == 2 else (xs[0],) + tuple(xs[2:])) if ctx.attr('reduction') == 'none' else ()
    ctx.set_output('Out', out, dtype)
    ctx.set_output('Total_weight', (), dtype)


@kernel_rule('nll_loss')
def _nll(spec):
    ignore, reduction = int(spec.attr('ignore_index')), spec.attr('reduction')
    return lambda x, label, weight: K.nll_loss_forward(x, label, weight, ignore, reduction)


@kernel_rule('nll_loss_grad')
def _nll_grad(spec):
    ignore, reduction = int(spec.attr('ignore_index')), spec.attr('reduction')
    return lambda x, label, weight, total, dout: (K.nll_loss_backward(x, label, weight, total, dout, ignore,
                                                                      reduction),)


# --- margin_cross_entropy (Paddle 2.x, one card) --------------------------------------------------------------

defop('margin_cross_entropy', ['Logits', 'Label'], ['Softmax', 'Loss'],
      {'return_softmax': False, 'ring_id': 0, 'rank': 0, 'nranks': 1, 'margin1': 1.0, 'margin2': 0.5,
       'margin3': 0.0, 'scale': 64.0},
      grad=GradSpec(('Logits', 'Label', 'Softmax', 'Loss@GRAD'), ('Logits@GRAD',)))


@shape_rule('margin_cross_entropy')
def _mce_shape(ctx):
    xs, ls = ctx.in_shape('Logits'), ctx.in_shape('Label')
    if len(xs) != 2 or len(ls) not in (1, 2):
        raise ValueError("operator 'margin_cross_entropy': Logits should be [N, C] and Label [N] or [N, 1], got %s "
                         "and %s" % (list(xs), list(ls)))
    if ctx.attr('nranks') != 1:
        raise ValueError("operator 'margin_cross_entropy': paddle_exec runs on one card (nranks=1); the class "
                         "dimension cannot be split over %d ranks" % ctx.attr('nranks'))
    dtype = ctx.in_dtype('Logits')
    ctx.set_output('Softmax', xs, dtype)
    ctx.set_output('Loss', (xs[0], 1), dtype)


def _margins(spec):
    return tuple(float(np.float32(spec.attr(a))) for a in ('margin1', 'margin2', 'margin3', 'scale'))


@kernel_rule('margin_cross_entropy')
def _mce(spec):
    m1, m2, m3, scale = _margins(spec)
    return lambda logits, label: K.margin_cross_entropy_forward(logits, label, m1, m2, m3, scale)


@kernel_rule('margin_cross_entropy_grad')
def _mce_grad(spec):
    m1, m2, m3, scale = _margins(spec)
    return lambda logits, label, softmax, dloss: (K.margin_cross_entropy_backward(logits, label, softmax, dloss, m1,
                                                                                  m2, m3, scale),)
