"""A LoD training program on the ParallelExecutor (2 places), shared by the recorder (run under Paddle 1.8.5) and
tests/executor/test_lod_feed_fetch.py: `run(fluid)` returns per step the fetched loss (one per place), the
merged LoD tensor of the embedding (values and LoD), and the final parameters."""
import os
import zlib

import numpy as np

VOCAB, DIM = 30, 4


def init_value(name, shape, dtype):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    fan_in = shape[0] if len(shape) > 1 else max(shape[0], 1)
    return (rng.uniform(-1.0, 1.0, shape) / np.sqrt(fan_in)).astype(dtype)


def feeds(fluid):
    rng = np.random.RandomState(7)
    out = []
    for lengths in ([2, 3, 1, 4, 2], [1, 1, 2], [3, 2, 2, 1]):
        ids = rng.randint(0, VOCAB, (sum(lengths), 1)).astype('int64')
        out.append({'words': fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace()),
                    'label': rng.randint(0, 2, (len(lengths), 1)).astype('int64')})
    return out


def run(fluid):
    os.environ['CPU_NUM'] = '2'
    L = fluid.layers
    main, startup, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
        label = L.data(name='label', shape=[1], dtype='int64')
        emb = L.embedding(words, size=[VOCAB, DIM])
        conv = fluid.nets.sequence_conv_pool(input=emb, num_filters=3, filter_size=3, act='tanh', pool_type='sum')
        avg = L.sequence_pool(emb, 'average')
        pred = L.fc(input=[conv, avg], size=2, act='softmax')
        loss = L.mean(L.cross_entropy(input=pred, label=label))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        params = sorted(p.name for p in main.global_block().all_parameters())
        for name in params:
            tensor = scope.find_var(name).get_tensor()
            value = np.array(tensor)
            tensor.set(init_value(name, value.shape, value.dtype), fluid.CPUPlace())
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
        steps = []
        for feed in feeds(fluid):
            loss_v, emb_v = pe.run(fetch_list=[loss.name, emb.name], feed=feed, return_numpy=False)
            steps.append({'loss': np.array(loss_v).ravel().tolist(), 'emb': np.array(emb_v).tolist(),
                          'emb_lod': emb_v.lod()})
        final = {name: np.array(scope.find_var(name).get_tensor()).tolist() for name in params}
    return steps, final
