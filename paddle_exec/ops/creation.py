"""Creation ops: constants, copies and ranges, with Paddle's op types, slots, attributes and shape rules.

    fill_constant(ShapeTensor?, ShapeTensorList?, ValueTensor?) -> Out     attrs shape, dtype, value, str_value
    fill_zeros_like(X) -> Out, fill_any_like(X) -> Out                     (attrs value, dtype: -1 keeps X's)
                                          fill_zeros_like of a tensor array: an array of zeros
    fill_constant_batch_size_like(Input) -> Out   `shape` with dim output_dim_idx taken from Input's input_dim_idx
    assign(X) -> Out                      a copy; its gradient is an assign of Out@GRAD (Paddle's AssignGradMaker)
    assign_value() -> Out                 values in a typed attribute (fp32_values, int32_values, ...)
    range(Start, End, Step) -> Out        accumulated in the output dtype, as Paddle's kernel (kernels/creation.py)
    eye() -> Out                          attrs num_rows, num_columns (-1: num_rows), dtype
    linspace(Start, Stop, Num) -> Out     attr dtype (2.x). Without it (-1, Paddle 1.8's op, which has no such
                                          attribute) the output takes Start's dtype and 1.8's accumulating
                                          algorithm; with it 2.x's symmetric one (kernels/creation.py)

A runtime ShapeTensor / ShapeTensorList / ValueTensor wins over its attribute. A constant fill_constant temporary
(the loss@GRAD seed of every training step) is made once per plan and read-only. Of these ops only assign has a
gradient. The random initialisers are in ops/random.py.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import defop, grad_rule, kernel_rule, segment_rule, shape_rule
from ..kernels import creation as K
from ..kernels.segment import tensor as ST
from ._util import dims_text, prod, runtime_ints, same_shape_as_x, segment_op, shape_and_dtype_from_attrs

__all__ = ['constant_value']


# --- fill_constant and its relatives ----------------------------------------------------------------------------------

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
                                 "shape[%d] = %d; shape = [%s]." % (i, d, dims_text(shape)))
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
            shp = tuple(runtime_ints(shape_tensor))
        elif shape_list is not None:
            shp = tuple(runtime_ints(shape_list))
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
shape_rule('fill_zeros_like')(same_shape_as_x)


def _zeros_like(x):
    if isinstance(x, list):       # a tensor array (the gradient of an array nobody wrote one for): zeros per element
        return [None if e is None else np.zeros_like(getattr(e, 'value', e)) for e in x]
    return np.zeros_like(x)


@kernel_rule('fill_zeros_like')
def _fill_zeros_like(spec):
    return lambda x: (_zeros_like(x),)


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
    if spec.lod is not None and spec.lod.reads:
        # a LoD input (ops/lod_rules.py): as in Paddle, its batch is its number of sequences (last level)
        def run_lod(x, x_lod):
            batch = (x_lod[-1].shape[0] - 1,) + x.shape[1:] if x_lod else x.shape
            return (np.full(_batch_size_like_shape(args[0], batch, *args[1:]), value, dtype=dtype),)
        return run_lod
    return run


# assign: a copy; its gradient is an assign of Out@GRAD (Paddle's AssignGradMaker)
defop('assign', ['X'], ['Out'], dispensable=['X'])
shape_rule('assign')(same_shape_as_x)


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


shape_rule('assign_value')(shape_and_dtype_from_attrs)


@kernel_rule('assign_value')
def _assign_value(spec):
    dtype = VarType(spec.attr('dtype'))
    values = spec.attr(_VALUE_ATTRS.get(dtype, 'values')) or spec.attr('values') or []
    shape = tuple(spec.attr('shape'))
    value = np.array(values, dtype=to_numpy(dtype))
    if value.size != prod(shape):
        raise ValueError("operator 'assign_value' writing %r: %d values do not fill shape [%s]"
                         % (spec.op.output('Out')[0], value.size, dims_text(shape)))
    value = value.reshape(shape)
    return lambda: (value.copy(),)


# --- range, eye, linspace ---------------------------------------------------------------------------------------------

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


defop('eye', [], ['Out'], {'num_rows': 0, 'num_columns': -1, 'dtype': int(VarType.FP32)})


def _eye_dims(rows: int, cols: int) -> tuple[int, int]:
    cols = rows if cols == -1 else cols
    if rows < 0 or cols < 0:
        raise ValueError("The value of Attr(num_rows) and Attr(num_columns) of operator 'eye' should be "
                         'non-negative, but received num_rows = %d, num_columns = %d' % (rows, cols))
    return rows, cols


@shape_rule('eye')
def _eye_shape(ctx):
    ctx.set_output('Out', _eye_dims(ctx.attr('num_rows'), ctx.attr('num_columns')), ctx.attr('dtype'))


@kernel_rule('eye')
def _eye(spec):
    rows, cols = _eye_dims(spec.attr('num_rows'), spec.attr('num_columns'))
    dtype = to_numpy(spec.attr('dtype'))
    return lambda: (K.eye(rows, cols, dtype),)


defop('linspace', ['Start', 'Stop', 'Num'], ['Out'], {'dtype': -1})


def _linspace_dtype(attr, start_dtype):
    return start_dtype if attr is None or int(attr) < 0 else VarType(int(attr))


@shape_rule('linspace')
def _linspace_shape(ctx):
    for slot in ('Start', 'Stop', 'Num'):
        shape = ctx.in_shape(slot)
        if len(shape) != 1 or shape[0] not in (1, -1):
            raise ValueError("The shape of Input(%s) of operator 'linspace' should be [1], but received [%s]"
                             % (slot, ', '.join(str(d) for d in shape)))
    ctx.set_output('Out', (-1,), _linspace_dtype(ctx.attr('dtype'), ctx.in_dtype('Start')))


@kernel_rule('linspace')
def _linspace(spec):
    attr = spec.attr('dtype')
    if attr is None or int(attr) < 0:
        dtype = to_numpy(spec.input_var('Start').dtype) if spec.input_var('Start') is not None else None
        return lambda start, stop, num: (K.linspace_v1(start, stop, num, dtype or start.dtype),)
    dtype = to_numpy(VarType(int(attr)))
    return lambda start, stop, num: (K.linspace_v2(start, stop, num, dtype),)


# --- segment rules ---------------------------------------------------------------------------------------------------

@segment_rule('fill_constant')
def _fill_constant_segment(spec):
    """A fixed shape and value (tensors for either run the op's own kernel). `spec.attrs` may carry the value the
    data-parallel pass seeds `loss@GRAD` with."""
    if spec.has_input('ShapeTensor') or spec.has_input('ShapeTensorList') or spec.has_input('ValueTensor'):
        return None
    shape = tuple(int(d) for d in spec.attr('shape'))
    if not shape or any(d < 0 for d in shape):
        return None
    dtype = to_numpy(spec.attr('dtype'))
    value = constant_value(spec.attr('str_value'), spec.attr('value'), dtype)
    value = int(value) if np.issubdtype(dtype, np.integer) else bool(value) if dtype == np.bool_ else float(value)
    code = ST.DTYPE_CODES.get(np.dtype(dtype))
    if code is None:
        return None
    return segment_op(ST.fill, [], ['Out'], (shape, value, code))
