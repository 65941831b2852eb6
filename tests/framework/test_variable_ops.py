"""Variable's operators live in the IR (framework/variable_ops.py): Variable inherits them, and indexing with
Ellipsis and None appends the ops, names and attributes fluid.layers' builders gave them (an `unsqueeze2` named
`unsqueeze2_N`, after the `slice`), computing what numpy computes."""
import numpy as np
import pytest

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
    for method in ('__add__', '__rsub__', '__matmul__', '__neg__', '__getitem__', 'astype', '__lt__', '__eq__',
                   '__ne__'):
        assert getattr(Variable, method) is getattr(VariableOperators, method)
    # == and != build ops as in Paddle 1.8.5 / 2.6.2 (issue 12); hashing stays identity, as Paddle's
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data('x', [2], 'float32')
    assert hash(x) == id(x) and main.global_block().ops == []


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


def test_all_six_comparisons_build_paddles_ops():
    # Paddle 1.8.5 and 2.6.2 both: equal, not_equal, less_than, less_equal, greater_than, greater_equal on
    # `tmp_N` bool outputs; a number is a [1] fill_constant of x's dtype first; `1 < x` is reflected to x > 1
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [2, 3], 'float32')
        y = fluid.data('y', [2, 3], 'float32')
        outs = [x == y, x != y, x < y, x <= y, x > y, x >= y, x == 1.0, x < 1, 1 < x]
    ops = main.global_block().ops
    assert [op.type for op in ops] == ['equal', 'not_equal', 'less_than', 'less_equal', 'greater_than',
                                       'greater_equal', 'fill_constant', 'equal', 'fill_constant', 'less_than',
                                       'fill_constant', 'greater_than']
    assert [o.name for o in outs[:6]] == ['tmp_%d' % i for i in range(6)]
    assert ops[0].inputs == {'X': ['x'], 'Y': ['y']} and ops[0].attrs['axis'] == -1
    assert ops[6].attrs['shape'] == [1] and ops[6].attrs['value'] == 1.0 and ops[7].inputs['X'] == ['x']
    assert ops[11].inputs['X'] == ['x']
    assert all(str(o.dtype) == 'VarType.BOOL' and tuple(o.shape) == (2, 3) for o in outs)
    a = np.array([[1, 2, 3], [0, 5, -1]], 'float32')
    b = np.array([[1, 0, 4], [0, 6, -1]], 'float32')
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': a, 'y': b}, fetch_list=outs)
    for value, want in zip(got, [a == b, a != b, a < b, a <= b, a > b, a >= b, a == 1, a < 1, a > 1]):
        np.testing.assert_array_equal(value, want)


def test_variables_stay_usable_in_sets_and_dicts():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data('x', [2], 'float32')
        y = fluid.data('y', [2], 'float32')
        table = {x: 1, y: 2}
        assert table[x] == 1 and table[y] == 2 and len({x, y, x}) == 2 and x in {x}
    # hashing and identity look-ups build no op; `x == None` is NotImplemented -> identity, as a plain object
    assert main.global_block().ops == []
    assert (x == None) is False and (x != None) is True  # noqa: E711 - the operator is under test
    assert main.global_block().ops == []
    # `in` on a list calls == after the identity test: Paddle appends an `equal` and takes the Variable as True;
    # here a Variable has no truth value, so the mistake raises instead of answering True
    assert x in [x]
    with pytest.raises(TypeError, match='no truth value'):
        x in [y]  # noqa: B015 - the comparison is under test
    assert [op.type for op in main.global_block().ops] == ['equal']
