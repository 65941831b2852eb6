"""Run by test_mpi.py as `mpiexec -n 2 python mpi_cases.py [names]`: each case trains or communicates as one of two
trainers and checks the result against a reference this process computes alone (one process on the whole batch).
Prints 'ok <case>' per case that holds; a failing case raises, which ends the job (abort on error)."""
import os
import sys

import numpy as np

import paddle_exec as paddle
import paddle_exec.distributed as dist
import paddle_exec.distributed.fleet as fleet
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.executor.passes.bucket_sink import sink_state
from paddle_exec.fluid.incubate.fleet.base import role_maker
from paddle_exec.fluid.incubate.fleet.collective import DistributedStrategy as Strategy18
from paddle_exec.fluid.incubate.fleet.collective import fleet as fleet18
from paddle_exec.framework import unique_name
from paddle_exec.framework.collective import get_group
from paddle_exec.framework.scope import Scope

fleet.init(is_collective=True)
RANK, N = fleet.worker_index(), fleet.worker_num()
assert N == 2 and dist.get_world_size() == 2 and dist.get_rank() == RANK
GLOBAL, STEPS = 8, 4
rng = np.random.RandomState(0)
DATA = [(rng.randn(GLOBAL, 10).astype('float32'), rng.randint(0, 3, (GLOBAL, 1)).astype('int64'))
        for _ in range(STEPS)]
IDS = [rng.randint(0, 12, (GLOBAL, 1)).astype('int64') for _ in range(STEPS)]


def model(seed, wrap=None, sparse=False, fluid_opt=False):
    main, startup = static.Program(), static.Program()
    startup.random_seed = seed
    with static.program_guard(main, startup), unique_name.guard():
        if sparse:
            ids = static.data(name='x', shape=[-1, 1], dtype='int64')
            h = fluid.layers.reshape(fluid.layers.embedding(ids, size=[12, 10], is_sparse=True), [-1, 10])
        else:
            h = static.data(name='x', shape=[-1, 10], dtype='float32')
        y = static.data(name='y', shape=[-1, 1], dtype='int64')
        h = static.nn.fc(h, 8, activation='tanh')
        loss = paddle.mean(paddle.nn.functional.cross_entropy(static.nn.fc(h, 3), y))
        opt = fluid.optimizer.Momentum(0.1, 0.9) if fluid_opt else paddle.optimizer.Adam(0.05)
        opt = wrap(opt) if wrap else opt
        opt.minimize(loss)
    return main, startup, loss


def run(main, startup, loss, prog=None, share=1, sparse=False):
    scope, exe = Scope(), static.Executor(paddle.CPUPlace())
    with static.scope_guard(scope):
        exe.run(startup)
        losses = []
        k = GLOBAL // share
        part = slice(RANK * k, (RANK + 1) * k) if share > 1 else slice(None)
        for (x, y), ids in zip(DATA, IDS):
            got = exe.run(prog or main, feed={'x': (ids if sparse else x)[part], 'y': y[part]}, fetch_list=[loss])
            losses.append(float(np.mean(got[0])))
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    return losses, params


def report(name):
    sys.stdout.write('ok %s\n' % name)          # one write: the two trainers' lines do not interleave
    sys.stdout.flush()


def same_as_reference(name, got, want, equal_losses=True):
    losses = np.mean(fleet.util.all_gather(got[0]), axis=0)
    if equal_losses:
        np.testing.assert_allclose(losses, want[0], rtol=1e-5, atol=1e-6, err_msg=name)
    peers = fleet.util.all_gather(got[1])
    for key in want[1]:
        np.testing.assert_array_equal(peers[0][key], peers[1][key],
                                      err_msg='%s: %s differs between trainers' % (name, key))
        if equal_losses:
            np.testing.assert_allclose(got[1][key], want[1][key], rtol=1e-5, atol=1e-6, err_msg='%s: %s' % (name, key))
    report(name)


def strategy(**fields):
    s = fleet.DistributedStrategy()
    for k, v in fields.items():
        setattr(s, k, v)
    return s


def case_fleet():
    want = run(*model(11))
    for name, fields in (('fleet', {}), ('fleet_unfused', {'fuse_all_reduce_ops': False}),
                         ('fleet_small_buckets', {'fuse_grad_size_in_MB': 0.0002}),
                         ('fleet_graph', {'without_graph_optimization': False})):
        got = run(*model(11 + RANK, lambda o: fleet.distributed_optimizer(o, strategy(**fields))), share=N)
        same_as_reference(name, got, want)


def case_fleet_places():
    main, startup, loss = model(11)
    want = run(main, startup, loss, static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=static.cpu_places(4)))
    main, startup, loss = model(11 + RANK, lambda o: fleet.distributed_optimizer(o, strategy()))
    got = run(main, startup, loss, static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=static.cpu_places(2)), share=N)
    same_as_reference('fleet_places', got, want)


def case_sparse():
    want = run(*model(11, sparse=True), sparse=True)
    got = run(*model(11 + RANK, lambda o: fleet.distributed_optimizer(o, strategy()), sparse=True), share=N,
              sparse=True)
    same_as_reference('sparse', got, want)


def case_fleet18():
    want = run(*model(11, fluid_opt=True))
    fleet18.init(role_maker.PaddleCloudRoleMaker(is_collective=True))
    assert fleet18.worker_num() == 2 and fleet18.worker_index() == RANK
    for mode in ('nccl2', 'grad_allreduce', 'local_sgd'):
        s = Strategy18()
        if mode == 'grad_allreduce':
            s.mode, s.collective_mode = 'collective', 'grad_allreduce'
        elif mode == 'local_sgd':
            s.use_local_sgd = True
        main, startup, loss = model(11 + RANK, lambda o: fleet18.distributed_optimizer(o, s), fluid_opt=True)
        got = run(main, startup, loss, fleet18.main_program, share=N)
        same_as_reference('fleet18_' + mode, got, want, equal_losses=mode != 'local_sgd')
    fleet18.barrier_worker()


def case_num_trainers():
    """Paddle 1.x by hand: ParallelExecutor(num_trainers=2, trainer_id=rank) on 2 places per trainer."""
    main, startup, loss = model(11, fluid_opt=True)
    want = run(main, startup, loss, static.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, places=static.cpu_places(4)))
    main, startup, loss = model(11 + RANK, fluid_opt=True)
    bs = fluid.BuildStrategy()
    bs.num_trainers, bs.trainer_id = N, RANK
    compiled = static.CompiledProgram(main, bs).with_data_parallel(loss_name=loss.name, build_strategy=bs,
                                                                   places=static.cpu_places(2))
    same_as_reference('num_trainers', run(main, startup, loss, compiled, share=N), want)


def case_collectives():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data(name='x', shape=[-1, 2], dtype='float32')
        total, biggest, root = paddle.scale(x, 1.0), paddle.scale(x, 1.0), paddle.scale(x, 1.0)
        dist.all_reduce(total)
        dist.all_reduce(biggest, op=dist.ReduceOp.MAX)
        dist.broadcast(root, src=1)
        parts = []
        dist.all_gather(parts, x)
        dist.barrier()
    mine = np.full((1, 2), RANK + 1, dtype='float32')
    out = static.Executor(paddle.CPUPlace()).run(main, feed={'x': mine}, fetch_list=[total, biggest, root] + parts,
                                                 scope=Scope())
    np.testing.assert_array_equal(out[0], [[3, 3]])
    np.testing.assert_array_equal(out[1], [[2, 2]])
    np.testing.assert_array_equal(out[2], [[2, 2]])
    np.testing.assert_array_equal(out[3], [[1, 1]])
    np.testing.assert_array_equal(out[4], [[2, 2]])
    np.testing.assert_array_equal(fleet.util.all_reduce(np.array([RANK + 1.0])), [3.0])
    np.testing.assert_array_equal(fleet.util.all_reduce(np.array([RANK + 1.0]), mode='max'), [2.0])
    assert fleet.util.all_gather(RANK) == [0, 1]
    assert fleet.util.get_file_shard(['a', 'b', 'c']) == (['a', 'b'] if RANK == 0 else ['c'])
    fleet.barrier_worker()
    assert get_group(0).allgather(np.arange(RANK + 1))[1].tolist() == [0, 1]     # uneven gathers
    report('collectives')


def case_sink():
    """The dense bucket's gradients written into its buffer by the segment that makes them (passes/bucket_sink.py)
    and all-reduced there in place over MPI: equal one process. Under PADDLE_EXEC_COMPILE=sync (test_mpi.py) the
    sink is taken from the third run on."""
    want = run(*model(11))
    main, startup, loss = model(11 + RANK, lambda o: fleet.distributed_optimizer(o, strategy()))
    scope, exe = Scope(), static.Executor(paddle.CPUPlace())
    k = GLOBAL // N
    with static.scope_guard(scope):
        exe.run(startup)
        losses = [float(np.mean(exe.run(main, feed={'x': x[RANK * k:(RANK + 1) * k], 'y': y[RANK * k:(RANK + 1) * k]},
                                        fetch_list=[loss])[0])) for x, y in DATA]
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    states = [s for s in map(sink_state, exe._runner.plans.plans()[-1].nodes) if s is not None]
    if os.environ.get('PADDLE_EXEC_COMPILE') == 'sync':
        assert [(s.sunk, s.packed) for s in states] == [(STEPS - 2, 2)], [(s.sunk, s.packed) for s in states]
    same_as_reference('sink', (losses, params), want)


CASES = {'fleet': case_fleet, 'fleet_places': case_fleet_places, 'sparse': case_sparse, 'fleet18': case_fleet18,
         'num_trainers': case_num_trainers, 'collectives': case_collectives, 'sink': case_sink}
for name in sys.argv[1:] or CASES:
    CASES[name]()
