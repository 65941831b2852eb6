"""SmartStage (executor/passes/smart_stage.py): DeepRec's example rewritten for paddle_exec gives the same results
with and without it, and the pass moves exactly the ops that only depend on the data, on hand-built graphs
(parameters, user feeds, control flow, targets, backward ops and in-place updates stay; constants move along);
the edges into the compute side become staged values; the Program is unchanged; the Graphviz output."""
import warnings

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.executor.compile import prepare_program
from paddle_exec.executor.config import RunConfig
from paddle_exec.executor.graphs import split_dot
from paddle_exec.executor.passes.stage import split_stages
from paddle_exec.framework import unique_name
from paddle_exec.framework.registry import KERNEL_RULES

needs = pytest.mark.skipif(not {'lookup_table_v2', 'concat', 'mul', 'sgd'} <= set(KERNEL_RULES),
                           reason='embedding/concat/fc kernels are not registered yet')

def runtimes_of(exe) -> list:
    """The stage runtimes an Executor's runner holds (one per staged program)."""
    runner = exe._runner
    return list(runner.stages.values()) if runner is not None else []



def op_types(block, indices):
    return [block.ops[j].type for j in indices]


# --- DeepRec's example --------------------------------------------------------------------------------------------

@pytest.fixture
def records(tmp_path):
    path = tmp_path / '1.txt'
    path.write_text(''.join('user%d,%d.5\n' % (i % 4, i) for i in range(10)))
    return str(path)


def deeprec_example(path, smart):
    """DeepRec's SmartStage example: text lines -> decode_csv -> one staged -> hash into an embedding lookup and a
    concat, with mark_target_node on the target."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        lines = static.data_source.text_line_reader([path], batch_size=2)
        v0, v1 = static.decode_csv(lines, record_defaults=[[''], [0.0]], field_delim=',')
        xx = static.staged([v0, v1])
        ids = static.string_to_hash_bucket(xx[0], num_buckets=10)
        var = fluid.ParamAttr(name='var', initializer=fluid.initializer.Constant(1.0))
        emb = fluid.layers.reshape(fluid.embedding(fluid.layers.reshape(ids, [-1, 1]), size=[10, 3], param_attr=var),
                                   [-1, 3])
        extra = fluid.layers.fill_constant([1, 1], 'float32', 100.0)      # tf: concat([xx[1], ['xxx']])
        price = fluid.layers.concat([fluid.layers.reshape(xx[1], [-1, 1]), extra], axis=0)
        price = fluid.layers.slice(price, axes=[0], starts=[0], ends=[2])
        target = fluid.layers.concat([emb, fluid.layers.expand(price, [1, 3])], axis=0)
        static.mark_target_node([target])
        if smart:
            static.enable_smart_stage(main)
    return main, startup, target


def run_to_eof(exe, main, fetch, scope=None, limit=20):
    out = []
    for _ in range(limit):
        try:
            out.append(exe.run(main, fetch_list=fetch, scope=scope)[0])
        except fluid.core.EOFException:
            return out
    raise AssertionError('no EOF')


@needs
def test_deeprec_example_gives_the_same_results_with_and_without_smart_stage(records):
    results = []
    for smart in (False, True):
        main, startup, target = deeprec_example(records, smart)
        before = str(main)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        results.append(run_to_eof(exe, main, [target], scope))
        assert str(main) == before                                 # the physical graph only
        runtime, = runtimes_of(exe)
        block = main.global_block()
        if smart:
            moved = op_types(block, runtime.split.moved)
            assert moved[0] == 'string_to_hash_bucket' and 'fill_constant' in moved
            assert 'lookup_table_v2' not in moved and op_types(block, runtime.split.consumer)[0] == 'lookup_table_v2'
            crossing = runtime.split.crossing
            assert len(crossing) == 2 and crossing[0].startswith('reshape2_0')  # the ids, and the price column
        else:
            assert runtime.split.moved == [] and runtime.split.crossing == ['staged_0.tmp_0', 'staged_0.tmp_1']
        exe.close()
    plain, smart = results
    assert len(plain) == 5
    for a, b in zip(plain, smart):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(plain[0][:2], np.ones((2, 3), np.float32))  # embedding rows of 'var' (ones)
    np.testing.assert_array_equal(plain[0][2:], [[0.5] * 3, [1.5] * 3])      # the price column


@needs
def test_smart_stage_training_gives_the_losses_of_the_hand_placed_stage(records):
    losses = []
    for smart in (False, True):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 5
        with fluid.program_guard(main, startup), unique_name.guard():
            lines = static.data_source.text_line_reader([records], batch_size=2)
            word, price = static.staged(static.decode_csv(lines, [[''], [0.0]]))
            ids = static.string_to_hash_bucket(word, 10)
            feat = fluid.layers.concat([fluid.embedding(ids, size=[10, 4]),
                                        fluid.layers.log(fluid.layers.reshape(price, [-1, 1]) + 1.0)], axis=1)
            loss = fluid.layers.mean(fluid.layers.square(fluid.layers.fc(feat, 1)))
            fluid.optimizer.SGD(0.05).minimize(loss)
        if smart:
            static.enable_smart_stage(main)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        losses.append(run_to_eof(exe, main, [loss], scope) + run_to_eof(exe, main, [loss], scope))
        runtime, = runtimes_of(exe)
        moved = op_types(main.global_block(), runtime.split.moved)
        assert set(moved) == ({'string_to_hash_bucket', 'reshape2', 'scale', 'log'} if smart else set())
        assert not any(main.global_block().ops[j]._is_backward_op() for j in runtime.split.moved)
        exe.close()
    assert len(losses[0]) == 10
    np.testing.assert_array_equal(np.concatenate(losses[0]), np.concatenate(losses[1]))


# --- the pass on hand-built graphs ------------------------------------------------------------------------------

def source_program():
    """A reader (text_line_reader + decode_csv) staged; the caller adds ops after the stage."""
    main, startup = fluid.Program(), fluid.Program()
    guard = fluid.program_guard(main, startup)
    guard.__enter__()
    names = unique_name.guard()
    names.__enter__()
    lines = static.data_source.text_line_reader(['unused.txt'], batch_size=2)
    a, = static.decode_csv(lines, [[0.0]])
    s = static.staged(a)

    def done():
        names.__exit__(None, None, None)
        guard.__exit__(None, None, None)
    return main, startup, s, done


def test_ops_reading_parameters_feeds_or_targets_stay_and_constants_move_along():
    main, startup, s, done = source_program()
    doubled = fluid.layers.scale(s, 2.0)                          # data only: moves
    const = fluid.layers.fill_constant([1], 'float32', 3.0)       # before nothing, needed by a mover: moves
    shifted = fluid.layers.elementwise_add(doubled, const)        # moves
    w = fluid.layers.create_parameter([1], 'float32', name='w')
    weighted = fluid.layers.elementwise_mul(shifted, w)           # reads a parameter: stays
    fed = fluid.data('fed', [-1], 'float32')
    mixed = fluid.layers.elementwise_add(shifted, fed)            # reads a user feed: stays
    marked = fluid.layers.exp(doubled)                            # a target: stays
    after_marked = fluid.layers.sqrt(marked)                      # downstream of a target: stays
    out = fluid.layers.sum([weighted, mixed, after_marked])
    done()
    static.mark_target_node([marked])
    block = main.global_block()
    split = split_stages(block, smart=True, targets=main._stage_info['targets'])
    assert op_types(block, split.moved) == ['scale', 'fill_constant', 'elementwise_add']
    assert op_types(block, split.consumer) == ['elementwise_mul', 'elementwise_add', 'exp', 'sqrt', 'sum']
    # the edges into the compute side: `shifted` (twice) and `doubled` (into the target)
    assert split.crossing == [doubled.name, shifted.name]
    assert out.name not in split.carried
    plain = split_stages(block, smart=False)
    assert op_types(block, plain.producer) == ['text_line_reader', 'decode_csv', 'stage']
    assert plain.crossing == [s.name]


def test_control_flow_backward_and_in_place_updates_stay():
    main, startup, s, done = source_program()
    a = fluid.layers.scale(s, 2.0)                                # moves
    looped = fluid.layers.scale(a, 3.0)                           # pretend control flow: stays
    looped_after = fluid.layers.relu(looped)                      # downstream of it: stays
    twice = fluid.layers.scale(a, 4.0)                            # written twice below: stays
    fluid.layers.assign(fluid.layers.scale(a, 5.0), output=twice)
    fc_out = fluid.layers.fc(fluid.layers.reshape(a, [-1, 1]), 1)
    loss = fluid.layers.mean(fc_out + looped_after + twice)
    fluid.optimizer.SGD(0.1).minimize(loss)
    done()
    block = main.global_block()
    control = next(op for op in block.ops if looped.name in op.output_arg_names)
    control.attrs['sub_block'] = 1
    split = split_stages(block, smart=True)
    moved = op_types(block, split.moved)
    assert moved == ['scale', 'scale', 'reshape2']                # a, the scale feeding assign, the fc input
    for j in split.moved:
        assert not block.ops[j]._is_backward_op() and not block.ops[j]._is_optimize_op()
    assert control.type == 'scale' and block.ops.index(control) in split.consumer
    assert all(block.ops[j].type != 'assign' for j in split.moved)


def test_smart_stage_without_a_stage_warns_and_changes_nothing():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 2], 'float32')
        out = fluid.layers.scale(x, 2.0)
    static.enable_smart_stage(main)
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.warns(UserWarning, match='SmartStage is on but the program has no staged'):
        got, = exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[out], scope=fluid.Scope())
    np.testing.assert_array_equal(got, [[2.0, 2.0]])
    assert runtimes_of(exe) == []


def test_build_strategy_switches_and_the_gpu_variant_warns(records):
    main, startup, target = deeprec_example(records, smart=False)
    for flag in ('do_smart_stage', 'do_smart_stage_gpu'):
        bs = fluid.BuildStrategy()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            setattr(bs, flag, True)
        if flag == 'do_smart_stage_gpu':
            assert any('do_smart_stage_gpu' in str(w.message) and 'CPU only' in str(w.message) for w in caught)
        config = RunConfig.for_data_parallel(fluid.ExecutionStrategy(), bs, 1)
        assert config.smart_stage
        physical = prepare_program(main, config)
        assert physical.stage is not None and physical.stage.smart


@needs
def test_smart_stage_under_data_parallelism_matches_the_executor(records):
    outs = []
    for compiled in (False, True):
        main, startup, target = deeprec_example(records, smart=True)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        program = main
        if compiled:
            es = fluid.ExecutionStrategy()
            es.num_threads = 2
            program = fluid.CompiledProgram(main).with_data_parallel(exec_strategy=es, places=fluid.cpu_places(2))
        outs.append(run_to_eof(exe, program, [target], scope))
        exe.close()
    single, parallel = outs
    assert len(parallel) == 2              # 5 batches: 2 runs of 2 places, the fifth alone is the end
    for k, merged in enumerate(parallel):  # place p got batch 2k + p: its rows come first for place 0
        np.testing.assert_array_equal(merged, np.concatenate([single[2 * k], single[2 * k + 1]]))


# --- graphviz -----------------------------------------------------------------------------------------------------

def test_graphviz_of_the_split_and_debug_path(records, tmp_path):
    main, startup, target = deeprec_example(records, smart=True)
    main._stage_info['debug_graphviz_path'] = str(tmp_path / 'g')
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, fetch_list=[target], scope=scope)
    before = (tmp_path / 'g_stage_before.dot').read_text()
    after = (tmp_path / 'g_stage_after.dot').read_text()
    runtime, = runtimes_of(exe)
    assert before.startswith('digraph G {') and 'cluster' not in before and 'lookup_table_v2' in before
    assert after == split_dot(main.global_block(), runtime.split, 'after SmartStage')
    assert 'cluster_0' in after and 'cluster_1' in after
    for name in runtime.split.crossing:          # the values the buffer carries: orange ellipses
        node = next(line for line in after.splitlines() if ('label="%s' % name) in line)
        assert 'shape=ellipse' in node and 'fillcolor="#f5a623"' in node
    exe.close()
