"""Bucket sinks (executor/passes/bucket_sink.py): the compiled segment that makes a dense bucket's gradients writes
them into views of the bucket's buffer, and the bucket is all-reduced in place with no pack. Trained on a
MirrorGroup (identical peers, fakes.py) with segments compiled at the first run ('sync'): results are bit-identical
to the pack path (the pass turned off), the start finds its gradients in the buffer from the third run on (first
run: the segment's own code compiles; second: its sink variant), and what the pass must leave alone keeps the
pack."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.distributed.fleet import transpile
from paddle_exec.executor import codegen
from paddle_exec.executor import compile as compile_module
from paddle_exec.executor.passes.bucket_sink import _SinkStep, sink_state
from paddle_exec.executor.segment_node import SegmentNode
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope
from paddle_exec.kernels.segment.sink import write_into

from .fakes import MirrorGroup, mirrored

STEPS = 5


def mlp(batch=8):
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 3
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[12], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='int64')
        h = fluid.layers.fc(input=x, size=16, act='relu')
        h = fluid.layers.fc(input=h, size=16, act='relu')
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(input=h, size=4), y))
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    transpile.scale_loss_grad(main, 2)
    transpile.allreduce_grads(main)
    rng = np.random.RandomState(0)
    feeds = [{'x': rng.rand(batch, 12).astype('float32'), 'y': rng.randint(0, 4, (batch, 1)).astype('int64')}
             for _ in range(STEPS)]
    return main, startup, loss, feeds


def train(monkeypatch, mode='sync', sinks=True, fetch=(), places=None):
    """(losses, fetched gradients, parameters, plan, group) of STEPS runs on a MirrorGroup of 2 trainers."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', mode)
    if not sinks:
        monkeypatch.setattr(compile_module, 'sink_buckets', lambda plan, block, options: None)
    with mirrored(MirrorGroup(nranks=2, rank=0)) as group:
        main, startup, loss, feeds = mlp()
        scope, exe = Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        prog = main
        if places:
            prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                  places=[fluid.CPUPlace()] * places)
        losses, grads = [], []
        for feed in feeds:
            out = exe.run(prog, feed=feed, fetch_list=[loss, *fetch], scope=scope, return_numpy=False)
            losses.append(np.array(out[0]))
            grads.append(out[1:])
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
        plan = exe._runner.plans.plans()[-1] if places is None else None
    return losses, grads, params, plan, group


def dense_state(plan):
    return next(s for s in map(sink_state, plan.nodes) if s is not None and not s.bucket.sparse)


def test_gradients_are_written_into_the_bucket_and_reduced_in_place_bit_identical(monkeypatch):
    want_losses, _, want_params, plan0, _ = train(monkeypatch, sinks=False)
    assert not any(isinstance(nd.step, _SinkStep) for nd in plan0.nodes)
    monkeypatch.undo()
    losses, _, params, plan, group = train(monkeypatch)
    for a, b in zip(losses, want_losses):
        np.testing.assert_array_equal(a, b)
    for name in want_params:
        np.testing.assert_array_equal(params[name], want_params[name], err_msg=name)
    state = dense_state(plan)
    assert (state.sunk, state.packed) == (STEPS - 2, 2)
    assert dense_state(plan0).sunk == 0
    assert [isinstance(nd.step, _SinkStep) for nd in plan.nodes].count(True) == 1
    # the runs that took the sink all-reduced the very buffer the segment wrote: the pool's only buffer
    assert len(state.pool) == 1 and group.buffers[-(STEPS - 2):] == [id(state.pool[0].array)] * (STEPS - 2)


def test_several_buckets_each_sunk_by_the_segment_that_makes_it(monkeypatch):
    """Buckets of at most 0.0005 MB (FLAGS_fuse_parameter_memory_size, as fuse_grad_size_in_MB), one or three
    gradients each. The segment pass closes a segment before each bucket_start (collective.py ASYNC_STARTS), so
    the rest of backward overlaps the transfer; a bucket made by a segment is written into its buffer by that
    segment's sink variant, one made by an ordinary node (a lone mul_grad) keeps the pack."""
    monkeypatch.setenv('FLAGS_fuse_parameter_memory_size', '0.0005')
    want_losses, _, want_params, _, _ = train(monkeypatch, sinks=False)
    monkeypatch.undo()
    monkeypatch.setenv('FLAGS_fuse_parameter_memory_size', '0.0005')
    losses, _, params, plan, _ = train(monkeypatch)
    for a, b in zip(losses, want_losses):
        np.testing.assert_array_equal(a, b)
    for name in want_params:
        np.testing.assert_array_equal(params[name], want_params[name], err_msg=name)
    labels = [nd.label for nd in plan.nodes]
    starts = [k for k, label in enumerate(labels) if label.startswith('bucket_start')]
    assert len(starts) == 4 and starts[-1] < labels.index('bucket_wait(0)')
    assert labels[starts[0] + 1] == 'mul_grad'          # backward goes on after the first start
    made_by = [plan.nodes[k - 1] for k in starts]
    want = [(STEPS - 2, 2) if isinstance(nd, SegmentNode) else (0, STEPS) for nd in made_by]
    assert [(s.sunk, s.packed) for s in map(sink_state, (plan.nodes[k] for k in starts))] == want
    assert want.count((STEPS - 2, 2)) == 2
    assert [isinstance(nd.step, _SinkStep) for nd in plan.nodes].count(True) == 2


def test_a_fetched_gradient_keeps_its_buffer_out_of_reuse(monkeypatch):
    names = ['fc_0.w_0@GRAD', 'fc_2.b_0@GRAD']
    _, want, _, _, _ = train(monkeypatch, sinks=False, fetch=names)
    monkeypatch.undo()
    _, got, _, plan, _ = train(monkeypatch, fetch=names)
    for step, (a, b) in enumerate(zip(got, want)):         # later steps did not overwrite earlier fetched values
        for x, y, name in zip(a, b, names):
            np.testing.assert_array_equal(np.array(x), np.array(y), err_msg='%s of step %d' % (name, step))
    assert dense_state(plan).sunk == STEPS - 2


def test_the_sink_source_adds_parameters_writes_and_returns_the_sinks(monkeypatch):
    _, _, _, plan, _ = train(monkeypatch)
    step = next(nd.step for nd in plan.nodes if isinstance(nd.step, _SinkStep))
    seg = step.segment
    plain = codegen.segment_source(seg.calls, seg.in_locals, seg.out_locals, 'x')
    assert plain == codegen.segment_source(seg.calls, seg.in_locals, seg.out_locals, 'x', sinks=())
    start = next(nd for nd in plan.nodes if sink_state(nd) is not None)
    sunk = [seg.out_locals[seg.outputs.index(s)] for s in start.in_spec[0]]
    text = codegen.segment_source(seg.calls, seg.in_locals, seg.out_locals, 'x', sinks=sunk)
    head = 'def segment(%s' % ', '.join('v%d' % s for s in seg.in_locals)
    assert head + ', ' + ', '.join('s%d' % s for s in sunk) + '):' in text
    for s in sunk:
        assert '    sink_write(s%d, v%d)\n' % (s, s) in text and 'v%d' % s not in text.splitlines()[-1]
        assert 's%d' % s in text.splitlines()[-1]
    assert step.code.source.count('sink_write(') == len(sunk)
    assert 'from paddle_exec.kernels.segment.sink import write_into as sink_write\n' in step.code.source


def test_a_failing_sink_call_runs_the_segment_as_before(monkeypatch):
    """An op's error in the compiled sink variant: the segment's own step runs (and would report the error as it
    always does); arguments of new types turn the sink off (the pack path)."""
    monkeypatch.setenv('PADDLE_EXEC_COMPILE', 'sync')
    with mirrored(MirrorGroup(nranks=2, rank=0)):
        main, startup, loss, feeds = mlp()
        scope, exe = Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        for feed in feeds[:3]:
            exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        plan = exe._runner.plans.plans()[-1]
        step = next(nd.step for nd in plan.nodes if isinstance(nd.step, _SinkStep))
        state = dense_state(plan)
        assert step.fn is not None and state.sunk == 1

        def raising(error):
            def fn(*args):
                raise error
            return fn
        step.fn = raising(ValueError('an op failed'))
        exe.run(main, feed=feeds[3], fetch_list=[loss], scope=scope)
        assert (state.sunk, state.packed, step.off) == (1, 3, False)
        step.fn = raising(TypeError('No matching definition for argument type(s)'))
        exe.run(main, feed=feeds[4], fetch_list=[loss], scope=scope)
        assert (state.sunk, state.packed, step.off, step.fn) == (1, 4, True, None)
        exe.run(main, feed=feeds[0], fetch_list=[loss], scope=scope)
        assert (state.sunk, state.packed) == (1, 5)


@pytest.mark.parametrize('mode', ['reference', 'off'])
def test_no_sink_without_compiled_segments(monkeypatch, mode):
    _, _, _, plan, _ = train(monkeypatch, mode=mode)
    assert not any(isinstance(nd.step, _SinkStep) for nd in plan.nodes)
    assert dense_state(plan).packed == STEPS


def test_no_sink_on_several_places(monkeypatch):
    """Each place's gradients are summed into the buffer: that is the pack, and stays."""
    want_losses, _, want_params, _, _ = train(monkeypatch, sinks=False, places=2)
    monkeypatch.undo()
    losses, _, params, _, _ = train(monkeypatch, places=2)
    for name in want_params:
        np.testing.assert_array_equal(params[name], want_params[name], err_msg=name)


@pytest.mark.parametrize('src', [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.arange(12, dtype=np.float32).reshape(4, 3).T,            # not C-contiguous: copied in C order
    np.arange(5, dtype=np.float64),
])
def test_write_into_copies_in_c_order(src):
    buf = np.zeros(src.size + 3, dtype=src.dtype)
    dst = buf[3:].reshape(src.shape)
    write_into(dst, src)
    np.testing.assert_array_equal(dst, src)
    assert not buf[:3].any()


def test_write_into_refuses_another_size():
    with pytest.raises(ValueError, match='wrong size'):
        write_into(np.zeros(4, np.float32), np.zeros(5, np.float32))


def test_gradients_of_undeclared_dtype_or_shape_turn_the_sink_off(monkeypatch):
    """The copy into a view would cast (or fail) where the pack keeps what the segment made: checked once, on the
    first compiled run's gradients, before the sink variant is compiled."""
    _, _, _, plan, _ = train(monkeypatch)
    step = next(nd.step for nd in plan.nodes if isinstance(nd.step, _SinkStep))
    views = tuple(v for s in step.sinks for v in s.acquire().views)
    values = [None] * (max(step.slots) + 1)
    for s, v in zip(step.slots, views):
        values[s] = np.zeros_like(v)
    assert step._fits(values, views) and not step.off
    values[step.slots[1]] = np.zeros(views[1].shape, np.float64)
    assert not step._fits(values, views) and step.off
    step.off = False
    values[step.slots[1]] = np.zeros(views[1].size + 1, views[1].dtype)
    assert not step._fits(values, views) and step.off
