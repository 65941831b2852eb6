"""BuildStrategy.fuse_bn_act_ops and fuse_all_optimizer_ops (executor/passes/fuse_bn_act.py, fuse_optimizer.py).

The oracle: the same program trained with the switches off, from the same start, with segments off and compiled
('sync'): the fused program must give the same losses and parameters (to the bit for these programs). The op types
after the passes are checked on the compiled plan.
"""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.executor.compile import compile_program
from paddle_exec.executor.config import RunConfig
from paddle_exec.executor.segment_node import SegmentNode
from paddle_exec.framework import unique_name
from paddle_exec.kernels.segment import optimizer as SO
from paddle_exec.ops.fused import coalesced_buffer

OPTIMIZERS = {'adam': lambda: fluid.optimizer.Adam(0.01), 'sgd': lambda: fluid.optimizer.SGD(0.1),
              'momentum': lambda: fluid.optimizer.Momentum(0.1, 0.9),
              'nesterov': lambda: fluid.optimizer.Momentum(0.1, 0.9, use_nesterov=True)}


def conv_bn_net(opt='adam', layout='NCHW', sparse_embedding=False):
    """conv2d -> batch_norm(relu) -> fc -> batch_norm(relu) -> fc -> mean, optionally plus a sparse embedding."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3, 5, 5], dtype='float32')
        h = fluid.layers.conv2d(x, 4, 3)
        if layout == 'NHWC':
            h = fluid.layers.transpose(h, [0, 2, 3, 1])
        h = fluid.layers.batch_norm(h, act='relu', data_layout=layout)
        h = fluid.layers.fc(h, 6)
        h = fluid.layers.batch_norm(h, act='relu')
        out = fluid.layers.fc(h, 1)
        if sparse_embedding:
            ids = fluid.layers.data(name='ids', shape=[2, 1], dtype='int64')
            emb = fluid.layers.embedding(ids, size=[10, 1], is_sparse=True)
            out = out + fluid.layers.reduce_sum(emb, dim=1)   # [4, 1]
        loss = fluid.layers.mean(out)
        OPTIMIZERS[opt]().minimize(loss)
    return main, startup, loss


def _feeds(n, sparse=False):
    rng = np.random.RandomState(0)
    feeds = []
    for _ in range(n):
        f = {'x': rng.rand(4, 3, 5, 5).astype('float32')}
        if sparse:
            f['ids'] = rng.randint(0, 10, (4, 2, 1)).astype('int64')
        feeds.append(f)
    return feeds


def _strategy(fuse_bn=False, fuse_opt=False, reduce=False):
    bs = fluid.BuildStrategy()
    bs.fuse_bn_act_ops = fuse_bn
    bs.fuse_all_optimizer_ops = fuse_opt
    if reduce:
        bs.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    return bs


def train(build, strategy, steps=4, sparse=False, fetch_extra=()):
    main, startup, loss = build()
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        cp = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=strategy)
        fetched = [exe.run(cp, feed=f, fetch_list=[loss.name, *fetch_extra]) for f in _feeds(steps, sparse)]
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return fetched, params, scope, main


def plan_ops(main, loss, strategy, fetch=None):
    config = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), strategy, 1, loss_name=loss.name)
    return op_list(compile_program(main, ['x'], [fetch or loss.name], config))


def op_list(plan) -> list:
    """The plan's ops in order, those a segment runs included (PADDLE_EXEC_COMPILE=tiered or sync makes segments)."""
    return [m.op for node in plan.nodes for m in node.op_nodes if m.op is not None]


def assert_same_training(a, b):
    (fa, pa), (fb, pb) = a[:2], b[:2]
    for x, y in zip(fa, fb):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(np.asarray(u), np.asarray(v))
    assert pa.keys() == pb.keys()
    for k in pa:
        np.testing.assert_array_equal(pa[k], pb[k], err_msg=k)


# --- fuse_bn_act_ops ---------------------------------------------------------------------------------------------

def test_bn_act_pass_writes_paddles_fused_op_types():
    main, _, loss = conv_bn_net()
    types = [op.type for op in plan_ops(main, loss, _strategy(fuse_bn=True))]
    assert types.count('fused_batch_norm_act') == 2 and types.count('fused_batch_norm_act_grad') == 2
    assert not {'batch_norm', 'batch_norm_grad', 'relu', 'relu_grad'} & set(types)
    fused = next(op for op in plan_ops(main, loss, _strategy(fuse_bn=True)) if op.type == 'fused_batch_norm_act')
    assert fused.attr('act_type') == 'relu' and fused.attr('momentum') == pytest.approx(0.9)
    # the user's program is untouched
    assert 'fused_batch_norm_act' not in [op.type for op in main.global_block().ops]
    assert [op.type for op in plan_ops(main, loss, _strategy())].count('batch_norm') == 2


@pytest.mark.parametrize('mode', ['off', 'sync'])
@pytest.mark.parametrize('layout', ['NCHW', 'NHWC'])
def test_bn_act_fusion_trains_as_the_unfused_program(monkeypatch, mode, layout):
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    build = lambda: conv_bn_net('sgd', layout)      # noqa: E731
    assert_same_training(train(build, _strategy()), train(build, _strategy(fuse_bn=True)))


def test_a_fetched_batch_norm_output_is_not_fused():
    main, _, loss = conv_bn_net()
    bn = next(op for op in main.global_block().ops if op.type == 'batch_norm')
    y = bn.output('Y')[0]
    types = [op.type for op in plan_ops(main, loss, _strategy(fuse_bn=True), fetch=y)]
    assert types.count('fused_batch_norm_act') == 1 and types.count('batch_norm') == 1
    build = lambda: conv_bn_net('sgd')              # noqa: E731
    assert_same_training(train(build, _strategy(), fetch_extra=(y,)),
                         train(build, _strategy(fuse_bn=True), fetch_extra=(y,)))


# --- fuse_all_optimizer_ops --------------------------------------------------------------------------------------

@pytest.mark.parametrize('opt, aux', [('adam', 4), ('sgd', 0), ('momentum', 1)])
def test_optimizer_pass_writes_one_update_over_fused_vars(opt, aux):
    main, _, loss = conv_bn_net(opt)
    ops = plan_ops(main, loss, _strategy(fuse_opt=True))
    kind = 'adam' if opt == 'adam' else opt
    updates = [op for op in ops if op.type == kind]
    assert len(updates) == 1
    coalesce = [op for op in ops if op.type == 'coalesce_tensor']
    assert len(coalesce) == 2 + aux                     # Grad, Param and each accumulator
    params = [p.name for p in main.all_parameters() if p.trainable]
    assert updates[0].input('Param') == ['@FUSEDVAR@_%s_Param_%s' % (kind, coalesce[0].input('Input')[0])]
    assert sorted(coalesce[0].input('Input')) == sorted(params)
    assert ops.index(coalesce[0]) == 0 and ops.index(coalesce[-1]) == ops.index(updates[0]) - 1
    assert updates[0].input('Grad')[0].startswith('@FUSEDVAR@_%s_Grad_' % kind)


@pytest.mark.parametrize('mode', ['off', 'sync'])
@pytest.mark.parametrize('opt', sorted(OPTIMIZERS))
def test_fused_optimizer_trains_as_the_unfused_program(monkeypatch, mode, opt):
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    build = lambda: conv_bn_net(opt)                # noqa: E731
    assert_same_training(train(build, _strategy()), train(build, _strategy(fuse_opt=True)))
    assert_same_training(train(build, _strategy()), train(build, _strategy(fuse_bn=True, fuse_opt=True)))


def test_parameters_live_in_one_buffer_after_the_first_step():
    _, _, scope, main = train(lambda: conv_bn_net('adam'), _strategy(fuse_opt=True), steps=2)
    arrays = [scope.find_var(p.name).get_tensor().value for p in main.all_parameters() if p.trainable]
    buffers = {id(a.base) for a in arrays}
    assert len(buffers) == 1
    ordered = sorted(arrays, key=lambda a: a.ctypes.data)
    assert coalesced_buffer(ordered) is ordered[0].base


def test_a_parameter_set_between_runs_is_taken_in():
    build = lambda: conv_bn_net('sgd')              # noqa: E731
    results = []
    for fuse in (False, True):
        main, startup, loss = build()
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(scope):
            exe.run(startup)
            cp = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                build_strategy=_strategy(fuse_opt=fuse))
            feeds = _feeds(3)
            exe.run(cp, feed=feeds[0], fetch_list=[loss.name])
            name = main.all_parameters()[0].name
            scope.find_var(name).get_tensor().set(np.full_like(np.array(scope.find_var(name).get_tensor()), 0.5),
                                                  fluid.CPUPlace())
            losses = [exe.run(cp, feed=f, fetch_list=[loss.name])[0] for f in feeds[1:]]
            results.append((losses, np.array(scope.find_var(name).get_tensor())))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_sparse_gradients_keep_their_own_update():
    main, _, loss = conv_bn_net('adam', sparse_embedding=True)
    config = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), _strategy(fuse_opt=True), 1,
                                         loss_name=loss.name)
    ops = op_list(compile_program(main, ['x', 'ids'], [loss.name], config))
    adams = [op for op in ops if op.type == 'adam']
    assert len(adams) == 2
    assert any(op.input('Param') == ['embedding_0.w_0'] for op in adams)
    build = lambda: conv_bn_net('adam', sparse_embedding=True)     # noqa: E731
    assert_same_training(train(build, _strategy(), sparse=True), train(build, _strategy(fuse_opt=True), sparse=True))


def test_reduce_mode_does_not_fuse_optimizers():
    config = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), _strategy(fuse_opt=True, reduce=True), 1)
    assert not config.fuse_optimizer
    assert RunConfig.for_data_parallel(fluid.ExecutionStrategy(), _strategy(fuse_opt=True), 1).fuse_optimizer


def test_both_passes_on_two_places_train_as_the_unfused_program(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    build = lambda: conv_bn_net('adam')             # noqa: E731
    assert_same_training(train(build, _strategy()), train(build, _strategy(fuse_bn=True, fuse_opt=True)))


def fc_net(opt='adam'):
    """x -> fc 8 relu -> fc 1 -> mean (the first mul, of a 4-D x, runs as an ordinary node)."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3, 5, 5], dtype='float32')
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.fc(x, 8, act='relu'), 1))
        OPTIMIZERS[opt]().minimize(loss)
    return main, startup, loss


@pytest.mark.parametrize('opt', ['adam', 'sgd', 'momentum'])
def test_the_gradients_coalesce_and_the_fused_update_are_one_call_reading_the_gradients_in_place(monkeypatch, opt):
    """Inside the segment the gradients' coalesce_tensor and the fused update run as one call of the update's parts
    variant: no fused gradient buffer is made or copied into (one pass over memory), with the same numbers."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    build = lambda: fc_net(opt)                     # noqa: E731
    fused = train(build, _strategy(fuse_opt=True))
    assert_same_training(train(build, _strategy()), fused)
    main, _, loss = build()
    config = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), _strategy(fuse_opt=True), 1, loss_name=loss.name)
    plan = compile_program(main, ['x'], [loss.name], config)
    segments = [nd.segment for nd in plan.nodes if isinstance(nd, SegmentNode)]
    calls = [c for seg in segments for c in seg.calls]
    labels = [c.label for c in calls]
    assert labels.count('coalesce_tensor+' + opt) == 1 and 'coalesce_tensor' not in labels, labels
    update = calls[labels.index('coalesce_tensor+' + opt)]
    assert update.kernel is getattr(SO, opt + '_parts')
    assert [n.op.type for n in update.nodes] == ['coalesce_tensor', opt]
    # the parameters' (and accumulators') coalesce ops read the scope's views: ordinary nodes
    ordinary = [nd.op for nd in plan.nodes if not isinstance(nd, SegmentNode)]
    coalesce = [op for op in ordinary if op.type == 'coalesce_tensor']
    assert len(coalesce) == 1 + {'adam': 4, 'momentum': 1, 'sgd': 0}[opt], [op.type for op in ordinary]
    assert all(main.global_block().var(op.input('Input')[0]).persistable for op in coalesce)
