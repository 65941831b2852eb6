"""lod_crf_exe (tests/golden/cases: the book's label_semantic_roles in small) with its dynamic_lstm replaced by an
fc with tanh of the same hidden size, so that linear_chain_crf (trained through, the transition parameter 'crfw'
updated by SGD) and crf_decoding sharing 'crfw' (its tags fetched as a LoD tensor) are checked before the
recurrent ops exist. Two more fetches: chunk_eval of the decoded tags (IOB, 2 chunk types) and the edit distance
of the decoded tags to the labels. Format of tests/golden/cases (run_case.py); numbers recorded with Paddle 1.8.5."""
API = "fluid"
CPU_NUM = 0
STEPS = 4
RETURN_NUMPY = False  # the decoded tags are a LoD tensor
VOCAB, DIM, HID, TAGS = 70, 8, 6, 5


def build(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    words = L.data(name='words', shape=[1], dtype='int64', lod_level=1)
    tags = L.data(name='tags', shape=[1], dtype='int64', lod_level=1)
    emb = L.embedding(words, size=[VOCAB, DIM])
    hidden = L.fc(input=L.fc(input=emb, size=HID * 4), size=HID, act='tanh')
    emission = L.fc(input=[emb, hidden], size=TAGS)
    crf_cost = L.linear_chain_crf(input=emission, label=tags, param_attr=fluid.ParamAttr(name='crfw'))
    loss = L.mean(crf_cost)
    fluid.optimizer.SGD(learning_rate=0.05).minimize(loss)
    decoded = L.crf_decoding(input=emission, param_attr=fluid.ParamAttr(name='crfw'))
    precision, recall, f1, n_infer, n_label, n_correct = L.chunk_eval(decoded, tags, chunk_scheme='IOB',
                                                                      num_chunk_types=2)
    distance, _ = L.edit_distance(decoded, tags, normalized=True)
    feeds = []
    for _ in range(STEPS):
        lengths = [int(n) for n in rng.randint(2, 8, 4)]
        n = sum(lengths)
        feeds.append({'words': fluid.create_lod_tensor(rng.randint(0, VOCAB, (n, 1)).astype('int64'), [lengths],
                                                       fluid.CPUPlace()),
                      'tags': fluid.create_lod_tensor(rng.randint(0, TAGS, (n, 1)).astype('int64'), [lengths],
                                                      fluid.CPUPlace())})
    return {'loss': loss, 'fetch': [loss, crf_cost, decoded, f1, n_infer, n_correct, distance], 'feeds': feeds}
