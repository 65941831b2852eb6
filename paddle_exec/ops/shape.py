"""Shape ops: queries (shape, size, is_empty) and reshaping (reshape, squeeze, unsqueeze, flatten, transpose).

Each reshaping op comes in Paddle's v1 form, whose grad reads X, and v2 form, whose grad reads XShape:
reshape(2), squeeze(2), unsqueeze(2), flatten(2), flatten_contiguous_range (2.x, v2 only), transpose(2).

- Compile-time shapes use -1 for unknown dims; a rule never invents a dim it cannot know (Paddle 1.8's flatten2
  writes the product of a -1 dim, e.g. -6; here it is -1).
- Runtime ShapeTensor / AxesTensor inputs win over the attribute.
- `XShape` (the v2 ops' intermediate output) holds no data in Paddle, only the dims `[0] + X.dims`; here it is an
  empty array of shape `(0,) + x.shape`, which costs no memory and gives the grad op X's shape.
- Memory: reshape, squeeze, unsqueeze, flatten and their grads return numpy *views* of their input (never of or
  for a persistable, see `_util.must_copy`); transpose returns a new C-contiguous array. Kernels of every family
  must therefore treat their inputs as read-only.
"""
from __future__ import annotations

import functools

import numpy as np

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, segment_rule, shape_rule
from ..kernels.segment import tensor as ST
from ._util import dims_text, must_copy, norm_axis, prod, runtime_ints, segment_op

__all__ = ['reshape_target', 'squeeze_shape', 'unsqueeze_shape', 'flatten2_shape', 'flatten_range_shape',
           'transpose_axis']


# --- shape, size, is_empty --------------------------------------------------------------------------------------------

defop('shape', ['Input'], ['Out'])


@shape_rule('shape')
def _shape_shape(ctx):
    ctx.set_output('Out', (len(ctx.in_shape('Input')),), VarType.INT32)


@kernel_rule('shape')
def _shape(spec):
    return lambda x: (np.array(x.shape, dtype=np.int32),)


defop('size', ['Input'], ['Out'])


@shape_rule('size')
def _size_shape(ctx):
    ctx.set_output('Out', (1,), VarType.INT64)


@kernel_rule('size')
def _size(spec):
    """paddle.numel: the element count as an int64 [1] tensor (Paddle <= 2.4; 2.5+ returns a 0-D tensor)."""
    return lambda x: (np.array([np.asarray(x).size], dtype=np.int64),)


defop('is_empty', ['X'], ['Out'])


@shape_rule('is_empty')
def _is_empty_shape(ctx):
    ctx.set_output('Out', (1,), VarType.BOOL)


@kernel_rule('is_empty')
def _is_empty(spec):
    return lambda x: (np.array([np.asarray(x).size == 0]),)


# --- reshape ----------------------------------------------------------------------------------------------------------

def _xshape(x) -> np.ndarray:
    """The v2 ops' XShape value: no data, X's dims after a leading 0."""
    return np.empty((0,) + x.shape, dtype=x.dtype)


def reshape_target(shape, in_dims, op_type: str = 'reshape2') -> tuple:
    """Paddle's ValidateShape: 0 copies the input dim, one -1 is inferred (left -1 while the input has unknown
    dims), and the element counts must agree."""
    shape = [int(d) for d in shape]
    in_dims = tuple(int(d) for d in in_dims)
    unk, capacity, out = -1, 1, []
    for i, d in enumerate(shape):
        if d == -1:
            if unk != -1:
                raise ValueError("Only one dimension value of 'shape' in ReshapeOp can be -1. But received shape = "
                                 "[%s], shape[%d] is also -1." % (dims_text(shape), i))
            unk = i
        elif d == 0:
            if i >= len(in_dims):
                raise ValueError("The index of 0 in `shape` must be less than the input tensor X's dimensions. But "
                                 "received shape = [%s], shape[%d] = 0, X's shape = [%s], X's dimensions = %d."
                                 % (dims_text(shape), i, dims_text(in_dims), len(in_dims)))
        elif d < 0:
            raise ValueError("Each dimension value of 'shape' in ReshapeOp must not be negative except one unknown "
                             "dimension. But received shape = [%s], shape[%d] = %d." % (dims_text(shape), i, d))
        v = d if d else in_dims[i]
        capacity *= v
        out.append(v)
    in_size = int(np.prod(in_dims, dtype=np.int64)) if in_dims else 1
    all_known = all(d > 0 for d in in_dims)
    if unk != -1:
        if all_known:
            inferred = -in_size // capacity
            if inferred * capacity != -in_size:
                raise ValueError("The 'shape' attribute in ReshapeOp is invalid. The input tensor X'size must be "
                                 "divisible by known capacity of 'shape'. But received X's shape = [%s], X's size = "
                                 "%d, 'shape' is [%s], known capacity of 'shape' is %d."
                                 % (dims_text(in_dims), in_size, dims_text(shape), capacity))
            out[unk] = inferred
        else:
            out[unk] = -1
    elif all_known and capacity != in_size:
        raise ValueError("The 'shape' in ReshapeOp is invalid. The input tensor X'size must be equal to the capacity "
                         "of 'shape'. But received X's shape = [%s], X's size = %d, 'shape' is [%s], the capacity of "
                         "'shape' is %d." % (dims_text(in_dims), in_size, dims_text(shape), capacity))
    return tuple(out)


_RESHAPE_IN = ['X', 'Shape', 'ShapeTensor']
defop('reshape', _RESHAPE_IN, ['Out'], {'shape': []}, duplicable=['ShapeTensor'],
      dispensable=['Shape', 'ShapeTensor'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('reshape2', _RESHAPE_IN, ['Out', 'XShape'], {'shape': []}, duplicable=['ShapeTensor'],
      dispensable=['Shape', 'ShapeTensor', 'XShape'], grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))


def _set_reshape_out(ctx, out_shape):
    xs = ctx.in_shape('X')
    ctx.set_output('Out', out_shape, ctx.in_dtype('X'))
    if ctx.has_output('XShape'):
        ctx.set_output('XShape', (0,) + xs, ctx.in_dtype('X'))


@shape_rule('reshape')
@shape_rule('reshape2')
def _reshape_shape(ctx):
    xs = ctx.in_shape('X')
    shape = list(ctx.attr('shape'))
    if ctx.has_input('ShapeTensor'):
        n = len(ctx.op.input('ShapeTensor'))
        out = [(xs[i] if d == 0 and i < len(xs) else d) for i, d in enumerate(shape)] if len(shape) == n \
            else [-1] * n
        return _set_reshape_out(ctx, out)
    if ctx.has_input('Shape') and not shape:
        return _set_reshape_out(ctx, [-1] * max(prod(ctx.in_shape('Shape')), 1))
    if not shape:
        raise ValueError("The parameter 'shape' in ReshapeOp must be set. But received 'shape' is empty (operator "
                         "'%s' on %r)." % (ctx.op.type, ctx.op.input('X')[0]))
    _set_reshape_out(ctx, reshape_target(shape, xs, ctx.op.type))


@kernel_rule('reshape', 'reshape2')
def _reshape(spec):
    attr_shape = list(spec.attr('shape'))
    copy = must_copy(spec, 'X')
    want_xshape = spec.has_output('XShape')
    op_type = spec.type
    # the attribute's target per input shape, remembered for the few shapes a plan sees (bounded: a plan fed ever
    # new batch sizes must not grow it without end)
    attr_target = functools.lru_cache(maxsize=16)(lambda in_shape: reshape_target(attr_shape, in_shape, op_type))

    def target(x, shape_tensor, shape_list):
        if shape_list is not None:
            return reshape_target(runtime_ints(shape_list), x.shape, op_type)
        if shape_tensor is not None:
            return reshape_target(runtime_ints(shape_tensor), x.shape, op_type)
        return attr_target(x.shape)

    def run(x, shape_tensor, shape_list):
        out = x.reshape(target(x, shape_tensor, shape_list))
        if copy:
            out = out.copy()
        return (out, _xshape(x)) if want_xshape else (out,)
    return run


def _reshape_back_x(spec):
    return lambda x, dout: (dout.reshape(x.shape),)


def _reshape_back_xshape(spec):
    return lambda xshape, dout: (dout.reshape(xshape.shape[1:]),)


def _xshape_grad_maker(type: str):
    """The v2 ops' gradient reads XShape (as Paddle's `<type>_grad`); a program without it gets a clear error."""
    def maker(g):
        if not g.output('XShape'):
            raise ValueError("operator '%s' on %r has no XShape output, which its gradient needs; build it with "
                             "an XShape output (as the layers do) or use the v1 op" % (type, g.input('X')))
        return [(type + '_grad', {'XShape': g.output('XShape'), 'Out@GRAD': g.output_grad('Out')},
                 {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]
    return maker


# --- squeeze ---------------------------------------------------------------------------------------------------------

def squeeze_shape(axes, in_dims, runtime: bool) -> tuple:
    """Paddle's squeeze rule: no axes drops every dim of size 1; listed axes are dropped when their size is 1 (at
    compile time also when unknown); other listed dims stay (Paddle 2.x; 1.8 raised)."""
    rank = len(in_dims)
    if not axes:
        return tuple(d for d in in_dims if d != 1)
    drop = set()
    for a in axes:
        cur = a + rank if a < 0 else a
        if not 0 <= cur < rank:
            raise ValueError("Each axis in Attr(axes) should be in the range of [%d, %d]. But current axis is:%d, "
                             "input tensor's shape = [%s]." % (-rank, rank - 1, a, dims_text(in_dims)))
        if in_dims[cur] == 1 or (not runtime and in_dims[cur] == -1):
            drop.add(cur)
    return tuple(d for i, d in enumerate(in_dims) if i not in drop)


defop('squeeze', ['X'], ['Out'], {'axes': []}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('squeeze2', ['X'], ['Out', 'XShape'], {'axes': []}, dispensable=['XShape'],
      grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('squeeze')
@shape_rule('squeeze2')
def _squeeze_shape(ctx):
    _set_reshape_out(ctx, squeeze_shape(ctx.attr('axes'), ctx.in_shape('X'), runtime=False))


def _reshape_kernel_from(shape_fn):
    """A kernel factory for ops whose output is X reshaped by `shape_fn(spec, x, extra_inputs)`."""
    def factory(spec):
        copy = must_copy(spec, 'X')
        want_xshape = spec.has_output('XShape')

        def run(x, *extra):
            out = x.reshape(shape_fn(spec, x, extra))
            if copy:
                out = out.copy()
            return (out, _xshape(x)) if want_xshape else (out,)
        return run
    return factory


kernel_rule('squeeze', 'squeeze2')(
    _reshape_kernel_from(lambda spec, x, extra: squeeze_shape(spec.attr('axes'), x.shape, runtime=True)))


# --- unsqueeze -------------------------------------------------------------------------------------------------------

def unsqueeze_shape(axes, in_dims) -> tuple:
    """Paddle's unsqueeze rule: each axis (negative: counted from the end of the current output) inserts a 1."""
    out_size = len(in_dims) + len(axes)
    cur_size = len(in_dims)
    marks = [0] * out_size
    for axis in axes:
        cur = axis + cur_size + 1 if axis < 0 else axis
        if not 0 <= cur <= cur_size:
            raise ValueError('The unsqueeze dims must be within range of current rank: axis %d with input shape '
                             '[%s]' % (axis, dims_text(in_dims)))
        for i in range(cur_size, cur - 1, -1):
            if marks[i] == 1:
                marks[i + 1] = 1
                marks[i] = 0
        marks[cur] = 1
        cur_size += 1
    dims = iter(in_dims)
    return tuple(1 if m else next(dims) for m in marks)


defop('unsqueeze', ['X'], ['Out'], {'axes': []}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('unsqueeze2', ['X', 'AxesTensor', 'AxesTensorList'], ['Out', 'XShape'], {'axes': []},
      duplicable=['AxesTensorList'], dispensable=['AxesTensor', 'AxesTensorList', 'XShape'],
      grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('unsqueeze')
@shape_rule('unsqueeze2')
def _unsqueeze_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('AxesTensor'):
        n = max(prod(ctx.in_shape('AxesTensor')), 1)
        return _set_reshape_out(ctx, [-1] * (len(xs) + n))
    if ctx.has_input('AxesTensorList'):
        return _set_reshape_out(ctx, [-1] * (len(xs) + len(ctx.op.input('AxesTensorList'))))
    _set_reshape_out(ctx, unsqueeze_shape(ctx.attr('axes'), xs))


def _unsqueeze_runtime_shape(spec, x, extra):
    axes = spec.attr('axes')
    if extra:
        axes_tensor, axes_list = extra
        if axes_list is not None:
            axes = runtime_ints(axes_list)
        elif axes_tensor is not None:
            axes = runtime_ints(axes_tensor)
    return unsqueeze_shape(axes, x.shape)


kernel_rule('unsqueeze', 'unsqueeze2')(_reshape_kernel_from(_unsqueeze_runtime_shape))


# --- flatten (fluid: 2-D at `axis`) and flatten_contiguous_range (2.x: merge start_axis..stop_axis) ----------------

def flatten2_shape(axis: int, in_dims) -> tuple:
    if not 0 <= axis <= len(in_dims):
        raise ValueError('The axis should be a int, and in range [0, rank(x)], but received axis %d for input shape '
                         '[%s]' % (axis, dims_text(in_dims)))
    return (prod(in_dims[:axis]), prod(in_dims[axis:]))


def flatten_range_shape(start: int, stop: int, in_dims) -> tuple:
    rank = len(in_dims)
    if rank == 0:
        return (1,)
    start = norm_axis(start, rank, 'flatten_contiguous_range', 'start_axis')
    stop = norm_axis(stop, rank, 'flatten_contiguous_range', 'stop_axis')
    if start > stop:
        raise ValueError('The stop_axis should be larger than stat_axis, but received start_axis %d, stop_axis %d'
                         % (start, stop))
    return tuple(in_dims[:start]) + (prod(in_dims[start:stop + 1]),) + tuple(in_dims[stop + 1:])


defop('flatten', ['X'], ['Out'], {'axis': 1}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('flatten2', ['X'], ['Out', 'XShape'], {'axis': 1}, dispensable=['XShape'],
      grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))
defop('flatten_contiguous_range', ['X'], ['Out', 'XShape'], {'start_axis': 1, 'stop_axis': 1},
      dispensable=['XShape'], grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('flatten')
@shape_rule('flatten2')
def _flatten_shape(ctx):
    _set_reshape_out(ctx, flatten2_shape(ctx.attr('axis'), ctx.in_shape('X')))


@shape_rule('flatten_contiguous_range')
def _flatten_range_shape(ctx):
    _set_reshape_out(ctx, flatten_range_shape(ctx.attr('start_axis'), ctx.attr('stop_axis'), ctx.in_shape('X')))


kernel_rule('flatten', 'flatten2')(
    _reshape_kernel_from(lambda spec, x, extra: flatten2_shape(spec.attr('axis'), x.shape)))
kernel_rule('flatten_contiguous_range')(
    _reshape_kernel_from(lambda spec, x, extra: flatten_range_shape(spec.attr('start_axis'), spec.attr('stop_axis'),
                                                                    x.shape)))


# --- transpose -------------------------------------------------------------------------------------------------------

def transpose_axis(axis, rank: int) -> tuple:
    """Checks that `axis` permutes range(rank) (negative entries count from the end)."""
    if len(axis) != rank:
        raise ValueError("The input tensor's dimension should be equal to the axis's size. But received input "
                         "tensor's dimension is %d, axis's size is %d" % (rank, len(axis)))
    perm = tuple(a + rank if a < 0 else a for a in axis)
    if sorted(perm) != list(range(rank)):
        raise ValueError('Each element of Attribute axis should be a unique value range from 0 to (dims - 1), where '
                         'the dims is the axis\'s size, unique value means this axis value can appear only once. But '
                         'received axis = [%s] for a tensor of rank %d' % (dims_text(axis), rank))
    return perm


defop('transpose', ['X'], ['Out'], {'axis': [], 'data_format': 'AnyLayout'},
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
# use_mkldnn / use_quantizer: unused here; declared (and set by the builders) as Paddle 1.8 declares them, since
# 1.8 refuses a saved transpose2_grad / concat_grad without them
defop('transpose2', ['X'], ['Out', 'XShape'],
      {'axis': [], 'use_mkldnn': False, 'data_format': 'AnyLayout', 'use_quantizer': False}, dispensable=['XShape'],
      grad=GradSpec(('XShape', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('transpose')
@shape_rule('transpose2')
def _transpose_shape(ctx):
    xs = ctx.in_shape('X')
    perm = transpose_axis(ctx.attr('axis'), len(xs))
    _set_reshape_out(ctx, tuple(xs[p] for p in perm))


@kernel_rule('transpose', 'transpose2')
def _transpose(spec):
    axis = spec.attr('axis')
    want_xshape = spec.has_output('XShape')

    def run(x):
        out = np.ascontiguousarray(x.transpose(transpose_axis(axis, x.ndim)))
        return (out, _xshape(x)) if want_xshape else (out,)
    return run


@kernel_rule('transpose_grad', 'transpose2_grad')
def _transpose_grad(spec):
    axis = spec.attr('axis')

    def run(x_or_xshape, dout):
        return (np.ascontiguousarray(dout.transpose(np.argsort(transpose_axis(axis, dout.ndim)))),)
    return run


# the shared grad kernels of the reshape-like ops: v1 reads X, v2 reads XShape
kernel_rule('reshape_grad', 'squeeze_grad', 'unsqueeze_grad', 'flatten_grad')(_reshape_back_x)
kernel_rule('reshape2_grad', 'squeeze2_grad', 'unsqueeze2_grad', 'flatten2_grad',
            'flatten_contiguous_range_grad')(_reshape_back_xshape)

for _t in ('reshape2', 'squeeze2', 'unsqueeze2', 'flatten2', 'flatten_contiguous_range', 'transpose2'):
    grad_rule(_t)(_xshape_grad_maker(_t))


# --- segment rules: reshape2 by its attribute (the output may be a view, as the kernel's; never of a persistable) --

@segment_rule('reshape2')
def _reshape2_segment(spec):
    target = tuple(int(d) for d in spec.attr('shape'))
    if spec.has_input('Shape') or spec.has_input('ShapeTensor') or not target or must_copy(spec, 'X'):
        return None
    if spec.has_output('XShape'):
        return segment_op(ST.reshape_with_xshape, ['X'], ['Out', 'XShape'], (target, len(target)), views=True)
    return segment_op(ST.reshape, ['X'], ['Out'], (target, len(target)), views=True)


@segment_rule('reshape2_grad')
def _reshape2_grad_segment(spec):
    return segment_op(ST.reshape_grad, ['XShape', 'Out@GRAD'], ['X@GRAD'], views=True)
