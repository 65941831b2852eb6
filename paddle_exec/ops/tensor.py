"""Tensor creation and manipulation ops, with Paddle's op types, slots, attributes and shape rules.

Creation: fill_constant, fill_zeros_like, fill_any_like, fill_constant_batch_size_like, assign, assign_value,
uniform_random, gaussian_random, truncated_gaussian_random, range, shape, is_empty.
Reshaping (each in Paddle's v1 form, grad reading X, and v2 form, grad reading XShape): reshape(2), squeeze(2),
unsqueeze(2), flatten(2), flatten_contiguous_range, transpose(2).
Joining and splitting: concat, split, stack, unstack.   Slicing: slice, strided_slice, reverse, flip.
Broadcasting: expand, expand_v2, tile.   Types: cast.   Search: arg_max, arg_min, argsort, where, where_index,
gather.

Conventions shared by the family:
- Compile-time shapes use -1 for unknown dims; a rule never invents a dim it cannot know (Paddle 1.8's flatten2
  writes the product of a -1 dim, e.g. -6; here it is -1).
- Runtime tensors that carry attributes (ShapeTensor, AxisTensor, StartsTensor, ...) win over the attribute, in
  Paddle's priority order (a tensor list first, then a whole tensor, then the attribute).
- `XShape` (the v2 ops' intermediate output) holds no data in Paddle, only the dims `[0] + X.dims`; here it is an
  empty array of shape `(0,) + x.shape`, which costs no memory and gives the grad op X's shape.
- Memory: reshape-like ops (reshape, squeeze, unsqueeze, flatten and their grads) return numpy *views* of their
  input, everything else returns new C-contiguous arrays. A view is never made of a persistable input or for a
  persistable output, because optimizers update parameters in place and a view would see the update.
  Kernels of every family must therefore treat their inputs as read-only.
- Gradients of duplicable inputs (concat_grad, stack_grad) keep Paddle's `@EMPTY@` entries for inputs that need
  no gradient; the kernels skip those parts.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.random import op_seed
from ..framework.registry import GradSpec, _grad_shape_rule, defop, grad_rule, kernel_rule, shape_rule
from ..framework.variable import EMPTY_VAR_NAME
from ..kernels import embedding as embedding_kernels
from ..kernels import tensor as K
from ._util import prod

# --- helpers ------------------------------------------------------------------------------------------------------


def _ints(value) -> list[int]:
    """A runtime int tensor (or a list of [1]-shaped tensors) as Python ints."""
    if isinstance(value, (list, tuple)):
        return [int(np.asarray(v).reshape(-1)[0]) for v in value]
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _scalar_int(value) -> int:
    return int(np.asarray(value).reshape(-1)[0])


def _norm_axis(axis: int, rank: int, op_type: str, what: str = 'axis') -> int:
    if not -rank <= axis < max(rank, 1):
        raise ValueError("The %s of operator '%s' is expected to be in range [%d, %d), but received %d"
                         % (what, op_type, -rank, rank, axis))
    return axis + rank if axis < 0 else axis


def _dims(shape) -> str:
    return ', '.join(str(int(d)) for d in shape)


def _no_alias(spec, in_slot: str, out_slot: str = 'Out') -> bool:
    """True when the output must not share memory with the input (a persistable input or output)."""
    v, o = spec.input_var(in_slot), spec.output_var(out_slot)
    return bool((v is not None and v.persistable) or (o is not None and o.persistable))


def _xshape(x) -> np.ndarray:
    return np.empty((0,) + x.shape, dtype=x.dtype)


def _same_as_x(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


def _unbroadcast_sum(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sums `g` (broadcast from `shape`, leading dims allowed) back down to `shape`."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    return (g.sum(axis=axes) if axes else g).reshape(shape)


def _tile_grad(dout: np.ndarray, x_shape: tuple, reps) -> np.ndarray:
    """Gradient of np.tile: each output dim i is reps[i] copies of x dim i, summed back."""
    reps = list(reps)
    px = (1,) * (len(reps) - len(x_shape)) + tuple(x_shape)
    reps = [1] * (len(px) - len(reps)) + reps
    inter = [v for pair in zip(reps, px) for v in pair]
    return dout.reshape(inter).sum(axis=tuple(range(0, 2 * len(px), 2))).reshape(x_shape)


def _wanted(grad_names: list[str]) -> list[bool]:
    """Which entries of a duplicable gradient output someone wants (not `@EMPTY@`)."""
    return [g != EMPTY_VAR_NAME for g in grad_names]


# =================================================================================================================
# creation
# =================================================================================================================

defop('fill_constant', ['ShapeTensor', 'ShapeTensorList', 'ValueTensor'], ['Out'],
      {'shape': [], 'dtype': 5, 'value': 0.0, 'str_value': '', 'force_cpu': False},
      dispensable=['ShapeTensor', 'ShapeTensorList', 'ValueTensor'], duplicable=['ShapeTensorList'])


@shape_rule('fill_constant')
def _fill_constant_shape(ctx):
    shape = list(ctx.attr('shape'))
    if not ctx.has_input('ShapeTensor') and not ctx.has_input('ShapeTensorList'):
        for i, d in enumerate(shape):
            if d < 0:
                raise ValueError("Each value of attribute 'shape' is expected to be no less than 0. But received: "
                                 "shape[%d] = %d; shape = [%s]." % (i, d, _dims(shape)))
    if not shape and ctx.has_input('ShapeTensor'):
        shape = [-1] * max(prod(ctx.in_shape('ShapeTensor')), 1)
    ctx.set_output('Out', shape, ctx.attr('dtype'))


def constant_value(str_value: str, value: float, dtype: np.dtype):
    """fill_constant's value: `str_value` wins when set (exact for large int64), as in Paddle's kernel."""
    if not str_value:
        return value
    if np.issubdtype(dtype, np.integer):
        try:
            return int(str_value)
        except ValueError:
            return int(float(str_value))
    return float(str_value)


@kernel_rule('fill_constant')
def _fill_constant(spec):
    dtype = to_numpy(spec.attr('dtype'))
    value = constant_value(spec.attr('str_value'), spec.attr('value'), dtype)
    shape = tuple(spec.attr('shape'))

    def run(shape_tensor, shape_list, value_tensor):
        shp = shape
        if shape_tensor is not None:
            shp = tuple(_ints(shape_tensor))
        elif shape_list is not None:
            shp = tuple(_ints(shape_list))
        v = value if value_tensor is None else np.asarray(value_tensor).reshape(-1)[0]
        return (np.full(shp, v, dtype=dtype),)
    out = spec.output_var('Out')
    static = not (spec.has_input('ShapeTensor') or spec.has_input('ShapeTensorList') or spec.has_input('ValueTensor'))
    if static and out is not None and not out.persistable and all(d >= 0 for d in shape):
        # a constant temporary (the loss@GRAD seed of every training step): made once, read-only, so a kernel
        # that wrongly wrote into its input would fail loudly instead of changing the constant. Persistable
        # outputs (accumulators the optimizers update in place) get a fresh array.
        constant = run(None, None, None)
        constant[0].flags.writeable = False
        return lambda shape_tensor, shape_list, value_tensor: constant
    return run


defop('fill_zeros_like', ['X'], ['Out'])
shape_rule('fill_zeros_like')(_same_as_x)


@kernel_rule('fill_zeros_like')
def _fill_zeros_like(spec):
    return lambda x: (np.zeros_like(x),)


defop('fill_any_like', ['X'], ['Out'], {'value': 0.0, 'dtype': -1})


def _like_dtype(ctx_or_spec, x_dtype):
    dtype = ctx_or_spec.attr('dtype')
    return x_dtype if dtype is None or dtype < 0 else VarType(dtype)


@shape_rule('fill_any_like')
def _fill_any_like_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), _like_dtype(ctx, ctx.in_dtype('X')))


@kernel_rule('fill_any_like')
def _fill_any_like(spec):
    value = spec.attr('value')
    dtype = spec.attr('dtype')
    out_dtype = None if dtype is None or dtype < 0 else to_numpy(dtype)
    return lambda x: (np.full(x.shape, value, dtype=x.dtype if out_dtype is None else out_dtype),)


defop('fill_constant_batch_size_like', ['Input'], ['Out'],
      {'shape': [], 'input_dim_idx': 0, 'output_dim_idx': 0, 'dtype': 5, 'value': 0.0, 'str_value': '',
       'force_cpu': False})


def _batch_size_like_shape(shape, in_shape, in_idx, out_idx, op_type):
    shape = list(shape)
    if not 0 <= in_idx < len(in_shape):
        raise ValueError("operator '%s': input_dim_idx %d is out of range of the input's rank %d"
                         % (op_type, in_idx, len(in_shape)))
    if not 0 <= out_idx < len(shape):
        raise ValueError("operator '%s': output_dim_idx %d is out of range of the shape's rank %d"
                         % (op_type, out_idx, len(shape)))
    shape[out_idx] = in_shape[in_idx]
    return shape


@shape_rule('fill_constant_batch_size_like')
def _fill_batch_like_shape(ctx):
    ctx.set_output('Out', _batch_size_like_shape(ctx.attr('shape'), ctx.in_shape('Input'), ctx.attr('input_dim_idx'),
                                                 ctx.attr('output_dim_idx'), ctx.op.type), ctx.attr('dtype'))


@kernel_rule('fill_constant_batch_size_like')
def _fill_batch_like(spec):
    dtype = to_numpy(spec.attr('dtype'))
    value = constant_value(spec.attr('str_value'), spec.attr('value'), dtype)
    args = (spec.attr('shape'), spec.attr('input_dim_idx'), spec.attr('output_dim_idx'), spec.type)

    def run(x):
        return (np.full(_batch_size_like_shape(args[0], x.shape, *args[1:]), value, dtype=dtype),)
    return run


# assign: a copy; its gradient is an assign of Out@GRAD (Paddle's AssignGradMaker)
defop('assign', ['X'], ['Out'], dispensable=['X'])
shape_rule('assign')(_same_as_x)


@kernel_rule('assign')
def _assign(spec):
    return lambda x: (x.copy() if isinstance(x, np.ndarray) else x,)


@grad_rule('assign')
def _assign_grad(g):
    return [('assign', {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')}, {})]


# assign_value: Paddle keeps the values in a typed attribute (fp32_values, int32_values, int64_values,
# bool_values); `values` is this project's untyped form, used by NumpyArrayInitializer
_VALUE_ATTRS = {VarType.FP32: 'fp32_values', VarType.INT32: 'int32_values', VarType.INT64: 'int64_values',
                VarType.BOOL: 'bool_values'}
defop('assign_value', [], ['Out'], {'shape': [], 'dtype': 5, 'fp32_values': [], 'int32_values': [],
                                    'int64_values': [], 'bool_values': [], 'values': []})


def _random_shape(ctx):
    ctx.set_output('Out', ctx.attr('shape'), ctx.attr('dtype'))


shape_rule('assign_value')(_random_shape)


@kernel_rule('assign_value')
def _assign_value(spec):
    dtype = VarType(spec.attr('dtype'))
    values = spec.attr(_VALUE_ATTRS.get(dtype, 'values')) or spec.attr('values') or []
    shape = tuple(spec.attr('shape'))
    value = np.array(values, dtype=to_numpy(dtype))
    if value.size != prod(shape):
        raise ValueError("operator 'assign_value' writing %r: %d values do not fill shape [%s]"
                         % (spec.op.output('Out')[0], value.size, _dims(shape)))
    value = value.reshape(shape)
    return lambda: (value.copy(),)


# --- random initialisers: seeded by the op's `seed` attribute (0: a fresh random stream) --------------------------

_RANDOM_ATTRS = {'shape': [], 'dtype': 5, 'seed': 0}
defop('uniform_random', ['ShapeTensor', 'ShapeTensorList'], ['Out'],
      {**_RANDOM_ATTRS, 'min': -1.0, 'max': 1.0, 'diag_num': 0, 'diag_step': 0, 'diag_val': 1.0},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)
defop('gaussian_random', ['ShapeTensor', 'ShapeTensorList'], ['Out'], {**_RANDOM_ATTRS, 'mean': 0.0, 'std': 1.0},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)
defop('truncated_gaussian_random', [], ['Out'], {**_RANDOM_ATTRS, 'mean': 0.0, 'std': 1.0}, stateful=True)

for _t in ('uniform_random', 'gaussian_random', 'truncated_gaussian_random'):
    shape_rule(_t)(_random_shape)


def _rng(spec):
    """The op's seed attribute, else the next seed of paddle.seed's generator, else fresh entropy."""
    return np.random.default_rng(op_seed(spec.attr('seed')))


def _random_out_shape(shape, shape_tensor, shape_list):
    if shape_tensor is not None:
        return tuple(_ints(shape_tensor))
    if shape_list is not None:
        return tuple(_ints(shape_list))
    return shape


@kernel_rule('uniform_random')
def _uniform_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    lo, hi = spec.attr('min'), spec.attr('max')
    diag_num, diag_step, diag_val = spec.attr('diag_num'), spec.attr('diag_step'), spec.attr('diag_val')

    def run(shape_tensor=None, shape_list=None):
        out = rng.uniform(lo, hi, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype)
        if diag_num > 0:
            flat = out.reshape(-1)
            for i in range(diag_num):
                flat[i * diag_step + i] = diag_val
        return (out,)
    return run


@kernel_rule('gaussian_random')
def _gaussian_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    mean, std = spec.attr('mean'), spec.attr('std')

    def run(shape_tensor=None, shape_list=None):
        return (rng.normal(mean, std, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype),)
    return run


@kernel_rule('truncated_gaussian_random')
def _truncated_gaussian_random(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    mean, std = spec.attr('mean'), spec.attr('std')

    def run():
        out = rng.normal(0.0, 1.0, shape)
        bad = np.abs(out) > 2.0
        while bad.any():
            out[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
            bad = np.abs(out) > 2.0
        return ((out * std + mean).astype(dtype),)
    return run


# --- range, shape, is_empty ----------------------------------------------------------------------------------------

defop('range', ['Start', 'End', 'Step'], ['Out'])


@shape_rule('range')
def _range_shape(ctx):
    ctx.set_output('Out', (-1,), ctx.in_dtype('Start'))


@kernel_rule('range')
def _range(spec):
    dtype = to_numpy(spec.input_var('Start').dtype) if spec.input_var('Start') is not None else None

    def run(start, end, step):
        return (K.range_values(start, end, step, dtype or np.asarray(start).dtype),)
    return run


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


# =================================================================================================================
# reshaping: reshape, squeeze, unsqueeze, flatten, flatten_contiguous_range, transpose
# =================================================================================================================

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
                                 "[%s], shape[%d] is also -1." % (_dims(shape), i))
            unk = i
        elif d == 0:
            if i >= len(in_dims):
                raise ValueError("The index of 0 in `shape` must be less than the input tensor X's dimensions. But "
                                 "received shape = [%s], shape[%d] = 0, X's shape = [%s], X's dimensions = %d."
                                 % (_dims(shape), i, _dims(in_dims), len(in_dims)))
        elif d < 0:
            raise ValueError("Each dimension value of 'shape' in ReshapeOp must not be negative except one unknown "
                             "dimension. But received shape = [%s], shape[%d] = %d." % (_dims(shape), i, d))
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
                                 % (_dims(in_dims), in_size, _dims(shape), capacity))
            out[unk] = inferred
        else:
            out[unk] = -1
    elif all_known and capacity != in_size:
        raise ValueError("The 'shape' in ReshapeOp is invalid. The input tensor X'size must be equal to the capacity "
                         "of 'shape'. But received X's shape = [%s], X's size = %d, 'shape' is [%s], the capacity of "
                         "'shape' is %d." % (_dims(in_dims), in_size, _dims(shape), capacity))
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
    copy = _no_alias(spec, 'X')
    want_xshape = spec.has_output('XShape')
    op_type = spec.type
    memo = {}

    def target(x, shape_tensor, shape_list):
        if shape_list is not None:
            return reshape_target(_ints(shape_list), x.shape, op_type)
        if shape_tensor is not None:
            return reshape_target(_ints(shape_tensor), x.shape, op_type)
        out = memo.get(x.shape)
        if out is None:
            out = memo[x.shape] = reshape_target(attr_shape, x.shape, op_type)
        return out

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
                             "input tensor's shape = [%s]." % (-rank, rank - 1, a, _dims(in_dims)))
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
        copy = _no_alias(spec, 'X')
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
                             '[%s]' % (axis, _dims(in_dims)))
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
            axes = _ints(axes_list)
        elif axes_tensor is not None:
            axes = _ints(axes_tensor)
    return unsqueeze_shape(axes, x.shape)


kernel_rule('unsqueeze', 'unsqueeze2')(_reshape_kernel_from(_unsqueeze_runtime_shape))


# --- flatten (fluid: 2-D at `axis`) and flatten_contiguous_range (2.x: merge start_axis..stop_axis) ----------------

def flatten2_shape(axis: int, in_dims) -> tuple:
    if not 0 <= axis <= len(in_dims):
        raise ValueError('The axis should be a int, and in range [0, rank(x)], but received axis %d for input shape '
                         '[%s]' % (axis, _dims(in_dims)))
    return (prod(in_dims[:axis]), prod(in_dims[axis:]))


def flatten_range_shape(start: int, stop: int, in_dims) -> tuple:
    rank = len(in_dims)
    if rank == 0:
        return (1,)
    start = _norm_axis(start, rank, 'flatten_contiguous_range', 'start_axis')
    stop = _norm_axis(stop, rank, 'flatten_contiguous_range', 'stop_axis')
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
                         'received axis = [%s] for a tensor of rank %d' % (_dims(axis), rank))
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


# =================================================================================================================
# concat, split, stack, unstack
# =================================================================================================================

defop('concat', ['X', 'AxisTensor'], ['Out'], {'axis': 0, 'use_mkldnn': False, 'use_quantizer': False},
      duplicable=['X'], dispensable=['AxisTensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'AxisTensor'), ('X@GRAD',)))


def concat_shape(shapes, axis: int) -> tuple:
    out = list(shapes[0])
    for k, s in enumerate(shapes[1:], 1):
        if len(s) != len(out):
            raise ValueError("The shape of input[0] and input[%d] is expected to be equal. But received input[0]'s "
                             "shape = [%s], input[%d]'s shape = [%s]." % (k, _dims(shapes[0]), k, _dims(s)))
        for j, d in enumerate(s):
            if j == axis:
                out[j] = -1 if out[j] < 0 or d < 0 else out[j] + d
            elif out[j] >= 0 and d >= 0 and out[j] != d:
                raise ValueError("The shape of input[0] and input[%d] is expected to be equal. But received "
                                 "input[0]'s shape = [%s], input[%d]'s shape = [%s]."
                                 % (k, _dims(shapes[0]), k, _dims(s)))
            elif out[j] < 0:
                out[j] = d
    return tuple(out)


@shape_rule('concat')
def _concat_shape(ctx):
    xs = ctx.input_vars('X')
    if not xs:
        raise ValueError("Inputs(X) of ConcatOp should not be empty.")
    rank = len(xs[0].shape)
    if ctx.has_input('AxisTensor'):
        return ctx.set_output('Out', (-1,) * rank, xs[0].dtype)
    axis = _norm_axis(ctx.attr('axis'), rank, 'concat')
    ctx.set_output('Out', concat_shape([v.shape for v in xs], axis), xs[0].dtype)


@kernel_rule('concat')
def _concat(spec):
    axis = spec.attr('axis')

    def run(xs, axis_tensor):
        ax = axis if axis_tensor is None else _scalar_int(axis_tensor)
        return (np.concatenate(xs, axis=ax),)
    return run


def _split_parts(dout, sizes, axis):
    bounds = np.cumsum(sizes)[:-1]
    return np.split(dout, bounds, axis=axis)


@kernel_rule('concat_grad')
def _concat_grad(spec):
    axis = spec.attr('axis')
    wanted = _wanted(spec.op.output('X@GRAD'))

    def run(xs, dout, axis_tensor):
        ax = axis if axis_tensor is None else _scalar_int(axis_tensor)
        ax = ax + dout.ndim if ax < 0 else ax
        parts = _split_parts(dout, [x.shape[ax] for x in xs], ax)
        return ([np.ascontiguousarray(p) if w else None for p, w in zip(parts, wanted)],)
    return run


# --- split -----------------------------------------------------------------------------------------------------------

defop('split', ['X', 'AxisTensor', 'SectionsTensorList'], ['Out'], {'sections': [], 'num': 0, 'axis': 0},
      duplicable=['Out', 'SectionsTensorList'], dispensable=['AxisTensor', 'SectionsTensorList'])


def split_sizes(dim: int, num: int, sections, n_out: int, runtime: bool) -> list[int]:
    """The sizes of split's outputs along the axis (-1 where unknown at compile time)."""
    if num > 0:
        if dim < 0:
            return [-1] * num
        if dim % num:
            raise ValueError("The input's size along the split dimension must be evenly divisible by "
                             "Attr(num_or_sections). But received Attr(num_or_sections) = %d, input(X)'s size "
                             "along the axis = %d." % (num, dim))
        return [dim // num] * num
    sections = [int(s) for s in sections]
    if len(sections) != n_out:
        raise ValueError('split: %d sections for %d outputs' % (len(sections), n_out))
    if dim < 0:
        return sections
    unknown = [i for i, s in enumerate(sections) if s < 0]
    if len(unknown) > 1:
        if runtime:
            raise ValueError("Only one dimension value of Attr(num_or_sections) in SplitOp can be -1. But received "
                             "Attr(num_or_sections) = [%s]." % _dims(sections))
        return sections
    known = sum(s for s in sections if s >= 0)
    if unknown:
        if known > dim:
            raise ValueError("The sum of Attr(num_or_sections) (%d) exceeds the input's size along the split axis "
                             "(%d)" % (known, dim))
        sections[unknown[0]] = dim - known
    elif known != dim:
        raise ValueError("The sum of Attr(num_or_sections) must be equal to the length of input's dimension along "
                         "the split axis. But received sum of Attr(num_or_sections) is %d, input's dimension is %d."
                         % (known, dim))
    return sections


@shape_rule('split')
def _split_shape(ctx):
    xs = ctx.in_shape('X')
    n_out = len(ctx.op.output('Out'))
    dtype = ctx.in_dtype('X')
    if ctx.has_input('AxisTensor'):
        for i in range(n_out):
            ctx.set_output('Out', (-1,) * len(xs), dtype, i=i)
        return
    axis = _norm_axis(ctx.attr('axis'), len(xs), 'split')
    sections = ctx.attr('sections')
    if ctx.attr('num') > 0 and ctx.attr('num') != n_out:
        raise ValueError("operator 'split' on %r: Attr(num) is %d but there are %d outputs"
                         % (ctx.op.input('X')[0], ctx.attr('num'), n_out))
    if ctx.has_input('SectionsTensorList'):
        sections = [-1] * n_out
    sizes = split_sizes(xs[axis], ctx.attr('num'), sections, n_out, runtime=False)
    for i, size in enumerate(sizes):
        ctx.set_output('Out', xs[:axis] + (size,) + xs[axis + 1:], dtype, i=i)


@kernel_rule('split')
def _split(spec):
    axis, num, sections = spec.attr('axis'), spec.attr('num'), spec.attr('sections')
    n_out = len(spec.op.output('Out'))
    copy = _no_alias(spec, 'X')

    def run(x, axis_tensor, sections_list):
        ax = axis if axis_tensor is None else _scalar_int(axis_tensor)
        ax = ax + x.ndim if ax < 0 else ax
        secs = sections if sections_list is None else _ints(sections_list)
        parts = _split_parts(x, split_sizes(x.shape[ax], num, secs, n_out, runtime=True), ax)
        return ([p.copy() if copy else np.ascontiguousarray(p) for p in parts],)
    return run


@grad_rule('split')
def _split_grad_maker(g):
    # Paddle's SplitGradMaker: the gradient of split is a concat of the outputs' gradients
    return [('concat', {'X': g.output_grad('Out'), 'AxisTensor': g.input('AxisTensor')},
             {'Out': g.input_grad('X')}, {'axis': g.attrs['axis']})]


# --- stack / unstack -------------------------------------------------------------------------------------------------

defop('stack', ['X'], ['Y'], {'axis': 0}, duplicable=['X'])
defop('stack_grad', ['Y@GRAD'], ['X@GRAD'], {'axis': 0}, duplicable=['X@GRAD'], dispensable=['X@GRAD'])


def _stack_axis(axis: int, rank: int, op_type: str) -> int:
    if not -(rank + 1) <= axis < rank + 1:
        raise ValueError("Attr(axis) of operator '%s' must be inside [-(rank+1), rank+1), where rank = %d, but "
                         "received axis is:%d." % (op_type, rank, axis))
    return axis + rank + 1 if axis < 0 else axis


@shape_rule('stack')
def _stack_shape(ctx):
    xs = ctx.input_vars('X')
    if not xs:
        raise ValueError('Number of Inputs(X) of stack must be larger than 0')
    first = list(xs[0].shape)
    for k, v in enumerate(xs[1:], 1):
        s = v.shape
        if len(s) != len(first) or any(a >= 0 and b >= 0 and a != b for a, b in zip(first, s)):
            raise ValueError('Dims of all Inputs(X) must be the same, but received input %d has shape = [%s], input '
                             '0 has shape = [%s].' % (k, _dims(s), _dims(first)))
        first = [b if a < 0 else a for a, b in zip(first, s)]
    axis = _stack_axis(ctx.attr('axis'), len(first), 'stack')
    ctx.set_output('Y', tuple(first[:axis]) + (len(xs),) + tuple(first[axis:]), xs[0].dtype)


@kernel_rule('stack')
def _stack(spec):
    axis = spec.attr('axis')
    return lambda xs: (np.stack(xs, axis=_stack_axis(axis, xs[0].ndim, 'stack')),)


@grad_rule('stack')
def _stack_grad_maker(g):
    return [('stack_grad', {'Y@GRAD': g.output_grad('Y')}, {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


shape_rule('stack_grad')(_grad_shape_rule)


def _unstack_parts(y, axis):
    return [np.ascontiguousarray(np.take(y, i, axis=axis)) for i in range(y.shape[axis])]


@kernel_rule('stack_grad')
def _stack_grad(spec):
    axis = spec.attr('axis')
    wanted = _wanted(spec.op.output('X@GRAD'))

    def run(dy):
        ax = _stack_axis(axis, dy.ndim - 1, 'stack_grad')
        return ([np.ascontiguousarray(np.take(dy, i, axis=ax)) if w else None for i, w in enumerate(wanted)],)
    return run


defop('unstack', ['X'], ['Y'], {'axis': 0, 'num': 0}, duplicable=['Y'])
defop('unstack_grad', ['Y@GRAD'], ['X@GRAD'], {'axis': 0, 'num': 0}, duplicable=['Y@GRAD'])


@shape_rule('unstack')
def _unstack_shape(ctx):
    xs = ctx.in_shape('X')
    axis = _norm_axis(ctx.attr('axis'), len(xs), 'unstack')
    n = len(ctx.op.output('Y'))
    if xs[axis] >= 0 and xs[axis] != n:
        raise ValueError('Number of Outputs(Y) of unstack is wrong: %d outputs for dimension %d of size %d'
                         % (n, axis, xs[axis]))
    for i in range(n):
        ctx.set_output('Y', xs[:axis] + xs[axis + 1:], ctx.in_dtype('X'), i=i)


@kernel_rule('unstack')
def _unstack(spec):
    axis = spec.attr('axis')
    return lambda x: (_unstack_parts(x, _norm_axis(axis, x.ndim, 'unstack')),)


@grad_rule('unstack')
def _unstack_grad_maker(g):
    return [('unstack_grad', {'Y@GRAD': g.output_grad('Y')}, {'X@GRAD': g.input_grad('X')}, dict(g.attrs))]


shape_rule('unstack_grad')(_grad_shape_rule)


@kernel_rule('unstack_grad')
def _unstack_grad(spec):
    axis = spec.attr('axis')
    return lambda dys: (np.stack(dys, axis=_stack_axis(axis, dys[0].ndim, 'unstack_grad')),)


# =================================================================================================================
# slicing: slice, strided_slice, reverse, flip
# =================================================================================================================

def slice_bounds(start: int, end: int, dim: int) -> tuple[int, int]:
    """Paddle's slice bounds (negative = from the end, clamped to [0, dim]); end < start is an error."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    start, end = min(max(start, 0), dim), min(max(end, 0), dim)
    if end < start:
        raise ValueError('end should greater than start, but received end = %d, start = %d' % (end, start))
    return start, end


def _decrease(shape, decrease_axis, runtime: bool):
    if not decrease_axis:
        return tuple(shape)
    drop = set()
    for a in decrease_axis:
        if runtime and shape[a] != 1:
            raise ValueError('decrease dim should be 1, but received dimension %d of size %d' % (a, shape[a]))
        drop.add(a)
    out = tuple(d for i, d in enumerate(shape) if i not in drop)
    return out or (1,)


_SLICE_TENSORS = ['StartsTensor', 'EndsTensor', 'StartsTensorList', 'EndsTensorList']
defop('slice', ['Input'] + _SLICE_TENSORS, ['Out'],
      {'axes': [], 'starts': [], 'ends': [], 'infer_flags': [], 'decrease_axis': []},
      duplicable=['StartsTensorList', 'EndsTensorList'], dispensable=_SLICE_TENSORS,
      grad=GradSpec(('Input', *_SLICE_TENSORS, 'Out@GRAD'), ('Input@GRAD',)))


def _slice_attrs_check(axes, starts, ends, rank, op_type):
    if len(starts) != len(axes) or len(ends) != len(axes):
        raise ValueError("operator '%s': axes, starts and ends must have one entry each per sliced axis, got axes=%s "
                         "starts=%s ends=%s" % (op_type, list(axes), list(starts), list(ends)))
    for a in axes:
        if not 0 <= a < rank:
            raise ValueError("operator '%s': the axis %d is out of range for an input of rank %d" % (op_type, a, rank))


@shape_rule('slice')
def _slice_shape(ctx):
    xs = list(ctx.in_shape('Input'))
    axes, starts, ends = ctx.attr('axes'), ctx.attr('starts'), ctx.attr('ends')
    flags = ctx.attr('infer_flags') or [1] * len(axes)
    whole_tensor = ctx.has_input('StartsTensor') or ctx.has_input('EndsTensor')
    if not whole_tensor:
        _slice_attrs_check(axes, starts, ends, len(xs), 'slice')
    for i, a in enumerate(axes):
        if whole_tensor or flags[i] == -1 or xs[a] < 0:
            xs[a] = -1
        else:
            s, e = slice_bounds(starts[i], ends[i], xs[a])
            xs[a] = e - s
    ctx.set_output('Out', _decrease(xs, ctx.attr('decrease_axis'), runtime=False), ctx.in_dtype('Input'))


def _runtime_list(attr, tensor, tensor_list):
    if tensor_list is not None:
        return _ints(tensor_list)
    if tensor is not None:
        return _ints(tensor)
    return list(attr)


def _slice_index(axes, starts, ends, shape):
    index = [slice(None)] * len(shape)
    for a, s, e in zip(axes, starts, ends):
        lo, hi = slice_bounds(s, e, shape[a])
        index[a] = slice(lo, hi)
    return tuple(index)


@kernel_rule('slice')
def _slice(spec):
    axes, starts, ends = spec.attr('axes'), spec.attr('starts'), spec.attr('ends')
    decrease = spec.attr('decrease_axis')
    copy = _no_alias(spec, 'Input')

    def run(x, st, et, stl, etl):
        index = _slice_index(axes, _runtime_list(starts, st, stl), _runtime_list(ends, et, etl), x.shape)
        out = x[index]
        if decrease:
            out = out.reshape(_decrease(out.shape, decrease, runtime=True))
        return (out.copy() if copy else np.ascontiguousarray(out),)
    return run


@kernel_rule('slice_grad')
def _slice_grad(spec):
    axes, starts, ends = spec.attr('axes'), spec.attr('starts'), spec.attr('ends')

    def run(x, st, et, stl, etl, dout):
        index = _slice_index(axes, _runtime_list(starts, st, stl), _runtime_list(ends, et, etl), x.shape)
        dx = np.zeros(x.shape, dtype=dout.dtype)
        dx[index] = dout.reshape(dx[index].shape)
        return (dx,)
    return run


# --- strided_slice: Python slicing per axis (an end of -1 with a negative stride runs to the front) -----------------

_STRIDED_TENSORS = ['StartsTensor', 'EndsTensor', 'StridesTensor', 'StartsTensorList', 'EndsTensorList',
                    'StridesTensorList']
defop('strided_slice', ['Input'] + _STRIDED_TENSORS, ['Out'],
      {'axes': [], 'starts': [], 'ends': [], 'strides': [], 'infer_flags': [], 'decrease_axis': []},
      duplicable=['StartsTensorList', 'EndsTensorList', 'StridesTensorList'], dispensable=_STRIDED_TENSORS,
      grad=GradSpec(('Input', *_STRIDED_TENSORS, 'Out@GRAD'), ('Input@GRAD',)))


def strided_slice_index(axes, starts, ends, strides, shape) -> tuple:
    """The numpy index of a strided_slice. Paddle 2.x's semantics are Python's, except that an end of -1 with a
    negative stride means 'through index 0'. (Paddle 1.8 shifted negative-stride slices whose length is not a
    multiple of the stride by one element; 2.x fixed it; this follows 2.x.)"""
    index = [slice(None)] * len(shape)
    for a, s, e, k in zip(axes, starts, ends, strides):
        if k == 0:
            raise ValueError('The stride of strided_slice must not be 0 (axis %d)' % a)
        index[a] = slice(s, None if (k < 0 and e == -1) else e, k)
    return tuple(index)


@shape_rule('strided_slice')
def _strided_slice_shape(ctx):
    xs = list(ctx.in_shape('Input'))
    axes, starts, ends, strides = ctx.attr('axes'), ctx.attr('starts'), ctx.attr('ends'), ctx.attr('strides')
    flags = ctx.attr('infer_flags') or [1] * len(axes)
    whole_tensor = any(ctx.has_input(s) for s in ('StartsTensor', 'EndsTensor', 'StridesTensor'))
    if not whole_tensor:
        _slice_attrs_check(axes, starts, ends, len(xs), 'strided_slice')
    for i, a in enumerate(axes):
        if whole_tensor or flags[i] == -1 or xs[a] < 0:
            xs[a] = -1
        else:
            sl = strided_slice_index([a], [starts[i]], [ends[i]], [strides[i]], xs)[a]
            xs[a] = len(range(*sl.indices(xs[a])))
    ctx.set_output('Out', _decrease(xs, ctx.attr('decrease_axis'), runtime=False), ctx.in_dtype('Input'))


def _strided_runtime_index(attrs, x_shape, tensors):
    axes, starts, ends, strides = attrs
    st, et, kt, stl, etl, ktl = tensors
    return strided_slice_index(axes, _runtime_list(starts, st, stl), _runtime_list(ends, et, etl),
                               _runtime_list(strides, kt, ktl), x_shape)


@kernel_rule('strided_slice')
def _strided_slice(spec):
    attrs = (spec.attr('axes'), spec.attr('starts'), spec.attr('ends'), spec.attr('strides'))
    decrease = spec.attr('decrease_axis')
    copy = _no_alias(spec, 'Input')

    def run(x, *tensors):
        out = x[_strided_runtime_index(attrs, x.shape, tensors)]
        if decrease:
            out = out.reshape(_decrease(out.shape, decrease, runtime=True))
        return (out.copy() if copy else np.ascontiguousarray(out),)
    return run


@kernel_rule('strided_slice_grad')
def _strided_slice_grad(spec):
    attrs = (spec.attr('axes'), spec.attr('starts'), spec.attr('ends'), spec.attr('strides'))

    def run(x, *rest):
        tensors, dout = rest[:-1], rest[-1]
        index = _strided_runtime_index(attrs, x.shape, tensors)
        dx = np.zeros(x.shape, dtype=dout.dtype)
        dx[index] = dout.reshape(dx[index].shape)
        return (dx,)
    return run


# --- reverse (fluid, attr `axis`) and flip (attr `axis` in 2.x, `dims` in 1.8): the gradient is the same op --------

defop('reverse', ['X'], ['Out'], {'axis': []})
defop('flip', ['X'], ['Out'], {'axis': [], 'dims': []})
shape_rule('reverse')(_same_as_x)
shape_rule('flip')(_same_as_x)


@kernel_rule('reverse', 'flip')
def _reverse(spec):
    axes = tuple(spec.attr('axis') or spec.attr('dims') or [])

    def run(x):
        for a in axes:
            _norm_axis(a, x.ndim, spec.type)
        return (np.ascontiguousarray(np.flip(x, axis=axes)),)
    return run


def _self_grad_maker(type):
    def maker(g):
        return [(type, {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')}, dict(g.attrs))]
    return maker


grad_rule('reverse')(_self_grad_maker('reverse'))
grad_rule('flip')(_self_grad_maker('flip'))


# =================================================================================================================
# broadcasting: expand (fluid: repeat counts), expand_v2 (2.x: target shape), tile (2.x: repeat counts)
# =================================================================================================================

defop('expand', ['X', 'ExpandTimes', 'expand_times_tensor'], ['Out'], {'expand_times': []},
      duplicable=['expand_times_tensor'], dispensable=['ExpandTimes', 'expand_times_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'ExpandTimes', 'expand_times_tensor'), ('X@GRAD',)))
defop('tile', ['X', 'RepeatTimes', 'repeat_times_tensor'], ['Out'], {'repeat_times': []},
      duplicable=['repeat_times_tensor'], dispensable=['RepeatTimes', 'repeat_times_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'RepeatTimes', 'repeat_times_tensor'), ('X@GRAD',)))
defop('expand_v2', ['X', 'Shape', 'expand_shapes_tensor'], ['Out'], {'shape': []},
      duplicable=['expand_shapes_tensor'], dispensable=['Shape', 'expand_shapes_tensor'],
      grad=GradSpec(('X', 'Out@GRAD', 'Shape', 'expand_shapes_tensor'), ('X@GRAD',)))


def repeat_shape(in_dims, reps, op_type: str) -> tuple:
    """expand/tile output dims: x's dims (left-padded with 1) times the repeat counts (left-padded with 1)."""
    if op_type == 'expand' and len(reps) != len(in_dims):
        raise ValueError("The number of elements (%d) of 'expand_times' for Op(expand) must be equal to the number "
                         "of dimensions (%d) of the input." % (len(reps), len(in_dims)))
    n = max(len(in_dims), len(reps))
    px = (1,) * (n - len(in_dims)) + tuple(in_dims)
    pr = [1] * (n - len(reps)) + list(reps)
    return tuple(-1 if d < 0 or r < 0 else d * r for d, r in zip(px, pr))


def expand_v2_shape(in_dims, shape) -> tuple:
    """expand_v2: `shape` (at least x's rank) with -1 keeping x's dim; x's dims must be 1 or equal."""
    shape = list(shape)
    if len(shape) < len(in_dims):
        raise ValueError("The number of elements (%d) of 'shape' for expand_v2 op must be greater than or equal to "
                         "the rank (%d) of the input." % (len(shape), len(in_dims)))
    px = [1] * (len(shape) - len(in_dims)) + list(in_dims)
    lead = len(shape) - len(in_dims)
    out = []
    for i, (d, t) in enumerate(zip(px, shape)):
        if t == -1:
            if i < lead:
                raise ValueError('expand_v2: the value -1 in shape keeps an existing dimension of x; it is not '
                                 'allowed for the new leading dimension %d' % i)
            out.append(d)
        elif t < -1:
            out.append(-1)
        else:
            if d >= 0 and d != 1 and d != t:
                raise ValueError('The value (%d) of the non-singleton dimension does not match the corresponding '
                                 'value (%d) in shape for expand_v2 op.' % (d, t))
            out.append(t)
    return tuple(out)


@shape_rule('expand')
def _expand_shape(ctx):
    xs = ctx.in_shape('X')
    if ctx.has_input('ExpandTimes'):
        return ctx.set_output('Out', (-1,) * len(xs), ctx.in_dtype('X'))
    ctx.set_output('Out', repeat_shape(xs, ctx.attr('expand_times'), 'expand'), ctx.in_dtype('X'))


@shape_rule('tile')
def _tile_shape(ctx):
    xs = ctx.in_shape('X')
    reps = ctx.attr('repeat_times')
    if ctx.has_input('RepeatTimes'):
        reps = [-1] * max(prod(ctx.in_shape('RepeatTimes')), len(xs))
    elif ctx.has_input('repeat_times_tensor') and not reps:
        reps = [-1] * len(ctx.op.input('repeat_times_tensor'))
    ctx.set_output('Out', repeat_shape(xs, reps, 'tile'), ctx.in_dtype('X'))


@shape_rule('expand_v2')
def _expand_v2_shape(ctx):
    xs = ctx.in_shape('X')
    shape = ctx.attr('shape')
    if ctx.has_input('Shape'):
        shape = [-2] * max(prod(ctx.in_shape('Shape')), 1)
    elif ctx.has_input('expand_shapes_tensor') and not shape:
        shape = [-2] * len(ctx.op.input('expand_shapes_tensor'))
    if not shape:
        shape = [-1] * len(xs)
    ctx.set_output('Out', expand_v2_shape(xs, shape), ctx.in_dtype('X'))


def _repeat_counts(attr, tensor, tensor_list):
    return _runtime_list(attr, tensor, tensor_list)


@kernel_rule('expand', 'tile')
def _expand(spec):
    attr = spec.attr('expand_times' if spec.type == 'expand' else 'repeat_times')
    op_type = spec.type

    def run(x, reps_tensor, reps_list):
        reps = _repeat_counts(attr, reps_tensor, reps_list)
        if op_type == 'expand':
            repeat_shape(x.shape, reps, op_type)
        return (np.tile(x, reps),)
    return run


@kernel_rule('expand_grad', 'tile_grad')
def _expand_grad(spec):
    attr = spec.attr('expand_times' if spec.type == 'expand_grad' else 'repeat_times')

    def run(x, dout, reps_tensor, reps_list):
        return (_tile_grad(dout, x.shape, _repeat_counts(attr, reps_tensor, reps_list)).astype(x.dtype, copy=False),)
    return run


def _expand_v2_target(attr, x, shape_tensor, shape_list):
    shape = _runtime_list(attr, shape_tensor, shape_list)
    if shape_list is not None and attr and len(attr) == len(shape):
        shape = [s if a == -2 else a for s, a in zip(shape, attr)]
    return expand_v2_shape(x.shape, shape or [-1] * x.ndim)


@kernel_rule('expand_v2')
def _expand_v2(spec):
    attr = spec.attr('shape')

    def run(x, shape_tensor, shape_list):
        target = _expand_v2_target(attr, x, shape_tensor, shape_list)
        return (np.array(np.broadcast_to(x.reshape((1,) * (len(target) - x.ndim) + x.shape), target)),)
    return run


@kernel_rule('expand_v2_grad')
def _expand_v2_grad(spec):
    return lambda x, dout, shape_tensor, shape_list: (_unbroadcast_sum(dout, x.shape).astype(x.dtype, copy=False),)


# =================================================================================================================
# cast
# =================================================================================================================

defop('cast', ['X'], ['Out'], {'in_dtype': 5, 'out_dtype': 5})


@shape_rule('cast')
def _cast_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), ctx.attr('out_dtype'))


@kernel_rule('cast')
def _cast(spec):
    dtype = to_numpy(spec.attr('out_dtype'))
    return lambda x: (np.array(x, dtype=dtype),)


@grad_rule('cast')
def _cast_grad_maker(g):
    # Paddle's CastOpGradMaker: the gradient is cast back to the input's dtype
    return [('cast', {'X': g.output_grad('Out')}, {'Out': g.input_grad('X')},
             {'in_dtype': g.attrs['out_dtype'], 'out_dtype': g.attrs['in_dtype']})]


# =================================================================================================================
# search: arg_max, arg_min, argsort, where, where_index, gather
# =================================================================================================================

for _t in ('arg_max', 'arg_min'):
    defop(_t, ['X'], ['Out'], {'axis': -1, 'keepdims': False, 'flatten': False, 'dtype': -1})


def _arg_out_dtype(dtype: int, op_type: str) -> VarType:
    if dtype is None or dtype < 0 or dtype == VarType.INT64:
        return VarType.INT64
    if dtype == VarType.INT32:
        return VarType.INT32
    raise ValueError("The attribute of dtype in %s must be [int32] or [int64], but received [%s]"
                     % (op_type, VarType(dtype).name))


def arg_out_shape(in_dims, axis: int, keepdims: bool, flatten: bool, op_type: str) -> tuple:
    rank = len(in_dims)
    if flatten:
        return (1,) * rank if keepdims else (1,)
    if not -rank <= axis < rank:
        raise ValueError("'axis'(%d) of %s must be in the range [-Rank(X), Rank(X)) = [%d, %d)"
                         % (axis, op_type, -rank, rank))
    axis = axis + rank if axis < 0 else axis
    return tuple(in_dims[:axis]) + ((1,) if keepdims else ()) + tuple(in_dims[axis + 1:])


@shape_rule('arg_max')
@shape_rule('arg_min')
def _arg_shape(ctx):
    out = arg_out_shape(ctx.in_shape('X'), ctx.attr('axis'), ctx.attr('keepdims'), ctx.attr('flatten'), ctx.op.type)
    ctx.set_output('Out', out, _arg_out_dtype(ctx.attr('dtype'), ctx.op.type))


@kernel_rule('arg_max', 'arg_min')
def _arg(spec):
    axis, keepdims, flatten = spec.attr('axis'), spec.attr('keepdims'), spec.attr('flatten')
    dtype = to_numpy(_arg_out_dtype(spec.attr('dtype'), spec.type))
    want_max = spec.type == 'arg_max'
    op_type = spec.type

    def run(x):
        shape = arg_out_shape(x.shape, axis, keepdims, flatten, op_type)
        if flatten:
            out = K.arg_extreme(x.reshape(-1), 0, want_max)
        else:
            out = K.arg_extreme(x, axis + x.ndim if axis < 0 else axis, want_max)
        return (out.reshape(shape).astype(dtype, copy=False),)
    return run


defop('argsort', ['X'], ['Out', 'Indices'], {'axis': -1, 'descending': False},
      grad=GradSpec(('Indices', 'X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('argsort')
def _argsort_shape(ctx):
    xs = ctx.in_shape('X')
    _norm_axis(ctx.attr('axis'), len(xs), 'argsort')
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('Indices', xs, VarType.INT64)


@kernel_rule('argsort')
def _argsort(spec):
    axis, descending = spec.attr('axis'), spec.attr('descending')
    return lambda x: K.argsort(x, _norm_axis(axis, x.ndim, 'argsort'), descending)


@kernel_rule('argsort_grad')
def _argsort_grad(spec):
    axis = spec.attr('axis')
    return lambda indices, x, dout: (K.argsort_backward(indices, dout, _norm_axis(axis, x.ndim, 'argsort_grad')),)


# --- where (select) and where_index (the coordinates of true elements) -----------------------------------------------

defop('where', ['Condition', 'X', 'Y'], ['Out'],
      grad=GradSpec(('Condition', 'X', 'Y', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')))


@shape_rule('where')
def _where_shape(ctx):
    cs, xs, ys = ctx.in_shape('Condition'), ctx.in_shape('X'), ctx.in_shape('Y')

    def same(a, b):
        return len(a) == len(b) and all(p < 0 or q < 0 or p == q for p, q in zip(a, b))
    if not same(cs, xs):
        raise ValueError("The dims of Inputs(Condition) and Inputs(X) should be same. But received Condition's shape "
                         "is [%s], X's shape is [%s]" % (_dims(cs), _dims(xs)))
    if not same(xs, ys):
        raise ValueError("The dims of Inputs(X) and Inputs(Y) should be same. But received X's shape is [%s], Y's "
                         "shape is [%s]" % (_dims(xs), _dims(ys)))
    ctx.set_output('Out', xs, ctx.in_dtype('X'))


@kernel_rule('where')
def _where(spec):
    def run(cond, x, y):
        if cond.shape != x.shape or x.shape != y.shape:
            raise ValueError("where: Condition %s, X %s and Y %s must have one shape" % (cond.shape, x.shape, y.shape))
        return (K.where_forward(cond, x, y),)
    return run


@kernel_rule('where_grad')
def _where_grad(spec):
    want_x, want_y = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(cond, x, y, dout):
        dx, dy = K.where_backward(cond, dout)
        return (dx.astype(x.dtype, copy=False) if want_x else None, dy.astype(y.dtype, copy=False) if want_y else None)
    return run


defop('where_index', ['Condition'], ['Out'])


@shape_rule('where_index')
def _where_index_shape(ctx):
    ctx.set_output('Out', (-1, len(ctx.in_shape('Condition'))), VarType.INT64)


@kernel_rule('where_index')
def _where_index(spec):
    return lambda cond: (np.argwhere(np.asarray(cond)).astype(np.int64),)


# --- gather: Out = X[Index] along `axis` (kernels shared with the embedding family) -----------------------------------

defop('gather', ['X', 'Index', 'Axis'], ['Out'], {'overwrite': True, 'axis': 0}, dispensable=['Axis'],
      grad=GradSpec(('X', 'Index', 'Axis', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('gather')
def _gather_shape(ctx):
    xs, idx = ctx.in_shape('X'), ctx.in_shape('Index')
    if len(idx) == 2 and idx[1] >= 0 and idx[1] != 1:
        raise ValueError('The last dim of index should be 1 when it is 2D, but we get %d' % idx[1])
    if len(idx) not in (1, 2):
        raise ValueError('The index should be 1D, when it is not 2D, but we get %d' % len(idx))
    if ctx.has_input('Axis'):
        return ctx.set_output('Out', (-1,) * len(xs), ctx.in_dtype('X'))
    axis = _norm_axis(ctx.attr('axis'), len(xs), 'gather')
    ctx.set_output('Out', xs[:axis] + (idx[0],) + xs[axis + 1:], ctx.in_dtype('X'))


@kernel_rule('gather')
def _gather(spec):
    axis = spec.attr('axis')

    def run(x, index, axis_tensor):
        ax = axis if axis_tensor is None else _scalar_int(axis_tensor)
        return (embedding_kernels.gather_forward(x, index, ax),)
    return run


@kernel_rule('gather_grad')
def _gather_grad(spec):
    axis, overwrite = spec.attr('axis'), spec.attr('overwrite')

    def run(x, index, axis_tensor, dout):
        ax = axis if axis_tensor is None else _scalar_int(axis_tensor)
        return (embedding_kernels.gather_backward(x.shape, index, dout, ax, overwrite).astype(x.dtype, copy=False),)
    return run
