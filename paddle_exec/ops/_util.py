"""Helpers shared by the op family modules (and `prod` by the builders).

- Compile-time shapes use -1 for an unknown dim; `prod` keeps it unknown.
- Runtime tensors that stand in for attributes (ShapeTensor, AxisTensor, StartsTensor, ...) arrive as arrays, or
  as lists of [1]-shaped arrays for the `...TensorList` slots; `runtime_ints` / `runtime_int` read them, and
  `runtime_list` applies Paddle's priority (a tensor list first, then a whole tensor, then the attribute).
- `norm_axis` and `dims_text` give the axis check and the shape text of Paddle's error messages.
- `must_copy`: the memory rule of kernels that return numpy views (reshape-like ops, slices, splits): a view is
  never made of a persistable input or for a persistable output, because optimizers update parameters in place
  and a view would see the update.
- Segment rules (registry.SEGMENT_RULES) build their SegmentOp with `segment_op` (the numpy twin found by name),
  read declared ranks and dtypes with `var_rank` / `var_dtype`, and round float attributes with `f32`.
"""
from __future__ import annotations

import sys

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.registry import SegmentOp

__all__ = ['prod', 'runtime_ints', 'runtime_int', 'runtime_list', 'norm_axis', 'dims_text', 'must_copy',
           'same_shape_as_x', 'shape_and_dtype_from_attrs', 'segment_op', 'var_rank', 'var_dtype', 'f32',
           'sum_to_shape']


def prod(dims) -> int:
    """Product of dims; -1 if any is unknown."""
    out = 1
    for d in dims:
        if d < 0:
            return -1
        out *= d
    return out


def runtime_ints(value) -> list[int]:
    """A runtime int tensor (or a list of [1]-shaped tensors) as Python ints."""
    if isinstance(value, (list, tuple)):
        return [int(np.asarray(v).reshape(-1)[0]) for v in value]
    return [int(v) for v in np.asarray(value).reshape(-1)]


def runtime_int(value) -> int:
    """The first element of a runtime tensor as a Python int."""
    return int(np.asarray(value).reshape(-1)[0])


def runtime_list(attr, tensor, tensor_list) -> list[int]:
    """An int-list attribute, replaced at run time by its tensor list or its tensor when one is wired."""
    if tensor_list is not None:
        return runtime_ints(tensor_list)
    if tensor is not None:
        return runtime_ints(tensor)
    return list(attr)


def norm_axis(axis: int, rank: int, op_type: str, what: str = 'axis') -> int:
    """`axis` in [-rank, rank) made non-negative; else Paddle's ValueError naming the op."""
    if not -rank <= axis < max(rank, 1):
        raise ValueError("The %s of operator '%s' is expected to be in range [%d, %d), but received %d"
                         % (what, op_type, -rank, rank, axis))
    return axis + rank if axis < 0 else axis


def dims_text(shape) -> str:
    """A shape as Paddle's messages print it: `2, 3, -1`."""
    return ', '.join(str(int(d)) for d in shape)


def must_copy(spec, in_slot: str, out_slot: str = 'Out') -> bool:
    """True when the output must not share memory with the input (a persistable input or output)."""
    v, o = spec.input_var(in_slot), spec.output_var(out_slot)
    return bool((v is not None and v.persistable) or (o is not None and o.persistable))


def same_shape_as_x(ctx) -> None:
    """Shape rule: Out has X's shape and dtype."""
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


def shape_and_dtype_from_attrs(ctx) -> None:
    """Shape rule: Out has the op's `shape` and `dtype` attributes (creation and random ops)."""
    ctx.set_output('Out', ctx.attr('shape'), ctx.attr('dtype'))


# --- segment rules -------------------------------------------------------------------------------------------------

def segment_op(kernel, inputs, outputs, args=(), inplace=None, fusion=None, reuse=None, views=False) -> SegmentOp:
    """The SegmentOp calling `kernel` (a numba function of kernels/segment/) with the op's `inputs` slots and the
    constant `args`; its numpy twin is the function named `<kernel name>_ref` in the kernel's module (see
    registry.SegmentOp for the rest)."""
    module = sys.modules[kernel.py_func.__module__]
    reference = getattr(module, kernel.py_func.__name__ + '_ref')
    return SegmentOp(kernel, tuple(inputs), tuple(outputs), tuple(args), reference, dict(inplace or {}), fusion,
                     reuse, views)


def var_rank(spec, slot: str, i: int = 0, output: bool = False) -> int | None:
    """The declared rank of an input (or output) variable, None when it is unknown."""
    var = spec.output_var(slot, i) if output else spec.input_var(slot, i)
    if var is None or not var.has_shape():
        return None
    return len(var.shape)


def var_dtype(spec, slot: str, i: int = 0, output: bool = False):
    """The declared numpy dtype of an input (or output) variable, None when it has none (readers, strings)."""
    var = spec.output_var(slot, i) if output else spec.input_var(slot, i)
    try:
        return to_numpy(var.dtype) if var is not None else None
    except (KeyError, TypeError, ValueError):
        return None


def f32(value) -> float:
    """A float attribute as Paddle stores it (float32), back as a Python float (exact in the generated code)."""
    return float(np.float32(value))


def sum_to_shape(g, shape: tuple):
    """Sums the dims `g` gained by broadcasting against an operand of `shape` (numpy alignment): the gradient of
    a broadcast operand."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    return g.sum(axis=axes).reshape(shape) if axes else g.reshape(shape)
