"""The threaded policy's intra-op forks (kernels/intra_op.py) and its critical-rank rule, on hand-built plans:
parallel runs give their kernels a fork, in-order runs do not; a fork's half runs on a worker or is taken back; the
caller runs the critical chain itself; every node runs once, after its dependencies."""
import queue
import random
import threading
import time

import numpy as np

from paddle_exec.executor.policies import threaded
from paddle_exec.executor.policies.threaded import ThreadedPolicy, make_fork
from paddle_exec.kernels import intra_op

from .test_threaded_policy import make_plan, parallel_policy, prime, run


def test_parallel_runs_give_their_nodes_a_fork_and_in_order_runs_do_not():
    seen = []

    def look(x):
        seen.append(intra_op.current_fork() is not None)
        time.sleep(0.002)
        return (x,)
    plan = make_plan(5, [('b%d' % k, look, [0], k + 1, ()) for k in range(4)])
    prime(plan)
    policy = parallel_policy(4)
    try:
        run(policy, plan, 0)
        assert seen == [True] * 4            # on the caller and on the workers
        assert intra_op.current_fork() is None     # the caller's fork ends with the run
        seen.clear()
        policy.probe_runs, policy.hold_runs = 1, 1
        choice = policy._choices[plan]
        choice.parallel = False
        choice.probe, choice.cycle = 0, 1
        run(policy, plan, 0)                 # held in order
        assert seen == [False] * 4
    finally:
        policy.close()


def test_a_forked_half_runs_on_a_worker_and_each_half_once():
    caller = threading.get_ident()
    where = []

    def split(x):
        intra_op.both(lambda: (where.append(('first', threading.get_ident())), time.sleep(0.05)),
                      lambda: where.append(('second', threading.get_ident())))
        return (x,)
    plan = make_plan(3, [('a', lambda x: (x,), [0], 1, ()), ('split', split, [1], 2, {0})])
    prime(plan)
    policy = parallel_policy(2)
    try:
        run(policy, plan, 0)
        assert sorted(w for w, _ in where) == ['first', 'second']
        assert dict(where)['first'] == caller and dict(where)['second'] != caller
    finally:
        policy.close()


def test_join_takes_back_a_half_no_worker_started_and_reraises_a_workers_error():
    tasks = queue.SimpleQueue()              # no workers yet
    fork = make_fork(tasks)
    ran = []
    join = fork(lambda: ran.append(threading.get_ident()))
    join()
    assert ran == [threading.get_ident()]
    assert tasks.get_nowait() == []          # the taken-back task: emptied, so a worker would skip it
    worker = threading.Thread(target=threaded._worker_loop, args=(tasks,), daemon=True)
    worker.start()
    try:
        started = threading.Event()

        def bad():
            started.set()
            raise KeyError('half')
        join = fork(bad)
        assert started.wait(5)
        try:
            join()
        except KeyError as exc:
            assert exc.args == ('half',)
        else:
            raise AssertionError('the half\'s KeyError was not raised')
    finally:
        tasks.put(threaded.STOP)
        worker.join(5)


def test_the_caller_runs_the_critical_chain_itself():
    # root -> chain head (1) -> 3 -> 4, and root -> side (2): the head comes first in plan order, so the old rule
    # handed it off (another node was ready) and the chain went worker -> coordinator -> caller
    caller = threading.get_ident()
    log = {}

    def node(name):
        def fn(x):
            log[name] = threading.get_ident()
            time.sleep(0.003)
            return (x,)
        return fn
    specs = [('root', node('root'), [0], 1, ()), ('head', node('head'), [1], 2, {0}),
             ('side', node('side'), [1], 3, {0}), ('c3', node('c3'), [2], 4, {1}), ('c4', node('c4'), [4], 5, {3})]
    plan = make_plan(6, specs)
    prime(plan)
    policy = parallel_policy(4)
    try:
        run(policy, plan, 0)
        assert log['head'] == log['c3'] == log['c4'] == caller
        assert log['side'] != caller
    finally:
        policy.close()


def test_every_node_runs_once_after_its_dependencies_with_ranks_and_forks():
    rng = random.Random(7)
    n = 30
    events = []
    lock = threading.Lock()

    def node(k):
        def fn(*xs):
            with lock:
                events.append(('start', k))
            intra_op.both(lambda: time.sleep(rng.random() * 0.001), lambda: time.sleep(0.0005))
            with lock:
                events.append(('end', k))
            return (sum(xs) + k,)
        return fn
    specs, deps_of = [], []
    for k in range(n):
        ins = sorted(rng.sample(range(k + 1), min(k + 1, rng.randint(1, 3))))
        deps = {i - 1 for i in ins if i > 0}
        deps_of.append(deps)
        specs.append(('n%d' % k, node(k), ins, k + 1, deps))
    plan = make_plan(n + 1, specs)
    for nd in plan.nodes:
        nd.cost = rng.random() * 1e-3 + 1e-4       # different ranks
    policy = parallel_policy(4)
    try:
        for _ in range(3):
            events.clear()
            values = run(policy, plan, np.float64(1.0))
            assert sorted(k for e, k in events if e == 'start') == list(range(n))
            position = {e: i for i, e in enumerate(events)}
            for k in range(n):
                for d in deps_of[k]:
                    assert position[('end', d)] < position[('start', k)]
        expect = [np.float64(1.0)] + [None] * n
        for k, (_, _, ins, out, _) in enumerate(specs):
            expect[out] = sum(expect[i] for i in ins) + k
        assert values[1:] == expect[1:]
    finally:
        policy.close()


def test_the_probe_still_falls_back_to_in_order_runs_when_the_forked_runs_are_slower():
    caller = threading.get_ident()
    forked = []

    def split(x):
        fork = intra_op.current_fork()
        forked.append(fork is not None)
        # a half on a worker is slow here (think: the second core busy with other work)
        intra_op.both(lambda: None, lambda: time.sleep(0.0005 if threading.get_ident() == caller else 0.02))
        return (x,)
    plan = make_plan(3, [('a', lambda x: (x,), [0], 1, ()), ('split', split, [1], 2, {0})])
    policy = ThreadedPolicy(2)
    policy.probe_runs, policy.hold_runs = 2, 5
    try:
        for _ in range(1 + 4):               # the measuring run, then the probe: parallel, in order, x2
            run(policy, plan, 0)
        assert any(forked) and not all(forked)
        forked.clear()
        for _ in range(5):
            run(policy, plan, 0)
        assert forked == [False] * 5         # in order: the kernels run whole
    finally:
        policy.close()
