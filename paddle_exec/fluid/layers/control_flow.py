"""fluid.layers.control_flow (Paddle 1.8's module path): cond, case, switch_case, While, IfElse, Switch,
tensor arrays and the comparisons.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.attribute import is_empty
from ...layers.control_flow import (  # noqa: F401  (1.8 defines these here, outside __all__)
    ConditionalBlock,
    IfElse,
    Print,
    Switch,
    While,
    array_length,
    array_read,
    array_write,
    case,
    cond,
    create_array,
    merge_lod_tensor,
    select_input,
    select_output,
    split_lod_tensor,
    switch_case,
    while_loop,
)
from ...layers.math import equal, greater_equal, greater_than, increment, less_equal, less_than, not_equal

__all__ = ['IfElse', 'Print', 'Switch', 'While', 'array_length', 'array_read', 'array_write', 'case', 'cond',
           'create_array', 'equal', 'greater_equal', 'greater_than', 'increment', 'is_empty', 'less_equal',
           'less_than', 'not_equal', 'switch_case', 'while_loop']
