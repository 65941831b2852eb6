"""Sequence loss ops beyond CTC (which the LoD ops own): `warprnnt`, the RNN-Transducer loss of Paddle 2.x
(numerics in kernels/loss_rnnt.py).

As Paddle's op, `warprnnt` computes its gradient in the forward pass (output `warprnntgrad`, [B, T, U + 1, V]);
`warprnnt_grad` multiplies it by each sequence's loss gradient. (Paddle 2.6.2's CPU grad kernel multiplies every
sequence by the FIRST sequence's loss gradient: the same numbers for 'mean' / 'sum' losses, wrong ones for
weighted per-sequence losses; paddle_exec does not copy that.)
"""
from __future__ import annotations

import numpy as np

from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule
from ..kernels.loss_rnnt import rnnt_loss_and_grad

defop('warprnnt', ['input', 'label', 'input_lengths', 'label_lengths'], ['loss', 'warprnntgrad'],
      {'blank': 0, 'fastemit_lambda': -1.0})
defop('warprnnt_grad', ['input', 'warprnntgrad', 'loss@GRAD'], ['input@GRAD'], {'blank': 0,
                                                                                'fastemit_lambda': -1.0})


@grad_rule('warprnnt')
def _warprnnt_grad_maker(g):
    return [('warprnnt_grad', {'input': g.input('input'), 'warprnntgrad': g.output('warprnntgrad'),
                               'loss@GRAD': g.output_grad('loss')},
             {'input@GRAD': g.input_grad('input')}, dict(g.attrs))]


@shape_rule('warprnnt')
def _warprnnt_shape(ctx):
    xs = ctx.in_shape('input')
    if len(xs) != 4:
        raise ValueError("operator 'warprnnt': Input(input) should be [batch, max_frames, max_labels + 1, classes], "
                         "got %s" % (list(xs),))
    ctx.set_output('loss', (xs[0],), ctx.in_dtype('input'))
    ctx.set_output('warprnntgrad', xs, ctx.in_dtype('input'))


@shape_rule('warprnnt_grad')
def _warprnnt_grad_shape(ctx):
    ctx.set_output('input@GRAD', ctx.in_shape('input'), ctx.in_dtype('input'))


@kernel_rule('warprnnt')
def _warprnnt(spec):
    blank, fastemit = int(spec.attr('blank')), float(np.float32(spec.attr('fastemit_lambda')))
    return lambda acts, labels, act_lens, label_lens: rnnt_loss_and_grad(acts, labels, act_lens, label_lens, blank,
                                                                        max(fastemit, 0.0))


@kernel_rule('warprnnt_grad')
def _warprnnt_grad(spec):
    def run(acts, grad, dloss):
        scale = np.asarray(dloss, grad.dtype).reshape((-1,) + (1,) * (grad.ndim - 1))
        return ((grad * scale).astype(grad.dtype),)
    return run
