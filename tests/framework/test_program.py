"""The Program / Block / Variable / Operator surface, operator overloading, naming and printing, compared with what
Paddle 1.8.5 (and 2.x's readable printing) show."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import VarType, registry, unique_name
from paddle_exec.framework.operator import OpRole
from paddle_exec.framework.variable import Parameter


@pytest.fixture
def progs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        yield main, startup


def run(main, startup, feed, fetch):
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


# --- Program and Block ----------------------------------------------------------------------------------------

def test_blocks_and_the_current_block(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 3], 'float32')
    g = main.global_block()
    assert main.block(0) is g and main.current_block() is g and main.num_blocks == 1
    inner = main._create_block()
    assert main.current_block() is inner and inner.idx == 1 and inner.parent_idx == 0 and main.num_blocks == 2
    inner.create_var(name='inner_v', shape=[1], dtype='float32')
    assert inner._var_recursive('x') is x and not inner.has_var('x')
    assert not g.has_var('inner_v')
    main._rollback()
    assert main.current_block() is g


def test_block_variables(progs):
    main, _ = progs
    block = main.global_block()
    v = block.create_var(name='v', shape=[2, -1], dtype='int64', lod_level=1)
    assert block.var('v') is v and block.has_var('v') and not block.has_var('nope')
    assert (v.name, v.shape, v.dtype, v.lod_level, v.persistable, v.stop_gradient) == \
        ('v', (2, -1), VarType.INT64, 1, False, False)
    assert block.create_var(name='v', shape=[9]) is v and v.shape == (2, -1)     # an existing var is returned
    late = block.create_var(name='late')
    block.create_var(name='late', shape=[3], dtype='float64')                  # ... and filled in when unknown
    assert late.shape == (3,) and late.dtype == VarType.FP64
    with pytest.raises(ValueError, match='var nope not in this block'):
        block.var('nope')
    generated = block.create_var(dtype='float32')
    assert generated.name.startswith('_generated_var_')


def test_block_create_parameter_lives_in_the_global_block_and_is_initialised_once(progs):
    main, startup = progs
    init = fluid.initializer.Constant(0.5)
    p = startup.global_block().create_parameter(name='w', shape=[2, 3], dtype='float32', initializer=init)
    again = startup.global_block().create_parameter(name='w', shape=[2, 3], dtype='float32', initializer=init)
    assert again is p and isinstance(p, Parameter) and p.persistable and p.trainable and not p.stop_gradient
    assert [op.type for op in startup.global_block().ops] == ['fill_constant']
    inner = main._create_block()
    q = inner.create_parameter(name='q', shape=[1], dtype='float32')
    main._rollback()
    assert main.global_block().has_var('q') and not inner.has_var('q') and q.block is main.global_block()


def test_append_op_fills_defaults_roles_shapes_and_every_input_slot(progs):
    main, _ = progs
    block = main.global_block()
    x = fluid.data('x', [-1, 3], 'float32')
    out = block.create_var(name='out', dtype='float32')
    op = block.append_op(type='scale', inputs={'X': [x]}, outputs={'Out': [out]}, attrs={'scale': 2.0})
    assert op.type == 'scale' and block.ops[-1] is op and op.block is block
    assert out.shape == (-1, 3)                                        # the shape rule ran
    assert op.attr('bias') == 0.0 and op.attr('bias_after_scale') is True     # registry defaults
    assert op.attr('op_role') == OpRole.Forward and op.attr('op_role_var') == [] and op.attr('op_namescope') == '/'
    assert op.input_names == ['ScaleTensor', 'X'] and op.input('ScaleTensor') == []   # as Paddle 1.8 lists them
    with pytest.raises(ValueError, match="has no input slot 'Nope'"):
        block.append_op(type='scale', inputs={'Nope': [x]}, outputs={'Out': [out]})
    with pytest.raises(ValueError, match="'no_such_op' has not been registered"):
        block.append_op(type='no_such_op', inputs={}, outputs={})


def test_operator_surface(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 3], 'float32')
    fluid.layers.fc(x, 2)
    mul, add = main.global_block().ops
    assert mul.type == 'mul' and mul.input('X') == ['x'] and mul.input('Y') == ['fc_0.w_0']
    assert mul.output('Out') == ['fc_0.tmp_0'] and mul.output_names == ['Out']
    assert mul.input_arg_names == ['x', 'fc_0.w_0'] and mul.output_arg_names == ['fc_0.tmp_0']
    assert add.attr('axis') == 1 and add.has_attr('axis') and not add.has_attr('nope')
    attrs = add.all_attrs()
    assert attrs['axis'] == 1 and attrs['op_role'] == 0
    attrs['axis'] = 7                                                  # a copy
    assert add.attr('axis') == 1
    with pytest.raises(ValueError, match='Attribute nope is not found'):
        add.attr('nope')
    assert mul.idx == 0 and add.idx == 1


def test_variable_surface(progs):
    main, _ = progs
    x = fluid.data('x', [None, 3], 'float32')
    lbl = fluid.layers.data('lbl', [1], dtype='int64')
    y = fluid.layers.fc(x, 2)
    w = main.global_block().var('fc_0.w_0')
    assert (x.name, x.shape, x.dtype, x.persistable, x.stop_gradient, x.lod_level) == \
        ('x', (-1, 3), VarType.FP32, False, True, 0)
    assert lbl.shape == (-1, 1) and lbl.dtype == VarType.INT64
    assert (w.shape, w.persistable, w.stop_gradient, w.trainable) == ((3, 2), True, False, True)
    assert (y.name, y.shape, y.persistable, y.stop_gradient) == ('fc_0.tmp_1', (-1, 2), False, False)
    assert y.grad_name == 'fc_0.tmp_1@GRAD' and y.block is main.global_block() and y.program is main
    with pytest.raises(TypeError, match='truth value'):
        bool(y)


# --- operator overloading (the ops Paddle 1.8.5 appends) -------------------------------------------------------

def _last_ops(main, n):
    return [(op.type, {k: op.attr(k) for k in ('scale', 'bias', 'value', 'shape') if op.has_attr(k)})
            for op in main.global_block().ops[-n:]]


def test_scalar_arithmetic_is_one_scale_op_with_paddle_tmp_names(progs):
    main, startup = progs
    x = fluid.data('x', [-1, 2], 'float32')
    results = [x * 2, x + 1, 1 - x, x / 2, -x, x - 3.5, 3 * x]
    assert [r.name for r in results] == ['tmp_%d' % i for i in range(7)]
    assert _last_ops(main, 7) == [
        ('scale', {'scale': 2.0, 'bias': 0.0}), ('scale', {'scale': 1.0, 'bias': 1.0}),
        ('scale', {'scale': -1.0, 'bias': 1.0}), ('scale', {'scale': 0.5, 'bias': 0.0}),
        ('scale', {'scale': -1.0, 'bias': 0.0}), ('scale', {'scale': 1.0, 'bias': -3.5}),
        ('scale', {'scale': 3.0, 'bias': 0.0})]
    xv = np.array([[1.0, -2.0], [0.5, 4.0]], 'float32')
    got = run(main, startup, {'x': xv}, results)
    for g, want in zip(got, [xv * 2, xv + 1, 1 - xv, xv / 2, -xv, xv - 3.5, 3 * xv]):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_variable_arithmetic_appends_elementwise_ops(progs):
    main, startup = progs
    x = fluid.data('x', [-1, 2], 'float32')
    y = fluid.data('y', [-1, 2], 'float32')
    s, d, m, q, p = x + y, x - y, x * y, x / y, x ** 2
    types = [op.type for op in main.global_block().ops]
    assert types == ['elementwise_add', 'elementwise_sub', 'elementwise_mul', 'elementwise_div', 'fill_constant',
                     'elementwise_pow']
    assert main.global_block().ops[4].attr('shape') == [1] and main.global_block().ops[4].attr('value') == 2.0
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], 'float32')
    yv = np.array([[2.0, 4.0], [1.0, 8.0]], 'float32')
    got = run(main, startup, {'x': xv, 'y': yv}, [s, d, m, q, p])
    for g, want in zip(got, [xv + yv, xv - yv, xv * yv, xv / yv, xv ** 2]):
        np.testing.assert_allclose(g, want, rtol=1e-6)


@pytest.mark.skipif('less_than' not in registry.OPS, reason='comparison ops are not registered yet')
def test_comparisons_give_bool_variables(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 2], 'float32')
    y = fluid.data('y', [-1, 2], 'float32')
    c = x < y
    assert main.global_block().ops[-1].type == 'less_than' and c.dtype == VarType.BOOL


# --- program_guard, default programs, names --------------------------------------------------------------------

def test_program_guard_switches_and_restores_the_default_programs():
    outer_main, outer_startup = fluid.default_main_program(), fluid.default_startup_program()
    main, startup = fluid.Program(), fluid.Program()
    with pytest.raises(RuntimeError):
        with fluid.program_guard(main, startup):
            assert fluid.default_main_program() is main and fluid.default_startup_program() is startup
            assert static.default_main_program() is main
            raise RuntimeError('leaving by an exception still restores')
    assert fluid.default_main_program() is outer_main and fluid.default_startup_program() is outer_startup
    with fluid.program_guard(main):
        assert fluid.default_main_program() is main and fluid.default_startup_program() is outer_startup
    with pytest.raises(TypeError, match='main_program must be a Program'):
        with fluid.program_guard('main'):
            pass


def test_unique_name_generate_and_guard():
    with unique_name.guard():
        assert [unique_name.generate('fc') for _ in range(3)] == ['fc_0', 'fc_1', 'fc_2']
        assert unique_name.generate('conv') == 'conv_0'
        with unique_name.guard():
            assert unique_name.generate('fc') == 'fc_0'
        assert unique_name.generate('fc') == 'fc_3'
        with unique_name.guard('pre_'):
            assert unique_name.generate('fc') == 'pre_fc_0'


def test_layer_naming_follows_paddle(progs):
    main, startup = progs
    x = fluid.data('x', [-1, 3], 'float32')
    h = fluid.layers.fc(x, 4, act='relu')
    y = fluid.layers.fc(h, 1)
    assert [p.name for p in main.all_parameters()] == ['fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0']
    assert (h.name, y.name) == ('fc_0.tmp_2', 'fc_1.tmp_1')
    assert [v.name for v in startup.list_vars()] == ['fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0']


# --- printing -------------------------------------------------------------------------------------------------

def test_str_program_is_paddle_2_readable_code(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 3], 'float32')
    fluid.layers.mean(fluid.layers.fc(x, 2))
    assert str(main) == (
        "{ // block 0\n"
        "    var x : LOD_TENSOR.shape(-1, 3).dtype(FP32).stop_gradient(True)\n"
        "    persist trainable param fc_0.w_0 : LOD_TENSOR.shape(3, 2).dtype(FP32).stop_gradient(False)\n"
        "    var fc_0.tmp_0 : LOD_TENSOR.shape(-1, 2).dtype(FP32).stop_gradient(False)\n"
        "    persist trainable param fc_0.b_0 : LOD_TENSOR.shape(2,).dtype(FP32).stop_gradient(False)\n"
        "    var fc_0.tmp_1 : LOD_TENSOR.shape(-1, 2).dtype(FP32).stop_gradient(False)\n"
        "    var mean_0.tmp_0 : LOD_TENSOR.shape(1,).dtype(FP32).stop_gradient(False)\n"
        "\n"
        # the attributes Paddle 1.8.5 gives mul and elementwise_add, sorted
        "    {Out=['fc_0.tmp_0']} = mul(inputs={X=['x'], Y=['fc_0.w_0']}, force_fp32_output = False, "
        "op_namescope = /, op_role = 0, op_role_var = [], scale_out = 1.0, scale_x = 1.0, scale_y = [1.0], "
        "use_mkldnn = False, x_num_col_dims = 1, y_num_col_dims = 1)\n"
        "    {Out=['fc_0.tmp_1']} = elementwise_add(inputs={X=['fc_0.tmp_0'], Y=['fc_0.b_0']}, axis = 1, "
        "op_namescope = /, op_role = 0, op_role_var = [], use_mkldnn = False, x_data_format = , "
        "y_data_format = )\n"
        "    {Out=['mean_0.tmp_0']} = mean(inputs={X=['fc_0.tmp_1']}, op_namescope = /, op_role = 0, "
        "op_role_var = [])\n"
        "}\n")
    assert str(main.global_block().var('fc_0.w_0')) == \
        'persist trainable param fc_0.w_0 : LOD_TENSOR.shape(3, 2).dtype(FP32).stop_gradient(False)'


# --- clone, list_vars, all_parameters, random_seed ------------------------------------------------------------

def test_clone_for_test_keeps_the_forward_and_switches_is_test(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 3], 'float32')
    h = fluid.layers.dropout(fluid.layers.fc(x, 4), dropout_prob=0.5)
    loss = fluid.layers.mean(fluid.layers.fc(h, 1))
    before = main.clone(for_test=True)
    fluid.optimizer.SGD(0.1).minimize(loss)
    after = main.clone(for_test=True)
    forward = ['mul', 'elementwise_add', 'dropout', 'mul', 'elementwise_add', 'mean']
    for test in (before, after):
        assert [op.type for op in test.global_block().ops] == forward
        assert test.global_block().ops[2].attr('is_test') is True
        assert not any('@GRAD' in v.name for v in test.list_vars())
        assert [p.name for p in test.all_parameters()] == [p.name for p in main.all_parameters()]
    assert not after.global_block().has_var('learning_rate_0')
    assert after.global_block().ops[-1].attr('op_role') == OpRole.Forward | OpRole.Loss
    # the original is untouched
    dropout = next(op for op in main.global_block().ops if op.type == 'dropout')
    assert dropout.attr('is_test') is False
    assert any(op.type == 'sgd' for op in main.global_block().ops)
    assert main.global_block().has_var('learning_rate_0')


def test_clone_is_a_deep_copy(progs):
    main, _ = progs
    x = fluid.data('x', [-1, 3], 'float32')
    fluid.layers.fc(x, 2)
    main.random_seed = 9
    copy = main.clone()
    assert str(copy) == str(main) and copy.random_seed == 9
    copy.global_block().ops[0]._set_attr('x_num_col_dims', 5)
    copy.global_block().var('x').stop_gradient = False
    copy.global_block().create_var(name='only_in_copy')
    assert main.global_block().ops[0].attr('x_num_col_dims') == 1
    assert main.global_block().var('x').stop_gradient is True and not main.global_block().has_var('only_in_copy')
    assert copy.global_block().ops[0].block is copy.global_block()


def test_list_vars_all_parameters_and_random_seed(progs):
    main, startup = progs
    x = fluid.data('x', [-1, 3], 'float32')
    fluid.layers.fc(x, 2)
    assert [v.name for v in main.list_vars()] == ['x', 'fc_0.w_0', 'fc_0.tmp_0', 'fc_0.b_0', 'fc_0.tmp_1']
    assert all(isinstance(p, Parameter) for p in main.all_parameters())
    assert main.random_seed == 0
    with pytest.raises(ValueError, match='must be an integer'):
        main.random_seed = 1.5
    startup.random_seed = 42
    fluid.layers.fc(x, 2)
    seeds = [op.attr('seed') for op in startup.global_block().ops if op.has_attr('seed')]
    assert seeds[0] == 0 and seeds[-1] == 42           # initializers built after the seed was set use it


def test_version_changes_with_every_structural_edit(progs):
    main, _ = progs
    v0 = main._version
    x = fluid.data('x', [-1, 3], 'float32')
    v1 = main._version
    fluid.layers.scale(x, 2.0)
    v2 = main._version
    main.global_block().ops[0]._set_attr('scale', 3.0)
    assert v0 < v1 < v2 < main._version
