"""Tensor arrays and the LoD rank table: the ops DynamicRNN (and while_loop RNNs) are built from, with gradients.

Tensor arrays (LOD_TENSOR_ARRAY variables) are Python lists in the values list; an element is an ndarray, or a
framework LoDTensor when the tensor written carries LoD (beam search writes 2-level LoD ids). `write_to_array`
updates the list in place, as Paddle's does. Two things differ from Paddle's programs because a kernel only sees its
inputs: the array_write builder also lists the array in a dispensable `Array` input slot (Paddle's op has only X and
I), so the kernel gets the existing list and the plan orders the write after earlier readers; and `create_array`
appends a `create_array` op making the empty list (Paddle's creates the variable only, its scope makes the array
lazily), so a loop that writes an array created outside it has a value to start from.

    create_array() -> Out                      an empty list
    write_to_array(X, I, Array?) -> Out        Out[I] = copy of X (the list grows with None)
    read_from_array(X, I, X_W?) -> Out         a copy of X[I]; past the end: zeros shaped like X_W when given (what
                                               the gradient of a write reads), else no value
    lod_array_length(X) -> Out                 int64 [1]
    lod_rank_table(X) -> Out                   attr level: X's sequences at that level by length (LoDRankTable)
    max_sequence_len(RankTable) -> Out         int64 [1], the longest length
    lod_tensor_to_array(X, RankTable) -> Out   element t: row t of every sequence longer than t, in rank order
    array_to_lod_tensor(X, RankTable) -> Out   the inverse: the sequences back in their order, with their LoD
    reorder_lod_tensor_by_rank(X, RankTable) -> Out   X's sequences (rows, without LoD) in rank order
    shrink_rnn_memory(X, I, RankTable) -> Out  the first rows of X, one per sequence longer than I (with X's LoD:
                                               the first such sequences)
    rnn_memory_helper(X) -> Out                a copy (StaticRNN's step outputs and memories)
    tensor_array_to_tensor_grad(X, OutIndex, Out@GRAD) -> X@GRAD   the gradient of ops/arrange.py's op: Out@GRAD
                                               split (or unstacked) back into an array

Gradients follow Paddle 1.8's grad makers: write_to_array's is a read_from_array of the array's gradient (X_W: the
written tensor, for the zeros), read_from_array's a write_to_array into the array's gradient (the `Array` slot: in
place, overwriting element I as Paddle's does), lod_tensor_to_array's an array_to_lod_tensor of the gradient array
and the reverse, reorder_lod_tensor_by_rank_grad puts the sequences back, shrink_rnn_memory_grad pads with zeros,
rnn_memory_helper_grad is a copy (zeros without an output gradient). The rank table ops and the array length have
none.

LoD: the rank table op reads X's LoD; lod_tensor_to_array reads X's (the elements of a one-level X carry none);
array_to_lod_tensor computes its output's one-level LoD; reorder_lod_tensor_by_rank and shrink_rnn_memory read X's
and compute their output's. write_to_array reads X's LoD when it has one and keeps it with the element;
read_from_array gives its output the element's LoD when the array variable is declared with lod_level > 0 (the
array_write builder declares it from X's).
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.lod import NO_LOD, LoDRankTable, as_lod, slice_lod
from ..framework.registry import _grad_shape_rule, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..framework.scope import LoDTensor, LoDTensorArray
from ..kernels.recurrent import batch_index
from ._lod import input_name, require_lod

__all__ = ['array_value']

defop('create_array', [], ['Out'])
defop('write_to_array', ['X', 'I', 'Array'], ['Out'], dispensable=['Array'])
defop('read_from_array', ['X', 'I', 'X_W'], ['Out'], dispensable=['X_W'])
defop('lod_array_length', ['X'], ['Out'])
defop('lod_rank_table', ['X'], ['Out'], {'level': 0})
defop('max_sequence_len', ['RankTable'], ['Out'])
defop('lod_tensor_to_array', ['X', 'RankTable'], ['Out'])
defop('array_to_lod_tensor', ['X', 'RankTable'], ['Out'])
defop('reorder_lod_tensor_by_rank', ['X', 'RankTable'], ['Out'])
defop('reorder_lod_tensor_by_rank_grad', ['X', 'RankTable'], ['Out'])
defop('shrink_rnn_memory', ['X', 'I', 'RankTable'], ['Out'])
defop('shrink_rnn_memory_grad', ['X', 'Out@GRAD'], ['X@GRAD'])
defop('rnn_memory_helper', ['X'], ['Out'], {'dtype': -1})
defop('rnn_memory_helper_grad', ['Out@GRAD', 'X', 'Out'], ['X@GRAD'], {'dtype': -1}, dispensable=['Out@GRAD', 'Out'])


def array_value(element):
    """(array, LoD) of a tensor-array element (an ndarray or a LoDTensor)."""
    if isinstance(element, LoDTensor):
        return element.value, element._lod
    return element, NO_LOD


def _index(i, op_type: str, name: str) -> int:
    if i is None:
        raise ValueError("%s: the index I (%s) holds no value" % (op_type, name))
    k = int(np.asarray(i).reshape(-1)[0])
    if k < 0:
        raise ValueError("%s: the index I (%s) must be non-negative, got %d" % (op_type, name, k))
    return k


def _rank_table(table, op_type: str, name: str) -> LoDRankTable:
    if not isinstance(table, LoDRankTable):
        raise ValueError("%s: Input(RankTable) '%s' should be a LoDRankTable (made by lod_rank_table), got %s"
                         % (op_type, name, type(table).__name__))
    return table


def _var_levels(ctx, slot: str) -> int:
    names = ctx.input_names(slot)
    var = ctx.var(names[0]) if names else None
    return int(var.lod_level or 0) if var is not None else 0


# --- arrays ---------------------------------------------------------------------------------------------------------

@kernel_rule('create_array')
def _create_array_kernel(spec):
    return lambda: (LoDTensorArray(),)


@shape_rule('write_to_array')
def _write_to_array_shape(ctx):
    x = ctx.input_var('X')
    if x is not None:
        ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype)


@lod_rule('write_to_array')
def _write_to_array_lod(ctx):
    if ctx.levels('X') > 0:
        ctx.read('X')


@kernel_rule('write_to_array')
def _write_to_array_kernel(spec):
    i_name = input_name(spec, 'I')
    with_lod = spec.lod_levels('X') > 0

    def write(x, i, array, x_lod=None):
        k = _index(i, 'write_to_array', i_name)
        array = LoDTensorArray() if array is None else array
        if k >= len(array):
            array.extend([None] * (k + 1 - len(array)))
        value = None if x is None else np.array(x, copy=True)       # Paddle copies the tensor into the array
        array[k] = LoDTensor(value, x_lod) if with_lod and x_lod else value
        return (array,)
    return write


@shape_rule('read_from_array')
def _read_from_array_shape(ctx):
    arr = ctx.input_var('X')
    if arr is not None:
        ctx.set_output('Out', arr.shape if arr.has_shape() else None, arr.dtype)


@lod_rule('read_from_array')
def _read_from_array_lod(ctx):
    levels = _var_levels(ctx, 'X')
    if levels > 0:
        ctx.compute('Out', levels)


@kernel_rule('read_from_array')
def _read_from_array_kernel(spec):
    i_name = input_name(spec, 'I')
    with_lod = bool(spec.lod is not None and spec.lod.computes)

    def read(array, i, x_w):
        k = _index(i, 'read_from_array', i_name)
        n = 0 if array is None else len(array)
        element = array[k] if k < n else None
        if element is None:
            # past the end: Paddle leaves Out uninitialized, or (the gradient of a write) zeros shaped like X_W
            value = None if x_w is None else np.zeros_like(array_value(x_w)[0])
            return (value, NO_LOD) if with_lod else (value,)
        value, lod = array_value(element)
        return (np.array(value, copy=True), lod) if with_lod else (np.array(value, copy=True),)
    return read


@shape_rule('lod_array_length')
def _lod_array_length_shape(ctx):
    ctx.set_output('Out', (1,), 'int64')


@kernel_rule('lod_array_length')
def _lod_array_length_kernel(spec):
    return lambda array: (np.array([0 if array is None else len(array)], dtype=np.int64),)


@grad_rule('write_to_array')
def _write_to_array_grad(g):
    if all(n in g.no_grad_names for n in g.input('X')):
        return []
    return [('read_from_array', {'X': g.output_grad('Out'), 'I': g.input('I'), 'X_W': g.input('X')},
             {'Out': g.input_grad('X')}, {})]


@grad_rule('read_from_array')
def _read_from_array_grad(g):
    if all(n in g.no_grad_names for n in g.input('X')):
        return []
    grad = g.input_grad('X')
    return [('write_to_array', {'X': g.output_grad('Out'), 'I': g.input('I'), 'Array': grad}, {'Out': grad}, {})]


# --- the rank table ------------------------------------------------------------------------------------------------

@lod_rule('lod_rank_table')
def _rank_table_lod(ctx):
    ctx.read('X')


@kernel_rule('lod_rank_table')
def _lod_rank_table_kernel(spec):
    level = int(spec.attr('level'))
    name = input_name(spec, 'X')

    def run(x, x_lod):
        lod = require_lod(x_lod, 'LoDRankTable', name)
        if not 0 <= level < len(lod):
            raise EnforceNotMet("lod_rank_table: level %d is out of the LoD levels of '%s' (%d)"
                                % (level, name, len(lod)))
        return (LoDRankTable(lod[level], lod[:level], level),)
    return run


@shape_rule('max_sequence_len')
def _max_sequence_len_shape(ctx):
    ctx.set_output('Out', (1,), 'int64')


@kernel_rule('max_sequence_len')
def _max_sequence_len_kernel(spec):
    name = input_name(spec, 'RankTable')
    return lambda table: (np.array([_rank_table(table, 'max_sequence_len', name).max_length], np.int64),)


# --- lod_tensor_to_array / array_to_lod_tensor ---------------------------------------------------------------------

def _rank_offsets(table: LoDRankTable) -> np.ndarray:
    """Offsets of the ranked sequences' rows in the original order (what batch_index needs)."""
    lengths = np.zeros(table.index.shape[0], np.int64)
    lengths[table.index] = table.length
    offsets = np.zeros(lengths.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


@shape_rule('lod_tensor_to_array')
def _lod_tensor_to_array_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype)


@lod_rule('lod_tensor_to_array')
def _lod_tensor_to_array_lod(ctx):
    ctx.read('X')


def _check_one_level(table: LoDRankTable, x_lod, op_type: str, name: str) -> None:
    if x_lod and len(x_lod) > table.level + 1:
        raise NotImplementedError("%s: '%s' has %d LoD levels below the rank table's level %d; paddle_exec splits "
                                  "only the last level into time steps" % (op_type, name, len(x_lod), table.level))


@kernel_rule('lod_tensor_to_array')
def _lod_tensor_to_array_kernel(spec):
    name, table_name = input_name(spec, 'X'), input_name(spec, 'RankTable')

    def run(x, table, x_lod):
        table = _rank_table(table, 'lod_tensor_to_array', table_name)
        _check_one_level(table, x_lod, 'lod_tensor_to_array', name)
        offsets = _rank_offsets(table)
        if int(offsets[-1]) != x.shape[0]:
            raise EnforceNotMet("lod_tensor_to_array: the rank table covers %d rows but '%s' has %d"
                                % (int(offsets[-1]), name, x.shape[0]))
        starts, rows, _ = batch_index(offsets, False)
        return ([x[rows[starts[t]:starts[t + 1]]] for t in range(starts.shape[0] - 1)],)
    return run


@shape_rule('array_to_lod_tensor')
def _array_to_lod_tensor_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype)


@lod_rule('array_to_lod_tensor')
def _array_to_lod_tensor_lod(ctx):
    var = ctx.var(ctx.output_names('Out')[0]) if ctx.has_output('Out') else None
    ctx.compute('Out', max(1, int(var.lod_level or 0) if var is not None else 1))


def _array_to_rows(array, table: LoDRankTable, name: str):
    offsets = _rank_offsets(table)
    starts, rows, _ = batch_index(offsets, False)
    steps = starts.shape[0] - 1
    if array is None or len(array) < steps:
        raise EnforceNotMet("array_to_lod_tensor: the array '%s' holds %d tensors but the rank table's longest "
                            "sequence has %d steps" % (name, 0 if array is None else len(array), steps))
    parts = [array_value(e)[0] for e in array[:steps]]
    known = next((p for p in parts if p is not None), None)
    if known is None:
        raise EnforceNotMet("array_to_lod_tensor: the array '%s' holds no tensor" % name)
    for t, p in enumerate(parts):
        if p is None:            # a step nobody wrote a gradient for
            parts[t] = np.zeros((starts[t + 1] - starts[t],) + known.shape[1:], known.dtype)
    batch = np.concatenate(parts, axis=0) if parts else known[:0]
    out = np.empty_like(batch)
    out[rows] = batch
    return out, offsets


@kernel_rule('array_to_lod_tensor')
def _array_to_lod_tensor_kernel(spec):
    name, table_name = input_name(spec, 'X'), input_name(spec, 'RankTable')

    def run(array, table):
        table = _rank_table(table, 'array_to_lod_tensor', table_name)
        out, offsets = _array_to_rows(array, table, name)
        return out, table.coarse + as_lod([offsets])
    return run


@grad_rule('lod_tensor_to_array')
def _lod_tensor_to_array_grad(g):
    return [('array_to_lod_tensor', {'X': g.output_grad('Out'), 'RankTable': g.input('RankTable')},
             {'Out': g.input_grad('X')}, {})]


@grad_rule('array_to_lod_tensor')
def _array_to_lod_tensor_grad(g):
    return [('lod_tensor_to_array', {'X': g.output_grad('Out'), 'RankTable': g.input('RankTable')},
             {'Out': g.input_grad('X')}, {})]


# --- reorder_lod_tensor_by_rank -------------------------------------------------------------------------------------

def _same_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype)


shape_rule('reorder_lod_tensor_by_rank')(_same_shape)
shape_rule('reorder_lod_tensor_by_rank_grad')(_same_shape)


@lod_rule('reorder_lod_tensor_by_rank', 'reorder_lod_tensor_by_rank_grad')
def _reorder_lod(ctx):
    ctx.read('X')
    if ctx.levels('X') > 0:
        ctx.compute('Out', ctx.levels('X'))


def _sequence_rows(offsets: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows of the sequences in `order`, their new offsets)."""
    lengths = (offsets[1:] - offsets[:-1])[order]
    new = np.zeros(order.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=new[1:])
    rows = np.repeat(offsets[:-1][order] - new[:-1], lengths) + np.arange(int(new[-1]))
    return rows, new


def _reorder(x, x_lod, order: np.ndarray, inverse: bool, op_type: str, name: str):
    if x_lod:
        if len(x_lod) > 1:
            raise NotImplementedError("%s: '%s' has %d LoD levels; paddle_exec reorders one-level LoD tensors"
                                      % (op_type, name, len(x_lod)))
        offsets = x_lod[0]
        if offsets.shape[0] - 1 != order.shape[0]:
            raise EnforceNotMet("%s: '%s' has %d sequences but the rank table ranks %d"
                                % (op_type, name, offsets.shape[0] - 1, order.shape[0]))
        if inverse:
            lengths = np.diff(offsets)
            original = np.zeros(order.shape[0], np.int64)
            original[order] = lengths
            src = np.zeros(order.shape[0] + 1, np.int64)
            np.cumsum(original, out=src[1:])
            rows, _ = _sequence_rows(offsets, np.argsort(order, kind='stable'))
            return x[rows], as_lod([src])
        rows, new = _sequence_rows(offsets, order)
        return x[rows], as_lod([new])
    if x.shape[0] != order.shape[0]:
        raise EnforceNotMet("%s: '%s' has %d rows but the rank table ranks %d sequences"
                            % (op_type, name, x.shape[0], order.shape[0]))
    if inverse:
        out = np.empty_like(x)
        out[order] = x
        return out, NO_LOD
    return x[order], NO_LOD


def _reorder_kernel(inverse: bool):
    def factory(spec):
        name, table_name = input_name(spec, 'X'), input_name(spec, 'RankTable')
        with_lod = spec.lod_levels('X') > 0

        def run(x, table, x_lod):
            table = _rank_table(table, spec.type, table_name)
            out, lod = _reorder(x, x_lod, table.index, inverse, spec.type, name)
            return (out, lod) if with_lod else (out,)
        return run
    return factory


kernel_rule('reorder_lod_tensor_by_rank')(_reorder_kernel(False))
kernel_rule('reorder_lod_tensor_by_rank_grad')(_reorder_kernel(True))


@grad_rule('reorder_lod_tensor_by_rank')
def _reorder_grad(g):
    return [('reorder_lod_tensor_by_rank_grad', {'X': g.output_grad('Out'), 'RankTable': g.input('RankTable')},
             {'Out': g.input_grad('X')}, {})]


# --- shrink_rnn_memory ----------------------------------------------------------------------------------------------

shape_rule('shrink_rnn_memory')(_same_shape)
shape_rule('shrink_rnn_memory_grad')(_grad_shape_rule)


@lod_rule('shrink_rnn_memory')
def _shrink_lod(ctx):
    ctx.read('X')
    if ctx.levels('X') > 0:
        ctx.compute('Out', ctx.levels('X'))


@kernel_rule('shrink_rnn_memory')
def _shrink_kernel(spec):
    i_name, table_name = input_name(spec, 'I'), input_name(spec, 'RankTable')
    with_lod = spec.lod_levels('X') > 0

    def run(x, i, table, x_lod):
        table = _rank_table(table, 'shrink_rnn_memory', table_name)
        n = table.active(_index(i, 'shrink_rnn_memory', i_name))
        if x_lod:
            lod, _, end = slice_lod(x_lod, 0, n)
            return x[:end], lod
        return (x[:n], NO_LOD) if with_lod else (x[:n],)
    return run


@grad_rule('shrink_rnn_memory')
def _shrink_grad(g):
    return [('shrink_rnn_memory_grad', {'X': g.input('X'), 'Out@GRAD': g.output_grad('Out')},
             {'X@GRAD': g.input_grad('X')}, {})]


@kernel_rule('shrink_rnn_memory_grad')
def _shrink_grad_kernel(spec):
    def run(x, dout):
        dx = np.zeros_like(x)
        if dout is not None:
            dx[:dout.shape[0]] = dout
        return (dx,)
    return run


# --- rnn_memory_helper ----------------------------------------------------------------------------------------------

shape_rule('rnn_memory_helper')(_same_shape)
shape_rule('rnn_memory_helper_grad')(_grad_shape_rule)


@kernel_rule('rnn_memory_helper')
def _memory_helper_kernel(spec):
    return lambda x: (x,)


@grad_rule('rnn_memory_helper')
def _memory_helper_grad(g):
    return [('rnn_memory_helper_grad', {'Out@GRAD': g.output_grad('Out'), 'X': g.input('X'), 'Out': g.output('Out')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@kernel_rule('rnn_memory_helper_grad')
def _memory_helper_grad_kernel(spec):
    return lambda dout, x, out: (np.zeros_like(x) if dout is None else dout,)


# --- tensor_array_to_tensor's gradient (the forward op is in ops/arrange.py) ----------------------------------------

defop('tensor_array_to_tensor_grad', ['X', 'OutIndex', 'Out@GRAD'], ['X@GRAD'], {'axis': 0, 'use_stack': False})


@grad_rule('tensor_array_to_tensor')
def _tensor_array_to_tensor_grad(g):
    """Paddle's LoDTensorArray2TensorGradOp: Out@GRAD split back (unstacked) into an array of the X's sizes."""
    return [('tensor_array_to_tensor_grad',
             {'X': g.input('X'), 'OutIndex': g.output('OutIndex'), 'Out@GRAD': g.output_grad('Out')},
             {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


@kernel_rule('tensor_array_to_tensor_grad')
def _tensor_array_to_tensor_grad_kernel(spec):
    axis, use_stack = int(spec.attr('axis')), bool(spec.attr('use_stack'))

    def run(array, sizes, dout):
        items = [array_value(e)[0] for e in array]
        if dout is None:
            return ([np.zeros_like(np.asarray(t)) for t in items],)
        a = axis + dout.ndim if axis < 0 else axis
        if use_stack:
            return ([np.take(dout, k, axis=a) for k in range(dout.shape[a])],)
        cuts = np.cumsum(np.asarray(sizes, np.int64))[:-1]
        return (list(np.split(dout, cuts, axis=a)),)
    return run
