"""fluid.transpiler.collective (Paddle 1.8): GradAllReduce and LocalSGD write the programs Paddle 1.8.5 writes (its op
sequences recorded below from /work/pd18: its CPU build has no c_gen_nccl_id, so the communicator ops were left
out there and are checked apart here), and the transpiled programs train on a MirrorGroup (identical peers,
tests/distributed/fakes.py) exactly as one process does."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.fluid.transpiler.collective import GradAllReduce, LocalSGD
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope

from .fakes import MirrorGroup, mirrored

ENDPOINTS = '127.0.0.1:6170,127.0.0.1:6171'

# Paddle 1.8.5: (op type, inputs, ring_id) after transpile(startup, main, 1, ENDPOINTS, '127.0.0.1:6171', False)
# with nrings=2, the startup program from its first c_broadcast on
GRAD_ALLREDUCE_STARTUP_ALL = [
    ('fill_constant', [], None), ('fill_constant', [], None), ('uniform_random', [], None), ('fill_constant', [],
    None), ('uniform_random', [], None), ('c_broadcast', ['fc_0.w_0'], 0), ('c_broadcast', ['fc_0.b_0'], 1),
    ('c_broadcast', ['fc_1.w_0'], 0), ('c_broadcast', ['fc_1.b_0'], 1), ('c_sync_comm_stream', ['fc_1.b_0'], 0),
    ('c_sync_comm_stream', ['fc_1.b_0'], 1)]

GRAD_ALLREDUCE_MAIN = [
    ('mul', ['x', 'fc_0.w_0'], None), ('elementwise_add', ['fc_0.tmp_0', 'fc_0.b_0'], None), ('mul', ['fc_0.tmp_1',
    'fc_1.w_0'], None), ('elementwise_add', ['fc_1.tmp_0', 'fc_1.b_0'], None), ('elementwise_sub', ['fc_1.tmp_1',
    'y'], None), ('square', ['square_error_cost_0.tmp_0'], None), ('mean', ['square_error_cost_0.tmp_1'], None),
    ('fill_constant', [], None), ('scale', ['mean_0.tmp_0@GRAD'], None), ('mean_grad', ['mean_0.tmp_0@GRAD',
    'square_error_cost_0.tmp_1'], None), ('square_grad', ['square_error_cost_0.tmp_1@GRAD',
    'square_error_cost_0.tmp_0'], None), ('elementwise_sub_grad', ['square_error_cost_0.tmp_0@GRAD', 'fc_1.tmp_1',
    'y'], None), ('elementwise_add_grad', ['fc_1.tmp_1@GRAD', 'fc_1.tmp_0', 'fc_1.b_0'], None),
    ('c_sync_calc_stream', ['fc_1.b_0@GRAD'], None), ('c_allreduce_sum', ['fc_1.b_0@GRAD'], 1), ('mul_grad',
    ['fc_1.tmp_0@GRAD', 'fc_0.tmp_1', 'fc_1.w_0'], None), ('c_sync_calc_stream', ['fc_1.w_0@GRAD'], None),
    ('c_allreduce_sum', ['fc_1.w_0@GRAD'], 0), ('elementwise_add_grad', ['fc_0.tmp_1@GRAD', 'fc_0.tmp_0',
    'fc_0.b_0'], None), ('c_sync_calc_stream', ['fc_0.b_0@GRAD'], None), ('c_allreduce_sum', ['fc_0.b_0@GRAD'], 1),
    ('mul_grad', ['fc_0.tmp_0@GRAD', 'x', 'fc_0.w_0'], None), ('c_sync_calc_stream', ['fc_0.w_0@GRAD'], None),
    ('c_allreduce_sum', ['fc_0.w_0@GRAD'], 0), ('c_sync_comm_stream', ['fc_1.b_0@GRAD'], 0), ('c_sync_comm_stream',
    ['fc_1.b_0@GRAD'], 1), ('sgd', ['fc_0.b_0@GRAD', 'learning_rate_0', 'fc_0.b_0'], None), ('sgd',
    ['fc_0.w_0@GRAD', 'learning_rate_0', 'fc_0.w_0'], None), ('sgd', ['fc_1.b_0@GRAD', 'learning_rate_0',
    'fc_1.b_0'], None), ('sgd', ['fc_1.w_0@GRAD', 'learning_rate_0', 'fc_1.w_0'], None)]

LOCAL_SGD_STARTUP_ALL = [
    ('fill_constant', [], None), ('fill_constant', [], None), ('uniform_random', [], None), ('fill_constant', [],
    None), ('uniform_random', [], None), ('c_broadcast', ['fc_0.w_0'], 0), ('c_broadcast', ['fc_0.b_0'], 1),
    ('c_broadcast', ['fc_1.w_0'], 0), ('c_broadcast', ['fc_1.b_0'], 1), ('c_sync_comm_stream', ['fc_1.b_0'], 0),
    ('c_sync_comm_stream', ['fc_1.b_0'], 1), ('assign', ['fc_0.w_0'], None), ('assign', ['fc_0.b_0'], None),
    ('assign', ['fc_1.w_0'], None), ('assign', ['fc_1.b_0'], None)]

LOCAL_SGD_MAIN = [
    ('mul', ['x', 'fc_0.w_0'], None), ('elementwise_add', ['fc_0.tmp_0', 'fc_0.b_0'], None), ('mul', ['fc_0.tmp_1',
    'fc_1.w_0'], None), ('elementwise_add', ['fc_1.tmp_0', 'fc_1.b_0'], None), ('elementwise_sub', ['fc_1.tmp_1',
    'y'], None), ('square', ['square_error_cost_0.tmp_0'], None), ('mean', ['square_error_cost_0.tmp_1'], None),
    ('fill_constant', [], None), ('mean_grad', ['mean_0.tmp_0@GRAD', 'square_error_cost_0.tmp_1'], None),
    ('square_grad', ['square_error_cost_0.tmp_1@GRAD', 'square_error_cost_0.tmp_0'], None), ('elementwise_sub_grad',
    ['square_error_cost_0.tmp_0@GRAD', 'fc_1.tmp_1', 'y'], None), ('elementwise_add_grad', ['fc_1.tmp_1@GRAD',
    'fc_1.tmp_0', 'fc_1.b_0'], None), ('mul_grad', ['fc_1.tmp_0@GRAD', 'fc_0.tmp_1', 'fc_1.w_0'], None),
    ('elementwise_add_grad', ['fc_0.tmp_1@GRAD', 'fc_0.tmp_0', 'fc_0.b_0'], None), ('mul_grad', ['fc_0.tmp_0@GRAD',
    'x', 'fc_0.w_0'], None), ('sgd', ['fc_0.b_0@GRAD', 'learning_rate_0', 'fc_0.b_0'], None), ('elementwise_sub',
    ['fc_0.b_0@SNAPSHOT', 'fc_0.b_0'], None), ('c_sync_calc_stream', ['fc_0.b_0'], None), ('c_allreduce_sum',
    ['fc_0.b_0'], 1), ('sgd', ['fc_0.w_0@GRAD', 'learning_rate_0', 'fc_0.w_0'], None), ('elementwise_sub',
    ['fc_0.w_0@SNAPSHOT', 'fc_0.w_0'], None), ('c_sync_calc_stream', ['fc_0.w_0'], None), ('c_allreduce_sum',
    ['fc_0.w_0'], 0), ('sgd', ['fc_1.b_0@GRAD', 'learning_rate_0', 'fc_1.b_0'], None), ('elementwise_sub',
    ['fc_1.b_0@SNAPSHOT', 'fc_1.b_0'], None), ('c_sync_calc_stream', ['fc_1.b_0'], None), ('c_allreduce_sum',
    ['fc_1.b_0'], 1), ('sgd', ['fc_1.w_0@GRAD', 'learning_rate_0', 'fc_1.w_0'], None), ('elementwise_sub',
    ['fc_1.w_0@SNAPSHOT', 'fc_1.w_0'], None), ('c_sync_calc_stream', ['fc_1.w_0'], None), ('c_allreduce_sum',
    ['fc_1.w_0'], 0), ('c_sync_comm_stream', ['fc_0.b_0'], 0), ('c_sync_comm_stream', ['fc_0.b_0'], 1), ('scale',
    ['fc_0.b_0'], None), ('elementwise_sub', ['fc_0.b_0@SNAPSHOT', 'fc_0.b_0'], None), ('assign', ['fc_0.b_0'],
    None), ('scale', ['fc_0.w_0'], None), ('elementwise_sub', ['fc_0.w_0@SNAPSHOT', 'fc_0.w_0'], None), ('assign',
    ['fc_0.w_0'], None), ('scale', ['fc_1.b_0'], None), ('elementwise_sub', ['fc_1.b_0@SNAPSHOT', 'fc_1.b_0'],
    None), ('assign', ['fc_1.b_0'], None), ('scale', ['fc_1.w_0'], None), ('elementwise_sub', ['fc_1.w_0@SNAPSHOT',
    'fc_1.w_0'], None), ('assign', ['fc_1.w_0'], None)]
GRAD_ALLREDUCE_STARTUP = GRAD_ALLREDUCE_STARTUP_ALL[5:]
LOCAL_SGD_STARTUP = LOCAL_SGD_STARTUP_ALL[5:]


def model():
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 5
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 4], 'float32')
        y = fluid.data('y', [-1, 1], 'float32')
        h = fluid.layers.fc(x, 3)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss


def ops_of(program, start=0):
    return [(op.type, op.input_arg_names, op.attr('ring_id') if op.has_attr('ring_id') else None)
            for op in program.global_block().ops[start:]]


@pytest.mark.parametrize('cls, want_startup, want_main', [
    (GradAllReduce, GRAD_ALLREDUCE_STARTUP, GRAD_ALLREDUCE_MAIN), (LocalSGD, LOCAL_SGD_STARTUP, LOCAL_SGD_MAIN)])
def test_transpiled_programs_are_paddles(cls, want_startup, want_main):
    main, startup, _ = model()
    cls(nrings=2).transpile(startup, main, 1, ENDPOINTS, '127.0.0.1:6171', False)
    types = [op.type for op in startup.global_block().ops]
    first = types.index('c_broadcast')
    # one communicator per ring before the broadcast (c_gen_nccl_id, c_comm_init as 1.8's GPU build appends them)
    assert types[first - 4:first] == ['c_gen_nccl_id', 'c_comm_init'] * 2
    comm = [op for op in startup.global_block().ops if op.type == 'c_comm_init']
    assert [(op.attr('ring_id'), op.attr('rank'), op.attr('nranks')) for op in comm] == [(0, 1, 2), (1, 1, 2)]
    assert ops_of(startup, first) == want_startup
    assert ops_of(main) == want_main
    assert main._origin_program is not None and startup._origin_program is not None


def test_transpile_checks_the_job():
    main, startup, _ = model()
    with pytest.raises(ValueError, match='must > 1'):
        GradAllReduce().transpile(startup, main, 0, '127.0.0.1:6170', '127.0.0.1:6170', False)
    with pytest.raises(ValueError, match='rank must >= 0'):
        GradAllReduce().transpile(startup, main, -1, ENDPOINTS, '127.0.0.1:6170', False)
    with pytest.raises(ValueError, match='is not in'):
        LocalSGD().transpile(startup, main, 0, ENDPOINTS, '127.0.0.1:9999', False)
    assert LocalSGD().snapshot_name('w') == 'w@SNAPSHOT'


def _train(main, startup, loss):
    rng = np.random.default_rng(0)
    scope, exe = Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    losses = []
    for _ in range(4):
        x = rng.standard_normal((8, 4)).astype(np.float32)
        (value,) = exe.run(main, feed={'x': x, 'y': x.sum(1, keepdims=True)}, fetch_list=[loss], scope=scope)
        losses.append(float(value))
    return losses, np.array(scope.find_var('fc_0.w_0').get_tensor())


@pytest.mark.parametrize('cls', [GradAllReduce, LocalSGD])
def test_transpiled_training_on_identical_trainers_equals_one_process(cls):
    want_losses, want_w = _train(*model())
    with mirrored(MirrorGroup(nranks=2, rank=1)) as group:
        main, startup, loss = model()
        cls(nrings=2).transpile(startup, main, 1, ENDPOINTS, '127.0.0.1:6171', False)
        got_losses, got_w = _train(main, startup, loss)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-5)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
    assert group.calls, 'the collective ops ran over the process group'
