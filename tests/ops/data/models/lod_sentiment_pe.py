"""Text classification as in the book's understand_sentiment: LoD word ids, sparse embedding, two
sequence_conv_pool branches, softmax, Adagrad; the ParallelExecutor on 2 places (sequences split between them)."""
API = "fluid"
CPU_NUM = 2
STEPS = 4
VOCAB, DIM = 100, 16


def lod_ids(paddle, rng, lengths, vocab):
    fluid = paddle.fluid
    ids = rng.randint(0, vocab, (sum(lengths), 1)).astype('int64')
    return fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace())


def build(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
    label = L.data(name='label', shape=[1], dtype='int64')
    emb = L.embedding(words, size=[VOCAB, DIM], is_sparse=True)
    c3 = fluid.nets.sequence_conv_pool(input=emb, num_filters=8, filter_size=3, act='tanh', pool_type='sqrt')
    c4 = fluid.nets.sequence_conv_pool(input=emb, num_filters=8, filter_size=4, act='tanh', pool_type='max')
    pred = L.fc(input=[c3, c4], size=2, act='softmax')
    loss = L.mean(L.cross_entropy(input=pred, label=label))
    fluid.optimizer.Adagrad(learning_rate=0.05).minimize(loss)
    feeds = []
    for _ in range(STEPS):
        lengths = [int(n) for n in rng.randint(1, 9, 6)]
        feeds.append({'words': lod_ids(paddle, rng, lengths, VOCAB),
                      'label': rng.randint(0, 2, (6, 1)).astype('int64')})
    return {'loss': loss, 'fetch': [loss, pred], 'feeds': feeds}
