"""yolov3_loss as Paddle 1.8 defines it (numerics and gradient in kernels/yolov3_loss.py):

    yolov3_loss(X [N, M*(5+C), H, W], GTBox [N, B, 4], GTLabel [N, B] int32, GTScore? [N, B])
        -> Loss [N], ObjectnessMask [N, M, H, W] (X's dtype), GTMatchMask [N, B] int32
       attrs: anchors, anchor_mask (M of them), class_num (C), ignore_thresh, downsample_ratio, use_label_smooth,
              scale_x_y
    yolov3_loss_grad(X, GTBox, GTLabel, GTScore?, ObjectnessMask, GTMatchMask, Loss@GRAD) -> X@GRAD

Only X has a gradient (Paddle's grad op writes no other).
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import yolov3_loss as K

__all__ = []

defop('yolov3_loss', ['X', 'GTBox', 'GTLabel', 'GTScore'], ['Loss', 'ObjectnessMask', 'GTMatchMask'],
      {'anchors': [], 'anchor_mask': [], 'class_num': 0, 'ignore_thresh': 0.7, 'downsample_ratio': 32,
       'use_label_smooth': True, 'scale_x_y': 1.0},
      dispensable=['GTScore'],
      grad=GradSpec(('X', 'GTBox', 'GTLabel', 'GTScore', 'ObjectnessMask', 'GTMatchMask', 'Loss@GRAD'),
                    ('X@GRAD',)))


def _fail(msg: str) -> None:
    raise ValueError("operator 'yolov3_loss': " + msg)


@shape_rule('yolov3_loss')
def _yolov3_loss_shape(ctx):
    x, box, label = ctx.in_shape('X'), ctx.in_shape('GTBox'), ctx.in_shape('GTLabel')
    anchors, mask = list(ctx.attr('anchors')), list(ctx.attr('anchor_mask'))
    class_num = int(ctx.attr('class_num'))
    if len(x) != 4:
        _fail('Input(X) should be a 4-D tensor. But received X dimension size(%d)' % len(x))
    if x[2] != x[3] and x[2] >= 0 and x[3] >= 0:
        _fail('Input(X) dims[2] and dims[3] should be equal. But received X dims[2](%d) != X dims[3](%d)'
              % (x[2], x[3]))
    if x[1] >= 0 and x[1] != len(mask) * (5 + class_num):
        _fail('Input(X) dim[1] should be equal to (anchor_mask_number * (5 + class_num)). But received dim[1](%d) '
              '!= (anchor_mask_number * (5+class_num)) (%d).' % (x[1], len(mask) * (5 + class_num)))
    if len(box) != 3 or box[2] != 4:
        _fail('Input(GTBox) should be a 3-D tensor with the last dimension 4, got %s' % list(box))
    if len(label) != 2:
        _fail('Input(GTLabel) should be a 2-D tensor. But received Input(GTLabel) dimension size(%d) != 2.'
              % len(label))
    if not anchors or len(anchors) % 2:
        _fail('Attr(anchors) length should be greater then 0 and even. But received anchors length(%d)'
              % len(anchors))
    for m in mask:
        if not 0 <= m < len(anchors) // 2:
            _fail('Attr(anchor_mask) is out of range [0, %d). But received anchor_mask[i](%d)'
                  % (len(anchors) // 2, m))
    if class_num <= 0:
        _fail('Attr(class_num) should be an integer greater then 0. But received class_num(%d) < 0' % class_num)
    dtype = ctx.in_dtype('X')
    ctx.set_output('Loss', (x[0],), dtype)
    ctx.set_output('ObjectnessMask', (x[0], len(mask), x[2], x[3]), dtype)
    ctx.set_output('GTMatchMask', (box[0], box[1]), VarType.INT32)


def _attrs(spec):
    return (list(spec.attr('anchors')), list(spec.attr('anchor_mask')), int(spec.attr('class_num')))


@kernel_rule('yolov3_loss')
def _yolov3_loss_kernel(spec):
    anchors, mask, class_num = _attrs(spec)
    rest = (float(spec.attr('ignore_thresh')), int(spec.attr('downsample_ratio')),
            bool(spec.attr('use_label_smooth')), float(spec.attr('scale_x_y')))
    return lambda x, box, label, score: K.yolov3_loss(x, box, label, score, anchors, mask, class_num, *rest)


@kernel_rule('yolov3_loss_grad')
def _yolov3_loss_grad_kernel(spec):
    anchors, mask, class_num = _attrs(spec)
    downsample, smooth = int(spec.attr('downsample_ratio')), bool(spec.attr('use_label_smooth'))

    def run(x, box, label, score, obj_mask, match_mask, dloss):
        return (K.yolov3_loss_grad(x, box, label, score, dloss, obj_mask, match_mask, anchors, mask, class_num,
                                   downsample, smooth),)
    return run
