"""Semantic role labelling as in the Paddle book's label_semantic_roles, in the fluid 1.x API, on paddle_exec.

Every input is a LoD tensor with one row per word of a sentence: the word, the predicate, the five words around
the predicate (ctx_n2 ... ctx_p2, repeated along the sentence as the book's reader does) and the mark (1 near the
predicate). Their embeddings (the five context words and the word share the `emb` table; the predicate has
`vemb`) are mixed by fcs into one hidden sequence, which an encoder turns into per-word tag scores; a linear-chain
CRF (`crfw`, trained) gives the loss and crf_decoding (sharing `crfw`) the tags, evaluated by chunk_eval (IOB) and
fluid.metrics.ChunkEvaluator. Besides the import line, the changes to the book's script are the sizes, the data
and Adam for its SGD (so that a run of a few seconds learns).

Two encoders: `--encoder lstm` is the book's stack of dynamic_lstm layers in alternating directions; `--encoder
conv` (the default) stacks sequence_conv layers, whose windows see the neighbouring words as well.

The sentences are synthetic, so nothing is downloaded: a word's id says which role it plays (ids 0-99 are outside
any argument, 100-199 belong to A0, 200-299 to A1), the predicate is B-V, and an argument chunk begins where the
role changes (IOB). There is something to learn for the embeddings, the encoder and the CRF's transitions.

    python examples/label_semantic_roles.py --steps 60
"""
from __future__ import annotations

import argparse

import numpy as np

import paddle_exec.fluid as fluid  # instead of: import paddle.fluid as fluid

# Op types the programs use (forward, backward, optimizer, startup, test); tests/test_examples.py skips this example
# while any of them has no kernel yet.
REQUIRED_OPS = ('lookup_table', 'lookup_table_grad', 'mul', 'mul_grad', 'sum', 'elementwise_add',
                'elementwise_add_grad', 'relu', 'relu_grad', 'sequence_conv', 'sequence_conv_grad',
                'linear_chain_crf', 'linear_chain_crf_grad', 'mean', 'mean_grad', 'crf_decoding', 'chunk_eval',
                'adam', 'fill_constant', 'uniform_random', 'scale')

WORDS, PREDICATES, MARKS = 400, 40, 2
ROLES = ('A0', 'A1', 'V')                     # chunk types; IOB tags: B-A0 I-A0 B-A1 I-A1 B-V I-V, O = 6
LABELS = 2 * len(ROLES) + 1
OUTSIDE = 2 * len(ROLES)
FEATURES = ('word', 'verb', 'ctx_n2', 'ctx_n1', 'ctx_0', 'ctx_p1', 'ctx_p2', 'mark')


def sentences(n: int, seed: int) -> list:
    """n samples in the order of FEATURES plus the target tags, each a list over the sentence's words."""
    rng = np.random.RandomState(seed)
    samples = []
    for _ in range(n):
        length = int(rng.randint(5, 25))
        words = rng.randint(0, 300, length)
        pred = int(rng.randint(0, length))
        role = np.minimum(words // 100, 2) - 1            # -1 outside, 0 A0, 1 A1
        tags = []
        for i in range(length):
            if i == pred:
                tags.append(2 * ROLES.index('V'))
            elif role[i] < 0:
                tags.append(OUTSIDE)
            else:
                begins = i == 0 or i - 1 == pred or role[i - 1] != role[i]
                tags.append(2 * int(role[i]) + (0 if begins else 1))
        ctx = [int(words[min(max(pred + d, 0), length - 1)]) for d in (-2, -1, 0, 1, 2)]
        mark = [1 if abs(i - pred) <= 2 else 0 for i in range(length)]
        verb = int(words[pred]) % PREDICATES
        samples.append([words.tolist(), [verb] * length] + [[c] * length for c in ctx] + [mark, tags])
    return samples


def db_encoder(hidden, size: int, depth: int, encoder: str):
    """The book's stack: dynamic_lstm layers in alternating directions, each fed by fcs of the layer below (lstm);
    or sequence_conv layers over windows of 3 words (conv)."""
    if encoder == 'conv':
        for _ in range(depth):
            hidden = fluid.layers.sequence_conv(input=hidden, num_filters=size, filter_size=3, act='relu')
        return [hidden]
    lstm = fluid.layers.dynamic_lstm(input=hidden, size=size, candidate_activation='relu',
                                     gate_activation='sigmoid', cell_activation='sigmoid')[0]
    stack = [hidden, lstm]
    for i in range(1, depth):
        mix = fluid.layers.sums(input=[fluid.layers.fc(input=stack[0], size=size),
                                       fluid.layers.fc(input=stack[1], size=size)])
        lstm = fluid.layers.dynamic_lstm(input=mix, size=size, candidate_activation='relu',
                                         gate_activation='sigmoid', cell_activation='sigmoid',
                                         is_reverse=(i % 2) == 1)[0]
        stack = [mix, lstm]
    return stack


def db_model(inputs: dict, word_dim: int = 16, mark_dim: int = 5, hidden_dim: int = 32, depth: int = 2,
             encoder: str = 'conv'):
    """The book's db_lstm: embeddings of every feature, summed fcs, the encoder, per-word tag scores."""
    predicate_emb = fluid.layers.embedding(input=inputs['verb'], size=[PREDICATES, word_dim], dtype='float32',
                                           is_sparse=True, param_attr='vemb')
    mark_emb = fluid.layers.embedding(input=inputs['mark'], size=[MARKS, mark_dim], dtype='float32',
                                      is_sparse=True)
    word_inputs = [inputs[name] for name in ('word', 'ctx_n2', 'ctx_n1', 'ctx_0', 'ctx_p1', 'ctx_p2')]
    emb_layers = [fluid.layers.embedding(size=[WORDS, word_dim], input=x, is_sparse=True,
                                         param_attr=fluid.ParamAttr(name='emb')) for x in word_inputs]
    emb_layers += [predicate_emb, mark_emb]
    hidden_0 = fluid.layers.sums(input=[fluid.layers.fc(input=emb, size=hidden_dim, act='relu')
                                        for emb in emb_layers])
    size = hidden_dim if encoder == 'conv' else hidden_dim * 4
    stack = db_encoder(hidden_0, size, depth, encoder)
    return fluid.layers.sums(input=[fluid.layers.fc(input=layer, size=LABELS) for layer in stack])


def build_program(seed: int = 1, learning_rate: float = 0.01, encoder: str = 'conv'):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        inputs = {name: fluid.layers.data(name=name, shape=[1], dtype='int64', lod_level=1) for name in FEATURES}
        target = fluid.layers.data(name='target', shape=[1], dtype='int64', lod_level=1)
        feature_out = db_model(inputs, encoder=encoder)
        crf_cost = fluid.layers.linear_chain_crf(input=feature_out, label=target,
                                                 param_attr=fluid.ParamAttr(name='crfw', learning_rate=1.0))
        avg_cost = fluid.layers.mean(crf_cost)
        crf_decode = fluid.layers.crf_decoding(input=feature_out, param_attr=fluid.ParamAttr(name='crfw'))
        chunks = fluid.layers.chunk_eval(input=crf_decode, label=target, chunk_scheme='IOB',
                                         num_chunk_types=len(ROLES))
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=learning_rate).minimize(avg_cost)
    feed_list = [inputs[name] for name in FEATURES] + [target]
    return main, startup, test_program, avg_cost, chunks, feed_list


def train(steps: int = 60, batch_size: int = 16, log_every: int = 10, seed: int = 0, encoder: str = 'conv') -> list:
    main, startup, test_program, avg_cost, chunks, feed_list = build_program(encoder=encoder)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feeder = fluid.DataFeeder(feed_list=feed_list, place=fluid.CPUPlace(), program=main)
    losses = []
    for step in range(steps):
        loss, = exe.run(main, feed=feeder.feed(sentences(batch_size, seed + 1 + step)), fetch_list=[avg_cost])
        losses.append(loss.item())
        if step % log_every == 0 or step == steps - 1:
            print('step %4d  train loss %.4f' % (step, losses[-1]))
    evaluator = fluid.metrics.ChunkEvaluator()
    test_losses = []
    for batch in range(4):
        feed = feeder.feed(sentences(50, 10 ** 6 + seed * 10 + batch))
        loss, n_infer, n_label, n_correct = exe.run(test_program, feed=feed, fetch_list=[avg_cost] + list(chunks[3:]))
        test_losses.append(loss.item())
        evaluator.update(n_infer, n_label, n_correct)
    precision, recall, f1 = (float(np.ravel(v)[0]) for v in evaluator.eval())   # [1] arrays from fetched counts
    print('test loss %.4f  precision %.3f  recall %.3f  f1 %.3f'
          % (float(np.mean(test_losses)), precision, recall, f1))
    return losses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=60, help='training steps (mini-batches of 16 sentences)')
    parser.add_argument('--log-every', type=int, default=None, help='print the loss every N steps')
    parser.add_argument('--encoder', choices=('conv', 'lstm'), default='conv',
                        help="the book's dynamic_lstm stack, or sequence_conv layers")
    args = parser.parse_args(argv)
    train(args.steps, log_every=args.log_every or max(1, args.steps // 10), encoder=args.encoder)


if __name__ == '__main__':
    main()
