"""paddle-exec inspect and run on the models saved by real Paddle 1.8.5 and 2.6.2 (tests/golden/models/): the facts
of each model, and one run reproducing Paddle's recorded output."""
import json
import os

import numpy as np
import pytest

from .helpers import GOLDEN, GOLDEN_IDS, MODELS, cli, golden_io

# ops (feed/fetch dropped), parameters {name: shape} for each golden model
EXPECTED = {
    'fit_a_line_v18': (['mul', 'elementwise_add', 'scale'], {'fc_0.w_0': [13, 1], 'fc_0.b_0': [1]}),
    'mlp_v18': (['mul', 'elementwise_add', 'relu', 'dropout', 'mul', 'elementwise_add', 'softmax', 'scale'],
                {'fc_0.w_0': [784, 64], 'fc_0.b_0': [64], 'fc_1.w_0': [64, 10], 'fc_1.b_0': [10]}),
    'cnn_v18': (['conv2d', 'elementwise_add', 'batch_norm', 'relu', 'pool2d', 'mul', 'elementwise_add', 'softmax',
                 'scale'], {'conv2d_0.w_0': [4, 1, 3, 3], 'batch_norm_0.w_1': [4], 'fc_0.w_0': [144, 10]}),
    'mlp_v26': (['mul', 'elementwise_add', 'gelu', 'dropout', 'mul', 'elementwise_add', 'softmax', 'scale'],
                {'fc_0.w_0': [20, 32], 'fc_1.b_0': [5]}),
}


@pytest.mark.parametrize('name, path', GOLDEN, ids=GOLDEN_IDS)
def test_inspect_json_lists_feeds_fetches_ops_and_parameters(capsys, name, path):
    status, out, _ = cli(capsys, 'inspect', os.path.join(MODELS, path), '--json')
    assert status == 0
    facts = json.loads(out)
    feeds, expected_out = golden_io(name)
    assert [f['name'] for f in facts['feeds']] == list(feeds)
    for f in facts['feeds']:
        assert f['shape'][0] == -1 and f['shape'][1:] == list(feeds[f['name']].shape[1:])
        assert f['dtype'] == str(feeds[f['name']].dtype)
    assert len(facts['fetches']) == 1 and facts['fetches'][0]['name'].startswith('save_infer_model/scale_')
    assert facts['fetches'][0]['shape'][1:] == list(expected_out.shape[1:])
    op_types, params = EXPECTED[name]
    assert [op['type'] for op in facts['blocks'][0]['ops']] == op_types
    by_name = {p['name']: p for p in facts['parameters']}
    for pname, shape in params.items():
        assert by_name[pname]['shape'] == shape
        assert by_name[pname]['size'] == int(np.prod(shape)) and by_name[pname]['bytes'] == 4 * int(np.prod(shape))
    # machinery attributes are hidden unless asked for
    assert all('op_role' not in op['attrs'] for op in facts['blocks'][0]['ops'])


def test_inspect_text_sections_and_all_attrs(capsys):
    path = os.path.join(MODELS, 'mlp_v18')
    status, out, _ = cli(capsys, 'inspect', path)
    assert status == 0
    for section in ('feeds (1)', 'fetches (1)', 'ops (8)', 'parameters (4, 50,890 values, 198.8 KiB)'):
        assert section in out
    assert "dropout_implementation='downgrade_in_infer'" in out and 'op_role' not in out
    assert 'Paddle 1.8 layout; parameters: %s' % os.path.join(path, '__params__') in out
    _, out_all, _ = cli(capsys, 'inspect', path, '--all-attrs')
    assert 'op_role=' in out_all


@pytest.mark.parametrize('spelling', ['dir', 'prefix', 'pdmodel', 'model_file'])
def test_inspect_finds_a_model_from_any_path_users_have(capsys, spelling):
    paths = {'dir': os.path.join(MODELS, 'mlp_v26'), 'prefix': os.path.join(MODELS, 'mlp_v26', 'inference'),
             'pdmodel': os.path.join(MODELS, 'mlp_v26', 'inference.pdmodel'),
             'model_file': os.path.join(MODELS, 'cnn_v18', '__model__')}
    status, out, _ = cli(capsys, 'inspect', paths[spelling], '--json')
    assert status == 0
    assert json.loads(out)['kind'] == ('paddle-1.8' if spelling == 'model_file' else 'paddle-2.x')


def test_inspect_graphviz_dot(capsys, tmp_path):
    out_path = tmp_path / 'cnn.dot'
    status, out, _ = cli(capsys, 'inspect', os.path.join(MODELS, 'cnn_v18'), '--graphviz', out_path)
    assert status == 0 and 'graph written to' in out
    dot = out_path.read_text()
    assert dot.startswith('digraph G {') and dot.rstrip().endswith('}')
    assert dot.count('shape=box, style="rounded,filled"') == 9           # one box per op
    assert '"img\\n[-1, 1, 12, 12]"' in dot and '#b8e0b0' in dot        # the feed, green, with its shape
    assert 'shape=box3d' in dot                                         # parameters
    assert 'save_infer_model/scale_0.tmp_2' in dot and '#f8c471' in dot  # the fetch, orange


@pytest.mark.skipif(__import__('shutil').which('dot') is None, reason="Graphviz's dot program is not installed")
def test_inspect_graphviz_svg(capsys, tmp_path):
    out_path = tmp_path / 'cnn.svg'
    status, _, _ = cli(capsys, 'inspect', os.path.join(MODELS, 'cnn_v18'), '--graphviz', out_path)
    assert status == 0
    svg = out_path.read_text()
    assert '<svg' in svg and 'batch_norm' in svg


def test_inspect_graphviz_unknown_extension_is_one_line_error(capsys, tmp_path):
    status, _, err = cli(capsys, 'inspect', os.path.join(MODELS, 'cnn_v18'), '--graphviz', tmp_path / 'g.jpeg')
    assert status == 1
    assert err.count('\n') == 1 and "must end in one of .dot, .gv, .svg, .png, .pdf" in err


def test_inspect_missing_model_is_one_line_error(capsys, tmp_path):
    status, _, err = cli(capsys, 'inspect', tmp_path / 'nothing')
    assert status == 1 and err.count('\n') == 1
    assert err.startswith('paddle-exec inspect: error: no such model: ')
    status, _, err = cli(capsys, 'inspect', tmp_path)
    assert status == 1 and 'expected __model__ (Paddle 1.8 save_inference_model) or NAME.pdmodel' in err


def _npy_feeds(tmp_path, feeds):
    args = []
    for name, value in feeds.items():
        np.save(tmp_path / (name + '.npy'), value)
        args += ['--feed', '%s=%s' % (name, tmp_path / (name + '.npy'))]
    return args


@pytest.mark.parametrize('name, path', GOLDEN, ids=GOLDEN_IDS)
def test_run_reproduces_paddles_recorded_output(capsys, tmp_path, name, path):
    feeds, expected = golden_io(name)
    out_path = tmp_path / 'out.npz'
    status, out, _ = cli(capsys, 'run', os.path.join(MODELS, path), *_npy_feeds(tmp_path, feeds), '-o', out_path)
    assert status == 0 and 'fetches written to' in out
    with np.load(out_path) as got:
        assert len(got.files) == 1 and got.files[0].startswith('save_infer_model/scale_')
        np.testing.assert_allclose(got[got.files[0]], expected, rtol=1e-5, atol=1e-6)


def test_run_takes_an_npz_of_feeds(capsys, tmp_path):
    _, expected = golden_io('cnn_v18')
    out_path = tmp_path / 'out.npz'
    status, out, _ = cli(capsys, 'run', os.path.join(MODELS, 'cnn_v18'), '--feed',
                         os.path.join(MODELS, 'cnn_v18.io.npz'), '--output', out_path)
    assert status == 0
    assert 'save_infer_model/scale_0.tmp_2  float32 [3, 10]' in out
    with np.load(out_path) as got:
        np.testing.assert_allclose(got['save_infer_model/scale_0.tmp_2'], expected, rtol=1e-5, atol=1e-6)


def test_run_errors_name_the_feed(capsys, tmp_path):
    path = os.path.join(MODELS, 'fit_a_line_v18')
    status, _, err = cli(capsys, 'run', path)
    assert status == 1 and 'no array given for feed x (give --feed x=FILE.npy)' in err
    np.save(tmp_path / 'y.npy', np.zeros((2, 13), 'float32'))
    status, _, err = cli(capsys, 'run', path, '--feed', 'y=%s' % (tmp_path / 'y.npy'))
    assert status == 1 and 'the model has no feed named y; its feeds are: x' in err
    np.save(tmp_path / 'x.npy', np.zeros((2, 12), 'float32'))
    status, _, err = cli(capsys, 'run', path, '--feed', 'x=%s' % (tmp_path / 'x.npy'))
    assert status == 1 and err.count('\n') == 1 and "'x'" in err and '12' in err      # the Executor's shape check
    status, _, err = cli(capsys, 'run', path, '--feed', 'x=%s' % (tmp_path / 'missing.npy'))
    assert status == 1 and 'no such file' in err and "feed 'x'" in err


def test_a_static_save_checkpoint(capsys, tmp_path):
    """static.save writes a whole training program: inspect shows it with the inputs it would need fed and the
    optimizer state among the parameters; run says it is no inference model."""
    import paddle_exec.fluid as fluid
    import paddle_exec.static as static
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        fluid.optimizer.Adam(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        static.save(main, str(tmp_path / 'ckpt' / 'model'))
    status, out, _ = cli(capsys, 'inspect', tmp_path / 'ckpt' / 'model')
    assert status == 0
    assert 'a training checkpoint written by static.save' in out
    assert 'feeds (what its ops read and none writes: not an inference model): 1' in out
    assert 'fc_0.w_0_moment1_0' in out and 'adam' in out
    status, _, err = cli(capsys, 'run', tmp_path / 'ckpt' / 'model')
    assert status == 1 and 'is a training checkpoint (static.save), not an inference model' in err
