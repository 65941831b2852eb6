"""Sequence-to-sequence translation as in the Paddle book's machine_translation, in the fluid 1.x API, on
paddle_exec: training with a DynamicRNN decoder, decoding with beam search.

The encoder embeds the source words (a LoD tensor, one sequence per sentence), runs an fc + dynamic_lstm over them
and keeps the last step as the context. Training: a DynamicRNN over the target words whose memory starts from the
context (need_reorder: the sentences run longest first), an fc + tanh step and a softmax over the target
vocabulary, cross-entropy against the next target word, Adam. Decoding: a While loop over tensor arrays that
expands the state to each beam (sequence_expand), scores the next word, keeps the best `beam_size` hypotheses of
each sentence (topk, beam_search) until all have ended or the length limit is reached, and backtraces them
(beam_search_decode). The decoder's parameters are named, so the decoding program uses the trained ones.

The sentences are synthetic: a source is a run of consecutive word ids, its target the same run shifted by one in
the vocabulary, wrapped in start / end marks, so there is something to learn and nothing is downloaded.

    python examples/machine_translation.py --steps 100
"""
from __future__ import annotations

import argparse

import numpy as np

import paddle_exec.fluid as fluid  # instead of: import paddle.fluid as fluid

pd = fluid.layers

# Op types the programs use (forward, backward, optimizer, startup); tests/test_examples.py skips this example
# while any of them has no kernel yet.
REQUIRED_OPS = (
    'lookup_table', 'mul', 'elementwise_add', 'tanh', 'lstm', 'sequence_pool', 'fill_constant', 'lod_rank_table',
    'max_sequence_len', 'less_than', 'lod_tensor_to_array', 'reorder_lod_tensor_by_rank', 'write_to_array',
    'create_array', 'while', 'array_to_lod_tensor', 'cross_entropy2', 'mean', 'mean_grad', 'cross_entropy_grad2',
    'fill_zeros_like', 'while_grad', 'read_from_array', 'reorder_lod_tensor_by_rank_grad', 'lookup_table_grad',
    'sequence_pool_grad', 'lstm_grad', 'tanh_grad', 'elementwise_add_grad', 'mul_grad', 'adam', 'shrink_rnn_memory',
    'sum', 'softmax', 'increment', 'softmax_grad', 'scale', 'shrink_rnn_memory_grad', 'uniform_random',
    'beam_search_decode', 'sequence_expand', 'lod_reset', 'top_k', 'log', 'reshape2', 'beam_search', 'is_empty',
    'logical_not', 'logical_and')

DICT_SIZE, WORD_DIM, HIDDEN_DIM, DECODER_SIZE = 40, 16, 32, 32
START, END = 0, 1
BEAM_SIZE, MAX_LENGTH = 3, 10


def sentences(n: int, seed: int) -> list:
    """n (source, target, next target) samples: a source is a run of consecutive words; target = [START] +
    shifted source, next target = shifted + [END]."""
    rng = np.random.RandomState(seed)
    samples = []
    for _ in range(n):
        length = int(rng.randint(3, 8))
        src = np.arange(length) + int(rng.randint(2, DICT_SIZE - length))
        shifted = src + 1
        samples.append((src.tolist(), [START] + shifted.tolist(), shifted.tolist() + [END]))
    return samples


def encoder():
    src_word_id = pd.data(name='src_word_id', shape=[1], dtype='int64', lod_level=1)
    src_embedding = pd.embedding(input=src_word_id, size=[DICT_SIZE, WORD_DIM], dtype='float32',
                                 param_attr=fluid.ParamAttr(name='src_emb'))
    fc1 = pd.fc(input=src_embedding, size=HIDDEN_DIM * 4, act='tanh', param_attr=fluid.ParamAttr(name='enc_fc_w'),
                bias_attr=fluid.ParamAttr(name='enc_fc_b'))
    lstm_hidden0, lstm_0 = pd.dynamic_lstm(input=fc1, size=HIDDEN_DIM * 4,
                                           param_attr=fluid.ParamAttr(name='enc_lstm_w'),
                                           bias_attr=fluid.ParamAttr(name='enc_lstm_b'))
    return pd.sequence_last_step(input=lstm_hidden0)


def decoder_step(state, word_emb):
    """The decoder's step, shared by training and decoding through its parameter names."""
    current_state = pd.fc(input=[state, word_emb], size=DECODER_SIZE, act='tanh',
                          param_attr=[fluid.ParamAttr(name='dec_state_w'), fluid.ParamAttr(name='dec_word_w')],
                          bias_attr=fluid.ParamAttr(name='dec_b'))
    return current_state


def next_word_scores(current_state):
    return pd.fc(input=current_state, size=DICT_SIZE, act='softmax', param_attr=fluid.ParamAttr(name='out_w'),
                 bias_attr=fluid.ParamAttr(name='out_b'))


def target_embedding(word):
    return pd.embedding(input=word, size=[DICT_SIZE, WORD_DIM], dtype='float32',
                        param_attr=fluid.ParamAttr(name='trg_emb'))


def train_decoder(context):
    trg_language_word = pd.data(name='target_language_word', shape=[1], dtype='int64', lod_level=1)
    trg_embedding = target_embedding(trg_language_word)
    rnn = pd.DynamicRNN()
    with rnn.block():
        current_word = rnn.step_input(trg_embedding)
        pre_state = rnn.memory(init=context, need_reorder=True)
        current_state = decoder_step(pre_state, current_word)
        current_score = next_word_scores(current_state)
        rnn.update_memory(pre_state, current_state)
        rnn.output(current_score)
    return rnn()


def decode(context):
    array_len = pd.fill_constant(shape=[1], dtype='int64', value=MAX_LENGTH)
    counter = pd.zeros(shape=[1], dtype='int64', force_cpu=True)
    state_array = pd.create_array('float32')
    pd.array_write(context, array=state_array, i=counter)
    ids_array = pd.create_array('int64')
    scores_array = pd.create_array('float32')
    init_ids = pd.data(name='init_ids', shape=[1], dtype='int64', lod_level=2)
    init_scores = pd.data(name='init_scores', shape=[1], dtype='float32', lod_level=2)
    pd.array_write(init_ids, array=ids_array, i=counter)
    pd.array_write(init_scores, array=scores_array, i=counter)
    cond = pd.less_than(x=counter, y=array_len)
    while_op = pd.While(cond=cond)
    with while_op.block():
        pre_ids = pd.array_read(array=ids_array, i=counter)
        pre_state = pd.array_read(array=state_array, i=counter)
        pre_score = pd.array_read(array=scores_array, i=counter)
        # one state row per hypothesis: the state expanded like the scores' LoD
        pre_state_expanded = pd.sequence_expand(pre_state, pre_score)
        current_state = decoder_step(pre_state_expanded, target_embedding(pre_ids))
        current_state_with_lod = pd.lod_reset(x=current_state, y=pre_score)
        current_score = next_word_scores(current_state_with_lod)
        topk_scores, topk_indices = pd.topk(current_score, k=BEAM_SIZE)
        accu_scores = pd.elementwise_add(x=pd.log(topk_scores), y=pd.reshape(pre_score, shape=[-1]), axis=0)
        selected_ids, selected_scores = pd.beam_search(pre_ids, pre_score, topk_indices, accu_scores, BEAM_SIZE,
                                                       end_id=END, level=0)
        pd.increment(x=counter, value=1, in_place=True)
        pd.array_write(current_state, array=state_array, i=counter)
        pd.array_write(selected_ids, array=ids_array, i=counter)
        pd.array_write(selected_scores, array=scores_array, i=counter)
        length_cond = pd.less_than(x=counter, y=array_len)
        finish_cond = pd.logical_not(pd.is_empty(x=selected_ids))
        pd.logical_and(x=length_cond, y=finish_cond, out=cond)
    return pd.beam_search_decode(ids=ids_array, scores=scores_array, beam_size=BEAM_SIZE, end_id=END)


def build_program(seed: int = 1, learning_rate: float = 0.01):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        rnn_out = train_decoder(encoder())
        label = pd.data(name='target_language_next_word', shape=[1], dtype='int64', lod_level=1)
        avg_cost = pd.mean(pd.cross_entropy(input=rnn_out, label=label))
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=learning_rate).minimize(avg_cost)
    decode_program = fluid.Program()
    with fluid.program_guard(decode_program, fluid.Program()):
        translation_ids, translation_scores = decode(encoder())
    return main, startup, test_program, decode_program, avg_cost, translation_ids


def to_lod(seqs: list, place) -> fluid.LoDTensor:
    flat = np.array([w for s in seqs for w in s], 'int64').reshape(-1, 1)
    return fluid.create_lod_tensor(flat, [[len(s) for s in seqs]], place)


def feed_of(batch: list, place) -> dict:
    return {'src_word_id': to_lod([s for s, _, _ in batch], place),
            'target_language_word': to_lod([t for _, t, _ in batch], place),
            'target_language_next_word': to_lod([n for _, _, n in batch], place)}


def translate(exe, decode_program, translation_ids, sources: list, place) -> list:
    """The best hypothesis of each source sentence (without the start and end marks)."""
    n = len(sources)
    feed = {'src_word_id': to_lod(sources, place),
            'init_ids': fluid.create_lod_tensor(np.full((n, 1), START, 'int64'), [[1] * n, [1] * n], place),
            'init_scores': fluid.create_lod_tensor(np.ones((n, 1), 'float32'), [[1] * n, [1] * n], place)}
    ids, = exe.run(decode_program, feed=feed, fetch_list=[translation_ids], return_numpy=False)
    words = np.array(ids).reshape(-1)
    per_source, per_sentence = ids.lod()
    best = []
    for k in range(n):
        first = per_source[k]                   # hypotheses come best first
        sentence = words[per_sentence[first]:per_sentence[first + 1]].tolist()
        best.append([w for w in sentence if w not in (START, END)])
    return best


def train(steps: int = 100, batch_size: int = 16, log_every: int = 10, seed: int = 0) -> list:
    main, startup, test_program, decode_program, avg_cost, translation_ids = build_program()
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup)
    losses = []
    for step in range(steps):
        loss, = exe.run(main, feed=feed_of(sentences(batch_size, seed + 1 + step), place), fetch_list=[avg_cost])
        losses.append(loss.item())
        if step % log_every == 0 or step == steps - 1:
            print('step %4d  train loss %.4f' % (step, losses[-1]))
    test = sentences(64, seed)
    test_loss, = exe.run(test_program, feed=feed_of(test, place), fetch_list=[avg_cost])
    sources = [s for s, _, _ in test[:8]]
    best = translate(exe, decode_program, translation_ids, sources, place)
    correct = sum(b == (np.array(s) + 1).tolist() for s, b in zip(sources, best))
    print('test loss %.4f  exact translations %d/%d' % (test_loss.item(), correct, len(sources)))
    print('source %s -> %s' % (sources[0], best[0]))
    return losses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--steps', type=int, default=100, help='training steps (mini-batches of 16 sentences)')
    parser.add_argument('--log-every', type=int, default=None, help='print the loss every N steps')
    args = parser.parse_args(argv)
    train(args.steps, log_every=args.log_every or max(1, args.steps // 10))


if __name__ == '__main__':
    main()
