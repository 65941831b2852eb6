"""paddle.utils, paddle.device's remaining names, and paddle.static's in-memory model format
(serialize_* / deserialize_* / save_to_file / load_from_file / normalize_program)."""
import os
import warnings

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.device as device
import paddle_exec.utils as utils
from paddle_exec import static
from paddle_exec.framework import Program, Scope, program_guard, unique_name


def test_try_import_and_its_hint():
    assert utils.try_import('json').dumps([1]) == '[1]'
    with pytest.raises(ImportError, match=r'pip install no_such_pkg_s4'):
        utils.try_import('no_such_pkg_s4.sub')
    with pytest.raises(ImportError, match='opencv-python'):
        utils.try_import('cv2') if not _has('cv2') else (_ for _ in ()).throw(ImportError('opencv-python'))
    with pytest.raises(ImportError, match='custom'):
        utils.try_import('no_such_pkg_s4', 'custom')


def _has(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def test_require_version_against_2_6_2():
    utils.require_version('2.0')
    utils.require_version('0.1.0', '10.0.0')
    with pytest.raises(Exception, match='VersionError: PaddlePaddle version 3.0 or higher is required, but 2.6.2 '
                                        'installed'):
        utils.require_version('3.0')
    with pytest.raises(Exception, match=r'in \[1.0, 2.0\] required'):
        utils.require_version('1.0', '2.0')
    with pytest.raises(TypeError):
        utils.require_version(2)


def test_deprecated_levels():
    @utils.deprecated(update_to='paddle.new_api', since='2.0', reason='renamed', level=1)
    def old(x):
        """old api"""
        return x * 2

    with pytest.warns(DeprecationWarning, match='is deprecated since 2.0.*paddle.new_api'):
        assert old(2) == 4
    assert 'reason: renamed' in old.__doc__

    @utils.deprecated(level=2)
    def gone():
        return 1

    with pytest.raises(RuntimeError, match='has been deprecated'):
        gone()

    def quiet():
        return 3

    assert utils.deprecated()(quiet) is quiet


def test_run_check_trains_on_one_and_two_places(capsys):
    utils.run_check()
    out = capsys.readouterr().out
    assert 'works well on 1 CPU' in out and 'works well on 2 CPUs' in out and 'installed successfully' in out


def test_unique_name_and_download(tmp_path, monkeypatch):
    with utils.unique_name.guard():
        assert utils.unique_name.generate('fc') == 'fc_0'
        assert utils.unique_name.generate('fc') == 'fc_1'
    monkeypatch.setattr(utils.download, 'WEIGHTS_HOME', str(tmp_path))
    url = 'https://paddle-hapi.bj.bcebos.com/models/resnet18.pdparams'
    with pytest.raises(RuntimeError, match='no network access.*resnet18.pdparams.*put it at ' + str(tmp_path)):
        utils.download.get_weights_path_from_url(url, 'abc')
    (tmp_path / 'resnet18.pdparams').write_bytes(b'weights')
    assert utils.download.get_weights_path_from_url(url) == os.path.join(str(tmp_path), 'resnet18.pdparams')
    with pytest.raises(RuntimeError, match='md5 0123'):
        utils.download.get_weights_path_from_url(url, '0123')


def test_device_questions_answer_as_a_cpu_build():
    assert device.get_all_device_type() == [] and device.get_available_device() == []
    assert device.get_all_custom_device_type() == [] and device.get_available_custom_device() == []
    assert device.get_cudnn_version() is None
    for ask in (device.is_compiled_with_cinn, device.is_compiled_with_distribute, device.is_compiled_with_ipu,
                device.is_compiled_with_rocm, device.is_compiled_with_xpu, device.is_compiled_with_cuda):
        assert ask() is False
    assert device.is_compiled_with_custom_device('npu') is False
    with pytest.raises(TypeError, match='device should be gpu, xpu'):
        device.synchronize()
    assert paddle.get_flags('FLAGS_benchmark') == {'FLAGS_benchmark': False}


def _model():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = static.data('x', [None, 3])
        y = static.nn.fc(x, 2)
        loss = paddle.mean(y)
    return main, startup, x, y, loss


def test_serialize_and_deserialize_a_model(tmp_path):
    main, startup, x, y, loss = _model()
    exe = static.Executor(paddle.CPUPlace())
    scope = Scope()
    xv = np.arange(6, dtype='float32').reshape(2, 3)
    with static.scope_guard(scope):
        exe.run(startup)
        want = exe.run(main, feed={'x': xv}, fetch_list=[y])[0]
        program_bytes = static.serialize_program([x], [y], program=main)
        params_bytes = static.serialize_persistables([x], [y], exe, program=main)
    static.save_to_file(str(tmp_path / 'm.pdmodel'), program_bytes)
    static.save_to_file(str(tmp_path / 'm.pdiparams'), params_bytes)
    program = static.deserialize_program(static.load_from_file(str(tmp_path / 'm.pdmodel')))
    assert [op.type for op in program.global_block().ops if op.type not in ('feed', 'fetch')] == \
        ['mul', 'elementwise_add']
    with static.scope_guard(Scope()):
        static.deserialize_persistables(program, static.load_from_file(str(tmp_path / 'm.pdiparams')), exe)
        got = exe.run(program, feed={'x': xv}, fetch_list=[y.name])[0]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # the files are what load_inference_model reads
    with static.scope_guard(Scope()):
        prog2, feeds, fetches = static.load_inference_model(str(tmp_path / 'm'), exe)
        assert feeds == ['x']
        np.testing.assert_allclose(exe.run(prog2, feed={'x': xv}, fetch_list=fetches)[0], want, rtol=1e-6)
    with pytest.raises(RuntimeError, match='bytes are left'):
        static.deserialize_persistables(program, params_bytes + b'xx', exe)
    with pytest.raises(ValueError, match='bytes'):
        static.save_to_file(str(tmp_path / 'bad'), 'text')
    with pytest.raises(ValueError, match='does not exist'):
        static.load_from_file(str(tmp_path / 'missing'))


def test_normalize_program_keeps_the_forward_only():
    main, startup, x, y, loss = _model()
    with program_guard(main, startup):
        paddle.optimizer.SGD(0.1).minimize(loss)
    normalized = static.normalize_program(main, [x], [y])
    assert [op.type for op in normalized.global_block().ops] == ['mul', 'elementwise_add']
    assert any(op.type == 'sgd' for op in main.global_block().ops)
    with pytest.raises(TypeError, match='feed_vars type must be a Variable'):
        static.normalize_program(main, ['x'], [y])
    with pytest.raises(TypeError, match='program type must be'):
        static.normalize_program('main', [x], [y])
    plain = Program()
    with program_guard(plain, Program()):
        a = static.data('a', [None, 2])
        b = paddle.nn.functional.relu(a)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert static.serialize_persistables([a], [b], static.Executor(), program=plain) is None
    assert any('no variable in your model' in str(w.message) for w in caught)


def test_ctr_metric_bundle_builds_each_versions_ops():
    """fluid.contrib's (1.8) adds q and the count as they are; paddle.static's (2.6) weights them by ins_tag_weight
    (a constant 1 when none is given), as each Paddle builds them."""
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name
    ops = {}
    for api, build in (('1.8', fluid.contrib.ctr_metric_bundle), ('2.6', static.ctr_metric_bundle)):
        main = static.Program()
        with static.program_guard(main, static.Program()), unique_name.guard():
            build(static.data('p', [-1, 1], 'float32'), static.data('q', [-1, 1], 'float32'))
        ops[api] = [op.type for op in main.global_block().ops]
    assert 'elementwise_mul' not in ops['1.8'] and 'slice' not in ops['1.8']
    assert ops['2.6'][-5:] == ['slice', 'elementwise_mul', 'elementwise_add', 'elementwise_mul', 'elementwise_add']
