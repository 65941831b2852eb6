"""bilinear_tensor_product, cos_sim and row_conv ops (kernels/linear_maps.py holds the numerics).

Paddle facts kept here: bilinear_tensor_product's Bias is [1, K] and optional; cos_sim's Y has X's rows or one
row (broadcast), and its norms XNorm / YNorm are outputs the gradient reads; row_conv's input is one [T, D]
sequence or a [B, T, D] batch of equal-length ones (LoD sequences of different lengths are the LoD ops' domain).
"""
from __future__ import annotations

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import linear_maps as KL
from ._util import prod

# ---------------------------------------------------------------------------------------------------------------
# bilinear_tensor_product

defop('bilinear_tensor_product', ['X', 'Y', 'Weight', 'Bias'], ['Out'], {}, dispensable=['Bias'],
      grad=GradSpec(('X', 'Y', 'Weight', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD', 'Weight@GRAD', 'Bias@GRAD')))


@shape_rule('bilinear_tensor_product')
def _btp_shape(ctx):
    xs, ys, ws = ctx.in_shape('X'), ctx.in_shape('Y'), ctx.in_shape('Weight')
    if len(xs) != 2 or len(ys) != 2 or len(ws) != 3:
        raise ValueError("operator 'bilinear_tensor_product': X and Y must be 2-D and Weight 3-D, got X %s, Y %s, "
                         "Weight %s" % (list(xs), list(ys), list(ws)))
    if (xs[1] >= 0 and ws[1] != xs[1]) or (ys[1] >= 0 and ws[2] != ys[1]):
        raise ValueError("operator 'bilinear_tensor_product': Weight %s must be [K, %d, %d] for X %s and Y %s"
                         % (list(ws), xs[1], ys[1], list(xs), list(ys)))
    if ctx.has_input('Bias') and prod(ctx.in_shape('Bias')) not in (ws[0], -1):
        raise ValueError("operator 'bilinear_tensor_product': Bias must be [1, %d], got %s"
                         % (ws[0], list(ctx.in_shape('Bias'))))
    ctx.set_output('Out', (xs[0], ws[0]), ctx.in_dtype('X'))


@kernel_rule('bilinear_tensor_product')
def _btp_kernel(spec):
    return lambda x, y, w, bias: (KL.bilinear_forward(x, y, w, bias),)


@kernel_rule('bilinear_tensor_product_grad')
def _btp_grad_kernel(spec):
    return lambda x, y, w, dout: KL.bilinear_backward(x, y, w, dout)


# ---------------------------------------------------------------------------------------------------------------
# cos_sim

defop('cos_sim', ['X', 'Y'], ['Out', 'XNorm', 'YNorm'], {},
      grad=GradSpec(('X', 'Y', 'Out', 'XNorm', 'YNorm', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('cos_sim')
def _cos_sim_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(xs) != len(ys) or list(xs[1:]) != list(ys[1:]):
        raise ValueError("operator 'cos_sim': X and Y must have the same shape after the first dim, got X %s and Y %s"
                         % (list(xs), list(ys)))
    if xs[0] >= 0 and ys[0] >= 0 and ys[0] not in (1, xs[0]):
        raise ValueError("operator 'cos_sim': Y must have X's rows (%d) or one row, got %d" % (xs[0], ys[0]))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Out', (xs[0], 1), dtype)
    ctx.set_output('XNorm', (xs[0], 1), dtype)
    ctx.set_output('YNorm', (ys[0], 1), dtype)


@kernel_rule('cos_sim')
def _cos_sim_kernel(spec):
    return lambda x, y: KL.cos_sim_forward(x, y)


@kernel_rule('cos_sim_grad')
def _cos_sim_grad_kernel(spec):
    need_x, need_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')
    return lambda x, y, out, xn, yn, dout: KL.cos_sim_backward(x, y, out, xn, yn, dout, need_x, need_y)


# ---------------------------------------------------------------------------------------------------------------
# row_conv

defop('row_conv', ['X', 'Filter'], ['Out'], {}, grad=GradSpec(('X', 'Filter', 'Out@GRAD'), ('X@GRAD', 'Filter@GRAD')))


@shape_rule('row_conv')
def _row_conv_shape(ctx):
    xs, fs = ctx.in_shape('X'), ctx.in_shape('Filter')
    if len(xs) not in (2, 3) or len(fs) != 2 or (xs[-1] >= 0 and fs[1] != xs[-1]):
        raise ValueError("operator 'row_conv': X must be [T, D] or [B, T, D] and Filter [future_context + 1, D], got "
                         "X %s and Filter %s" % (list(xs), list(fs)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('row_conv')
def _row_conv_kernel(spec):
    return lambda x, f: (KL.row_conv_forward(x, f),)


@kernel_rule('row_conv_grad')
def _row_conv_grad_kernel(spec):
    need_x, need_f = spec.has_output('X@GRAD'), spec.has_output('Filter@GRAD')
    return lambda x, f, dout: KL.row_conv_backward(x, f, dout, need_x, need_f)
