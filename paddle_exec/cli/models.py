"""The built-in models of `paddle-exec bench` / `tune` and of benchmarks/, and models written in a script.

The builders are the shared yardstick (../shared/bench/models_fluid.py), code unchanged, so the project never needs
../shared; keep the two in step. Each builder takes `fluid` (paddle.fluid or paddle_exec.fluid) and a batch size,
appends a training program to the default programs and returns (loss, feed) where feed() draws one batch.
`MODELS` maps benchmarks' short names to (builder, batch); the command also knows them by their usual names
(`ALIASES`: fit_a_line, fit-a-line).

A model script (`paddle-exec bench my_model.py`) is a Python file that defines

    def build_model():                   # called inside a fresh program_guard and unique_name.guard
        ...build the training program with paddle_exec.fluid or paddle_exec.static...
        return loss, feed                # feed: a dict of arrays, or a function returning one per step

`load_model(name_or_path)` gives a `ModelSpec` for either.
"""
from __future__ import annotations

import os
import runpy
from dataclasses import dataclass

import numpy as np


def fc_regression(fluid, batch):
    x = fluid.layers.data(name='x', shape=[13], dtype='float32')
    y = fluid.layers.data(name='y', shape=[1], dtype='float32')
    pred = fluid.layers.fc(input=x, size=1, act=None)
    loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
    fluid.optimizer.SGD(learning_rate=0.001).minimize(loss)
    rng = np.random.RandomState(0)
    def feed():
        return {'x': rng.rand(batch, 13).astype('float32'), 'y': rng.rand(batch, 1).astype('float32')}
    return loss, feed

def mlp(fluid, batch):
    x = fluid.layers.data(name='img', shape=[784], dtype='float32')
    y = fluid.layers.data(name='label', shape=[1], dtype='int64')
    h = fluid.layers.fc(input=x, size=256, act='relu')
    h = fluid.layers.fc(input=h, size=256, act='relu')
    logits = fluid.layers.fc(input=h, size=10)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
    fluid.optimizer.Adam(learning_rate=0.001).minimize(loss)
    rng = np.random.RandomState(0)
    def feed():
        return {'img': rng.rand(batch, 784).astype('float32'), 'label': rng.randint(0, 10, (batch, 1)).astype('int64')}
    return loss, feed

def deepfm(fluid, batch, n_fields=26, vocab=100000, dim=16, n_dense=13, is_sparse=True):
    L = fluid.layers
    ids = L.data(name='ids', shape=[n_fields], dtype='int64')
    dense = L.data(name='dense', shape=[n_dense], dtype='float32')
    label = L.data(name='label', shape=[1], dtype='float32')
    ids3 = L.reshape(ids, [-1, n_fields, 1])
    emb = L.embedding(ids3, size=[vocab, dim], is_sparse=is_sparse)      # [B, F, D]
    emb = L.reshape(emb, [-1, n_fields, dim])
    first = L.embedding(ids3, size=[vocab, 1], is_sparse=is_sparse)
    first_order = L.reduce_sum(L.reshape(first, [-1, n_fields]), dim=1, keep_dim=True)
    s = L.reduce_sum(emb, dim=1)
    fm = 0.5 * L.reduce_sum(s * s - L.reduce_sum(emb * emb, dim=1), dim=1, keep_dim=True)
    h = L.concat([L.reshape(emb, [-1, n_fields * dim]), dense], axis=1)
    for size in (400, 400, 400):
        h = L.fc(input=h, size=size, act='relu')
    deep = L.fc(input=h, size=1)
    logit = first_order + fm + deep
    loss = L.mean(L.sigmoid_cross_entropy_with_logits(logit, label))
    fluid.optimizer.Adam(learning_rate=0.001).minimize(loss)
    rng = np.random.RandomState(0)
    def feed():
        return {'ids': rng.randint(0, vocab, (batch, n_fields)).astype('int64'),
                'dense': rng.rand(batch, n_dense).astype('float32'),
                'label': rng.randint(0, 2, (batch, 1)).astype('float32')}
    return loss, feed

MODELS = {'fc': (fc_regression, 32), 'mlp': (mlp, 64), 'deepfm': (deepfm, 512)}

ALIASES = {'fit_a_line': 'fc', 'fit-a-line': 'fc'}
DESCRIPTIONS = {'fc': 'fit-a-line: fc(13 -> 1), square error, SGD',
                'mlp': 'MNIST MLP: 784 -> 256 -> 256 -> 10 relu, softmax cross-entropy, Adam',
                'deepfm': 'DeepFM: 26 sparse fields (vocab 100000, dim 16), FM + 3x400 MLP, Adam'}


class ModelError(ValueError):
    """A model name that is neither built in nor a script, or a script that does not define build_model."""


@dataclass
class ModelSpec:
    """How to build one training model: `build(fluid)` -> (loss, feed function), inside the caller's guards."""
    name: str
    batch: int | None           # None: whatever the script's feed holds
    description: str
    build: object


def builtin_names() -> list:
    return list(MODELS) + list(ALIASES)


def _feed_function(feed):
    if callable(feed):
        return feed
    if isinstance(feed, dict):
        return lambda: feed
    raise ModelError('build_model() must return (loss, feed) with feed a dict of arrays or a function returning '
                     'one, but feed is %s' % type(feed).__name__)


def _script_model(path: str) -> ModelSpec:
    namespace = runpy.run_path(path, run_name='__paddle_exec_model__')
    build_model = namespace.get('build_model')
    if not callable(build_model):
        raise ModelError('%s defines no build_model(): a model script defines build_model() returning (loss, feed)'
                         % path)

    def build(fluid):
        result = build_model()
        if not (isinstance(result, tuple) and len(result) == 2):
            raise ModelError('build_model() in %s must return (loss, feed), but returned %s'
                             % (path, type(result).__name__))
        loss, feed = result
        return loss, _feed_function(feed)

    doc = (namespace.get('__doc__') or '').strip().split('\n')[0]
    return ModelSpec(os.path.basename(path), None, doc or 'model script %s' % path, build)


def load_model(name_or_path: str, batch: int | None = None) -> ModelSpec:
    """The ModelSpec of a built-in model (by name or alias; `batch` overrides its batch size) or of a script."""
    key = ALIASES.get(name_or_path, name_or_path)
    if key in MODELS:
        builder, default_batch = MODELS[key]
        size = batch or default_batch
        return ModelSpec(name_or_path, size, DESCRIPTIONS[key], lambda fluid: builder(fluid, size))
    if name_or_path.endswith('.py'):
        if not os.path.isfile(name_or_path):
            raise ModelError('no such model script: %s' % name_or_path)
        return _script_model(name_or_path)
    raise ModelError('unknown model %r: the built-in models are %s; or give a SCRIPT.py defining build_model()'
                     % (name_or_path, ', '.join(builtin_names())))
