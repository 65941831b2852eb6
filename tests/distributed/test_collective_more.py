"""paddle.distributed's reduce / reduce_scatter / scatter / gather / alltoall, send / recv, sub-groups and object
collectives in one process: the ops they append (against Paddle 2.6.2's printouts), what they compute in a job of
one trainer (LocalGroup) and on mirrored peers (tests/distributed/fakes.py). Two real trainers: test_mpi_more.py."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.distributed as dist
import paddle_exec.static as static
from paddle_exec.executor import config
from paddle_exec.executor.passes.collective import _summary
from paddle_exec.framework import collective, unique_name
from paddle_exec.framework.scope import Scope
from paddle_exec.layers.helper import LayerHelper

from .fakes import MirrorGroup, mirrored


def build(fn, shape=(4, 2)):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data('x', list(shape), 'float32')
        fetches = fn(x)
    return main, startup, fetches


def run(main, startup, fetches, x):
    exe, scope = static.Executor(paddle.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed={'x': x}, fetch_list=fetches, scope=scope)


def printed(main, types):
    """Our printout of the ops of `types`, without the attributes Paddle 2.6.2 adds and paddle_exec does not keep
    (op_device, with_quant_attr)."""
    return [str(op).strip().replace('\n', ' ') for op in main.global_block().ops if op.type in types]


# Paddle 2.6.2's printouts (record_paddle26.py: `str(op)` of the op each call appends),
# less `op_device = , ` and `, with_quant_attr = False`
PADDLE_26 = {
    'reduce': ("{Out=['x']} = c_reduce_sum(inputs={X=['x']}, op_namescope = /, op_role = 0, op_role_var = [], "
               "ring_id = 0, root_id = 1, use_calc_stream = True)"),
    'reduce_max': ("{Out=['x']} = c_reduce_max(inputs={X=['x']}, op_namescope = /, op_role = 0, op_role_var = [], "
                   "ring_id = 0, root_id = 0, use_calc_stream = True)"),
    'reduce_scatter': ("{out=['o']} = reduce_scatter(inputs={x=['x']}, nranks = 1, op_namescope = /, op_role = 0, "
                       "op_role_var = [], ring_id = 0)"),
    'alltoall': ("{Out=['alltoall_0.tmp_0']} = alltoall(inputs={X=['concat_0.tmp_0']}, op_namescope = /, "
                 "op_role = 0, op_role_var = [], ring_id = 0, use_calc_stream = True)"),
    'send': ("send_v2(inputs={X=['x']}, dynamic_shape = False, op_namescope = /, op_role = 0, op_role_var = [], "
             "peer = 1, ring_id = 0, use_calc_stream = True)"),
    'isend': ("send_v2(inputs={X=['x']}, dynamic_shape = False, op_namescope = /, op_role = 0, op_role_var = [], "
              "peer = 1, ring_id = 0, use_calc_stream = False)"),
    'recv': ("{Out=['x']} = recv_v2(inputs={}, dtype = 5, dynamic_shape = False, op_namescope = /, op_role = 0, "
             "op_role_var = [], out_shape = [4, 2], peer = 1, ring_id = 0, use_calc_stream = True)"),
    'wait': "{Out=['x']} = c_sync_calc_stream(inputs={X=['x']}, op_namescope = /, op_role = 0, op_role_var = [])",
}


@pytest.mark.parametrize('name, fn, types', [
    ('reduce', lambda x: dist.reduce(x, dst=1), {'c_reduce_sum'}),
    ('reduce_max', lambda x: dist.reduce(x, dst=0, op=dist.ReduceOp.MAX), {'c_reduce_max'}),
    ('reduce_scatter', lambda x: dist.reduce_scatter(static.data('o', [4, 2], 'float32'), x), {'reduce_scatter'}),
    ('alltoall', lambda x: dist.alltoall([x[:2], x[2:]], []), {'alltoall'}),
    ('send', lambda x: dist.send(x, dst=1), {'send_v2'}),
    ('isend', lambda x: dist.isend(x, dst=1), {'send_v2'}),
    ('recv', lambda x: dist.recv(x, src=1), {'recv_v2'}),
    ('wait', lambda x: dist.wait(x), {'c_sync_calc_stream'}),
])
def test_ops_print_as_paddle_2_6_2s(name, fn, types):
    main, _, _ = build(fn)
    assert printed(main, types) == [PADDLE_26[name]]


def as_trainer(monkeypatch, rank, nranks):
    """Programs built as trainer `rank` of `nranks` (the attributes nranks, and scatter's choice of list)."""
    monkeypatch.setattr('paddle_exec.distributed.collective.get_world_size', lambda: nranks)
    monkeypatch.setattr('paddle_exec.distributed.collective.get_rank', lambda: rank)


# Paddle 2.6.2 as trainer 0 of 2 (record_paddle26.py with PADDLE_TRAINERS_NUM=2, PADDLE_TRAINER_ID=0)
PADDLE_26_TWO = {
    'c_scatter': ("{Out=['o']} = c_scatter(inputs={X=['concat_0.tmp_0']}, nranks = 2, op_namescope = /, op_role = 0, "
                  "op_role_var = [], ring_id = 0, root = 0, use_calc_stream = True)"),
    'reduce_scatter': ("{out=['o']} = reduce_scatter(inputs={x=['x']}, nranks = 2, op_namescope = /, op_role = 0, "
                       "op_role_var = [], ring_id = 0)"),
}


def test_ops_of_a_job_of_two_print_as_paddle_2_6_2s(monkeypatch):
    as_trainer(monkeypatch, 0, 2)

    def fn(x):
        out = static.data('o', [2, 2], 'float32')
        dist.scatter(out, [x[:2], x[2:]], src=0)
        dist.reduce_scatter(out, x)
    main, _, _ = build(fn)
    assert printed(main, {'c_scatter', 'reduce_scatter'}) == [PADDLE_26_TWO['c_scatter'],
                                                              PADDLE_26_TWO['reduce_scatter']]


def test_a_job_of_one_trainer_keeps_its_tensors():
    """One trainer: reduce and alltoall are identities, scatter / reduce_scatter keep the one part (all of it),
    gather gives [x], send then recv hands the tensor to itself."""
    def fn(x):
        reduced = paddle.scale(x, 1.0)
        dist.reduce(reduced, dst=0)
        part = static.create_global_var([4, 2], 0.0, 'float32', name='part')
        dist.reduce_scatter(part, [x])
        piece = static.create_global_var([4, 2], 0.0, 'float32', name='piece')
        dist.scatter(piece, [paddle.scale(x, 2.0)], src=0)
        gathered, moved = [], []
        dist.gather(x, gathered, dst=0)
        dist.alltoall([x], moved)
        dist.send(paddle.scale(x, 3.0), dst=0)
        got = static.create_global_var([4, 2], 0.0, 'float32', name='got')
        dist.recv(got, src=0)
        return [reduced, part, piece, got] + gathered + moved
    x = np.arange(8, dtype='float32').reshape(4, 2)
    collective.reset_groups()
    out = run(*build(fn), x)
    for got, want in zip(out, [x, x, 2 * x, 3 * x, x, x]):
        np.testing.assert_array_equal(got, want)


def test_collectives_over_mirrored_peers(monkeypatch):
    """Trainer 1 of 2 whose peer holds the same x: the reduce lands on dst only, reduce_scatter sums its part,
    scatter takes src's part `rank`, alltoall receives part `rank` from each."""
    def fn(x):
        to_me, to_other = paddle.scale(x, 1.0), paddle.scale(x, 1.0)
        dist.reduce(to_me, dst=1)
        dist.reduce(to_other, dst=0)
        part = static.create_global_var([2, 2], 0.0, 'float32', name='part')
        dist.reduce_scatter(part, x)
        piece = static.create_global_var([2, 2], 0.0, 'float32', name='piece')
        dist.scatter(piece, x, src=0)
        single = static.create_global_var([4, 2], 0.0, 'float32', name='single')
        dist.alltoall_single(x, single)
        return [to_me, to_other, part, piece, single]
    x = np.arange(8, dtype='float32').reshape(4, 2)
    as_trainer(monkeypatch, 1, 2)
    with mirrored(MirrorGroup(nranks=2, rank=1)) as group:
        main, startup, fetches = build(fn)
        out = run(main, startup, fetches, x)
    for got, want in zip(out, [2 * x, x, 2 * x[2:], x[2:], np.concatenate([x[2:], x[2:]])]):
        np.testing.assert_array_equal(got, want)
    assert [c[0] for c in group.calls if c[0] not in ('allgather_object', 'allreduce')] == [
        'reduce', 'reduce', 'reduce_scatter', 'scatter', 'alltoall']


def test_c_reducescatter_the_older_op(monkeypatch):
    """Paddle's c_reducescatter (slots X / Out, the stream attributes): Out is part `rank` of the sum; its shape
    rule cuts the first dimension."""
    def fn(x):
        helper = LayerHelper('c_reducescatter')
        out = helper.create_variable_for_type_inference('float32')
        helper.append_op(type='c_reducescatter', inputs={'X': [x]}, outputs={'Out': [out]},
                         attrs={'ring_id': 0, 'nranks': 2, 'use_calc_stream': True})
        return [out]
    x = np.arange(8, dtype='float32').reshape(4, 2)
    with mirrored(MirrorGroup(nranks=2, rank=1)):
        main, startup, fetches = build(fn)
        assert fetches[0].shape == (2, 2)
        out, = run(main, startup, fetches, x)
    np.testing.assert_array_equal(out, 2 * x[2:])


def test_parts_must_divide_among_the_trainers(monkeypatch):
    as_trainer(monkeypatch, 0, 2)
    def fn(x):
        out = static.create_global_var([3, 2], 0.0, 'float32', name='out')
        dist.alltoall(x, out)
        return [out]
    with mirrored(MirrorGroup(nranks=2)):
        with pytest.raises(ValueError, match='divisible by the number of trainers'):
            run(*build(fn, shape=(3, 2)), np.ones((3, 2), 'float32'))
    with pytest.raises(NotImplementedError, match='unequal'):
        build(lambda x: dist.alltoall_single(x, x, [1, 3], [1, 3]))
    with pytest.raises(ValueError, match='sums'):
        build(lambda x: dist.reduce_scatter(x, x, op=dist.ReduceOp.MAX))


def test_parts_and_p2p_ops_run_on_one_place_only():
    main, _, fetches = build(lambda x: dist.alltoall([x], []) or [], shape=(-1, 2))
    compiled = static.CompiledProgram(main).with_data_parallel(places=static.cpu_places(2))
    with mirrored(MirrorGroup(nranks=2)):
        with pytest.raises(NotImplementedError, match='alltoall cannot run on 2 places'):
            static.Executor(paddle.CPUPlace()).run(compiled, feed={'x': np.ones((4, 2), 'float32')},
                                                   fetch_list=[main.global_block().ops[-1].output('Out')[0]],
                                                   scope=Scope())


def test_groups_have_paddles_ring_ids_and_ranks():
    dist.destroy_process_group()
    group = dist.new_group([0])
    assert (group.id, group.rank, group.ranks, group.nranks, group.world_size) == (10, 0, [0], 1, 1)
    assert dist.get_group(10) is group and dist.get_group(0).ranks == [0]
    assert repr(group) == 'rank: 0, nranks: 1, id: 10, ranks: 0; name: None'
    assert dist.get_rank(group) == 0 and dist.get_world_size(group) == 1
    main, _, _ = build(lambda x: dist.all_reduce(x, group=group))
    assert [op.attrs['ring_id'] for op in main.global_block().ops if op.type == 'c_allreduce_sum'] == [10]
    with pytest.raises(AssertionError, match='can not be found inside the group'):
        build(lambda x: dist.broadcast(x, src=1, group=group))
    with pytest.raises(ValueError, match='Unsupported backend'):
        dist.new_group([0], backend='hccl')
    with pytest.raises(ValueError, match='distinct trainers'):
        dist.new_group([0, 3])
    dist.destroy_process_group(group)
    with pytest.raises(AssertionError, match='Destroy group with id 10 is invalid'):
        dist.destroy_process_group(group)
    assert collective.ring_ranks(10) is None


def test_new_group_of_several_appends_paddles_sync():
    """Like Paddle, a member of a new group of two or more appends an all-reduce of an empty int32 tensor on ring 0
    and a c_sync_calc_stream (here: on a mirrored job of 2)."""
    env = config.trainer_environment()
    fake = config.TrainerEnvironment(**{**env.__dict__, 'trainer_id': 1, 'trainers_num': 2})
    main = static.Program()
    with static.program_guard(main, static.Program()), unique_name.guard(), \
            pytest.MonkeyPatch.context() as mp:
        mp.setattr('paddle_exec.distributed.group.trainer_environment', lambda: fake)
        group = dist.new_group([0, 1])
    assert group.rank == 1 and group.nranks == 2
    assert [op.type for op in main.global_block().ops] == ['fill_constant', 'c_allreduce_sum', 'c_sync_calc_stream']
    dist.destroy_process_group()


def test_send_recv_and_sub_group_ops_are_left_out_of_the_same_program_check():
    """The two ends of a send are in different programs, and a sub-group's collectives run on its members only."""
    dist.destroy_process_group()
    group = dist.new_group([0])
    main, _, _ = build(lambda x: [dist.send(x, dst=0), dist.all_reduce(x, group=group), dist.all_reduce(x)])
    lines = [line for line in _summary(main) if line.startswith('op')]
    assert len(lines) == 1 and 'c_allreduce_sum' in lines[0] and "'ring_id': 0" in lines[0]
    dist.destroy_process_group()


def test_isend_irecv_return_tasks_whose_wait_syncs_the_comm_stream():
    def fn(x):
        task = dist.isend(x, dst=0)
        task.wait()
        task = dist.irecv(x, src=0)
        task.wait()
    main, _, _ = build(fn)
    ops = main.global_block().ops
    assert [op.type for op in ops] == ['send_v2', 'c_sync_comm_stream', 'recv_v2', 'c_sync_comm_stream']
    assert ops[0].attrs['use_calc_stream'] is False and ops[1].attrs['ring_id'] == 0


def test_object_collectives_in_a_job_of_one():
    collective.reset_groups()
    objs = []
    dist.all_gather_object(objs, {'a': 1})
    assert objs == [{'a': 1}]
    items = [1, 'two']
    dist.broadcast_object_list(items, src=0)
    assert items == [1, 'two']
    out = []
    dist.scatter_object_list(out, [{'x': 3}], src=0)
    assert out == [{'x': 3}]
    with pytest.raises(ValueError, match='one object per trainer'):
        dist.scatter_object_list(out, [1, 2], src=0)


@pytest.mark.parametrize('root', [0, 1])
def test_reduce_over_places_lands_on_the_roots_places(root):
    """Trainer 0 of 2 (mirrored peer) on 2 places: the places' values are summed, then the trainers'; the sum
    reaches every place of the root, and a trainer that is not the root keeps each place's own value."""
    def fn(x):
        total = paddle.scale(x, 1.0)
        dist.reduce(total, dst=root)
        return [total]
    main, _, fetches = build(fn, shape=(-1, 2))
    x = np.arange(8, dtype='float32').reshape(4, 2)
    compiled = static.CompiledProgram(main).with_data_parallel(places=static.cpu_places(2))
    with mirrored(MirrorGroup(nranks=2, rank=0)):
        out, = static.Executor(paddle.CPUPlace()).run(compiled, feed={'x': x}, fetch_list=fetches, scope=Scope(),
                                                      return_merged=False)
    halves = x[:2], x[2:]
    for p in range(2):
        np.testing.assert_array_equal(out[p], 2 * (halves[0] + halves[1]) if root == 0 else halves[p])
