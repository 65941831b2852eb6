"""The other callbacks of paddle.callbacks (Paddle 2.6's hapi): ReduceLROnPlateau, and the loggers VisualDL and
WandbCallback, which need the `visualdl` / `wandb` packages (ImportError naming them otherwise, as in Paddle).

ReduceLROnPlateau multiplies a float learning rate by `factor` when the monitored eval value has not improved for
`patience` evaluations. In Paddle 2.6.2's static mode it only rebinds `optimizer._learning_rate` (the program's
learning-rate variable keeps its value, so training does not see the new rate); here the new rate is also written
into the train program's learning-rate variable, so it takes effect from the next batch, as the callback documents.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..distributed import ParallelEnv
from ..framework import global_scope
from ..utils import try_import
from .callbacks import Callback

__all__ = ['ReduceLROnPlateau', 'VisualDL', 'WandbCallback']


def _scalar_of(value):
    """The number a log entry holds (the first of a list), or None."""
    if isinstance(value, (list, tuple)):
        return value[0]
    return value if isinstance(value, numbers.Number) else None


def _set_float_learning_rate(model, new_lr: float) -> None:
    optimizer = model._optimizer
    optimizer._learning_rate = new_lr
    train_prog = model._adapter._progs.get('train')
    var = getattr(optimizer, '_learning_rate_map', {}).get(train_prog)
    found = global_scope().find_var(var.name) if var is not None else None
    if found is not None and found.is_initialized():
        current = np.asarray(found.get_tensor())
        found.get_tensor().set(np.full(current.shape, new_lr, dtype=current.dtype), None)


class ReduceLROnPlateau(Callback):
    """Reduces a float learning rate by `factor` after `patience` evaluations without improvement of `monitor` by
    `min_delta` (then waits `cooldown` evaluations), never below min_lr."""

    def __init__(self, monitor: str = 'loss', factor: float = 0.1, patience: int = 10, verbose: int = 1,
                 mode: str = 'auto', min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError('ReduceLROnPlateau does not support a factor >= 1.0.')
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ['auto', 'min', 'max']:
            warnings.warn('Learning rate reduction mode %s is unknown, fallback to auto mode.' % self.mode)
            self.mode = 'auto'
        if self.mode == 'min' or (self.mode == 'auto' and 'acc' not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn('Monitor of ReduceLROnPlateau should be loss or metric name.')
            return
        lr = self.model._optimizer._learning_rate
        if not isinstance(lr, float):
            warnings.warn('Expected learning_rate be float, bug got %s.' % type(lr))
            return
        current = _scalar_of(logs[self.monitor])
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    _set_float_learning_rate(self.model, new_lr)
                    if self.verbose > 0 and ParallelEnv().local_rank == 0:
                        print('\nEpoch %d: ReduceLROnPlateau reducing learning rate to %s.' % (self.epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class _ScalarLogger(Callback):
    """What VisualDL and WandbCallback share: the train / eval steps and which metrics to log."""

    def _is_write(self) -> bool:
        return ParallelEnv().local_rank == 0

    def on_train_begin(self, logs=None):
        self.epochs = self.params['epochs']
        assert self.epochs
        self.train_metrics = self.params['metrics']
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params['steps']
        self.epoch = epoch

    def on_eval_begin(self, logs=None):
        self.eval_steps = logs.get('steps', None)
        self.eval_metrics = logs.get('metrics', [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_write():
            self._updates(logs or {}, 'train')

    def _scalars(self, logs: dict, mode: str) -> dict:
        out = {}
        for k in getattr(self, '%s_metrics' % mode):
            if k in logs and _scalar_of(logs[k]) is not None:
                out[mode + '/' + k] = _scalar_of(logs[k])
        return out


class VisualDL(_ScalarLogger):
    """Writes the losses and metrics to a VisualDL log in `log_dir` (needs the visualdl package)."""

    def __init__(self, log_dir: str):
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _updates(self, logs: dict, mode: str) -> None:
        if not self._is_write():
            return
        if not hasattr(self, 'writer'):
            self.writer = try_import('visualdl').LogWriter(self.log_dir)
        total_step = getattr(self, '%s_step' % mode) if mode == 'train' else self.epoch
        for tag, value in self._scalars(logs, mode).items():
            self.writer.add_scalar(tag=tag, step=total_step, value=value)

    def on_train_end(self, logs=None):
        if hasattr(self, 'writer'):
            self.writer.close()
            delattr(self, 'writer')

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, 'eval')
            if not hasattr(self, '_is_fit') and hasattr(self, 'writer'):
                self.writer.close()
                delattr(self, 'writer')


class WandbCallback(_ScalarLogger):
    """Logs the losses and metrics to Weights & Biases (needs the wandb package); the arguments go to wandb.init."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        super().__init__()
        self.wandb = try_import('wandb', 'You want to use `wandb` which is not installed yet install it with '
                                         '`pip install wandb`')
        self.wandb_args = {'project': project, 'name': name, 'entity': entity, 'dir': dir, 'mode': mode,
                           'job_type': job_type}
        self.wandb_args.update(**kwargs)
        self._run = None
        _ = self.run

    @property
    def run(self):
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn('There is a wandb run already in progress and newly created instances of '
                              '`WandbCallback` will reuse this run. If this is not desired , call `wandb.finish()` '
                              'before instantiating `WandbCallback`.')
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        if self._is_write():
            self.run.define_metric('train/step')
            self.run.define_metric('train/*', step_metric='train/step')
            self.run.define_metric('epoch')
            self.run.define_metric('eval/*', step_metric='epoch')

    def _updates(self, logs: dict, mode: str) -> None:
        if not self._is_write():
            return
        metrics = {'train/step': self.train_step} if mode == 'train' else {'epoch': self.epoch}
        metrics.update(self._scalars(logs, mode))
        self.run.log(metrics)

    def on_train_end(self, logs=None):
        if self._is_write():
            self.run.finish()

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, 'eval')
            if not hasattr(self, '_is_fit') and hasattr(self, 'run'):
                self.run.finish()
