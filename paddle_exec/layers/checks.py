"""Argument checks with Paddle's wording, shared by every builder: the bottom of layers/ (imports only the IR).

Paddle keeps these in fluid/data_feeder.py (`check_variable_and_dtype`) and fluid/layers/utils.py
(`convert_to_list`, here `to_int_list`); the TypeError / ValueError texts are Paddle's, since scripts and tests
match on them.
"""
from __future__ import annotations

from ..framework.dtype import convert_dtype
from ..framework.variable import Variable


def check_variable(value, name: str, op_name: str) -> None:
    """Paddle's check_type wording for an argument that must be a Variable."""
    if not isinstance(value, Variable):
        raise TypeError("The type of '%s' in %s must be <class 'paddle.fluid.framework.Variable'>, but received %s. "
                        % (name, op_name, type(value)))


def check_variable_and_dtype(var, var_name: str, dtypes, op_name: str) -> None:
    """Paddle's data_feeder check: TypeError with Paddle's wording for a non-Variable or a wrong dtype."""
    if not isinstance(var, Variable):
        raise TypeError("The type of '%s' in %s must be %s, but received %s. "
                        % (var_name, op_name, Variable, type(var)))
    if convert_dtype(var.dtype) not in dtypes:
        raise TypeError("The data type of '%s' in %s must be %s, but received %s. "
                        % (var_name, op_name, list(dtypes), convert_dtype(var.dtype)))


def check_type(value, name: str, expected_type, op_name: str, extra_message: str = '') -> None:
    """Paddle's data_feeder.check_type: TypeError unless `value` is an instance of `expected_type`."""
    if not isinstance(value, expected_type):
        raise TypeError("The type of '%s' in %s must be %s, but received %s. %s"
                        % (name, op_name, expected_type, type(value), extra_message))


def contains_var(values) -> bool:
    return any(isinstance(v, Variable) for v in values)


def to_int_list(value, n: int, name: str) -> list[int]:
    """Paddle's utils.convert_to_list: an int repeated n times, or a list/tuple of n ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    try:
        values = [int(v) for v in value]
    except TypeError:
        raise ValueError('The %s should be an int or a list/tuple of %d ints, got %r' % (name, n, value)) from None
    if len(values) != n:
        raise ValueError('The %s must have %d elements, got %r' % (name, n, value))
    return values

