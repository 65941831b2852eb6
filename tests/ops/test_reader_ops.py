"""Reader and string ops: FarmHash Fingerprint64 and string_to_hash_bucket, decode_csv, text_line_reader, and
fluid.io.DataLoader.from_generator (non-iterable ops in the program, EOF, reset, errors; iterable feeds), each
against a plain-Python reference. None of these ops has a gradient: their outputs are strings or integer ids."""
import csv
import io
import threading
import time

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import registry, unique_name
from paddle_exec.framework.dtype import VarType
from paddle_exec.kernels.string import fingerprint64, hash_buckets

# FarmHash's published Fingerprint64 (farmhashna::Hash64) values, one or more per length class of the algorithm
FARMHASH_VECTORS = {
    '': 0x9ae16a3b2f90404f,
    'a': 0xb3454265b6df75e3,
    'abc': 0x24a5b3a074e7f369,
    'abcde': 0xc22f4663e54e04d4,
    'abcdefgh': 0xfee9d22990c82909,
    "0123456789'01234": 0x4283d4ef43627f64,
    '0123456789=012345': 0x46a7416ed4861e3b,
    '0123456789%0123456789£': 0x4dbd128af51d77e8,
    'C is as portable as Stonehedge!!': 0xb944f8a16261e414,
    'Discard medicine more than two years old.': 0xe8f89ab6df9bdd25,
    'For every action there is an equal and opposite government program.': 0x55182f8859eca4ce,
    'The fugacity of a constituent in a mixture of gases at a given temperature is proportional to its mole '
    'fraction.  Lewis-Randall Rule': 0x098eff6958c5e91a,
}


def run_once(build, fetch, feed=None, n=1):
    """Builds a program with `build()` (returning the variables to fetch), runs it n times, returns the fetches."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        outs = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    results = [exe.run(main, feed=feed, fetch_list=outs, scope=scope) for _ in range(n)]
    exe.close()
    return results


# --- hashing ------------------------------------------------------------------------------------------------------

def test_fingerprint64_matches_farmhash_vectors():
    got = fingerprint64(list(FARMHASH_VECTORS))
    assert [int(v) for v in got] == list(FARMHASH_VECTORS.values())


def test_string_to_hash_bucket_op_is_fingerprint_mod_buckets_in_input_shape():
    words = np.array([['Hello', 'TensorFlow'], ['2.x', 'abcde']], dtype=object)

    def build():
        x = fluid.data('words', [-1, 2], 'string')
        return [static.string_to_hash_bucket(x, num_buckets=3), static.string_to_hash_bucket_fast(x, 1000)]
    (ids3, ids1000), = run_once(build, None, feed={'words': words})
    reference = np.array([[int(fingerprint64([w])[0]) for w in row] for row in words], dtype=np.uint64)
    np.testing.assert_array_equal(ids3, (reference % np.uint64(3)).astype(np.int64))
    np.testing.assert_array_equal(ids1000, (reference % np.uint64(1000)).astype(np.int64))
    assert ids3.dtype == np.int64
    assert ids3[0].tolist() == [0, 2] and ids3[1, 0] == 2     # TF's documented example: [0, 2, 2]


def test_string_to_hash_bucket_rejects_bad_arguments():
    with fluid.program_guard(fluid.Program()):
        s = fluid.data('s', [-1], 'string')
        f = fluid.data('f', [-1], 'float32')
        with pytest.raises(ValueError, match='num_buckets'):
            static.string_to_hash_bucket(s, 0)
        with pytest.raises(TypeError, match="'f' must be a string tensor"):
            static.string_to_hash_bucket(f, 5)


# --- decode_csv -----------------------------------------------------------------------------------------------------

def reference_decode(records, kinds):
    rows = list(csv.reader(io.StringIO('\n'.join(records))))
    return [np.array([kind(row[k]) for row in rows], dtype=object) for k, kind in enumerate(kinds)]


def test_decode_csv_columns_take_dtypes_from_defaults():
    records = np.array(['a,1.5,7,9', '"b,c",2.25,8,10', 'd,,9,11'], dtype=object)

    def build():
        r = fluid.data('r', [-1], 'string')
        return static.decode_csv(r, [[''], [0.5], [0], [np.int64(0)]])
    (s, f, i32, i64), = run_once(build, None, feed={'r': records})
    assert s.dtype == object and f.dtype == np.float32 and i32.dtype == np.int32 and i64.dtype == np.int64
    ref = reference_decode(['a,1.5,7,9', '"b,c",2.25,8,10', 'd,0.5,9,11'], [str, float, int, int])
    assert s.tolist() == ref[0].tolist() == ['a', 'b,c', 'd']
    np.testing.assert_array_equal(f, ref[1].astype(np.float32))          # the empty field took its default
    np.testing.assert_array_equal(i32, ref[2].astype(np.int32))
    np.testing.assert_array_equal(i64, ref[3].astype(np.int64))


def test_decode_csv_keeps_the_records_shape_and_delimiter_and_na_value():
    records = np.array([['1|x', 'NA|y'], ['3|z', '4|w']], dtype=object)

    def build():
        r = fluid.data('r', [-1, 2], 'string')
        return static.decode_csv(r, [[-1.0], ['?']], field_delim='|', na_value='NA')
    (num, txt), = run_once(build, None, feed={'r': records})
    np.testing.assert_array_equal(num, np.array([[1, -1], [3, 4]], np.float32))
    assert txt.tolist() == [['x', 'y'], ['z', 'w']]


@pytest.mark.parametrize('records, defaults, message', [
    (['a,b,c'], [[''], ['']], 'Expect 2 fields but have 3 in record 0'),
    (['1,x', ',y'], [[], ['']], 'Field 0 is required but missing in record 1!'),
    (['1.5,x', 'abc,y'], [[0.0], ['']], 'Field 0 in record 1 is not a valid float: abc'),
    (['3.5'], [[0]], 'Field 0 in record 0 is not a valid int32: 3.5'),
])
def test_decode_csv_errors_use_tensorflow_words(records, defaults, message):
    def build():
        r = fluid.data('r', [-1], 'string')
        return static.decode_csv(r, defaults)
    with pytest.raises(ValueError, match=message.replace('.', r'\.').replace('!', '!')) as info:
        run_once(build, None, feed={'r': np.array(records, dtype=object)})
    assert 'decode_csv' in str(info.value)          # the failing op is named


def test_decode_csv_rejects_bad_defaults_and_delimiters():
    with fluid.program_guard(fluid.Program()):
        r = fluid.data('r', [-1], 'string')
        with pytest.raises(ValueError, match='single character'):
            static.decode_csv(r, [['']], field_delim='::')
        with pytest.raises(TypeError, match='bool'):
            static.decode_csv(r, [[True]])
        out = static.decode_csv(r, [[''], [1.0]])
        assert [v.dtype for v in out] == [VarType.STRINGS, VarType.FP32] and all(v.stop_gradient for v in out)


def test_string_ops_have_no_gradient():
    assert 'decode_csv' not in registry.GRAD_RULES and 'string_to_hash_bucket' not in registry.GRAD_RULES
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        r = fluid.data('r', [-1], 'string')
        word, price = static.decode_csv(r, [[''], [0.0]])
        ids = static.string_to_hash_bucket(word, 10)
        emb = fluid.embedding(fluid.layers.reshape(ids, [-1, 1]), size=[10, 2])
        loss = fluid.layers.mean(emb) + fluid.layers.mean(price)
        fluid.optimizer.SGD(0.1).minimize(loss)
    types = [op.type for op in main.global_block().ops]
    assert 'decode_csv_grad' not in types and 'string_to_hash_bucket_grad' not in types
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    out, = exe.run(main, feed={'r': np.array(['a,1', 'b,2'], dtype=object)}, fetch_list=[loss], scope=scope)
    assert np.isfinite(out).all()


# --- text_line_reader ---------------------------------------------------------------------------------------------

@pytest.fixture
def text_files(tmp_path):
    a, b = tmp_path / 'a.txt', tmp_path / 'b.txt'
    a.write_text('header\nl0\nl1\nl2\n')
    b.write_text('l3\nl4')                    # no final newline
    return [str(a), str(b)]


def read_all(exe, main, lines, scope, limit=20):
    batches = []
    for _ in range(limit):
        try:
            batches.append(exe.run(main, fetch_list=[lines], scope=scope)[0].tolist())
        except fluid.core.EOFException:
            return batches
    raise AssertionError('no EOF after %d runs' % limit)


def test_text_line_reader_reads_batches_in_order_then_eof_once_then_starts_over(text_files):
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        lines = static.data_source.text_line_reader(text_files, batch_size=2, skip_header_lines=1)
        second_file_header = lines          # skip_header_lines applies to every file: 'l3' is skipped too
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    epoch1 = read_all(exe, main, second_file_header, scope)
    assert epoch1 == [['l0', 'l1'], ['l2', 'l4']]
    assert read_all(exe, main, lines, scope) == epoch1      # the run after EOF starts a new pass
    assert main.global_block().var(lines.name).dtype == VarType.STRINGS


def test_text_line_reader_position_is_shared_by_every_plan_and_drop_last(text_files):
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        lines = static.data_source.text_line_reader(text_files[1:], batch_size=1)
        ids = static.string_to_hash_bucket(lines, 7)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    first, = exe.run(main, fetch_list=[lines], scope=scope)
    second, _ = exe.run(main, fetch_list=[lines, ids], scope=scope)        # another plan, the same position
    assert first.tolist() == ['l3'] and second.tolist() == ['l4']

    pairs = fluid.Program()
    with fluid.program_guard(pairs), unique_name.guard():
        lines = static.data_source.text_line_reader(text_files[:1], batch_size=3, drop_last=True)
    assert read_all(exe, pairs, lines, scope) == [['header', 'l0', 'l1']]     # the partial ['l2'] is dropped


def test_text_line_reader_under_data_parallelism_gives_place_p_batch_p(text_files):
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        lines = static.data_source.text_line_reader(text_files, batch_size=1, skip_header_lines=1)
        ids = static.string_to_hash_bucket(lines, 1000)
    es = fluid.ExecutionStrategy()
    es.num_threads = 4
    compiled = fluid.CompiledProgram(main).with_data_parallel(exec_strategy=es, places=fluid.cpu_places(2))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    for _ in range(2):      # the second pass starts over, place 0 first again
        got = [exe.run(compiled, fetch_list=[lines, ids], scope=scope) for _ in range(1)]
        got.append(exe.run(compiled, fetch_list=[lines, ids], scope=scope))
        assert [g[0].tolist() for g in got] == [['l0', 'l1'], ['l2', 'l4']]
        np.testing.assert_array_equal(got[0][1], hash_buckets(np.array(['l0', 'l1'], dtype=object), 1000))
        with pytest.raises(fluid.core.EOFException):
            exe.run(compiled, fetch_list=[lines], scope=scope)
    exe.close()


def test_text_line_reader_missing_file_names_the_op(tmp_path):
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        lines = static.data_source.text_line_reader(str(tmp_path / 'nope.txt'), batch_size=1)
    with pytest.raises(FileNotFoundError, match="text_line_reader.*nope.txt"):
        fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[lines], scope=fluid.Scope())


# --- DataLoader, non-iterable ---------------------------------------------------------------------------------------

def batches(n, rows=2, start=0, dtype='float32'):
    def gen():
        for i in range(start, start + n):
            yield [np.full((rows, 3), i, dtype), np.full((rows, 1), i, 'int64')]
    return gen


def loader_program(capacity=4, use_double_buffer=True):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'int64')
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=capacity, iterable=False,
                                                    use_double_buffer=use_double_buffer)
        total = fluid.layers.reduce_sum(x)
    return main, startup, loader, x, y, total


def drain(exe, program, fetch, scope, limit=50):
    out = []
    for _ in range(limit):
        try:
            out.append(exe.run(program, fetch_list=fetch, scope=scope))
        except fluid.core.EOFException:
            return out
    raise AssertionError('no EOF')


def test_non_iterable_loader_puts_paddles_reader_ops_in_the_program():
    main, _, loader, x, y, _ = loader_program()
    ops = main.global_block().ops
    assert [op.type for op in ops[:3]] == ['create_py_reader', 'create_double_buffer_reader', 'read']
    queue_name = ops[0].input('blocking_queue')[0]
    assert queue_name.startswith('lod_tensor_blocking_queue_')
    assert ops[0].attrs['dtypes'] == [5, 3] and ops[0].attrs['shape_concat'] == [-1, 3, -1, 1]
    assert ops[0].attrs['ranks'] == [2, 2] and ops[0].attrs['need_check_feed'] == [1, 1]
    assert ops[2].output('Out') == ['x', 'y'] and ops[2].input('Reader') == ops[1].output('Out')
    reader_var = main.global_block().var(ops[0].output('Out')[0])
    assert reader_var.type == VarType.READER and reader_var.persistable
    assert fluid.global_scope().find_var(queue_name).value is loader.queue
    main2, *_ = loader_program(use_double_buffer=False)
    assert [op.type for op in main2.global_block().ops[:2]] == ['create_py_reader', 'read']


def test_non_iterable_loader_reads_batches_then_eof_and_reset_starts_a_new_epoch():
    main, startup, loader, x, y, total = loader_program()
    loader.set_batch_generator(batches(3))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    for _ in range(2):
        with fluid.scope_guard(scope):
            loader.start()
        out = drain(exe, main, [total, y], scope)
        loader.reset()
        assert [float(t[0][0]) for t in out] == [0.0, 6.0, 12.0]
        assert [yy[:, 0].tolist() for _, yy in out] == [[0, 0], [1, 1], [2, 2]]


def test_eof_message_and_again_without_reset():
    main, startup, loader, x, y, total = loader_program()
    loader.set_batch_generator(batches(1))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        loader.start()
    exe.run(main, fetch_list=[total], scope=scope)
    for _ in range(2):      # as Paddle: the closed queue keeps raising EOF until reset()
        with pytest.raises(fluid.core.EOFException, match='There is no next data'):
            exe.run(main, fetch_list=[total], scope=scope)


def test_sample_and_sample_list_generators():
    main, startup, loader, x, y, total = loader_program()

    def samples():
        for i in range(5):
            yield np.full(3, i, 'float32'), np.array([i], 'int64')
    loader.set_sample_generator(samples, batch_size=2, drop_last=True)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        loader.start()
    out = drain(exe, main, [y], scope)
    loader.reset()
    assert [o[0][:, 0].tolist() for o in out] == [[0, 1], [2, 3]]          # the last sample is dropped

    def sample_lists():
        yield [(np.zeros(3, 'float32'), [7]), (np.ones(3, 'float32'), [8])]
    loader.set_sample_list_generator(sample_lists)
    with fluid.scope_guard(scope):
        loader.start()
    out = drain(exe, main, [total, y], scope)
    loader.reset()
    assert float(out[0][0][0]) == 3.0 and out[0][1][:, 0].tolist() == [7, 8]


@pytest.mark.parametrize('gen, message', [
    (batches(1, dtype='float64'), r'The data type of fed Variable x must be 5 \(float32\), but received 6 \(float64\)'),
    (lambda: iter([[np.zeros((2, 4), 'float32'), np.zeros((2, 1), 'int64')]]),
     r'The fed Variable x should have dimensions = 2, shape = \[-1, 3\], but received fed shape \[2, 4\]'),
])
def test_read_checks_batches_with_paddles_words(gen, message):
    main, startup, loader, x, y, total = loader_program()
    loader.set_batch_generator(gen)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        loader.start()
    with pytest.raises(ValueError, match=message):
        exe.run(main, fetch_list=[total], scope=scope)
    loader.reset()


def test_generator_error_kills_the_queue_and_not_started_loader_raises():
    main, startup, loader, x, y, total = loader_program()

    def broken():
        yield [np.zeros((2, 3), 'float32'), np.zeros((2, 1), 'int64')]
        raise ValueError('boom')
    loader.set_batch_generator(broken)
    exe = fluid.Executor(fluid.CPUPlace())          # the global scope: where from_generator put the queue
    with pytest.raises(RuntimeError, match='is not started: call loader.start'):
        exe.run(main, fetch_list=[total])
    loader.start()
    exe.run(main, fetch_list=[total])
    with pytest.raises(RuntimeError, match='Blocking queue is killed because the data reader raises an exception: '
                                           'ValueError: boom'):
        exe.run(main, fetch_list=[total])
    loader.reset()


def test_queue_is_bounded_by_capacity():
    main, startup, loader, x, y, total = loader_program(capacity=2)
    pulled = []

    def counting():
        for i in range(10):
            pulled.append(i)
            yield [np.zeros((1, 3), 'float32'), np.zeros((1, 1), 'int64')]
    loader.set_batch_generator(counting)
    loader.start()
    time.sleep(0.3)
    assert loader.queue.size() == 2 and len(pulled) == 3      # two queued, the third waits to be pushed
    loader.reset()
    assert not any(t.name.endswith('-filler') and t.is_alive() for t in threading.enumerate()
                   if loader.queue.name in t.name)


@pytest.mark.parametrize('threads', [1, 4])
def test_data_parallel_place_p_reads_batch_p_of_each_round_and_a_short_run_is_eof(threads):
    main, startup, loader, x, y, total = loader_program()

    def slow_batches():       # a loader slower than the step: the places' reads wait, on several threads
        for i in range(5):
            time.sleep(0.01)
            yield [np.full((2, 3), i, 'float32'), np.full((2, 1), i, 'int64')]
    loader.set_batch_generator(slow_batches)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    es = fluid.ExecutionStrategy()
    es.num_threads = threads
    compiled = fluid.CompiledProgram(main).with_data_parallel(exec_strategy=es, places=fluid.cpu_places(2))
    for _ in range(2):
        with fluid.scope_guard(scope):
            loader.start()
        out = drain(exe, compiled, [y], scope)
        loader.reset()
        # 4 batches in 2 runs, place 0 then place 1 in each (as Paddle's ordered reader); the fifth alone is EOF
        assert [o[0][:, 0].tolist() for o in out] == [[0, 0, 1, 1], [2, 2, 3, 3]]
    assert str(main).count('place_read') == 0        # the user's program keeps its `read`
    exe.close()


def test_round_dealer_keeps_place_order_and_tells_a_straggler_from_the_next_run():
    from paddle_exec.ops.reader import PlaceIndex, RoundDealer
    run = [0]
    places = [PlaceIndex(p, lambda: run[0]) for p in range(2)]
    source = iter([10, 11, 12])

    def take():
        try:
            return next(source)
        except StopIteration:
            raise EOFError('end') from None
    dealer = RoundDealer(2)
    assert [dealer.deal(places[1], take), dealer.deal(places[0], take)] == [11, 10]   # place 1 asked first
    run[0] = 1
    assert dealer.deal(places[0], take) == 12
    with pytest.raises(EOFError):
        dealer.deal(places[1], take)            # the round met the end: place 1 gets it
    run[0] = 2
    with pytest.raises(EOFError):               # a place the failing run cancelled, now first in the next run,
        dealer.deal(places[0], take)            # starts a new round 0 (here: still the end, for both places)
    with pytest.raises(EOFError):
        dealer.deal(places[1], take)            # a straggler of the same run gets the same end
    run[0] = 3
    source = iter([20, 21])
    assert [dealer.deal(places[1], take), dealer.deal(places[0], take)] == [21, 20]
    run[0] = 4
    with pytest.raises(EOFError):
        dealer.deal(places[0], take)            # the end; place 1 is cancelled and never asks in this run
    run[0] = 5
    source = iter([30, 31])
    assert [dealer.deal(places[1], take), dealer.deal(places[0], take)] == [31, 30]   # not the stale end


# --- DataLoader, iterable -------------------------------------------------------------------------------------------

def test_iterable_loader_yields_one_feed_per_place_and_drops_a_short_group():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'int64')
        total = fluid.layers.reduce_sum(x)
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=2, iterable=True)
        listed = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=2, iterable=True, return_list=True)
    assert [op.type for op in main.global_block().ops] == ['reduce_sum']       # nothing in the program
    loader.set_batch_generator(batches(3), places=fluid.CPUPlace())
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    sums = [float(exe.run(main, feed=feed, fetch_list=[total], scope=scope)[0][0]) for feed in loader()]
    assert sums == [0.0, 6.0, 12.0]
    assert [float(exe.run(main, feed=feed, fetch_list=[total], scope=scope)[0][0]) for feed in loader] == sums

    listed.set_batch_generator(batches(5), places=fluid.cpu_places(2))
    steps = list(listed)
    assert len(steps) == 2 and len(steps[0]) == 2 and len(steps[0][0]) == 2
    assert [[np.array(b[1])[0, 0] for b in step] for step in steps] == [[0, 1], [2, 3]]
    with pytest.raises(AssertionError, match='Places cannot be None'):
        listed.set_batch_generator(batches(1))


# --- the stage op -----------------------------------------------------------------------------------------------

def test_stage_op_is_an_identity_and_keeps_shapes():
    main = fluid.Program()
    with fluid.program_guard(main), unique_name.guard():
        a = fluid.data('a', [-1, 3], 'float32')
        b = fluid.data('b', [-1], 'string')
        sa, sb = static.staged([a, b])
    op = main.global_block().ops[-1]
    assert op.type == 'stage' and sa.shape == (-1, 3) and sb.dtype == VarType.STRINGS and sa.stop_gradient
    kernel = registry.make_kernel(op)
    va, vb = np.ones((2, 3), 'float32'), np.array(['p', 'q'], dtype=object)
    (out,) = kernel([va, vb])
    assert out[0] is va and out[1] is vb
