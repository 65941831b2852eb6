"""LoD tensors end to end: the LoDTensor surface, create_lod_tensor, feeding LoD tensors and nested lists, LoD
fetches, the plans with and without LoD, scopes that keep LoD, the ParallelExecutor's sequence-wise split and LoD
merge (against numbers recorded with Paddle 1.8.5), DataFeeder and DataLoader with id lists. Paddle 1.8.5's
behaviour is the reference for every error and result (checked by hand with /work/pd18 where noted)."""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.fluid import core

L = fluid.layers
HERE = os.path.dirname(os.path.abspath(__file__))
PLACE = fluid.CPUPlace()


def lod_tensor(array, lengths):
    return fluid.create_lod_tensor(np.asarray(array), lengths, PLACE)


# --- the LoDTensor surface --------------------------------------------------------------------------------------

def test_lod_tensor_surface_matches_paddle():
    t = fluid.LoDTensor()
    assert (t.lod(), t.recursive_sequence_lengths(), t.shape(), t.has_valid_recursive_sequence_lengths()) == (
        [], [], [0], True)
    t.set(np.arange(10, dtype='float32').reshape(5, 2), PLACE)
    t.set_lod([[0, 2, 5]])
    assert t.lod() == [[0, 2, 5]] and t.recursive_sequence_lengths() == [[2, 3]]
    assert type(t.lod()[0][0]) is int and t.shape() == [5, 2] and t.has_valid_recursive_sequence_lengths()
    t.set_recursive_sequence_lengths([[1, 1], [2, 3]])
    assert t.lod() == [[0, 1, 2], [0, 2, 5]]
    t.set_recursive_sequence_lengths([[0, 5]])          # an empty sequence is a sequence
    assert t.lod() == [[0, 0, 5]]
    arr = np.array(t)
    arr[0, 0] = 99
    assert np.array(t)[0, 0] == 0                       # np.array gives a copy, as Paddle's pybind tensor
    assert isinstance(t.lod(), list)


@pytest.mark.parametrize('lod, why', [
    ([[0, 2, 4]], 'does not cover the rows'),
    ([[1, 2, 5]], 'does not start at 0'),
    ([[0, 3, 2, 5]], 'decrease'),
    ([[0, 1, 2], [0, 2, 4]], 'does not cover the rows'),
    ([[0, 1, 3], [0, 2, 5]], 'level 0 ends at 3 but level 1 holds 2 sequences'),
    ([[]], 'holds no sequence'),
])
def test_set_lod_refuses_what_paddle_refuses(lod, why):
    t = fluid.LoDTensor()
    t.set(np.zeros((5, 1), 'float32'), PLACE)
    with pytest.raises(core.EnforceNotMet, match='the provided lod info is invalid') as info:
        t.set_lod(lod)
    assert why in str(info.value)
    assert isinstance(info.value, ValueError)


def test_lengths_that_do_not_sum_to_the_batch_are_refused():
    t = fluid.LoDTensor()
    t.set(np.zeros((5, 1), 'float32'), PLACE)
    with pytest.raises(core.EnforceNotMet, match='recursive_sequence_lengths info is invalid.*sum to 4.*5 rows'):
        t.set_recursive_sequence_lengths([[2, 2]])


def test_an_uninitialised_tensor_takes_any_well_formed_lod():
    t = fluid.LoDTensor()
    t.set_lod([[0, 2, 7]])
    assert t.lod() == [[0, 2, 7]]


# --- create_lod_tensor -------------------------------------------------------------------------------------------

def test_create_lod_tensor_from_numpy_lists_and_tensors():
    a = fluid.create_lod_tensor(np.arange(5).reshape(5, 1).astype('int64'), [[2, 3]], PLACE)
    assert a.lod() == [[0, 2, 5]] and np.array(a).dtype == np.int64
    b = fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[2, 3]], PLACE)     # 1.8 appends a dimension of 1
    assert b.lod() == [[0, 2, 5]] and np.array(b).shape == (5, 1) and np.array(b).dtype == np.int64
    c = fluid.create_lod_tensor(a, [[1, 4]], PLACE)
    assert c.lod() == [[0, 1, 5]] and np.array(c).ravel().tolist() == [0, 1, 2, 3, 4]
    d = fluid.create_lod_tensor([[[1, 2]], [[3], [4, 5]]], [[1, 2], [2, 1, 2]], PLACE)   # nested two levels
    assert d.lod() == [[0, 1, 3], [0, 2, 3, 5]] and np.array(d).shape == (5, 1)
    assert fluid.lod_tensor.create_lod_tensor is fluid.create_lod_tensor


def test_create_lod_tensor_errors():
    with pytest.raises(AssertionError, match='data and recursive_seq_lens do not match'):
        fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[2, 2]], PLACE)
    with pytest.raises(core.EnforceNotMet, match='recursive_sequence_lengths info is invalid'):
        fluid.create_lod_tensor(np.arange(5).reshape(5, 1), [[2, 2]], PLACE)
    with pytest.raises(TypeError, match='data should be either a LoDTensor, a Numpy array or a list'):
        fluid.create_lod_tensor((1, 2), [[2]], PLACE)


def test_create_random_int_lodtensor():
    t = fluid.create_random_int_lodtensor([[2, 3]], [3], PLACE, 0, 9)
    arr = np.array(t)
    assert t.lod() == [[0, 2, 5]] and arr.shape == (5, 3) and arr.dtype == np.int64
    assert arr.min() >= 0 and arr.max() <= 9


# --- feeding and fetching -----------------------------------------------------------------------------------------

def _relu_program(lod_level=1):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = L.data(name='x', shape=[3], dtype='float32', lod_level=lod_level)
        z = L.relu(x)
        m = L.mean(z)
    return main, x, z, m


def test_fetch_keeps_the_lod_and_return_numpy_refuses_it():
    main, x, z, m = _relu_program()
    exe = fluid.Executor(PLACE)
    t = lod_tensor(np.arange(18, dtype='float32').reshape(6, 3) - 5, [[1, 2, 3]])
    got_z, got_m = exe.run(main, feed={'x': t}, fetch_list=[z, m], return_numpy=False)
    assert got_z.lod() == [[0, 1, 3, 6]] and got_m.lod() == []
    np.testing.assert_array_equal(np.array(got_z), np.maximum(np.array(t), 0))
    with pytest.raises(RuntimeError, match="Some of your fetched tensors hold LoD information.*'relu_0.tmp_0'"):
        exe.run(main, feed={'x': t}, fetch_list=[z])
    loss, = exe.run(main, feed={'x': t}, fetch_list=[m])            # a fetch without LoD is an array
    assert float(loss) == pytest.approx(np.maximum(np.array(t), 0).mean())


def test_nested_lists_feed_lod_variables():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = L.data(name='x', shape=[1], dtype='int64', lod_level=1)
        x2 = L.data(name='x2', shape=[2], dtype='float32', lod_level=2)
        y, y2 = L.scale(x, 1.0), L.scale(x2, 1.0)
    exe = fluid.Executor(PLACE)
    r, r2 = exe.run(main, feed={'x': [[1, 2], [3]], 'x2': [[[[1, 2]], [[3, 4], [5, 6]]]]}, fetch_list=[y, y2],
                    return_numpy=False)
    assert r.lod() == [[0, 2, 3]] and np.array(r).tolist() == [[1], [2], [3]]
    assert r2.lod() == [[0, 2], [0, 1, 3]] and np.array(r2).shape == (3, 2)
    with pytest.raises(ValueError, match="rows of 'x2' \\(lod_level=2\\) should each have shape \\[2\\].*wrong depth"):
        exe.run(main, feed={'x': [[1, 2], [3]], 'x2': [[[1, 2]], [[3, 4], [5, 6]]]}, fetch_list=[y2])
    with pytest.raises(TypeError, match="'x2' \\(lod_level=2\\).*item \\[0, 0\\] is 1.*wrong depth"):
        exe.run(main, feed={'x': [[1, 2], [3]], 'x2': [[1, 2], [3]]}, fetch_list=[y2])
    with pytest.raises(ValueError, match="rows of 'x'.*nested lists of the wrong depth"):
        exe.run(main, feed={'x': [[[1, 2]], [[3, 4]]], 'x2': [[[[1, 2]]]]}, fetch_list=[y])


def test_a_lod_that_does_not_cover_the_rows_is_refused_naming_the_variable():
    main, x, z, m = _relu_program()
    t = lod_tensor(np.zeros((5, 3), 'float32'), [[2, 3]])
    t.set(np.zeros((4, 3), 'float32'), PLACE)           # the rows changed under the LoD
    with pytest.raises(core.EnforceNotMet, match="the LoD \\[\\[0, 2, 5\\]\\] of 'x' does not cover the rows.*4 rows"):
        fluid.Executor(PLACE).run(main, feed={'x': t}, fetch_list=[z], return_numpy=False)


def test_a_lod_feed_to_a_lod_level_0_variable_carries_its_lod_as_in_paddle_1_8():
    main, x, z, m = _relu_program(lod_level=0)
    got, = fluid.Executor(PLACE).run(main, feed={'x': lod_tensor(np.ones((3, 3), 'float32'), [[1, 2]])},
                                     fetch_list=[z], return_numpy=False)
    assert got.lod() == [[0, 1, 3]]


def test_fed_with_and_without_lod_the_program_gets_two_plans_and_the_plain_one_has_no_lod_work():
    main, x, z, m = _relu_program()
    exe = fluid.Executor(PLACE)
    exe.run(main, feed={'x': np.ones((2, 3), 'float32')}, fetch_list=[m])
    exe.run(main, feed={'x': lod_tensor(np.ones((2, 3), 'float32'), [[2]])}, fetch_list=[m])
    plans = exe.runner.plans.plans()
    assert len(plans) == 2
    plain, with_lod = plans
    assert plain.places[0].lod is None and all(nd.lod is None for nd in plain.nodes)
    assert not any(name.endswith('@LOD') for name in plain.slot_of)
    assert with_lod.places[0].lod is not None and 'x@LOD' in with_lod.slot_of


# --- scopes keep LoD ----------------------------------------------------------------------------------------------

def test_scope_values_keep_their_lod():
    main, startup = fluid.Program(), fluid.Program()
    scope = fluid.Scope()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = L.data(name='x', shape=[2], dtype='float32', lod_level=1)
        kept = main.global_block().create_var(name='kept', shape=[-1, 2], dtype='float32', persistable=True)
        L.assign(L.scale(x, 2.0), output=kept)
    exe = fluid.Executor(PLACE)
    held = fluid.LoDTensor()
    held.set(np.ones((3, 1), 'float32'), PLACE)
    held.set_lod([[0, 1, 3]])
    scope.var('held').get_tensor().set(held, PLACE)
    scope.var('held').get_tensor().set_lod([[0, 1, 3]])
    with fluid.scope_guard(scope):
        got, = exe.run(main, feed={'x': lod_tensor(np.ones((3, 2), 'float32'), [[2, 1]])}, fetch_list=['held'],
                       return_numpy=False)
    assert got.lod() == [[0, 1, 3]]                          # a value fetched by name from the scope
    assert scope.find_var('kept').get_tensor().lod() == [[0, 2, 3]]   # a persistable written with LoD


# --- ParallelExecutor ---------------------------------------------------------------------------------------------

sys.path.insert(0, os.path.join(HERE, 'data'))
import lod_parallel_case  # noqa: E402


def test_parallel_executor_splits_lod_feeds_by_sequence_and_merges_lod_fetches(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    with open(os.path.join(HERE, 'data', 'lod_parallel_pd18.json')) as f:
        want = json.load(f)
    steps, final = lod_parallel_case.run(fluid)
    for got, exp in zip(steps, want['steps']):
        np.testing.assert_allclose(got['loss'], exp['loss'], rtol=1e-5)
        assert got['emb_lod'] == exp['emb_lod']
        np.testing.assert_allclose(got['emb'], exp['emb'], rtol=1e-5, atol=1e-7)
    for name, value in want['final'].items():
        np.testing.assert_allclose(final[name], value, rtol=1e-5, atol=1e-7, err_msg=name)


def _pe_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
        label = L.data(name='label', shape=[1], dtype='int64')
        emb = L.embedding(words, size=[30, 4])
        pred = L.fc(input=L.sequence_pool(emb, 'sum'), size=2, act='softmax')
        loss = L.mean(L.cross_entropy(input=pred, label=label))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
    return main, startup, loss, emb


def test_too_few_sequences_for_the_places_is_paddles_error(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, startup, loss, emb = _pe_program()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(PLACE).run(startup)
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
        feed = {'words': lod_tensor(np.array([[1], [2], [3]], 'int64'), [[3]]), 'label': np.array([[1], [0]], 'int64')}
        with pytest.raises(RuntimeError, match=r'The number\(1\) of samples\[words\] of current batch is less than '
                                               r'the count\(2\) of devices\(CPU\)'):
            pe.run(fetch_list=[loss.name], feed=feed)


def test_unmerged_lod_fetches_keep_each_places_lod(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, startup, loss, emb = _pe_program()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(PLACE)
        exe.run(startup)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
        feed = {'words': lod_tensor(np.arange(6).reshape(6, 1).astype('int64'), [[1, 2, 3]]),
                'label': np.array([[1], [0], [1]], 'int64')}
        per_place, = exe.run(compiled, feed=feed, fetch_list=[emb.name], return_numpy=False, return_merged=False)
    assert [t.lod() for t in per_place] == [[[0, 1, 3]], [[0, 3]]]


# --- DataFeeder and DataLoader ------------------------------------------------------------------------------------

def _pool_program(loader_iterable=None, kind='DataLoader'):
    main, startup = fluid.Program(), fluid.Program()
    loader = None
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
        label = L.data(name='label', shape=[1], dtype='int64')
        if loader_iterable is not None and kind == 'DataLoader':
            loader = fluid.io.DataLoader.from_generator(feed_list=[words, label], capacity=4,
                                                        iterable=loader_iterable)
        elif loader_iterable is not None:
            loader = fluid.io.PyReader(feed_list=[words, label], capacity=4, iterable=loader_iterable)
        emb = L.embedding(words, size=[20, 4], param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.NumpyArrayInitializer(np.arange(80, dtype='float32').reshape(20, 4))))
        pool = L.sequence_pool(emb, 'sum')
    return main, startup, words, label, emb, pool, loader


SAMPLES = [([1, 2, 3], [0]), ([4, 5], [1])]


def _expected_pool():
    table = np.arange(80, dtype='float32').reshape(20, 4)
    return np.stack([table[[1, 2, 3]].sum(0), table[[4, 5]].sum(0)])


def test_data_feeder_turns_id_lists_into_lod_tensors():
    main, startup, words, label, emb, pool, _ = _pool_program()
    exe = fluid.Executor(PLACE)
    exe.run(startup)
    feeder = fluid.DataFeeder(feed_list=[words, label], place=PLACE, program=main)
    feed = feeder.feed(SAMPLES)
    assert feed['words'].lod() == [[0, 3, 5]] and np.array(feed['words']).shape == (5, 1)
    got, = exe.run(main, feed=feed, fetch_list=[pool])
    np.testing.assert_array_equal(got, _expected_pool())
    with pytest.raises(ValueError, match="samples of 'words'.*nested lists of the wrong depth"):
        feeder.feed([([[1, 2], [3]], [0])])
    with pytest.raises(TypeError, match="'words' \\(lod_level=1\\).*nested lists of the wrong depth"):
        feeder.feed([(3, [0])])


@pytest.mark.parametrize('kind', ['DataLoader', 'PyReader'])
@pytest.mark.parametrize('iterable', [False, True])
def test_data_loader_from_generator_carries_lod(iterable, kind):
    main, startup, words, label, emb, pool, loader = _pool_program(loader_iterable=iterable, kind=kind)
    set_samples = (loader.set_sample_list_generator if kind == 'DataLoader'
                   else loader.decorate_sample_list_generator)
    exe = fluid.Executor(PLACE)
    exe.run(startup)

    def samples():
        for _ in range(3):
            yield SAMPLES
    results = []
    if iterable:
        set_samples(samples, places=PLACE)
        for data in loader():
            results.append(exe.run(main, feed=data, fetch_list=[pool, emb], return_numpy=False))
    else:
        set_samples(samples)
        loader.start()
        try:
            while True:
                results.append(exe.run(main, fetch_list=[pool, emb], return_numpy=False))
        except core.EOFException:
            loader.reset()
    assert len(results) == 3
    for got_pool, got_emb in results:
        assert got_emb.lod() == [[0, 3, 5]]
        np.testing.assert_array_equal(np.array(got_pool), _expected_pool())


def test_a_list_of_feeds_with_lod_runs_one_per_place(monkeypatch):
    monkeypatch.setenv('CPU_NUM', '2')
    main, startup, loss, emb = _pe_program()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(PLACE).run(startup)
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
        feeds = [{'words': lod_tensor(np.array([[1], [2], [3]], 'int64'), [[2, 1]]),
                  'label': np.array([[1], [0]], 'int64')},
                 {'words': lod_tensor(np.array([[4], [5]], 'int64'), [[1, 1]]), 'label': np.array([[0], [1]], 'int64')}]
        got, = pe.run(fetch_list=[emb.name], feed=feeds, return_numpy=False)
    assert got.lod() == [[0, 2, 3, 4, 5]] and np.array(got).shape == (5, 4)


def test_a_sequence_op_refuses_an_input_without_lod_naming_it():
    main, startup, words, label, emb, pool, _ = _pool_program()
    exe = fluid.Executor(PLACE)
    exe.run(startup)
    with pytest.raises(core.EnforceNotMet, match="Input\\(X\\) Tensor of SequencePoolOp does not contain LoD "
                                                 "information: the variable 'embedding_0.tmp_0' has no LoD"):
        exe.run(main, feed={'words': np.array([[1], [2]], 'int64')}, fetch_list=[pool])


def test_a_data_loader_lod_batch_for_a_lod_level_0_variable_is_refused_naming_it():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = L.data(name='x', shape=[1], dtype='int64', lod_level=0)
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=False)
        y = L.scale(L.cast(x, 'float32'), 2.0)
    loader.set_batch_generator(lambda: iter([[lod_tensor(np.array([[1], [2], [3]], 'int64'), [[1, 2]])]]))
    exe = fluid.Executor(PLACE)
    exe.run(startup)
    loader.start()
    with pytest.raises(ValueError, match="'x' a LoD tensor \\(LoD \\[\\[0, 1, 3\\]\\]\\), but 'x' is declared with "
                                         "lod_level=0.*lod_level=1"):
        exe.run(main, fetch_list=[y])
    loader.reset()


def test_staged_lod_values_keep_their_lod():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
        loader = fluid.io.DataLoader.from_generator(feed_list=[words], capacity=4, iterable=False)
        staged, = L.staged([words])
        emb = L.embedding(staged, size=[20, 4], param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.NumpyArrayInitializer(np.arange(80, dtype='float32').reshape(20, 4))))
        pool = L.sequence_pool(emb, 'sum')
    loader.set_batch_generator(lambda: iter([[lod_tensor(np.array([[1], [2], [3]], 'int64'), [[1, 2]])]] * 3))
    exe = fluid.Executor(PLACE)
    exe.run(startup)
    loader.start()
    got = []
    try:
        while True:
            got.append(exe.run(main, fetch_list=[pool])[0])
    except core.EOFException:
        loader.reset()
    table = np.arange(80, dtype='float32').reshape(20, 4)
    assert len(got) == 3
    for g in got:
        np.testing.assert_array_equal(g, np.stack([table[1], table[2] + table[3]]))
