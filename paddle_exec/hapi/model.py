"""paddle.Model: Paddle 2.6's high-level training API (hapi) as it runs after `paddle.enable_static()`.

    model = paddle.Model(net, inputs=[InputSpec([None, 784], 'float32', 'x')],
                         labels=[InputSpec([None, 1], 'int64', 'label')])
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    model.fit(train_dataset, eval_dataset, batch_size=64, epochs=2, save_dir='ckpt')
    model.evaluate(eval_dataset); model.predict(test_dataset)
    model.save('ckpt/final'); model.save('infer/model', training=False); model.load('ckpt/final')

This module holds the loops (fit -> epochs -> `_run_one_epoch` over a paddle.io DataLoader, with the callbacks of
callbacks.py) and the checkpoint files' naming; static_adapter.py builds and runs the programs. A Dataset is read
through a DistributedBatchSampler (shuffle and drop_last for training only) and a DataLoader with
return_list=True; any other iterable is read as it is, each item flattened to inputs then labels.
"""
from __future__ import annotations

import inspect
import os
import warnings

import numpy as np

from ..distributed import ParallelEnv
from ..framework.place import CPUPlace
from ..io import DataLoader, Dataset, DistributedBatchSampler
from ..metric import Metric
from ..nn.layer.layers import Layer
from ..static.extras import InputSpec
from ..static.inference_model import save_inference_model
from ..static.pickled_state import read_state
from .callbacks import EarlyStopping, config_callbacks
from .model_summary import summary
from .static_adapter import StaticGraphAdapter, to_list

__all__ = ['Model']

INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX = '.pdmodel', '.pdiparams'


def _flatten(nested) -> list:
    """paddle.utils.flatten: the leaves of nested lists / tuples, in order."""
    if isinstance(nested, (list, tuple)):
        return [leaf for item in nested for leaf in _flatten(item)]
    return [nested]


def _forward_arg_names(network) -> list[str]:
    return [name for name in inspect.signature(network.forward).parameters if name != 'self']


class Model:
    """An object that trains, evaluates and predicts with a network Layer (see the module docstring)."""

    def __init__(self, network, inputs=None, labels=None):
        self.mode = 'train'
        self.network = network
        self._inputs = None
        self._labels = None
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._metrics: list = []
        self._place = None
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self.stop_training = False
        if not isinstance(inputs, (list, tuple, dict, InputSpec)):
            raise TypeError("'inputs' must be list or tuple or dict, and couldn't be None.")
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)
        self._adapter = StaticGraphAdapter(self)

    # --- one batch ----------------------------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        """Runs one training step on a batch; returns ([loss], [metric values]) or the part there is."""
        return self._adapter.train_batch(inputs, labels, update)

    def eval_batch(self, inputs, labels=None):
        """Runs the evaluation program on a batch; returns ([loss], [metric values]) or the part there is."""
        return self._adapter.eval_batch(inputs, labels)

    def predict_batch(self, inputs):
        """Runs the prediction program on a batch; returns the network's outputs as arrays."""
        return self._adapter.predict_batch(inputs)

    # --- checkpoints --------------------------------------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """training=True: `path.pdparams` (the network's state_dict) and `path.pdopt` (optimizer state);
        training=False: the inference program and its parameters, where Paddle 2.6.2 puts them in static mode
        (`<dirname of path>.pdmodel` / `.pdiparams`: it passes the folder as the file prefix)."""
        if ParallelEnv().local_rank != 0:
            return
        if training:
            self._adapter.save(path)
        else:
            self._save_inference_model(path)

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False) -> None:
        """Sets the network's parameters (by structured name) from `path.pdparams`, and the optimizer state from
        `path.pdopt` when there is one and reset_optimizer is False."""
        path, ext = os.path.splitext(path)
        assert ext in ['', '.pdparams', '.pdopt', '.pdmodel'], 'Unknown postfix %s from weights' % ext
        param_state = read_state(path + '.pdparams') if os.path.exists(path + '.pdparams') else None
        assert param_state, 'Failed to load parameters, please check path.'
        matched = []
        for key, param in self.network.state_dict().items():
            try:
                matched.append(self._check_match(param_state, key, param))
            except ValueError as err:
                if not skip_mismatch:
                    raise err
                warnings.warn('Skip loading for %s. %s' % (key, err))
                reset_optimizer = True
        optim_state = None
        if not reset_optimizer and os.path.exists(path + '.pdopt'):
            optim_state = read_state(path + '.pdopt')
        return self._adapter.load(matched, optim_state)

    @staticmethod
    def _check_match(param_state: dict, key: str, param):
        state = param_state.get(key, None)
        if state is None:
            raise ValueError('%s is not found in the providing file.' % key)
        if list(state.shape) != list(param.shape):
            raise ValueError('%s receives a shape %s, but the expected shape is %s.'
                             % (key, list(state.shape), list(param.shape)))
        return param, state

    def parameters(self, *args, **kwargs) -> list:
        """The network's parameters (static Parameters)."""
        return self._adapter.parameters()

    def _save_inference_model(self, path: str) -> None:
        file_prefix = os.path.basename(path)
        if file_prefix == '':
            raise ValueError('The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows '
                             'system], but received file_prefix is empty string.')
        dirname = os.path.dirname(path)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname)
        prog = self._adapter._progs.get('test', None)
        assert prog, 'Model is not ready, please call `model.prepare()` first'
        save_inference_model(dirname, list(self._adapter._input_vars['test']),
                             self._adapter._endpoints['test']['output'], self._adapter._executor,
                             program=prog.clone(for_test=True))

    # --- configuration ------------------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """Sets the optimizer, the loss (a Layer or a callable) and the metrics, and builds the programs."""
        self._place = CPUPlace()
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable function.")
        self._loss = loss
        metrics = metrics or []
        for metric in to_list(metrics):
            assert isinstance(metric, Metric), '%s is not sub class of Metric' % metric.__class__.__name__
        self._metrics = to_list(metrics)
        if amp_configs not in (None, 'O0') and not (isinstance(amp_configs, dict)
                                                    and amp_configs.get('level', 'O0') == 'O0'):
            raise ValueError('paddle_exec trains in float32 on CPU places: automatic mixed precision (amp_configs '
                             '%r) is not available; leave amp_configs None' % (amp_configs,))
        self._adapter.prepare()

    def _loader(self, data, batch_size: int, num_workers: int, shuffle: bool = False, drop_last: bool = False):
        if not isinstance(data, Dataset):
            return data
        sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        return DataLoader(data, batch_sampler=sampler, places=self._place, num_workers=num_workers,
                          return_list=True)

    # --- loops --------------------------------------------------------------------------------------------------
    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs: int = 1, eval_freq: int = 1,
            log_freq: int = 10, save_dir=None, save_freq: int = 1, verbose: int = 2, drop_last: bool = False,
            shuffle: bool = True, num_workers: int = 0, callbacks=None, accumulate_grad_batches: int = 1,
            num_iters=None) -> None:
        """Trains for `epochs` epochs over train_data (a Dataset or an iterable of batches), evaluating on
        eval_data every `eval_freq` epochs and saving to save_dir every `save_freq` epochs."""
        assert train_data is not None, 'train_data must be given!'
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int) for x in batch_size):
            assert len(batch_size) == 2, 'batch_size length error, expected train_batch_size and eval_batch_size.'
            train_batch_size, eval_batch_size = batch_size
        else:
            train_batch_size = eval_batch_size = batch_size
        train_loader = self._loader(train_data, train_batch_size, num_workers, shuffle, drop_last)
        eval_loader = None if eval_data is None else self._loader(eval_data, eval_batch_size, num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            assert num_iters > 0, 'num_iters must be greater than 0!'
            epochs = (num_iters // steps) + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn('EarlyStopping needs validation data.')
        logs = {}
        cbks.on_begin('train')
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, 'train')
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin('eval', {'steps': self._len_data_loader(eval_loader), 'metrics': self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, 'eval')
                cbks.on_end('eval', eval_logs)
            if self.stop_training:
                break
        cbks.on_end('train', logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2, num_workers: int = 0,
                 callbacks=None, num_iters=None) -> dict:
        """Evaluates over eval_data; returns {'loss': [last batch's loss], metric name: accumulated value}."""
        eval_loader = self._loader(eval_data, batch_size, num_workers)
        self._test_dataloader = eval_loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(eval_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(eval_steps, int):
            assert num_iters > 0, 'num_iters must be greater than 0!'
            eval_steps = min(num_iters, eval_steps)
            self.num_iters = eval_steps
        cbks.on_begin('eval', {'steps': eval_steps, 'metrics': self._metrics_name()})
        logs = self._run_one_epoch(eval_loader, cbks, 'eval')
        cbks.on_end('eval', logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0, stack_outputs: bool = False,
                verbose: int = 1, callbacks=None) -> list:
        """The network's outputs over test_data: one list per output, of per-batch arrays (stacked into one
        array each with stack_outputs)."""
        test_loader = self._loader(test_data, batch_size, num_workers)
        self._test_dataloader = test_loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        logs = {'steps': self._len_data_loader(test_loader)}
        cbks.on_begin('predict', logs)
        logs, outputs = self._run_one_epoch(test_loader, cbks, 'predict')
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end('predict', logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode: str):
        outputs, logs = [], {}
        for step, data in enumerate(data_loader):
            # a static DataLoader gives [[inputs..., labels...]], an iterable [inputs..., labels...] or
            # ([inputs...], [labels...]): flattened alike
            data = _flatten(data)
            first = data[0]
            batch_size = first.shape()[0] if callable(first.shape) else first.shape[0]
            callbacks.on_batch_begin(mode, step, logs)
            if mode != 'predict':
                args = [data[:len(self._inputs)], data[len(self._inputs):]]
                if mode == 'train':
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == len(data_loader))
                outs = getattr(self, mode + '_batch')(*args)
                if self._metrics and self._loss:
                    metrics = [[np.asarray(v).item() for v in outs[0]]]
                elif self._loss:
                    metrics = [[np.asarray(v).item() for v in outs]]
                else:
                    metrics = []
                for metric in self._metrics:
                    metrics.extend(to_list(metric.accumulate()))
                assert len(self._metrics_name()) == len(metrics)
                logs.update(zip(self._metrics_name(), metrics))
            else:
                outputs.append(self.predict_batch(data[:len(self._inputs)] if self._inputs is not None else data))
            logs['step'] = step
            if mode == 'train' or self._adapter._merge_count.get(mode + '_batch', 0) <= 0:
                logs['batch_size'] = batch_size * ParallelEnv().nranks
            else:
                logs['batch_size'] = self._adapter._merge_count[mode + '_batch']
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, 'num_iters', None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        if mode == 'predict':
            return logs, outputs
        return logs

    def summary(self, input_size=None, dtype=None) -> dict:
        """paddle.summary of the network, with the Model's InputSpecs when input_size is not given."""
        assert input_size is not None or self._inputs is not None, "'input_size' or 'self._input' must be set"
        return summary(self.network, input_size if input_size is not None else self._inputs, dtypes=dtype)

    # --- helpers ------------------------------------------------------------------------------------------------
    def _verify_spec(self, specs, is_input: bool = False) -> list:
        if specs is None:
            out_specs = [InputSpec([None], name=n) for n in _forward_arg_names(self.network)] if is_input else []
        elif isinstance(specs, dict):
            assert is_input is False
            out_specs = [specs[n] for n in _forward_arg_names(self.network)]
        else:
            out_specs = to_list(specs)
        for i, spec in enumerate(out_specs):
            assert isinstance(spec, InputSpec)
            if spec.name is None:
                raise ValueError('Requires Input[%d].name != None, but receive `None` with %s.' % (i, spec))
        return out_specs

    def _reset_metrics(self) -> None:
        for metric in self._metrics:
            metric.reset()

    def _metrics_name(self) -> list[str]:
        names = ['loss'] if self._loss else []
        for metric in self._metrics:
            names.extend(to_list(metric.name()))
        return names

    @staticmethod
    def _len_data_loader(data_loader):
        try:
            return len(data_loader)
        except Exception:
            return None
