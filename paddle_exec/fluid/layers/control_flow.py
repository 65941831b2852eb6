"""fluid.layers.control_flow (Paddle 1.8's module path): cond, case, switch_case, While, IfElse, Switch,
StaticRNN, DynamicRNN, tensor arrays, the LoD rank table layers and the comparisons.

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
from ...layers.rnn_blocks import (  # noqa: F401  (1.8 defines the rank-table layers here, outside __all__)
    DynamicRNN,
    StaticRNN,
    array_to_lod_tensor,
    lod_rank_table,
    lod_tensor_to_array,
    max_sequence_len,
    reorder_lod_tensor_by_rank,
    shrink_memory,
)

__all__ = ['DynamicRNN', 'IfElse', 'Print', 'StaticRNN', 'Switch', 'While', 'array_length', 'array_read',
           'array_write', 'case', 'cond', 'create_array', 'equal', 'greater_equal', 'greater_than', 'increment',
           'is_empty', 'less_equal', 'less_than', 'not_equal', 'reorder_lod_tensor_by_rank', 'switch_case',
           'while_loop']
