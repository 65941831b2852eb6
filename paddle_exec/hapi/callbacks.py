"""paddle.callbacks: what paddle.Model calls around its epochs and batches (Paddle 2.6's hapi callbacks).

Model.fit / evaluate / predict build a `CallbackList` with `config_callbacks`: the user's callbacks, a
ProgBarLogger in front when verbose and none was given, a ModelCheckpoint and an LRScheduler at the end when none
was given. The list calls, for mode in train / eval / predict:

    on_{mode}_begin(logs)  on_epoch_begin(epoch)  on_{mode}_batch_begin(step, logs)
    on_{mode}_batch_end(step, logs)  on_epoch_end(epoch, logs)  on_{mode}_end(logs)

`logs` holds 'loss' (a list, the current batch's), each metric's accumulated value by its name, 'step' and
'batch_size'. `params` (set_params) holds batch_size, epochs, steps, verbose and the metric names.
"""
from __future__ import annotations

import numbers
import os
import time
import warnings

import numpy as np

from ..distributed import ParallelEnv
from ..optimizer.lr import LRScheduler as _LRSchedule
from .progressbar import ProgressBar

__all__ = ['Callback', 'ProgBarLogger', 'ModelCheckpoint', 'LRScheduler', 'EarlyStopping']


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode='train') -> CallbackList:
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    if not any(isinstance(k, ProgBarLogger) for k in cbks) and verbose:
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    metrics = metrics or [] if mode != 'test' else []
    cbk_list.set_params({'batch_size': batch_size, 'epochs': epochs, 'steps': steps, 'verbose': verbose,
                         'metrics': metrics})
    return cbk_list


class CallbackList:
    """Calls each of its callbacks in order."""

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params = {}
        self.model = None

    def append(self, callback) -> None:
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params: dict) -> None:
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model) -> None:
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name: str, *args) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode: str) -> None:
        assert mode in ['train', 'eval', 'predict'], 'mode should be train, eval or predict'

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call('on_%s_begin' % mode, logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call('on_%s_end' % mode, logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call('on_epoch_begin', epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call('on_epoch_end', epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call('on_%s_batch_begin' % mode, step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call('on_%s_batch_end' % mode, step, logs)


class Callback:
    """The base class: every hook does nothing; `self.model` and `self.params` are set before training."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self.model = model

    def on_train_begin(self, logs=None): ...

    def on_train_end(self, logs=None): ...

    def on_eval_begin(self, logs=None): ...

    def on_eval_end(self, logs=None): ...

    def on_predict_begin(self, logs=None): ...

    def on_predict_end(self, logs=None): ...

    def on_epoch_begin(self, epoch, logs=None): ...

    def on_epoch_end(self, epoch, logs=None): ...

    def on_train_batch_begin(self, step, logs=None): ...

    def on_train_batch_end(self, step, logs=None): ...

    def on_eval_batch_begin(self, step, logs=None): ...

    def on_eval_batch_end(self, step, logs=None): ...

    def on_predict_batch_begin(self, step, logs=None): ...

    def on_predict_batch_end(self, step, logs=None): ...


def _new_timer() -> dict:
    return {'data_time': 0.0, 'batch_time': 0.0, 'count': 0, 'samples': 0, 'batch_start_time': time.time()}


class ProgBarLogger(Callback):
    """Prints the loss and metrics every `log_freq` steps and at the end of each epoch (verbose 0: silent, 1: one
    redrawn line, 2: a line per log, 3: also the reader / batch costs and samples per second)."""

    def __init__(self, log_freq: int = 1, verbose: int = 2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self) -> bool:
        return bool(self.verbose) and ParallelEnv().local_rank == 0

    def on_train_begin(self, logs=None):
        self.epochs = self.params['epochs']
        assert self.epochs
        self.train_metrics = self.params['metrics']
        assert self.train_metrics
        self._train_timer = _new_timer()
        if self._is_print():
            print('The loss value printed in the log is the current step, and the metric is the average value of '
                  'previous steps.')

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params['steps']
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print('Epoch %d/%d' % (epoch + 1, self.epochs))
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer['batch_start_time'] = time.time()

    def _updates(self, logs: dict, mode: str) -> None:
        values = [(k, logs[k]) for k in getattr(self, '%s_metrics' % mode) if k in logs]
        timer = getattr(self, '_%s_timer' % mode, None)
        if self.verbose == 3 and timer is not None:
            cnt = timer['count'] if timer['count'] > 0 else 1.0
            samples = timer['samples'] if timer['samples'] > 0 else 1.0
            values.append(('avg_reader_cost', '%.5f sec' % (timer['data_time'] / cnt)))
            values.append(('avg_batch_cost', '%.5f sec' % (timer['batch_time'] / cnt)))
            values.append(('ips', '%.5f samples/sec' % (samples / (timer['data_time'] + timer['batch_time']))))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, '%s_progbar' % mode).update(getattr(self, '%s_step' % mode), values)

    def _batch_begin(self, timer: dict) -> None:
        timer['batch_data_end_time'] = time.time()
        timer['data_time'] += timer['batch_data_end_time'] - timer['batch_start_time']

    def _batch_end(self, timer: dict, logs: dict) -> None:
        timer['batch_time'] += time.time() - timer['batch_data_end_time']
        timer['count'] += 1
        timer['samples'] += logs.get('batch_size', 1)

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin(self._train_timer)

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        self._batch_end(self._train_timer, logs)
        if self._is_print() and self.train_step % self.log_freq == 0:
            if self.steps is None or self.train_step < self.steps:
                self._updates(logs, 'train')
        self._train_timer['batch_start_time'] = time.time()

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, 'train')

    def on_eval_begin(self, logs=None):
        self.eval_steps = logs.get('steps', None)
        self.eval_metrics = logs.get('metrics', [])
        self.eval_step = 0
        self.evaled_samples = 0
        self._eval_timer = _new_timer()
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print('Eval begin...')
        self._eval_timer['batch_start_time'] = time.time()

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin(self._eval_timer)

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.eval_step += 1
        self.evaled_samples += logs.get('batch_size', 1)
        self._batch_end(self._eval_timer, logs)
        if self._is_print() and self.eval_step % self.log_freq == 0:
            if self.eval_steps is None or self.eval_step < self.eval_steps:
                self._updates(logs, 'eval')
        self._eval_timer['batch_start_time'] = time.time()

    def on_predict_begin(self, logs=None):
        self.test_steps = logs.get('steps', None)
        self.test_metrics = logs.get('metrics', [])
        self.test_step = 0
        self.tested_samples = 0
        self._test_timer = _new_timer()
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print('Predict begin...')
        self._test_timer['batch_start_time'] = time.time()

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin(self._test_timer)

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.test_step += 1
        self.tested_samples += logs.get('batch_size', 1)
        self._batch_end(self._test_timer, logs)
        if self.test_step % self.log_freq == 0 and self._is_print():
            if self.test_steps is None or self.test_step < self.test_steps:
                self._updates(logs, 'test')
        self._test_timer['batch_start_time'] = time.time()

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, 'eval')
            print('Eval samples: %d' % self.evaled_samples)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, 'test')
            print('Predict samples: %d' % self.tested_samples)


class ModelCheckpoint(Callback):
    """Saves the model (Model.save, training form) to `save_dir/<epoch>` every `save_freq` epochs and to
    `save_dir/final` at the end of training; nothing without a save_dir."""

    def __init__(self, save_freq: int = 1, save_dir: str | None = None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self) -> bool:
        return bool(self.model and self.save_dir and ParallelEnv().local_rank == 0)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = '%s/%s' % (self.save_dir, epoch)
            print('save checkpoint at %s' % os.path.abspath(path))
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = '%s/final' % self.save_dir
            print('save checkpoint at %s' % os.path.abspath(path))
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler (paddle.optimizer.lr.*) after every batch (by_step) or every
    epoch (by_epoch). The value the next run reads is the scheduler's (its lr_scheduler_value op)."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError('by_step option is mutually exclusive with by_epoch')
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self) -> None:
        optimizer = getattr(self.model, '_optimizer', None)
        if optimizer and isinstance(getattr(optimizer, '_learning_rate', None), _LRSchedule):
            optimizer._learning_rate.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


class EarlyStopping(Callback):
    """Stops training when the monitored eval value ('loss' or a metric name) has not improved by `min_delta` for
    `patience` evaluations; keeps the best model in `save_dir/best_model` (fit's save_dir) when save_best_model."""

    def __init__(self, monitor: str = 'loss', mode: str = 'auto', patience: int = 0, verbose: int = 1,
                 min_delta: float = 0, baseline=None, save_best_model: bool = True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        if mode not in ['auto', 'min', 'max']:
            warnings.warn('EarlyStopping mode %s is unknown, fallback to auto mode.' % mode)
            mode = 'auto'
        if mode == 'min' or (mode == 'auto' and 'acc' not in self.monitor):
            self.monitor_op = np.less
        else:
            self.monitor_op = np.greater
        if self.monitor_op == np.less:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn('Monitor of EarlyStopping should be loss or metric name.')
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif not isinstance(current, numbers.Number):
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, 'best_model'))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print('Epoch %d: Early stopping.' % (self.stopped_epoch + 1))
                if self.save_best_model and self.save_dir is not None:
                    print('Best checkpoint has been saved at %s'
                          % os.path.abspath(os.path.join(self.save_dir, 'best_model')))
        self.stopped_epoch += 1
