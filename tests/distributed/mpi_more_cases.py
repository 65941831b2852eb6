"""Run by test_mpi_more.py as `mpiexec -n 2 python mpi_more_cases.py [names]`: paddle.distributed's collectives
beyond the all-reduce (reduce, reduce_scatter, scatter, gather, alltoall), send / recv, sub-groups and the object
collectives, as one of two trainers; each case checks what this trainer ends with. Prints 'ok <case>' per case."""
import os
import sys
import tempfile

import numpy as np

import paddle_exec as paddle
import paddle_exec.distributed as dist
import paddle_exec.distributed.fleet as fleet
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.fluid.transpiler.collective import GradAllReduce, LocalSGD
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope

dist.init_parallel_env()
RANK, N = dist.get_rank(), dist.get_world_size()
assert N == 2


def report(name):
    sys.stdout.write('ok %s\n' % name)     # one write: the two trainers' lines must not interleave
    sys.stdout.flush()


def run(build, feed):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        fetches = build()
    exe, scope = static.Executor(paddle.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    return main, exe.run(main, feed=feed, fetch_list=fetches, scope=scope)


def mine(shape=(4, 2)):
    """Trainer r's tensor: 10 * (r + 1) + 0, 1, 2, ... (so every trainer's values differ)."""
    return (10 * (RANK + 1) + np.arange(int(np.prod(shape)))).reshape(shape).astype('float32')


def theirs(rank, shape=(4, 2)):
    return (10 * (rank + 1) + np.arange(int(np.prod(shape)))).reshape(shape).astype('float32')


def case_parts():
    def build():
        x = static.data(name='x', shape=[4, 2], dtype='float32')
        reduced, biggest = paddle.scale(x, 1.0), paddle.scale(x, 1.0)
        dist.reduce(reduced, dst=1)
        dist.reduce(biggest, dst=0, op=dist.ReduceOp.MAX)
        part = static.create_global_var([2, 2], 0.0, 'float32', name='part')
        dist.reduce_scatter(part, [x[:2], x[2:]])
        piece = static.create_global_var([2, 2], 0.0, 'float32', name='piece')
        dist.scatter(piece, [paddle.scale(x[:2], 1.0), paddle.scale(x[2:], 1.0)], src=1)
        gathered = []
        dist.gather(x, gathered if RANK == 0 else None, dst=0)
        moved = []
        dist.alltoall([x[:2], x[2:]], moved)
        single = static.create_global_var([4, 2], 0.0, 'float32', name='single')
        dist.alltoall_single(x, single, [2, 2], [2, 2])
        return [reduced, biggest, part, piece, single] + moved + gathered
    main, out = run(build, {'x': mine()})
    types = [op.type for op in main.global_block().ops]
    for t in ('c_reduce_sum', 'c_reduce_max', 'reduce_scatter', 'c_scatter', 'c_allgather', 'alltoall'):
        assert t in types, (t, types)
    a, b = theirs(0), theirs(1)
    np.testing.assert_array_equal(out[0], a + b if RANK == 1 else a)
    np.testing.assert_array_equal(out[1], np.maximum(a, b) if RANK == 0 else b)
    np.testing.assert_array_equal(out[2], (a + b)[2 * RANK:2 * RANK + 2])
    np.testing.assert_array_equal(out[3], b[2 * RANK:2 * RANK + 2])
    np.testing.assert_array_equal(out[4], np.concatenate([a[2 * RANK:2 * RANK + 2], b[2 * RANK:2 * RANK + 2]]))
    np.testing.assert_array_equal(out[5], a[2 * RANK:2 * RANK + 2])
    np.testing.assert_array_equal(out[6], b[2 * RANK:2 * RANK + 2])
    if RANK == 0:
        np.testing.assert_array_equal(out[7], a)
        np.testing.assert_array_equal(out[8], b)
    report('parts')


def case_p2p():
    """Both trainers send first, then receive (a send does not wait); a recv of shape [-1, 3] takes its length from
    the message; isend / irecv with wait."""
    peer = 1 - RANK

    def build():
        x = static.data(name='x', shape=[4, 2], dtype='float32')
        dist.send(x, dst=peer)
        got = static.create_global_var([4, 2], 0.0, 'float32', name='got')
        dist.recv(got, src=peer)
        rows = paddle.full([RANK + 1, 3], float(RANK), 'int64')
        task = dist.isend(rows, dst=peer)
        task.wait()
        any_rows = static.data(name='any_rows', shape=[-1, 3], dtype='int64')
        task = dist.irecv(any_rows, src=peer)
        task.wait()
        return [got, any_rows]
    main, (got, rows) = run(build, {'x': mine()})
    types = [op.type for op in main.global_block().ops]
    assert types.count('send_v2') == 2 and types.count('recv_v2') == 2, types
    np.testing.assert_array_equal(got, theirs(peer))
    np.testing.assert_array_equal(rows, np.full((peer + 1, 3), peer, 'int64'))
    report('p2p')


def case_groups():
    pair = dist.new_group([0, 1])
    alone = dist.new_group([1])
    assert pair.id == 10 and alone.id == 11 and pair.nranks == 2 and pair.rank == RANK
    assert alone.rank == (0 if RANK == 1 else -1) and alone.is_member() == (RANK == 1)
    assert dist.get_group(10) is pair and dist.get_rank(pair) == RANK and dist.get_world_size(alone) == (
        1 if RANK == 1 else -1)

    def build():
        x = static.data(name='x', shape=[4, 2], dtype='float32')
        total, own = paddle.scale(x, 1.0), paddle.scale(x, 1.0)
        dist.all_reduce(total, group=pair)
        dist.all_reduce(own, group=alone)          # trainer 0 is not a member: nothing appended there
        root = paddle.scale(x, 1.0)
        dist.broadcast(root, src=1, group=pair)
        return [total, own, root]
    main, out = run(build, {'x': mine()})
    rings = [op.attrs['ring_id'] for op in main.global_block().ops if op.type.startswith('c_')]
    assert 10 in rings and (11 in rings) == (RANK == 1), rings
    np.testing.assert_array_equal(out[0], theirs(0) + theirs(1))
    np.testing.assert_array_equal(out[1], mine())
    np.testing.assert_array_equal(out[2], theirs(1))
    dist.destroy_process_group(alone)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    report('groups')


def case_objects():
    objs = []
    dist.all_gather_object(objs, {'rank': RANK})
    assert objs == [{'rank': 0}, {'rank': 1}], objs
    items = ['a', {'b': 2}] if RANK == 0 else [None, None]
    dist.broadcast_object_list(items, src=0)
    assert items == ['a', {'b': 2}], items
    out = []
    dist.scatter_object_list(out, [[1], 'two'] if RANK == 1 else None, src=1)
    assert out == [[[1], 'two'][RANK]], out
    report('objects')


def case_gloo_and_checkpoint():
    """gloo_* on the job's group; save_state_dict spreads the keys over the trainers' files, load reads them back
    on every trainer."""
    dist.gloo_init_parallel_env(RANK, N, '127.0.0.1:6170')
    dist.gloo_barrier()
    dist.gloo_release()
    items = [tempfile.mkdtemp() if RANK == 0 else None]
    dist.broadcast_object_list(items, src=0)
    path = os.path.join(items[0], 'ckpt')
    state = {'a': np.arange(4.0), 'b': np.full((2, 2), 3.0), 'c': np.array([9])}
    dist.save_state_dict(state, path)
    files = sorted(os.listdir(path))
    assert files == ['0.metadata', '0_0.distcp', '1_0.distcp'], files
    back = {'a': np.zeros(4), 'b': np.zeros((2, 2)), 'c': np.zeros(1, 'int64')}
    dist.load_state_dict(back, path)
    for key in state:
        np.testing.assert_array_equal(back[key], state[key])
    report('gloo_checkpoint')


def case_hybrid():
    """A data axis of 2: its group spans both trainers and reduces over them; the model axis groups are single."""
    hcg = fleet.HybridCommunicateGroup(fleet.CommunicateTopology(dims=[2, 1, 1, 1, 1]))
    assert hcg.get_parallel_mode() == dist.ParallelMode.DATA_PARALLEL
    assert hcg.get_data_parallel_rank() == RANK and hcg.get_data_parallel_group().ranks == [0, 1]
    assert hcg.get_model_parallel_group().ranks == [RANK]

    def build():
        x = static.data(name='x', shape=[4, 2], dtype='float32')
        total = paddle.scale(x, 1.0)
        dist.all_reduce(total, group=hcg.get_data_parallel_group())
        return [total]
    _, out = run(build, {'x': mine()})
    np.testing.assert_array_equal(out[0], theirs(0) + theirs(1))
    report('hybrid')


def case_transpiler():
    """fluid.transpiler.collective.GradAllReduce on two trainers, each on its half of the batch, trains as one
    process on the whole batch; LocalSGD leaves the trainers with one set of parameters."""
    rng = np.random.RandomState(3)
    batches = [(rng.rand(8, 4).astype('float32'), rng.rand(8, 1).astype('float32')) for _ in range(3)]
    endpoints = ['127.0.0.1:6170', '127.0.0.1:6171']

    def train(transpiler, share):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 5
        with fluid.program_guard(main, startup), unique_name.guard():
            x = fluid.data('x', [-1, 4], 'float32')
            y = fluid.data('y', [-1, 1], 'float32')
            loss = fluid.layers.mean(fluid.layers.square(fluid.layers.fc(x, 1) - y))
            fluid.optimizer.SGD(0.5).minimize(loss)
        if transpiler is not None:
            transpiler.transpile(startup, main, RANK, endpoints, endpoints[RANK], wait_port=False)
        exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
        exe.run(startup, scope=scope)
        for bx, by in batches:
            part = slice(4 * RANK, 4 * RANK + 4) if share else slice(None)
            exe.run(main, feed={'x': bx[part], 'y': by[part]}, fetch_list=[loss], scope=scope)
        return [np.array(scope.find_var(p.name).value) for p in main.global_block().all_parameters()]
    want = train(None, False)
    got = train(GradAllReduce(), True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    averaged = train(LocalSGD(), True)
    everyone = dist.get_group().process_group.allgather_object([a.tolist() for a in averaged])
    assert everyone[0] == everyone[1]
    report('transpiler')


def case_queue():
    """The MPI group's one queue of calls: blocking calls and buckets with nothing to overlap run on the caller's
    thread without waking the communication thread (on shared cores every wake-up takes a core from the other
    trainer); overlapping all-reduces are run by it; allreduce_now refuses while another call is queued or running
    (the calls' order is the same on every trainer)."""
    import threading
    group = dist.get_group().process_group
    queue = group._queue
    want = theirs(0) + theirs(1)
    woken = queue.wakeups
    for _ in range(10):
        np.testing.assert_array_equal(group.allreduce(mine()), want)
        buf = mine().ravel().copy()
        assert group.allreduce_now(buf)
        np.testing.assert_array_equal(buf, want.ravel())
        group.barrier()
    assert queue.wakeups == woken
    release = threading.Event()
    blocker = group._submit(release.wait, wake=True)         # the communication thread is now busy with it
    while not queue._busy:
        release.wait(0.001)
    buf = mine().ravel().copy()
    assert not group.allreduce_now(buf)
    np.testing.assert_array_equal(buf, mine().ravel())      # untouched
    works = [group.allreduce_async(mine().ravel().copy(), inplace=True) for _ in range(3)]
    release.set()
    blocker.wait()
    for work in works:
        np.testing.assert_array_equal(work.wait(), want.ravel())
    assert queue.wakeups > woken
    report('queue')


CASES = {'parts': case_parts, 'p2p': case_p2p, 'groups': case_groups, 'objects': case_objects,
         'gloo_checkpoint': case_gloo_and_checkpoint, 'hybrid': case_hybrid,
         'transpiler': case_transpiler, 'queue': case_queue}
for name in sys.argv[1:] or CASES:
    CASES[name]()
