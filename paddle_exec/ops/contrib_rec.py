"""fluid.contrib's recommendation and text-matching ops (Paddle 1.8): tree-based deep-model lookups, batch
shuffling, pooled embeddings, match matrices and their top-k pooling.

    tdm_sampler   X int [N, 1] leaf ids, Travel int [leaves, layers] (each leaf's ancestor per layer, 0: none),
                  Layer int [nodes, 1] (the nodes layer by layer; attr layer_offset_lod gives the layers' bounds) ->
                  Out, Labels, Mask [N, sum(neg_samples_num_list[l] + output_positive)]: per layer the positive
                  (label 1) then neg_samples_num_list[l] distinct other nodes of the layer (label 0), mask 1; a
                  layer without an ancestor gives 0s and mask 0. Draws: numpy's, seeded by `seed` on every run
                  (as Paddle re-seeds its sampler; seed 0: paddle.seed's generator, else entropy). No gradient.
    tdm_child     X int [...] node ids, TreeInfo int [nodes, 3 + child_nums] (item_id, layer, parent, children)
                  -> Child [..., child_nums] the node's children (0s for node 0 or a leaf), LeafMask [..., child_nums]
                  1 where the child is an item (its item_id is not 0); attrs child_nums, dtype. No gradient.
    shuffle_batch X [..., D], Seed int64 [1] -> Out (the rows of X, as [-1, D], in a random order), ShuffleIdx int64
                  (Out row i is X row ShuffleIdx[i]), SeedOut (the next seed); attr startup_seed (used while the seed
                  is 0). The order is numpy's, not Paddle's std::default_random_engine. Grad: rows routed back.
    fused_embedding_seq_pool  W [V, D], Ids int64 LoD [N, 1] -> Out [sequences, D]: each sequence's rows of W summed
                  (combiner 'sum', the only one Paddle has); padding_idx rows add nothing. Grad of W: dense, or
                  with is_sparse a SelectedRows of the ids' rows (padding rows zero), as the embedding op gives.
    sequence_topk_avg_pooling  X LoD (sequence i: channel_num x rows_i x cols_i values), ROW LoD (rows_i),
                  COLUMN LoD (cols_i) -> Out [sum rows_i, channel_num * len(topks)]: Out[r, c * K + k] the sum of
                  the top topks[k] values of row r of channel c divided by topks[k] (fewer columns: their sum over
                  topks[k]), LoD of ROW; pos int32 [sum rows_i, channel_num * max(topks)]: the rows' top positions
                  as flat indices into X (-1 past the row's columns; Paddle keeps column indices there). Grad: each
                  picked value gets Out@GRAD / topks[k].
    match_matrix_tensor  X LoD [Tx, H], Y LoD [Ty, H], W [H, dim_t, H] -> Out [sum dim_t * len_x * len_y, 1]
                  (per sequence pair b, [dim_t, len_x, len_y] = X_b W[:, t, :] Y_b^T, flattened; LoD of those
                  sizes), Tmp [Tx * dim_t * H, 1] = X W (flattened); attr dim_t. Grad: X, Y and W.
    rank_attention  X [N, D], RankOffset int32 [N, 1 + 2 * MaxRank] (the instance's rank, then per slot k the rank
                  and row of another instance; ranks 1-based, < 1 absent), RankParam [MaxRank^2 * D, cols] -> Out
                  [N, cols] = sum over present slots k of X[row_k] RankParam block (rank - 1, rank_k - 1). Paddle
                  1.8.5 has only a GPU kernel (its CPU one raises "Rank Attention only supports GPU now"); this is
                  that kernel's computation. Grad: RankParam only, as Paddle (its merge assumes slot k holds rank
                  k + 1, the layout its models feed; here each slot's block gets its own gradient, the same there).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.random import op_seed
from ..framework.registry import GradSpec, _grad_shape_rule, defop, kernel_rule, lod_rule, shape_rule
from ..framework.scope import SelectedRows
from ._lod import input_name, last_level

__all__: list[str] = []


# --- tdm_child --------------------------------------------------------------------------------------------------

defop('tdm_child', ['X', 'TreeInfo'], ['Child', 'LeafMask'], {'child_nums': 1, 'dtype': int(VarType.INT32)})


@shape_rule('tdm_child')
def _tdm_child_shape(ctx):
    child_nums = int(ctx.attr('child_nums'))
    if child_nums <= 0:
        raise ValueError("operator 'tdm_child': ShapeError: Attr(child_nums) must be greater than 0, but received "
                         "child_nums = %d" % child_nums)
    shape = tuple(ctx.in_shape('X'))
    shape = shape[:-1] + (shape[-1] * child_nums,) if len(shape) == 1 else shape + (child_nums,)
    dtype = VarType(int(ctx.attr('dtype')))
    ctx.set_output('Child', shape, dtype)
    ctx.set_output('LeafMask', shape, dtype)


@kernel_rule('tdm_child')
def _tdm_child_kernel(spec):
    child_nums = int(spec.attr('child_nums'))
    dtype = to_numpy(VarType(int(spec.attr('dtype'))))

    def run(x, tree):
        ids = np.asarray(x).reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= tree.shape[0]):
            raise EnforceNotMet("operator 'tdm_child': Input(X) holds node ids outside [0, %d): %s"
                                % (tree.shape[0], ids[(ids < 0) | (ids >= tree.shape[0])][:5].tolist()))
        children = tree[ids, 3:3 + child_nums].astype(np.int64)
        has_children = (ids != 0) & (tree[ids, 3] != 0)
        children[~has_children] = 0
        leaf = (tree[children, 0] != 0) & has_children[:, None]
        shape = x.shape[:-1] + (x.shape[-1] * child_nums,) if x.ndim == 1 else x.shape + (child_nums,)
        return children.astype(dtype).reshape(shape), leaf.astype(dtype).reshape(shape)
    return run


# --- tdm_sampler --------------------------------------------------------------------------------------------------

defop('tdm_sampler', ['X', 'Travel', 'Layer'], ['Out', 'Labels', 'Mask'],
      {'neg_samples_num_list': [], 'output_positive': True, 'layer_offset_lod': [], 'seed': 0,
       'dtype': int(VarType.INT32)}, stateful=True)


@shape_rule('tdm_sampler')
def _tdm_sampler_shape(ctx):
    negs = [int(n) for n in ctx.attr('neg_samples_num_list')]
    offsets = list(ctx.attr('layer_offset_lod'))
    if len(offsets) != len(negs) + 1:
        raise ValueError("operator 'tdm_sampler': layer_offset_lod must hold one more bound than "
                         "neg_samples_num_list has layers, got %s and %s" % (offsets, negs))
    width = sum(negs) + (len(negs) if ctx.attr('output_positive') else 0)
    dtype = VarType(int(ctx.attr('dtype')))
    for slot in ('Out', 'Labels', 'Mask'):
        ctx.set_output(slot, (ctx.in_shape('X')[0], width), dtype)


@kernel_rule('tdm_sampler')
def _tdm_sampler_kernel(spec):
    negs = [int(n) for n in spec.attr('neg_samples_num_list')]
    offsets = [int(o) for o in spec.attr('layer_offset_lod')]
    positive = bool(spec.attr('output_positive'))
    dtype = to_numpy(VarType(int(spec.attr('dtype'))))
    seed = op_seed(int(spec.attr('seed')))

    def run(x, travel, layer):
        rng = np.random.default_rng(seed)
        ids = np.asarray(x).reshape(-1).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= travel.shape[0]):
            raise EnforceNotMet("operator 'tdm_sampler': Input(X) holds leaf ids outside [0, %d)" % travel.shape[0])
        nodes = np.asarray(layer).reshape(-1)
        width = sum(negs) + (len(negs) if positive else 0)
        out, labels, mask = (np.zeros((ids.size, width), dtype) for _ in range(3))
        for row, leaf in enumerate(ids):
            col = 0
            for lvl, neg in enumerate(negs):
                span = neg + (1 if positive else 0)
                pos_node = int(travel[leaf, lvl])
                if pos_node != 0:
                    candidates = nodes[offsets[lvl]:offsets[lvl + 1]]
                    others = candidates[candidates != pos_node]
                    picks = rng.choice(others, size=neg, replace=False) if neg else others[:0]
                    values = np.concatenate([[pos_node], picks]) if positive else picks
                    out[row, col:col + span] = values
                    labels[row, col] = 1 if positive else 0
                    mask[row, col:col + span] = 1
                col += span
        return out, labels, mask
    return run


# --- shuffle_batch ----------------------------------------------------------------------------------------------

defop('shuffle_batch', ['X', 'Seed'], ['Out', 'ShuffleIdx', 'SeedOut'], {'startup_seed': 0}, stateful=True,
      grad=GradSpec(('ShuffleIdx', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('shuffle_batch')
def _shuffle_batch_shape(ctx):
    x = tuple(ctx.in_shape('X'))
    ctx.set_output('Out', x, ctx.in_dtype('X'))
    ctx.set_output('ShuffleIdx', (-1,), VarType.INT64)
    ctx.set_output('SeedOut', (1,), VarType.INT64)


@kernel_rule('shuffle_batch')
def _shuffle_batch_kernel(spec):
    startup_seed = int(spec.attr('startup_seed'))
    fallback = op_seed(0)

    def run(x, seed):
        seed_value = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and np.asarray(seed).size else 0
        start = seed_value or startup_seed or fallback
        rng = np.random.default_rng(None if start is None else start % 2 ** 63)
        rows = x.reshape(-1, x.shape[-1]) if x.ndim > 1 else x.reshape(-1, 1)
        idx = rng.permutation(rows.shape[0]).astype(np.int64)
        next_seed = np.array([int(rng.integers(1, 2 ** 62))], np.int64)
        return rows[idx].reshape(x.shape), idx, next_seed
    return run


@shape_rule('shuffle_batch_grad')
def _shuffle_batch_grad_shape(ctx):
    ctx.set_output('X@GRAD', ctx.in_shape('Out@GRAD'), ctx.in_dtype('Out@GRAD'))


@kernel_rule('shuffle_batch_grad')
def _shuffle_batch_grad_kernel(spec):
    def run(idx, dout):
        rows = dout.reshape(-1, dout.shape[-1]) if dout.ndim > 1 else dout.reshape(-1, 1)
        dx = np.empty_like(rows)
        dx[np.asarray(idx, np.int64)] = rows
        return (dx.reshape(dout.shape),)
    return run


# --- fused_embedding_seq_pool -----------------------------------------------------------------------------------

defop('fused_embedding_seq_pool', ['W', 'Ids'], ['Out'], {'combiner': 'sum', 'padding_idx': -1, 'is_sparse': False},
      grad=GradSpec(('W', 'Ids', 'Out@GRAD'), ('W@GRAD',)))


@shape_rule('fused_embedding_seq_pool')
def _fused_emb_shape(ctx):
    w, ids = ctx.in_shape('W'), ctx.in_shape('Ids')
    if len(w) != 2:
        raise ValueError("operator 'fused_embedding_seq_pool': Input(W) must be 2-D [vocab, width], got %s"
                         % list(w))
    if ids[-1] != 1 and ids[-1] >= 0:
        raise ValueError("operator 'fused_embedding_seq_pool': The last dimension size of Input(Ids) must be 1, "
                         "got %s" % list(ids))
    if ctx.attr('combiner') != 'sum':
        raise ValueError("operator 'fused_embedding_seq_pool': only combiner 'sum' is supported, got %r"
                         % ctx.attr('combiner'))
    ctx.set_output('Out', (-1, w[1]), ctx.in_dtype('W'))


@lod_rule('fused_embedding_seq_pool')
def _fused_emb_lod(ctx):
    ctx.read('Ids')
    ctx.compute('Out', 0)


def _ids_and_offsets(spec, ids, ids_lod, vocab: int):
    offsets = last_level(ids_lod, ids, 'FusedEmbeddingSeqPoolOp', input_name(spec, 'Ids'), 'Ids')
    flat = np.asarray(ids).reshape(-1).astype(np.int64)
    if flat.size and (flat.min() < 0 or flat.max() >= vocab):
        raise EnforceNotMet("operator 'fused_embedding_seq_pool': Input(Ids) holds ids outside [0, %d): %s"
                            % (vocab, flat[(flat < 0) | (flat >= vocab)][:5].tolist()))
    return flat, offsets


@kernel_rule('fused_embedding_seq_pool')
def _fused_emb_kernel(spec):
    padding_idx = int(spec.attr('padding_idx'))

    def run(w, ids, ids_lod):
        flat, offsets = _ids_and_offsets(spec, ids, ids_lod, w.shape[0])
        rows = w[flat]
        if padding_idx >= 0:
            rows[flat == padding_idx] = 0
        seq = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        out = np.zeros((len(offsets) - 1, w.shape[1]), w.dtype)
        np.add.at(out, seq, rows)
        return out, ()
    return run


@shape_rule('fused_embedding_seq_pool_grad')
def _fused_emb_grad_shape(ctx):
    w = ctx.input_var('W')
    kind = VarType.SELECTED_ROWS if ctx.attr('is_sparse') else VarType.LOD_TENSOR
    ctx.set_output('W@GRAD', w.shape, w.dtype, type=kind)


@lod_rule('fused_embedding_seq_pool_grad')
def _fused_emb_grad_lod(ctx):
    ctx.read('Ids')


@kernel_rule('fused_embedding_seq_pool_grad')
def _fused_emb_grad_kernel(spec):
    padding_idx = int(spec.attr('padding_idx'))
    sparse = bool(spec.attr('is_sparse'))

    def run(w, ids, dout, ids_lod):
        flat, offsets = _ids_and_offsets(spec, ids, ids_lod, w.shape[0])
        seq = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        values = dout[seq].astype(w.dtype, copy=True)
        if padding_idx >= 0:
            values[flat == padding_idx] = 0
        if sparse:
            return (SelectedRows(flat.tolist(), values, w.shape[0]),)
        dw = np.zeros_like(w)
        np.add.at(dw, flat, values)
        return (dw,)
    return run


# --- sequence_topk_avg_pooling ----------------------------------------------------------------------------------

defop('sequence_topk_avg_pooling', ['X', 'ROW', 'COLUMN'], ['Out', 'pos'], {'topks': [], 'channel_num': 1},
      grad=GradSpec(('X', 'pos', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_topk_avg_pooling')
def _topk_pool_shape(ctx):
    topks, channels = list(ctx.attr('topks')), int(ctx.attr('channel_num'))
    if not topks or min(topks) <= 0:
        raise ValueError("operator 'sequence_topk_avg_pooling': Attr(topks) must be positive ints, got %s" % topks)
    if channels <= 0:
        raise ValueError("operator 'sequence_topk_avg_pooling': Attr(channel_num) must be positive, got %d"
                         % channels)
    ctx.set_output('Out', (-1, channels * len(topks)), ctx.in_dtype('X'))
    ctx.set_output('pos', (-1, channels * max(topks)), VarType.INT32)


@lod_rule('sequence_topk_avg_pooling')
def _topk_pool_lod(ctx):
    ctx.read('X')
    ctx.read('ROW')
    ctx.read('COLUMN')
    ctx.compute('Out', 1)
    ctx.compute('pos', 1)


@kernel_rule('sequence_topk_avg_pooling')
def _topk_pool_kernel(spec):
    topks = [int(k) for k in spec.attr('topks')]
    channels = int(spec.attr('channel_num'))
    k_max, op = max(topks), 'SequenceTopkAvgPoolingOp'
    names = [input_name(spec, s) for s in ('X', 'ROW', 'COLUMN')]

    def run(x, row, col, x_lod, row_lod, col_lod):
        x_off = last_level(x_lod, x, op, names[0])
        r_off = last_level(row_lod, row, op, names[1], 'ROW')
        c_off = last_level(col_lod, col, op, names[2], 'COLUMN')
        if not len(x_off) == len(r_off) == len(c_off):
            raise EnforceNotMet('%s: Input(X), Input(ROW) and Input(COLUMN) must hold as many sequences' % op)
        flat = np.asarray(x).reshape(-1)
        total_rows = int(r_off[-1])
        out = np.zeros((total_rows, channels * len(topks)), flat.dtype)
        pos = np.full((total_rows, channels * k_max), -1, np.int32)
        for i in range(len(x_off) - 1):
            rows, cols = int(r_off[i + 1] - r_off[i]), int(c_off[i + 1] - c_off[i])
            if int(x_off[i + 1] - x_off[i]) != channels * rows * cols:
                raise EnforceNotMet('%s: sequence %d of Input(X) holds %d values, not channel_num * rows * cols = '
                                    '%d * %d * %d' % (op, i, int(x_off[i + 1] - x_off[i]), channels, rows, cols))
            if rows == 0 or cols == 0:
                continue
            start = int(x_off[i])
            block = flat[start:start + channels * rows * cols].reshape(channels, rows, cols)
            order = np.argsort(-block, axis=2, kind='stable')[:, :, :k_max]            # [C, rows, <= k_max]
            picked = np.take_along_axis(block, order, axis=2)
            csum = np.cumsum(picked, axis=2)
            r0 = int(r_off[i])
            for k_idx, k in enumerate(topks):
                sums = csum[:, :, min(k, cols) - 1]                                     # [C, rows]
                out[r0:r0 + rows, k_idx::len(topks)] = (sums / flat.dtype.type(k)).T
            flat_idx = start + (np.arange(channels)[:, None, None] * rows + np.arange(rows)[None, :, None]) * cols \
                + order
            width = order.shape[2]
            for c in range(channels):
                pos[r0:r0 + rows, c * k_max:c * k_max + width] = flat_idx[c]
        return out, pos, as_lod([r_off]), as_lod([r_off])
    return run


shape_rule('sequence_topk_avg_pooling_grad')(_grad_shape_rule)


@lod_rule('sequence_topk_avg_pooling_grad')
def _topk_pool_grad_lod(ctx):
    ctx.share('X', 'X@GRAD')


@kernel_rule('sequence_topk_avg_pooling_grad')
def _topk_pool_grad_kernel(spec):
    topks = [int(k) for k in spec.attr('topks')]
    channels = int(spec.attr('channel_num'))
    k_max = max(topks)

    def run(x, pos, dout):
        dx = np.zeros(x.size, dout.dtype)
        for c in range(channels):
            for k_idx, k in enumerate(topks):
                idx = pos[:, c * k_max:c * k_max + k]
                g = (dout[:, c * len(topks) + k_idx] / dout.dtype.type(k))[:, None]
                valid = idx >= 0
                np.add.at(dx, idx[valid], np.broadcast_to(g, idx.shape)[valid])
        return (dx.reshape(x.shape),)
    return run


# --- match_matrix_tensor ----------------------------------------------------------------------------------------

defop('match_matrix_tensor', ['X', 'Y', 'W'], ['Out', 'Tmp'], {'dim_t': 1},
      grad=GradSpec(('X', 'Y', 'W', 'Tmp', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD', 'W@GRAD')))


@shape_rule('match_matrix_tensor')
def _match_matrix_shape(ctx):
    x, y, w = ctx.in_shape('X'), ctx.in_shape('Y'), ctx.in_shape('W')
    dim_t = int(ctx.attr('dim_t'))
    if len(x) != 2 or len(y) != 2 or len(w) != 3:
        raise ValueError("operator 'match_matrix_tensor': X and Y must be 2-D and W 3-D, got %s, %s and %s"
                         % (list(x), list(y), list(w)))
    if (x[1] >= 0 and w[0] != x[1]) or (y[1] >= 0 and w[2] != y[1]) or w[1] != dim_t:
        raise ValueError("operator 'match_matrix_tensor': W must be [X's width, dim_t, Y's width] = [%d, %d, %d], "
                         "got %s" % (x[1], dim_t, y[1], list(w)))
    ctx.set_output('Out', (-1, 1), ctx.in_dtype('X'))
    ctx.set_output('Tmp', (-1, 1), ctx.in_dtype('X'))


@lod_rule('match_matrix_tensor')
def _match_matrix_lod(ctx):
    ctx.read('X')
    ctx.read('Y')
    ctx.compute('Out', 1)


def _pairs(spec, x, y, x_lod, y_lod):
    op = 'MatchMatrixTensorOp'
    xo = last_level(x_lod, x, op, input_name(spec, 'X'))
    yo = last_level(y_lod, y, op, input_name(spec, 'Y'), 'Y')
    if len(xo) != len(yo):
        raise EnforceNotMet('%s: Input(X) and Input(Y) must hold as many sequences, got %d and %d'
                            % (op, len(xo) - 1, len(yo) - 1))
    return [(int(xo[b]), int(xo[b + 1]), int(yo[b]), int(yo[b + 1])) for b in range(len(xo) - 1)]


@kernel_rule('match_matrix_tensor')
def _match_matrix_kernel(spec):
    def run(x, y, w, x_lod, y_lod):
        h, dim_t = w.shape[0], w.shape[1]
        tmp = (x @ w.reshape(h, dim_t * w.shape[2])).reshape(x.shape[0], dim_t, w.shape[2])
        pieces, offsets = [], [0]
        for x0, x1, y0, y1 in _pairs(spec, x, y, x_lod, y_lod):
            block = np.einsum('ith,jh->tij', tmp[x0:x1], y[y0:y1])          # [dim_t, len_x, len_y]
            pieces.append(block.reshape(-1))
            offsets.append(offsets[-1] + block.size)
        out = np.concatenate(pieces) if pieces else np.zeros(0, x.dtype)
        return (out.reshape(-1, 1).astype(x.dtype, copy=False), tmp.reshape(-1, 1),
                as_lod([np.array(offsets, np.int64)]))
    return run


@shape_rule('match_matrix_tensor_grad')
def _match_matrix_grad_shape(ctx):
    for slot in ('X', 'Y', 'W'):
        if ctx.has_output(slot + '@GRAD'):
            ctx.set_output(slot + '@GRAD', ctx.in_shape(slot), ctx.in_dtype(slot))


@lod_rule('match_matrix_tensor_grad')
def _match_matrix_grad_lod(ctx):
    ctx.read('X')
    ctx.read('Y')
    ctx.share('X', 'X@GRAD')
    ctx.share('Y', 'Y@GRAD')


@kernel_rule('match_matrix_tensor_grad')
def _match_matrix_grad_kernel(spec):
    def run(x, y, w, tmp, dout, x_lod, y_lod):
        h, dim_t, hy = w.shape
        tmp = tmp.reshape(x.shape[0], dim_t, hy)
        dx, dy, dw = np.zeros_like(x), np.zeros_like(y), np.zeros_like(w)
        dtmp = np.zeros_like(tmp)
        pos = 0
        flat = dout.reshape(-1)
        for x0, x1, y0, y1 in _pairs(spec, x, y, x_lod, y_lod):
            n = dim_t * (x1 - x0) * (y1 - y0)
            g = flat[pos:pos + n].reshape(dim_t, x1 - x0, y1 - y0)
            pos += n
            dtmp[x0:x1] += np.einsum('tij,jh->ith', g, y[y0:y1])
            dy[y0:y1] += np.einsum('tij,ith->jh', g, tmp[x0:x1])
        dx[:] = dtmp.reshape(x.shape[0], -1) @ w.reshape(h, -1).T
        dw[:] = (x.T @ dtmp.reshape(x.shape[0], -1)).reshape(w.shape)
        return dx, dy, dw
    return run


# --- rank_attention ---------------------------------------------------------------------------------------------

defop('rank_attention', ['X', 'RankOffset', 'RankParam'], ['Out'], {'MaxRank': 3},
      grad=GradSpec(('X', 'RankOffset', 'RankParam', 'Out@GRAD'), ('RankParam@GRAD',)))


@shape_rule('rank_attention')
def _rank_attention_shape(ctx):
    x, offset, param = ctx.in_shape('X'), ctx.in_shape('RankOffset'), ctx.in_shape('RankParam')
    max_rank = int(ctx.attr('MaxRank'))
    if len(x) != 2 or len(offset) != 2 or len(param) != 2:
        raise ValueError("operator 'rank_attention': X, RankOffset and RankParam must be 2-D")
    if offset[1] >= 0 and offset[1] != 2 * max_rank + 1:
        raise ValueError("operator 'rank_attention': Input(RankOffset) has wrong columns: %d, expected "
                         "2 * MaxRank + 1 = %d" % (offset[1], 2 * max_rank + 1))
    if x[1] >= 0 and param[0] != x[1] * max_rank * max_rank:
        raise ValueError("operator 'rank_attention': RankParam must have MaxRank^2 * D = %d rows, got %d"
                         % (x[1] * max_rank * max_rank, param[0]))
    ctx.set_output('Out', (x[0], param[1]), ctx.in_dtype('X'))


def _rank_blocks(x, offset, max_rank: int):
    """(rows of X per slot [N, K] or -1, RankParam block index per slot [N, K] or -1)."""
    offset = np.asarray(offset).astype(np.int64)
    own = offset[:, :1] - 1
    faster = offset[:, 1::2][:, :max_rank] - 1
    rows = offset[:, 2::2][:, :max_rank]
    valid = (own >= 0) & (faster >= 0)
    if valid.any() and (rows[valid].min() < 0 or rows[valid].max() >= x.shape[0]):
        raise EnforceNotMet("operator 'rank_attention': RankOffset names instances outside [0, %d)" % x.shape[0])
    return np.where(valid, rows, -1), np.where(valid, own * max_rank + faster, -1)


@kernel_rule('rank_attention')
def _rank_attention_kernel(spec):
    max_rank = int(spec.attr('MaxRank'))

    def run(x, offset, param):
        rows, blocks = _rank_blocks(x, offset, max_rank)
        d = x.shape[1]
        out = np.zeros((x.shape[0], param.shape[1]), x.dtype)
        for k in range(max_rank):
            live = rows[:, k] >= 0
            if live.any():
                block = param.reshape(max_rank * max_rank, d, -1)[blocks[live, k]]      # [n, D, cols]
                out[live] += np.einsum('nd,ndc->nc', x[rows[live, k]], block)
        return (out,)
    return run


@shape_rule('rank_attention_grad')
def _rank_attention_grad_shape(ctx):
    ctx.set_output('RankParam@GRAD', ctx.in_shape('RankParam'), ctx.in_dtype('RankParam'))


@kernel_rule('rank_attention_grad')
def _rank_attention_grad_kernel(spec):
    max_rank = int(spec.attr('MaxRank'))

    def run(x, offset, param, dout):
        rows, blocks = _rank_blocks(x, offset, max_rank)
        d = x.shape[1]
        dparam = np.zeros((max_rank * max_rank, d, param.shape[1]), dout.dtype)
        for k in range(max_rank):
            live = rows[:, k] >= 0
            if live.any():
                np.add.at(dparam, blocks[live, k], np.einsum('nd,nc->ndc', x[rows[live, k]], dout[live]))
        return (dparam.reshape(param.shape),)
    return run
