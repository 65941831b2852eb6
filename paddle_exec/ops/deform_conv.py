"""deformable_conv (v2: modulated by Mask) and deformable_conv_v1 ops; numerics in kernels/deform_conv.py.

Paddle facts kept here: the filter is [OC, C / groups, kh, kw]; paddings, strides and dilations are 2 values;
`im2col_step` (how many samples Paddle's kernel unfolds at once) changes nothing numerically and is kept only as
an attribute; the bias is a separate elementwise_add.
"""
from __future__ import annotations

from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import deform_conv as KD

_ATTRS = {'strides': [1, 1], 'paddings': [0, 0], 'dilations': [1, 1], 'groups': 1, 'deformable_groups': 1,
          'im2col_step': 64}
defop('deformable_conv', ['Input', 'Offset', 'Mask', 'Filter'], ['Output'], _ATTRS,
      grad=GradSpec(('Input', 'Offset', 'Mask', 'Filter', 'Output@GRAD'),
                    ('Input@GRAD', 'Offset@GRAD', 'Mask@GRAD', 'Filter@GRAD')))
defop('deformable_conv_v1', ['Input', 'Offset', 'Filter'], ['Output'], _ATTRS,
      grad=GradSpec(('Input', 'Offset', 'Filter', 'Output@GRAD'), ('Input@GRAD', 'Offset@GRAD', 'Filter@GRAD')))


def _shape(ctx):
    xs, ws, os = ctx.in_shape('Input'), ctx.in_shape('Filter'), ctx.in_shape('Offset')
    if len(xs) != 4 or len(ws) != 4 or len(os) != 4:
        raise ValueError("operator '%s': Input, Offset and Filter must be 4-D, got %s, %s and %s"
                         % (ctx.op.type, list(xs), list(os), list(ws)))
    groups, dg = int(ctx.attr('groups') or 1), int(ctx.attr('deformable_groups') or 1)
    if xs[1] >= 0 and ws[1] * groups != xs[1]:
        raise ValueError("operator '%s': the input channels (%d) must equal the filter's channels (%d) times groups "
                         "(%d)" % (ctx.op.type, xs[1], ws[1], groups))
    (sh, sw), (ph, pw), (dh, dw) = ctx.attr('strides'), ctx.attr('paddings'), ctx.attr('dilations')
    oh = KD.deform_conv_output_size(xs[2], ws[2], ph, sh, dh) if xs[2] >= 0 else -1
    ow = KD.deform_conv_output_size(xs[3], ws[3], pw, sw, dw) if xs[3] >= 0 else -1
    if os[1] >= 0 and os[1] != 2 * dg * ws[2] * ws[3]:
        raise ValueError("operator '%s': Offset must have 2 * deformable_groups * kh * kw = %d channels, got %d"
                         % (ctx.op.type, 2 * dg * ws[2] * ws[3], os[1]))
    ctx.set_output('Output', (xs[0], ws[0], oh, ow), ctx.in_dtype('Input'))


def _attrs(spec) -> dict:
    return dict(strides=list(spec.attr('strides')), paddings=list(spec.attr('paddings')),
                dilations=list(spec.attr('dilations')), groups=int(spec.attr('groups') or 1),
                deformable_groups=int(spec.attr('deformable_groups') or 1))


for _t in ('deformable_conv', 'deformable_conv_v1'):
    shape_rule(_t)(_shape)


@kernel_rule('deformable_conv')
def _deform_kernel(spec):
    kw = _attrs(spec)
    return lambda x, offset, mask, w: (KD.deform_conv_forward(x, offset, mask, w, **kw),)


@kernel_rule('deformable_conv_v1')
def _deform_v1_kernel(spec):
    kw = _attrs(spec)
    return lambda x, offset, w: (KD.deform_conv_forward(x, offset, None, w, **kw),)


@kernel_rule('deformable_conv_grad')
def _deform_grad_kernel(spec):
    kw = _attrs(spec)
    return lambda x, offset, mask, w, dout: KD.deform_conv_backward(x, offset, mask, w, dout, **kw)


@kernel_rule('deformable_conv_v1_grad')
def _deform_v1_grad_kernel(spec):
    kw = _attrs(spec)

    def run(x, offset, w, dout):
        dx, doffset, _, dw = KD.deform_conv_backward(x, offset, None, w, dout, **kw)
        return dx, doffset, dw
    return run
