"""Gradient clipping (fluid.clip 1.x and paddle.nn.ClipGradBy* 2.x) and weight-decay regularizers: training with
SGD against numpy, the op sequences Paddle builds, dense and sparse gradients."""
import warnings

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.framework import SelectedRows, registry, unique_name
from paddle_exec.framework.dtype import VarType
from paddle_exec.framework.operator import OpRole
from tests.api.test_optimizers import (
    STEPS,
    assert_same_training,
    build,
    feeds,
    init_value,
    numpy_grads,
    train,
)

F32 = np.float32
LR = 0.1


# --- numpy training with a gradient transform ----------------------------------------------------------------------

def numpy_sgd(transform, steps=STEPS):
    """SGD on the numpy model; `transform(params, grads) -> grads` is the clip / regularization under test."""
    params = {n: init_value(n, shape) for n, shape in
              (('fc_0.w_0', (5, 4)), ('fc_0.b_0', (4,)), ('fc_1.w_0', (4, 1)), ('fc_1.b_0', (1,)))}
    losses = []
    for feed in feeds(steps):
        loss, grads = numpy_grads(params, feed)
        losses.append(float(loss))
        grads = transform(params, {n: g.astype(F32) for n, g in grads.items()})
        params = {n: params[n] - F32(LR) * grads[n] for n in params}
    return losses, params


def fluid_sgd(**kwargs):
    return lambda: fluid.optimizer.SGD(learning_rate=LR, **kwargs)


def norm(g):
    return np.sqrt(np.sum(np.asarray(g, np.float64) ** 2))


def global_norm_clip(clip_norm, skip=()):
    def transform(params, grads):
        total = np.sqrt(sum(norm(g) ** 2 for n, g in grads.items() if n not in skip))
        scale = F32(clip_norm) / F32(max(total, clip_norm))
        return {n: g if n in skip else g * scale for n, g in grads.items()}
    return transform


def op_types(main, role=OpRole.Optimize):
    return [op.type for op in main.global_block().ops if op.attrs['op_role'] & role]


# --- clipping ------------------------------------------------------------------------------------------------

def test_clip_by_value():
    main, startup, loss, _ = build(fluid_sgd(grad_clip=fluid.clip.GradientClipByValue(max=0.02)))
    assert op_types(main) == ['clip'] * 4 + ['sgd'] * 4
    want = numpy_sgd(lambda p, gs: {n: np.clip(g, F32(-0.02), F32(0.02)) for n, g in gs.items()})
    assert_same_training(train(main, startup, loss)[:2], want)


def test_clip_by_norm():
    main, startup, loss, _ = build(fluid_sgd(grad_clip=fluid.clip.GradientClipByNorm(clip_norm=0.05)))
    assert op_types(main) == ['clip_by_norm'] * 4 + ['sgd'] * 4
    want = numpy_sgd(lambda p, gs: {n: g * F32(0.05 / norm(g)) if norm(g) > 0.05 else g for n, g in gs.items()})
    assert_same_training(train(main, startup, loss)[:2], want)


def test_clip_by_global_norm_fluid_op_sequence_and_numbers():
    main, startup, loss, _ = build(fluid_sgd(grad_clip=fluid.clip.GradientClipByGlobalNorm(clip_norm=0.05)))
    assert op_types(main) == (['square', 'reduce_sum'] * 4 + ['sum', 'sqrt', 'fill_constant', 'elementwise_max',
                                                              'elementwise_div'] + ['elementwise_mul'] * 4
                              + ['sgd'] * 4)
    muls = [op for op in main.global_block().ops if op.type == 'elementwise_mul']
    assert all(op.attrs['op_role_var'] == [op.input('X')[0][:-len('@GRAD')], op.output('Out')[0]] for op in muls)
    assert all('gradient_clip' in op.attrs['op_namescope'] for op in muls)
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(global_norm_clip(0.05)))


def test_clip_by_global_norm_leaves_small_gradients_alone():
    main, startup, loss, _ = build(fluid_sgd(grad_clip=fluid.clip.GradientClipByGlobalNorm(clip_norm=1e3)))
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(lambda p, gs: gs))


def test_fluid_need_clip_function_excludes_a_parameter_from_norm_and_scaling():
    clip = fluid.clip.GradientClipByGlobalNorm(0.05, need_clip=lambda p: p.name != 'fc_0.w_0')
    main, startup, loss, _ = build(fluid_sgd(grad_clip=clip))
    assert op_types(main).count('elementwise_mul') == 3
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(global_norm_clip(0.05, skip={'fc_0.w_0'})))


def test_paddle_clip_grad_by_global_norm_uses_squared_l2_norm_in_place_and_need_clip_attr():
    attr = paddle.ParamAttr(need_clip=False)
    main, startup, loss, _ = build(lambda: paddle.optimizer.SGD(
        learning_rate=LR, grad_clip=paddle.nn.ClipGradByGlobalNorm(clip_norm=0.05)), w0_attr=attr)
    types = op_types(main)
    assert types.count('squared_l2_norm') == 3 and 'square' not in types
    muls = [op for op in main.global_block().ops if op.type == 'elementwise_mul']
    assert len(muls) == 3 and all(op.input('X') == op.output('Out') for op in muls)
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(global_norm_clip(0.05, skip={'fc_0.w_0'})))


def test_paddle_clip_grad_by_value_and_norm_names():
    for clip in (paddle.nn.ClipGradByValue(0.02), paddle.nn.ClipGradByNorm(0.05)):
        main = build(lambda: paddle.optimizer.SGD(learning_rate=LR, grad_clip=clip))[0]
        assert op_types(main)[0] == ('clip' if isinstance(clip, paddle.nn.ClipGradByValue) else 'clip_by_norm')


def test_set_gradient_clip_applies_when_the_optimizer_has_none():
    def make():
        with pytest.warns(UserWarning, match='not recommended'):
            fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(0.05))
        return fluid.optimizer.SGD(learning_rate=LR)
    main, startup, loss, _ = build(make)
    assert op_types(main).count('elementwise_mul') == 4
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(global_norm_clip(0.05)))


def test_optimizer_grad_clip_wins_over_set_gradient_clip():
    def make():
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(0.02))
        return fluid.optimizer.SGD(learning_rate=LR, grad_clip=fluid.clip.GradientClipByNorm(0.05))
    with pytest.warns(UserWarning, match="'set_gradient_clip' will be ineffective"):
        main = build(make)[0]
    assert 'clip' not in op_types(main) and 'clip_by_norm' in op_types(main)


def test_clip_by_value_needs_a_positive_max_without_min():
    with pytest.raises(AssertionError):
        fluid.clip.GradientClipByValue(max=-1.0)
    with pytest.raises(TypeError, match='need_clip'):
        fluid.clip.GradientClipByNorm(1.0, need_clip=3)


# --- sparse gradients ----------------------------------------------------------------------------------------

H, W = 6, 3


def sparse_program(transform):
    """A [H, W] parameter with a sparse gradient (a persistable SelectedRows variable), `transform` applied to
    [(param, grad)], then sgd. Returns (main, scope, param, new grad)."""
    main, startup = fluid.Program(), fluid.Program()
    scope = fluid.Scope()
    with fluid.program_guard(main, startup), unique_name.guard():
        block = main.global_block()
        param = block.create_parameter(name='emb', shape=[H, W], dtype='float32')
        grad = block.create_var(name='emb@GRAD', shape=[H, W], dtype='float32', persistable=True,
                                type=VarType.SELECTED_ROWS)
        lr = fluid.layers.create_global_var(shape=[1], value=LR, dtype='float32', persistable=True, name='lr')
        (_, new_grad), = transform([(param, grad)])
        block.append_op('sgd', {'Param': [param], 'Grad': [new_grad], 'LearningRate': [lr]}, {'ParamOut': [param]})
    rng = np.random.RandomState(2)
    scope.var('emb').set_value(rng.randn(H, W).astype(F32))
    scope.var('lr').set_value(np.array([LR], F32))
    scope.var('emb@GRAD').set_value(SelectedRows(np.array([4, 0, 4]), rng.randn(3, W).astype(F32), H))
    return main, scope, new_grad


def dense_of(sr):
    dense = np.zeros((H, W), F32)
    for r, v in zip(sr.rows, sr.values):
        dense[r] += v
    return dense


def run_sparse(main, scope):
    p0, g = scope.find_var('emb').value.copy(), scope.find_var('emb@GRAD').value
    fluid.Executor(fluid.CPUPlace()).run(main, scope=scope)
    return p0, dense_of(g), scope.find_var('emb').value


@pytest.mark.parametrize('reg, term', [(fluid.regularizer.L2Decay(0.1), lambda p: F32(0.1) * p),
                                       (fluid.regularizer.L1Decay(0.1), lambda p: F32(0.1) * np.sign(p))])
def test_regularizing_a_sparse_gradient_makes_it_dense(reg, term):
    main, scope, new_grad = sparse_program(lambda pg: fluid.regularizer.append_regularization_ops(pg, reg))
    assert new_grad.name == 'emb@GRAD@NEWGRAD' and new_grad.type == VarType.LOD_TENSOR
    p0, g, p1 = run_sparse(main, scope)
    np.testing.assert_allclose(p1, p0 - F32(LR) * (g + term(p0)), rtol=1e-6, atol=1e-7)   # every row decays


def test_global_norm_of_a_sparse_gradient_merges_rows_first():
    clip = fluid.clip.GradientClipByGlobalNorm(0.5)
    main, scope, _ = sparse_program(clip)
    types = [op.type for op in main.global_block().ops]
    assert types[:4] == ['merge_selected_rows', 'get_tensor_from_selected_rows', 'square', 'reduce_sum']
    try:
        registry.make_kernel(next(op for op in main.global_block().ops if op.type == 'elementwise_mul'))(
            SelectedRows(np.array([0]), np.ones((1, W), F32), H), np.ones(1, F32))
    except Exception:
        pytest.skip('elementwise_mul does not take a SelectedRows X yet (ops/math.py)')
    p0, g, p1 = run_sparse(main, scope)
    np.testing.assert_allclose(p1, p0 - F32(LR) * g * F32(0.5 / max(norm(g), 0.5)), rtol=1e-5, atol=1e-7)


# --- regularizers on the fc model ----------------------------------------------------------------------------------

@pytest.mark.parametrize('reg, term', [(fluid.regularizer.L2Decay(0.1), lambda p: F32(0.1) * p),
                                       (fluid.regularizer.L1Decay(0.1), lambda p: F32(0.1) * np.sign(p))])
def test_optimizer_regularization(reg, term):
    main, startup, loss, _ = build(fluid_sgd(regularization=reg))
    first = 'scale' if isinstance(reg, fluid.regularizer.L2Decay) else 'sign'
    ops = [op for op in main.global_block().ops if op.attrs['op_role'] & OpRole.Optimize]
    assert ops[0].type == first and 'regularization' in ops[0].attrs['op_namescope']
    assert ops[0].attrs['op_role_var'] == ['fc_0.b_0', 'fc_0.b_0@GRAD']
    want = numpy_sgd(lambda p, gs: {n: g + term(p[n]) for n, g in gs.items()})
    assert_same_training(train(main, startup, loss)[:2], want)


def test_a_parameter_regularizer_wins_over_the_optimizer_one():
    attr = fluid.ParamAttr(regularizer=fluid.regularizer.L1Decay(0.05))
    main, startup, loss, _ = build(fluid_sgd(regularization=fluid.regularizer.L2Decay(0.1)), w0_attr=attr)
    assert op_types(main).count('sign') == 1

    def transform(p, gs):
        return {n: g + (F32(0.05) * np.sign(p[n]) if n == 'fc_0.w_0' else F32(0.1) * p[n]) for n, g in gs.items()}
    assert_same_training(train(main, startup, loss)[:2], numpy_sgd(transform))


def test_clip_runs_before_regularization():
    main, startup, loss, _ = build(fluid_sgd(grad_clip=fluid.clip.GradientClipByGlobalNorm(0.05),
                                             regularization=fluid.regularizer.L2Decay(0.1)))
    clip = global_norm_clip(0.05)
    assert_same_training(train(main, startup, loss)[:2],
                         numpy_sgd(lambda p, gs: {n: g + F32(0.1) * p[n] for n, g in clip(p, gs).items()}))


def test_paddle_regularizer_keyword_and_weight_decay_float():
    assert paddle.regularizer.L2Decay(coeff=0.3)._regularization_coeff == 0.3
    sgd = paddle.optimizer.SGD(learning_rate=LR, weight_decay=0.2)
    assert isinstance(sgd.regularization, paddle.regularizer.L2Decay) and sgd.regularization._regularization_coeff \
        == 0.2
    with pytest.raises(TypeError, match='weight_decay'):
        paddle.optimizer.SGD(learning_rate=LR, weight_decay='0.1')


def test_clip_by_value_of_a_sparse_gradient_merges_rows_then_clips():
    """Paddle's clip on a SelectedRows: duplicate rows summed first, then each value clipped."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data('x', [-1, W], 'float32')
        fluid.layers.clip(x, min=-1.0, max=1.0)
    op = main.global_block().ops[-1]
    sparse = SelectedRows(np.array([3, 1, 3]), np.array([[0.75] * W, [2.0] * W, [0.5] * W], F32), H)
    got, = registry.make_kernel(op)(sparse, None, None)
    assert isinstance(got, SelectedRows) and got.rows.tolist() == [1, 3]
    np.testing.assert_array_equal(got.values, np.array([[1.0] * W, [1.0] * W], F32))   # 2.0 and 0.75+0.5 clipped


def test_elementwise_mul_of_a_sparse_x_needs_a_scalar_y():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data('x', [-1, W], 'float32')
        y = fluid.data('y', [1], 'float32')
        fluid.layers.elementwise_mul(x, y)
    kernel = registry.make_kernel(main.global_block().ops[-1])
    sparse = SelectedRows(np.array([0, 2]), np.ones((2, W), F32), H)
    got, = kernel(sparse, np.array([3.0], F32))
    assert got.rows.tolist() == [0, 2] and np.all(got.values == 3.0)
    with pytest.raises(ValueError, match='if X is Sparse, Y must be scalar'):
        kernel(sparse, np.ones(2, F32))
