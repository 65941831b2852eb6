"""Each model saved by real Paddle (tests/golden/models/) exported to ONNX runs in onnxruntime and reproduces the
output Paddle recorded (rtol 1e-4), through the library and through `paddle-exec export`."""
import os

import numpy as np
import onnx
import onnxruntime
import pytest

import paddle_exec.static as static
from paddle_exec import onnx as pe_onnx

from ..cli.helpers import GOLDEN, GOLDEN_IDS, MODELS, cli, golden_io


def run_onnx(path, feeds):
    session = onnxruntime.InferenceSession(str(path), providers=['CPUExecutionProvider'])
    return session.run(None, feeds)


@pytest.mark.parametrize('name, path', GOLDEN, ids=GOLDEN_IDS)
def test_exported_golden_model_reproduces_paddles_output(tmp_path, name, path):
    feeds, expected = golden_io(name)
    out = tmp_path / (name + '.onnx')
    params = '__params__' if os.path.exists(os.path.join(MODELS, name, '__params__')) else None
    model = pe_onnx.load_and_export(os.path.join(MODELS, path), str(out), params_filename=params)
    onnx.checker.check_model(model)
    assert model.opset_import[0].version == pe_onnx.OPSET
    assert [i.name for i in model.graph.input] == list(feeds)
    # the batch stays free: a named dynamic dim, not the size of some example
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    got, = run_onnx(out, feeds)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    # any batch size
    got_one, = run_onnx(out, {k: v[:1] for k, v in feeds.items()})
    np.testing.assert_allclose(got_one, expected[:1], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize('name, path', GOLDEN, ids=GOLDEN_IDS)
def test_cli_export_with_check(capsys, tmp_path, name, path):
    feeds, expected = golden_io(name)
    out = tmp_path / 'model.onnx'
    status, text, err = cli(capsys, 'export', os.path.join(MODELS, path), '--onnx', out, '--check')
    assert status == 0, err
    assert 'wrote %s' % out in text and 'opset 13' in text
    assert 'onnxruntime vs paddle_exec on random feeds (batch 2): max |diff|' in text
    got, = run_onnx(out, feeds)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def test_an_op_without_mapping_is_named(capsys, tmp_path):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [-1, 4], 'float32')
        y = static.nn.fc(x, 3)
        z = __import__('paddle_exec').fluid.layers.cumsum(y, axis=1)
    scope = static.Scope()
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    with pytest.raises(pe_onnx.OnnxExportError, match=r'no ONNX mapping for op cumsum \(used by this model\)'):
        pe_onnx.program_to_onnx(main, ['x'], [z], scope)
    # through the command: a one-line error naming the op
    with static.scope_guard(scope):
        static.save_inference_model(str(tmp_path / 'm'), [x], [z], exe, program=main)
    status, _, err = cli(capsys, 'export', tmp_path / 'm', '--onnx', tmp_path / 'm.onnx')
    assert status == 1 and err.count('\n') == 1
    assert 'cannot export' in err and 'no ONNX mapping for op cumsum' in err
    assert not (tmp_path / 'm.onnx').exists()


def test_without_the_onnx_package_export_says_what_to_install(capsys, tmp_path, monkeypatch):
    from paddle_exec.onnx import converter
    monkeypatch.setattr(converter, 'onnx', None)
    status, _, err = cli(capsys, 'export', os.path.join(MODELS, 'fit_a_line_v18'), '--onnx', tmp_path / 'm.onnx')
    assert status == 1 and err.count('\n') == 1
    assert "writing ONNX needs the onnx package: pip install 'paddle_exec[onnx]'" in err
