"""Shape and arrangement functions of Paddle 2.x: paddle.atleast_1d / 2d / 3d, broadcast_to, broadcast_tensors,
expand_as, crop, moveaxis, rot90, reverse, unbind, unflatten, vsplit, meshgrid, combinations, tril_indices /
triu_indices, empty / empty_like, clone, vander, logspace, to_tensor.

One op where 2.6.2 appends one (expand_v2, broadcast_tensors, expand_as_v2, crop_tensor, transpose2, flip,
unbind, meshgrid, tril_indices, triu_indices, empty, assign, logspace); the rest are 2.6.2's compositions
(rot90: flips and a transpose; combinations: meshgrids of the values and of their indices, masked_select where
the indices increase, stack; vander: cumprod of the repeated column, reversed unless increasing).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, convert_dtype, to_var_type
from ..framework.variable import Variable
from ..layers import select as _select
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import assign, fill_constant
from ._append import append_op
from .creation import arange
from .elementwise import broadcast_shape
from .manipulation import concat, expand, flip, reshape, split, stack, transpose, unsqueeze
from .math import less_equal, less_than, logical_and
from .reduction import cumprod

__all__ = ['atleast_1d', 'atleast_2d', 'atleast_3d', 'broadcast_to', 'broadcast_tensors', 'expand_as', 'crop',
           'moveaxis', 'rot90', 'reverse', 'unbind', 'unflatten', 'vsplit', 'meshgrid', 'combinations',
           'tril_indices', 'triu_indices', 'empty', 'empty_like', 'clone', 'vander', 'logspace', 'to_tensor']


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """paddle.to_tensor in a static program: the data as an `assign` of a constant (2.6.2's _to_tensor_static);
    a float64 array stays float64 only when asked for."""
    if isinstance(data, Variable):
        out = data if dtype is None or to_var_type(dtype) == data.dtype else cast(data, dtype)
    else:
        array = np.array(data)
        if dtype is not None:
            array = array.astype(np.dtype(convert_dtype(to_var_type(dtype))))
        elif array.dtype == np.float64:
            array = array.astype(np.float32)        # Python floats are float32 tensors, as in Paddle
        elif array.dtype.kind in 'iu':
            array = array.astype(np.int64)
        shape = list(array.shape)
        out = _constant(array.reshape(-1) if array.ndim == 0 else array)
        if not shape:
            out = reshape(out, [1])
    out.stop_gradient = stop_gradient
    return out


def _constant(array):
    if array.dtype == np.float64:
        return cast(assign(array.astype(np.float32)), 'float64') if np.all(
            array.astype(np.float32) == array) else _float64_constant(array)
    return assign(array)


def _float64_constant(array):
    """A float64 constant without rounding through float32 (assign_value's fp64_values)."""
    return append_op('assign_value', {}, {'Out': VarType.FP64},
                     {'shape': list(array.shape), 'dtype': int(VarType.FP64),
                      'fp64_values': [float(v) for v in array.reshape(-1)]}, helper_name='assign')


def _atleast(inputs, rank: int):
    out = []
    for value in inputs:
        v = value if isinstance(value, Variable) else to_tensor(value)
        dims = len(v.shape)
        if dims < rank:
            if rank == 3 and dims == 2:
                v = unsqueeze(v, [2])
            elif rank == 3 and dims == 1:
                v = unsqueeze(v, [0, 2])
            elif dims == 1:
                v = unsqueeze(v, [0])
            else:
                v = reshape(v, [1] * rank)
        out.append(v)
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    return _atleast(inputs, 1)


def atleast_2d(*inputs, name=None):
    return _atleast(inputs, 2)


def atleast_3d(*inputs, name=None):
    return _atleast(inputs, 3)


def broadcast_to(x, shape, name=None):
    """paddle.broadcast_to: expand_v2 to `shape` (helper `expand`)."""
    return expand(x, shape, name=name)


def broadcast_tensors(input, name=None):  # noqa: A002 - Paddle's argument name
    """paddle.broadcast_tensors: every input broadcast to their common shape (one op)."""
    if not isinstance(input, (list, tuple)):
        raise TypeError("The type of 'input' in broadcast_tensors must be (list, tuple), but received %s"
                        % type(input))
    if len(input) < 1:
        raise TypeError("At least 1 tensor is needed to perform broadcast_tensors")
    for i, v in enumerate(input):
        check_variable_and_dtype(v, 'input[%d]' % i, ('bool', 'float16', 'float32', 'float64', 'int32', 'int64',
                                                      'complex64', 'complex128'), 'broadcast_tensors')
        if v.dtype != input[0].dtype:
            raise TypeError("All the Tensors in the input must have the same data type.")
    shape = list(input[0].shape)
    for v in input[1:]:
        try:
            shape = broadcast_shape(shape, v.shape)
        except ValueError:
            raise TypeError("Input tensors to broadcast_tensors does not follow bcast semantics") from None
    return append_op('broadcast_tensors', {'X': list(input)}, {'Out': [input[0].dtype] * len(input)}, name=name)


def expand_as(x, y, name=None):
    """paddle.expand_as: x broadcast to y's shape (`expand_as_v2` with target_shape)."""
    check_variable_and_dtype(x, 'x', ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'), 'expand_as')
    out = append_op('expand_as_v2', {'X': x, 'Y': y}, {'Out': x.dtype}, {'target_shape': list(y.shape)}, name=name,
                    helper_name='expand_as')
    return out


def crop(x, shape=None, offsets=None, name=None):
    """paddle.crop: the block of `shape` at `offsets` (fluid's crop_tensor; both may hold tensors)."""
    return _select.crop_tensor(x, list(x.shape) if shape is None else shape, offsets, name)


def moveaxis(x, source, destination, name=None):
    """paddle.moveaxis: axes moved from source to destination (one transpose2, helper `moveaxis`)."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise AssertionError("'source' must have the same number with 'destination'")
    if len(src) != len(set(src)):
        raise ValueError("Each elemment of 'source' must be unique!")
    if len(dst) != len(set(dst)):
        raise ValueError("Each elemment of 'destination' must be unique!")
    ndim = len(x.shape)
    src = [s + ndim if s < 0 else s for s in src]
    dst = [d + ndim if d < 0 else d for d in dst]
    perm = [0] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest_src = [i for i in range(ndim) if i not in src]
    rest_dst = [i for i in range(ndim) if i not in dst]
    for s, d in zip(rest_src, rest_dst):
        perm[d] = s
    out, _ = append_op('transpose2', {'X': x}, {'Out': x.dtype, 'XShape': x.dtype}, {'axis': perm}, name=name,
                       helper_name='moveaxis')
    return out


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 - Paddle's default
    """paddle.rot90: a rotation by 90 degrees k times in the plane of `axes` (flips and a transpose)."""
    rank = len(x.shape)
    if len(axes) != 2:
        raise ValueError("expected total rotation axes == 2, but got axes = %d" % len(axes))
    if rank < 2:
        raise ValueError("expected total dims >= 2, but got total dims = %d" % rank)
    if not (axes[0] != axes[1] and abs(axes[0] - axes[1]) != rank):
        raise ValueError("expected rotation axes to be different, but got axis0 = %d, and axis1 = %d"
                         % (axes[0], axes[1]))
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise ValueError("Rotation axis%d out of range, axis%d = %d" % (i, i, a))
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(flip(x, axes[0]), axes[1])
    perm = list(range(rank))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return transpose(flip(x, axes[1]), perm)
    return flip(transpose(x, perm), axes[1])


def reverse(x, axis, name=None):
    """paddle.reverse: flip along axis (a list or an int)."""
    return flip(x, [axis] if isinstance(axis, int) else list(axis), name=name)


def unbind(input, axis=0):  # noqa: A002 - Paddle's argument name
    """paddle.unbind: the slices along axis, that axis removed (one `unbind`)."""
    if not isinstance(axis, int):
        raise TypeError("The type of 'axis'  must be int, but received %s." % type(axis))
    rank = len(input.shape)
    if not -rank <= axis < rank:
        raise ValueError("The axis must in range(%d, %d)." % (-rank, rank))
    n = input.shape[axis + rank if axis < 0 else axis]
    check_variable_and_dtype(input, 'input', ('bool', 'float16', 'float32', 'float64', 'int32', 'int64'), 'unbind')
    out = append_op('unbind', {'X': input}, {'Out': [input.dtype] * n}, {'axis': axis})
    return out if isinstance(out, list) else [out]


def unflatten(x, axis, shape, name=None):
    """paddle.unflatten: axis split into `shape` (a reshape)."""
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError("'axis' should be in range [-%d, %d)" % (rank, rank))
    axis = axis + rank if axis < 0 else axis
    if not isinstance(shape, (list, tuple)):
        raise TypeError("The data type of x should be one of ['List', 'Tuple', 'Tensor'], but got %s" % type(shape))
    return reshape(x, list(x.shape[:axis]) + list(shape) + list(x.shape[axis + 1:]), name=name)


def vsplit(x, num_or_sections, name=None):
    if len(x.shape) < 2:
        raise ValueError("The input tensor's dimension must be greater than 1, but got %d" % len(x.shape))
    return split(x, num_or_sections, axis=0, name=name)


def meshgrid(*args, **kwargs):
    """paddle.meshgrid: 'ij' grids of the 1-D inputs (fluid's builder: one `meshgrid`)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return _select.meshgrid(list(args), name=kwargs.get('name'))


def combinations(x, r=2, with_replacement=False, name=None):
    """paddle.combinations: the r-combinations of a 1-D tensor's elements, one per row (2.6.2's construction)."""
    if len(x.shape) != 1:
        raise TypeError("Expect a 1-D vector, but got x shape %s" % list(x.shape))
    if not isinstance(r, int) or r < 0:
        raise ValueError("Expect a non-negative int, but got r=%s" % r)
    if r == 0:
        return empty([0], dtype=x.dtype)
    n = x.shape[0]
    if (r > n and not with_replacement) or (n == 0 and with_replacement):
        return empty([0, r], dtype=x.dtype)
    grids = meshgrid([x] * r) if r > 1 else [x]
    positions = arange(0, n, 1, dtype='int64')
    index_grids = meshgrid([positions] * r) if r > 1 else [positions]
    mask = fill_constant([n] * r, 'bool', True)
    compare = less_equal if with_replacement else less_than
    for i in range(r - 1):
        mask = logical_and(mask, compare(index_grids[i], index_grids[i + 1]))
    picked = [append_op('masked_select', {'X': g, 'Mask': mask}, {'Y': x.dtype}) for g in grids]
    return stack(picked, 1)


def _tri_indices(op_type: str, row, col, offset, dtype):
    if not isinstance(row, int) or row < 0:
        raise TypeError("row should be a non-negative int")
    col = row if col is None else col
    if not isinstance(col, int) or col < 0:
        raise TypeError("col should be a non-negative int")
    if not isinstance(offset, int):
        raise TypeError("offset should be a  int")
    dtype = to_var_type(dtype)
    names = ('rows', 'cols') if op_type == 'tril_indices' else ('row', 'col')
    return append_op(op_type, {}, {'out': dtype},
                     {names[0]: row, names[1]: col, 'offset': offset, 'dtype': int(dtype)})


def tril_indices(row, col, offset=0, dtype='int64'):
    """paddle.tril_indices: the [2, N] coordinates of a row x col matrix's lower triangle (below offset)."""
    return _tri_indices('tril_indices', row, col, offset, dtype)


def triu_indices(row, col=None, offset=0, dtype='int64'):
    return _tri_indices('triu_indices', row, col, offset, dtype)


def empty(shape, dtype=None, name=None):
    """paddle.empty: an uninitialised tensor (`empty`); its values are whatever the memory held."""
    dtype = to_var_type(dtype or 'float32')
    if isinstance(shape, Variable):
        return append_op('empty', {'ShapeTensor': shape}, {'Out': dtype}, {'shape': [], 'dtype': int(dtype)},
                         name=name)
    return append_op('empty', {}, {'Out': dtype}, {'shape': [int(d) for d in shape], 'dtype': int(dtype)},
                     name=name)


def empty_like(x, dtype=None, name=None):
    """paddle.empty_like: an uninitialised tensor of x's shape (read at run time, `shape` + `empty`)."""
    dtype = to_var_type(x.dtype if dtype is None else dtype)
    shape = append_op('shape', {'Input': x}, {'Out': VarType.INT32})
    out = append_op('empty', {'ShapeTensor': shape}, {'Out': dtype}, {'shape': [], 'dtype': int(dtype)}, name=name,
                    helper_name='empty_like')
    out.stop_gradient = True
    return out


def clone(x, name=None):
    """paddle.clone: a copy (`assign`), gradients flowing through."""
    return assign(x)


def vander(x, n=None, increasing=False, name=None):
    """paddle.vander: the Vandermonde matrix of a 1-D x: columns x^(n-1), ..., x, 1 (reversed when increasing)."""
    check_variable_and_dtype(x, 'x', ('float32', 'float64', 'int32', 'int64'), 'vander')
    if len(x.shape) != 1:
        raise ValueError("The input of x is expected to be a 1-D Tensor.But now the dims of Input(X) is %d."
                         % len(x.shape))
    n = x.shape[0] if n is None else n
    if n < 0:
        raise ValueError("N must be non-negative.")
    ones = fill_constant([x.shape[0], 1], x.dtype, 1.0)
    if n == 0:
        return reshape(ones, [x.shape[0], 0])
    columns = ones
    if n > 1:
        powers = cumprod(expand(unsqueeze(x, [1]), [x.shape[0], n - 1]), dim=-1)
        columns = concat([ones, powers], 1)
    return columns if increasing else flip(columns, [1], name=name)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """paddle.logspace: base ** linspace(start, stop, num) (one `logspace`, its inputs [1] tensors)."""
    dtype = to_var_type(dtype or 'float32')
    inputs = {}
    for slot, value, value_dtype in (('Start', start, dtype), ('Stop', stop, dtype), ('Num', num, VarType.INT32),
                                     ('Base', base, dtype)):
        inputs[slot] = value if isinstance(value, Variable) else fill_constant([1], value_dtype, value)
    out = append_op('logspace', inputs, {'Out': dtype}, {'dtype': int(dtype)}, name=name)
    if isinstance(num, int):
        out.shape = (num,)
    return out
