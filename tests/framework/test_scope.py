"""Scopes, scope variables, tensors and places, with Paddle 1.8.5's observable behaviour (copies, uninitialised
tensors, lookup through parent scopes)."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import VarType, unique_name
from paddle_exec.framework.scope import SelectedRows


def test_var_creates_and_find_var_looks_through_parents():
    root = fluid.Scope()
    a = root.var('a')
    assert root.var('a') is a and root.find_var('a') is a and root.find_var('nope') is None
    kid = root.new_scope()
    assert kid.parent is root and kid.find_var('a') is a and kid.find_local_var('a') is None
    b = kid.var('b')
    assert root.find_var('b') is None and kid.find_var('b') is b
    grandkid = kid.new_scope()
    assert grandkid.find_var('a') is a and grandkid.find_var('b') is b
    assert root.local_var_names() == ['a'] and kid.local_var_names() == ['b']
    root.drop_kids()
    assert root.kids == []
    root.erase(['a'])
    assert root.find_var('a') is None


def test_tensor_set_and_read_copy_like_paddle():
    scope = fluid.Scope()
    t = scope.var('w').get_tensor()
    assert scope.var('w').get_tensor() is t
    src = np.arange(6, dtype='float32').reshape(2, 3)
    t.set(src, fluid.CPUPlace())
    src[0, 0] = 100.0                               # set copied
    assert t.shape() == [2, 3] and t._dtype() == VarType.FP32
    out = np.array(t)
    out[0, 1] = 100.0                               # np.array copies
    view = np.asarray(t)
    view[0, 2] = 100.0                              # so does np.asarray
    np.testing.assert_array_equal(np.array(t), np.arange(6, dtype='float32').reshape(2, 3))
    t.set([[1, 2], [3, 4]], fluid.CPUPlace())
    assert np.array(t).dtype == np.int64 and t.shape() == [2, 2]


def test_uninitialised_tensor_reads_empty():
    t = fluid.Scope().var('u').get_tensor()
    assert not t._is_initialized() and t.shape() == [0]
    assert np.array(t).shape == (0,)


def test_lod_of_a_tensor():
    t = fluid.Scope().var('seq').get_tensor()
    t.set(np.zeros((5, 1), 'float32'))
    t.set_recursive_sequence_lengths([[2, 3]])
    assert t.lod() == [[0, 2, 5]] and t.recursive_sequence_lengths() == [[2, 3]]
    t.set_lod([[0, 1, 5]])
    assert t.recursive_sequence_lengths() == [[1, 4]]


def test_global_scope_and_scope_guard():
    outer = fluid.global_scope()
    assert static.global_scope() is outer
    mine = static.Scope()
    with pytest.raises(KeyError):
        with fluid.scope_guard(mine):
            assert fluid.global_scope() is mine
            raise KeyError('leaving by an exception restores the scope')
    assert fluid.global_scope() is outer


def test_executor_reads_and_writes_the_scope_it_is_given():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 2], 'float32')
        y = fluid.layers.fc(x, 1, param_attr=fluid.initializer.Constant(2.0), bias_attr=False)
    exe = fluid.Executor(fluid.CPUPlace())
    mine = fluid.Scope()
    with fluid.scope_guard(mine):
        exe.run(startup)
    assert mine.find_var('fc_0.w_0') is not None
    kid = mine.new_scope()           # a kid scope sees its parent's parameters
    out, = exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[y], scope=kid)
    np.testing.assert_allclose(out, [[4.0]])


def test_places():
    assert fluid.CPUPlace() == fluid.CPUPlace() and static.CPUPlace() == fluid.CPUPlace()
    places = fluid.cpu_places(3)
    assert len(places) == 3 and all(p == fluid.CPUPlace() for p in places)
    with pytest.raises(RuntimeError, match='CPU only'):
        fluid.CUDAPlace(0)


def test_cpu_places_reads_cpu_num(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '4')
    assert len(static.cpu_places()) == 4
    monkeypatch.setenv('CPU_NUM', 'two')
    with pytest.raises(ValueError, match='CPU_NUM'):
        fluid.cpu_places()


def test_selected_rows_get_tensor_set_writes_values():
    scope = fluid.Scope()
    rows = scope.var('g').get_selected_rows()
    rows.set_height(10)
    rows.set_rows([1, 3])
    rows.get_tensor().set(np.ones((2, 4), np.float32), fluid.CPUPlace())
    dense = np.array(scope.find_var('g').get_tensor())
    assert dense.shape == (10, 4)
    np.testing.assert_array_equal(dense[[1, 3]], np.ones((2, 4), np.float32))
    assert dense.sum() == 8


def test_selected_rows_rows_and_height_read_as_values_and_call_as_paddles_methods():
    sr = SelectedRows([3, 1, 3], np.ones((3, 2), np.float32), height=5)
    assert sr.rows() == [3, 1, 3] and isinstance(sr.rows(), list)      # Paddle's pybind: rows() -> list
    assert sr.height() == 5 and sr.height == 5 and sr.height + 1 == 6
    assert sr.rows.dtype == np.int64 and sr.rows.tolist() == [3, 1, 3]
    sr.set_rows([0, 4])
    sr.set_height(7)
    assert sr.rows() == [0, 4] and sr.height() == 7
    np.testing.assert_array_equal(SelectedRows([0, 0], np.ones((2, 1), np.float32), 2).to_dense(), [[2.0], [0.0]])
