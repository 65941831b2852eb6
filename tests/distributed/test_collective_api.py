"""paddle.distributed's static collectives, the collective ops, fleet.util, the role makers, distributed_batch_reader,
ParallelEnv and the trainer environment (executor/config.py), in one process (MirrorGroup: peers identical to this
trainer, tests/distributed/fakes.py)."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.distributed as dist
import paddle_exec.distributed.fleet as fleet
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.executor.config import Environment, child_environment, trainer_environment
from paddle_exec.fluid.incubate.fleet.base import role_maker
from paddle_exec.framework import collective, unique_name
from paddle_exec.framework.scope import Scope, SelectedRows
from paddle_exec.ops.collective import reduce_selected_rows

from .fakes import MirrorGroup, mirrored


def collectives_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data(name='x', shape=[-1, 3], dtype='float32')
        total = paddle.scale(x, 1.0)
        dist.all_reduce(total)
        biggest = paddle.scale(x, 1.0)
        dist.all_reduce(biggest, op=dist.ReduceOp.MAX)
        root = paddle.scale(x, 1.0)
        dist.broadcast(root, src=0)
        parts = []
        dist.all_gather(parts, x)
        dist.barrier()
    return main, [total, biggest, root] + parts


def test_static_collectives_append_paddles_ops():
    main, _ = collectives_program()
    ops = [op for op in main.global_block().ops if op.type not in ('scale', 'fill_constant', 'split')]
    assert [op.type for op in ops] == ['c_allreduce_sum', 'c_allreduce_max', 'c_broadcast', 'c_allgather', 'barrier']
    assert ops[0].input_arg_names == ops[0].output_arg_names            # in place, as Paddle
    assert ops[0].attrs['ring_id'] == 0 and ops[0].attrs['use_calc_stream'] is True
    assert ops[2].attrs['root'] == 0
    assert ops[3].attrs['nranks'] == 1                                   # the world size when the program was built
    with pytest.raises(ValueError, match='ReduceOp'):
        dist.all_reduce(main.global_block().var('x'), op=dist.ReduceOp.AVG)


def test_static_collectives_run_on_the_group():
    main, fetches = collectives_program()
    x = np.arange(6, dtype='float32').reshape(2, 3)
    with mirrored(MirrorGroup(nranks=1)) as group:
        out = static.Executor(paddle.CPUPlace()).run(main, feed={'x': x}, fetch_list=fetches, scope=Scope())
    for got in out[:3] + out[3:]:
        np.testing.assert_array_equal(got, x)
    assert [c[0] for c in group.calls] == ['allreduce', 'allreduce', 'broadcast', 'allgather', 'barrier']


def test_collectives_over_places_reduce_the_places_first():
    """On 2 places a program's all-reduce spans places and trainers: the places' values are summed, then the
    trainers'; a broadcast takes place 0's value; a gather concatenates in (trainer, place) order."""
    main, fetches = collectives_program()
    x = np.arange(12, dtype='float32').reshape(4, 3)
    compiled = static.CompiledProgram(main).with_data_parallel(places=static.cpu_places(2))
    with mirrored(MirrorGroup(nranks=2)) as group:
        total, biggest, root = static.Executor(paddle.CPUPlace()).run(
            compiled, feed={'x': x}, fetch_list=fetches[:3], scope=Scope(), return_merged=False)
    halves = x[:2], x[2:]
    for p in range(2):
        np.testing.assert_array_equal(total[p], 2 * (halves[0] + halves[1]))
        np.testing.assert_array_equal(biggest[p], np.maximum(halves[0], halves[1]))
        np.testing.assert_array_equal(root[p], halves[0])
    assert ('allreduce', 'sum', 24) in group.calls and ('broadcast', 0, (2, 3)) in group.calls


def test_a_job_of_one_trainer_reduces_nothing():
    main, fetches = collectives_program()
    x = np.ones((2, 3), dtype='float32')
    collective.reset_groups()
    out = static.Executor(paddle.CPUPlace()).run(main, feed={'x': x}, fetch_list=fetches, scope=Scope())
    for got in out:
        np.testing.assert_array_equal(got, x)
    assert isinstance(collective.get_group(0), collective.LocalGroup)


def test_selected_rows_are_gathered_in_rank_order():
    value = SelectedRows(np.array([3, 1]), np.array([[1.0], [2.0]], dtype='float32'), 5)
    got = reduce_selected_rows(MirrorGroup(nranks=2), value)
    np.testing.assert_array_equal(got.rows, [3, 1, 3, 1])
    np.testing.assert_array_equal(got.values[:, 0], [1, 2, 1, 2])
    assert got.height == 5


def test_comm_init_checks_the_job():
    startup = static.Program()
    block = startup.global_block()
    comm_id = block.create_var(name='comm_id_0', persistable=True)
    block.append_op('c_comm_init', {'X': [comm_id]}, {}, {'nranks': 2, 'rank': 1, 'ring_id': 0})
    with mirrored(MirrorGroup(nranks=2, rank=0)):
        with pytest.raises(RuntimeError, match='built for trainer 1 of 2, but this process is trainer 0 of 2'):
            static.Executor(paddle.CPUPlace()).run(startup, scope=Scope())


def test_fleet_util_and_the_role():
    fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=1, worker_num=3))
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (1, 3, False)
    assert fleet.worker_endpoints(to_string=True) == '127.0.0.1:6170,127.0.0.1:6171,127.0.0.1:6172'
    assert fleet.util.get_file_shard(list(range(10))) == [4, 5, 6]        # blocks 4, 3, 3
    with mirrored(MirrorGroup(nranks=3, rank=1)) as group:
        np.testing.assert_array_equal(fleet.util.all_reduce(np.array([1.0, 2.0])), [3.0, 6.0])
        assert fleet.util.all_gather({'a': 1}) == [{'a': 1}] * 3
        fleet.util.barrier()
        fleet.barrier_worker()
    assert [c[0] for c in group.calls] == ['allreduce', 'allgather_object', 'barrier', 'barrier']
    with pytest.raises(ValueError, match='mode'):
        fleet.util.all_reduce(np.ones(1), mode='mean')
    with pytest.raises(NotImplementedError, match='parameter-server'):
        fleet.init(is_collective=False)


def test_print_on_rank(capsys):
    fleet.init(fleet.UserDefinedRoleMaker(is_collective=True, current_id=1, worker_num=2))
    fleet.util.print_on_rank('not me', 0)
    fleet.util.print_on_rank('me', 1)
    assert capsys.readouterr().out == 'me\n'


def test_18_role_makers():
    role = role_maker.UserDefinedCollectiveRoleMaker(current_id=1, worker_endpoints=['h:1', 'h:2'])
    assert (role.worker_index(), role.worker_num(), role.is_first_worker()) == (1, 2, False)
    assert role.get_trainer_endpoints() == ['h:1', 'h:2']
    with pytest.raises(ValueError):
        role_maker.UserDefinedCollectiveRoleMaker(current_id=2, worker_endpoints=['h:1'])
    with pytest.raises(NotImplementedError):
        role_maker.PaddleCloudRoleMaker(is_collective=False)


def test_trainer_environment():
    def env(**values):
        return trainer_environment(Environment().with_values(**values))
    one = env()
    assert (one.trainer_id, one.trainers_num, one.distributed) == (0, 1, False)
    launched = env(PADDLE_TRAINER_ID='1', PADDLE_TRAINERS_NUM='2', PADDLE_TRAINER_ENDPOINTS='a:1,b:2',
                   PADDLE_CURRENT_ENDPOINT='b:2', PMI_RANK='1', PMI_SIZE='2')
    assert (launched.trainer_id, launched.trainers_num, launched.endpoints, launched.current_endpoint,
            launched.mpi_rank, launched.distributed) == (1, 2, ('a:1', 'b:2'), 'b:2', 1, True)
    plain_mpiexec = env(PMI_RANK='2', PMI_SIZE='3')
    assert (plain_mpiexec.trainer_id, plain_mpiexec.trainers_num) == (2, 3)
    assert plain_mpiexec.current_endpoint == '127.0.0.1:6172'
    openmpi = env(OMPI_COMM_WORLD_RANK='1', OMPI_COMM_WORLD_SIZE='2')
    assert (openmpi.trainer_id, openmpi.trainers_num) == (1, 2)
    assert env(PADDLE_TRAINER_ENDPOINTS='a:1,b:2,c:3').trainers_num == 3
    with pytest.raises(ValueError, match='PADDLE_TRAINER_ID'):
        env(PADDLE_TRAINER_ID='2', PADDLE_TRAINERS_NUM='2')
    with pytest.raises(ValueError, match='PADDLE_TRAINERS_NUM must be an integer'):
        env(PADDLE_TRAINERS_NUM='two')
    assert child_environment({'PADDLE_TRAINER_ID': '7'})['PADDLE_TRAINER_ID'] == '7'


def test_parallel_env_and_batch_reader(monkeypatch):
    monkeypatch.setenv('PADDLE_TRAINER_ID', '1')
    monkeypatch.setenv('PADDLE_TRAINERS_NUM', '2')
    monkeypatch.setenv('PADDLE_TRAINER_ENDPOINTS', '127.0.0.1:6170,127.0.0.1:6171')
    assert (dist.get_rank(), dist.get_world_size()) == (1, 2)
    env = dist.ParallelEnv()
    assert (env.rank, env.world_size, env.local_rank, env.nranks) == (1, 2, 1, 2)
    assert env.current_endpoint == '127.0.0.1:6171'
    assert env.trainer_endpoints == ['127.0.0.1:6170', '127.0.0.1:6171']

    def batches():
        yield from range(7)
    assert list(fluid.contrib.reader.distributed_batch_reader(batches)()) == [1, 3, 5]


def test_a_trainer_not_started_by_mpiexec_is_told_how(monkeypatch):
    monkeypatch.setenv('PADDLE_TRAINER_ID', '0')
    monkeypatch.setenv('PADDLE_TRAINERS_NUM', '2')
    for name in ('PMI_RANK', 'PMI_SIZE', 'OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE'):
        monkeypatch.delenv(name, raising=False)
    collective.reset_groups()
    try:
        with pytest.raises(RuntimeError, match='not started by mpiexec.*paddle_exec.distributed.launch'):
            dist.init_parallel_env()
    finally:
        collective.reset_groups()


def test_groups_backend_and_availability(monkeypatch):
    group = dist.get_group()
    assert (group.id, group.rank, group.nranks, group.is_member()) == (0, 0, 1, True)
    assert dist.get_backend() == 'LOCAL'
    assert dist.is_available() is (__import__('importlib').util.find_spec('mpi4py') is not None)
    monkeypatch.setenv('PADDLE_TRAINER_ID', '1')
    monkeypatch.setenv('PADDLE_TRAINERS_NUM', '2')
    assert dist.get_backend() == 'MPI'
    assert dist.get_group(3).ranks == [0, 1] and dist.get_group(3).get_group_rank(5) == -1
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data(name='x', shape=[-1, 2], dtype='float32')
        dist.all_reduce(x, group=dist.get_group(3))
    assert main.global_block().ops[-1].attrs['ring_id'] == 3
