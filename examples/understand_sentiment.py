"""Text classification as in the Paddle book's understand_sentiment (the convolution net), in the fluid 1.x API, on
paddle_exec.

Reviews are LoD tensors of word ids (one sequence per review, of any length) made by a DataFeeder from lists of
ids; a sparse embedding, two sequence_conv_pool branches (windows of 3 and 4 words, tanh, sqrt pooling over each
review), a softmax over two classes, cross-entropy, Adagrad. The only change to the book's script is the import
line. The reviews are synthetic: each class draws most of its words from its own part of a 1,000-word vocabulary
and the rest from the shared part, so there is something to learn and nothing is downloaded.

    python examples/understand_sentiment.py --steps 100
"""
from __future__ import annotations

import argparse

import numpy as np

import paddle_exec.fluid as fluid  # instead of: import paddle.fluid as fluid

# Op types the programs use (forward, backward, optimizer, startup); tests/test_examples.py skips this example
# while any of them has no kernel yet.
REQUIRED_OPS = ('lookup_table', 'sequence_conv', 'elementwise_add', 'tanh', 'sequence_pool', 'mul', 'sum',
                'softmax', 'cross_entropy2', 'mean', 'accuracy', 'top_k', 'adagrad', 'scale', 'fill_constant',
                'uniform_random', 'lookup_table_grad', 'sequence_conv_grad', 'elementwise_add_grad', 'tanh_grad',
                'sequence_pool_grad', 'mul_grad', 'softmax_grad', 'cross_entropy_grad2', 'mean_grad')

VOCAB, CLASSES = 1000, 2


def reviews(n: int, seed: int) -> list:
    """n (word ids, [label]) samples: 70% of a review's words come from its class's half of the first 600 ids."""
    rng = np.random.RandomState(seed)
    samples = []
    for _ in range(n):
        label = int(rng.randint(0, CLASSES))
        length = int(rng.randint(5, 40))
        own = rng.rand(length) < 0.7
        words = np.where(own, rng.randint(0, 300, length) + 300 * label, rng.randint(600, VOCAB, length))
        samples.append((words.tolist(), [label]))
    return samples


def convolution_net(data, label, input_dim, class_dim=2, emb_dim=32, hid_dim=32):
    emb = fluid.layers.embedding(input=data, size=[input_dim, emb_dim], is_sparse=True)
    conv_3 = fluid.nets.sequence_conv_pool(input=emb, num_filters=hid_dim, filter_size=3, act='tanh',
                                           pool_type='sqrt')
    conv_4 = fluid.nets.sequence_conv_pool(input=emb, num_filters=hid_dim, filter_size=4, act='tanh',
                                           pool_type='sqrt')
    prediction = fluid.layers.fc(input=[conv_3, conv_4], size=class_dim, act='softmax')
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = fluid.layers.mean(cost)
    accuracy = fluid.layers.accuracy(input=prediction, label=label)
    return avg_cost, accuracy, prediction


def build_program(seed: int = 1, learning_rate: float = 0.002):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        data = fluid.layers.data(name='words', shape=[1], dtype='int64', lod_level=1)
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        avg_cost, accuracy, prediction = convolution_net(data, label, VOCAB, CLASSES)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adagrad(learning_rate=learning_rate).minimize(avg_cost)
    return main, startup, test_program, avg_cost, accuracy, data, label


def train(steps: int = 100, batch_size: int = 32, log_every: int = 10, seed: int = 0) -> list:
    main, startup, test_program, avg_cost, accuracy, data, label = build_program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feeder = fluid.DataFeeder(feed_list=[data, label], place=fluid.CPUPlace(), program=main)
    losses = []
    for step in range(steps):
        loss, = exe.run(main, feed=feeder.feed(reviews(batch_size, seed + 1 + step)), fetch_list=[avg_cost])
        losses.append(loss.item())
        if step % log_every == 0 or step == steps - 1:
            print('step %4d  train loss %.4f' % (step, losses[-1]))
    test_loss, test_acc = exe.run(test_program, feed=feeder.feed(reviews(500, seed)),
                                  fetch_list=[avg_cost, accuracy])
    print('test loss %.4f  accuracy %.3f' % (test_loss.item(), test_acc.item()))
    return losses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=100, help='training steps (mini-batches of 32 reviews)')
    parser.add_argument('--log-every', type=int, default=None, help='print the loss every N steps')
    args = parser.parse_args(argv)
    train(args.steps, log_every=args.log_every or max(1, args.steps // 10))


if __name__ == '__main__':
    main()
