"""paddle.static.nn.static_pylayer (ops `pylayer` / `pylayer_grad`): forward values and the user's gradients against
Paddle 2.6.2 (values recorded as literals from the same programs), a finite-difference check when backward_fn is
the true derivative, training through it, and Paddle's argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
from tests.kernels.gradcheck import check_grad, numeric_grad

XV = (np.arange(6).reshape(2, 3) * 0.1 - 0.2).astype('float32')
ZV = (np.arange(6).reshape(2, 3) * 0.3 + 0.5).astype('float32')


def _inputs(stop_gradient=False):
    x = paddle.static.data('x', [2, 3], 'float32')
    z = paddle.static.data('z', [2, 3], 'float32')
    x.stop_gradient = z.stop_gradient = stop_gradient
    return x, z


def _run(main, startup, fetch, feed=None):
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed or {'x': XV, 'z': ZV}, fetch_list=fetch)


def test_two_outputs_and_a_custom_backward_as_paddle_262():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, z = _inputs()
        y1, y2 = paddle.static.nn.static_pylayer(lambda a, b: (paddle.exp(a) * b, paddle.tanh(a)), [x, z],
                                                 lambda g1, g2: (g1 * 3.0 + g2, g2 - g1))
        loss = paddle.mean(y1 * 2.0) + paddle.sum(y2 * y2)
        gx, gz = paddle.static.gradients([loss], [x, z])
    ops = [op.type for op in main.global_block().ops]
    assert ops[0] == 'pylayer' and 'pylayer_grad' in ops
    assert [len(main.blocks[i].ops) for i in (1, 2)] == [5, 7]
    r1, r2, rl, rgx, rgz = _run(main, startup, [y1, y2, loss, gx, gz])
    # Paddle 2.6.2's values for this program
    np.testing.assert_allclose(r1, [[0.4093654, 0.72387, 1.1], [1.5472393, 2.0763848, 2.6997178]], rtol=1e-6)
    np.testing.assert_allclose(r2, [[-0.19737528, -0.09966799, 0.], [0.09966799, 0.19737528, 0.2913126]],
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(rl).reshape(()), 3.0348365, rtol=1e-6)
    np.testing.assert_allclose(rgx, [[0.6052494, 0.800664, 1.], [1.1993359, 1.3947506, 1.5826252]], rtol=1e-6)
    np.testing.assert_allclose(rgz, [[-0.7280839, -0.5326693, -0.33333334], [-0.13399737, 0.06141722, 0.24929187]],
                               rtol=1e-5)


def test_unused_output_and_a_none_gradient_as_paddle_262():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, z = _inputs()
        y1, _ = paddle.static.nn.static_pylayer(lambda a, b: (a * b, a + b), [x, z],
                                                lambda g1, g2: (g1 * 5.0 + g2, None))
        loss = paddle.sum(y1)
        gx, gz = paddle.static.gradients([loss], [x, z])
    rl, rgx, rgz = _run(main, startup, [loss, gx, gz])
    np.testing.assert_allclose(np.asarray(rl).reshape(()), 0.90000004, rtol=1e-6)
    np.testing.assert_array_equal(rgx, np.full((2, 3), 5.0, 'float32'))     # 2.6.2: all 5 (g2 is zeros)
    np.testing.assert_array_equal(rgz, np.zeros((2, 3), 'float32'))


def test_gradient_matches_finite_differences_when_backward_is_the_derivative():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, z = _inputs()
        # backward reads the forward inputs (allowed: they are the op's Input)
        y = paddle.static.nn.static_pylayer(lambda a, b: paddle.sin(a) * b, [x, z],
                                            lambda g: (g * paddle.cos(x) * z, g * paddle.sin(x)))
        w = paddle.static.data('w', [2, 3], 'float32')
        loss = paddle.sum(y * w)
        gx, gz = paddle.static.gradients([loss], [x, z])
    wv = np.random.RandomState(0).standard_normal((2, 3)).astype('float32')
    rgx, rgz = _run(main, startup, [gx, gz], {'x': XV, 'z': ZV, 'w': wv})

    def f(xa, za):
        return float(np.sum(np.sin(xa) * za * wv))
    check_grad(rgx, numeric_grad(f, [XV, ZV], 0), rtol=1e-3, atol=1e-4)
    check_grad(rgz, numeric_grad(f, [XV, ZV], 1), rtol=1e-3, atol=1e-4)


def test_training_through_a_pylayer():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data('x', [4, 3], 'float32')
        h = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1)))
        y = paddle.static.nn.static_pylayer(lambda a: a * a, [h], lambda g: g * 2.0 * h)
        loss = paddle.mean(y)
        paddle.optimizer.SGD(0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    feed = {'x': np.ones((4, 3), 'float32')}
    losses = [float(np.asarray(exe.run(main, feed=feed, fetch_list=[loss])[0]).reshape(())) for _ in range(3)]
    # h = 0.3 per entry: d mean(h^2) / dW = 2 h x / 3 = 0.2 per weight, db = 0.2: one step gives h = 0.3 - 0.08
    np.testing.assert_allclose(losses[:2], [0.09, (0.3 - 0.1 * 0.2 * 4) ** 2], rtol=1e-5)
    assert losses[2] < losses[1]


def test_no_backward_fn_as_paddle_262():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, _ = _inputs(stop_gradient=True)
        y = paddle.static.nn.static_pylayer(lambda a: paddle.nn.functional.relu(a) * 2.0, [x])
        x2 = paddle.static.data('x2', [2, 3], 'float32')
        x2.stop_gradient = False
        with pytest.raises(ValueError, match=r'``stop_gradient`` attr of all inputs to ``forward_fn`` are expected '
                                             r'to be True, when ``backward_fn == None``, but x2.stop_gradient got '
                                             r'False'):
            paddle.static.nn.static_pylayer(lambda a: a, [x2])
        assert paddle.static.nn.static_pylayer(lambda a: None, [x]) is None
    out, = _run(main, startup, [y], {'x': XV})
    np.testing.assert_allclose(out, [[0., 0., 0.], [0.2, 0.4, 0.6]], rtol=1e-6)


def test_argument_checks():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x, z = _inputs()
        with pytest.raises(AssertionError, match='needs to keep the number of inputs to ``forward_fn`` the same'):
            paddle.static.nn.static_pylayer(lambda a, b: a + b, [x, z], lambda g: g)


def test_runs_an_inference_model_paddle_262_saved_with_a_pylayer(tmp_path):
    """pylayer_model.pdmodel was written by 2.6.2 (tests/golden/api/record_pylayer.py); it has no persistables,
    so there is no .pdiparams file, as Paddle writes it."""
    import os
    import shutil

    from tests.golden import api as golden_api
    here = os.path.dirname(golden_api.__file__)
    shutil.copy(os.path.join(here, 'pylayer_model.pdmodel'), tmp_path / 'm.pdmodel')
    recorded = np.load(os.path.join(here, 'pylayer_model.npz'))
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / 'm'), exe)
        assert [op.type for op in program.global_block().ops] == ['pylayer', 'scale']
        out, = exe.run(program, feed={feeds[0]: recorded['x']}, fetch_list=fetches)
    np.testing.assert_allclose(out, recorded['y'], rtol=1e-6)
    assert 'blocks = [block[1]]' in str(program.global_block().ops[0])


def test_forward_reads_parameters_and_closures_which_get_no_gradient():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x, z = _inputs()
        w_attr = paddle.ParamAttr(name='w', initializer=paddle.nn.initializer.Constant(0.5))
        y = paddle.static.nn.static_pylayer(lambda a: paddle.static.nn.fc(a * z, 2, weight_attr=w_attr), [x],
                                            lambda g: paddle.ones_like(x) * paddle.sum(g))
        pylayer = main.global_block().ops[0]
        assert pylayer.input('Input') == ['x', 'z', 'w', 'fc_0.b_0']          # the reads after the inputs
        loss = paddle.sum(y)
        params_grads = paddle.static.append_backward(loss)
        gx, = paddle.static.gradients([loss], [x])
    assert params_grads == []                  # the parameters read inside get no gradient (as in Paddle)
    grad_op = [op for op in main.global_block().ops if op.type == 'pylayer_grad'][0]
    assert grad_op.output('Input@GRAD')[1:] == ['@EMPTY@'] * 3
    ry, rgx = _run(main, startup, [y, gx])
    np.testing.assert_allclose(ry, np.repeat((XV * ZV).sum(1, keepdims=True) * 0.5, 2, axis=1), rtol=1e-6)
    np.testing.assert_array_equal(rgx, np.full((2, 3), 4.0, 'float32'))     # sum of the ones of y's gradient
