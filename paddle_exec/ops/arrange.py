"""Shape-arranging ops of Paddle 2.x and fluid 1.8 not covered by shape.py / broadcasting.py: broadcast_tensors,
expand_as_v2 (2.x) and expand_as (1.8), meshgrid, crop_tensor (2.x and 1.8) and crop (1.8), unbind, empty,
logspace (pad_constant_like is in image.py).

Slots and attributes are Paddle's. Gradients: broadcast_tensors / expand_as sum the broadcast dims back;
meshgrid gives each input the sum of its output's gradient over the other axes; crop / crop_tensor put the
gradient back at the offsets (zeros elsewhere); unbind's
gradient is unstack_grad (the output gradients stacked back).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, shape_rule
from ._util import norm_axis, runtime_ints, sum_to_shape

__all__: list = []


def _broadcast_dims(shapes) -> tuple:
    n = max(len(s) for s in shapes)
    padded = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    out = []
    for dims in zip(*padded):
        known = {d for d in dims if d != 1}
        if -1 in known:
            out.append(-1)
        elif len(known) > 1:
            raise ValueError('broadcast_tensors: the shapes %s cannot be broadcast together'
                             % [list(s) for s in shapes])
        else:
            out.append(known.pop() if known else 1)
    return tuple(out)


# --- broadcast_tensors, expand_as_v2, expand_as ----------------------------------------------------------------------

defop('broadcast_tensors', ['X'], ['Out'], duplicable=['X', 'Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('broadcast_tensors')
def _broadcast_tensors_shape(ctx):
    vars_ = ctx.input_vars('X')
    shape = _broadcast_dims([v.shape for v in vars_])
    for i, v in enumerate(vars_):
        ctx.set_output('Out', shape, v.dtype, i=i)


@kernel_rule('broadcast_tensors')
def _broadcast_tensors_kernel(spec):
    return lambda xs: ([np.ascontiguousarray(a) for a in np.broadcast_arrays(*xs)],)


@kernel_rule('broadcast_tensors_grad')
def _broadcast_tensors_grad_kernel(spec):
    wanted = [n != '@EMPTY@' for n in spec.op.output('X@GRAD')]
    return lambda xs, douts: ([sum_to_shape(d, x.shape) if w else None for x, d, w in zip(xs, douts, wanted)],)


defop('expand_as_v2', ['X', 'Y'], ['Out'], {'target_shape': []}, dispensable=['Y'],
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
defop('expand_as', ['X', 'target_tensor'], ['Out'], grad=GradSpec(('X', 'target_tensor', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('expand_as_v2')
def _expand_as_v2_shape(ctx):
    target = list(ctx.attr('target_shape')) or list(ctx.in_shape('Y'))
    xs = ctx.in_shape('X')
    if len(target) < len(xs):
        raise ValueError('The rank of target_shape (%d) must be greater than or equal to the rank of x (%d).'
                         % (len(target), len(xs)))
    ctx.set_output('Out', tuple(target), ctx.in_dtype('X'))


@shape_rule('expand_as')
def _expand_as_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('target_tensor'), ctx.in_dtype('X'))


def _expand_to(x, shape):
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    target = tuple(x.shape[i - lead] if (s == -1 and i >= lead) else s for i, s in enumerate(shape))
    try:
        return np.ascontiguousarray(np.broadcast_to(x, target))
    except ValueError:
        raise ValueError('The value (%s) of the non-singleton dimension does not match the corresponding value in '
                         'shape %s for expand_as' % (list(x.shape), list(target))) from None


@kernel_rule('expand_as_v2')
def _expand_as_v2_kernel(spec):
    target = list(spec.attr('target_shape'))
    return lambda x, y: (_expand_to(x, target if target else y.shape),)


@kernel_rule('expand_as')
def _expand_as_kernel(spec):
    return lambda x, target: (_expand_to(x, target.shape),)


@kernel_rule('expand_as_v2_grad')
def _expand_as_v2_grad_kernel(spec):
    return lambda x, dout: (sum_to_shape(dout, x.shape),)


@kernel_rule('expand_as_grad')
def _expand_as_grad_kernel(spec):
    return lambda x, target, dout: (sum_to_shape(dout, x.shape),)


# --- meshgrid --------------------------------------------------------------------------------------------------------

defop('meshgrid', ['X'], ['Out'], duplicable=['X', 'Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('meshgrid')
def _meshgrid_shape(ctx):
    vars_ = ctx.input_vars('X')
    shape = tuple(v.shape[0] if v.shape else 1 for v in vars_)
    for i, v in enumerate(vars_):
        ctx.set_output('Out', shape, v.dtype, i=i)


@kernel_rule('meshgrid')
def _meshgrid_kernel(spec):
    return lambda xs: ([np.ascontiguousarray(g) for g in np.meshgrid(*[x.reshape(-1) for x in xs],
                                                                      indexing='ij')],)


@kernel_rule('meshgrid_grad')
def _meshgrid_grad_kernel(spec):
    wanted = [n != '@EMPTY@' for n in spec.op.output('X@GRAD')]

    def run(xs, douts):
        n = len(xs)
        out = []
        for i, (x, d, w) in enumerate(zip(xs, douts, wanted)):
            out.append(d.sum(axis=tuple(k for k in range(n) if k != i)).reshape(x.shape) if w else None)
        return (out,)
    return run


# --- crop_tensor (2.x, 1.8) and crop (1.8) ---------------------------------------------------------------------------

defop('crop_tensor', ['X', 'Shape', 'Offsets', 'ShapeTensor', 'OffsetsTensor'], ['Out'], {'shape': [], 'offsets': []},
      dispensable=['Shape', 'Offsets', 'ShapeTensor', 'OffsetsTensor'], duplicable=['ShapeTensor', 'OffsetsTensor'],
      grad=GradSpec(('X', 'Shape', 'Offsets', 'ShapeTensor', 'OffsetsTensor', 'Out@GRAD'), ('X@GRAD',)))
defop('crop', ['X', 'Y', 'Offsets'], ['Out'], {'shape': [], 'offsets': []}, dispensable=['Y', 'Offsets'],
      grad=GradSpec(('X', 'Y', 'Offsets', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('crop_tensor')
def _crop_tensor_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('Shape') or ctx.has_input('ShapeTensor'):
        shape = [-1] * len(xs)
    else:
        shape = list(ctx.attr('shape'))
        if len(shape) != len(xs):
            raise ValueError('The number of elements (%d) of attribute shape of CropTensorOp should be equal to the '
                             'dimension size (%d) of Input(X).' % (len(shape), len(xs)))
        offsets = list(ctx.attr('offsets')) if not (ctx.has_input('Offsets') or ctx.has_input('OffsetsTensor')) \
            else [-1] * len(xs)
        offsets = offsets or [0] * len(xs)
        # -1: to the end of the dim from the offset
        shape = [(xs[i] - offsets[i] if xs[i] >= 0 and offsets[i] >= 0 else -1) if d == -1 else d
                 for i, d in enumerate(shape)]
    ctx.set_output('Out', tuple(shape), ctx.in_dtype('X'))


@shape_rule('crop')
def _crop_shape(ctx):
    shape = tuple(ctx.in_shape('Y')) if ctx.has_input('Y') else tuple(ctx.attr('shape'))
    ctx.set_output('Out', shape, ctx.in_dtype('X'))


def _crop_box(x, shape, offsets):
    shape = [x.shape[i] - offsets[i] if d == -1 else d for i, d in enumerate(shape)]
    for i, (o, d) in enumerate(zip(offsets, shape)):
        if o < 0 or o + d > x.shape[i]:
            raise ValueError('The sum of the Attr(offsets) (%d) and Attr(shape) (%d) of Op(crop_tensor) should be '
                             'less than or equal to corresponding input dimension size (%d) at dim %d.'
                             % (o, d, x.shape[i], i))
    return tuple(slice(o, o + d) for o, d in zip(offsets, shape))


def _crop_tensor_box(spec, x, shape_t, offsets_t, shape_list, offsets_list):
    if shape_list is not None:
        shape = runtime_ints(shape_list)
    elif shape_t is not None:
        shape = runtime_ints(shape_t)
    else:
        shape = list(spec.attr('shape'))
    if offsets_list is not None:
        offsets = runtime_ints(offsets_list)
    elif offsets_t is not None:
        offsets = runtime_ints(offsets_t)
    else:
        offsets = list(spec.attr('offsets')) or [0] * x.ndim
    return _crop_box(x, shape, offsets)


@kernel_rule('crop_tensor')
def _crop_tensor_kernel(spec):
    def run(x, shape_t, offsets_t, shape_list, offsets_list):
        return (np.ascontiguousarray(x[_crop_tensor_box(spec, x, shape_t, offsets_t, shape_list, offsets_list)]),)
    return run


@kernel_rule('crop_tensor_grad')
def _crop_tensor_grad_kernel(spec):
    def run(x, shape_t, offsets_t, shape_list, offsets_list, dout):
        dx = np.zeros(x.shape, x.dtype)
        dx[_crop_tensor_box(spec, x, shape_t, offsets_t, shape_list, offsets_list)] = dout
        return (dx,)
    return run


def _crop_box_1_8(spec, x, y, offsets_t):
    shape = list(y.shape) if y is not None else list(spec.attr('shape'))
    offsets = runtime_ints(offsets_t) if offsets_t is not None else (list(spec.attr('offsets')) or [0] * x.ndim)
    return _crop_box(x, shape, offsets)


@kernel_rule('crop')
def _crop_kernel(spec):
    return lambda x, y, offsets_t: (np.ascontiguousarray(x[_crop_box_1_8(spec, x, y, offsets_t)]),)


@kernel_rule('crop_grad')
def _crop_grad_kernel(spec):
    def run(x, y, offsets_t, dout):
        dx = np.zeros(x.shape, x.dtype)
        dx[_crop_box_1_8(spec, x, y, offsets_t)] = dout
        return (dx,)
    return run


# --- unbind ---------------------------------------------------------------------------------------------------------

defop('unbind', ['X'], ['Out'], {'axis': 0}, duplicable=['Out'])


@shape_rule('unbind')
def _unbind_shape(ctx):
    xs = ctx.in_shape('X')
    axis = norm_axis(ctx.attr('axis'), len(xs), 'unbind')
    for i in range(len(ctx.op.output('Out'))):
        ctx.set_output('Out', xs[:axis] + xs[axis + 1:], ctx.in_dtype('X'), i=i)


@kernel_rule('unbind')
def _unbind_kernel(spec):
    axis_attr = spec.attr('axis')

    def run(x):
        axis = norm_axis(axis_attr, x.ndim, 'unbind')
        return ([np.ascontiguousarray(np.take(x, i, axis=axis)) for i in range(x.shape[axis])],)
    return run


@grad_rule('unbind')
def _unbind_grad(g):
    outs = g.output('Out')
    return [('unstack_grad', {'Y@GRAD': g.output_grad('Out')}, {'X@GRAD': g.input_grad('X')},
             {'axis': g.attrs['axis'], 'num': len(outs)})]


# --- empty, logspace ------------------------------------------------------------------------------------------------

defop('empty', ['ShapeTensor', 'ShapeTensorList'], ['Out'], {'shape': [], 'dtype': int(VarType.FP32)},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'])


@shape_rule('empty')
def _empty_shape(ctx):
    if ctx.has_input('ShapeTensor'):
        rank = ctx.in_shape('ShapeTensor')[0]
        shape = (-1,) * max(rank, 0)
    elif ctx.has_input('ShapeTensorList'):
        shape = (-1,) * len(ctx.op.input('ShapeTensorList'))
    else:
        shape = tuple(ctx.attr('shape'))
    ctx.set_output('Out', shape, VarType(int(ctx.attr('dtype'))))


@kernel_rule('empty')
def _empty_kernel(spec):
    dtype = to_numpy(VarType(int(spec.attr('dtype'))))
    attr = list(spec.attr('shape'))

    def run(shape_tensor, shape_list):
        if shape_list is not None:
            shape = runtime_ints(shape_list)
        elif shape_tensor is not None:
            shape = runtime_ints(shape_tensor)
        else:
            shape = attr
        return (np.empty(shape, dtype),)
    return run


defop('logspace', ['Start', 'Stop', 'Num', 'Base'], ['Out'], {'dtype': int(VarType.FP32)})


@shape_rule('logspace')
def _logspace_shape(ctx):
    ctx.set_output('Out', (-1,), VarType(int(ctx.attr('dtype'))))


@kernel_rule('logspace')
def _logspace_kernel(spec):
    dtype = to_numpy(VarType(int(spec.attr('dtype'))))

    def run(start, stop, num, base):
        s, e = float(np.asarray(start).reshape(-1)[0]), float(np.asarray(stop).reshape(-1)[0])
        n, b = int(np.asarray(num).reshape(-1)[0]), float(np.asarray(base).reshape(-1)[0])
        return (np.power(b, np.linspace(s, e, n)).astype(dtype),)
    return run


# --- tensor_array_to_tensor (1.8): a tensor array (a Python list at run time) concatenated or stacked -----------------

defop('tensor_array_to_tensor', ['X'], ['Out', 'OutIndex'], {'axis': 0, 'use_stack': False})


@shape_rule('tensor_array_to_tensor')
def _tensor_array_to_tensor_shape(ctx):
    array = ctx.input_var('X')
    shape = list(array.shape) if array is not None and array.has_shape() else []
    if shape:
        axis = ctx.attr('axis')
        if ctx.attr('use_stack'):
            axis = axis + len(shape) + 1 if axis < 0 else axis
            shape.insert(axis, -1)
        else:
            shape[axis] = -1
    ctx.set_output('Out', tuple(shape), array.dtype if array is not None else None)
    ctx.set_output('OutIndex', (-1,), VarType.INT32)


@kernel_rule('tensor_array_to_tensor')
def _tensor_array_to_tensor_kernel(spec):
    axis, use_stack = spec.attr('axis'), bool(spec.attr('use_stack'))

    def run(array):
        items = [np.asarray(a) for a in array]
        if not items:
            raise ValueError("tensor_array_to_tensor: the array %s is empty" % spec.op.input('X')[0])
        a = norm_axis(axis, items[0].ndim, 'tensor_array_to_tensor')
        # OutIndex is each tensor's size along axis, stacked or not (Paddle 1.8.5)
        sizes = np.array([t.shape[a] for t in items], np.int32)
        return (np.stack(items, axis) if use_stack else np.concatenate(items, a)), sizes
    return run
