"""paddle.inference: Config, create_predictor, the Predictor's handles, clone() and PredictorPool, on the inference
models real Paddle saved (tests/golden/models, with the outputs Paddle computed)."""
import os
import threading

import numpy as np
import pytest

import paddle_exec.inference as paddle_infer

MODELS = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'models')


def _config(name):
    folder = os.path.join(MODELS, name)
    if name == 'mlp_v26':
        return paddle_infer.Config(os.path.join(folder, 'inference.pdmodel'),
                                   os.path.join(folder, 'inference.pdiparams'))
    if os.path.exists(os.path.join(folder, '__params__')):   # combined parameters: program + params files
        return paddle_infer.Config(os.path.join(folder, '__model__'), os.path.join(folder, '__params__'))
    return paddle_infer.Config(folder)


def _io(name):
    data = np.load(os.path.join(MODELS, name + '.io.npz'))
    inputs = {k[3:]: data[k] for k in data.files if k.startswith('in.')}
    return inputs, data['out']


@pytest.mark.parametrize('name', ['mlp_v26', 'fit_a_line_v18', 'cnn_v18', 'mlp_v18'])
def test_predictor_reproduces_paddles_outputs(name):
    config = _config(name)
    config.enable_use_gpu(100, 0)          # accepted, no effect: the run stays on the CPU
    config.switch_ir_optim(True)
    config.enable_memory_optim()
    config.enable_mkldnn()
    config.set_cpu_math_library_num_threads(2)
    predictor = paddle_infer.create_predictor(config)
    inputs, want = _io(name)
    assert sorted(predictor.get_input_names()) == sorted(inputs)
    for n in predictor.get_input_names():
        handle = predictor.get_input_handle(n)
        handle.reshape(inputs[n].shape)
        handle.copy_from_cpu(inputs[n])
        assert handle.shape() == list(inputs[n].shape)
        assert handle.type() == paddle_infer.DataType.FLOAT32
    assert predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    np.testing.assert_allclose(out.copy_to_cpu(), want, rtol=1e-5, atol=1e-6)
    assert out.shape() == list(want.shape)
    assert out.lod() == []


def test_run_with_a_list_returns_the_outputs_and_clone_shares_the_weights():
    predictor = paddle_infer.create_predictor(_config('mlp_v26'))
    inputs, want = _io('mlp_v26')
    (out,) = predictor.run([inputs['x']])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    twin = predictor.clone()
    assert twin._model.scope is predictor._model.scope
    np.testing.assert_allclose(twin.run([inputs['x'][:1]])[0], want[:1], rtol=1e-5, atol=1e-6)
    # the clone's handles are its own: the first predictor still holds its 3-row result
    assert predictor.get_output_handle(predictor.get_output_names()[0]).shape()[0] == 3


def test_predictor_pool_serves_threads_at_once():
    pool = paddle_infer.PredictorPool(_config('mlp_v18'), 3)
    inputs, want = _io('mlp_v18')
    x = inputs['img']
    errors, results = [], {}

    def serve(i):
        try:
            p = pool.retrive(i)
            for _ in range(5):
                results[i] = p.run([x])[0]
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=serve, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(3):
        np.testing.assert_allclose(results[i], want, rtol=1e-5, atol=1e-6)


def test_handle_errors_name_the_tensor():
    predictor = paddle_infer.create_predictor(_config('fit_a_line_v18'))
    with pytest.raises(RuntimeError, match="input tensor 'x' has no data"):
        predictor.run()
    with pytest.raises(ValueError, match="'nope' is not an input"):
        predictor.get_input_handle('nope')
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    with pytest.raises(RuntimeError, match='call run'):
        out.copy_to_cpu()
    with pytest.raises(TypeError, match='numpy ndarray'):
        predictor.get_input_handle('x').copy_from_cpu([1.0, 2.0])
    with pytest.raises(TypeError, match='Config'):
        paddle_infer.create_predictor('model_dir')


def test_config_getters_answer_as_a_cpu_build():
    config = paddle_infer.Config()
    config.set_model('a/model', 'a/params')
    assert (config.prog_file(), config.params_file(), config.model_dir()) == ('a/model', 'a/params', '')
    config.enable_use_gpu(256, 1, paddle_infer.PrecisionType.Half)
    config.enable_tensorrt_engine(workspace_size=1 << 20, max_batch_size=4)
    config.enable_xpu()
    assert not config.use_gpu() and not config.tensorrt_engine_enabled()
    assert 'enable_tensorrt_engine' in config.accepted_switches
    config.set_cpu_math_library_num_threads(4)
    assert config.cpu_math_library_num_threads() == 4
    summary = config.summary()
    assert '| cpu_math_thread' in summary and 'enable_use_gpu' in summary
    copy = paddle_infer.Config(config)
    assert copy.prog_file() == 'a/model' and copy.accepted_switches is not config.accepted_switches
    assert paddle_infer.Config.Precision.Float32 == 0 and paddle_infer.Config.Half == 2


def test_enums_versions_and_sizes():
    assert int(paddle_infer.DataType.FLOAT64) == 7 and int(paddle_infer.PlaceType.CPU) == 0
    assert paddle_infer.get_num_bytes_of_data_type(paddle_infer.DataType.FLOAT32) == 4
    assert paddle_infer.get_num_bytes_of_data_type(paddle_infer.DataType.INT64) == 8
    assert paddle_infer.get_version().startswith('version: 2.6.2')
    assert paddle_infer.get_trt_compile_version() == (0, 0, 0) == paddle_infer.get_trt_runtime_version()
    # recorded with Paddle 2.6.2
    assert paddle_infer._get_phi_kernel_name('elementwise_add') == 'add'
    assert paddle_infer._get_phi_kernel_name('mul') == 'matmul_with_flatten'
    assert paddle_infer._get_phi_kernel_name('relu') == 'relu'


def test_fluid_1_8_inference_api():
    import paddle_exec.fluid as fluid
    core = fluid.core
    inputs, want = _io('fit_a_line_v18')
    config = core.AnalysisConfig(os.path.join(MODELS, 'fit_a_line_v18'))
    config.disable_gpu()
    predictor = core.create_paddle_predictor(config)
    with pytest.raises(RuntimeError, match='Each config can only be used for one predictor'):
        core.create_paddle_predictor(config)
    tensor = core.PaddleTensor(inputs['x'])
    assert tensor.name == '' and tensor.shape == [5, 13] and tensor.dtype == core.PaddleDType.FLOAT32
    (out,) = predictor.run([tensor])
    # Paddle 1.8.5 names the output after the scale op save_inference_model appended
    assert out.name == 'save_infer_model/scale_0.tmp_0' and out.shape == [5, 1]
    np.testing.assert_allclose(out.as_ndarray(), want, rtol=1e-5, atol=1e-6)
    config = core.AnalysisConfig(os.path.join(MODELS, 'fit_a_line_v18'))
    config.switch_use_feed_fetch_ops(False)
    zero_copy = core.create_paddle_predictor(config)
    zero_copy.get_input_tensor('x').copy_from_cpu(inputs['x'])
    zero_copy.zero_copy_run()
    got = zero_copy.get_output_tensor(zero_copy.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(zero_copy.clone().run([tensor])[0].as_ndarray(), want, rtol=1e-5, atol=1e-6)
