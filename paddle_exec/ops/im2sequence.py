"""im2sequence (fluid 1.8's layers.nn): the patches of each image as one sequence.

    im2sequence   X [N, C, H, W], Y? [N, 2] (each image's real height and width) -> Out LoD [sum oh_i * ow_i,
                  C * kh * kw]: row (oh, ow) of image i holds the kh x kw patch at (oh * sh - pad_up,
                  ow * sw - pad_left) of every channel (0 outside the image); attrs kernels, strides, paddings
                  (up, left, down, right), out_stride. Without Y every image has oh = (H + up + down - kh) / sh + 1
                  (ow likewise); with Y, image i's sizes come from ceil(real / out_stride) instead of H and W, the
                  patches still read from X[i] (Paddle 1.8's Im2ColFunctor on the output shape). Grad: the patches'
                  gradients added back at their pixels.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import GradSpec, _grad_shape_rule, defop, kernel_rule, lod_rule, shape_rule

__all__: list[str] = []

defop('im2sequence', ['X', 'Y'], ['Out'], {'kernels': [], 'strides': [1, 1], 'paddings': [0, 0, 0, 0],
                                           'out_stride': [1, 1]}, dispensable=['Y'],
      grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD',)))


def _out_size(size: int, k: int, pad0: int, pad1: int, stride: int) -> int:
    return (size + pad0 + pad1 - k) // stride + 1


@shape_rule('im2sequence')
def _im2sequence_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) != 4:
        raise ValueError("operator 'im2sequence': Input(X)'s rank must be 4 (NCHW), got %s" % list(x))
    kh, kw = [int(k) for k in ctx.attr('kernels')]
    ctx.set_output('Out', (-1, x[1] * kh * kw if x[1] >= 0 else -1), ctx.in_dtype('X'), lod_level=1)


@lod_rule('im2sequence')
def _im2sequence_lod(ctx):
    ctx.compute('Out', 1)


def _patch_index(spec, x_shape, y):
    """(flat indices into X, or -1 for padding, [rows, C * kh * kw]; row offsets per image)."""
    n, c, h, w = x_shape
    kh, kw = [int(k) for k in spec.attr('kernels')]
    sh, sw = [int(s) for s in spec.attr('strides')]
    up, left, down, right = [int(p) for p in spec.attr('paddings')]
    if y is None:
        sizes = [(_out_size(h, kh, up, down, sh), _out_size(w, kw, left, right, sw))] * n
    else:
        osh, osw = [int(s) for s in spec.attr('out_stride')]
        real = np.asarray(y).reshape(n, 2)
        sizes = [(_out_size(int((rh + osh - 1) // osh), kh, up, down, sh),
                  _out_size(int((rw + osw - 1) // osw), kw, left, right, sw)) for rh, rw in real]
    blocks, offsets = [], [0]
    ci, ki, kj = np.meshgrid(np.arange(c), np.arange(kh), np.arange(kw), indexing='ij')
    for i, (oh, ow) in enumerate(sizes):
        if oh <= 0 or ow <= 0:
            raise EnforceNotMet("operator 'im2sequence': the output of image %d would be %d x %d: the kernel %s is "
                                "larger than the padded image" % (i, oh, ow, [kh, kw]))
        rows = (np.arange(oh)[:, None, None, None, None] * sh - up + ki[None, None]).reshape(oh, 1, -1)
        cols = (np.arange(ow)[None, :, None, None, None] * sw - left + kj[None, None]).reshape(1, ow, -1)
        rows, cols = np.broadcast_arrays(rows, cols)
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
        flat = ((i * c + ci.reshape(1, 1, -1)) * h + rows) * w + cols
        blocks.append(np.where(inside, flat, -1).reshape(oh * ow, -1))
        offsets.append(offsets[-1] + oh * ow)
    return np.concatenate(blocks), np.array(offsets, np.int64)


@kernel_rule('im2sequence')
def _im2sequence_kernel(spec):
    def run(x, y=None):
        index, offsets = _patch_index(spec, x.shape, y)
        flat = np.asarray(x).reshape(-1)
        out = np.where(index >= 0, flat[np.maximum(index, 0)], 0).astype(x.dtype, copy=False)
        return out, as_lod([offsets])
    return run


shape_rule('im2sequence_grad')(_grad_shape_rule)


@lod_rule('im2sequence_grad')
def _im2sequence_grad_lod(ctx):
    """X@GRAD is an image gradient: it takes no LoD from Out@GRAD (whose rows are patches, not X's rows)."""


@kernel_rule('im2sequence_grad')
def _im2sequence_grad_kernel(spec):
    def run(x, y, dout):
        index, _ = _patch_index(spec, x.shape, y)
        dx = np.zeros(x.size, dout.dtype)
        valid = index >= 0
        np.add.at(dx, index[valid], dout[valid])
        return (dx.reshape(x.shape),)
    return run
