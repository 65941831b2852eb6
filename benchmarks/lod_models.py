"""LoD benchmark models in the legacy fluid API; `fluid` is passed in (paddle.fluid 1.8.5 or paddle_exec.fluid), so
the same code builds both sides of bench_lod.py. Python 3.8 syntax: Paddle 1.8.5's child process imports it.

ctr_dnn   PaddleRec's CTR DNN (models/rank/dnn): 26 sparse slots, each a lod_level=1 list of feature ids looked up
          in one shared embedding table (`SparseFeatFactors`, is_sparse) and pooled by sequence_pool('sum'), concat
          with 13 dense features, three fc layers of 400 (relu), a softmax over 2 classes, cross_entropy summed,
          SGD. Each sample has 1 to 3 ids per slot.

`build_run(fluid, ...)` returns a ModelRun: the programs, the executor, a few pre-made feeds (LoDTensors), and
`step()`, one training step on the next feed. Run as a script it serves bench_lod.py: it builds the model, then
answers lines on stdin, `run N` with the seconds N steps took, until `quit`.
"""
import json
import sys
import time
import zlib

import numpy as np

N_SLOTS, N_DENSE, EMB_DIM, HIDDEN = 26, 13, 10, (400, 400, 400)


def init_value(name, shape, dtype):
    """The same starting point in both frameworks (as tests/golden/run_case.py)."""
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    fan_in = shape[0] if len(shape) > 1 else max(shape[0], 1)
    return (rng.uniform(-1.0, 1.0, shape) / np.sqrt(fan_in)).astype(dtype)


def ctr_dnn(fluid, vocab):
    L = fluid.layers
    dense = L.data(name='dense_input', shape=[N_DENSE], dtype='float32')
    slots = [L.data(name='C%d' % (i + 1), shape=[1], dtype='int64', lod_level=1) for i in range(N_SLOTS)]
    label = L.data(name='label', shape=[1], dtype='int64')

    def embedding_layer(ids):
        emb = L.embedding(input=ids, is_sparse=True, size=[vocab, EMB_DIM],
                          param_attr=fluid.ParamAttr(name='SparseFeatFactors'))
        return L.sequence_pool(input=emb, pool_type='sum')

    h = L.concat([embedding_layer(s) for s in slots] + [dense], axis=1)
    for size in HIDDEN:
        h = L.fc(input=h, size=size, act='relu')
    predict = L.fc(input=h, size=2, act='softmax')
    loss = L.reduce_sum(L.cross_entropy(input=predict, label=label))
    fluid.optimizer.SGD(learning_rate=1e-4).minimize(loss)
    return loss


def ctr_feeds(fluid, batch, vocab, n_feeds=4, seed=0):
    rng = np.random.RandomState(seed)
    place = fluid.CPUPlace()
    feeds = []
    for _ in range(n_feeds):
        feed = {'dense_input': rng.rand(batch, N_DENSE).astype('float32'),
                'label': rng.randint(0, 2, (batch, 1)).astype('int64')}
        for i in range(N_SLOTS):
            lengths = rng.randint(1, 4, batch).tolist()
            ids = rng.randint(0, vocab, (sum(lengths), 1)).astype('int64')
            feed['C%d' % (i + 1)] = fluid.create_lod_tensor(ids, [lengths], place)
        feeds.append(feed)
    return feeds


class ModelRun:
    def __init__(self, fluid, batch, vocab):
        self.fluid = fluid
        self.main, self.startup, self.scope = fluid.Program(), fluid.Program(), fluid.Scope()
        with fluid.scope_guard(self.scope), fluid.program_guard(self.main, self.startup), fluid.unique_name.guard():
            self.loss = ctr_dnn(fluid, vocab)
            self.exe = fluid.Executor(fluid.CPUPlace())
            self.exe.run(self.startup)
            for p in self.main.global_block().all_parameters():
                tensor = self.scope.find_var(p.name).get_tensor()
                tensor.set(init_value(p.name, np.array(tensor).shape, 'float32'), fluid.CPUPlace())
        self.feeds = ctr_feeds(fluid, batch, vocab)
        self.k = 0

    def step(self):
        feed = self.feeds[self.k % len(self.feeds)]
        self.k += 1
        with self.fluid.scope_guard(self.scope):
            return self.exe.run(self.main, feed=feed, fetch_list=[self.loss])[0]


def build_run(fluid, batch, vocab):
    return ModelRun(fluid, batch, vocab)


def serve(argv):
    """The child side of bench_lod.py (Paddle 1.8.5): build, then time `run N` requests."""
    batch, vocab = int(argv[0]), int(argv[1])
    import paddle.fluid as fluid
    run = build_run(fluid, batch, vocab)
    first = float(np.array(run.step()).ravel()[0])
    print(json.dumps({'ready': True, 'first_loss': first}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == 'quit':
            break
        n = int(words[1])
        start = time.perf_counter()
        for _ in range(n):
            run.step()
        print(json.dumps({'seconds': time.perf_counter() - start}), flush=True)


if __name__ == '__main__':
    serve(sys.argv[1:])
