"""LoD benchmark models in the legacy fluid API; `fluid` is passed in (paddle.fluid 1.8.5 or paddle_exec.fluid), so
the same code builds both sides of bench_lod.py. Python 3.8 syntax: Paddle 1.8.5's child process imports it.

ctr_dnn   PaddleRec's CTR DNN (models/rank/dnn): 26 sparse slots, each a lod_level=1 list of feature ids looked up
          in one shared embedding table (`SparseFeatFactors`, is_sparse) and pooled by sequence_pool('sum'), concat
          with 13 dense features, three fc layers of 400 (relu), a softmax over 2 classes, cross_entropy summed,
          SGD. Each sample has 1 to 3 ids per slot.
lstm      dynamic_lstm training: a batch of lod_level=1 sequences of 128-wide float features (lengths drawn from
          25..75, mean 50), fc to 4 x hidden, dynamic_lstm (peepholes), the last step of each sequence, a softmax
          over 2 classes, cross_entropy averaged, SGD.
srl       the Paddle book's label_semantic_roles (chapter 07): 8 embeddings summed through fc+tanh, 8 stacked
          dynamic_lstm (alternating direction, relu candidate, sigmoid gates and cell) joined by fc sums, a
          linear_chain_crf loss and crf_decoding; batches of 10 sentences of 10..50 words.

`build_run(fluid, model, batch, size)` returns a ModelRun: the programs, the executor, a few pre-made feeds
(LoDTensors), and `step()`, one training step on the next feed; `size` is the vocabulary (ctr_dnn) or the hidden
size (lstm, srl). Run as a script (`lod_models.py MODEL BATCH SIZE`) it serves bench_lod.py: it builds the model, then
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


LSTM_FEATURES = 128


def lstm_net(fluid, hidden):
    L = fluid.layers
    x = L.data(name='x', shape=[LSTM_FEATURES], dtype='float32', lod_level=1)
    label = L.data(name='label', shape=[1], dtype='int64')
    proj = L.fc(input=x, size=4 * hidden)
    h, _ = L.dynamic_lstm(input=proj, size=4 * hidden, use_peepholes=True)
    last = L.sequence_last_step(h)
    predict = L.fc(input=last, size=2, act='softmax')
    loss = L.mean(L.cross_entropy(input=predict, label=label))
    fluid.optimizer.SGD(learning_rate=1e-3).minimize(loss)
    return loss


def lstm_feeds(fluid, batch, hidden, n_feeds=4, seed=0):
    rng = np.random.RandomState(seed)
    place = fluid.CPUPlace()
    feeds = []
    for _ in range(n_feeds):
        lengths = rng.randint(25, 76, batch).tolist()
        x = rng.uniform(-1, 1, (sum(lengths), LSTM_FEATURES)).astype('float32')
        feeds.append({'x': fluid.create_lod_tensor(x, [lengths], place),
                      'label': rng.randint(0, 2, (batch, 1)).astype('int64')})
    return feeds


# label_semantic_roles: the Paddle book's chapter 07 network (db_lstm) with conll05's dictionary sizes
SRL_WORDS, SRL_VERBS, SRL_LABELS, SRL_WORD_DIM, SRL_MARK_DIM, SRL_DEPTH = 44068, 3162, 59, 32, 5, 8
SRL_SLOTS = ('word_data', 'ctx_n2_data', 'ctx_n1_data', 'ctx_0_data', 'ctx_p1_data', 'ctx_p2_data', 'verb_data',
             'mark_data')


def srl_net(fluid, hidden):
    """The book's db_lstm and its CRF loss (07.label_semantic_roles/train.py), hidden 512 there."""
    L = fluid.layers
    ids = {name: fluid.data(name=name, shape=[None, 1], dtype='int64', lod_level=1) for name in SRL_SLOTS}
    target = L.data(name='target', shape=[1], dtype='int64', lod_level=1)
    emb_layers = [fluid.embedding(input=ids[name], size=[SRL_WORDS, SRL_WORD_DIM], dtype='float32',
                                  param_attr=fluid.ParamAttr(name='emb', trainable=False))
                  for name in SRL_SLOTS[:6]]
    emb_layers.append(fluid.embedding(input=ids['verb_data'], size=[SRL_VERBS, SRL_WORD_DIM], dtype='float32',
                                      is_sparse=True, param_attr='vemb'))
    emb_layers.append(fluid.embedding(input=ids['mark_data'], size=[2, SRL_MARK_DIM], dtype='float32',
                                      is_sparse=True))
    hidden_0 = L.sums(input=[L.fc(input=emb, size=hidden, act='tanh') for emb in emb_layers])
    lstm_0 = L.dynamic_lstm(input=hidden_0, size=hidden, candidate_activation='relu', gate_activation='sigmoid',
                            cell_activation='sigmoid')
    input_tmp = [hidden_0, lstm_0]
    for i in range(1, SRL_DEPTH):
        mix_hidden = L.sums(input=[L.fc(input=input_tmp[0], size=hidden, act='tanh'),
                                   L.fc(input=input_tmp[1], size=hidden, act='tanh')])
        lstm = L.dynamic_lstm(input=mix_hidden, size=hidden, candidate_activation='relu', gate_activation='sigmoid',
                              cell_activation='sigmoid', is_reverse=((i % 2) == 1))
        input_tmp = [mix_hidden, lstm]
    feature_out = L.sums(input=[L.fc(input=input_tmp[0], size=SRL_LABELS, act='tanh'),
                                L.fc(input=input_tmp[1], size=SRL_LABELS, act='tanh')])
    crf_cost = L.linear_chain_crf(input=feature_out, label=target,
                                  param_attr=fluid.ParamAttr(name='crfw', learning_rate=1e-3))
    avg_cost = L.mean(crf_cost)
    fluid.optimizer.SGD(learning_rate=L.exponential_decay(learning_rate=0.01, decay_steps=100000, decay_rate=0.5,
                                                          staircase=True)).minimize(avg_cost)
    L.crf_decoding(input=feature_out, param_attr=fluid.ParamAttr(name='crfw'))
    return avg_cost


def srl_feeds(fluid, batch, hidden, n_feeds=4, seed=0):
    """Sentences of 10..50 words (conll05's mean is near 30), one predicate each, as the book's reader gives."""
    rng = np.random.RandomState(seed)
    place = fluid.CPUPlace()
    feeds = []
    for _ in range(n_feeds):
        lengths = rng.randint(10, 51, batch).tolist()
        rows = sum(lengths)
        feed = {}
        for name in SRL_SLOTS:
            high = {'verb_data': SRL_VERBS, 'mark_data': 2}.get(name, SRL_WORDS)
            feed[name] = fluid.create_lod_tensor(rng.randint(0, high, (rows, 1)).astype('int64'), [lengths], place)
        feed['target'] = fluid.create_lod_tensor(rng.randint(0, SRL_LABELS, (rows, 1)).astype('int64'), [lengths],
                                                 place)
        feeds.append(feed)
    return feeds


MODELS = {'ctr_dnn': (ctr_dnn, ctr_feeds), 'lstm': (lstm_net, lstm_feeds), 'srl': (srl_net, srl_feeds)}


class ModelRun:
    def __init__(self, fluid, model, batch, size):
        self.fluid = fluid
        net, make_feeds = MODELS[model]
        self.main, self.startup, self.scope = fluid.Program(), fluid.Program(), fluid.Scope()
        with fluid.scope_guard(self.scope), fluid.program_guard(self.main, self.startup), fluid.unique_name.guard():
            self.loss = net(fluid, size)
            self.exe = fluid.Executor(fluid.CPUPlace())
            self.exe.run(self.startup)
            for p in self.main.global_block().all_parameters():
                tensor = self.scope.find_var(p.name).get_tensor()
                tensor.set(init_value(p.name, np.array(tensor).shape, 'float32'), fluid.CPUPlace())
        self.feeds = make_feeds(fluid, batch, size)
        self.k = 0

    def step(self):
        feed = self.feeds[self.k % len(self.feeds)]
        self.k += 1
        with self.fluid.scope_guard(self.scope):
            return self.exe.run(self.main, feed=feed, fetch_list=[self.loss])[0]


def build_run(fluid, model, batch, size):
    return ModelRun(fluid, model, batch, size)


def serve(argv):
    """The child side of bench_lod.py (Paddle 1.8.5): build, then time `run N` requests."""
    model, batch, size = argv[0], int(argv[1]), int(argv[2])
    import paddle.fluid as fluid
    run = build_run(fluid, model, batch, size)
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
