"""The operators of `Variable` (`+ - * / ** // %`, comparisons, `@`, unary minus, `astype`, indexing), as Paddle's
math_op_patch builds them (checked against fluid 1.8.5). `Variable` inherits them from `VariableOperators`.

The IR knows no layers, so each operator appends its ops straight to the current block of the variable's program
(`Block.append_op` fills the op's defaults and runs its shape rule) and names its outputs with `unique_name`,
exactly as 1.8's builders name them.

Two Variables: `elementwise_*` (or the compare op), with axis 0 when the right operand's first dim is unknown
(-1) and -1 otherwise, as 1.8 does (2.x always uses -1; the two agree whenever the ranks are equal). The output is
a temporary `tmp_N`; comparisons give bool.

A Python number on the right: `+ - *` and `/` of a float tensor append one `scale` op (`x * 2` is scale(2),
`x - 1` is scale(1, bias=-1), `1 - x` is scale(-1, bias=1), `x / 4` is scale(0.25)); the other operators put
the number in a [1] tensor (`fill_constant`, x's dtype) and use the elementwise / compare op. A number on the
left of a non-commutative operator (`4 / x`, `2 ** x`) becomes a tensor of x's shape: `fill_constant`, or
`fill_constant_batch_size_like` when x has an unknown dim.
Integer tensors: `/` by a number is elementwise_div on a filled tensor (integer division, 1.8's hot fix: never a
`scale`, which would cast 1/n to an integer); a non-integral float (`x + 1.5`, which 1.8 rejects) casts x to
float32 first, as 2.x does.

`x @ y` is 2.x's matmul_v2. `-x` is scale(-1). All six comparisons build ops, as both Paddle 1.8.5 and 2.6.2 do:
`x == y` is `equal`, `x != y` `not_equal`, `x < 1` a `fill_constant` then `less_than` (a bool `tmp_N`). Hashing
stays identity (Variable.__hash__), so Variables still work as dict keys and in sets: Python tests identity before
it calls `==`. A list look-up `x in [y]` calls `x == y`: Paddle appends an `equal` and answers True (its Variable
is truthy); here the Variable's missing truth value raises TypeError instead, so code that looks Variables up in
lists compares names or uses `is`. Anything that is neither a Variable nor a number (`x == None`) is
NotImplemented, so Python falls back to identity.

`x[item]` as Paddle 1.8 builds it: ints and slices become one `slice` op with `decrease_axis` (a step other than 1
a `strided_slice`, `[::-1]` a `reverse`), named `<var>_slice_N`; Ellipsis expands to full slices and None inserts
a dim (an `unsqueeze2` named as fluid.layers.unsqueeze names it), as in Paddle 2.x.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import unique_name
from .dtype import VarType, is_float, to_var_type

_COMPARE = ('less_than', 'less_equal', 'greater_than', 'greater_equal', 'equal', 'not_equal')


def _tmp(block, dtype):
    return block.create_var(name=unique_name.generate_with_ignorable_key('tmp'), dtype=dtype)


def _block(var):
    return var.block.program.current_block()


def _scale(var, scale, bias):
    out = _tmp(_block(var), var.dtype)
    _block(var).append_op('scale', {'X': [var]}, {'Out': [out]},
                          {'scale': float(scale), 'bias': float(bias), 'bias_after_scale': True})
    return out


def _cast(var, dtype):
    out = _tmp(_block(var), to_var_type(dtype))
    _block(var).append_op('cast', {'X': [var]}, {'Out': [out]}, {'in_dtype': int(var.dtype),
                                                               'out_dtype': int(to_var_type(dtype))})
    return out


def _fill_scalar(var, value):
    """A [1] tensor of var's dtype holding `value` (1.8's create_scalar)."""
    block = _block(var)
    out = _tmp(block, var.dtype)
    block.append_op('fill_constant', {}, {'Out': [out]}, {'shape': [1], 'dtype': int(var.dtype),
                                                          'value': float(value)})
    out.stop_gradient = True
    return out


def _fill_like(var, value):
    """A tensor of var's shape holding `value`, for a number on the left (1.8's create_tensor /
    create_tensor_with_batchsize)."""
    block = _block(var)
    out = _tmp(block, var.dtype)
    shape = list(var.shape)
    unknown = [i for i, d in enumerate(shape) if d < 0]
    if unknown:
        block.append_op('fill_constant_batch_size_like', {'Input': [var]}, {'Out': [out]},
                        {'shape': shape, 'dtype': int(var.dtype), 'value': float(value),
                         'input_dim_idx': unknown[0], 'output_dim_idx': unknown[0]})
    else:
        block.append_op('fill_constant', {}, {'Out': [out]}, {'shape': shape, 'dtype': int(var.dtype),
                                                              'value': float(value)})
    out.stop_gradient = True
    return out


_SCALAR_RULES = {
    '__add__': lambda x, v: _scale(x, 1.0, v), '__radd__': lambda x, v: _scale(x, 1.0, v),
    '__sub__': lambda x, v: _scale(x, 1.0, -v), '__rsub__': lambda x, v: _scale(x, -1.0, v),
    '__mul__': lambda x, v: _scale(x, v, 0.0), '__rmul__': lambda x, v: _scale(x, v, 0.0),
    '__truediv__': lambda x, v: _scale(x, 1.0 / v, 0.0),
}


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _binary(method, op_type, reverse=False):
    scalar_rule = _SCALAR_RULES.get(method)
    # Paddle's comparisons take a Python bool as the number it is (float(True) == 1.0); arithmetic does not
    is_scalar = (lambda v: isinstance(v, (int, float))) if op_type in _COMPARE else _is_number

    def impl(self, other):
        if is_scalar(other):
            if isinstance(other, float) and not other.is_integer() and not is_float(self.dtype):
                self = _cast(self, 'float32')
            integer_division = op_type == 'elementwise_div' and not is_float(self.dtype)
            if scalar_rule is not None and not integer_division:
                return scalar_rule(self, other)
            other = _fill_like(self, other) if reverse else _fill_scalar(self, other)
        if not isinstance(other, VariableOperators):
            return NotImplemented
        axis = 0 if other.shape and other.shape[0] == -1 else -1
        x, y = (other, self) if reverse else (self, other)
        out = _tmp(_block(self), VarType.BOOL if op_type in _COMPARE else x.dtype)
        _block(self).append_op(op_type, {'X': [x], 'Y': [y]}, {'Out': [out]}, {'axis': axis})
        return out
    impl.__name__ = method
    return impl


_INT_TYPES = (int, np.integer)


def _contains_var(values) -> bool:
    return any(isinstance(v, VariableOperators) for v in values)


def _attr_with_holes(values) -> list[int]:
    return [-1 if isinstance(v, VariableOperators) else int(v) for v in values]


def _unsqueeze(block, x, axes):
    """`unsqueeze2` as fluid.layers.unsqueeze appends it: helper `unsqueeze2_N`, Out `.tmp_0`, XShape `.tmp_1`."""
    helper_name = unique_name.generate('unsqueeze2')
    out, x_shape = (block.create_var(name=unique_name.generate_with_ignorable_key(helper_name + '.tmp'),
                                     dtype=x.dtype, shape=None, persistable=False, stop_gradient=False)
                    for _ in builtins.range(2))
    block.append_op('unsqueeze2', {'X': [x]}, {'Out': [out], 'XShape': [x_shape]}, {'axes': [int(a) for a in axes]})
    return out


def getitem(var, item):
    """`var[item]` as Paddle 1.8 builds it: one `slice` op for ints and step-1 slices (ints in `decrease_axis`;
    an index -1 ends at 10000000), a `strided_slice` when some step is not 1, then a `reverse` for `[::-1]` axes.
    Ellipsis expands to full slices and None inserts a dim (unsqueeze2) as in Paddle 2.x."""
    if not isinstance(item, tuple):
        item = (item,)
    item, new_axes = _expand_ellipsis(var, item)
    block = var.block.program.current_block()
    decrease, axes, starts, ends, steps, reverse_axes = [], [], [], [], [], []
    for dim, it in enumerate(item):
        if isinstance(it, builtins.slice):
            start, stop, step = it.start, it.stop, it.step
            if start is None and stop is None and step is None:
                continue
            step = 1 if step is None else step
            if start is None and stop is None and step == -1:
                reverse_axes.append(dim)
                continue
            if step < 0:
                # an end of -1 with a negative stride runs through index 0 (strided_slice's rule)
                start = -1 if start is None else start
                stop = -1 if stop is None else stop
            else:
                start = 0 if start is None else start
                stop = 10000000 if stop is None else stop
            axes.append(dim)
            starts.append(start)
            ends.append(stop)
            steps.append(step)
        elif isinstance(it, VariableOperators) or isinstance(it, _INT_TYPES) and not isinstance(it, bool):
            size = var.shape[dim]
            if not isinstance(it, VariableOperators) and size >= 0 and not -size <= it < size:
                # Python iterates (and unpacks `a, b = var`) by indexing until IndexError, as in Paddle 2.x
                raise IndexError('slice_item %d at dim %d should be >= 0 and < x.shape[%d]: %d'
                                 % (it, dim, dim, size))
            decrease.append(dim)
            axes.append(dim)
            starts.append(it if isinstance(it, VariableOperators) else int(it))
            steps.append(1)
            if isinstance(it, VariableOperators):
                one = _block_fill(block, 1)
                end = block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype='int32')
                block.append_op('elementwise_add', {'X': [it], 'Y': [one]}, {'Out': [end]}, {'axis': -1})
                ends.append(end)
            else:
                ends.append(int(it) + 1 if it != -1 else 10000000)
        else:
            raise IndexError('Valid index accept int, slice, Ellipsis, None or Variable, but received %r' % (it,))
    out = var
    if axes:
        strided = any(s != 1 for s in steps)
        inputs, attrs = {'Input': [var]}, {'axes': axes, 'decrease_axis': decrease}
        flags = [1] * len(axes)
        for key, values, slot in (('starts', starts, 'StartsTensorList'), ('ends', ends, 'EndsTensorList'),
                                  ('strides', steps, 'StridesTensorList')):
            if key == 'strides' and not strided:
                continue
            attrs[key] = _attr_with_holes(values)
            if _contains_var(values):
                inputs[slot] = [v if isinstance(v, VariableOperators) else _block_fill(block, v) for v in values]
                for k, v in enumerate(values):
                    if isinstance(v, VariableOperators):
                        v.stop_gradient = True
                        flags[k] = -1
        attrs['infer_flags'] = flags
        suffix = '_strided_slice' if strided else '_slice'
        out = block.create_var(name=unique_name.generate_with_ignorable_key(var.name + suffix), dtype=var.dtype)
        block.append_op('strided_slice' if strided else 'slice', inputs, {'Out': [out]}, attrs)
    if reverse_axes:
        rev = block.create_var(name=unique_name.generate_with_ignorable_key(var.name + '_slice_reverse'),
                               dtype=var.dtype)
        # the axes of the sliced result: int-indexed dims before an axis are gone (Paddle 1.8 used the input's)
        axis = [a - sum(1 for d in decrease if d < a) for a in reverse_axes]
        block.append_op('reverse', {'X': [out]}, {'Out': [rev]}, {'axis': axis})
        out = rev
    if new_axes:
        out = _unsqueeze(block, out, new_axes)
    return out


def _expand_ellipsis(var, item):
    """Replaces Ellipsis by full slices and drops None entries; returns the remaining index and the output
    positions of the dims the Nones insert."""
    if sum(1 for it in item if it is Ellipsis) > 1:
        raise IndexError('An index can only have a single ellipsis')
    n_real = sum(1 for it in item if it is not None and it is not Ellipsis)
    expanded = []
    for it in item:
        if it is Ellipsis:
            expanded.extend([builtins.slice(None)] * max(len(var.shape) - n_real, 0))
        else:
            expanded.append(it)
    real, new_axes, out_pos = [], [], 0
    for it in expanded:
        if it is None:
            new_axes.append(out_pos)
            out_pos += 1
        else:
            real.append(it)
            out_pos += 1 if isinstance(it, builtins.slice) else 0
    if len(real) > len(var.shape):
        raise IndexError('too many indices (%d) for Variable %r of rank %d' % (len(real), var.name, len(var.shape)))
    return tuple(real), new_axes


def _block_fill(block, value):
    out = block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype='int32')
    block.append_op('fill_constant', {}, {'Out': [out]},
                    {'shape': [1], 'dtype': int(VarType.INT32), 'value': float(value), 'force_cpu': True})
    out.stop_gradient = True
    return out


class VariableOperators:
    """The operators Variable inherits; each appends ops to the current block of the variable's program."""

    __add__ = _binary('__add__', 'elementwise_add')
    __radd__ = _binary('__radd__', 'elementwise_add')
    __sub__ = _binary('__sub__', 'elementwise_sub')
    __rsub__ = _binary('__rsub__', 'elementwise_sub', reverse=True)
    __mul__ = _binary('__mul__', 'elementwise_mul')
    __rmul__ = _binary('__rmul__', 'elementwise_mul')
    __truediv__ = _binary('__truediv__', 'elementwise_div')
    __rtruediv__ = _binary('__rtruediv__', 'elementwise_div', reverse=True)
    __pow__ = _binary('__pow__', 'elementwise_pow')
    __rpow__ = _binary('__rpow__', 'elementwise_pow', reverse=True)
    __floordiv__ = _binary('__floordiv__', 'elementwise_floordiv')
    __mod__ = _binary('__mod__', 'elementwise_mod')
    __lt__ = _binary('__lt__', 'less_than')
    __le__ = _binary('__le__', 'less_equal')
    __gt__ = _binary('__gt__', 'greater_than')
    __ge__ = _binary('__ge__', 'greater_equal')
    __eq__ = _binary('__eq__', 'equal')
    __ne__ = _binary('__ne__', 'not_equal')
    # defining __eq__ would otherwise make instances unhashable; Paddle's Variable hashes by identity
    # (Variable overrides it with the same meaning)
    __hash__ = object.__hash__

    def __matmul__(self, other):
        if not isinstance(other, VariableOperators):
            return NotImplemented
        out = _tmp(_block(self), self.dtype)
        _block(self).append_op('matmul_v2', {'X': [self], 'Y': [other]}, {'Out': [out]},
                               {'trans_x': False, 'trans_y': False})
        return out

    def __neg__(self):
        return _scale(self, -1.0, 0.0)

    def astype(self, dtype):
        return _cast(self, dtype)

    def __getitem__(self, item):
        """x[1], x[:, 2:5], x[::-1], x[..., None] -> slice / strided_slice / reverse / unsqueeze2 ops."""
        return getitem(self, item)
