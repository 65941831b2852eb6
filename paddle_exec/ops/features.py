"""Feature ops of fluid 1.8's layers.nn: a similarity-focus mask, feature hashing, the FSP matrix of distillation,
instances filtered by tag (kernels/features.py holds the loops).

    similarity_focus  X [N, D1, D2, D3] -> Out 0/1 mask (attrs axis in 1..3, indexes)
    hash           X [N, L] int32/int64 -> Out [N, num_hash, 1]: XXH64(row bytes, seed k) % mod_by; keeps LoD
    fsp            X [N, C1, H, W], Y [N, C2, H, W] -> Out [N, C1, C2] = X Y^T / (H W) (the FSP matrix)
    filter_by_instag  Ins (rows, LoD when is_lod), Ins_tag (LoD int64 tags per instance), Filter_tag int64 ->
                   Out (the instances having a wanted tag, LoD of them), LossWeight [K, 1] float32, IndexMap
                   [K, 3] (out row, ins row, rows); no match: one row of out_val_if_empty and weight 0

Gradients where Paddle 1.8 has them: fsp, filter_by_instag.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ..kernels import features as KS
from ._lod import input_name, last_level

__all__: list[str] = []

# --- similarity_focus -----------------------------------------------------------------------------------------

defop('similarity_focus', ['X'], ['Out'], {'axis': 1, 'indexes': []})


@shape_rule('similarity_focus')
def _similarity_focus_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) != 4:
        raise ValueError("operator 'similarity_focus': Input(X)'s rank should be 4, got %s" % list(x))
    ctx.set_output('Out', x, ctx.in_dtype('X'))


@kernel_rule('similarity_focus')
def _similarity_focus_kernel(spec):
    axis = int(spec.attr('axis'))
    indexes = np.asarray(spec.attr('indexes'), np.int64)
    if axis not in (1, 2, 3):
        raise ValueError("operator 'similarity_focus': The value of Attr(axis) must be 1 or 2 or 3, but received "
                         "%d." % axis)
    if indexes.size == 0:
        raise ValueError("operator 'similarity_focus': The size of Attr(indexes) must be greater than 0")

    def run(x):
        if indexes.max() >= x.shape[axis] or indexes.min() < 0:
            raise EnforceNotMet("operator 'similarity_focus': Each value of Attr(indexes) must be less than "
                                "X.dim[axis] (%d), got %s" % (x.shape[axis], indexes.tolist()))
        return (KS.similarity_focus(np.ascontiguousarray(x), axis, indexes),)
    return run


# --- hash -----------------------------------------------------------------------------------------------------

defop('hash', ['X'], ['Out'], {'num_hash': 1, 'mod_by': 100000})


@shape_rule('hash')
def _hash_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) < 2:
        raise ValueError("operator 'hash': Input(X) must be at least 2-D, got %s" % list(x))
    ctx.set_output('Out', tuple(x[:-1]) + (int(ctx.attr('num_hash')), 1), ctx.in_dtype('X'))


@kernel_rule('hash')
def _hash_kernel(spec):
    num_hash, mod_by = int(spec.attr('num_hash')), int(spec.attr('mod_by'))

    def run(x):
        x = np.ascontiguousarray(x)
        rows = x.reshape(-1, x.shape[-1]).view(np.uint8).reshape(-1, x.shape[-1] * x.itemsize)
        hashes = KS.xxh64_rows(rows, num_hash, mod_by)
        return (hashes.astype(x.dtype).reshape(x.shape[:-1] + (num_hash, 1)),)
    return run


# --- fsp ------------------------------------------------------------------------------------------------------

defop('fsp', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('fsp')
def _fsp_shape(ctx):
    x, y = ctx.in_shape('X'), ctx.in_shape('Y')
    if len(x) != 4 or len(y) != 4:
        raise ValueError("operator 'fsp': The Input(X) and Input(Y) must be 4-D [N, C, H, W], got %s and %s"
                         % (list(x), list(y)))
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(x[2:], y[2:])):
        raise ValueError("operator 'fsp': The Input(X) and Input(Y) should have the same height and width, got "
                         "%s and %s" % (list(x), list(y)))
    ctx.set_output('Out', (x[0], x[1], y[1]), ctx.in_dtype('X'))


@kernel_rule('fsp')
def _fsp_kernel(spec):
    def run(x, y):
        n, c1, h, w = x.shape
        xf, yf = x.reshape(n, c1, h * w), y.reshape(n, y.shape[1], h * w)
        return ((xf @ yf.transpose(0, 2, 1)) / x.dtype.type(h * w),)
    return run


@kernel_rule('fsp_grad')
def _fsp_grad_kernel(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(x, y, dout):
        n, c1, h, w = x.shape
        scale = x.dtype.type(h * w)
        xf, yf = x.reshape(n, c1, h * w), y.reshape(n, y.shape[1], h * w)
        dx = ((dout @ yf) / scale).reshape(x.shape) if want_x else None
        dy = ((dout.transpose(0, 2, 1) @ xf) / scale).reshape(y.shape) if want_y else None
        return dx, dy
    return run


# --- filter_by_instag -----------------------------------------------------------------------------------------

defop('filter_by_instag', ['Ins', 'Ins_tag', 'Filter_tag'], ['Out', 'LossWeight', 'IndexMap'],
      {'is_lod': True, 'out_val_if_empty': 0},
      grad=GradSpec(('Ins', 'LossWeight', 'IndexMap', 'Out@GRAD'), ('Ins@GRAD',)))


@shape_rule('filter_by_instag')
def _filter_by_instag_shape(ctx):
    ins = ctx.in_shape('Ins')
    if len(ins) != 2:
        raise ValueError("operator 'filter_by_instag': Input(Ins) must be 2-D [rows, width], got %s" % list(ins))
    ctx.set_output('Out', (-1, ins[1]), ctx.in_dtype('Ins'))
    ctx.set_output('LossWeight', (-1, 1), VarType.FP32)
    ctx.set_output('IndexMap', (-1, 3), VarType.INT64)


@lod_rule('filter_by_instag')
def _filter_by_instag_lod(ctx):
    ctx.read('Ins')
    ctx.read('Ins_tag')
    ctx.compute('Out', 1)
    ctx.compute('LossWeight', 1)
    ctx.compute('IndexMap', 1)


@kernel_rule('filter_by_instag')
def _filter_by_instag_kernel(spec):
    is_lod = bool(spec.attr('is_lod'))
    empty_value = spec.attr('out_val_if_empty')
    tag_name = input_name(spec, 'Ins_tag')

    def run(ins, ins_tag, filter_tag, ins_lod, tag_lod):
        tag_offsets = last_level(tag_lod, ins_tag, 'filter_by_instag', tag_name, 'Ins_tag')
        if is_lod:
            ins_offsets = last_level(ins_lod, ins, 'filter_by_instag', input_name(spec, 'Ins'), 'Ins')
        else:
            ins_offsets = np.arange(ins.shape[0] + 1, dtype=np.int64)
        wanted = set(np.asarray(filter_tag).reshape(-1).tolist())
        tags = np.asarray(ins_tag).reshape(-1)
        starts, lengths = [], []
        for i in range(len(tag_offsets) - 1):
            if any(int(t) in wanted for t in tags[tag_offsets[i]:tag_offsets[i + 1]]):
                starts.append(int(ins_offsets[i]))
                lengths.append(int(ins_offsets[i + 1] - ins_offsets[i]))
        if not starts:
            out = np.full((1, ins.shape[1]), empty_value, ins.dtype)
            index_map = np.array([[0, 1, 1]], np.int64)
            weight = np.zeros((1, 1), np.float32)
            out_lod = as_lod([np.array([0, 1], np.int64)])
            return out, weight, index_map, out_lod, out_lod, out_lod
        out_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        out = np.concatenate([ins[s:s + n] for s, n in zip(starts, lengths)]) if out_offsets[-1] else \
            np.zeros((0, ins.shape[1]), ins.dtype)
        index_map = np.stack([out_offsets[:-1], np.array(starts, np.int64), np.array(lengths, np.int64)], 1)
        weight = np.ones((len(starts), 1), np.float32)
        map_lod = as_lod([np.arange(len(starts) + 1, dtype=np.int64)])
        return out, weight, index_map, as_lod([out_offsets]), map_lod, map_lod
    return run


@kernel_rule('filter_by_instag_grad')
def _filter_by_instag_grad_kernel(spec):
    def run(ins, weight, index_map, dout):
        dx = np.zeros(ins.shape, dout.dtype)
        if weight.size != 1 or weight.reshape(-1)[0] != 0:
            for out_row, ins_row, rows in np.asarray(index_map).reshape(-1, 3):
                dx[ins_row:ins_row + rows] = dout[out_row:out_row + rows]
        return (dx,)
    return run
