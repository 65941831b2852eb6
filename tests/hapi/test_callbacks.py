"""paddle.callbacks with paddle.Model: ModelCheckpoint's files, EarlyStopping's stop and best model, the
LRScheduler callback by epoch, and the order of the hooks a fit calls."""
from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

import paddle_exec as paddle
from tests.golden.api import hapi_cases as C


@contextlib.contextmanager
def _fresh():
    with paddle.utils.unique_name.guard(), paddle.static.scope_guard(paddle.static.Scope()), \
            paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        yield


def test_hooks_run_in_paddles_order():
    calls = []

    class Spy(paddle.callbacks.Callback):
        def __getattribute__(self, name):
            if name.startswith('on_'):
                calls.append(name)
            return object.__getattribute__(self, name)

    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        model.fit(C.make_dataset(paddle, 8, 0), C.make_dataset(paddle, 4, 1), batch_size=4, epochs=1,
                  shuffle=False, verbose=0, callbacks=[Spy()])
    assert calls == ['on_train_begin', 'on_epoch_begin', 'on_train_batch_begin', 'on_train_batch_end',
                     'on_train_batch_begin', 'on_train_batch_end', 'on_epoch_end', 'on_eval_begin',
                     'on_eval_batch_begin', 'on_eval_batch_end', 'on_eval_end', 'on_train_end']


def test_model_checkpoint_every_save_freq_epochs_and_final(tmp_path, capsys):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        model.fit(C.make_dataset(paddle, 8, 0), batch_size=4, epochs=3, save_dir=str(tmp_path), save_freq=2,
                  shuffle=False, verbose=0)
    assert sorted(os.listdir(tmp_path)) == ['0.pdopt', '0.pdparams', '2.pdopt', '2.pdparams', 'final.pdopt',
                                            'final.pdparams']
    assert 'save checkpoint at %s' % os.path.abspath(str(tmp_path / 'final')) in capsys.readouterr().out


def test_early_stopping_stops_and_keeps_the_best_model(tmp_path, capsys):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        stop = paddle.callbacks.EarlyStopping(monitor='acc_top1', mode='max', patience=0, min_delta=10)
        model.fit(C.make_dataset(paddle, 8, 0), C.make_dataset(paddle, 4, 1), batch_size=4, epochs=5,
                  save_dir=str(tmp_path), shuffle=False, verbose=0, callbacks=[stop])
    # the first evaluation beats -inf and is saved as the best model; patience 0 stops there (Paddle's rule)
    assert stop.stopped_epoch == 1 and model.stop_training and stop.best_value == 0.25
    assert 'Epoch 1: Early stopping.' in capsys.readouterr().out
    assert os.path.exists(tmp_path / 'best_model.pdparams')
    with pytest.warns(UserWarning, match='EarlyStopping mode bad is unknown'):
        paddle.callbacks.EarlyStopping(mode='bad')
    with pytest.warns(UserWarning, match='EarlyStopping needs validation data'), _fresh():
        _, model = C.make_model(paddle, 'sgd')
        model.fit(C.make_dataset(paddle, 4, 0), batch_size=4, verbose=0,
                  callbacks=[paddle.callbacks.EarlyStopping()])


def test_lr_scheduler_callback_by_epoch():
    with _fresh():
        _, model = C.make_model(paddle, 'adam')
        schedule = model._optimizer._learning_rate
        model.fit(C.make_dataset(paddle, 8, 0), batch_size=4, epochs=2, shuffle=False, verbose=0,
                  callbacks=[paddle.callbacks.LRScheduler(by_step=False, by_epoch=True)])
        assert schedule.last_epoch == 2
        model.fit(C.make_dataset(paddle, 8, 0), batch_size=4, epochs=1, shuffle=False, verbose=0)
        assert schedule.last_epoch == 4         # the default callback steps once per batch
    with pytest.raises(ValueError, match='by_step option is mutually exclusive with by_epoch'):
        paddle.callbacks.LRScheduler(by_step=True, by_epoch=True)


def test_progress_bar_verbose_1_and_predict_logs(capsys):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        model.predict(C.make_dataset(paddle, 6, 0), batch_size=4, verbose=1)
    out = capsys.readouterr().out
    assert out.startswith('Predict begin...') and 'step 2/2 [====' in out and out.endswith('Predict samples: 6\n')


def test_reduce_lr_on_plateau_reduces_the_rate_the_program_reads(capsys):
    with _fresh():
        _, model = C.make_model(paddle, 'sgd')
        # min_delta 1e9: only the first evaluation counts as an improvement, the second one reduces
        reduce = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, min_delta=1e9)
        model.fit(C.make_dataset(paddle, 8, 0), C.make_dataset(paddle, 4, 1), batch_size=4, epochs=2,
                  shuffle=False, verbose=0, callbacks=[reduce])
        assert 'Epoch 2: ReduceLROnPlateau reducing learning rate to 0.25.' in capsys.readouterr().out
        assert model._optimizer.get_lr() == 0.25
        train_prog = model._adapter._progs['train']
        lr_var = model._optimizer._learning_rate_map[train_prog]
        scope = paddle.static.global_scope()
        assert np.asarray(scope.find_var(lr_var.name).get_tensor()).item() == 0.25
        # the step reads it: from the same weights, a step at 0.25 moves the bias half as far as one at 0.5
        bias = model.network.fc2.bias
        x, y = C.data(4, 5)
        start = {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in model.parameters()}
        model.train_batch([x], [y])
        moved_at_025 = np.array(scope.find_var(bias.name).get_tensor()) - start[bias.name]
        for name, value in start.items():
            scope.find_var(name).get_tensor().set(value, None)
        scope.find_var(lr_var.name).get_tensor().set(np.full_like(np.asarray(scope.find_var(lr_var.name)
                                                                             .get_tensor()), 0.5), None)
        model.train_batch([x], [y])
        moved_at_05 = np.array(scope.find_var(bias.name).get_tensor()) - start[bias.name]
        np.testing.assert_allclose(moved_at_05, 2 * moved_at_025, rtol=1e-5)
        assert np.all(moved_at_025 != 0)
    with pytest.raises(ValueError, match='does not support a factor >= 1.0'):
        paddle.callbacks.ReduceLROnPlateau(factor=1.0)


def test_reduce_lr_on_plateau_leaves_a_scheduler_alone():
    with _fresh(), pytest.warns(UserWarning, match='Expected learning_rate be float'):
        _, model = C.make_model(paddle, 'adam')
        model.fit(C.make_dataset(paddle, 4, 0), C.make_dataset(paddle, 4, 1), batch_size=4, verbose=0,
                  callbacks=[paddle.callbacks.ReduceLROnPlateau()])


def test_loggers_need_their_packages():
    with pytest.raises(ImportError, match='pip install wandb'):
        paddle.callbacks.WandbCallback()
    logger = paddle.callbacks.VisualDL('logs')           # the package is needed at the first write
    assert logger.log_dir == 'logs'
