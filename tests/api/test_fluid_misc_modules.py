"""The remaining fluid 1.8 module paths that carry behaviour: annotations, wrapped_decorator, log_helper,
default_scope_funcs, layers.layer_function_generator, transpiler's no-ops, incubate.fleet's constants, contrib
(memory_usage, op_freq_statistic, extend_with_decoupled_weight_decay, ctr_metric_bundle), fluid.framework's flags,
versions and places."""
import logging

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name


def _run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    return exe, scope, exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


def test_annotations_deprecated_prints_on_each_call(capsys):
    @fluid.annotations.deprecated(since='1.6', instead='fluid.layers.bar')
    def foo(x):
        """doc"""
        return x + 1

    assert foo(1) == 2
    assert 'API foo is deprecated since 1.6. Please use fluid.layers.bar instead.' in capsys.readouterr().err
    assert 'deprecated since 1.6' in foo.__doc__


def test_signature_safe_contextmanager_keeps_the_name():
    calls = []

    @fluid.wrapped_decorator.signature_safe_contextmanager
    def guard(tag):
        calls.append(('enter', tag))
        yield tag
        calls.append(('exit', tag))

    with guard('a') as got:
        assert got == 'a'
    assert calls == [('enter', 'a'), ('exit', 'a')] and guard.__name__ == 'guard'


def test_log_helper_get_logger():
    logger = fluid.log_helper.get_logger('paddle_exec.test_s4', logging.INFO, fmt='%(message)s')
    assert logger.level == logging.INFO and logger.handlers[-1].formatter._fmt == '%(message)s'
    logger.removeHandler(logger.handlers[-1])


def test_default_scope_funcs_keep_a_stack_per_thread():
    d = fluid.default_scope_funcs
    outer = d.get_cur_scope()
    d.var('a')
    d.enter_local_scope()
    inner = d.get_cur_scope()
    assert inner is not outer and inner.parent is outer
    d.var('b')
    assert d.find_var('a') is not None and d.find_var('b') is not None
    d.leave_local_scope()
    assert d.get_cur_scope() is outer and d.find_var('b') is None and outer.kids == []
    seen = []
    d.scoped_function(lambda: seen.append(d.get_cur_scope()))
    assert seen[0].parent is outer and d.get_cur_scope() is outer


def test_layer_function_generator_builds_working_layers():
    from paddle_exec.fluid.layers import layer_function_generator as g
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [2, 3])
        y = g.generate_layer_fn('scale')(x, scale=3.0, bias=1.0)
        r = g.generate_activation_fn('relu')(x)
        with pytest.raises(TypeError, match='float16'):
            g.generate_activation_fn('relu')(fluid.data('i', [2], 'int64'))
    assert y.name.startswith('scale_0') and main.global_block().ops[-1].type == 'relu'
    xv = np.arange(6, dtype='float32').reshape(2, 3) - 2
    _, _, (yv, rv) = _run(main, startup, {'x': xv}, [y, r])
    np.testing.assert_allclose(yv, xv * 3 + 1)
    np.testing.assert_allclose(rv, np.maximum(xv, 0))

    @g.templatedoc(op_type='scale')
    def documented():
        """${comment} ${scale_comment}"""

    assert 'scale operator' in documented.__doc__ and 'attribute scale' in documented.__doc__

    @g.autodoc(comment='Extra words.')
    def relu():
        pass

    assert relu.__doc__.startswith('relu operator.') and relu.__doc__.endswith('Extra words.')
    with pytest.warns(DeprecationWarning, match='Call to deprecated function old'):
        assert g.deprecated(_old)() == 1


def _old():
    return 1


_old.__name__ = 'old'


def test_transpiler_memory_optimize_is_a_logged_no_op(caplog):
    main = Program()
    with caplog.at_level(logging.WARNING):
        assert fluid.memory_optimize(main) is None
        assert fluid.release_memory(main) is None
    assert 'deprecated' in caplog.text
    assert fluid.transpiler.memory_optimize is fluid.memory_optimize


def test_fleet_constants():
    from paddle_exec.fluid.incubate.fleet.base import fleet_base, mode, role_maker
    assert (mode.Mode.TRANSPILER, mode.Mode.PSLIB, mode.Mode.COLLECTIVE) == (1, 2, 3)
    assert fleet_base.Mode is mode.Mode
    assert (role_maker.Role.WORKER, role_maker.Role.SERVER) == (1, 2)
    assert role_maker.PaddleCloudRoleMaker.__name__ == 'PaddleCloudRoleMaker'      # issue 16 built it


def test_framework_flags_versions_places():
    assert fluid.get_flags('FLAGS_check_nan_inf') == {'FLAGS_check_nan_inf': False}
    fluid.set_flags({'FLAGS_paddle_num_threads': 3})
    assert fluid.get_flags(['FLAGS_paddle_num_threads']) == {'FLAGS_paddle_num_threads': 3}
    fluid.set_flags({'FLAGS_paddle_num_threads': 1})
    with pytest.raises(ValueError, match='Flag FLAGS_xx cannot get its value through this function.'):
        fluid.get_flags('FLAGS_xx')
    with pytest.raises(ValueError, match='cannot set its value'):
        fluid.set_flags({'FLAGS_use_mkldnn': True})
    with pytest.raises(TypeError):
        fluid.get_flags(3)
    fluid.require_version('1.7')
    fluid.require_version('1.8.0', '1.8.9')
    with pytest.raises(Exception, match='VersionError: PaddlePaddle version 2.0 or higher is required, but 1.8.5'):
        fluid.require_version('2.0')
    with pytest.raises(ValueError, match="'min_version'"):
        fluid.require_version('a.b')
    with pytest.raises(RuntimeError, match='CUDA pinned'):
        fluid.cuda_pinned_places()
    assert fluid.Tensor is fluid.LoDTensor and not fluid.in_dygraph_mode()
    fluid.disable_dygraph()
    fluid.disable_imperative()


def test_contrib_memory_usage_and_op_freq_statistic():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 10])
        h = fluid.layers.fc(x, 20, act='relu')
        fluid.layers.fc(h, 5)
    low, high, unit = fluid.contrib.memory_usage(main, batch_size=8)
    # outputs: fc_0.tmp_0/1/2 (8x20 each), fc_1.tmp_0/1 (8x5 each), float32
    total = (3 * 8 * 20 + 2 * 8 * 5) * 4 / 1024
    assert unit == 'KB' and low == pytest.approx(total * 1.05) and high == pytest.approx(total * 1.1)
    with pytest.raises(ValueError, match='positive'):
        fluid.contrib.memory_usage(main, 0)
    uni, adj = fluid.contrib.op_freq_statistic(main)
    assert dict(uni) == {'mul': 2, 'elementwise_add': 2, 'relu': 1}
    # 1.8 keys the consumers by op type, so the last elementwise_add's inputs stand for both
    assert dict(adj) == {'mul->elementwise_add': 1, 'elementwise_add->relu': 1, 'relu->mul': 1}
    with pytest.raises(TypeError):
        fluid.contrib.op_freq_statistic('main')


def test_decoupled_weight_decay_subtracts_coeff_times_the_old_parameter():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 2])
        loss = fluid.layers.mean(fluid.layers.fc(x, 1, bias_attr=False))
        SGDW = fluid.contrib.extend_with_decoupled_weight_decay(fluid.optimizer.SGD)
        SGDW(weight_decay=0.1, learning_rate=0.5).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    w0 = np.array([[1.0], [-2.0]], 'float32')
    scope.var('fc_0.w_0').get_tensor().set(w0)
    xv = np.array([[1.0, 3.0], [3.0, 1.0]], 'float32')
    exe.run(main, feed={'x': xv}, fetch_list=[loss], scope=scope)
    grad = xv.mean(axis=0).reshape(2, 1)
    want = (w0 - 0.1 * w0) - 0.5 * grad
    np.testing.assert_allclose(np.array(scope.find_var('fc_0.w_0').get_tensor()), want, rtol=1e-6)
    with pytest.raises(TypeError, match='derived class of Optimizer'):
        fluid.contrib.extend_with_decoupled_weight_decay(object)
    with pytest.raises(TypeError, match='coeff should be float or Variable'):
        SGDW(weight_decay=1, learning_rate=0.1)


def test_ctr_metric_bundle_accumulates_as_paddle_1_8():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 1])
        y = fluid.data('y', [-1, 1])
        outs = fluid.contrib.ctr_metric_bundle(x, y)
    # the names and the values after two runs were recorded with Paddle 1.8.5
    assert [o.name for o in outs] == ['_generated_var_1', '_generated_var_0', '_generated_var_2',
                                      '_generated_var_3', '_generated_var_4', '_generated_var_5']
    a = np.array([[0.5], [-1.0], [2.0]], 'float32')
    b = np.array([[1.0], [0.0], [1.0]], 'float32')
    exe = fluid.Executor(fluid.CPUPlace())
    scope = Scope()
    exe.run(startup, scope=scope)
    for _ in range(2):
        got = exe.run(main, feed={'x': a, 'y': b}, fetch_list=list(outs), scope=scope)
    np.testing.assert_allclose([float(v[0]) for v in got], [4.5, 5.0, 3.0, 3.544395685195923, 4.0, 6.0],
                               rtol=1e-6)
    with pytest.raises(AssertionError, match='same shape'):          # 1.8.5: assert input.shape == label.shape
        with program_guard(Program(), Program()):
            fluid.contrib.ctr_metric_bundle(fluid.data('p', [-1, 1]), fluid.data('q', [-1, 2]))


def test_selected_rows_builders():
    from paddle_exec.framework.dtype import VarType
    from paddle_exec.framework.scope import SelectedRows
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = main.global_block().create_var(name='sr', dtype='float32', shape=[4, 2], persistable=True,
                                           type=VarType.SELECTED_ROWS)
        merged = fluid.layers.merge_selected_rows(x)
        dense = fluid.layers.get_tensor_from_selected_rows(merged)
        with pytest.raises(TypeError, match='must be SELECTED_ROWS'):
            fluid.layers.get_tensor_from_selected_rows(fluid.data('d', [2]))
    scope = Scope()
    scope.var('sr').set_value(SelectedRows(np.array([1, 3, 1]), np.array([[1, 2], [3, 4], [5, 6]], 'float32'), 4))
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[dense], scope=scope)
    assert sorted(got.tolist()) == [[3.0, 4.0], [6.0, 8.0]]


def test_core_globals_and_layers_utils():
    g = fluid.core.globals()
    assert g['FLAGS_benchmark'] is False and g.is_public('FLAGS_check_nan_inf') and 'FLAGS_xx' not in g
    g['FLAGS_benchmark'] = True
    assert fluid.get_flags('FLAGS_benchmark') == {'FLAGS_benchmark': True}
    g['FLAGS_benchmark'] = False
    assert fluid.core.get_cuda_device_count() == 0
    from paddle_exec.fluid.layers import utils
    nest = {'b': [1, (2, 3)], 'a': 4}
    assert utils.flatten(nest) == [4, 1, 2, 3]
    assert utils.pack_sequence_as(nest, [10, 11, 12, 13]) == {'a': 10, 'b': [11, (12, 13)]}
    assert utils.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert utils.convert_to_list(3, 2, 'stride') == [3, 3] and utils.convert_to_list((1, 2), 2, 'k') == [1, 2]
    with pytest.raises(ValueError, match="length must be 2"):
        utils.convert_to_list([1, 2, 3], 2, 'k')
    assert fluid.learning_rate_decay.exponential_decay is fluid.layers.exponential_decay
