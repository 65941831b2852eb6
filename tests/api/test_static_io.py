"""paddle.static / fluid saving and loading (Paddle's file formats, atomic writes), DataFeeder, create_parameter,
create_global_var, device_guard and InputSpec."""
import os
import pickle

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import VarType, unique_name
from paddle_exec.static import inference_model, legacy_program, tensor_file
from paddle_exec.static import io as static_io


@pytest.fixture
def trained(tmp_path):
    """An fc regression trained two Adam steps in its own scope (the global scope inside the test)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = static.data('x', [None, 3], 'float32')
        y = static.data('y', [None, 1], 'float32')
        loss = fluid.layers.mean(fluid.layers.square_error_cost(static.nn.fc(x, 1), y))
        fluid.optimizer.Adam(0.1).minimize(loss)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.default_rng(0)
    feed = {'x': rng.standard_normal((4, 3)).astype('float32'), 'y': rng.standard_normal((4, 1)).astype('float32')}
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(2):
            exe.run(main, feed=feed, fetch_list=[loss])
        yield main, exe, scope, feed, loss, str(tmp_path)


def scope_values(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor()) for n in names}


OPT_STATE = ['fc_0.b_0_beta1_pow_acc_0', 'fc_0.b_0_beta2_pow_acc_0', 'fc_0.b_0_moment1_0', 'fc_0.b_0_moment2_0',
             'fc_0.w_0_beta1_pow_acc_0', 'fc_0.w_0_beta2_pow_acc_0', 'fc_0.w_0_moment1_0', 'fc_0.w_0_moment2_0',
             'learning_rate_0']


# --- static.save / static.load -------------------------------------------------------------------------------

def test_save_writes_parameters_optimizer_state_and_model(trained):
    main, exe, scope, feed, loss, tmp = trained
    static.save(main, os.path.join(tmp, 'ckpt', 'model'))
    assert sorted(os.listdir(os.path.join(tmp, 'ckpt'))) == ['model.pdmodel', 'model.pdopt', 'model.pdparams']
    with open(os.path.join(tmp, 'ckpt', 'model.pdparams'), 'rb') as f:
        raw = f.read()
    params = pickle.loads(raw)
    assert sorted(params) == ['fc_0.b_0', 'fc_0.w_0']       # parameters only, no data variables
    for name, value in scope_values(scope, params).items():
        np.testing.assert_array_equal(params[name], value)
    assert b'numpy._core' not in raw                         # readable by the numpy 1.x of a Paddle install
    with open(os.path.join(tmp, 'ckpt', 'model.pdopt'), 'rb') as f:
        opt = pickle.load(f)
    assert sorted(opt) == OPT_STATE


def test_load_restores_parameters_and_optimizer_state(trained):
    main, exe, scope, feed, loss, tmp = trained
    path = os.path.join(tmp, 'model')
    fluid.save(main, path)
    names = ['fc_0.w_0', 'fc_0.b_0'] + OPT_STATE
    saved = scope_values(scope, names)
    next_loss = exe.run(main, feed=feed, fetch_list=[loss])[0]
    static.load(main, path, exe)
    for name, value in scope_values(scope, names).items():
        np.testing.assert_array_equal(value, saved[name])
    np.testing.assert_array_equal(exe.run(main, feed=feed, fetch_list=[loss])[0], next_loss)
    static.load(main, path + '.pdparams')                   # a path with a suffix works too, without executor


def test_load_reports_what_is_missing_or_wrong(trained):
    main, exe, scope, feed, loss, tmp = trained
    path = os.path.join(tmp, 'model')
    with pytest.raises(ValueError, match='not exits'):
        static.load(main, path, exe)
    static.save(main, path)
    with open(path + '.pdparams', 'wb') as f:
        pickle.dump({'fc_0.w_0': np.zeros((3, 1), 'float32')}, f)
    with pytest.raises(ValueError, match=r'Can not find \[fc_0.b_0\]'):
        static.load(main, path, exe)
    with open(path + '.pdparams', 'wb') as f:
        pickle.dump({'fc_0.w_0': np.zeros((3, 2), 'float32'), 'fc_0.b_0': np.zeros(1, 'float32')}, f)
    with pytest.raises(ValueError, match=r"'fc_0.w_0' receives a shape \[3, 2\].*expected shape is \[3, 1\]"):
        static.load(main, path, exe)
    with pytest.raises(ValueError, match='model_path MUST be format of dirname/filename'):
        static.save(main, tmp + os.sep)


def test_save_is_atomic(trained, monkeypatch):
    main, exe, scope, feed, loss, tmp = trained
    path = os.path.join(tmp, 'model')
    static.save(main, path)
    with open(path + '.pdparams', 'rb') as f:
        before = f.read()
    scope.var('fc_0.w_0').get_tensor().set(np.full((3, 1), 9.0, 'float32'))

    def failing_replace(src, dst):
        raise OSError('disk full')
    monkeypatch.setattr(static_io.os, 'replace', failing_replace)
    with pytest.raises(OSError, match='disk full'):
        static.save(main, path)
    monkeypatch.undo()
    with open(path + '.pdparams', 'rb') as f:
        assert f.read() == before                               # the old checkpoint is intact
    assert sorted(os.listdir(tmp)) == ['model.pdmodel', 'model.pdopt', 'model.pdparams']   # no temp files left


def test_save_of_an_uninitialised_program_names_the_variable(trained):
    main, exe, scope, feed, loss, tmp = trained
    with fluid.scope_guard(fluid.Scope()):
        with pytest.raises(ValueError, match="Variable 'fc_0.w_0' has no value"):
            static.save(main, os.path.join(tmp, 'model'))


def test_load_program_state_and_set_program_state(trained):
    main, exe, scope, feed, loss, tmp = trained
    path = os.path.join(tmp, 'model')
    static.save(main, path)
    state = static.load_program_state(path)
    assert sorted(state) == sorted(['fc_0.b_0', 'fc_0.w_0'] + OPT_STATE)
    with fluid.scope_guard(fluid.Scope()):
        missing = static.set_program_state(main, {k: v for k, v in state.items() if k != 'learning_rate_0'})
        assert missing == ['learning_rate_0']
        np.testing.assert_array_equal(np.array(fluid.global_scope().find_var('fc_0.w_0').get_tensor()),
                                      state['fc_0.w_0'])


def without_empty_slots_and_float64(program):
    """The program's text with unwired slots dropped and float attributes rounded to float32: what a ProgramDesc
    keeps (the reader drops `Bias=[]` slots; Paddle's FLOAT attributes are float32)."""
    for block in program.blocks:
        for op in block.ops:
            op.inputs = {k: v for k, v in op.inputs.items() if v}
            op.outputs = {k: v for k, v in op.outputs.items() if v}
            op.attrs = {k: float(np.float32(v)) if type(v) is float else v for k, v in op.attrs.items()}
    return str(program)


def test_program_description_round_trip(trained):
    main, exe, scope, feed, loss, tmp = trained
    path = os.path.join(tmp, 'model')
    static.save(main, path)
    with open(path + '.pdmodel', 'rb') as f:
        data = f.read()
    assert data[:1] == b'\x0a'                                 # Paddle's ProgramDesc protobuf, not a pickle
    loaded, feed_names, fetch_names = static_io.program_from_model_bytes(data)
    assert feed_names == [] and fetch_names == []
    assert without_empty_slots_and_float64(loaded) == without_empty_slots_and_float64(main.clone())
    assert [p.name for p in loaded.all_parameters()] == ['fc_0.w_0', 'fc_0.b_0']
    test = loaded.clone(for_test=True)
    np.testing.assert_array_equal(exe.run(test, feed=feed, fetch_list=[loss.name])[0],
                                  exe.run(main.clone(for_test=True), feed=feed, fetch_list=[loss.name])[0])


# --- fluid.io: one file per variable, or combined, in Paddle's tensor format -------------------------------------

def test_tensor_stream_is_paddles_bytes():
    # written by Paddle 1.8.5's fluid.io.save_vars for a float32 [1.5, -2.0]
    paddle_bytes = bytes.fromhex('0000000000000000000000000000000004000000080510020000c03f000000c0')
    assert tensor_file.tensor_to_bytes(np.array([1.5, -2.0], 'float32')) == paddle_bytes
    array, lod, end = tensor_file.tensor_from_bytes(paddle_bytes)
    assert array.dtype == np.float32 and array.tolist() == [1.5, -2.0] and lod == [] and end == len(paddle_bytes)
    ints = np.arange(6, dtype='int64').reshape(2, 3)
    back, lod, _ = tensor_file.tensor_from_bytes(tensor_file.tensor_to_bytes(ints, [[0, 1, 2]]))
    assert back.dtype == np.int64 and np.array_equal(back, ints) and lod == [[0, 1, 2]]


def test_save_and_load_params_and_persistables(trained):
    main, exe, scope, feed, loss, tmp = trained
    names = ['fc_0.w_0', 'fc_0.b_0'] + OPT_STATE
    saved = scope_values(scope, names)
    fluid.io.save_params(exe, os.path.join(tmp, 'params'), main)
    fluid.io.save_persistables(exe, os.path.join(tmp, 'persist'), main)
    fluid.io.save_persistables(exe, os.path.join(tmp, 'combined'), main, filename='all')
    assert sorted(os.listdir(os.path.join(tmp, 'params'))) == ['fc_0.b_0', 'fc_0.w_0']
    assert sorted(os.listdir(os.path.join(tmp, 'persist'))) == sorted(names)
    for folder, filename in (('persist', None), ('combined', 'all')):
        exe.run(main, feed=feed, fetch_list=[loss])        # change every value
        fluid.io.load_persistables(exe, os.path.join(tmp, folder), main, filename=filename)
        for name, value in scope_values(scope, names).items():
            np.testing.assert_array_equal(value, saved[name])
    exe.run(main, feed=feed, fetch_list=[loss])
    static.load(main, os.path.join(tmp, 'persist'), exe)        # static.load reads such a folder too
    np.testing.assert_array_equal(np.array(scope.find_var('fc_0.w_0').get_tensor()), saved['fc_0.w_0'])
    with pytest.raises(RuntimeError, match="variable 'fc_0.b_0_moment1_0' was not saved"):
        fluid.io.load_persistables(exe, os.path.join(tmp, 'params'), main)


# --- DataFeeder ------------------------------------------------------------------------------------------------

def test_data_feeder_builds_the_feed_dict():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        img = fluid.data('img', [None, 2, 3], 'float32')
        fluid.layers.data('label', [1], dtype='int64')
        feeder = fluid.DataFeeder([img, 'label'], fluid.CPUPlace())
    batch = [(np.full(6, i, 'float32'), i) for i in range(4)]
    feed = feeder.feed(batch)
    assert sorted(feed) == ['img', 'label']
    assert isinstance(feed['img'], fluid.LoDTensor) and feed['img'].shape() == [4, 2, 3]
    assert np.array(feed['label']).dtype == np.int64 and np.array(feed['label']).tolist() == [[0], [1], [2], [3]]
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[img], scope=fluid.Scope())
    assert got.shape == (4, 2, 3) and got[3].tolist() == [[3.0] * 3] * 2
    with pytest.raises(ValueError, match=r'number of fields in data \(1\) does not match len\(feed_list\) \(2\)'):
        feeder.feed([(np.zeros(6, 'float32'),)])
    with pytest.raises(ValueError, match='Reshape error'):
        feeder.feed([(np.zeros(5, 'float32'), 0)])
    with pytest.raises(TypeError, match='Feed list should contain a list of variable'):
        fluid.DataFeeder([3], fluid.CPUPlace(), program=main)


def test_data_feeder_per_place_and_decorated_reader():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data('x', [None, 2], 'float32')
    feeder = fluid.DataFeeder([x], fluid.CPUPlace(), program=main)
    batches = [[(np.ones(2) * i,)] for i in range(4)]
    per_place = list(feeder.feed_parallel(batches[:2], 2))
    assert [np.array(d['x']).tolist() for d in per_place] == [[[0.0, 0.0]], [[1.0, 1.0]]]
    reader = feeder.decorate_reader(lambda: iter(batches[:3]), multi_devices=True, num_places=2)
    steps = list(reader())
    assert len(steps) == 1 and len(steps[0]) == 2                     # the third batch is dropped
    single = list(feeder.decorate_reader(lambda: iter(batches), multi_devices=False)())
    assert len(single) == 4 and np.array(single[3]['x']).tolist() == [[3.0, 3.0]]


# --- create_parameter, create_global_var, device_guard, InputSpec --------------------------------------------

def test_create_parameter_and_global_var_names_and_initialisers():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        w = fluid.layers.create_parameter([3, 2], 'float32')
        b = static.create_parameter([2], 'float32', name='myb', is_bias=True)
        c = static.create_parameter([2], 'float32', attr=fluid.ParamAttr(name='attr_w'),
                                    default_initializer=fluid.initializer.Constant(0.25))
        g = static.create_global_var([1], 3, 'int64', persistable=True, name='gstep')
    assert (w.name, b.name, c.name, g.name) == ('create_parameter_0.w_0', 'myb', 'attr_w', 'gstep')
    assert w.trainable and w.persistable and not w.stop_gradient and w.shape == (3, 2)
    assert g.persistable and g.stop_gradient and g.dtype == VarType.INT64
    init = {op.output('Out')[0]: op for op in startup.global_block().ops}
    assert init['myb'].type == 'fill_constant' and init['myb'].attr('value') == 0.0
    assert init['attr_w'].attr('value') == 0.25 and init['create_parameter_0.w_0'].type == 'uniform_random'
    assert init['gstep'].attr('value') == 3.0 and init['gstep'].attr('dtype') == VarType.INT64
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    assert np.array(scope.find_var('gstep').get_tensor()).tolist() == [3]
    with pytest.raises(TypeError, match="'shape' in create_parameter"):
        static.create_parameter(3, 'float32')
    with pytest.raises(TypeError, match="'dtype' in create_parameter"):
        static.create_parameter([3], 'complex64')


def test_device_guard_and_input_spec():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        with static.device_guard('cpu'):
            x = static.data('x', [None, 2], 'float32')
        with static.device_guard('gpu:0'):
            fluid.layers.scale(x, 2.0)
    assert [op.type for op in main.global_block().ops] == ['scale']
    with pytest.raises(ValueError, match="should be 'cpu', 'gpu'"):
        with static.device_guard('tpu'):
            pass
    spec = static.InputSpec([None, 3], 'float32', name='img')
    assert spec.shape == (-1, 3) and spec.dtype == VarType.FP32 and spec.batch(8).shape == (8, -1, 3)
    assert spec.unbatch().shape == (3,) and spec == static.InputSpec([-1, 3], 'float32', 'img')
    assert static.InputSpec.from_numpy(np.zeros((2, 5), 'int64')).dtype == VarType.INT64


# --- inference models -----------------------------------------------------------------------------------------

def test_inference_model_round_trip_in_both_signatures(trained):
    main, exe, scope, feed, loss, tmp = trained
    pred = main.global_block().var('fc_0.tmp_1')
    want, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[pred.name])
    n_ops = len(main.global_block().ops)
    x = main.global_block().var('x')
    names = static.save_inference_model(os.path.join(tmp, 'infer', 'model'), [x], [pred], exe, program=main)
    assert names == ['fc_0.tmp_1'] and len(main.global_block().ops) == n_ops
    assert sorted(os.listdir(os.path.join(tmp, 'infer'))) == ['model.pdiparams', 'model.pdmodel']
    fluid.io.save_inference_model(os.path.join(tmp, 'legacy'), ['x'], [pred], exe, main_program=main)
    assert sorted(os.listdir(os.path.join(tmp, 'legacy'))) == ['__model__', 'fc_0.b_0', 'fc_0.w_0']
    for path in (os.path.join(tmp, 'infer', 'model'), os.path.join(tmp, 'legacy')):
        with fluid.scope_guard(fluid.Scope()):
            program, feed_names, fetch_targets = static.load_inference_model(path, exe)
            assert feed_names == ['x'] and [v.name for v in fetch_targets] == ['fc_0.tmp_1']
            assert [op.type for op in program.global_block().ops] == ['mul', 'elementwise_add']
            assert not program.global_block().has_var('y')
            got, = exe.run(program, feed={'x': feed['x']}, fetch_list=fetch_targets)
            np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match='no model file'):
        static.load_inference_model(os.path.join(tmp, 'nothing'), exe)


def test_inference_model_of_an_earlier_paddle_exec_still_loads(trained):
    """Models saved before the protobuf writer hold paddle_exec's pickle; load_inference_model reads them."""
    main, exe, scope, feed, loss, tmp = trained
    pred = main.global_block().var('fc_0.tmp_1')
    want, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[pred.name])
    folder = os.path.join(tmp, 'old')
    fluid.io.save_inference_model(folder, ['x'], [pred], exe, main_program=main)
    pruned = inference_model.prune_for_inference(main, ['x'], ['fc_0.tmp_1'])
    with open(os.path.join(folder, '__model__'), 'wb') as f:
        f.write(legacy_program.program_to_bytes(pruned, ['x'], ['fc_0.tmp_1']))
    with fluid.scope_guard(fluid.Scope()):
        program, feed_names, fetch_targets = static.load_inference_model(folder, exe)
        assert feed_names == ['x'] and [v.name for v in fetch_targets] == ['fc_0.tmp_1']
        got, = exe.run(program, feed={'x': feed['x']}, fetch_list=fetch_targets)
    np.testing.assert_array_equal(got, want)
