"""The control-flow builders (layers/control_flow.py) through the public APIs: the ops and sub-blocks each builder
makes, and the numbers they compute, side by side with Paddle. Values marked 'Paddle 1.8.5' were recorded with
paddlepaddle 1.8.5 running the same script (`import paddle.fluid as fluid`)."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid

L = fluid.layers
F32 = np.float32


def _ops(block):
    return [op.type for op in block.ops]


def _const(name, value):
    return fluid.ParamAttr(name=name, initializer=fluid.initializer.Constant(value))


def _cond_net():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [None, 3], 'float32')
        p = fluid.data('p', [1], 'bool')
        x.stop_gradient = False
        out = L.cond(p, lambda: L.fc(x, 2, name='t', param_attr=_const('t.w_0', 0.3),
                                     bias_attr=_const('t.b_0', 0.1)),
                     lambda: L.reduce_sum(x * x, dim=1, keep_dim=True) * 0.5)
        fluid.backward.append_backward(L.mean(out))
    return main, start, out


def test_cond_builds_paddles_blocks_and_ops():
    main, _, _ = _cond_net()
    # Paddle 1.8.5: the same program's blocks (parent_idx, forward_block_idx) and op types
    assert [(b.parent_idx, b.forward_block_idx) for b in main.blocks] == [(-1, -1), (0, -1), (0, -1), (0, 2), (0, 1)]
    assert _ops(main.block(0)) == [
        'conditional_block', 'logical_not', 'conditional_block', 'cast', 'select_input', 'mean', 'fill_constant',
        'mean_grad', 'select_output', 'conditional_block_grad', 'conditional_block_grad', 'sum']
    assert _ops(main.block(1)) == ['mul', 'elementwise_add', 'assign']
    assert _ops(main.block(2)) == ['elementwise_mul', 'reduce_sum', 'scale', 'assign']
    assert _ops(main.block(3)) == ['assign', 'scale', 'reduce_sum_grad', 'elementwise_mul_grad', 'sum']
    assert _ops(main.block(4)) == ['assign', 'elementwise_add_grad', 'mul_grad']
    true_op, false_op = main.block(0).ops[0], main.block(0).ops[2]
    assert true_op.input('Input') == ['x', 't.w_0', 't.b_0'] and false_op.input('Input') == ['x']
    assert true_op.attr('sub_block').idx == 1 and true_op.attr('is_scalar_condition') is True
    assert 'sub_block = block[1]' in str(true_op)      # as Paddle 2.x prints a block attribute
    grad_ops = [op for op in main.block(0).ops if op.type == 'conditional_block_grad']
    assert grad_ops[0].output('Input@GRAD') == ['x@GRAD@RENAME@block0@0']
    assert grad_ops[1].output('Input@GRAD') == ['x@GRAD@RENAME@block0@1', 't.w_0@GRAD', 't.b_0@GRAD']
    assert main.block(3).ops[3].output('X@GRAD') == ['x@GRAD@RENAME@block2@0']


def test_cond_forward_and_gradients_match_paddle():
    main, start, out = _cond_net()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    x = np.arange(6, dtype=F32).reshape(2, 3) / 5
    fetch = [out, 'x@GRAD', 't.w_0@GRAD']
    o, gx, gw = exe.run(main, feed={'x': x, 'p': np.array([True])}, fetch_list=fetch)
    # Paddle 1.8.5
    np.testing.assert_allclose(o, [[0.28, 0.28], [0.82, 0.82]], rtol=1e-6)
    np.testing.assert_allclose(gx, np.full((2, 3), 0.15), rtol=1e-6)
    np.testing.assert_allclose(gw, [[0.15, 0.15], [0.25, 0.25], [0.35, 0.35]], rtol=1e-6)
    o, gx, gw = exe.run(main, feed={'x': x, 'p': np.array([False])}, fetch_list=fetch)
    np.testing.assert_allclose(o, [[0.1], [1.0]], rtol=1e-6)
    np.testing.assert_allclose(gx, x / 2, rtol=1e-6)
    np.testing.assert_array_equal(gw, np.zeros((3, 2), F32))


def test_cond_clone_for_test_runs_the_forward_blocks():
    main, start, out = _cond_net()
    test = main.clone(for_test=True)
    assert 'conditional_block_grad' not in _ops(test.block(0))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    x = np.ones((1, 3), F32)
    o, = exe.run(test, feed={'x': x, 'p': np.array([False])}, fetch_list=[out.name])
    np.testing.assert_allclose(o, [[1.5]])


def test_cond_errors_and_none_results():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        p = fluid.data('p', [1], 'bool')
        x = fluid.data('x', [1], 'float32')
        with pytest.raises(TypeError, match="The data type of 'pred' in fluid.layers.cond"):
            L.cond(x, lambda: x)
        with pytest.raises(ValueError, match='true_fn returns non-None while false_fn returns None'):
            L.cond(p, lambda: x, lambda: None)
        assert L.cond(p, lambda: None, lambda: None) is None


def test_while_sum_of_squares_and_tensor_array_match_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        n = fluid.data('n', [1], 'int64')
        i = L.fill_constant([1], 'int64', 0)
        s = L.fill_constant([1], 'int64', 0)
        arr = L.create_array('int64')
        c = L.less_than(i, n)
        w = L.While(c)
        with w.block():
            sq = i * i
            L.assign(s + sq, s)
            L.array_write(sq, i, arr)
            i = L.increment(i, 1, in_place=True)
            L.less_than(i, n, cond=c)
        length = L.array_length(arr)
        third = L.array_read(arr, L.fill_constant([1], 'int64', 2))
    while_op = main.block(0).ops[-4]
    assert while_op.type == 'while' and _ops(main.block(1)) == [
        'elementwise_mul', 'elementwise_add', 'assign', 'write_to_array', 'increment', 'less_than']
    assert set(while_op.output('Out')) == {arr.name, i.name, s.name, c.name}
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    # Paddle 1.8.5: n=5 -> [30], [5], [5], [4];  n=3 -> [5], [3], [3], [4];  n=0 -> [0], [0], [0]
    for nv, want in ((5, [30, 5, 5, 4]), (3, [5, 3, 3, 4])):
        got = exe.run(main, feed={'n': np.array([nv], 'int64')}, fetch_list=[s, i, length, third])
        assert [int(g[0]) for g in got] == want
    got = exe.run(main, feed={'n': np.array([0], 'int64')}, fetch_list=[s, i, length])
    assert [int(g[0]) for g in got] == [0, 0, 0]


def test_while_loop_matches_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [2], 'float32')
        ten = L.fill_constant([1], 'int64', 4)
        i, acc = paddle.static.nn.while_loop(
            lambda i, acc: L.less_than(i, ten), lambda i, acc: [L.increment(i, 1, in_place=False), acc * 2.0 + 1.0],
            [L.fill_constant([1], 'int64', 0), x])
    # Paddle 1.8.5 makes the same sub-block
    assert _ops(main.block(1)) == ['increment', 'scale', 'scale', 'less_than', 'assign', 'assign', 'assign']
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(main, feed={'x': np.array([1, -1], F32)}, fetch_list=[i, acc])
    assert got[0].tolist() == [4] and got[1].tolist() == [31.0, -1.0]      # Paddle 1.8.5
    with pytest.raises(ValueError, match='should not be empty'):
        L.while_loop(lambda: None, lambda: None, [])


def test_switch_piecewise_learning_rate_matches_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        step = L.create_global_var([1], 0.0, 'float32', persistable=True, name='step')
        L.increment(step, 1.0)
        lr = L.create_global_var([1], 0.0, 'float32', persistable=True, name='lr')
        with L.Switch() as sw:
            with sw.case(L.less_than(step, L.fill_constant([1], 'float32', 3.0))):
                L.assign(L.fill_constant([1], 'float32', 1.0), lr)
            with sw.case(L.less_than(step, L.fill_constant([1], 'float32', 5.0))):
                L.assign(L.fill_constant([1], 'float32', 0.5), lr)
            with sw.default():
                L.assign(L.fill_constant([1], 'float32', 0.1), lr)
        doubled = lr * 2.0
    assert _ops(main.block(0)) == [       # Paddle 1.8.5
        'increment', 'fill_constant', 'less_than', 'logical_not', 'conditional_block', 'fill_constant', 'less_than',
        'logical_not', 'logical_and', 'logical_and', 'conditional_block', 'conditional_block', 'scale']
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    got = [exe.run(main, fetch_list=[lr, doubled]) for _ in range(7)]
    np.testing.assert_allclose([g[0][0] for g in got], [1.0, 1.0, 0.5, 0.5, 0.1, 0.1, 0.1])   # Paddle 1.8.5
    np.testing.assert_allclose([g[1][0] for g in got], [2.0, 2.0, 1.0, 1.0, 0.2, 0.2, 0.2])
    np.testing.assert_allclose(np.asarray(fluid.global_scope().find_var('lr').get_tensor()), [0.1])
    with fluid.program_guard(main, start), pytest.raises(ValueError, match='case should be called inside with'):
        L.Switch().case(L.less_than(step, step))


def test_case_and_switch_case_match_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [1], 'float32')
        k = fluid.data('k', [1], 'int32')
        one = L.fill_constant([1], 'float32', 1.0)
        r1 = L.case([(L.less_than(x, one), lambda: x * 10.0), (L.less_than(x, one * 2.0), lambda: x * 100.0)],
                    default=lambda: x - 1.0)
        r2 = L.switch_case(k, {1: lambda: x + 1.0, 3: lambda: x + 3.0}, default=lambda: x * 0.0)
        r3 = paddle.static.nn.switch_case(k, [lambda: x + 10.0, lambda: x + 11.0])
    assert len(main.blocks) == 11       # Paddle 1.8.5: nested conds, blocks 3/4 and 7/8 children of 2 and 6
    assert [b.parent_idx for b in main.blocks] == [-1, 0, 0, 2, 2, 0, 0, 6, 6, 0, 0]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    # Paddle 1.8.5
    for xv, kv, want in ((0.5, 1, [5.0, 1.5, 11.5]), (1.5, 3, [150.0, 4.5, 12.5]), (3.0, 0, [2.0, 0.0, 13.0]),
                         (0.5, 7, [5.0, 0.0, 11.5])):
        got = exe.run(main, feed={'x': np.array([xv], F32), 'k': np.array([kv], 'int32')}, fetch_list=[r1, r2, r3])
        np.testing.assert_allclose([g[0] for g in got], want, rtol=1e-6)
    with fluid.program_guard(main, start), pytest.raises(ValueError, match="must be unique"):
        L.switch_case(k, [(1, lambda: x), (1, lambda: x)])


def test_gradients_through_nested_case_match_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [3], 'float32')
        x.stop_gradient = False
        a = fluid.data('a', [1], 'float32')
        one = L.fill_constant([1], 'float32', 1.0)
        r = L.case([(L.less_than(a, one), lambda: L.exp(x) * x), (L.less_than(a, one * 2.0), lambda: L.sin(x) * 3.0)],
                   default=lambda: x * x * x)
        loss = L.reduce_sum(r * x)
        g = fluid.backward.gradients(loss, [x])
    assert [len(b.ops) for b in main.blocks] == [19, 3, 6, 3, 3, 5, 4, 3, 4]      # Paddle 1.8.5
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    xv = np.array([0.1, -0.5, 0.7], F32)
    # Paddle 1.8.5
    for av, want_loss, want_grad in ((0.5, 1.14942, [0.23209, -0.4549, 3.80599]),
                                     (1.5, 2.10195, [0.598, -2.75465, 3.53882]),
                                     (2.5, 0.3027, [0.004, -0.5, 1.372])):
        lv, gv = exe.run(main, feed={'x': xv, 'a': np.array([av], F32)}, fetch_list=[loss] + g)
        np.testing.assert_allclose(lv, [want_loss], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(gv, want_grad, rtol=1e-4, atol=1e-5)


def _trained_net():
    rng = np.random.RandomState(0)
    w0 = rng.uniform(-.5, .5, (4, 5)).astype(F32)
    wa = rng.uniform(-.5, .5, (5, 1)).astype(F32)
    wb = rng.uniform(-.5, .5, (5, 1)).astype(F32)

    def attr(name, v):
        return fluid.ParamAttr(name=name, initializer=fluid.initializer.NumpyArrayInitializer(v))
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [None, 4], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        flag = fluid.data('flag', [1], 'bool')
        h = L.fc(x, 5, act='tanh', param_attr=attr('w0', w0), bias_attr=False)
        pred = L.cond(flag, lambda: L.fc(h, 1, param_attr=attr('wa', wa), bias_attr=False),
                      lambda: L.fc(h * h, 1, param_attr=attr('wb', wb), bias_attr=False) * 0.5)
        loss = L.mean(L.square(pred - y))
        step = L.create_global_var([1], 0.0, 'float32', persistable=True, name='step')
        L.increment(step, 1.0)
        lr = L.create_global_var([1], 0.0, 'float32', persistable=True, name='lr')
        with L.Switch() as sw:
            with sw.case(L.less_than(step, L.fill_constant([1], 'float32', 3.0))):
                L.assign(L.fill_constant([1], 'float32', 0.5), lr)
            with sw.default():
                L.assign(L.fill_constant([1], 'float32', 0.1), lr)
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    return main, start, loss, lr, rng.rand(6, 8, 4).astype(F32), rng.rand(6, 8, 1).astype(F32)


def test_cond_branch_in_trained_net_with_switch_lr_matches_paddle():
    main, start, loss, lr, xs, ys = _trained_net()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    got = [exe.run(main, feed={'x': xs[k], 'y': ys[k], 'flag': np.array([k % 3 != 1])}, fetch_list=[loss, lr])
           for k in range(6)]
    # Paddle 1.8.5
    np.testing.assert_allclose([g[0][0] for g in got], [0.32696986, 0.099399, 0.068678975, 0.0923772, 0.28837484,
                                                        0.12654504], rtol=2e-6)
    np.testing.assert_allclose([g[1][0] for g in got], [0.5, 0.5, 0.1, 0.1, 0.1, 0.1])
    sums = [np.asarray(fluid.global_scope().find_var(n).get_tensor()).sum() for n in ('w0', 'wa', 'wb')]
    np.testing.assert_allclose(sums, [2.1191652, 0.82976484, 0.27300805], rtol=1e-6)


def test_cond_in_data_parallel_training_matches_paddle(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, start, loss, _, xs, ys = _trained_net()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    got = [exe.run(compiled, feed={'x': xs[k], 'y': ys[k], 'flag': np.array([k % 3 != 1] * 2)},
                   fetch_list=[loss.name])[0] for k in range(3)]
    # Paddle 1.8.5 ParallelExecutor, 2 CPU places
    np.testing.assert_allclose(got, [[0.3068771, 0.3470626], [0.07841947, 0.12037852], [0.04772466, 0.08963329]],
                               rtol=2e-6)


def test_ifelse_matches_paddle():
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data('x', [None, 2], 'float32')
        x.stop_gradient = False
        lim = L.fill_constant([1], 'float32', 0.5)
        c = L.less_than(L.reduce_mean(x, dim=1, keep_dim=True), lim)
        ie = L.IfElse(c)
        with ie.true_block():
            ie.output(L.fc(ie.input(x), 3, param_attr=_const('wt', 0.2), bias_attr=False))
        with ie.false_block():
            xf = ie.input(x)
            ie.output(L.scale(L.concat([xf, xf * xf], axis=1)[:, :3], 2.0))
        out = ie()[0]
        fluid.backward.append_backward(L.mean(out * out))
    assert _ops(main.block(0)) == [       # Paddle 1.8.5
        'fill_constant', 'reduce_mean', 'less_than', 'split_lod_tensor', 'conditional_block', 'conditional_block',
        'merge_lod_tensor', 'elementwise_mul', 'mean', 'fill_constant', 'mean_grad', 'elementwise_mul_grad', 'sum',
        'split_lod_tensor', 'conditional_block_grad', 'conditional_block_grad', 'merge_lod_tensor']
    assert _ops(main.block(3)) == ['assign', 'scale', 'slice_grad', 'concat_grad', 'elementwise_mul_grad', 'sum']
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    fetch = [out, 'x@GRAD', 'wt@GRAD']
    o, gx, gw = exe.run(main, feed={'x': np.array([[0.1, 0.2], [0.9, 0.8], [0.3, 0.1]], F32)}, fetch_list=fetch)
    # Paddle 1.8.5
    np.testing.assert_allclose(o, [[0.06] * 3, [1.8, 1.6, 1.62], [0.08] * 3], rtol=1e-6)
    np.testing.assert_allclose(gx, [[0.008, 0.008], [2.096, 0.71111], [0.01067, 0.01067]], atol=1e-5)
    np.testing.assert_allclose(gw, [[0.00667] * 3, [0.00444] * 3], atol=1e-5)
    o, gx, gw = exe.run(main, feed={'x': np.array([[1.0, 2.0]], F32)}, fetch_list=fetch)   # every row false
    np.testing.assert_allclose(o, [[2.0, 4.0, 2.0]])
    np.testing.assert_allclose(gx, [[8.0, 5.33333]], atol=1e-5)
    np.testing.assert_array_equal(gw, np.zeros((2, 3), F32))
