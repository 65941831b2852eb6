"""fluid.contrib's pyramid_hash op (Paddle 1.8.5's CPU kernel, operators/pyramid_hash_op.cc): hashed n-gram
embeddings of id sequences (kernels/pyramid_hash.py holds the loops).

    pyramid_hash  X int32 LoD [N, 1] ids, W [space_len + rand_len, 1], WhiteList / BlackList float tensors holding
                  Paddle's bloom filters (optional) -> Out LoD [rows, num_emb], DropPos int32 LoD [N * pyramid_layer,
                  1] (one 0/1 flag per window, the rest 0; its LoD counts the kept ones), X_Temp_Out float32 (the ids
                  as floats: the bytes that are hashed).
                  Each sequence of w >= 2 ids has its n-gram windows (n = 2..pyramid_layer); a window is kept when
                  the white filter has it and the black one does not (use_filter, *_list_len > 0), and in training
                  when glibc's rand_r(seed) / RAND_MAX >= drop_out_percent (the draws start again from `seed` on
                  every run, as Paddle's kernel does). Each kept window is one Out row: for j in 0, rand_len, ...,
                  Out[j:j + rand_len] = W[p:p + rand_len], p = XXH32(window bytes, j) % space_len. A sequence
                  without a kept window gives one zero row. Out's LoD counts each sequence's rows. Not training:
                  Out is scaled by drop_out_percent (Paddle's kernel does so).
    pyramid_hash_grad  no gradient flows back: it updates W in place, W[p:p + rand_len] -= lr * Out@GRAD row
                  pieces, window after window (Paddle's X@GRAD stays unwritten; here it is zeros). Paddle's
                  backward only builds it when X needs a gradient (X.stop_gradient False), as here.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..kernels import pyramid_hash as KP
from ._lod import input_name, last_level, require_lod

__all__: list[str] = []

_ATTRS = {'num_emb': 0, 'space_len': 0, 'pyramid_layer': 2, 'rand_len': 0, 'drop_out_percent': 0.0,
          'is_training': 0, 'use_filter': True, 'white_list_len': 0, 'black_list_len': 0, 'seed': 0, 'lr': 0.0,
          'distribute_update_vars': ''}
_MAGIC = 17070416

defop('pyramid_hash', ['X', 'W', 'WhiteList', 'BlackList'], ['Out', 'DropPos', 'X_Temp_Out'], _ATTRS,
      dispensable=['WhiteList', 'BlackList'])
# the grad op changes W itself, so it must never be skipped
defop('pyramid_hash_grad', ['X', 'W', 'DropPos', 'X_Temp_Out', 'Out@GRAD'], ['X@GRAD'], _ATTRS,
      dispensable=['X@GRAD'], stateful=True)


def _enforce(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError("operator 'pyramid_hash': " + message)


@shape_rule('pyramid_hash')
def _pyramid_hash_shape(ctx):
    x, w = ctx.in_shape('X'), ctx.in_shape('W')
    attr = ctx.attr
    for name, value in (('num_emb', 0), ('space_len', 0), ('pyramid_layer', 2), ('rand_len', 0), ('seed', 0),
                        ('white_list_len', 0), ('black_list_len', 0)):
        _enforce(int(attr(name)) >= value, 'Attr(%s) should be >= %d, but received %d' % (name, value, attr(name)))
    _enforce(len(x) == 2, 'The rank of Input(X) of PyramidHashOP is invalid. It should be 2, but got %d' % len(x))
    _enforce(len(w) == 2, 'The rank of Input(W) of PyramidHashOP is invalid. It should be 2, but got %d' % len(w))
    space_len, rand_len, num_emb = int(attr('space_len')), int(attr('rand_len')), int(attr('num_emb'))
    _enforce(w[0] < 0 or w[0] == space_len + rand_len,
             'The first dimension of Input(W) of PyramidHashOP is invalid. It should be space_len + rand_len, but '
             'now %d != %d + %d' % (w[0], space_len, rand_len))
    _enforce(w[1] < 0 or w[1] == 1, 'The second dimension of Input(W) of PyramidHashOP is invalid. It should be 1, '
             'but got %d' % w[1])
    _enforce(rand_len > 0 and num_emb % rand_len == 0, "The PyramidHashOP's Attr(num_emb) should mod "
             'Attr(rand_len), but num_emb is %d, rand_len is %d' % (num_emb, rand_len))
    for slot, length in (('WhiteList', int(attr('white_list_len'))), ('BlackList', int(attr('black_list_len')))):
        if length > 0:
            _enforce(ctx.has_input(slot), 'Input(%s) of PyramidHashOP is not found but %s_len > 0.'
                     % (slot, slot.lower().replace('list', '_list')))
            dims = ctx.in_shape(slot)
            _enforce(len(dims) == 2 and dims[0] in (-1, length) and dims[1] in (-1, 1),
                     'Input(%s) of PyramidHashOP must be [%d, 1], but got %s' % (slot, length, list(dims)))
    dtype = ctx.in_dtype('W')
    ctx.set_output('Out', (-1, num_emb), dtype)
    ctx.set_output('DropPos', (-1, 1), VarType.INT32)
    ctx.set_output('X_Temp_Out', tuple(x), VarType.FP32)


@lod_rule('pyramid_hash')
def _pyramid_hash_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', 1)
    ctx.compute('DropPos', 1)


def _ids_as_float_bytes(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paddle's X_Temp_Out: the first N ids (N = rows) as float32, the rest of the [N, D] buffer 0; and its bytes."""
    buff = np.zeros(x.shape, np.float32)
    flat = buff.reshape(-1)
    flat[:x.shape[0]] = np.asarray(x).reshape(-1)[:x.shape[0]].astype(np.int32)
    return buff, flat.view(np.uint8)


def _filter_bytes(spec, value, length: int, slot: str, what: str) -> tuple[np.ndarray, bool]:
    if not bool(spec.attr('use_filter')) or length == 0:
        return np.zeros(0, np.uint8), False
    if value is None:
        raise EnforceNotMet("operator 'pyramid_hash': Input(%s) is needed when use_filter and %s_len > 0"
                            % (slot, what))
    raw = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
    if raw.size < 32 or int(raw[:8].view(np.uint64)[0]) != _MAGIC:
        magic = int(raw[:8].view(np.uint64)[0]) if raw.size >= 8 else -1
        raise EnforceNotMet("operator 'pyramid_hash': %s filter not load (error magic_num %d; Input(%s) must hold a "
                            "bloom filter of Paddle's format, magic number %d)" % (what, magic, slot, _MAGIC))
    m = int(raw[8:16].view(np.uint64)[0])
    if m == 0 or 32 + (m + 7) // 8 > raw.size:
        raise EnforceNotMet("operator 'pyramid_hash': the %s filter in Input(%s) holds %d bits, more than its %d "
                            "bytes" % (what, slot, m, raw.size))
    return raw, True


class _Attrs:
    """The attributes every step reads, looked up once per plan."""

    def __init__(self, spec):
        self.num_emb = int(spec.attr('num_emb'))
        self.space_len = int(spec.attr('space_len'))
        self.rand_len = int(spec.attr('rand_len'))
        self.pyramid_layer = int(spec.attr('pyramid_layer'))
        self.is_training = int(spec.attr('is_training')) != 0
        self.seed = int(spec.attr('seed'))
        self.drop = float(spec.attr('drop_out_percent'))
        self.white_len = int(spec.attr('white_list_len'))
        self.black_len = int(spec.attr('black_list_len'))
        self.lr = float(spec.attr('lr'))


@kernel_rule('pyramid_hash')
def _pyramid_hash_kernel(spec):
    a = _Attrs(spec)
    name = input_name(spec, 'X')

    def run(x, w, white, black, x_lod):
        offsets = last_level(x_lod, x, 'PyramidHashOP', name)
        buff, ids_u8 = _ids_as_float_bytes(x)
        white_u8, use_white = _filter_bytes(spec, white, a.white_len, 'WhiteList', 'white')
        black_u8, use_black = _filter_bytes(spec, black, a.black_len, 'BlackList', 'black')
        flags, kept = KP.pyramid_flags(ids_u8, offsets, white_u8, black_u8, use_white, use_black, a.pyramid_layer,
                                       a.is_training, a.seed, a.drop, x.size * a.pyramid_layer)
        weights = np.ascontiguousarray(w).reshape(-1)
        out = KP.pyramid_forward(ids_u8, offsets, flags, kept, weights, a.num_emb, a.rand_len, a.space_len,
                                 a.pyramid_layer)
        if not a.is_training:
            out *= weights.dtype.type(a.drop)
        out_offsets = np.concatenate([[0], np.cumsum(np.maximum(kept, 1))]).astype(np.int64)
        drop_offsets = np.concatenate([[0], np.cumsum(kept)]).astype(np.int64)
        return out, flags.reshape(-1, 1), buff, as_lod([out_offsets]), as_lod([drop_offsets])
    return run


@grad_rule('pyramid_hash')
def _pyramid_hash_grad_maker(g):
    return [('pyramid_hash_grad', {'X': g.input('X'), 'W': g.input('W'), 'DropPos': g.output('DropPos'),
                                   'X_Temp_Out': g.output('X_Temp_Out'), 'Out@GRAD': g.output_grad('Out')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@shape_rule('pyramid_hash_grad')
def _pyramid_hash_grad_shape(ctx):
    if ctx.has_output('X@GRAD'):
        ctx.set_output('X@GRAD', ctx.in_shape('X'), ctx.in_dtype('X'))


@lod_rule('pyramid_hash_grad')
def _pyramid_hash_grad_lod(ctx):
    ctx.read('X')
    ctx.read('DropPos')


@kernel_rule('pyramid_hash_grad')
def _pyramid_hash_grad_kernel(spec):
    a = _Attrs(spec)
    name = input_name(spec, 'X')
    want_dx = spec.has_output('X@GRAD')

    def run(x, w, drop_pos, x_temp, dout, x_lod, drop_lod):
        dx = np.zeros(x.shape, x.dtype) if want_dx else None
        offsets = last_level(x_lod, x, 'PyramidHashOpGrad', name)
        temp = np.asarray(x_temp, np.float32).reshape(-1)
        # Paddle's grad kernel skips batches of one id per sequence that are all -1 (its padding)
        if x.shape[0] == len(offsets) - 1 and np.count_nonzero(temp[:x.shape[0]] == -1) == x.shape[0]:
            return (dx,)
        # DropPos's LoD counts kept windows, not its rows (Paddle sizes it N * pyramid_layer)
        kept = np.diff(np.asarray(require_lod(drop_lod, 'PyramidHashOpGrad', 'DropPos', 'DropPos')[-1]))
        if not w.flags.c_contiguous or not w.flags.writeable:
            raise EnforceNotMet("operator 'pyramid_hash_grad': Input(W) must be a writable contiguous array (the "
                                "op updates it in place)")
        ids_u8 = np.ascontiguousarray(temp).view(np.uint8)
        KP.pyramid_backward(ids_u8, offsets, np.asarray(drop_pos, np.int32).reshape(-1), kept, w.reshape(-1),
                            np.ascontiguousarray(dout).reshape(-1, a.num_emb), w.dtype.type(-1.0 * a.lr),
                            a.num_emb, a.rand_len, a.space_len, a.pyramid_layer)
        return (dx,)
    return run
