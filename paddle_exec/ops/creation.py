"""Creation ops beyond ops/tensor.py's fill/random/range family: eye, linspace, randint.

    eye() -> Out                          attrs num_rows, num_columns (-1: num_rows), dtype
    linspace(Start, Stop, Num) -> Out     attr dtype (2.x). Without it (-1, Paddle 1.8's op, which has no such
                                          attribute) the output takes Start's dtype and 1.8's accumulating
                                          algorithm; with it 2.x's symmetric one (kernels/creation.py)
    randint(ShapeTensor?, ShapeTensorList?) -> Out    attrs shape, low, high (exclusive), seed, dtype (int64)

randint is stateful and seeded like the other random ops (its `seed` attribute, else paddle.seed's generator):
the numbers are numpy's, not Paddle's mt19937 stream. None of these ops has a gradient.
"""
from __future__ import annotations

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import defop, kernel_rule, shape_rule
from ..kernels import creation as K
from .tensor import _random_out_shape, _rng

__all__: list[str] = []

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


defop('randint', ['ShapeTensor', 'ShapeTensorList'], ['Out'],
      {'shape': [], 'low': 0, 'high': 0, 'seed': 0, 'dtype': int(VarType.INT64)},
      dispensable=['ShapeTensor', 'ShapeTensorList'], duplicable=['ShapeTensorList'], stateful=True)


def _check_bounds(low: int, high: int) -> None:
    if low >= high:
        raise ValueError("randint's low must less then high, but received low = %d, high = %d (operator randint)"
                         % (low, high))


@shape_rule('randint')
def _randint_shape(ctx):
    _check_bounds(ctx.attr('low'), ctx.attr('high'))
    shape = list(ctx.attr('shape'))
    if not shape and ctx.has_input('ShapeTensorList'):
        shape = [-1] * len(ctx.op.input('ShapeTensorList'))
    ctx.set_output('Out', shape or (-1,), ctx.attr('dtype'))


@kernel_rule('randint')
def _randint(spec):
    rng, dtype, shape = _rng(spec), to_numpy(spec.attr('dtype')), tuple(spec.attr('shape'))
    low, high = int(spec.attr('low')), int(spec.attr('high'))
    _check_bounds(low, high)

    def run(shape_tensor=None, shape_list=None):
        return (rng.integers(low, high, _random_out_shape(shape, shape_tensor, shape_list)).astype(dtype),)
    return run
