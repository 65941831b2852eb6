"""Selection ops of fluid 1.8's layers.nn: values picked per row, traced back, hashed or sampled
(kernels/selection.py holds the loops).

    index_sample   X [N, D], Index [N, K] int -> Out [N, K] = X[i, Index[i, k]]; grad scatters back (adds)
    multiplex      Ids [N, 1] int32, X (list of [N, ...]) -> Out[i] = X[Ids[i]][i]; grad routes rows back
    shard_index    X int64 [N, 1] -> Out: x % shard_size where x // shard_size == shard_id, else ignore_value;
                   shard_size = ceil(index_num / nshards)
    gather_tree    Ids, Parents [T, B, K] -> Out: the full beams traced back from the last step
    similarity_focus  X [N, D1, D2, D3] -> Out 0/1 mask (attrs axis in 1..3, indexes)
    hash           X [N, L] int32/int64 -> Out [N, num_hash, 1]: XXH64(row bytes, seed k) % mod_by; keeps LoD
    sampling_id    X [N, D] probabilities -> Out int64 [N]: Paddle's draw (minstd_rand seeded by `seed`,
                   re-seeded every run as Paddle's kernel does; seed 0: a fresh seed per run)
    fsp            X [N, C1, H, W], Y [N, C2, H, W] -> Out [N, C1, C2] = X Y^T / (H W) (the FSP matrix)
    filter_by_instag  Ins (rows, LoD when is_lod), Ins_tag (LoD int64 tags per instance), Filter_tag int64 ->
                   Out (the instances having a wanted tag, LoD of them), LossWeight [K, 1] float32, IndexMap
                   [K, 3] (out row, ins row, rows); no match: one row of out_val_if_empty and weight 0

Gradients where Paddle 1.8 has them: index_sample, multiplex, fsp, filter_by_instag.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType
from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.random import op_seed
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..kernels import selection as KS
from ._lod import input_name, last_level

__all__: list[str] = []

# --- index_sample ---------------------------------------------------------------------------------------------

defop('index_sample', ['X', 'Index'], ['Out'], grad=GradSpec(('X', 'Index', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('index_sample')
def _index_sample_shape(ctx):
    x, index = ctx.in_shape('X'), ctx.in_shape('Index')
    if len(x) != 2 or len(index) != 2:
        raise ValueError("operator 'index_sample': Inputs(X) and Input(Index) must be 2-D, got X %s and Index %s"
                         % (list(x), list(index)))
    if x[0] >= 0 and index[0] >= 0 and x[0] != index[0]:
        raise ValueError("operator 'index_sample': Inputs(X)'s value of dimension 0 must same with Input(Index)'s "
                         "value of dimension 0, but got %d of Input(X) and %d of Input(Index)" % (x[0], index[0]))
    ctx.set_output('Out', index, ctx.in_dtype('X'))


def _check_index(index, width: int, op_type: str) -> None:
    if index.size and (index.min() < 0 or index.max() >= width):
        raise EnforceNotMet("operator '%s': the values of Input(Index) must be in [0, %d), got min %d, max %d"
                            % (op_type, width, int(index.min()), int(index.max())))


@kernel_rule('index_sample')
def _index_sample_kernel(spec):
    def run(x, index):
        _check_index(index, x.shape[1], 'index_sample')
        return (np.take_along_axis(x, index.astype(np.int64, copy=False), axis=1),)
    return run


@kernel_rule('index_sample_grad')
def _index_sample_grad_kernel(spec):
    def run(x, index, dout):
        dx = np.zeros(x.shape, dout.dtype)
        rows = np.repeat(np.arange(x.shape[0]), index.shape[1])
        np.add.at(dx, (rows, index.reshape(-1).astype(np.int64)), dout.reshape(-1))
        return (dx,)
    return run


# --- multiplex ------------------------------------------------------------------------------------------------

defop('multiplex', ['Ids', 'X'], ['Out'], duplicable=['X'], grad=GradSpec(('Ids', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('multiplex')
def _multiplex_shape(ctx):
    xs = [tuple(v.shape) for v in ctx.input_vars('X')]
    ids = ctx.in_shape('Ids')
    if len(xs) < 2:
        raise ValueError("operator 'multiplex': the number of Input(X) must be greater than 1, got %d" % len(xs))
    if len(ids) != 2 or ids[1] not in (1, -1):
        raise ValueError("operator 'multiplex': Input(Ids) must be a column vector [N, 1], got %s" % list(ids))
    ctx.set_output('Out', xs[0], ctx.in_dtype('X'))


@grad_rule('multiplex')
def _multiplex_grad_maker(g):
    return [('multiplex_grad', {'Ids': g.input('Ids'), 'Out@GRAD': g.output_grad('Out')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@shape_rule('multiplex_grad')
def _multiplex_grad_shape(ctx):
    for k, name in enumerate(ctx.op.outputs.get('X@GRAD') or []):
        fwd = ctx.block._find_var_recursive(name.split('@GRAD')[0])
        if fwd is not None:
            ctx.set_output('X@GRAD', fwd.shape, fwd.dtype, i=k)


def _multiplex_ids(ids, count: int) -> np.ndarray:
    ids = np.asarray(ids).reshape(-1).astype(np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= count):
        raise EnforceNotMet("operator 'multiplex': the values of Input(Ids) must be in [0, %d), got %s"
                            % (count, ids.tolist()))
    return ids


@kernel_rule('multiplex')
def _multiplex_kernel(spec):
    def run(ids, xs):
        picks = _multiplex_ids(ids, len(xs))
        out = np.empty_like(xs[0])
        for i, k in enumerate(picks):
            out[i] = xs[k][i]
        return (out,)
    return run


@kernel_rule('multiplex_grad')
def _multiplex_grad_kernel(spec):
    wanted = [n != '@EMPTY@' for n in spec.op.outputs.get('X@GRAD') or []]

    def run(ids, dout):
        picks = _multiplex_ids(ids, len(wanted))
        grads = [np.zeros_like(dout) if w else None for w in wanted]
        for i, k in enumerate(picks):
            if grads[k] is not None:
                grads[k][i] = dout[i]
        return (grads,)
    return run


# --- shard_index ----------------------------------------------------------------------------------------------

defop('shard_index', ['X'], ['Out'], {'index_num': 0, 'nshards': 0, 'shard_id': 0, 'ignore_value': -1})


@shape_rule('shard_index')
def _shard_index_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) < 2 or x[-1] not in (1, -1):
        raise ValueError("operator 'shard_index': the last dimension of Input(X) should be 1, got %s" % list(x))
    ctx.set_output('Out', x, ctx.in_dtype('X'))


@kernel_rule('shard_index')
def _shard_index_kernel(spec):
    index_num, nshards = int(spec.attr('index_num')), int(spec.attr('nshards'))
    shard_id, ignore = int(spec.attr('shard_id')), int(spec.attr('ignore_value'))
    if nshards <= 0 or not 0 <= shard_id < nshards:
        raise ValueError("operator 'shard_index': nshards (%d) must be > 0 and shard_id (%d) in [0, nshards)"
                         % (nshards, shard_id))
    shard_size = (index_num + nshards - 1) // nshards

    def run(x):
        if x.size and (x.min() < 0 or x.max() >= index_num):
            raise EnforceNotMet("operator 'shard_index': the value of Input(X) must be in [0, %d), got min %d, "
                                "max %d" % (index_num, int(x.min()), int(x.max())))
        return (np.where(x // shard_size == shard_id, x % shard_size, ignore).astype(x.dtype),)
    return run


# --- gather_tree ----------------------------------------------------------------------------------------------

defop('gather_tree', ['Ids', 'Parents'], ['Out'])


@shape_rule('gather_tree')
def _gather_tree_shape(ctx):
    ids, parents = ctx.in_shape('Ids'), ctx.in_shape('Parents')
    if len(ids) != 3 or tuple(ids) != tuple(parents):
        raise ValueError("operator 'gather_tree': Input(Ids) and Input(Parents) must be 3-D [max_time, batch, "
                         "beam] of one shape, got %s and %s" % (list(ids), list(parents)))
    ctx.set_output('Out', ids, ctx.in_dtype('Ids'))


@kernel_rule('gather_tree')
def _gather_tree_kernel(spec):
    def run(ids, parents):
        if parents.size and (parents.min() < 0 or parents.max() >= ids.shape[2]):
            raise EnforceNotMet("operator 'gather_tree': Input(Parents) must hold beam indices in [0, %d)"
                                % ids.shape[2])
        return (KS.gather_tree(ids, parents.astype(ids.dtype, copy=False)),)
    return run


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


# --- sampling_id ----------------------------------------------------------------------------------------------

defop('sampling_id', ['X'], ['Out'], {'min': 0.0, 'max': 1.0, 'seed': 0}, stateful=True)


@shape_rule('sampling_id')
def _sampling_id_shape(ctx):
    x = ctx.in_shape('X')
    if len(x) != 2:
        raise ValueError("operator 'sampling_id': Input(X, Filter) should be 2-D tensor, got %s" % list(x))
    ctx.set_output('Out', (x[0],), VarType.INT64)


_MINSTD_M = 2147483647


def minstd_uniform(seed: int, count: int, low: float, high: float, dtype) -> np.ndarray:
    """`count` draws of C++'s uniform_real_distribution<T>(low, high) over std::minstd_rand seeded by `seed`, as
    libstdc++ computes them (generate_canonical: one engine call per float, two per double)."""
    state = seed % _MINSTD_M or 1
    calls = 1 if np.dtype(dtype) == np.float32 else 2
    t = np.dtype(dtype).type
    span = t(_MINSTD_M - 1)        # engine max - min + 1
    out = np.empty(count, dtype)
    for i in range(count):
        total, scale = t(0), t(1)
        for _ in range(calls):
            state = state * 48271 % _MINSTD_M
            total = t(total + t(state - 1) * scale)
            scale = t(scale * span)
        u = t(total / scale)
        if u >= 1:
            u = np.nextafter(t(1), t(0))
        out[i] = t(u * t(t(high) - t(low))) + t(low)
    return out


@kernel_rule('sampling_id')
def _sampling_id_kernel(spec):
    seed = op_seed(int(spec.attr('seed')))
    low, high = np.float32(spec.attr('min')), np.float32(spec.attr('max'))

    def run(x):
        run_seed = seed if seed is not None else int(np.random.SeedSequence().entropy % _MINSTD_M)
        draws = minstd_uniform(run_seed, x.shape[0], low, high, x.dtype)
        return (KS.sampling_ids(x, draws),)
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
