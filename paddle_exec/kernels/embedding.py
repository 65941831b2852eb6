"""Embedding, one-hot and gather kernels with PaddlePaddle's semantics (fluid 1.8 CPU kernels).

- ``lookup_table`` (fluid 1.x): ids ``[..., 1]`` -> out ``[..., D]``; ``lookup_table_v2`` (2.x): ids of any
  shape -> ``ids.shape + [D]``. ``padding_idx`` is the op attribute: -1 means none (Paddle's layer turns a
  negative ``padding_idx`` into ``vocab + padding_idx`` before it reaches the op). Rows whose id equals
  ``padding_idx`` are zeros; any other id must be in ``[0, vocab)``.
- dense gradient: a zero ``[vocab, D]`` table with ``dOut`` rows added at their ids, skipping ``padding_idx``.
- sparse gradient (SelectedRows): ``rows`` = the ids flattened in order, duplicates AND ``padding_idx`` kept,
  ``values`` = the ``dOut`` rows unchanged (Paddle 1.8 does not zero the padding rows here); the SelectedRows
  height is the vocabulary size. :func:`merge_rows` sums duplicates like Paddle's ``MergeAdd``: rows come out
  sorted ascending, each row's values summed in order of appearance.
- ``one_hot`` (ids ``[..., 1]`` -> ``[..., depth]``) and ``one_hot_v2`` (ids any shape -> ``shape + [depth]``):
  out-of-range ids raise unless ``allow_out_of_range``, which leaves their row all zeros.
- ``gather``: ``out = x[index]`` along ``axis`` (0 in fluid 1.8). Gradient: zeros with ``dOut`` rows scattered
  at ``index``; with ``overwrite=True`` (Paddle's default) a duplicated index keeps the LAST row written, with
  ``overwrite=False`` duplicates are summed. (Paddle 2.x's gather with ``axis != 0`` always sums.)
"""
import numpy as np

from .jit import kernel_jit

__all__ = [
    'lookup_table_forward', 'lookup_table_v2_forward', 'lookup_table_grad_dense', 'lookup_table_grad_sparse',
    'merge_rows', 'one_hot', 'one_hot_v2', 'gather_forward', 'gather_backward',
]

_jit = kernel_jit(error_model='numpy')

NO_PADDING = -1


def _ids64(ids):
    return np.ascontiguousarray(ids, dtype=np.int64).reshape(-1)


def _bad_id(vocab, value):
    raise ValueError('Variable value (input) of OP(fluid.layers.embedding) expected >= 0 and < %d, but got %d. '
                     'Please check input value.' % (vocab, value))


# ----------------------------------------------------------------------------------------------------------------
# lookup_table

@_jit
def _lookup(table, ids, padding_idx):
    v_, d_ = table.shape
    out = np.empty((ids.size, d_), dtype=table.dtype)
    for i in range(ids.size):
        k = ids[i]
        if padding_idx != -1 and k == padding_idx:
            for j in range(d_):
                out[i, j] = 0
        elif k < 0 or k >= v_:
            return out, i
        else:
            for j in range(d_):
                out[i, j] = table[k, j]
    return out, -1


@_jit
def _lookup_grad_dense(ids, dout, vocab, padding_idx):
    d_ = dout.shape[1]
    dtable = np.zeros((vocab, d_), dtype=dout.dtype)
    for i in range(ids.size):
        k = ids[i]
        if padding_idx != -1 and k == padding_idx:
            continue
        if k < 0 or k >= vocab:
            return dtable, i
        for j in range(d_):
            dtable[k, j] += dout[i, j]
    return dtable, -1


def _lookup_rows(table, ids, padding_idx):
    table = np.ascontiguousarray(table)
    if table.ndim != 2:
        raise ValueError('the embedding table W must be 2-D, got shape %s' % (table.shape,))
    flat = _ids64(ids)
    out, bad = _lookup(table, flat, int(padding_idx))
    if bad >= 0:
        _bad_id(table.shape[0], flat[bad])
    return out


def lookup_table_forward(table, ids, padding_idx=NO_PADDING):
    """Paddle op ``lookup_table`` (W, Ids -> Out): ids ``[..., 1]`` (int64) -> ``[..., D]``.

    ``padding_idx``: the op attribute, -1 = none; those rows are zeros. Out-of-range ids raise ValueError.
    """
    ids = np.asarray(ids)
    if ids.ndim == 0 or ids.shape[-1] != 1:
        raise ValueError("The last dimension of the 'Ids' tensor must be 1, got shape %s" % (ids.shape,))
    out = _lookup_rows(table, ids, padding_idx)
    return out.reshape(ids.shape[:-1] + (out.shape[1],))


def lookup_table_v2_forward(table, ids, padding_idx=NO_PADDING):
    """Paddle op ``lookup_table_v2`` (W, Ids -> Out): ids of any shape -> ``ids.shape + [D]``; ``padding_idx`` as
    in :func:`lookup_table_forward`."""
    ids = np.asarray(ids)
    out = _lookup_rows(table, ids, padding_idx)
    return out.reshape(ids.shape + (out.shape[1],))


def lookup_table_grad_dense(ids, dout, vocab_size, padding_idx=NO_PADDING):
    """Paddle ops ``lookup_table_grad`` / ``lookup_table_v2_grad`` with ``is_sparse=False``: returns the dense
    ``[vocab_size, D]`` W@GRAD (``dout`` rows added at their ids; ``padding_idx`` rows get nothing)."""
    flat = _ids64(ids)
    dout = np.ascontiguousarray(dout)
    d2 = dout.reshape(flat.size, -1) if flat.size else dout.reshape(0, dout.shape[-1])
    dtable, bad = _lookup_grad_dense(flat, d2, int(vocab_size), int(padding_idx))
    if bad >= 0:
        _bad_id(vocab_size, flat[bad])
    return dtable


def lookup_table_grad_sparse(ids, dout):
    """Paddle ops ``lookup_table_grad`` / ``lookup_table_v2_grad`` with ``is_sparse=True`` (a SelectedRows of
    height = vocab size): returns ``(rows, values)``, ``rows`` the int64 ids flattened in order (duplicates and
    padding ids kept), ``values`` a ``[len(rows), D]`` copy of ``dout``."""
    rows = np.array(ids, dtype=np.int64).reshape(-1)
    dout = np.asarray(dout)
    return rows, np.array(dout).reshape(rows.size, dout.shape[-1] if dout.ndim else 1)


@_jit
def _merge_sorted(rows, values):
    order = np.argsort(rows, kind='mergesort')
    n = rows.size
    count = 0
    for t in range(n):
        if t == 0 or rows[order[t]] != rows[order[t - 1]]:
            count += 1
    out_rows = np.empty(count, dtype=np.int64)
    out = np.zeros((count, values.shape[1]), dtype=values.dtype)
    k = -1
    for t in range(n):
        i = order[t]
        if t == 0 or rows[i] != rows[order[t - 1]]:
            k += 1
            out_rows[k] = rows[i]
        for j in range(values.shape[1]):
            out[k, j] += values[i, j]
    return out_rows, out


def merge_rows(rows, values):
    """Paddle's ``MergeAdd`` on a SelectedRows: returns ``(unique_rows, summed_values)``, rows sorted ascending,
    duplicates summed in order of appearance (a stable sort keeps that order)."""
    rows = _ids64(rows)
    values = np.ascontiguousarray(values)
    width = values.size // rows.size if rows.size else int(np.prod(values.shape[1:], dtype=np.int64))
    return _merge_sorted(rows, values.reshape(rows.size, width))


# ----------------------------------------------------------------------------------------------------------------
# one_hot

@_jit
def _one_hot(ids, depth, allow_out_of_range, out):
    for i in range(ids.size):
        k = ids[i]
        if k < 0 or k >= depth:
            if allow_out_of_range:
                continue
            return i
        out[i, k] = 1
    return -1


def _one_hot_rows(ids, depth, allow_out_of_range, dtype):
    flat = _ids64(ids)
    depth = int(depth)
    out = np.zeros((flat.size, depth), dtype=dtype)
    bad = _one_hot(flat, depth, bool(allow_out_of_range), out)
    if bad >= 0:
        v = flat[bad]
        if v < 0:
            raise ValueError('Illegal index value, Input(input) value should be at least 0, but received input '
                             '(%d) less than 0' % v)
        raise ValueError('Illegal index value, Input(input) value should be less than Input(depth), but received '
                         'input (%d) not less than depth (%d)' % (v, depth))
    return out


def one_hot(ids, depth, allow_out_of_range=False, dtype=np.float32):
    """Paddle op ``one_hot`` (fluid 1.x; X -> Out): ids ``[..., 1]`` -> ``[..., depth]`` of ``dtype`` (Paddle's
    default float32). Out-of-range ids raise ValueError, or give an all-zero row with ``allow_out_of_range``."""
    ids = np.asarray(ids)
    if ids.ndim == 0 or ids.shape[-1] != 1:
        raise ValueError('the last dimension of Input(X) of one_hot must be 1, got shape %s' % (ids.shape,))
    return _one_hot_rows(ids, depth, allow_out_of_range, dtype).reshape(ids.shape[:-1] + (int(depth),))


def one_hot_v2(ids, depth, allow_out_of_range=False, dtype=np.float32):
    """Paddle op ``one_hot_v2`` (X -> Out): ids of any shape -> ``ids.shape + [depth]``; otherwise as
    :func:`one_hot`."""
    ids = np.asarray(ids)
    return _one_hot_rows(ids, depth, allow_out_of_range, dtype).reshape(ids.shape + (int(depth),))


# ----------------------------------------------------------------------------------------------------------------
# gather

@_jit
def _gather(x3, index):
    pre, n, post = x3.shape
    out = np.empty((pre, index.size, post), dtype=x3.dtype)
    for i in range(index.size):
        k = index[i]
        if k < 0 or k >= n:
            return out, i
    for p in range(pre):
        for i in range(index.size):
            k = index[i]
            for q in range(post):
                out[p, i, q] = x3[p, k, q]
    return out, -1


@_jit
def _gather_grad(dout3, index, n, overwrite):
    pre, m, post = dout3.shape
    dx = np.zeros((pre, n, post), dtype=dout3.dtype)
    for i in range(m):
        k = index[i]
        if k < 0 or k >= n:
            return dx, i
    for p in range(pre):
        for i in range(m):
            k = index[i]
            if overwrite:
                for q in range(post):
                    dx[p, k, q] = dout3[p, i, q]
            else:
                for q in range(post):
                    dx[p, k, q] += dout3[p, i, q]
    return dx, -1


def _gather_index(index):
    index = np.asarray(index)
    if not (index.ndim == 1 or (index.ndim == 2 and index.shape[1] == 1)):
        raise ValueError('The index of gather must be 1-D or [N, 1], got shape %s' % (index.shape,))
    return _ids64(index)


def _bad_index(n, value):
    raise ValueError('The index is out of bounds, please check whether the dimensions of index and input meet the '
                     'requirements. It should be less than [%d] and greater than or equal to 0, but received [%d]'
                     % (n, value))


def gather_forward(x, index, axis=0):
    """Paddle op ``gather`` (X, Index -> Out): ``Out = X[Index]`` along ``axis`` (fluid 1.8: axis 0).

    ``index``: int, 1-D or ``[N, 1]``. Returns ``x.shape`` with ``shape[axis] = len(index)``.
    """
    x = np.ascontiguousarray(x)
    axis = axis % x.ndim
    idx = _gather_index(index)
    pre = int(np.prod(x.shape[:axis], dtype=np.int64))
    post = int(np.prod(x.shape[axis + 1:], dtype=np.int64))
    out, bad = _gather(x.reshape(pre, x.shape[axis], post), idx)
    if bad >= 0:
        _bad_index(x.shape[axis], idx[bad])
    return out.reshape(x.shape[:axis] + (idx.size,) + x.shape[axis + 1:])


def gather_backward(x_shape, index, dout, axis=0, overwrite=True):
    """Paddle op ``gather_grad`` (Index, Out@GRAD -> X@GRAD): zeros of ``x_shape`` with ``dout`` scattered at
    ``index``; ``overwrite=True`` (Paddle's default) keeps the last of duplicated indices, ``False`` sums them.
    ``axis != 0`` always sums (Paddle 2.x)."""
    x_shape = tuple(int(s) for s in x_shape)
    axis = axis % len(x_shape)
    idx = _gather_index(index)
    dout = np.ascontiguousarray(dout)
    pre = int(np.prod(x_shape[:axis], dtype=np.int64))
    post = int(np.prod(x_shape[axis + 1:], dtype=np.int64))
    dx, bad = _gather_grad(dout.reshape(pre, idx.size, post), idx, x_shape[axis], bool(overwrite) and axis == 0)
    if bad >= 0:
        _bad_index(x_shape[axis], idx[bad])
    return dx.reshape(x_shape)
