"""Loading runs no code from a file, stays inside its folder, and names what is wrong with a damaged file.

- A crafted pickle (a `.pdparams`, `.pdopt`, an old-format `__model__` / `.pdmodel`, a paddle.save file) goes
  through every load API; each gadget would create a marker file, and the test checks it was not created and that
  the error names the file and the refused global.
- A variable name that leaves its folder (`../escape_w`, absolute, with separators) is refused on save and load.
- Truncated or corrupt files raise errors naming the file, the variable and the bytes expected and found."""
import builtins
import os
import pickle
import subprocess

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.static import CorruptFileError, UnsafePickleError, inference_model, legacy_program, paddle_proto_writer
from paddle_exec.static.tensor_file import tensor_to_bytes


@pytest.fixture
def trained(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = static.data('x', [None, 3], 'float32')
        y = static.data('y', [None, 1], 'float32')
        pred = static.nn.fc(x, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.Adam(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        yield main, exe, pred, tmp_path


# --- gadgets: each would create `marker` if its global were looked up and called ----------------------------------

class Gadget:
    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def gadgets(marker):
    touch = 'touch %s' % marker
    return {
        'posix.system': Gadget(os.system, touch),
        'subprocess.check_call': Gadget(subprocess.check_call, ['touch', str(marker)]),
        'builtins.exec': Gadget(builtins.exec, 'open(%r, "w").close()' % str(marker)),
        'builtins.eval': Gadget(builtins.eval, '__import__("os").system(%r)' % touch),
        'builtins.eval in Paddle form': Gadget(builtins.eval, 'data', {'data': Gadget(os.system, touch)}),
        'builtins.getattr': Gadget(getattr, Gadget(builtins.__import__, 'os'), 'system'),
        'io.open': Gadget(builtins.open, str(marker), 'w'),
        'an object array': np.array([Gadget(os.system, touch)], dtype=object),
    }


def crafted_pickle(gadget, protocol=2):
    return pickle.dumps({'fc_0.w_0': np.zeros((3, 1), 'float32'), 'fc_0.b_0': gadget}, protocol=protocol)


def refusal(name):
    if name == 'an object array':
        return r"Refusing to load '.*': object arrays are refused"
    refused = {'builtins.eval in Paddle form': 'posix.system'}.get(name, name)
    return r"Refusing to load '.*': it asks for the Python global '%s'" % refused.replace('.', r'\.')


@pytest.mark.parametrize('gadget_name', sorted(gadgets('m')))
def test_crafted_checkpoint_runs_no_code_through_any_load_api(trained, gadget_name):
    main, exe, pred, tmp = trained
    marker = tmp / 'marker'
    static.save(main, str(tmp / 'model'))
    for protocol in (2, 4):
        (tmp / 'model.pdparams').write_bytes(crafted_pickle(gadgets(marker)[gadget_name], protocol))
        (tmp / 'bad.pdparams').write_bytes(crafted_pickle(gadgets(marker)[gadget_name], protocol))
        calls = {
            'static.load': lambda: static.load(main, str(tmp / 'model'), exe),
            'fluid.load': lambda: fluid.load(main, str(tmp / 'model'), exe),
            'static.load_program_state': lambda: static.load_program_state(str(tmp / 'model')),
            'fluid.io.load_program_state': lambda: fluid.io.load_program_state(str(tmp / 'model')),
            'paddle.load': lambda: paddle.load(str(tmp / 'bad.pdparams')),
        }
        for api, call in calls.items():
            with pytest.raises(UnsafePickleError, match=refusal(gadget_name)):
                call()
            assert not marker.exists(), (api, gadget_name)


def test_crafted_optimizer_file_is_refused(trained):
    main, exe, pred, tmp = trained
    static.save(main, str(tmp / 'model'))
    (tmp / 'model.pdopt').write_bytes(pickle.dumps({'learning_rate_0': Gadget(os.system, 'touch %s/m' % tmp)}))
    with pytest.raises(UnsafePickleError, match=r"model\.pdopt': it asks for the Python global 'posix\.system'"):
        static.load(main, str(tmp / 'model'), exe)
    assert not (tmp / 'm').exists()


def test_crafted_model_file_runs_no_code_through_load_inference_model(trained):
    """An inference model whose `__model__` / `.pdmodel` is a pickle (the format of earlier paddle_exec versions)
    naming os.system: both load_inference_model signatures refuse it."""
    main, exe, pred, tmp = trained
    marker = tmp / 'marker'
    legacy = pickle.dumps({'format': 'paddle_exec.program', 'version': 1,
                           'blocks': [Gadget(os.system, 'touch %s' % marker)]}, protocol=4)
    fluid.io.save_inference_model(str(tmp / 'folder'), ['x'], [pred], exe, main_program=main)
    (tmp / 'folder' / '__model__').write_bytes(legacy)
    static.save_inference_model(str(tmp / 'prefix' / 'model'), [main.global_block().var('x')], [pred], exe,
                                program=main)
    (tmp / 'prefix' / 'model.pdmodel').write_bytes(legacy)
    for call in (lambda: fluid.io.load_inference_model(str(tmp / 'folder'), exe),
                 lambda: static.load_inference_model(str(tmp / 'folder'), exe),
                 lambda: static.load_inference_model(str(tmp / 'prefix' / 'model'), exe)):
        with pytest.raises(UnsafePickleError, match=r"model.*: it asks for the Python global 'posix\.system'"):
            call()
        assert not marker.exists()


def test_the_old_program_pickle_still_loads_with_its_enum_values(trained):
    """The former format pickled VarType members among attributes: the one extra global it may name."""
    main, exe, pred, tmp = trained
    pruned = inference_model.prune_for_inference(main, ['x'], [pred.name])
    pruned.global_block().ops[0].attrs['a_dtype'] = paddle.float32
    data = legacy_program.program_to_bytes(pruned, ['x'], [pred.name])
    assert b'VarType' in data
    program = legacy_program.program_from_bytes(data)
    assert program.global_block().ops[0].attr('a_dtype') == paddle.float32
    (tmp / 'p.pdparams').write_bytes(pickle.dumps({'w': paddle.float32}))    # but never in a checkpoint
    with pytest.raises(UnsafePickleError, match="global 'paddle_exec.framework.dtype.VarType'"):
        static.load_program_state(str(tmp / 'p'))


# --- names that would leave the folder ------------------------------------------------------------------------------

ESCAPING = ['../escape_w', '/tmp/absolute_w', 'sub/../../escape_w', 'sub//w', '..', 'back\\slash_w', 'nul\0w']


@pytest.mark.parametrize('name', ESCAPING)
def test_escaping_variable_names_are_refused_on_save(tmp_path, name):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = static.data('x', [None, 2], 'float32')
        w = fluid.layers.create_parameter([2, 2], 'float32', name=name)
        out = fluid.layers.matmul(x, w)
    exe = fluid.Executor(fluid.CPUPlace())
    folder = tmp_path / 'inner' / 'ckpt'
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for call in (lambda: fluid.io.save_persistables(exe, str(folder), main),
                     lambda: fluid.io.save_params(exe, str(folder), main),
                     lambda: fluid.io.save_inference_model(str(folder), ['x'], [out], exe, main_program=main)):
            with pytest.raises(ValueError, match=r"Variable name .* cannot be used as a file name: it would point "
                                                 r"outside its folder"):
                call()
        fluid.io.save_persistables(exe, str(folder), main, filename='__params__')   # one file: no name issue
    written = {os.path.relpath(os.path.join(d, f), tmp_path) for d, _, files in os.walk(tmp_path) for f in files}
    assert written == {os.path.join('inner', 'ckpt', '__params__')}
    assert not os.path.exists('/tmp/absolute_w')


def test_model_naming_a_file_outside_its_folder_is_refused_on_load(tmp_path):
    """A downloaded model whose parameter is called `../outside_w` would read `outside_w` beside the folder."""
    program = static.Program()
    block = program.global_block()
    with static.program_guard(program, static.Program()):
        x = static.data('x', [None, 2], 'float32')
        w = fluid.layers.create_parameter([2, 2], 'float32', name='../outside_w')
        out = fluid.layers.matmul(x, w)
    folder = tmp_path / 'model'
    folder.mkdir()
    (folder / '__model__').write_bytes(paddle_proto_writer.program_to_protobuf(program, ['x'], [out.name]))
    (tmp_path / 'outside_w').write_bytes(tensor_to_bytes(np.ones((2, 2), 'float32')))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        with pytest.raises(ValueError, match=r"Variable name '\.\./outside_w' cannot be used as a file name"):
            fluid.io.load_inference_model(str(folder), exe)
        assert fluid.global_scope().find_var('../outside_w') is None
        with pytest.raises(ValueError, match=r"'\.\./outside_w' cannot be used as a file name"):
            fluid.io.load_vars(exe, str(folder), program, vars=[block.var('../outside_w')])


def test_scoped_names_save_into_sub_folders_and_load_back(tmp_path):
    """Paddle saves `GRUCell/w_0` as the file w_0 of the sub-folder GRUCell (name scopes make such names); a linked
    sub-folder that leads out of the folder is refused before anything is written through it."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 2], 'float32')
        w = fluid.layers.create_parameter([2, 2], 'float32', name='GRUCell/BasicGRUUnit_0.w_0')
        out = fluid.layers.matmul(x, w)
    exe = fluid.Executor(fluid.CPUPlace())
    folder = tmp_path / 'ckpt'
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        want = np.array(fluid.global_scope().find_var(w.name).get_tensor())
        fluid.io.save_persistables(exe, str(folder), main)
    assert (folder / 'GRUCell' / 'BasicGRUUnit_0.w_0').is_file()
    with fluid.scope_guard(fluid.Scope()):
        fluid.io.load_persistables(exe, str(folder), main)
        np.testing.assert_array_equal(np.array(fluid.global_scope().find_var(w.name).get_tensor()), want)
    outside = tmp_path / 'outside'
    outside.mkdir()
    linked = tmp_path / 'linked'
    linked.mkdir()
    os.symlink(str(outside), str(linked / 'GRUCell'))
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        with pytest.raises(ValueError, match='leads out of the folder'):
            fluid.io.save_persistables(exe, str(linked), main)
        with pytest.raises(ValueError, match='leads out of the folder'):
            fluid.io.load_persistables(exe, str(linked), main)
    assert not any(outside.iterdir())
    assert out is not None


# --- damaged files ------------------------------------------------------------------------------------------------

def test_truncated_variable_files_name_the_file_the_variable_and_the_bytes(trained):
    main, exe, pred, tmp = trained
    folder, combined = tmp / 'persist', tmp / 'combined'
    fluid.io.save_persistables(exe, str(folder), main)
    fluid.io.save_persistables(exe, str(combined), main, filename='__params__')
    w = folder / 'fc_0.w_0'
    data = w.read_bytes()
    w.write_bytes(data[:-5])                        # 3x1 float32: 12 data bytes, 7 left
    with pytest.raises(CorruptFileError, match=r"'.*fc_0\.w_0' \(variable 'fc_0\.w_0'\) is truncated or corrupt: "
                                               r"its data \(float32 of shape \[3, 1\]\) needs 12 bytes at offset "
                                               r"\d+, 7 found"):
        fluid.io.load_persistables(exe, str(folder), main)
    w.write_bytes(data[:10])
    with pytest.raises(CorruptFileError, match=r"variable 'fc_0\.w_0'.*LoD level count needs 8 bytes at offset 4, "
                                               r"6 found"):
        fluid.io.load_persistables(exe, str(folder), main)
    w.write_bytes(b'')
    with pytest.raises(CorruptFileError, match=r"its version needs 4 bytes at offset 0, 0 found"):
        fluid.io.load_persistables(exe, str(folder), main)
    w.write_bytes(data + b'junk')
    with pytest.raises(CorruptFileError, match=r"holds 4 bytes after its tensor"):
        fluid.io.load_persistables(exe, str(folder), main)
    params = combined / '__params__'
    data = params.read_bytes()
    params.write_bytes(data[:len(data) // 2])
    with pytest.raises(CorruptFileError, match=r"__params__' \(variable '[^']+'\) is truncated or corrupt: .* needs "
                                               r"\d+ bytes at offset \d+, \d+ found"):
        fluid.io.load_persistables(exe, str(combined), main, filename='__params__')
    with pytest.raises(RuntimeError):                   # what the earlier checks raised, still true
        fluid.io.load_persistables(exe, str(combined), main, filename='__params__')


def test_truncated_pickles_and_models_name_the_file_the_variable_and_the_bytes(trained):
    main, exe, pred, tmp = trained
    fluid.global_scope().var('fc_0.w_0').get_tensor().set(np.ones((3, 1), 'float32'))
    static.save(main, str(tmp / 'model'))
    params = tmp / 'model.pdparams'
    data = params.read_bytes()
    cut = data.index(b'fc_0.w_0') + 40
    params.write_bytes(data[:cut])
    with pytest.raises(CorruptFileError, match=r"'.*model\.pdparams' is truncated or corrupt \(%d bytes\) while "
                                               r"reading the value of 'fc_0\.w_0': the pickle stream needs \d+ "
                                               r"bytes at offset \d+, \d+ found" % cut):
        static.load(main, str(tmp / 'model'), exe)
    with pytest.raises(CorruptFileError, match=r"model\.pdparams' is truncated"):
        paddle.load(str(params))
    model = tmp / 'model.pdmodel'
    model.write_bytes(model.read_bytes()[:-3])
    with pytest.raises(ValueError, match=r"'.*model\.pdmodel' is not a valid Paddle ProgramDesc \(\d+ bytes\)"):
        static.load_inference_model(str(tmp / 'model'), exe)
