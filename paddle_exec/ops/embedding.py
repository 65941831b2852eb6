"""Embedding ops: lookup_table (ids [..., 1]), lookup_table_v2 (ids of any shape), one_hot, one_hot_v2.

The numerics live in `kernels/embedding.py` (verified against Paddle 1.8.5). `padding_idx` is the op attribute
(-1 = none; the layers turn a negative user value into `vocab + padding_idx`).

Sparse gradients: with `is_sparse=True` the grad op's shape rule declares `W@GRAD` a SELECTED_ROWS variable and its
kernel returns `SelectedRows(rows=ids in order, values=dOut rows, height=vocab)`: duplicates and padding ids are kept,
as Paddle 1.8 does; optimizers and `sum` consume it as such. With `is_sparse=False` `W@GRAD` is the dense
`[vocab, D]` table (padding rows get nothing).
"""
from __future__ import annotations

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..framework.scope import SelectedRows
from ..kernels import embedding as KE

_LOOKUP_ATTRS = {
    'is_sparse': False, 'is_distributed': False, 'padding_idx': -1, 'remote_prefetch': False,
    'grad_inplace': False, 'epmap': [], 'height_sections': [], 'table_names': [], 'trainer_id': 0,
}
_LOOKUP_FORWARD = {'lookup_table': KE.lookup_table_forward, 'lookup_table_v2': KE.lookup_table_v2_forward}

for _t in _LOOKUP_FORWARD:
    defop(_t, ['W', 'Ids'], ['Out'], _LOOKUP_ATTRS, grad=GradSpec(('W', 'Ids', 'Out@GRAD'), ('W@GRAD',)))


def _lookup_shape(ctx):
    ws, ids = ctx.in_shape('W'), ctx.in_shape('Ids')
    if len(ws) != 2:
        raise ValueError("operator '%s': the embedding table W must be 2-D, got shape %s" % (ctx.op.type, list(ws)))
    if ctx.op.type == 'lookup_table':
        if not ids or ids[-1] not in (1, -1):
            raise ValueError("operator 'lookup_table': the last dimension of Ids must be 1, got shape %s "
                             "(use lookup_table_v2 / fluid.embedding for ids of any shape)" % (list(ids),))
        out = tuple(ids[:-1]) + (ws[1],)
    else:
        out = tuple(ids) + (ws[1],)
    ctx.set_output('Out', out, ctx.in_dtype('W'))


def _lookup_grad_shape(ctx):
    w = ctx.input_var('W')
    kind = VarType.SELECTED_ROWS if ctx.attr('is_sparse') else VarType.LOD_TENSOR
    ctx.set_output('W@GRAD', w.shape, w.dtype, type=kind)


for _t in _LOOKUP_FORWARD:
    shape_rule(_t)(_lookup_shape)
    shape_rule(_t + '_grad')(_lookup_grad_shape)


@kernel_rule(*_LOOKUP_FORWARD)
def _lookup_kernel(spec):
    forward, padding_idx = _LOOKUP_FORWARD[spec.type], int(spec.attr('padding_idx'))
    return lambda w, ids: (forward(w, ids, padding_idx),)


@kernel_rule(*(t + '_grad' for t in _LOOKUP_FORWARD))
def _lookup_grad_kernel(spec):
    padding_idx = int(spec.attr('padding_idx'))
    if spec.attr('is_sparse'):
        def run_sparse(w, ids, dout):
            rows, values = KE.lookup_table_grad_sparse(ids, dout)
            return (SelectedRows(rows, values, w.shape[0]),)
        return run_sparse

    def run_dense(w, ids, dout):
        return (KE.lookup_table_grad_dense(ids, dout, w.shape[0], padding_idx),)
    return run_dense


# ---------------------------------------------------------------------------------------------------------------
# one_hot (ids [..., 1]) / one_hot_v2 (ids of any shape); `depth_tensor` overrides the `depth` attribute

_ONE_HOT = {'one_hot': KE.one_hot, 'one_hot_v2': KE.one_hot_v2}

for _t in _ONE_HOT:
    defop(_t, ['X', 'depth_tensor'], ['Out'], {'depth': -1, 'dtype': int(VarType.FP32), 'allow_out_of_range': False},
          dispensable=['depth_tensor'])


def _one_hot_shape(ctx):
    xs = ctx.in_shape('X')
    depth = -1 if ctx.has_input('depth_tensor') else int(ctx.attr('depth'))
    if ctx.op.type == 'one_hot':
        if not xs or xs[-1] not in (1, -1):
            raise ValueError("operator 'one_hot': the last dimension of Input(X) must be 1, got shape %s"
                             % (list(xs),))
        out = tuple(xs[:-1]) + (depth,)
    else:
        out = tuple(xs) + (depth,)
    ctx.set_output('Out', out, ctx.attr('dtype'))


for _t in _ONE_HOT:
    shape_rule(_t)(_one_hot_shape)


@kernel_rule(*_ONE_HOT)
def _one_hot_kernel(spec):
    fn, depth = _ONE_HOT[spec.type], int(spec.attr('depth'))
    allow, dtype = bool(spec.attr('allow_out_of_range')), to_numpy(spec.attr('dtype'))

    def run(x, depth_tensor):
        d = depth if depth_tensor is None else int(depth_tensor.ravel()[0])
        return (fn(x, d, allow_out_of_range=allow, dtype=dtype),)
    return run
