"""The programs the fluid 1.8 optimizers Adadelta, LarsMomentum, Dpsgd, DGCMomentum, Lookahead, Recompute and
Pipeline build (op types, accumulator and helper variable names, attributes), their argument checks, the 2.x
Adadelta's learning-rate input, the new paddle.optimizer.lr schedulers' checks, and LBFGS declined.

Their numbers over several training steps are compared with real Paddle by tests/golden/test_api_cases.py
(fluid_optimizers / static_optimizers); these tests check how they get there."""
import warnings

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name
from paddle_exec.framework.operator import OpRole

O = fluid.optimizer


def build(make_optimizer, depth=1):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[5], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        h, hidden = x, []
        for _ in range(depth):
            h = fluid.layers.fc(input=h, size=4, act='tanh')
            hidden.append(h)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(input=fluid.layers.fc(input=h, size=1), label=y))
        opt = make_optimizer(hidden)
        opt.minimize(loss)
    return main, startup, loss


def op_types(program):
    return [op.type for op in program.global_block().ops]


def train(main, startup, loss, steps=3):
    rng = np.random.RandomState(0)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    losses = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name in sorted(p.name for p in main.global_block().all_parameters()):
            t = scope.find_var(name).get_tensor()
            t.set(np.random.RandomState(len(name)).uniform(-0.5, 0.5, np.array(t).shape).astype('float32'),
                  fluid.CPUPlace())
        for _ in range(steps):
            feed = {'x': rng.randn(4, 5).astype('float32'), 'y': rng.randn(4, 1).astype('float32')}
            losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0][0]))
    return losses


def test_adadelta_fluid_and_2x_programs():
    main, _, _ = build(lambda h: O.Adadelta(learning_rate=0.1, rho=0.9))
    ops = [op for op in main.global_block().ops if op.type == 'adadelta']
    assert len(ops) == 4
    assert 'LearningRate' not in ops[0].inputs or not ops[0].inputs['LearningRate']    # 1.8: no lr input
    names = {n for op in ops for n in op.input_arg_names}
    assert 'fc_0.w_0__avg_squared_grad_0' in names and 'fc_0.w_0__avg_squared_update_0' in names
    assert ops[0].attr('rho') == 0.9 and ops[0].attr('epsilon') == 1e-6
    assert O.Adadelta is O.AdadeltaOptimizer
    main2, _, _ = build(lambda h: paddle.optimizer.Adadelta(learning_rate=0.1))
    op2 = next(op for op in main2.global_block().ops if op.type == 'adadelta')
    assert op2.inputs['LearningRate'] == ['learning_rate_0']


def test_adadelta_arguments_are_checked():
    with pytest.raises(ValueError, match='learning_rate is not set'):
        O.Adadelta(learning_rate=None)
    with pytest.raises(ValueError, match='rho is not set'):
        O.Adadelta(learning_rate=0.1, rho=None)


def test_lars_momentum_program():
    main, _, _ = build(lambda h: O.LarsMomentum(learning_rate=0.1, momentum=0.9, lars_coeff=0.01,
                                                lars_weight_decay=0.02))
    op = next(op for op in main.global_block().ops if op.type == 'lars_momentum')
    assert op.attr('mu') == 0.9 and op.attr('lars_coeff') == 0.01 and op.attr('lars_weight_decay') == 0.02
    assert op.outputs['VelocityOut'] == op.inputs['Velocity'] and op.inputs['Velocity'][0].endswith('_velocity_0')
    assert op.attr('op_role') == int(OpRole.Optimize)


def test_dpsgd_seed_defaults_to_the_clock_and_fixed_seeds_repeat():
    opt_holder = {}

    def make(h):
        opt_holder['opt'] = O.Dpsgd(learning_rate=0.1, clip=1.0, batch_size=2.0, sigma=0.5)
        return opt_holder['opt']
    main, startup, loss = build(make)
    op = next(op for op in main.global_block().ops if op.type == 'dpsgd')
    assert op.attr('seed') == 0 and opt_holder['opt']._seed == 0     # Paddle: None becomes 0 (time(NULL))

    def seeded(h):
        opt = O.DpsgdOptimizer(learning_rate=0.1, clip=1.0, batch_size=2.0, sigma=0.5)
        opt._seed = 11
        return opt
    first, second = train(*build(seeded)), train(*build(seeded))
    assert first == second


def test_dgc_momentum_is_plain_momentum_on_one_node():
    main, _, _ = build(lambda h: O.DGCMomentumOptimizer(learning_rate=0.1, momentum=0.9, rampup_begin_step=0))
    ops = [op for op in main.global_block().ops if op.type == 'momentum']
    assert len(ops) == 4 and 'dgc' not in op_types(main)
    assert ops[0].inputs['Velocity'][0].startswith('fc_0.b_0__dgc_u_')
    plain = train(*build(lambda h: O.Momentum(learning_rate=0.1, momentum=0.9)))
    dgc = train(*build(lambda h: O.DGCMomentumOptimizer(learning_rate=0.1, momentum=0.9, rampup_begin_step=2,
                                                         sparsity=[0.99])))
    assert dgc == plain


def test_dgc_momentum_checks_its_arguments_as_paddle():
    with pytest.raises(AssertionError, match='rampup_begin_step must >= 0'):
        O.DGCMomentumOptimizer(0.1, 0.9, rampup_begin_step=-1)
    with pytest.raises(TypeError, match="should be 'GradientClipByNorm'"):
        O.DGCMomentumOptimizer(0.1, 0.9, 0, grad_clip=fluid.clip.GradientClipByValue(1.0))
    with pytest.raises(AssertionError, match='num_trainers'):
        O.DGCMomentumOptimizer(0.1, 0.9, 0, grad_clip=fluid.clip.GradientClipByNorm(1.0))
    O.DGCMomentumOptimizer(0.1, 0.9, 0, grad_clip=fluid.clip.GradientClipByNorm(1.0), num_trainers=2)


def test_lookahead_program_has_paddles_variables_and_switch():
    main, startup, _ = build(lambda h: O.LookaheadOptimizer(O.SGD(learning_rate=0.1), alpha=0.4, k=3))
    block = main.global_block()
    for name in ('lookahead_k', 'lookahead_alpha', 'lookahead_step', 'fc_0.w_0@SLOW', 'fc_1.b_0@SLOW'):
        assert block.var(name).persistable, name
    assert block.var('lookahead_k').dtype == fluid.core.VarDesc.VarType.INT32
    types = op_types(main)
    assert 'increment' in types and 'elementwise_mod' in types and 'conditional_block' in types
    startup_assigns = [op for op in startup.global_block().ops if op.type == 'assign']
    assert {op.outputs['Out'][0] for op in startup_assigns} >= {'fc_0.w_0@SLOW', 'fc_1.w_0@SLOW'}


def test_lookahead_with_k_1_and_alpha_1_is_the_inner_optimizer():
    plain = train(*build(lambda h: O.SGD(learning_rate=0.2)), steps=4)
    wrapped = train(*build(lambda h: O.LookaheadOptimizer(O.SGD(learning_rate=0.2), alpha=1.0, k=1)), steps=4)
    np.testing.assert_allclose(wrapped, plain, rtol=1e-6)


def test_lookahead_arguments_are_checked():
    with pytest.raises(AssertionError, match='alpha should be'):
        O.LookaheadOptimizer(O.SGD(0.1), alpha=1.5)
    with pytest.raises(AssertionError, match='k should be a positive integer'):
        O.LookaheadOptimizer(O.SGD(0.1), k=0)


def _recompute(h):
    opt = O.RecomputeOptimizer(O.Adam(learning_rate=0.05))
    opt._set_checkpoints(h)
    return opt


def test_recompute_recomputes_the_segments_and_trains_as_plain():
    main, startup, loss = build(_recompute, depth=3)
    block = main.global_block()
    recomputed = [op for op in block.ops if op.attr('op_role') == int(OpRole.Backward)
                  and op.type in ('mul', 'elementwise_add', 'tanh')]
    assert recomputed, 'the forward segments between checkpoints are appended again in the backward pass'
    outs = {n for op in recomputed for n in op.output_arg_names}
    assert any('.subprog_' in n for n in outs)
    assert not any(n in ('fc_0.tmp_2', 'fc_1.tmp_2', 'fc_2.tmp_2') for n in outs)   # checkpoints are kept
    # the names paddlepaddle 1.8.5 gives the same program: segments numbered from the last one
    grad_reads = [op.inputs['X'] for op in block.ops if op.type == 'elementwise_add_grad']
    assert grad_reads == [['fc_3.tmp_0'], ['fc_2.tmp_0.subprog_0'], ['fc_1.tmp_0.subprog_1'],
                          ['fc_0.tmp_0.subprog_2']]
    plain = train(*build(lambda h: O.Adam(learning_rate=0.05), depth=3))
    np.testing.assert_allclose(train(main, startup, loss), plain, rtol=1e-6)


def test_recompute_needs_checkpoints():
    opt = O.RecomputeOptimizer(O.SGD(learning_rate=0.1))
    with pytest.raises(AssertionError, match='_set_checkpoints'):
        build(lambda h: opt)


def test_pipeline_runs_as_one_stage():
    main, startup, loss = build(lambda h: O.PipelineOptimizer(O.SGD(learning_rate=0.2), cut_list=[]))
    assert main._pipeline_opt['trainer'] == 'PipelineTrainer'
    assert len(main._pipeline_opt['section_program_list']) == 1
    plain = train(*build(lambda h: O.SGD(learning_rate=0.2)))
    np.testing.assert_allclose(train(main, startup, loss), plain, rtol=1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        build(lambda h: O.PipelineOptimizer(O.SGD(learning_rate=0.2), cut_list=[h]))
    assert any('one stage' in str(w.message) for w in caught)


def test_lbfgs_is_declined_with_the_reason():
    with pytest.raises(AttributeError, match='dygraph-only'):
        paddle.optimizer.LBFGS
    assert not hasattr(paddle.optimizer, 'LBFGS')
    with pytest.raises(AttributeError, match='no attribute'):
        paddle.optimizer.NoSuchOptimizer


def test_new_lr_schedulers_check_arguments_as_paddle():
    lr = paddle.optimizer.lr
    with pytest.raises(ValueError, match='T_0'):
        lr.CosineAnnealingWarmRestarts(0.1, T_0=0)
    with pytest.raises(ValueError, match='T_mult'):
        lr.CosineAnnealingWarmRestarts(0.1, T_0=2, T_mult=0)
    with pytest.raises(TypeError, match='step_size_up'):
        lr.CyclicLR(0.1, 1.0, step_size_up=2.5)
    with pytest.raises(ValueError, match="'mode' is invalid"):
        lr.CyclicLR(0.1, 1.0, step_size_up=2, mode='bogus')
    with pytest.raises(ValueError, match='start_factor'):
        lr.LinearLR(0.1, total_steps=3, start_factor=0)
    with pytest.raises(TypeError, match='lr_lambda'):
        lr.MultiplicativeDecay(0.1, lr_lambda=0.5)
    with pytest.raises(ValueError, match='three_phase'):
        lr.OneCycleLR(1.0, total_steps=10, phase_pct=0.6, three_phase=True)
    sched = lr.OneCycleLR(1.0, total_steps=2)
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match='Tried to step 3 times'):
        sched.step()
