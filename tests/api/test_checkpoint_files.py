"""Checkpoints written by real Paddle load here bit for bit, and paddle.save / paddle.load keep Paddle's formats.

The files in tests/golden/checkpoints/ were written by Paddle 1.8.5 (fluid.save, save_persistables in both
layouts, save_dygraph) and 2.6.2 (static.save, paddle.save of a program state, a Layer state dict, a nest with
Tensors, a LoDTensor, a Program) by make_checkpoints.py there, with `expected.npz` holding the values in Paddle's
scope when it saved."""
import io
import os
import pickle

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.static import pickled_state

CHECKPOINTS = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'checkpoints')


def expected(version):
    with np.load(os.path.join(CHECKPOINTS, version, 'expected.npz'), allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def fc_regression():
    """The program make_checkpoints.py trained: x[3] -> fc(4, relu) -> fc(1), Adam."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        pred = fluid.layers.fc(fluid.layers.fc(x, 4, act='relu'), 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.Adam(0.1).minimize(loss)
    return main, startup


def scope_state(main):
    scope = fluid.global_scope()
    return {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in main.list_vars() if v.persistable}


def assert_bitwise_equal(got, want):
    # Paddle 2.x keeps learning rates 0-d where 1.x (and paddle_exec's programs) have [1]: the same one number
    assert got.dtype == want.dtype and (got.shape == want.shape or {got.shape, want.shape} == {(), (1,)})
    assert got.tobytes() == want.tobytes()


LOADERS = {
    'v18/fluid_save': lambda main, exe, path: fluid.load(main, os.path.join(path, 'model'), exe),
    'v26/static_save': lambda main, exe, path: static.load(main, os.path.join(path, 'model'), exe),
    'v18/persistables': lambda main, exe, path: fluid.io.load_persistables(exe, path, main),
    'v18/combined': lambda main, exe, path: fluid.io.load_persistables(exe, path, main, filename='__params__'),
    'v18/fluid_save state': lambda main, exe, path: fluid.io.set_program_state(
        main, fluid.io.load_program_state(os.path.join(path, 'model'))),
    'v26/static_save state': lambda main, exe, path: static.set_program_state(
        main, static.load_program_state(os.path.join(path, 'model'))),
}


@pytest.mark.parametrize('case', sorted(LOADERS))
def test_paddle_checkpoint_loads_bit_for_bit(case):
    main, startup = fc_regression()
    exe = fluid.Executor(fluid.CPUPlace())
    want = expected(case[:3])
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        LOADERS[case](main, exe, os.path.join(CHECKPOINTS, case.split()[0]))
        got = scope_state(main)
    assert sorted(got) == sorted(k for k in want if not k.startswith('linear.'))
    for name, value in got.items():
        assert_bitwise_equal(value, want[name])


def test_paddle_2_state_dicts_load_with_paddle_load():
    want = expected('v26')
    params = ['fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0']
    for name in ('program_state.pdparams', 'program_state_protocol2.pdparams'):
        state = paddle.load(os.path.join(CHECKPOINTS, 'v26', name))
        assert sorted(state) == sorted(params)
        for key in params:
            assert_bitwise_equal(state[key], want[key])
    layer = paddle.load(os.path.join(CHECKPOINTS, 'v26', 'layer.pdparams'))
    assert sorted(layer) == ['bias', 'weight']                      # the name table is dropped ...
    assert_bitwise_equal(layer['weight'], want['linear.weight'])
    kept = paddle.load(os.path.join(CHECKPOINTS, 'v26', 'layer.pdparams'), keep_name_table=True)
    assert sorted(kept['StructuredToParameterName@@']) == ['bias', 'weight']    # ... unless asked for
    nested = paddle.load(os.path.join(CHECKPOINTS, 'v26', 'nested.pdparams'))  # Tensors as (name, array) tuples
    assert nested['step'] == 3
    assert_bitwise_equal(nested['nested']['w'], want['linear.weight'])
    assert_bitwise_equal(nested['list'][0], want['linear.bias'])
    # a LoDTensor, which Paddle 2.x pickles as eval('data', {'data': array}): the array, nothing evaluated
    assert_bitwise_equal(paddle.load(os.path.join(CHECKPOINTS, 'v26', 'lod_tensor.pdtensor')), want['fc_0.w_0'])
    program = paddle.load(os.path.join(CHECKPOINTS, 'v26', 'program.pdmodel'))
    assert isinstance(program, static.Program) and 'adam' in [op.type for op in program.global_block().ops]


def test_paddle_1_8_dygraph_state_dict_loads_with_paddle_load():
    want = expected('v18')
    state = paddle.load(os.path.join(CHECKPOINTS, 'v18', 'dygraph.pdparams'))
    assert sorted(state) == ['bias', 'weight']
    assert_bitwise_equal(state['weight'], want['linear.weight'])
    assert_bitwise_equal(state['bias'], want['linear.bias'])


# --- paddle.save / paddle.load ----------------------------------------------------------------------------------

def test_save_load_round_trip_of_a_layer_state_dict(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        layer = paddle.nn.Linear(3, 2)
        layer(static.data('x', [None, 3], 'float32'))
    exe = fluid.Executor(fluid.CPUPlace())
    path = str(tmp_path / 'linear.pdparams')
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        before = {k: np.array(fluid.global_scope().find_var(v.name).get_tensor())
                  for k, v in layer.state_dict().items()}
        paddle.save(layer.state_dict(), path)
    with open(path, 'rb') as f:
        raw = pickle.loads(f.read())
    # Paddle 2.x's layout: arrays by attribute path, and the parameter names
    assert raw['StructuredToParameterName@@'] == {k: v.name for k, v in layer.state_dict().items()}
    loaded = paddle.load(path)
    assert sorted(loaded) == sorted(before)
    for key, value in before.items():
        assert_bitwise_equal(loaded[key], value)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        layer.set_state_dict(loaded)
        for key, var in layer.state_dict().items():
            assert_bitwise_equal(np.array(fluid.global_scope().find_var(var.name).get_tensor()), before[key])


def test_save_of_arrays_nests_programs_and_binary_tensors(tmp_path):
    arrays = {'a': np.arange(6, dtype='float32').reshape(2, 3), 'b': np.array([1, 2], 'int64')}
    nest = {'opt': {'lr': np.float32(0.5), 'steps': [1, 2, 3]}, 'name': 'x', 'w': np.ones(2)}
    for protocol in (2, 3, 4):
        paddle.save(arrays, str(tmp_path / 'arrays.pdparams'), protocol=protocol)
        back = paddle.load(str(tmp_path / 'arrays.pdparams'))
        assert sorted(back) == ['a', 'b'] and all(back[k].tobytes() == arrays[k].tobytes() for k in arrays)
    paddle.save(nest, str(tmp_path / 'nest.pd'))
    back = paddle.load(str(tmp_path / 'nest.pd'))
    assert back['opt']['steps'] == [1, 2, 3] and back['opt']['lr'] == np.float32(0.5) and back['name'] == 'x'
    buffer = io.BytesIO()
    paddle.save(arrays, buffer)
    assert paddle.load(io.BytesIO(buffer.getvalue()))['a'].tolist() == arrays['a'].tolist()
    main, _ = fc_regression()
    paddle.save(main, str(tmp_path / 'main.pdmodel'))
    program = paddle.load(str(tmp_path / 'main.pdmodel'))
    assert [op.type for op in program.global_block().ops] == [op.type for op in main.global_block().ops]
    paddle.save(arrays['a'], str(tmp_path / 'a.bin'), use_binary_format=True)
    assert_bitwise_equal(paddle.load(str(tmp_path / 'a.bin')), arrays['a'])
    with pytest.raises(ValueError, match=r"Expected 1<'protocol'<5, but received protocol=5"):
        paddle.save(arrays, str(tmp_path / 'x'), protocol=5)
    with pytest.raises(ValueError, match='filename is empty string'):
        paddle.save(arrays, str(tmp_path) + os.sep)
    with pytest.raises(ValueError, match='not exists'):
        paddle.load(str(tmp_path / 'missing.pdparams'))


def test_big_parameters_split_for_old_pickle_protocols_join_on_load():
    """Paddle splits an array over 2**30 bytes into `name@@.i` slices for protocols 2 and 3; every load joins
    them. A small dict in that layout stands in for a 1 GB one."""
    full = np.arange(10, dtype='float32').reshape(2, 5)
    flat = full.reshape(-1)
    state = {'w@@.0': flat[:4], 'w@@.1': flat[4:8], 'w@@.2': flat[8:], 'b': np.ones(1),
             'UnpackBigParamInfor@@': {'w': {'OriginShape': (2, 5), 'slices': ['w@@.0', 'w@@.1', 'w@@.2']}}}
    loaded = paddle.load(io.BytesIO(pickle.dumps(state, protocol=2)))
    assert sorted(loaded) == ['b', 'w'] and loaded['w'].tolist() == full.tolist()
    big = {'w': np.zeros(2 ** 28 + 3, 'float32')}            # 1 GiB + 12 bytes: split in two
    split = pickled_state._split_big_params(dict(big), protocol=2)
    assert sorted(split) == ['UnpackBigParamInfor@@', 'w@@.0', 'w@@.1']
    assert split['UnpackBigParamInfor@@']['w']['OriginShape'] == (2 ** 28 + 3,)
    assert pickled_state.join_big_params(split)['w'].shape == (2 ** 28 + 3,)
    assert pickled_state._split_big_params(dict(big), protocol=4).keys() == {'w'}


# The next training step's loss that Paddle 1.8.5 (fluid.load, load_persistables in both layouts,
# load_program_state) and 2.6.2 (static.load of each, load_program_state, paddle.load of both protocols) computed
# from the files this test writes, every variable loaded bit-equal (tests/golden/checkpoints/paddle_reads_ours.py).
REAL_PADDLE_NEXT_LOSS = 0.11201077699661255
PARAMS = {'fc_0.w_0': np.linspace(-1, 1, 12).reshape(3, 4), 'fc_0.b_0': np.array([0.1, -0.1, 0.2, 0.0]),
          'fc_1.w_0': np.linspace(1, -1, 4).reshape(4, 1), 'fc_1.b_0': np.array([0.05])}
FEED = {'x': (np.arange(6).reshape(2, 3) / 10 - 0.2).astype('float32'), 'y': np.array([[0.5], [-0.5]], 'float32')}


def test_checkpoints_saved_here_give_real_paddles_next_step(tmp_path):
    main, startup = fc_regression()
    loss_name = next(op.output('Out')[0] for op in main.global_block().ops if op.type == 'mean')
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for name, value in PARAMS.items():
            fluid.global_scope().var(name).get_tensor().set(value.astype('float32'))
        exe.run(main, feed=FEED, fetch_list=[loss_name])
        values = scope_state(main)
        static.save(main, str(tmp_path / 'static_save' / 'model'))
        fluid.io.save_persistables(exe, str(tmp_path / 'persist'), main)
        fluid.io.save_persistables(exe, str(tmp_path / 'combined'), main, filename='__params__')
        paddle.save({k: values[k] for k in PARAMS}, str(tmp_path / 'state.pdparams'), protocol=2)
    loads = [lambda: static.load(main, str(tmp_path / 'static_save' / 'model'), exe),
             lambda: fluid.io.load_persistables(exe, str(tmp_path / 'persist'), main),
             lambda: fluid.io.load_persistables(exe, str(tmp_path / 'combined'), main, filename='__params__'),
             lambda: static.set_program_state(main, static.load_program_state(str(tmp_path / 'static_save' /
                                                                                  'model')))]
    for load in loads:
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            load()
            for name, value in scope_state(main).items():
                assert_bitwise_equal(value, values[name])
            next_loss, = exe.run(main, feed=FEED, fetch_list=[loss_name])
        assert float(next_loss.reshape(-1)[0]) == pytest.approx(REAL_PADDLE_NEXT_LOSS, rel=1e-6)
    state = paddle.load(str(tmp_path / 'state.pdparams'))
    assert all(state[k].tobytes() == values[k].tobytes() for k in PARAMS)
