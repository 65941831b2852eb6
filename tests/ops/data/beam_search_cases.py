"""A beam-search decoder as the Paddle book's machine_translation builds it (an LSTM encoder, a While loop over
tensor arrays of 2-level LoD ids / scores with beam_search, beam_search_decode after it), on fixed parameters, run
with either framework's fluid: recorded with Paddle 1.8.5 by record_beam_search.py (beam_search_pd18.json) and
replayed by tests/ops/test_beam_search.py.
"""
import numpy as np

END_IDS = (1, 23, 27)       # 1 never wins (no beam ends); 23 and 27 end beams at different steps


def run(fluid, end_id: int) -> dict:
    pd = fluid.layers
    dict_size, word_dim, hidden_dim, decoder_size, max_length, beam_size = 30, 8, 16, 16, 6, 3

    def encoder():
        src_word_id = pd.data(name="src_word_id", shape=[1], dtype='int64', lod_level=1)
        src_embedding = pd.embedding(input=src_word_id, size=[dict_size, word_dim], dtype='float32',
                                     param_attr=fluid.ParamAttr(name='vemb'))
        fc1 = pd.fc(input=src_embedding, size=hidden_dim * 4, act='tanh')
        lstm_hidden0, lstm_0 = pd.dynamic_lstm(input=fc1, size=hidden_dim * 4)
        encoder_out = pd.sequence_last_step(input=lstm_hidden0)
        return encoder_out

    def decode(context):
        init_state = context
        array_len = pd.fill_constant(shape=[1], dtype='int64', value=max_length)
        counter = pd.zeros(shape=[1], dtype='int64', force_cpu=True)
        state_array = pd.create_array('float32')
        pd.array_write(init_state, array=state_array, i=counter)
        ids_array = pd.create_array('int64')
        scores_array = pd.create_array('float32')
        init_ids = pd.data(name="init_ids", shape=[1], dtype="int64", lod_level=2)
        init_scores = pd.data(name="init_scores", shape=[1], dtype="float32", lod_level=2)
        pd.array_write(init_ids, array=ids_array, i=counter)
        pd.array_write(init_scores, array=scores_array, i=counter)
        cond = pd.less_than(x=counter, y=array_len)
        while_op = pd.While(cond=cond)
        with while_op.block():
            pre_ids = pd.array_read(array=ids_array, i=counter)
            pre_state = pd.array_read(array=state_array, i=counter)
            pre_score = pd.array_read(array=scores_array, i=counter)
            pre_state_expanded = pd.sequence_expand(pre_state, pre_score)
            pre_ids_emb = pd.embedding(input=pre_ids, size=[dict_size, word_dim], dtype='float32',
                                       param_attr=fluid.ParamAttr(name='temb'))
            current_state = pd.fc(input=[pre_state_expanded, pre_ids_emb], size=decoder_size, act='tanh')
            current_state_with_lod = pd.lod_reset(x=current_state, y=pre_score)
            current_score = pd.fc(input=current_state_with_lod, size=dict_size, act='softmax')
            topk_scores, topk_indices = pd.topk(current_score, k=beam_size)
            accu_scores = pd.elementwise_add(x=pd.log(topk_scores), y=pd.reshape(pre_score, shape=[-1]), axis=0)
            selected_ids, selected_scores = pd.beam_search(pre_ids, pre_score, topk_indices, accu_scores, beam_size,
                                                           end_id=end_id, level=0)
            pd.increment(x=counter, value=1, in_place=True)
            pd.array_write(current_state, array=state_array, i=counter)
            pd.array_write(selected_ids, array=ids_array, i=counter)
            pd.array_write(selected_scores, array=scores_array, i=counter)
            length_cond = pd.less_than(x=counter, y=array_len)
            finish_cond = pd.logical_not(pd.is_empty(x=selected_ids))
            pd.logical_and(x=length_cond, y=finish_cond, out=cond)
        translation_ids, translation_scores = pd.beam_search_decode(ids=ids_array, scores=scores_array,
                                                                    beam_size=beam_size, end_id=end_id)
        return translation_ids, translation_scores

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids, scores = decode(encoder())
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    place = fluid.CPUPlace()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for k, p in enumerate(sorted(v.name for v in main.global_block().all_parameters())):
            shape = np.array(scope.find_var(p).get_tensor()).shape
            value = (np.random.RandomState(k).rand(*shape) * 2 - 1).astype('float32') * 1.5
            scope.find_var(p).get_tensor().set(value, place)
        src = np.random.RandomState(7).randint(2, dict_size, (9, 1)).astype('int64')
        n = 3
        feed = {'src_word_id': fluid.create_lod_tensor(src, [[3, 2, 4]], place),
                'init_ids': fluid.create_lod_tensor(np.zeros((n, 1), 'int64'), [[1] * n, [1] * n], place),
                'init_scores': fluid.create_lod_tensor(np.ones((n, 1), 'float32'), [[1] * n, [1] * n], place)}
        r_ids, r_scores = exe.run(main, feed=feed, fetch_list=[ids, scores], return_numpy=False)
    return {'ids': np.array(r_ids).reshape(-1).tolist(), 'lod': r_ids.recursive_sequence_lengths(),
            'scores_lod': r_scores.recursive_sequence_lengths(),
            'scores': np.array(r_scores).reshape(-1).tolist()}


def run_dynamic_decode(fluid, is_test: bool) -> dict:
    """fluid.layers.rnn's BeamSearchDecoder over a GRUCell (embedding and output fc named), dynamic_decode with
    max_step_num 6, beam 3, on fixed parameters: the predicted ids, the final log-probs and lengths."""
    L = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        enc = fluid.data('enc', [-1, 6], 'float32')
        cell = L.GRUCell(hidden_size=6)

        def embedding(ids):
            return fluid.embedding(ids, size=[12, 5], param_attr=fluid.ParamAttr(name='emb'))

        def output(h):
            return L.fc(h, size=12, num_flatten_dims=len(h.shape) - 1, param_attr=fluid.ParamAttr(name='ow'),
                        bias_attr=fluid.ParamAttr(name='ob'))
        decoder = L.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3, embedding_fn=embedding,
                                      output_fn=output)
        outputs, states = L.dynamic_decode(decoder, inits=enc, max_step_num=6, is_test=is_test)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for k, p in enumerate(sorted(v.name for v in main.global_block().all_parameters())):
            shape = np.array(scope.find_var(p).get_tensor()).shape
            value = (np.random.RandomState(k).rand(*shape) * 2 - 1).astype('float32') * 2
            scope.find_var(p).get_tensor().set(value, fluid.CPUPlace())
        enc_v = (np.random.RandomState(9).rand(2, 6) * 2 - 1).astype('float32')
        ids, log_probs, lengths = exe.run(main, feed={'enc': enc_v},
                                          fetch_list=[outputs, states.log_probs, states.lengths])
    return {'ids': np.asarray(ids).tolist(), 'log_probs': np.asarray(log_probs).tolist(),
            'lengths': np.asarray(lengths).tolist()}


def run_basic_decoder(fluid, helper_kind: str) -> dict:
    """fluid.layers.rnn's BasicDecoder over a GRUCell with a TrainingHelper (teacher forcing; the loss
    differentiated through the While) or a GreedyEmbeddingHelper, on fixed parameters."""
    L = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        enc = fluid.data('enc', [-1, 6], 'float32')
        cell = L.GRUCell(hidden_size=6)

        def embedding(ids):
            return fluid.embedding(ids, size=[12, 5], param_attr=fluid.ParamAttr(name='emb'))

        def output(h):
            return L.fc(h, size=12, num_flatten_dims=len(h.shape) - 1, param_attr=fluid.ParamAttr(name='ow'),
                        bias_attr=fluid.ParamAttr(name='ob'))
        fetch = []
        if helper_kind == 'training':
            trg = fluid.data('trg', [-1, 4], 'int64')
            lengths = fluid.data('lengths', [-1], 'int64')
            helper = L.TrainingHelper(embedding(trg), lengths)
            decoder = L.BasicDecoder(cell, helper, output_fn=output)
            outputs, _, seq_lens = L.dynamic_decode(decoder, inits=enc, return_length=True)
            loss = L.reduce_mean(outputs.cell_outputs * outputs.cell_outputs)
            grads = fluid.backward.gradients([loss], [main.global_block().var(n) for n in ('ow', 'emb')])
            fetch = [outputs.cell_outputs, outputs.sample_ids, seq_lens] + grads
        else:
            start = fluid.data('start', [-1], 'int64')
            helper = L.GreedyEmbeddingHelper(embedding, start, end_token=1)
            decoder = L.BasicDecoder(cell, helper, output_fn=output)
            outputs, _ = L.dynamic_decode(decoder, inits=enc, max_step_num=5, is_test=True)
            fetch = [outputs.cell_outputs, outputs.sample_ids]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for k, p in enumerate(sorted(v.name for v in main.global_block().all_parameters())):
            shape = np.array(scope.find_var(p).get_tensor()).shape
            value = (np.random.RandomState(k).rand(*shape) * 2 - 1).astype('float32')
            scope.find_var(p).get_tensor().set(value, fluid.CPUPlace())
        feed = {'enc': (np.random.RandomState(9).rand(2, 6) * 2 - 1).astype('float32'),
                'trg': np.array([[0, 3, 4, 5], [0, 7, 2, 2]], 'int64'), 'lengths': np.array([4, 2], 'int64'),
                'start': np.array([0, 0], 'int64')}
        if helper_kind != 'training':
            feed = {k: feed[k] for k in ('enc', 'start')}
        res = exe.run(main, feed=feed, fetch_list=fetch)
    return {'values': [np.asarray(r).tolist() for r in res]}



def run_contrib_decoder(fluid, mode: str) -> dict:
    """fluid.contrib.decoder: a StateCell (state h from the encoder's last step, updated by an fc over h and the
    word) in a TrainingDecoder (mode 'train': the costs and gradients) or a BeamSearchDecoder ('decode')."""
    L = fluid.layers
    dec = fluid.contrib.decoder
    dict_size, word_dim, hidden = 20, 6, 8
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        src = L.data(name='src', shape=[1], dtype='int64', lod_level=1)
        emb = L.embedding(src, size=[dict_size, word_dim], param_attr=fluid.ParamAttr(name='src_emb'))
        context = L.sequence_last_step(L.fc(emb, size=hidden, act='tanh', param_attr=fluid.ParamAttr(name='enc_w'),
                                            bias_attr=fluid.ParamAttr(name='enc_b')))
        state_cell = dec.StateCell(inputs={'x': None}, states={'h': dec.InitState(init=context, need_reorder=True)},
                                   out_state='h')

        @state_cell.state_updater
        def updater(cell):
            h = cell.get_state('h')
            x = cell.get_input('x')
            cell.set_state('h', L.fc([x, h], size=hidden, act='tanh',
                                     param_attr=[fluid.ParamAttr(name='ux'), fluid.ParamAttr(name='uh')],
                                     bias_attr=fluid.ParamAttr(name='ub')))
        if mode == 'train':
            trg = L.data(name='trg', shape=[1], dtype='int64', lod_level=1)
            label = L.data(name='label', shape=[1], dtype='int64', lod_level=1)
            trg_emb = L.embedding(trg, size=[dict_size, word_dim], param_attr=fluid.ParamAttr(name='trg_emb'))
            decoder = dec.TrainingDecoder(state_cell)
            with decoder.block():
                current_word = decoder.step_input(trg_emb)
                decoder.state_cell.compute_state(inputs={'x': current_word})
                score = L.fc(decoder.state_cell.get_state('h'), size=dict_size, act='softmax',
                             param_attr=fluid.ParamAttr(name='out_w'), bias_attr=fluid.ParamAttr(name='out_b'))
                decoder.state_cell.update_states()
                decoder.output(score)
            cost = L.mean(L.cross_entropy(decoder(), label))
            grads = fluid.backward.gradients([cost], [main.global_block().var(n)
                                                      for n in ('uh', 'enc_w', 'trg_emb', 'out_w')])
            fetch = [cost] + grads
        else:
            init_ids = L.data(name='init_ids', shape=[1], dtype='int64', lod_level=2)
            init_scores = L.data(name='init_scores', shape=[1], dtype='float32', lod_level=2)
            decoder = dec.BeamSearchDecoder(state_cell, init_ids, init_scores, target_dict_dim=dict_size,
                                            word_dim=word_dim, topk_size=4, sparse_emb=False, max_len=5,
                                            beam_size=2, end_id=1)
            decoder.decode()
            ids, scores = decoder()
            fetch = [ids, scores]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    place = fluid.CPUPlace()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for k, p in enumerate(sorted(v.name for v in main.global_block().all_parameters())):
            shape = np.array(scope.find_var(p).get_tensor()).shape
            value = (np.random.RandomState(k).rand(*shape) * 2 - 1).astype('float32')
            scope.find_var(p).get_tensor().set(value, place)
        src_v = np.random.RandomState(3).randint(2, dict_size, (7, 1)).astype('int64')
        feed = {'src': fluid.create_lod_tensor(src_v, [[3, 4]], place)}
        if mode == 'train':
            trg_v = np.random.RandomState(4).randint(2, dict_size, (5, 1)).astype('int64')
            feed['trg'] = fluid.create_lod_tensor(trg_v, [[2, 3]], place)
            feed['label'] = fluid.create_lod_tensor((trg_v + 1) % dict_size, [[2, 3]], place)
        else:
            feed['init_ids'] = fluid.create_lod_tensor(np.zeros((2, 1), 'int64'), [[1, 1], [1, 1]], place)
            feed['init_scores'] = fluid.create_lod_tensor(np.ones((2, 1), 'float32'), [[1, 1], [1, 1]], place)
        res = exe.run(main, feed=feed, fetch_list=fetch, return_numpy=False)
    out = {'values': [np.array(r).tolist() for r in res]}
    if mode != 'train':
        out['lod'] = res[0].recursive_sequence_lengths()
    return out
