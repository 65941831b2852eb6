"""lod_gru_attention_exe (tests/golden/cases) with each dynamic_gru replaced by an fc with tanh, so that the sequence
ops it trains through (sequence_reverse, sequence_expand of a tensor without LoD, sequence_softmax, sequence_pool
sum and average, sequence_first_step, elementwise_mul with axis 0 on LoD rows) are checked before the recurrent
ops exist. Format of tests/golden/cases (run_case.py); numbers recorded with Paddle 1.8.5."""
API = "fluid"
CPU_NUM = 0
STEPS = 4
RETURN_NUMPY = False  # the attention weights are a LoD tensor
VOCAB, DIM, HID = 60, 6, 5


def build(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
    ctx = L.data(name='ctx', shape=[HID], dtype='float32')
    y = L.data(name='y', shape=[1], dtype='float32')
    emb = L.embedding(words, size=[VOCAB, DIM])
    states = L.fc(input=L.fc(input=emb, size=HID * 3), size=HID, act='tanh')
    back = L.fc(input=L.fc(input=L.sequence_reverse(emb), size=HID * 3), size=HID, act='tanh')
    ctx_seq = L.sequence_expand(x=ctx, y=states)
    score = L.fc(input=L.elementwise_add(states, ctx_seq), size=1, act='tanh')
    weights = L.sequence_softmax(score)
    attended = L.sequence_pool(L.elementwise_mul(states, weights, axis=0), 'sum')
    first = L.sequence_first_step(back)
    avg = L.sequence_pool(emb, 'average')
    pred = L.fc(input=L.concat([attended, first, avg], axis=1), size=1)
    loss = L.mean(L.square_error_cost(input=pred, label=y))
    fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    feeds = []
    for _ in range(STEPS):
        lengths = [int(n) for n in rng.randint(1, 7, 5)]
        ids = rng.randint(0, VOCAB, (sum(lengths), 1)).astype('int64')
        feeds.append({'words': fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace()),
                      'ctx': rng.randn(5, HID).astype('float32'),
                      'y': rng.randn(5, 1).astype('float32')})
    return {'loss': loss, 'fetch': [loss, pred, weights], 'feeds': feeds}
