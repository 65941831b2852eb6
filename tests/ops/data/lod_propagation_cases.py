"""Ops other than the sequence ops, each fed a lod_level=1 input with LoD [[2, 3]] (5 rows): what LoD its output
carries at run time and which lod_level it has at build time. Recorded with Paddle 1.8.5 by
record_lod_propagation.py (lod_propagation_pd18.json), replayed by tests/ops/test_lod_propagation.py.

`cases(fluid)` -> name -> build(x, x3, ids, y, lab) -> output Variable or list of them; the inputs are float32
x [5, 4], x3 [5, 2, 4], y [5, 4] (LoD [[1, 4]]), int64 ids and lab [5, 1], all lod_level 1.
"""
import numpy as np


def cases(fluid) -> dict:
    L = fluid.layers
    CASES = {}

    def case(name, build):
        CASES[name] = build

    case('relu', lambda x, **k: L.relu(x))
    case('sigmoid', lambda x, **k: L.sigmoid(x))
    case('tanh', lambda x, **k: L.tanh(x))
    case('softmax', lambda x, **k: L.softmax(x))
    case('scale', lambda x, **k: L.scale(x, 2.0))
    case('cast', lambda x, **k: L.cast(x, 'float64'))
    case('dropout', lambda x, **k: L.dropout(x, 0.5, is_test=True))
    case('dropout_train', lambda x, **k: L.dropout(x, 0.5))
    case('elementwise_add_xy', lambda x, y, **k: L.elementwise_add(x, y))
    case('elementwise_add_yx', lambda x, y, **k: L.elementwise_add(y, x))
    case('elementwise_mul_axis0', lambda x, **k: L.elementwise_mul(x, L.reduce_sum(x, dim=1), axis=0))
    case('elementwise_sub', lambda x, y, **k: L.elementwise_sub(x, y))
    case('mul', lambda x, **k: L.mul(x, L.create_parameter([4, 3], 'float32')))
    case('fc', lambda x, **k: L.fc(x, 3))
    case('fc_act', lambda x, **k: L.fc(x, 3, act='relu'))
    case('fc_nfd2', lambda x3, **k: L.fc(x3, 3, num_flatten_dims=2))
    case('fc_multi', lambda x, y, **k: L.fc([x, y], 3))
    case('matmul', lambda x, **k: L.matmul(x, L.create_parameter([4, 3], 'float32')))
    case('embedding', lambda ids, **k: L.embedding(ids, size=[10, 3]))
    case('embedding_pad', lambda ids, **k: L.embedding(ids, size=[10, 3], padding_idx=0))
    case('mean', lambda x, **k: L.mean(x))
    case('reduce_sum_all', lambda x, **k: L.reduce_sum(x))
    case('reduce_sum_1', lambda x, **k: L.reduce_sum(x, dim=1))
    case('reduce_sum_1_keep', lambda x, **k: L.reduce_sum(x, dim=1, keep_dim=True))
    case('reduce_sum_0', lambda x, **k: L.reduce_sum(x, dim=0))
    case('reduce_mean_1', lambda x, **k: L.reduce_mean(x, dim=1))
    case('reduce_max_1', lambda x, **k: L.reduce_max(x, dim=-1))
    case('concat1', lambda x, y, **k: L.concat([x, y], axis=1))
    case('concat0', lambda x, y, **k: L.concat([x, y], axis=0))
    case('sum', lambda x, y, **k: L.sums([x, y]))
    case('sum_yx', lambda x, y, **k: L.sums([y, x]))
    case('cross_entropy', lambda x, lab, **k: L.cross_entropy(L.softmax(x), lab))
    case('softmax_with_ce', lambda x, lab, **k: list(L.softmax_with_cross_entropy(x, lab, return_softmax=True)))
    case('square_error_cost', lambda x, y, **k: L.square_error_cost(x, y))
    case('sigmoid_ce', lambda x, y, **k: L.sigmoid_cross_entropy_with_logits(x, y))
    case('reshape_keep0', lambda x, **k: L.reshape(x, [-1, 2, 2]))
    case('reshape_change0', lambda x, **k: L.reshape(x, [-1, 2]))
    case('reshape_0', lambda x, **k: L.reshape(x, [0, 2, 2]))
    case('transpose', lambda x, **k: L.transpose(x, [1, 0]))
    case('transpose3', lambda x3, **k: L.transpose(x3, [0, 2, 1]))
    case('unsqueeze', lambda x, **k: L.unsqueeze(x, [1]))
    case('unsqueeze0', lambda x, **k: L.unsqueeze(x, [0]))
    case('squeeze', lambda x, **k: L.squeeze(L.unsqueeze(x, [2]), [2]))
    case('flatten', lambda x3, **k: L.flatten(x3, axis=1))
    case('split', lambda x, **k: L.split(x, 2, dim=1))
    case('split0', lambda x, **k: L.split(x, [2, 3], dim=0))
    case('slice1', lambda x, **k: L.slice(x, axes=[1], starts=[0], ends=[2]))
    case('slice0', lambda x, **k: L.slice(x, axes=[0], starts=[0], ends=[2]))
    case('gather', lambda x, **k: L.gather(x, L.assign(np.array([0, 1], 'int32'))))
    case('topk', lambda x, **k: list(L.topk(x, 2)))
    case('argmax', lambda x, **k: L.argmax(x, axis=1))
    case('one_hot', lambda lab, **k: L.one_hot(lab, 4))
    case('accuracy', lambda x, lab, **k: L.accuracy(L.softmax(x), lab))
    case('shape', lambda x, **k: L.shape(x))
    case('fill_constant_bsl', lambda x, **k: L.fill_constant_batch_size_like(x, [1, 3], 'float32', 1.0))
    case('zeros_like', lambda x, **k: L.zeros_like(x))
    case('assign', lambda x, **k: L.assign(x))
    case('layer_norm', lambda x, **k: L.layer_norm(x))
    case('batch_norm', lambda x, **k: L.batch_norm(x))
    case('clip', lambda x, **k: L.clip(x, 0.1, 0.9))
    case('pow', lambda x, **k: L.pow(x, 2.0))
    case('stack', lambda x, y, **k: L.stack([x, y], axis=1))
    case('expand', lambda x, **k: L.expand(x, [1, 2]))
    case('label_smooth', lambda x, **k: L.label_smooth(L.softmax(x), epsilon=0.1))
    case('l2_normalize', lambda x, **k: L.l2_normalize(x, axis=1))
    case('hsigmoid_like_log', lambda x, **k: L.log(x))
    case('prelu', lambda x, **k: L.prelu(x, 'all'))
    case('where', lambda x, y, **k: L.elementwise_max(x, y))
    case('equal', lambda x, y, **k: L.cast(L.equal(x, y), 'float32'))
    case('less_than', lambda x, y, **k: L.cast(L.less_than(x, y), 'float32'))
    case('increment', lambda x, **k: L.increment(L.reduce_sum(x), 1.0, in_place=False))
    case('lod_reset_y', lambda x, y, **k: L.lod_reset(x, y))
    case('lod_reset_target', lambda x, **k: L.lod_reset(x, target_lod=[0, 4, 5]))
    case('log_loss', lambda x, y, **k: L.log_loss(L.sigmoid(L.reduce_sum(x, dim=1, keep_dim=True)),
                                                  L.reduce_sum(y, dim=1, keep_dim=True)))
    case('smooth_l1', lambda x, y, **k: L.smooth_l1(x, y))
    case('huber_loss', lambda x, y, **k: L.huber_loss(x, y, 1.0))
    case('kldiv', lambda x, y, **k: L.kldiv_loss(x, y))
    case('cumsum', lambda x, **k: L.cumsum(x, axis=1))
    case('pad', lambda x, **k: L.pad(x, [0, 0, 1, 1]))
    case('maxout_like_abs', lambda x, **k: L.abs(x))
    case('argsort', lambda x, **k: list(L.argsort(x, axis=1)))
    case('bce_like_sigmoid_focal', lambda x, **k: L.hard_sigmoid(x))
    case('sequence_pool_sum', lambda x, **k: L.sequence_pool(x, 'sum'))
    case('sequence_softmax', lambda x, **k: L.sequence_softmax(L.reduce_sum(x, dim=1, keep_dim=True)))
    return CASES


def feed(fluid):
    place = fluid.CPUPlace()
    rng = np.random.RandomState(0)
    return {'x': fluid.create_lod_tensor(rng.rand(5, 4).astype('float32') + 0.5, [[2, 3]], place),
            'x3': fluid.create_lod_tensor(rng.rand(5, 2, 4).astype('float32'), [[2, 3]], place),
            'ids': fluid.create_lod_tensor(rng.randint(0, 4, (5, 1)).astype('int64'), [[2, 3]], place),
            'y': fluid.create_lod_tensor(rng.rand(5, 4).astype('float32'), [[1, 4]], place),
            'lab': fluid.create_lod_tensor(rng.randint(0, 4, (5, 1)).astype('int64'), [[2, 3]], place)}


def run_case(fluid, build):
    """[(run-time LoD as lengths, compile-time lod_level, shape)] per output of the case."""
    L = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = L.data(name='x', shape=[4], dtype='float32', lod_level=1)
        x3 = L.data(name='x3', shape=[2, 4], dtype='float32', lod_level=1)
        ids = L.data(name='ids', shape=[1], dtype='int64', lod_level=1)
        y = L.data(name='y', shape=[4], dtype='float32', lod_level=1)
        lab = L.data(name='lab', shape=[1], dtype='int64', lod_level=1)
        outs = build(x=x, x3=x3, ids=ids, y=y, lab=lab)
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        res = exe.run(main, feed=feed(fluid), fetch_list=outs, return_numpy=False)
    return [[r.recursive_sequence_lengths(), o.lod_level, list(np.array(r).shape)] for r, o in zip(res, outs)]
