"""The parallel policies' segments leave the work they can overlap apart (executor/passes/segment_split.py): a heavy
mul_grad's dX and dW run as separate segments, a group is cut at its levels of independent products, and the
numbers are those of the plain executor, to the bit."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor.config import ExecutorPolicy
from paddle_exec.executor.passes.segment_split import HEAVY_PRODUCT, product_levels
from paddle_exec.executor.policies.threaded import ThreadedPolicy
from paddle_exec.executor.segment_node import SegmentNode
from paddle_exec.framework import unique_name


def tower(width=160, depth=3, batch_sizes=(16,)):
    """img[128] -> `depth` fc(width, relu) -> fc(10) -> softmax_with_cross_entropy -> mean, Adam."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), unique_name.guard():
        img = fluid.layers.data(name='img', shape=[128], dtype='float32')
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        h = img
        for _ in range(depth):
            h = fluid.layers.fc(h, width, act='relu')
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def feeds(n, batch=16):
    rng = np.random.RandomState(3)
    return [{'img': rng.rand(batch, 128).astype('float32'), 'label': rng.randint(0, 10, (batch, 1)).astype('int64')}
            for _ in range(n)]


def train(program, mode, policy, monkeypatch, steps=6, make_feeds=feeds):
    """(losses, params, plan) of `steps` runs on a fresh executor under `policy` (None: the plain Executor)."""
    main, startup, loss = program
    scope = fluid.Scope()
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '0')
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    es = None
    if policy is not None:
        es = fluid.ExecutionStrategy()
        es.executor_policy = policy
    exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
    losses = [exe.run(main, feed=f, fetch_list=[loss], scope=scope)[0] for f in make_feeds(steps)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    plan = exe.runner.plans.plans()[-1]
    exe.close()
    return losses, params, plan


def labels(plan):
    return [nd.segment.label if isinstance(nd, SegmentNode) else nd.label for nd in plan.nodes]


def dw_halves(plan):
    """The compiled mul_grad calls computing only the weight gradient."""
    return [call for nd in plan.nodes if isinstance(nd, SegmentNode) for call in nd.segment.calls
            if call.label == 'mul_grad' and call.args[1:3] == (False, True)]


def mul_grad_calls(plan):
    return [call for nd in plan.nodes if isinstance(nd, SegmentNode) for call in nd.segment.calls
            if call.label == 'mul_grad']


@pytest.fixture
def always_parallel(monkeypatch):
    """The threaded policy runs every plan in parallel (no probe against in-order runs)."""
    monkeypatch.setattr(ThreadedPolicy, 'probe_runs', 0)


def test_a_heavy_mul_grad_runs_dx_and_dw_in_separate_segments_under_the_threaded_policy(monkeypatch,
                                                                                        always_parallel):
    _, _, plan = train(tower(), 'sync', ExecutorPolicy.USE_NORMAL_EXECUTOR, monkeypatch, steps=2)
    found = labels(plan)
    # the three hidden layers' weights are heavy (128 x 160 and 160 x 160 >= HEAVY_PRODUCT), the last (160 x 10) not
    assert 128 * 160 >= HEAVY_PRODUCT > 160 * 10
    # the upper two layers' dW each on its own; the first layer's mul_grad wants dW only (img has no gradient)
    assert found.count('segment[mul_grad]') == 2, found
    assert found.count('segment[mul_grad, relu_grad, elementwise_add_grad, adam]') == 2, found      # their dX
    assert len(dw_halves(plan)) == 3
    segs = [nd.segment for nd in plan.nodes if isinstance(nd, SegmentNode)]
    first = segs[0].label
    assert first.startswith('segment[mul, elementwise_add, relu, mul') and 'mul_grad' in first   # forward: one
    # every segment holding a dX half (want_x, not want_y) is not the one holding that layer's dW half
    for seg in segs:
        wants = [call.args[1:3] for call in seg.calls if call.label == 'mul_grad']
        assert not ((True, False) in wants and (False, True) in wants), seg.label
    # the update of a layer's weight waits for both halves: a node of its own after them
    assert sum(1 for lab in found if lab in ('segment[adam]', 'adam')) >= 2, found


def test_the_in_order_policies_keep_mul_grad_whole(monkeypatch):
    for policy in (None, ExecutorPolicy.USE_INLINE_EXECUTOR):
        _, _, plan = train(tower(), 'sync', policy, monkeypatch, steps=1)
        assert len(mul_grad_calls(plan)) == 4 and len(plan.nodes) == 1, labels(plan)     # one per fc layer


def test_small_products_are_not_split(monkeypatch, always_parallel):
    _, _, plan = train(tower(width=16), 'sync', ExecutorPolicy.USE_NORMAL_EXECUTOR, monkeypatch, steps=1)
    assert len(mul_grad_calls(plan)) == 4 and len(plan.nodes) == 1, labels(plan)


@pytest.mark.parametrize('mode', ['sync', 'tiered', 'reference'])
def test_split_segments_compute_the_plain_executors_numbers_to_the_bit(mode, monkeypatch, always_parallel):
    program = tower()
    plain_losses, plain_params, _ = train(program, '0', None, monkeypatch)
    losses, params, plan = train(program, mode, ExecutorPolicy.USE_NORMAL_EXECUTOR, monkeypatch)
    assert len(dw_halves(plan)) == 3
    for a, b in zip(plain_losses, losses):
        np.testing.assert_array_equal(a, b)
    for name in plain_params:
        np.testing.assert_array_equal(plain_params[name], params[name], err_msg=name)


def test_no_node_frees_a_value_a_split_half_reads(monkeypatch, always_parallel):
    # the plan frees a slot at its last reader when every other reader is its ancestor; a dW half is no ancestor
    # of the dX chain, so a relu_grad there must not free the activation the half still reads
    _, _, plan = train(tower(), 'sync', ExecutorPolicy.USE_NORMAL_EXECUTOR, monkeypatch, steps=1)
    read_by_halves = set()
    for nd in plan.nodes:
        if isinstance(nd, SegmentNode) and any(m.label == 'mul_grad[Y@GRAD]' for m in nd.segment.members):
            read_by_halves.update(nd.segment.inputs)
    assert read_by_halves
    for nd in plan.nodes:
        if isinstance(nd, SegmentNode):
            freed = set(nd.segment.frees) | {s for m in nd.segment.members for s in m.free}
        else:
            freed = set(nd.free)
        assert not freed & read_by_halves, nd


def test_a_parallel_executor_trains_the_split_plan_as_the_plain_executor(monkeypatch, always_parallel):
    program = tower(depth=2)
    plain_losses, plain_params, _ = train(program, '0', None, monkeypatch, steps=4)
    main, startup, loss = program
    scope = fluid.Scope()
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', '0')
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    monkeypatch.setenv('CPU_NUM', '1')
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, scope=scope)
    losses = [pe.run(fetch_list=[loss.name], feed=f)[0] for f in feeds(4)]
    pe.close()
    for a, b in zip(plain_losses, losses):
        np.testing.assert_array_equal(np.asarray(a).ravel(), np.asarray(b).ravel())
    for p in main.global_block().all_parameters():
        np.testing.assert_array_equal(plain_params[p.name], np.array(scope.find_var(p.name).get_tensor()))


# --- product_levels on small graphs -------------------------------------------------------------------------------

def test_a_chain_of_products_stays_one_piece():
    deps = [set(), {0}, {1}, {2}]                  # mul -> add -> mul -> relu
    assert product_levels([0, 1, 2, 3], [True, False, True, False], deps) == [[0, 1, 2, 3]]


def test_a_level_of_independent_products_is_cut_into_pre_own_parts_and_post():
    # 0 light -> {1 heavy, 2 heavy}; 3 after 1 only; 4 after 2 only; 5 after 1 and 2 (reads what both touch)
    deps = [set(), {0}, {0}, {1}, {2}, {1, 2}, {3}]
    heavy = [False, True, True, False, False, False, False]
    pieces = product_levels(list(range(7)), heavy, deps)
    assert pieces == [[0], [1, 3, 6], [2, 4], [5]]


def test_pieces_are_in_topological_order_and_cover_the_part_once():
    # two layers of backward: g -> (dx1, dw1); dx1 -> r -> (dx0, dw0); adam1 after dx1 and dw1
    deps = [set(), {0}, {0}, {1}, {3}, {3}, {1, 2}, {4, 5}]
    heavy = [False, True, True, False, True, True, False, False]
    pieces = product_levels(list(range(8)), heavy, deps)
    assert sorted(j for p in pieces for j in p) == list(range(8))
    where = {j: k for k, p in enumerate(pieces) for j in p}
    for j, ds in enumerate(deps):
        assert all(where[d] <= where[j] for d in ds)
    assert where[1] != where[2] and where[4] != where[5]


def test_in_order_runs_of_a_split_plan_run_the_unsplit_segments(monkeypatch):
    # the threaded policy's probe weighs the split step in parallel against the step as it was before the split
    program = tower()
    plain_losses, plain_params, _ = train(program, '0', None, monkeypatch)
    losses, params, plan = train(program, 'sync', ExecutorPolicy.USE_NORMAL_EXECUTOR, monkeypatch)
    assert len(dw_halves(plan)) == 3
    whole = plan.in_order_nodes
    assert len(whole) == 1 and isinstance(whole[0], SegmentNode), labels(plan)
    assert [c.args[1:3] for c in whole[0].segment.calls if c.label == 'mul_grad'] == \
        [(True, True)] * 3 + [(False, True)]                 # every mul_grad whole, the first layer's dW only
    # the probe ran both kinds of runs (parallel on the split nodes, in order on the whole segment): same bits
    for a, b in zip(plain_losses, losses):
        np.testing.assert_array_equal(a, b)
    for name in plain_params:
        np.testing.assert_array_equal(plain_params[name], params[name], err_msg=name)


# --- intra-op splits in split plans (row_split_products, kernels/intra_op.py) -------------------------------------

def sparse_tower(vocab=20000, fields=8, dim=16, width=160):
    """ids[fields] -> sparse embedding [vocab, dim] -> fc(width, relu) x 2 -> fc(1) -> sigmoid loss, Adam: DeepFM's
    shape at a small size."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 9
    with fluid.program_guard(main, startup), unique_name.guard():
        layers = fluid.layers
        ids = layers.data(name='ids', shape=[fields], dtype='int64')
        label = layers.data(name='label', shape=[1], dtype='float32')
        emb = layers.embedding(layers.reshape(ids, [-1, fields, 1]), size=[vocab, dim], is_sparse=True)
        h = layers.reshape(emb, [-1, fields * dim])
        for _ in range(2):
            h = layers.fc(h, width, act='relu')
        loss = layers.mean(layers.sigmoid_cross_entropy_with_logits(layers.fc(h, 1), label))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def sparse_feeds(n, batch=64, vocab=20000, fields=8):
    rng = np.random.RandomState(4)
    return [{'ids': rng.randint(0, vocab, (batch, fields)).astype('int64'),
             'label': rng.randint(0, 2, (batch, 1)).astype('float32')} for _ in range(n)]


def test_forward_products_and_the_sparse_adam_split_over_the_pool_keep_the_plain_executors_bits(monkeypatch,
                                                                                                always_parallel):
    from paddle_exec.executor.passes import segment_split
    from paddle_exec.kernels import intra_op
    monkeypatch.setattr(segment_split, 'ROW_SPLIT_WEIGHT', 1024)     # 128 x 160 and 160 x 160 weights
    monkeypatch.setattr(intra_op, 'MIN_PRODUCT', 0)
    monkeypatch.setattr(intra_op, '_same_bits', {})
    forks = []
    both = intra_op.both
    monkeypatch.setattr(intra_op, 'both', lambda a, b: (forks.append(intra_op.current_fork() is not None),
                                                         both(a, b))[1])
    program = sparse_tower()
    assert 20000 * 16 >= intra_op.MIN_UPDATE

    def train_with(policy, mode, steps=5):
        return train(program, mode, policy, monkeypatch, steps, make_feeds=sparse_feeds)
    plain_losses, plain_params, _ = train_with(None, '0')
    assert not forks
    losses, params, plan = train_with(ExecutorPolicy.USE_NORMAL_EXECUTOR, 'sync')
    # the two hidden layers' forward products are ordinary nodes (their kernel splits), the rest stays segments
    assert labels(plan).count('mul') == 2, labels(plan)
    # every run after the measuring one split both products and the table's update (3 forks a run)
    assert len(forks) >= 3 * 4 and all(forks)
    for a, b in zip(plain_losses, losses):
        np.testing.assert_array_equal(a, b)
    for name in plain_params:
        np.testing.assert_array_equal(plain_params[name], params[name], err_msg=name)
