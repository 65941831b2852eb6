"""fluid.layers' learning-rate decays and autoincreased_step_counter (layers/learning_rate.py) against Paddle 1.8.5:
the program each builds (op types, the lr variable, the `@LR_DECAY_COUNTER@` counter and its startup
initialiser, op roles), the learning rate over 12 runs, a Momentum training with exponential_decay, and the counter
under ParallelExecutor (one copy per place, each incremented once per run).

Every number below was recorded from real Paddle 1.8.5 (paddlepaddle==1.8.5, CPU) running the same programs."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name
from paddle_exec.framework.dtype import VarType
from paddle_exec.framework.operator import OpRole

F32 = np.float32
L = fluid.layers
COUNTER = '@LR_DECAY_COUNTER@'

DECAYS = {
    'exp': lambda: L.exponential_decay(0.1, 3, 0.5),
    'exp_stair': lambda: L.exponential_decay(0.1, 3, 0.5, staircase=True),
    'nat': lambda: L.natural_exp_decay(0.1, 3, 0.5),
    'nat_stair': lambda: L.natural_exp_decay(0.1, 3, 0.5, staircase=True),
    'inv': lambda: L.inverse_time_decay(0.1, 3, 0.5),
    'inv_stair': lambda: L.inverse_time_decay(0.1, 3, 0.5, staircase=True),
    'poly': lambda: L.polynomial_decay(0.1, 5, 0.01, power=2.0),
    'poly_cycle': lambda: L.polynomial_decay(0.1, 5, 0.01, power=2.0, cycle=True),
    'poly_lin': lambda: L.polynomial_decay(0.1, 5),
    'piece': lambda: L.piecewise_decay([3, 7], [0.1, 0.05, 0.01]),
    'cos': lambda: L.cosine_decay(0.1, 2, 5),
    'noam': lambda: L.noam_decay(64, 4),
    'noam_lr': lambda: L.noam_decay(64, 4, learning_rate=2.0),
    'warm': lambda: L.linear_lr_warmup(0.1, 4, 0.0, 0.1),
    'warm_exp': lambda: L.linear_lr_warmup(L.exponential_decay(0.1, 3, 0.5), 4, 0.01, 0.1),
}

# The learning rate fetched after each of 12 runs, recorded from Paddle 1.8.5 (float32 values).
LR_18 = {
    'exp': [0.1, 0.07937005, 0.06299605, 0.05, 0.039685026, 0.031498026, 0.025, 0.019842511, 0.015749013, 0.0125,
            0.0099212555, 0.0078745065],
    'exp_stair': [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125],
    'nat': [0.1, 0.08464818, 0.07165313, 0.060653068, 0.051341712, 0.043459818, 0.036787946, 0.031140318,
            0.026359713, 0.022313017, 0.018887559, 0.015987976],
    'nat_stair': [0.1, 0.1, 0.1, 0.060653068, 0.060653068, 0.060653068, 0.036787946, 0.036787946, 0.036787946,
                  0.022313017, 0.022313017, 0.022313017],
    'inv': [0.1, 0.08571429, 0.074999996, 0.06666667, 0.06, 0.054545455, 0.05, 0.046153843, 0.04285714, 0.04,
            0.037499998, 0.035294116],
    'inv_stair': [0.1, 0.1, 0.1, 0.06666667, 0.06666667, 0.06666667, 0.05, 0.05, 0.05, 0.04, 0.04, 0.04],
    'poly': [0.1, 0.067600004, 0.042400002, 0.0244, 0.013599999, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
    'poly_cycle': [0.1, 0.067600004, 0.042400002, 0.0244, 0.013599999, 0.01, 0.0244, 0.0181, 0.013599999, 0.0109,
                   0.01, 0.0164],
    'poly_lin': [0.1, 0.08002, 0.060040005, 0.04006, 0.020079998, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4, 1e-4],
    'piece': [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01],
    'cos': [0.1, 0.1, 0.090450846, 0.090450846, 0.06545085, 0.06545085, 0.034549147, 0.034549147, 0.009549147,
            0.009549147, 0.0, 0.0],
    'noam': [0.015625, 0.03125, 0.046875, 0.0625, 0.0559017, 0.05103104, 0.04724556, 0.044194173, 0.041666668,
             0.03952847, 0.03768892, 0.03608439],
    'noam_lr': [0.03125, 0.0625, 0.09375, 0.125, 0.1118034, 0.10206208, 0.09449112, 0.088388346, 0.083333336,
                0.07905694, 0.07537784, 0.07216878],
    'warm': [0.0, 0.025, 0.05, 0.075, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    'warm_exp': [0.01, 0.0325, 0.055, 0.0775, 0.039685026, 0.031498026, 0.025, 0.019842511, 0.015749013, 0.0125,
                 0.0099212555, 0.0078745065],
}

# Main-block op types and the returned variable's name, as Paddle 1.8.5 builds them.
OPS_18 = {
    'exp': (['increment', 'cast', 'scale', 'fill_constant', 'elementwise_pow', 'scale'], 'tmp_3'),
    'exp_stair': (['increment', 'cast', 'scale', 'floor', 'fill_constant', 'elementwise_pow', 'scale'], 'tmp_3'),
    'nat': (['increment', 'cast', 'scale', 'scale', 'exp', 'scale'], 'tmp_2'),
    'nat_stair': (['increment', 'cast', 'scale', 'floor', 'scale', 'exp', 'scale'], 'tmp_2'),
    'inv': (['increment', 'cast', 'scale', 'scale', 'scale', 'fill_constant', 'elementwise_div'], 'tmp_4'),
    'inv_stair': (['increment', 'cast', 'scale', 'floor', 'scale', 'scale', 'fill_constant', 'elementwise_div'],
                  'tmp_4'),
    'poly': (['increment', 'cast', 'fill_constant', 'elementwise_min', 'scale', 'scale', 'fill_constant',
              'elementwise_pow', 'scale', 'scale'], 'tmp_5'),
    'cos': (['increment', 'cast', 'scale', 'floor', 'scale', 'scale', 'cos', 'scale', 'scale'], 'tmp_4'),
    'noam': (['increment', 'cast', 'fill_constant', 'elementwise_pow', 'scale', 'elementwise_min', 'scale'], 'tmp_3'),
}

# The decays 1.8 builds with Switch: the same op chains with `where` (+ `assign` into 1.8's persistable result)
# in place of logical_not / logical_and / conditional_block (see the module docstring). Same result names as 1.8.
OPS_WITHOUT_SWITCH = {
    'poly_cycle': (['increment', 'cast', 'scale', 'ceil', 'fill_constant', 'fill_constant', 'equal', 'where', 'scale',
                    'elementwise_div', 'scale', 'fill_constant', 'elementwise_pow', 'scale', 'scale'], 'tmp_8'),
    'piece': (['increment', 'cast', 'fill_constant', 'fill_constant', 'less_than', 'fill_constant', 'fill_constant',
               'less_than', 'fill_constant', 'where', 'where', 'assign'], 'learning_rate'),
    'warm': (['increment', 'cast', 'fill_constant', 'less_than', 'scale', 'scale', 'scale', 'fill_constant', 'where',
              'assign'], 'learning_rate_warmup'),
}


def build(make_lr):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        lr = make_lr()
    return main, startup, lr


def run_steps(main, startup, fetch, steps=12):
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        return [exe.run(main, fetch_list=[fetch])[0].reshape(-1)[0] for _ in range(steps)]


# --- numbers ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name', sorted(DECAYS))
def test_learning_rate_over_12_runs_is_paddle_18s(name):
    main, startup, lr = build(DECAYS[name])
    got = np.array(run_steps(main, startup, lr), dtype=F32)
    np.testing.assert_array_equal(got, np.array(LR_18[name], dtype=F32))


def test_step_counter_values_and_begin_minus_one_initialiser():
    # 1.8 fills begin - 1 whatever the step: begin 5, step 3 counts 7, 10, 13, ...
    for kwargs, first_values in (({}, [1, 2, 3]), ({'counter_name': 'my_c', 'begin': 5, 'step': 3}, [7, 10, 13])):
        main, startup, counter = build(lambda: L.autoincreased_step_counter(**kwargs))
        assert counter.dtype == VarType.INT64
        assert [int(v) for v in run_steps(main, startup, counter, 3)] == first_values


# --- program structure ----------------------------------------------------------------------------------------

@pytest.mark.parametrize('name', sorted(OPS_18) + sorted(OPS_WITHOUT_SWITCH))
def test_program_ops_and_result_name(name):
    main, startup, lr = build(DECAYS[name])
    op_types, lr_name = {**OPS_18, **OPS_WITHOUT_SWITCH}[name]
    ops = main.global_block().ops
    assert [op.type for op in ops] == op_types
    assert lr.name == lr_name
    assert len(main.blocks) == 1
    # every op is a learning-rate op (1.8's _lr_schedule_guard)
    assert {(op.attr('op_role'), tuple(op.attr('op_role_var'))) for op in ops} == {(int(OpRole.LRSched), ())}
    increment = ops[0]
    assert increment.input('X') == [COUNTER] and increment.output('Out') == [COUNTER]
    assert increment.attr('step') == 1.0


@pytest.mark.parametrize('name, begin', [('exp', 0), ('noam', 1)])
def test_counter_variable_and_startup_initialiser(name, begin):
    main, startup, _ = build(DECAYS[name])
    counter = main.global_block().var(COUNTER)
    assert counter.dtype == VarType.INT64 and tuple(counter.shape) == (1,)
    assert counter.persistable and counter.stop_gradient
    init = [op for op in startup.global_block().ops if op.output('Out') == [COUNTER]]
    assert len(init) == 1 and init[0].type == 'fill_constant'
    assert (init[0].attr('value'), init[0].attr('dtype'), init[0].attr('force_cpu')) == (begin - 1.0, 3, True)
    assert startup.global_block().var(COUNTER).persistable


def test_switch_results_are_persistable_globals_filled_with_zero():
    for name, lr_name in (('piece', 'learning_rate'), ('warm', 'learning_rate_warmup')):
        main, startup, lr = build(DECAYS[name])
        assert lr.persistable and lr.name == lr_name
        init = [op for op in startup.global_block().ops if op.output('Out') == [lr_name]]
        assert [(op.type, op.attr('value')) for op in init] == [('fill_constant', 0.0)]


def test_decays_share_one_counter_and_one_increment():
    # 1.8: warmup over a decay reuses @LR_DECAY_COUNTER@ (no second initialiser or increment) with a second cast
    main, startup, _ = build(DECAYS['warm_exp'])
    ops = main.global_block().ops
    assert [op.type for op in ops].count('increment') == 1
    assert [op.output('Out')[0] for op in ops if op.type == 'cast'] == ['cast_0.tmp_0', 'cast_1.tmp_0']
    assert [op.output('Out') for op in startup.global_block().ops].count([COUNTER]) == 1


def test_plain_step_counter_is_a_forward_op():
    main, startup, counter = build(lambda: L.autoincreased_step_counter())
    assert counter.name == '@STEP_COUNTER@'
    (increment,) = main.global_block().ops
    assert increment.type == 'increment' and increment.attr('op_role') == int(OpRole.Forward)
    assert startup.global_block().ops[0].attr('value') == 0.0


def test_errors_use_paddles_wording():
    with pytest.raises(ValueError, match=r'len\(values\) - len\(boundaries\) should be 1'):
        build(lambda: L.piecewise_decay([1, 2], [0.1]))
    with pytest.raises(TypeError, match="The type of 'learning_rate' in cosine_decay must be"):
        build(lambda: L.cosine_decay(1, 2, 3))


# --- training and data parallelism --------------------------------------------------------------------------------

def build_training():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = L.data('x', [-1, 4], append_batch_size=False)
        y = L.data('y', [-1, 1], append_batch_size=False)
        pred = L.fc(L.fc(x, 8, act='relu'), 1)
        loss = L.mean(L.square_error_cost(pred, y))
        lr = L.exponential_decay(0.1, 2, 0.5, staircase=True)
        fluid.optimizer.Momentum(lr, 0.9).minimize(loss)
    return main, startup, loss, lr


def start_training(main, startup, scope):
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
    rng = np.random.RandomState(7)
    for param in sorted(main.global_block().all_parameters(), key=lambda p: p.name):
        scope.find_var(param.name).get_tensor().set(rng.uniform(-0.5, 0.5, param.shape).astype(F32),
                                                    fluid.CPUPlace())
    return exe


def batches(steps=6):
    rng = np.random.RandomState(3)
    return [{'x': rng.randn(8, 4).astype(F32), 'y': rng.randn(8, 1).astype(F32)} for _ in range(steps)]


def data_parallel(main, loss, reduce_mode=False):
    strategy = fluid.BuildStrategy()
    if reduce_mode:
        strategy.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    return fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=strategy)


# Paddle 1.8.5, the same model, parameters and batches: loss and learning rate of each run
LOSSES_18 = [1.39727783203125, 1.1995562314987183, 0.7581487894058228, 0.33864879608154297, 1.0103559494018555,
             1.1884405612945557]
LOSSES_18_TWO_PLACES = [[2.0335397720336914, 0.7610160708427429], [1.1490309238433838, 1.2500815391540527],
                        [0.565223217010498, 0.9510743618011475], [0.36288559436798096, 0.314411997795105],
                        [0.27409523725509644, 1.7466168403625488], [1.7328722476959229, 0.6440088152885437]]
LR_18_TRAINING = [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]


def test_momentum_with_exponential_decay_trains_as_paddle_18():
    main, startup, loss, lr = build_training()
    momentum_lrs = {op.input('LearningRate')[0] for op in main.global_block().ops if op.type == 'momentum'}
    assert momentum_lrs == {lr.name}
    scope = fluid.Scope()
    exe = start_training(main, startup, scope)
    with fluid.scope_guard(scope):
        runs = [exe.run(main, feed=feed, fetch_list=[loss, lr]) for feed in batches()]
    np.testing.assert_allclose([float(l_) for l_, _ in runs], LOSSES_18, rtol=1e-6)
    np.testing.assert_array_equal([F32(r[0]) for _, r in runs], np.array(LR_18_TRAINING, F32))
    assert int(np.array(scope.find_var(COUNTER).get_tensor())[0]) == 5


@pytest.mark.parametrize('reduce_mode', [False, True])
def test_data_parallel_training_as_paddle_18(monkeypatch, reduce_mode):
    monkeypatch.setenv('CPU_NUM', '2')
    main, startup, loss, lr = build_training()
    scope = fluid.Scope()
    exe = start_training(main, startup, scope)
    prog = data_parallel(main, loss, reduce_mode)
    with fluid.scope_guard(scope):
        runs = [exe.run(prog, feed=feed, fetch_list=[loss, lr]) for feed in batches()]
    np.testing.assert_allclose([np.ravel(l_) for l_, _ in runs], LOSSES_18_TWO_PLACES, rtol=1e-6)
    # both places see the same rate each run: the counter advanced once per run, not once per place
    np.testing.assert_array_equal([np.ravel(r) for _, r in runs], np.repeat(F32(LR_18_TRAINING)[:, None], 2, axis=1))
    assert int(np.array(scope.find_var(COUNTER).get_tensor())[0]) == 5


@pytest.mark.parametrize('reduce_mode', [False, True])
def test_each_place_has_its_own_counter(monkeypatch, reduce_mode):
    """Paddle 1.8.5 (AllReduce and Reduce alike) copies @LR_DECAY_COUNTER@ to every place: three runs count
    [0, 0], [1, 1], [2, 2]; place 0's copy is the user's scope, so a plain Executor run in between advances only
    place 0, and the next parallel run fetches [5, 4] unmerged."""
    monkeypatch.setenv('CPU_NUM', '2')
    main, startup, loss, _ = build_training()
    scope = fluid.Scope()
    exe = start_training(main, startup, scope)
    prog = data_parallel(main, loss, reduce_mode)
    feed = batches(1)[0]
    with fluid.scope_guard(scope):
        counts = [np.ravel(exe.run(prog, feed=feed, fetch_list=[COUNTER])[0]).tolist() for _ in range(3)]
        assert counts == [[0, 0], [1, 1], [2, 2]]
        per_place = exe.run(prog, feed=feed, fetch_list=[COUNTER], return_merged=False)[0]
        assert [int(np.ravel(c)[0]) for c in per_place] == [3, 3]
        assert int(np.array(scope.find_var(COUNTER).get_tensor())[0]) == 3
        assert int(np.ravel(exe.run(main, feed=feed, fetch_list=[COUNTER])[0])[0]) == 4
        per_place = exe.run(prog, feed=feed, fetch_list=[COUNTER], return_merged=False)[0]
        assert [int(np.ravel(c)[0]) for c in per_place] == [5, 4]


def test_warmup_over_a_float64_rate():
    """The result takes the rate's dtype; the warmup values are 1.8.5's (there a float32 tensor during warmup)."""
    main, startup, lr = build(lambda: L.linear_lr_warmup(
        L.create_global_var([1], 0.25, 'float64', persistable=True, name='base_lr'), 3, 0.0, 0.3))
    assert lr.dtype == VarType.FP64
    got = run_steps(main, startup, lr, 5)
    np.testing.assert_array_equal(got[:3], [0.0, 0.10000000894069672, 0.20000001788139343])
    assert got[3:] == [0.25, 0.25]


def test_the_1_8_module_path_reaches_the_same_functions():
    from paddle_exec.fluid.layers import learning_rate_scheduler
    from paddle_exec.layers import learning_rate
    assert learning_rate_scheduler.exponential_decay is fluid.layers.exponential_decay
    assert set(learning_rate_scheduler.__all__) == set(learning_rate.__all__)
