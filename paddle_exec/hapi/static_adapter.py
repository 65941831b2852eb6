"""How paddle.Model trains, evaluates and predicts with static programs: Paddle 2.6's StaticGraphAdapter.

The network's Layers create their parameters when constructed, in the default main and startup programs. prepare()
then makes one program per mode by cloning that main program (for 'eval' and 'test' with its ops removed, so a
learning-rate schedule's ops do not run twice) and calling `network.forward` on feed variables made from the
InputSpecs, under program_guard(clone, startup):

    train: forward, loss(*(outputs + labels)), each metric's compute(), optimizer.minimize(add_n(losses))
    eval:  forward, loss, metric compute()                 (then clone(for_test=True))
    test:  forward                                         (then clone(for_test=True))

The startup program runs once, only for what the scope does not hold yet (a second Model over the same scope keeps
the trained values, as in Paddle). A batch feeds the inputs (and labels) by name, fetches the losses and the
metrics' compute() outputs, and hands those to each metric's update(); 'test' fetches the outputs.

State: `_progs`, `_endpoints` ({'output', 'loss', 'metric'} per mode), `_input_vars` / `_label_vars` per mode, one
Executor. Checkpoints (`save` / `load`) are pickles: `path.pdparams` {structured name: array} from the network's
state_dict and `path.pdopt` {variable name: array} of the train program's optimizer variables.
"""
from __future__ import annotations

import os
import pickle

import numpy as np

from ..executor import Executor
from ..framework import default_main_program, default_startup_program, global_scope, program_guard
from ..layers.io import data_v2
from ..static.var_files import is_belong_to_optimizer
from ..tensor.math import add_n

__all__ = ['StaticGraphAdapter', 'to_list']


def to_list(value) -> list | None:
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def flatten_list(nested: list) -> tuple[list, list[int]]:
    assert isinstance(nested, list), 'not a list'
    return [item for sub in nested for item in sub], [len(sub) for sub in nested]


def restore_flatten_list(flat: list, splits: list[int]) -> list:
    out, start = [], 0
    for size in splits:
        out.append(flat[start:start + size])
        start += size
    return out


def scope_array(var) -> np.ndarray:
    """The global scope's value of `var` as an array (what Paddle's to_numpy gives)."""
    found = global_scope().find_var(var.name)
    if found is None or not found.is_initialized():
        raise ValueError('variable %s has no value in the global scope: run the startup program first' % var.name)
    return np.array(found.get_tensor())


def set_scope_array(var, value) -> None:
    global_scope().var(var.name).get_tensor().set(np.asarray(value), None)


class StaticGraphAdapter:
    """Model's engine in static mode (see the module docstring)."""

    def __init__(self, model):
        self.model = model
        self._startup_prog = default_startup_program()
        self._orig_prog = default_main_program()
        self._label_vars: dict = {}
        self._input_vars: dict = {}
        self._endpoints: dict = {}
        self._loss_endpoint = None
        self._executor = None
        self._progs: dict = {}
        self._merge_count = {'eval_total': 0, 'test_total': 0, 'eval_batch': 0, 'test_batch': 0}
        self._amp_level = 'O0'

    @property
    def mode(self) -> str:
        return self.model.mode

    @mode.setter
    def mode(self, value: str) -> None:
        self.model.mode = value

    # --- batches ------------------------------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        assert self.model._optimizer, 'model not ready, please call `model.prepare()` first'
        self.mode = 'train'
        assert update is True, 'Does not support `update == False` in static graph mode by now.'
        return self._run(inputs, labels)

    def eval_batch(self, inputs, labels=None):
        self.mode = 'eval'
        return self._run(inputs, labels)

    def predict_batch(self, inputs):
        self.mode = 'test'
        return self._run(inputs, None)

    def parameters(self, *args, **kwargs) -> list:
        return self.model.network.parameters(*args, **kwargs)

    def _feed(self, inputs, labels) -> dict:
        inputs = to_list(inputs)
        assert len(inputs) == len(self._input_vars[self.mode]), \
            'number of inputs does not match number of arguments of `forward` method'
        feed = {var.name: value for var, value in zip(self._input_vars[self.mode], inputs) if value is not None}
        if labels is not None:
            for var, value in zip(self._label_vars[self.mode], to_list(labels)):
                feed[var.name] = value
        return feed

    def _run(self, inputs, labels=None):
        prog = self._progs.get(self.mode)
        assert prog is not None, 'Model is not ready, please call `model.prepare()` first'
        feed = self._feed(inputs, labels)
        endpoints = self._endpoints[self.mode]
        if self.mode == 'test':
            fetch_list = endpoints['output']
        else:
            metric_list, metric_splits = flatten_list(endpoints['metric'])
            fetch_list = endpoints['loss'] + metric_list
            num_loss = len(endpoints['loss'])
        # a fetch that is a fed variable is handed back from the feed, not fetched (as in Paddle)
        fetched = self._executor.run(prog, feed=feed, fetch_list=[v for v in fetch_list if v.name not in feed],
                                     return_numpy=False)
        fetched = iter(fetched)
        rets = [np.array(feed[v.name] if v.name in feed else next(fetched)) for v in fetch_list]
        if self.mode == 'test':
            return rets[:]
        metric_states = restore_flatten_list(rets[num_loss:], metric_splits)
        metrics = [metric.update(*state) for metric, state in zip(self.model._metrics, metric_states)]
        if num_loss and metrics:
            return rets[:num_loss], metrics
        return rets[:num_loss] if num_loss else metrics

    # --- programs -----------------------------------------------------------------------------------------------
    def prepare(self) -> None:
        for mode in ['train', 'eval', 'test']:
            self._make_program(mode)
            self._initialize()

    def _make_program(self, mode: str) -> None:
        if mode in self._progs:
            return
        prog = self._orig_prog.clone()
        if mode != 'train':
            # the main program may hold an LR schedule's ops: they must not run in evaluation
            block = prog.global_block()
            if block.ops:
                block._remove_op(0, len(block.ops))
        optimizer = self.model._optimizer
        if mode == 'train' and optimizer and self._orig_prog in getattr(optimizer, '_learning_rate_map', {}):
            lr_var = optimizer._learning_rate_map[self._orig_prog]
            optimizer._learning_rate_map[prog] = prog.global_block().vars[lr_var.name]
        losses, metrics = [], []
        with program_guard(prog, self._startup_prog):
            model = self.model
            inputs = [data_v2(spec.name, list(spec.shape), spec.dtype) for spec in to_list(model._inputs)]
            labels = [data_v2(spec.name, list(spec.shape), spec.dtype) for spec in to_list(model._labels or [])]
            self._label_vars[mode] = labels
            outputs = to_list(model.network.forward(*inputs))
            if mode != 'test' and model._loss:
                losses = model._loss(*(outputs + labels))
            if mode != 'test':
                metrics = [to_list(metric.compute(*(outputs + labels))) for metric in model._metrics]
            if mode == 'train' and optimizer:
                self._loss_endpoint = add_n(to_list(losses))
                optimizer.minimize(self._loss_endpoint)
        if mode != 'train':
            prog = prog.clone(for_test=True)
        self._input_vars[mode] = inputs
        self._progs[mode] = prog
        self._endpoints[mode] = {'output': outputs, 'loss': to_list(losses) or [], 'metric': metrics}

    def _initialize(self) -> None:
        """Runs the startup ops whose outputs the scope does not hold yet (once, with the first program)."""
        if self._executor is not None:
            return
        self._executor = Executor(self.model._place)
        scope = global_scope()

        def initialized(name: str) -> bool:
            var = scope.find_var(name)
            return var is not None and var.is_initialized()

        startup = self._startup_prog.clone()
        block = startup.global_block()
        for index in reversed(range(len(block.ops))):
            if all(initialized(name) for name in block.ops[index].output_arg_names):
                block._remove_op(index)
        if block.ops:
            self._executor.run(startup)

    # --- checkpoints --------------------------------------------------------------------------------------------
    def save(self, path: str) -> None:
        base = os.path.basename(path)
        assert base != '', "path should be of 'dirname/filename' format"
        dir_name = os.path.dirname(path)
        if dir_name and not os.path.exists(dir_name):
            os.makedirs(dir_name)
        _pickle_state({k: scope_array(v) for k, v in self.model.network.state_dict().items()}, path + '.pdparams')
        prog = self._progs.get('train')
        if prog is None or self.model._optimizer is None:
            return
        optim = {v.name: scope_array(v) for v in filter(is_belong_to_optimizer, prog.list_vars())}
        _pickle_state(optim, path + '.pdopt')

    def load(self, param_state_pairs, optim_state) -> None:
        for param, state in param_state_pairs:
            set_scope_array(param, state)
        if not self.model._optimizer or not optim_state:
            return
        self._load_optimizer(optim_state)

    def _load_optimizer(self, state: dict) -> None:
        prog = self._progs.get('train')
        optim = list(filter(is_belong_to_optimizer, prog.list_vars()))
        converted = dict(state)
        for var in optim:
            if var.name in ['@LR_DECAY_COUNTER@', 'global_step']:
                # a dygraph checkpoint counts steps in global_step, one ahead of static's @LR_DECAY_COUNTER@
                value = (np.array(converted.pop('global_step')) - 1 if 'global_step' in converted
                         else converted.pop('@LR_DECAY_COUNTER@', None))
                if value is not None:
                    converted[var.name] = value
            elif var.name.startswith('learning_rate_') and var.name not in state:
                continue     # dygraph does not save a constant learning rate
            assert var.name in converted, 'variable [%s] is not in optimizer state file' % var.name
            set_scope_array(var, converted[var.name])


def _pickle_state(state: dict, path: str) -> None:
    if not state:
        return
    with open(path, 'wb') as f:
        pickle.dump(state, f)
