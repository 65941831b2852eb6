"""paddle.Model in static mode against Paddle 2.6.2 (tests/golden/api/hapi.npz, recorded by record_hapi.py): the
MLP of hapi_cases.py trained with SGD and with Adam over a StepDecay schedule (stepped by the LRScheduler callback);
every batch's logged loss and accuracies in fit, evaluate's result, predict's outputs, the *_batch results, the
trained parameters and the names the checkpoints hold. Then save / load round trips and the inference form."""
from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

import paddle_exec as paddle
from tests.golden.api import hapi_cases as C

GOLDEN = dict(np.load(os.path.join(os.path.dirname(C.__file__), 'hapi.npz')))


def _fresh():
    """A unique-name guard, a scope and programs of the test's own (Model initialises what its scope lacks)."""
    import contextlib
    stack = contextlib.ExitStack()
    stack.enter_context(paddle.utils.unique_name.guard())
    stack.enter_context(paddle.static.scope_guard(paddle.static.Scope()))
    stack.enter_context(paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()))
    return stack


@pytest.fixture(scope='module', params=['sgd', 'adam'])
def trained(request, tmp_path_factory):
    """Runs the recorded sequence once per optimizer and keeps what each step gave."""
    tag = request.param
    got = {}
    with _fresh():
        net, model = C.make_model(paddle, tag)
        train, ev = C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1)
        logs = {}
        model.fit(train, ev, batch_size=4, epochs=2, shuffle=False, verbose=0, log_freq=2,
                  callbacks=[C.make_recorder(paddle, logs)])
        got['fit.train'], got['fit.eval'] = np.array(logs['train']), np.array(logs['eval'])
        result = model.evaluate(ev, batch_size=3, verbose=0)
        got['evaluate'] = np.array([result['loss'][0], result['acc_top1'], result['acc_top2']])
        got['predict'] = model.predict(ev, batch_size=4, stack_outputs=True, verbose=0)[0]
        loss, acc = model.train_batch([train.x[:6]], [train.y[:6]])
        got['train_batch'] = np.array([np.asarray(loss[0]).item()] + list(acc[0]))
        loss, acc = model.eval_batch([train.x[6:12]], [train.y[6:12]])
        got['eval_batch'] = np.array([np.asarray(loss[0]).item()] + list(acc[0]))
        got['predict_batch'] = model.predict_batch([train.x[:5]])[0]
        scope = paddle.static.global_scope()
        for name, var in net.state_dict().items():
            got['param.' + name] = np.array(scope.find_var(var.name).get_tensor())
        ckpt = str(tmp_path_factory.mktemp(tag) / 'ckpt' / 'm')
        model.save(ckpt)
        for suffix in ('.pdparams', '.pdopt'):
            with open(ckpt + suffix, 'rb') as f:
                got['save' + suffix] = sorted(pickle.load(f))
    return tag, got


@pytest.mark.parametrize('key', ['fit.train', 'fit.eval', 'evaluate', 'predict', 'train_batch', 'eval_batch',
                                 'predict_batch', 'param.fc1.weight', 'param.fc1.bias', 'param.fc2.weight',
                                 'param.fc2.bias'])
def test_matches_paddle_262(trained, key):
    tag, got = trained
    np.testing.assert_allclose(got[key], GOLDEN['%s.%s' % (tag, key)], rtol=1e-5, atol=1e-6)


def test_checkpoints_hold_paddles_names(trained):
    tag, got = trained
    for suffix in ('.pdparams', '.pdopt'):
        assert got['save' + suffix] == json.loads(str(GOLDEN['%s.save%s' % (tag, suffix)]))


def test_progress_lines_as_paddle_prints_them(capsys):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        model.fit(C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1), batch_size=4, epochs=1,
                  shuffle=False, verbose=2, log_freq=2)
    lines = [line.rsplit(' - ', 1)[0] for line in capsys.readouterr().out.splitlines()]
    # the lines Paddle 2.6.2 printed for this run (the time per step cut off)
    assert lines == ['The loss value printed in the log is the current step, and the metric is the average value '
                     'of previous steps.', 'Epoch 1/1',
                     'step 2/5 - loss: 1.0467 - acc_top1: 0.3750 - acc_top2: 0.8750',
                     'step 4/5 - loss: 1.1378 - acc_top1: 0.4375 - acc_top2: 0.7500',
                     'step 5/5 - loss: 1.0499 - acc_top1: 0.4500 - acc_top2: 0.7500',
                     'Eval begin...',
                     'step 2/3 - loss: 1.0704 - acc_top1: 0.3750 - acc_top2: 0.7500',
                     'step 3/3 - loss: 1.1480 - acc_top1: 0.4000 - acc_top2: 0.7000',
                     'Eval samples: 10']


def test_save_then_load_restores_parameters_and_optimizer_state(tmp_path):
    x, y = C.data(8, 3)
    with _fresh():
        _, model = C.make_model(paddle, 'adam')
        model.fit(C.make_dataset(paddle, 12, 0), batch_size=4, epochs=1, shuffle=False, verbose=0)
        model.save(str(tmp_path / 'ckpt'))
        expected_pred = model.predict_batch([x])[0]
        expected_loss = model.train_batch([x], [y])[0][0]      # the next step also reads the Adam moments
    with _fresh():
        _, model = C.make_model(paddle, 'adam')
        assert not np.allclose(model.predict_batch([x])[0], expected_pred)
        model.load(str(tmp_path / 'ckpt'))
        np.testing.assert_allclose(model.predict_batch([x])[0], expected_pred, rtol=1e-6)
        np.testing.assert_allclose(model.train_batch([x], [y])[0][0], expected_loss, rtol=1e-6)


def test_load_checks_names_and_shapes(tmp_path):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        state = {'fc1.weight': np.zeros((4, 8), 'float32'), 'fc1.bias': np.zeros((8,), 'float32'),
                 'fc2.weight': np.zeros((8, 2), 'float32')}
        with open(tmp_path / 'bad.pdparams', 'wb') as f:
            pickle.dump(state, f)
        with pytest.raises(ValueError, match=r'fc2.weight receives a shape \[8, 2\], but the expected shape is '
                                             r'\[8, 3\]'):
            model.load(str(tmp_path / 'bad'))
        state['fc2.weight'] = np.zeros((8, 3), 'float32')
        with open(tmp_path / 'bad.pdparams', 'wb') as f:
            pickle.dump(state, f)
        with pytest.raises(ValueError, match='fc2.bias is not found in the providing file'):
            model.load(str(tmp_path / 'bad.pdparams'))
        with pytest.warns(UserWarning, match='Skip loading for fc2.bias'):
            model.load(str(tmp_path / 'bad'), skip_mismatch=True)
        np.testing.assert_array_equal(model.predict_batch([np.ones((1, 4), 'float32')])[0][0, :2] * 0,
                                      np.zeros(2))


def test_inference_form_where_paddle_262_writes_it(tmp_path):
    x, _ = C.data(5, 4)
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        expected = model.predict_batch([x])[0]
        model.save(str(tmp_path / 'infer' / 'model'), training=False)
        exe = paddle.static.Executor(paddle.CPUPlace())
        # 2.6.2 passes the folder as the path prefix: infer.pdmodel / infer.pdiparams beside the folder
        assert os.path.exists(tmp_path / 'infer.pdmodel') and os.path.exists(tmp_path / 'infer.pdiparams')
        program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / 'infer'), exe)
    assert feeds == ['x']
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / 'infer'), exe)
        out, = exe.run(program, feed={'x': x}, fetch_list=fetches)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_model_argument_checks():
    with _fresh():
        net = C.make_mlp(paddle)
        with pytest.raises(TypeError, match="'inputs' must be list or tuple or dict, and couldn't be None."):
            paddle.Model(net)
        with pytest.raises(ValueError, match=r'Requires Input\[0\].name != None'):
            paddle.Model(net, inputs=[paddle.static.InputSpec([None, 4], 'float32')])
        model = paddle.Model(net, inputs=[paddle.static.InputSpec([None, 4], 'float32', 'x')])
        with pytest.raises(TypeError, match="'loss' must be sub classes of `paddle.nn.Layer`"):
            model.prepare(loss=3)
        with pytest.raises(ValueError, match='automatic mixed precision'):
            model.prepare(amp_configs='O1')
        model.prepare()
        with pytest.raises(AssertionError, match='model not ready, please call `model.prepare\\(\\)` first'):
            model.train_batch([np.ones((1, 4), 'float32')])
        assert [p.name for p in model.parameters()] == ['linear_0.w_0', 'linear_0.b_0', 'linear_1.w_0',
                                                         'linear_1.b_0']
        out = model.predict(C.make_dataset(paddle, 6, 0), batch_size=4, verbose=0)
        assert [o.shape for o in out[0]] == [(4, 3), (2, 3)]


def test_fit_over_an_iterable_of_batches_and_num_iters():
    x, y = C.data(20, 0)       # the recorded run's training data
    batches = [(x[i:i + 4], y[i:i + 4]) for i in range(0, 12, 4)]
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        logs = {}
        model.fit(batches, epochs=3, verbose=0, num_iters=4, callbacks=[C.make_recorder(paddle, logs)])
        assert len(logs['train']) == 4
        np.testing.assert_allclose(logs['train'][:2], GOLDEN['sgd.fit.train'][:2], rtol=1e-5)


def test_shuffled_epochs_drop_last_two_batch_sizes_and_eval_freq_as_paddle_262():
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        logs = {}
        model.fit(C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1), batch_size=(3, 4), epochs=3,
                  eval_freq=2, shuffle=True, drop_last=True, verbose=0, callbacks=[C.make_recorder(paddle, logs)])
    np.testing.assert_allclose(logs['train'], GOLDEN['shuffle.fit.train'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(logs['eval'], GOLDEN['shuffle.fit.eval'], rtol=1e-5, atol=1e-6)


def test_loads_a_checkpoint_of_paddle_262s_dygraph_model():
    """hapi_dygraph.pdparams / .pdopt were written by 2.6.2's Model.save in dygraph mode (Adam over StepDecay): its
    parameters and moments load into the static Model and give 2.6.2's next predictions and losses."""
    prefix = os.path.join(os.path.dirname(C.__file__), 'hapi_dygraph')
    x, y = C.data(4, 7)
    with _fresh():
        _, model = C.make_model(paddle, 'adam')
        model.load(prefix)
        np.testing.assert_allclose(model.predict_batch([x])[0], GOLDEN['dygraph.predict_batch'], rtol=1e-5)
        losses = [np.asarray(model.train_batch([x], [y])[0][0]).item() for _ in range(2)]
    np.testing.assert_allclose(losses, GOLDEN['dygraph.train_batch'], rtol=1e-5)


def test_fit_over_a_users_dataloader_and_worker_processes():
    train, ev = C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1)
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        loader = paddle.io.DataLoader(train, batch_size=4, shuffle=False, return_list=True)
        logs = {}
        model.fit(loader, ev, batch_size=4, epochs=2, verbose=0, num_workers=2,
                  callbacks=[C.make_recorder(paddle, logs)])
    np.testing.assert_allclose(logs['train'], GOLDEN['sgd.fit.train'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(logs['eval'], GOLDEN['sgd.fit.eval'], rtol=1e-5, atol=1e-6)
