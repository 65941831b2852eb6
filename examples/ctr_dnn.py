"""PaddleRec's CTR DNN (click-through-rate prediction) with sparse slots, in the fluid 1.x API, on paddle_exec.

26 sparse slots, each a lod_level=1 list of feature ids (a sample may have several ids in a slot, or one), looked
up in one shared embedding table (`SparseFeatFactors`, sparse gradients) and summed per slot by sequence_pool;
13 dense features; three fc layers of 400 (relu); a softmax over click / no click; cross-entropy; Adam. Samples
are lists of ids, turned into LoD tensors by a non-iterable DataLoader.from_generator (the `read` op gives each
slot its LoD), as PaddleRec's Criteo reader feeds it. The only change to such a script is the import line.

The clicks are synthetic: a few ids of each slot raise the click probability, and so does the first dense
feature, so there is something to learn and nothing is downloaded.

    python examples/ctr_dnn.py --steps 100
"""
from __future__ import annotations

import argparse

import numpy as np

import paddle_exec.fluid as fluid  # instead of: import paddle.fluid as fluid

# Op types the programs use (forward, backward, optimizer, startup); tests/test_examples.py skips this example
# while any of them has no kernel yet.
REQUIRED_OPS = ('create_py_reader', 'create_double_buffer_reader', 'read', 'lookup_table', 'sequence_pool',
                'concat', 'mul', 'elementwise_add', 'relu', 'softmax', 'cross_entropy2', 'mean', 'adam', 'sum',
                'fill_constant', 'uniform_random', 'gaussian_random', 'lookup_table_grad', 'sequence_pool_grad',
                'concat_grad', 'mul_grad', 'elementwise_add_grad', 'relu_grad', 'softmax_grad',
                'cross_entropy_grad2', 'mean_grad')

N_SLOTS, N_DENSE, VOCAB, EMB_DIM = 26, 13, 1000, 10


def samples(n: int, seed: int) -> list:
    """n samples: (dense [13], then per slot a list of 1 to 3 ids, then [click])."""
    rng = np.random.RandomState(seed)
    hot = np.random.RandomState(42).randint(0, VOCAB, (N_SLOTS, 5))      # ids that make clicks likely
    dense = rng.rand(n, N_DENSE).astype('float32')
    lengths = rng.randint(1, 4, (n, N_SLOTS))
    ids = rng.randint(0, VOCAB, (n, N_SLOTS, 3))
    is_hot = rng.rand(n, N_SLOTS) < 0.5
    ids[:, :, 0] = np.where(is_hot, hot[np.arange(N_SLOTS), rng.randint(0, 5, (n, N_SLOTS))], ids[:, :, 0])
    score = 2.0 * (is_hot.sum(1) - 0.5 * N_SLOTS) / 2.5 + 6.0 * (dense[:, 0] - 0.5)   # about half the samples click
    clicks = (rng.rand(n) < 1.0 / (1.0 + np.exp(-score))).astype(int)
    return [(dense[k].tolist(), *[ids[k, s, :lengths[k, s]].tolist() for s in range(N_SLOTS)], [int(clicks[k])])
            for k in range(n)]


def ctr_dnn(dense_input, sparse_inputs, label):
    def embedding_layer(ids):
        emb = fluid.layers.embedding(input=ids, is_sparse=True, size=[VOCAB, EMB_DIM],
                                     param_attr=fluid.ParamAttr(name='SparseFeatFactors',
                                                                initializer=fluid.initializer.Uniform(-0.05, 0.05)))
        return fluid.layers.sequence_pool(input=emb, pool_type='sum')

    hidden = fluid.layers.concat([embedding_layer(s) for s in sparse_inputs] + [dense_input], axis=1)
    for size in (400, 400, 400):
        hidden = fluid.layers.fc(input=hidden, size=size, act='relu',
                                 param_attr=fluid.ParamAttr(initializer=fluid.initializer.Normal(
                                     scale=1.0 / np.sqrt(hidden.shape[1]))))
    predict = fluid.layers.fc(input=hidden, size=2, act='softmax',
                              param_attr=fluid.ParamAttr(initializer=fluid.initializer.Normal(
                                  scale=1.0 / np.sqrt(hidden.shape[1]))))
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
    return avg_cost, predict


def build_program(seed: int = 1, learning_rate: float = 0.001):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        dense = fluid.layers.data(name='dense_input', shape=[N_DENSE], dtype='float32')
        sparse = [fluid.layers.data(name='C%d' % (i + 1), shape=[1], dtype='int64', lod_level=1)
                  for i in range(N_SLOTS)]
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        loader = fluid.io.DataLoader.from_generator(feed_list=[dense] + sparse + [label], capacity=8,
                                                    iterable=False)
        avg_cost, predict = ctr_dnn(dense, sparse, label)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=learning_rate).minimize(avg_cost)
    return main, startup, test_program, avg_cost, predict, loader


def train(steps: int = 100, batch_size: int = 128, log_every: int = 10, seed: int = 0) -> list:
    main, startup, test_program, avg_cost, predict, loader = build_program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)

    def batches():
        for step in range(steps):
            yield samples(batch_size, seed + 1 + step)
    loader.set_sample_list_generator(batches)
    loader.start()
    losses = []
    try:
        while True:
            loss, = exe.run(main, fetch_list=[avg_cost])
            losses.append(loss.item())
            step = len(losses) - 1
            if step % log_every == 0 or step == steps - 1:
                print('step %4d  train loss %.4f' % (step, losses[-1]))
    except fluid.core.EOFException:
        loader.reset()

    def test_batches():
        yield samples(1000, seed)
    loader.set_sample_list_generator(test_batches)
    loader.start()
    test_loss, test_predict = exe.run(test_program, fetch_list=[avg_cost, predict])
    loader.reset()
    print('test loss %.4f  mean click probability %.3f' % (test_loss.item(), float(test_predict[:, 1].mean())))
    return losses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=100, help='training steps (mini-batches of 128 samples)')
    parser.add_argument('--log-every', type=int, default=None, help='print the loss every N steps')
    args = parser.parse_args(argv)
    train(args.steps, log_every=args.log_every or max(1, args.steps // 10))


if __name__ == '__main__':
    main()
