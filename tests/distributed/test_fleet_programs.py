"""Collective training in one process: the programs the distributed optimizers write (checked against Paddle's),
and their runs on a MirrorGroup (tests/distributed/fakes.py: peers identical to this trainer), which must equal one
process on the same data; gradient buckets, their sizes and their place in the plan; places then processes; sparse
gradients; BuildStrategy.num_trainers; the startup check of the programs."""
import sys

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.distributed.fleet as fleet
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope

from .fakes import MirrorGroup, mirrored

# Paddle 2.6.2, fleet.distributed_optimizer(Adam, DistributedStrategy(fuse_all_reduce_ops=False)).minimize on trainer
# 0 of 2, this model: (op type, inputs, op_role) of the main program, recorded from real Paddle
PADDLE_262_MAIN = [
    ('mul', ['x', 'fc_0.w_0'], 0), ('elementwise_add', ['fc_0.tmp_0', 'fc_0.b_0'], 0), ('relu', ['fc_0.tmp_1'], 0),
    ('mul', ['fc_0.tmp_2', 'fc_1.w_0'], 0), ('elementwise_add', ['fc_1.tmp_0', 'fc_1.b_0'], 0),
    ('softmax_with_cross_entropy', ['y', 'fc_1.tmp_1'], 0), ('reduce_mean', ['softmax_with_cross_entropy_0.tmp_1'], 0),
    ('reduce_mean', ['mean_0.tmp_0'], 256), ('fill_constant', [], 257), ('scale', ['mean_1.tmp_0@GRAD'], 1),
    ('reduce_mean_grad', ['mean_1.tmp_0@GRAD', 'mean_0.tmp_0'], 1),
    ('reduce_mean_grad', ['mean_0.tmp_0@GRAD', 'softmax_with_cross_entropy_0.tmp_1'], 1),
    ('softmax_with_cross_entropy_grad', ['y', 'softmax_with_cross_entropy_0.tmp_1@GRAD',
                                        'softmax_with_cross_entropy_0.tmp_0'], 1),
    ('elementwise_add_grad', ['fc_1.tmp_1@GRAD', 'fc_1.tmp_0', 'fc_1.b_0'], 1),
    ('c_allreduce_sum', ['fc_1.b_0@GRAD'], 1), ('mul_grad', ['fc_1.tmp_0@GRAD', 'fc_0.tmp_2', 'fc_1.w_0'], 1),
    ('c_allreduce_sum', ['fc_1.w_0@GRAD'], 1), ('relu_grad', ['fc_0.tmp_2', 'fc_0.tmp_2@GRAD'], 1),
    ('elementwise_add_grad', ['fc_0.tmp_1@GRAD', 'fc_0.tmp_0', 'fc_0.b_0'], 1),
    ('c_allreduce_sum', ['fc_0.b_0@GRAD'], 1), ('mul_grad', ['fc_0.tmp_0@GRAD', 'x', 'fc_0.w_0'], 1),
    ('c_allreduce_sum', ['fc_0.w_0@GRAD'], 1)] + [
    ('adam', ['%s_beta1_pow_acc_0' % p, '%s_beta2_pow_acc_0' % p, '%s@GRAD' % p, 'learning_rate_0',
              '%s_moment1_0' % p, '%s_moment2_0' % p, p], 2) for p in ('fc_0.b_0', 'fc_0.w_0', 'fc_1.b_0', 'fc_1.w_0')]
# its startup program ends with the parameter broadcast; before it, Paddle's GPU build sets up ring 0 (c_gen_nccl_id,
# c_comm_init and a sync all-reduce: raw_program_optimizer.py and meta_optimizers/common.py of Paddle 2.6.2)
PADDLE_262_STARTUP_TAIL = ['c_gen_nccl_id', 'c_comm_init', 'fill_constant', 'c_allreduce_sum', 'c_sync_calc_stream',
                           'c_broadcast', 'c_broadcast', 'c_broadcast', 'c_broadcast', 'c_sync_comm_stream']


def mlp(strategy=None, workers=2, rank=0, optimizer=None):
    """The model of PADDLE_262_MAIN; with `strategy` through fleet as trainer `rank` of `workers`."""
    main, startup = static.Program(), static.Program()
    startup.random_seed = 3
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data(name='x', shape=[-1, 20], dtype='float32')
        y = static.data(name='y', shape=[-1, 1], dtype='int64')
        h = static.nn.fc(x, 16, activation='relu')
        logits = static.nn.fc(h, 3)
        loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
        opt = optimizer() if optimizer else paddle.optimizer.Adam(learning_rate=0.05)
        if strategy is not None:
            fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=rank, worker_num=workers))
            opt = fleet.distributed_optimizer(opt, strategy)
        opt.minimize(loss)
    return main, startup, loss


def batches(steps=4, n=8):
    rng = np.random.RandomState(0)
    return [(rng.randn(n, 20).astype('float32'), rng.randint(0, 3, (n, 1)).astype('int64')) for _ in range(steps)]


def train(main, startup, loss, prog=None, data=None):
    scope = Scope()
    exe = static.Executor(paddle.CPUPlace())
    with static.scope_guard(scope):
        exe.run(startup)
        losses = [np.array(exe.run(prog or main, feed={'x': x, 'y': y}, fetch_list=[loss])[0]).mean()
                  for x, y in (data or batches())]
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    return losses, params, exe


def assert_same_training(got, want):
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    for name in want[1]:
        np.testing.assert_allclose(got[1][name], want[1][name], rtol=1e-5, atol=1e-6, err_msg=name)


def strategy(**fields):
    s = fleet.DistributedStrategy()
    for k, v in fields.items():
        setattr(s, k, v)
    return s


# --- the programs ---------------------------------------------------------------------------------------------------

def test_fleet_main_program_is_paddles():
    with mirrored(MirrorGroup()):
        main, startup, _ = mlp(strategy(fuse_all_reduce_ops=False))
    got = [(op.type, op.input_arg_names, op.attrs['op_role']) for op in main.global_block().ops]
    assert got == PADDLE_262_MAIN
    assert [op.type for op in startup.global_block().ops][-10:] == PADDLE_262_STARTUP_TAIL
    broadcast = [op for op in startup.global_block().ops if op.type == 'c_broadcast']
    assert [op.input_arg_names[0] for op in broadcast] == ['fc_0.b_0', 'fc_0.w_0', 'fc_1.b_0', 'fc_1.w_0']
    assert all(op.attrs['root'] == 0 and op.attrs['ring_id'] == 0 for op in broadcast)
    scale = main.global_block().ops[9]
    assert scale.attrs['scale'] == 0.5
    text = str(main)
    assert "c_allreduce_sum(inputs={Cond=[], X=['fc_1.b_0@GRAD']}" in text


def test_one_trainer_keeps_the_programs_and_loads_no_mpi():
    main, startup, _ = mlp(strategy(), workers=1)
    types = {op.type for p in (main, startup) for op in p.global_block().ops}
    assert not {t for t in types if t.startswith('c_')}
    assert 'mpi4py.MPI' not in sys.modules


def test_unsupported_strategy_features_are_refused():
    with pytest.raises(NotImplementedError, match='amp'):
        mlp(strategy(amp=True))
    with pytest.raises(TypeError):
        strategy(fuse_all_reduce_ops=1)
    with pytest.raises(AttributeError):
        strategy(no_such_option=True)


# --- training on identical peers equals one process ------------------------------------------------------------------

def test_fleet_training_equals_one_process_and_fuses_one_bucket():
    want = train(*mlp())
    with mirrored(MirrorGroup()) as group:
        got = train(*mlp(strategy()))
    assert_same_training(got, want)
    steps = len(batches())
    buckets = [c for c in group.calls if c[0] == 'allreduce_async']
    assert [c[2] for c in buckets] == [(320 + 16 + 48 + 3) * 4] * steps      # every gradient in one bucket
    assert group.overlaps == [False] * steps      # nothing to overlap: the optimizer's wait reduces it itself


@pytest.mark.parametrize('fields, sizes', [
    ({'fuse_all_reduce_ops': False}, [3 * 4, 48 * 4, 16 * 4, 320 * 4]),      # one per gradient, backward order
    ({'fuse_grad_size_in_MB': 0.0003}, [(3 + 48 + 16) * 4, 320 * 4]),          # 314-byte buckets
])
def test_bucket_sizes_follow_the_strategy(fields, sizes):
    with mirrored(MirrorGroup()) as group:
        got = train(*mlp(strategy(**fields)), data=batches(1))
    assert [c[2] for c in group.calls if c[0] == 'allreduce_async'] == sizes
    assert_same_training(got, train(*mlp(), data=batches(1)))


@pytest.mark.parametrize('mode', ['off', 'sync'])
def test_a_bucket_starts_before_backward_ends_and_is_waited_for_at_the_optimizer(monkeypatch, mode):
    """With compiled segments too: the segment pass closes a segment before a bucket_start (ASYNC_STARTS)."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    with mirrored(MirrorGroup()) as group:
        _, _, exe = train(*mlp(strategy(fuse_grad_size_in_MB=0.0003)), data=batches(1))
    plan = exe._runner.plans.plans()[-1]
    labels = [nd.label for nd in plan.nodes]
    # the op types each node runs (a segment's, with PADDLE_EXEC_COMPILE=tiered or sync, are its members')
    types = [[m.op.type for m in nd.op_nodes if m.op is not None] for nd in plan.nodes]
    start0 = next(i for i, lb in enumerate(labels) if lb.startswith('bucket_start(0'))
    last_backward = max(i for i, t in enumerate(types) if 'mul_grad' in t)
    wait0 = labels.index('bucket_wait(0)')
    first_update = min(i for i, t in enumerate(types) if 'adam' in t)
    assert start0 < last_backward < wait0 < first_update
    assert group.events == [('submit', group.events[0][1]), ('submit', group.events[1][1]),
                            ('wait', group.events[0][1]), ('wait', group.events[1][1])]
    # the first bucket overlaps the last backward op, the second the first update (of fc_0.b_0)
    assert group.overlaps == [True, True]


def test_bucket_buffers_are_reused():
    """A bucket packs into the same buffer every step (MPI is slow on fresh memory) while nothing else refers to
    it; fetched gradients are the caller's (fetches copy views), so they stay what they were."""
    with mirrored(MirrorGroup()) as group:
        main, startup, loss = mlp(strategy())
        exe = static.Executor(paddle.CPUPlace())
        scope = Scope()
        exe.run(startup, scope=scope)
        for x, y in batches(3):
            exe.run(main, feed={'x': x, 'y': y}, fetch_list=[loss], scope=scope)
        assert len(set(group.buffers)) == 1
        kept = []
        for x, y in batches(3):
            got, = exe.run(main, feed={'x': x, 'y': y}, fetch_list=['fc_0.w_0@GRAD'], scope=scope)
            kept.append((got, got.copy()))
        assert len(set(group.buffers[3:])) == 1          # (another plan: another fetch list)
        for got, snapshot in kept:
            np.testing.assert_array_equal(got, snapshot)


class NowGroup(MirrorGroup):
    """A MirrorGroup with the MPI group's `allreduce_now`: the in-place sum on the caller's thread, or False (as
    the MPI group answers while another call is queued or running) when `busy`."""

    def __init__(self, busy=False):
        super().__init__()
        self.busy = busy
        self.now = []

    def allreduce_now(self, buffer):
        if self.busy:
            return False
        self.now.append((id(buffer), buffer.nbytes))
        buffer *= self.nranks
        return True


def test_a_bucket_with_nothing_to_overlap_is_reduced_at_once_in_its_buffer():
    """The one-place bucket the optimizer's wait would reduce itself is reduced right after its pack
    (allreduce_now), with no queued work: same training, one buffer every step, fetched gradients kept."""
    want = train(*mlp())
    with mirrored(NowGroup()) as group:
        got = train(*mlp(strategy()))
    assert_same_training(got, want)
    assert group.now == [(group.now[0][0], (320 + 16 + 48 + 3) * 4)] * len(batches())   # one buffer, every step
    assert not [c for c in group.calls if c[0] == 'allreduce_async']
    with mirrored(NowGroup()) as group:
        main, startup, loss = mlp(strategy())
        exe, scope = static.Executor(paddle.CPUPlace()), Scope()
        exe.run(startup, scope=scope)
        kept = []
        for x, y in batches(3):
            got, = exe.run(main, feed={'x': x, 'y': y}, fetch_list=['fc_0.w_0@GRAD'], scope=scope)
            kept.append((got, got.copy()))
        for got, snapshot in kept:
            np.testing.assert_array_equal(got, snapshot)


def test_a_busy_group_queues_the_bucket_instead():
    want = train(*mlp())
    with mirrored(NowGroup(busy=True)) as group:
        got = train(*mlp(strategy()))
    assert_same_training(got, want)
    assert not group.now and group.overlaps == [False] * len(batches())


def test_buckets_that_overlap_backward_are_queued():
    with mirrored(NowGroup()) as group:
        train(*mlp(strategy(fuse_grad_size_in_MB=0.0003)), data=batches(1))
    assert not group.now and group.overlaps == [True, True]


def test_a_buffer_still_referred_to_is_not_reused():
    from paddle_exec.executor.passes.collective import _bucket_buffer, _Layout
    pool = []
    layout = _Layout([np.zeros(6, np.float32)])
    first = _bucket_buffer(pool, layout).array
    view = first[2:4]
    second = _bucket_buffer(pool, layout).array
    assert second is not first                       # `first` is still referred to (here and through `view`)
    del first, view
    assert _bucket_buffer(pool, layout) is pool[0]


def test_a_member_view_still_referred_to_keeps_its_buffer_out_of_reuse():
    """The bucket's buffer hands out the same member views every step; one that someone keeps (the executor's
    slots until the run ends, or a caller) must not be overwritten by the next step's pack."""
    from paddle_exec.executor.passes.collective import _bucket_buffer, _Layout
    pool = []
    layout = _Layout([np.zeros((2, 3), np.float32), np.zeros(3, np.float32)])
    entry = _bucket_buffer(pool, layout)
    assert [v.shape for v in entry.views] == [(2, 3), (3,)]
    assert all(v.base is entry.array for v in entry.views)
    assert _bucket_buffer(pool, layout) is entry     # nothing refers to it: reused
    kept = entry.views[1]
    assert _bucket_buffer(pool, layout) is not entry
    del kept
    assert _bucket_buffer(pool, layout) is entry
    other = _Layout([np.zeros(9, np.float32)])
    assert _bucket_buffer(pool, other) is not entry   # another layout: another buffer


def test_places_then_processes():
    """The fleet program on 2 places per trainer equals the plain program on 2 places (the peers mirror)."""
    def run(strat):
        main, startup, loss = mlp(strat)
        compiled = static.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                   places=static.cpu_places(2))
        return train(main, startup, loss, prog=compiled)
    want = run(None)
    with mirrored(MirrorGroup()) as group:
        got = run(strategy(fuse_grad_size_in_MB=0.0003))
    assert_same_training(got, want)
    assert len([c for c in group.calls if c[0] == 'allreduce_async']) == 2 * len(batches())


def test_sparse_gradients_are_gathered():
    def build(strat):
        main, startup = static.Program(), static.Program()
        startup.random_seed = 3
        with static.program_guard(main, startup), unique_name.guard():
            ids = static.data(name='x', shape=[-1, 1], dtype='int64')
            y = static.data(name='y', shape=[-1, 1], dtype='int64')
            emb = fluid.layers.embedding(ids, size=[10, 4], is_sparse=True)
            logits = static.nn.fc(fluid.layers.reshape(emb, [-1, 4]), 3)
            loss = paddle.mean(paddle.nn.functional.cross_entropy(logits, y))
            opt = paddle.optimizer.SGD(learning_rate=0.5)
            if strat is not None:
                fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=0, worker_num=2))
                opt = fleet.distributed_optimizer(opt, strat)
            opt.minimize(loss)
        return main, startup, loss
    rng = np.random.RandomState(0)
    data = [(rng.randint(0, 10, (6, 1)).astype('int64'), rng.randint(0, 3, (6, 1)).astype('int64'))
            for _ in range(3)]
    want = train(*build(None), data=data)
    with mirrored(MirrorGroup()) as group:
        got = train(*build(strategy()), data=data)
    assert_same_training(got, want)
    assert ('allgather', (6,)) in group.calls                 # the rows of embedding_0.w_0@GRAD


def test_build_strategy_num_trainers():
    """Paddle 1.x's nccl2 mode: a plain program, BuildStrategy.num_trainers = 2; trainer 0's persistables are
    broadcast at the first run, gradients reduced across the trainers."""
    def run(trainers):
        main, startup, loss = mlp()
        bs = static.BuildStrategy()
        bs.num_trainers, bs.trainer_id = trainers, 0
        compiled = static.CompiledProgram(main, bs).with_data_parallel(loss_name=loss.name, build_strategy=bs,
                                                                       places=static.cpu_places(1))
        return train(main, startup, loss, prog=compiled)
    want = run(1)
    with mirrored(MirrorGroup()) as group:
        got = run(2)
    assert_same_training(got, want)
    assert sum(c[0] == 'broadcast' for c in group.calls) >= 4
    with mirrored(MirrorGroup(nranks=3)):
        with pytest.raises(RuntimeError, match='this process is trainer 0 of 3'):
            run(2)


def test_without_graph_optimization_runs_the_compiled_program():
    want = train(*mlp())
    with mirrored(MirrorGroup()) as group:
        main, startup, loss = mlp(strategy(without_graph_optimization=False))
        assert isinstance(main._graph, static.CompiledProgram)
        assert main._graph._build_strategy.num_trainers == 2
        assert [op.type for op in startup.global_block().ops][-2:] == ['c_gen_nccl_id', 'c_comm_init']
        got = train(main, startup, loss)
    assert_same_training(got, want)
    assert any(c[0] == 'allreduce_async' for c in group.calls)


class _OtherProgram(MirrorGroup):
    """Trainer 1 has another first layer."""

    def allgather_object(self, obj):
        if isinstance(obj, str):
            return [obj, 'another digest']
        return [obj, [line.replace('[20, 16]', '[20, 32]') for line in obj]]


def test_different_programs_are_detected_at_startup():
    with mirrored(_OtherProgram()):
        main, startup, loss = mlp(strategy())
        with pytest.raises(RuntimeError, match=r"run different programs: trainer 0 has 'parameter fc_0.w_0 \[20, 16\] "
                                               r"float32' where trainer 1 has 'parameter fc_0.w_0 \[20, 32\]"):
            static.Executor(paddle.CPUPlace()).run(startup, scope=Scope())


def test_fleet_programs_save_and_load_in_paddles_format():
    from paddle_exec.static.paddle_proto import program_from_protobuf
    from paddle_exec.static.paddle_proto_writer import program_to_protobuf
    with mirrored(MirrorGroup()):
        main, startup, _ = mlp(strategy())
    for program in (main, startup):
        back = program_from_protobuf(program_to_protobuf(program))[0]
        assert [(op.type, op.input_arg_names, op.output_arg_names) for op in back.global_block().ops] == \
            [(op.type, op.input_arg_names, op.output_arg_names) for op in program.global_block().ops]
    init = next(op for op in back.global_block().ops if op.type == 'c_comm_init')
    assert (init.attrs['nranks'], init.attrs['rank']) == (2, 0)
    assert init.attrs['endpoints'] == '127.0.0.1:6170,127.0.0.1:6171'
