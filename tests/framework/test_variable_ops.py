"""Variable's operators live in the IR (framework/variable_ops.py): Variable inherits them, and indexing with
Ellipsis and None appends the ops, names and attributes fluid.layers' builders gave them (an `unsqueeze2` named
`unsqueeze2_N`, after the `slice`), computing what numpy computes."""
import numpy as np

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name
from paddle_exec.framework.variable import Parameter, Variable
from paddle_exec.framework.variable_ops import VariableOperators


def _ops(block):
    return [(op.type, {k: list(v) for k, v in op.inputs.items() if v}, {k: list(v) for k, v in op.outputs.items()},
             {k: op.attrs[k] for k in ('axes', 'decrease_axis', 'starts', 'ends') if k in op.attrs})
            for op in block.ops]


def test_variable_and_parameter_inherit_the_operators():
    assert issubclass(Variable, VariableOperators) and issubclass(Parameter, VariableOperators)
    for method in ('__add__', '__rsub__', '__matmul__', '__neg__', '__getitem__', 'astype', '__lt__'):
        assert getattr(Variable, method) is getattr(VariableOperators, method)
    # == and != stay identity: Variables in sets and dicts build no ops
    assert Variable.__eq__ is object.__eq__


def test_ellipsis_and_none_index_as_the_builders_named_them():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 3, 4], 'float32')
        a = x[..., None]
        b = x[None, 0, 1:]
    assert _ops(main.global_block()) == [
        ('unsqueeze2', {'X': ['x']}, {'Out': ['unsqueeze2_0.tmp_0'], 'XShape': ['unsqueeze2_0.tmp_1']}, {'axes': [3]}),
        ('slice', {'Input': ['x']}, {'Out': ['x_slice_0']},
         {'axes': [0, 1], 'decrease_axis': [0], 'starts': [0, 1], 'ends': [1, 10000000]}),
        ('unsqueeze2', {'X': ['x_slice_0']}, {'Out': ['unsqueeze2_1.tmp_0'], 'XShape': ['unsqueeze2_1.tmp_1']},
         {'axes': [0]}),
    ]
    assert (a.name, a.shape, b.name, b.shape) == ('unsqueeze2_0.tmp_0', (-1, 3, 4, 1), 'unsqueeze2_1.tmp_0', (1, 2, 4))
    value = np.arange(24, dtype='float32').reshape(2, 3, 4)
    got_a, got_b = fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': value}, fetch_list=[a, b])
    np.testing.assert_array_equal(got_a, value[..., None])
    np.testing.assert_array_equal(got_b, value[None, 0, 1:])
