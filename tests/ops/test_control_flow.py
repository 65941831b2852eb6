"""The control-flow ops (ops/control_flow.py) on small hand-built programs: conditional_block runs its sub-block
only when the condition holds and otherwise leaves Out as it was; conditional_block_grad against finite
differences; select_input / select_output; while against a numpy loop; tensor-array ops; errors."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.backward import append_backward
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, program_guard
from paddle_exec.framework.dtype import VarType
from paddle_exec.ops.control_flow import as_sub_block_attr
from tests.kernels.gradcheck import check_grad, numeric_grad

L = fluid.layers
F32 = np.float32


def _run(prog, feed, fetch):
    return Executor(CPUPlace()).run(prog, feed=feed, fetch_list=fetch)


def _cond_program(is_scalar=True, cond_shape=(1,)):
    """out = x * 3 + 1 computed inside a conditional_block on `c`; `out` starts as a copy of `prev`."""
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [2], 'float32')
        prev = fluid.data('prev', [2], 'float32')
        c = fluid.data('c', list(cond_shape), 'bool')
        out = L.assign(prev)
        block = prog._create_block()
        tmp = L.scale(x, 3.0, 1.0)
        L.assign(tmp, out)
        prog._rollback()
        scope = prog.global_block().create_var(type=VarType.STEP_SCOPES)
        prog.global_block().append_op('conditional_block', {'Cond': [c], 'Input': [x]},
                                      {'Out': [out], 'Scope': [scope]},
                                      {'sub_block': as_sub_block_attr(block), 'is_scalar_condition': is_scalar})
        doubled = out * 2.0
    return prog, out, doubled


def test_conditional_block_runs_sub_block_when_true():
    prog, out, doubled = _cond_program()
    x = np.array([1.0, -2.0], F32)
    res = _run(prog, {'x': x, 'prev': np.zeros(2, F32), 'c': np.array([True])}, [out, doubled])
    np.testing.assert_allclose(res[0], x * 3 + 1)
    np.testing.assert_allclose(res[1], (x * 3 + 1) * 2)


def test_conditional_block_false_keeps_out():
    prog, out, doubled = _cond_program()
    prev = np.array([7.0, 8.0], F32)
    res = _run(prog, {'x': np.ones(2, F32), 'prev': prev, 'c': np.array([False])}, [out, doubled])
    np.testing.assert_allclose(res[0], prev)
    np.testing.assert_allclose(res[1], prev * 2)


def test_conditional_block_non_scalar_condition_runs_when_inputs_non_empty():
    prog, out, _ = _cond_program(is_scalar=False)
    x = np.array([1.0, 2.0], F32)
    # with is_scalar_condition False, Paddle runs the block when every Input is non-empty, whatever Cond holds
    res = _run(prog, {'x': x, 'prev': np.zeros(2, F32), 'c': np.array([False])}, [out])
    np.testing.assert_allclose(res[0], x * 3 + 1)


def test_conditional_block_condition_must_be_one_bool():
    prog, out, _ = _cond_program(cond_shape=(2,))
    with pytest.raises(ValueError, match='numel should be 1'):
        _run(prog, {'x': np.ones(2, F32), 'prev': np.zeros(2, F32), 'c': np.array([True, False])}, [out])


def test_conditional_block_sub_block_reading_unlisted_variable_is_an_error():
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [2], 'float32')
        c = fluid.data('c', [1], 'bool')
        out = prog.global_block().create_var(name='out', shape=[2], dtype='float32')
        block = prog._create_block()
        L.assign(x, out)
        prog._rollback()
        prog.global_block().append_op('conditional_block', {'Cond': [c], 'Input': []}, {'Out': [out]},
                                      {'sub_block': as_sub_block_attr(block), 'is_scalar_condition': True})
    with pytest.raises(ValueError, match="'x' read inside its sub-block"):
        _run(prog, {'x': np.ones(2, F32), 'c': np.array([True])}, [out])


@pytest.mark.parametrize('pred', [True, False])
def test_conditional_block_grad_matches_finite_differences(pred):
    """loss = sum(w * cond(pred, x*x*y, y-x)) through two conditional_blocks; gradients of x and y."""
    rng = np.random.RandomState(3)
    xv, yv = rng.rand(3).astype(F32) + 0.5, rng.rand(3).astype(F32)
    w = rng.standard_normal(3).astype(F32)
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [3], 'float32')
        y = fluid.data('y', [3], 'float32')
        p = fluid.data('p', [1], 'bool')
        wv = fluid.data('w', [3], 'float32')
        x.stop_gradient = y.stop_gradient = False
        r = L.cond(p, lambda: x * x * y, lambda: y - x)
        loss = L.reduce_sum(r * wv)
        append_backward(loss)
    assert {op.type for op in prog.global_block().ops} >= {'conditional_block', 'conditional_block_grad',
                                                           'select_input', 'select_output'}
    gx, gy = _run(prog, {'x': xv, 'y': yv, 'p': np.array([pred]), 'w': w}, ['x@GRAD', 'y@GRAD'])

    def f(a, b):
        return float(np.sum(w * (a * a * b if pred else b - a)))
    check_grad(gx, numeric_grad(f, [xv, yv], 0), rtol=1e-3, atol=1e-3, name='x@GRAD')
    check_grad(gy, numeric_grad(f, [xv, yv], 1), rtol=1e-3, atol=1e-3, name='y@GRAD')


def test_conditional_block_grad_of_untaken_branch_parameter_is_zero():
    prog, start = Program(), Program()
    with program_guard(prog, start):
        x = fluid.data('x', [None, 2], 'float32')
        p = fluid.data('p', [1], 'bool')
        r = L.cond(p, lambda: L.fc(x, 1, param_attr=fluid.ParamAttr(name='wt'), bias_attr=False), lambda: x * 0.5)
        append_backward(L.mean(r))
    exe = Executor(CPUPlace())
    exe.run(start)
    g, = exe.run(prog, feed={'x': np.ones((2, 2), F32), 'p': np.array([False])}, fetch_list=['wt@GRAD'])
    np.testing.assert_array_equal(g, np.zeros((2, 1), F32))


def test_select_input_and_select_output():
    prog = Program()
    with program_guard(prog, Program()):
        a = fluid.data('a', [2], 'float32')
        b = fluid.data('b', [2], 'float32')
        m = fluid.data('m', [1], 'int32')
        out = L.select_input([a, b], m)
        o0 = prog.global_block().create_var(name='o0', dtype='float32', shape=[2])
        o1 = prog.global_block().create_var(name='o1', dtype='float32', shape=[2])
        L.select_output(a, [o0, o1], m)
    av, bv = np.array([1, 2], F32), np.array([3, 4], F32)
    res = _run(prog, {'a': av, 'b': bv, 'm': np.array([1], 'int32')}, [out, o1])
    np.testing.assert_array_equal(res[0], bv)
    np.testing.assert_array_equal(res[1], av)
    with pytest.raises(ValueError, match="'Mask' must be less than the size"):
        _run(prog, {'a': av, 'b': bv, 'm': np.array([2], 'int32')}, [out])


def test_while_matches_numpy_loop():
    prog = Program()
    with program_guard(prog, Program()):
        n = fluid.data('n', [1], 'int64')
        i = L.fill_constant([1], 'int64', 0)
        s = L.fill_constant([1], 'int64', 0)
        c = L.less_than(i, n)
        loop = L.While(c)
        with loop.block():
            L.assign(s + i * i, s)
            L.increment(i, 1, in_place=True)
            L.less_than(i, n, cond=c)
    assert [op.type for op in prog.global_block().ops][-1] == 'while'
    for nv in (0, 1, 6):
        got = _run(prog, {'n': np.array([nv], 'int64')}, [s, i])
        assert int(got[0][0]) == sum(k * k for k in range(nv))
        assert int(got[1][0]) == nv


def test_tensor_array_ops():
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [2], 'float32')
        arr = L.create_array('float32')
        i0, i2 = L.fill_constant([1], 'int64', 0), L.fill_constant([1], 'int64', 2)
        L.array_write(x, i0, arr)
        L.array_write(x * 2.0, i2, arr)            # the array grows to 3 entries
        r2, n = L.array_read(arr, i2), L.array_length(arr)
        r0 = L.array_read(arr, i0)
    xv = np.array([1.5, -1], F32)
    got = _run(prog, {'x': xv}, [r0, r2, n])
    np.testing.assert_array_equal(got[0], xv)
    np.testing.assert_array_equal(got[1], xv * 2)
    assert got[2].dtype == np.int64 and got[2].tolist() == [3]


def test_gradient_through_while():
    """Once refused with NotImplementedError; while_grad (ops/loops.py) now differentiates the loop."""
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [1], 'float32')
        x.stop_gradient = False
        i = L.fill_constant([1], 'int64', 0)
        three = L.fill_constant([1], 'int64', 3)
        _, acc = L.while_loop(lambda i, a: L.less_than(i, three),
                              lambda i, a: [L.increment(i, 1, in_place=False), a * 2.0], [i, x])
        append_backward(L.mean(acc))
    got, gx = _run(prog, {'x': np.array([1.5], F32)}, [acc, 'x@GRAD'])
    np.testing.assert_allclose(got, [12.0])
    np.testing.assert_allclose(gx, [8.0])


def test_split_and_merge_lod_tensor_with_gradient():
    rng = np.random.RandomState(5)
    xv = rng.standard_normal((4, 3)).astype(F32)
    mv = np.array([[True], [False], [False], [True]])
    w = rng.standard_normal((4, 3)).astype(F32)
    prog = Program()
    with program_guard(prog, Program()):
        x = fluid.data('x', [4, 3], 'float32')
        x.stop_gradient = False
        m = fluid.data('m', [4, 1], 'bool')
        wv = fluid.data('w', [4, 3], 'float32')
        t, f = L.split_lod_tensor(x, m)
        merged = L.merge_lod_tensor(L.exp(t), f * 3.0, x, m)
        append_backward(L.reduce_sum(merged * wv))
    got_t, got_f, got_m, gx = _run(prog, {'x': xv, 'm': mv, 'w': w}, [t, f, merged, 'x@GRAD'])
    np.testing.assert_array_equal(got_t, xv[[0, 3]])
    np.testing.assert_array_equal(got_f, xv[[1, 2]])
    want = np.where(mv, np.exp(xv), xv * 3)
    np.testing.assert_allclose(got_m, want, rtol=1e-6)

    def f_loss(a):
        return float(np.sum(w * np.where(mv, np.exp(a), a * 3)))
    check_grad(gx, numeric_grad(f_loss, [xv], 0), rtol=1e-3, atol=1e-3, name='x@GRAD')
