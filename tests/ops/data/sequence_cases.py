"""The sequence-op cases recorded with Paddle 1.8.5 (record_sequence_ops.py) and replayed with paddle_exec
(tests/ops/test_sequence_ops.py): `cases(fluid)` builds the same table with either framework's fluid module.

A case is name -> (inputs {var: (array, LoD as recursive sequence lengths or None)}, build(vars) -> output Variable,
names of the inputs or parameters to differentiate).
"""
import numpy as np


def arr(shape, seed, dtype='float32', low=None, high=None):
    rng = np.random.RandomState(seed)
    if low is not None:
        return rng.randint(low, high, shape).astype(dtype)
    return (rng.rand(*shape) * 2 - 1).astype(dtype)


def cases(fluid) -> dict:
    L = fluid.layers
    CASES = {}

    def case(name, inputs, build, grads=()):
        CASES[name] = (inputs, build, grads)

    X73 = arr((7, 3), 1)
    for pool in ('sum', 'average', 'sqrt', 'max', 'first', 'last'):
        case('pool_' + pool, {'x': (X73, [[2, 1, 4]])}, lambda v, p=pool: L.sequence_pool(v['x'], p), ['x'])
        case('pool_empty_' + pool, {'x': (X73, [[2, 0, 5]])},
             lambda v, p=pool: L.sequence_pool(v['x'], p, pad_value=0.5), ['x'])
    case('pool_max_ties', {'x': (np.array([[1, 2], [1, 3], [0, 3]], 'float32'), [[3]])},
         lambda v: L.sequence_pool(v['x'], 'max'), ['x'])
    case('pool_lod2_sum', {'x': (arr((6, 2), 2), [[2, 1], [1, 2, 3]])}, lambda v: L.sequence_pool(v['x'], 'sum'), ['x'])
    case('pool_lod2_max', {'x': (arr((6, 2), 2), [[2, 1], [1, 2, 3]])}, lambda v: L.sequence_pool(v['x'], 'max'), ['x'])
    case('pool_3d_average', {'x': (arr((5, 2, 3), 3), [[2, 3]])}, lambda v: L.sequence_pool(v['x'], 'average'), ['x'])
    case('first_step', {'x': (X73, [[2, 1, 4]])}, lambda v: L.sequence_first_step(v['x']), ['x'])
    case('last_step', {'x': (X73, [[2, 1, 4]])}, lambda v: L.sequence_last_step(v['x']), ['x'])
    case('softmax', {'x': (arr((6, 1), 4), [[2, 3, 1]])}, lambda v: L.sequence_softmax(v['x']), ['x'])
    case('softmax_1d', {'x': (arr((6,), 4), [[2, 3, 1]])}, lambda v: L.sequence_softmax(v['x']), ['x'])
    case('softmax_lod2', {'x': (arr((6, 1), 5), [[1, 2], [2, 3, 1]])}, lambda v: L.sequence_softmax(v['x']), ['x'])
    case('conv_3', {'x': (arr((7, 3), 6), [[3, 4]])},
         lambda v: L.sequence_conv(v['x'], num_filters=2, filter_size=3, bias_attr=False), ['x', 'sequence_conv_0.w_0'])
    case('conv_4', {'x': (arr((7, 3), 7), [[2, 5]])},
         lambda v: L.sequence_conv(v['x'], num_filters=3, filter_size=4, bias_attr=False), ['x', 'sequence_conv_0.w_0'])
    case('conv_start0', {'x': (arr((6, 2), 8), [[1, 5]])},
         lambda v: L.sequence_conv(v['x'], num_filters=2, filter_size=2, padding_start=0, bias_attr=False),
         ['x', 'sequence_conv_0.w_0'])
    case('conv_bias_act', {'x': (arr((5, 2), 9), [[2, 3]])},
         lambda v: L.sequence_conv(v['x'], num_filters=2, filter_size=3, act='tanh'),
         ['x', 'sequence_conv_0.w_0', 'sequence_conv_0.b_0'])

    def conv_trainable(start, v):
        block = fluid.default_main_program().global_block()
        x = v['x']
        w = L.create_parameter([3 * 2, 2], 'float32', name='conv_w')
        pad = L.create_parameter([max(0, -start) + max(0, start + 2), 2], 'float32', name='conv_pad')
        out = block.create_var(name='conv_out', dtype='float32', shape=[-1, 2], lod_level=1)
        block.append_op(type='sequence_conv', inputs={'X': [x], 'Filter': [w], 'PaddingData': [pad]},
                        outputs={'Out': [out]},
                        attrs={'contextStart': start, 'contextLength': 3, 'contextStride': 1,
                               'paddingTrainable': True})
        return out

    for start in (-2, -1, 0, 1):
        case('conv_padding_trainable_start%d' % start, {'x': (arr((6, 2), 10), [[1, 5]])},
             lambda v, s=start: conv_trainable(s, v), ['x', 'conv_w', 'conv_pad'])
    case('expand_x_nolod', {'x': (arr((2, 3), 11), None), 'y': (arr((5, 1), 12), [[2, 3]])},
         lambda v: L.sequence_expand(v['x'], v['y']), ['x'])
    case('expand_x_lod', {'x': (arr((3, 2), 13), [[1, 2]]), 'y': (arr((4, 1), 14), [[2, 2]])},
         lambda v: L.sequence_expand(v['x'], v['y']), ['x'])
    case('expand_zero_repeat', {'x': (arr((3, 2), 13), [[1, 2]]), 'y': (arr((3, 1), 14), [[0, 3]])},
         lambda v: L.sequence_expand(v['x'], v['y']), ['x'])
    case('expand_ref0', {'x': (arr((4, 2), 15), [[1, 3]]), 'y': (arr((6, 1), 16), [[2, 1], [1, 2, 3]])},
         lambda v: L.sequence_expand(v['x'], v['y'], ref_level=0), ['x'])
    case('expand_ref1', {'x': (arr((3, 2), 17), None), 'y': (arr((6, 1), 16), [[2, 1], [1, 2, 3]])},
         lambda v: L.sequence_expand(v['x'], v['y'], ref_level=1), ['x'])
    case('expand_as', {'x': (arr((3, 2), 18), None), 'y': (arr((6, 1), 19), [[1, 3, 2]])},
         lambda v: L.sequence_expand_as(v['x'], v['y']), ['x'])
    case('expand_as_zero', {'x': (arr((3, 2), 18), None), 'y': (arr((4, 1), 19), [[1, 0, 3]])},
         lambda v: L.sequence_expand_as(v['x'], v['y']), ['x'])
    case('concat', {'a': (arr((3, 2), 20), [[1, 2]]), 'b': (arr((4, 2), 21), [[3, 1]])},
         lambda v: L.sequence_concat([v['a'], v['b']]), ['a', 'b'])
    case('concat3', {'a': (arr((3, 2), 20), [[1, 2]]), 'b': (arr((4, 2), 21), [[3, 1]]),
                     'c': (arr((2, 2), 22), [[0, 2]])},
         lambda v: L.sequence_concat([v['a'], v['b'], v['c']]), ['a', 'b', 'c'])
    case('reshape_3', {'x': (arr((4, 6), 23), [[1, 3]])}, lambda v: L.sequence_reshape(v['x'], 3), ['x'])
    case('reshape_12', {'x': (arr((4, 6), 24), [[2, 2]])}, lambda v: L.sequence_reshape(v['x'], 12), ['x'])
    case('pad', {'x': (arr((5, 2), 25), [[2, 3]])},
         lambda v: L.sequence_pad(v['x'], L.assign(np.array([0.5], 'float32'))), ['x'])
    case('pad_maxlen', {'x': (arr((5, 2), 25), [[2, 3]])},
         lambda v: L.sequence_pad(v['x'], L.assign(np.array([0.5], 'float32')), maxlen=4), ['x'])
    case('pad_3d_vec', {'x': (arr((4, 2, 2), 26), [[1, 0, 3]])},
         lambda v: L.sequence_pad(v['x'], L.assign(np.array([[1, 2], [3, 4]], 'float32'))), ['x'])
    case('pad_too_short', {'x': (arr((5, 2), 25), [[2, 3]])},
         lambda v: L.sequence_pad(v['x'], L.assign(np.array([0.5], 'float32')), maxlen=2), ['x'])
    case('unpad', {'x': (arr((3, 4, 2), 27), None), 'len': (np.array([2, 4, 1], 'int64'), None)},
         lambda v: L.sequence_unpad(v['x'], v['len']), ['x'])
    case('mask', {'x': (np.array([2, 0, 3], 'int64'), None)}, lambda v: L.sequence_mask(v['x']))
    case('mask_maxlen_f32', {'x': (np.array([[2, 0], [3, 1]], 'int64'), None)},
         lambda v: L.sequence_mask(v['x'], maxlen=4, dtype='float32'))
    case('reverse', {'x': (arr((6, 2), 28), [[2, 3, 1]])}, lambda v: L.sequence_reverse(v['x']), ['x'])
    case('reverse_lod2', {'x': (arr((6, 2), 29), [[1, 2], [2, 3, 1]])}, lambda v: L.sequence_reverse(v['x']), ['x'])
    case('slice', {'x': (arr((7, 2), 30), [[3, 4]]), 'off': (np.array([[1], [0]], 'int64'), None),
                   'len': (np.array([[2], [3]], 'int64'), None)},
         lambda v: L.sequence_slice(v['x'], v['off'], v['len']), ['x'])
    case('enumerate', {'x': (arr((6, 1), 31, 'int64', 0, 9), [[2, 4]])},
         lambda v: L.sequence_enumerate(v['x'], win_size=3, pad_value=9))

    def erase(v):
        block = fluid.default_main_program().global_block()
        out = block.create_var(name='erase_out', dtype='int64', shape=[-1, 1], lod_level=1)
        block.append_op(type='sequence_erase', inputs={'X': [v['x']]}, outputs={'Out': [out]},
                        attrs={'tokens': [2, 5]})
        return out

    case('erase', {'x': (np.array([[2], [1], [5], [2], [3], [5], [4], [2]], 'int64'), [[3, 5]])}, erase)
    case('erase_all', {'x': (np.array([[2], [5], [1]], 'int64'), [[2, 1]])}, erase)
    ids = np.array([[0], [5], [2], [1], [1], [4]], 'int64')
    case('scatter', {'x': (arr((3, 6), 32), None), 'ids': (ids, [[2, 1, 3]]), 'upd': (arr((6, 1), 33), [[2, 1, 3]])},
         lambda v: L.sequence_scatter(v['x'], v['ids'], v['upd']), ['x', 'upd'])
    case('lod_reset_y', {'x': (arr((5, 2), 34), [[2, 3]]), 'y': (arr((5, 1), 35), [[1, 4]])},
         lambda v: L.lod_reset(v['x'], v['y']), ['x'])
    case('lod_reset_y_data', {'x': (arr((5, 2), 34), [[2, 3]]), 'y': (np.array([0, 1, 5], 'int32'), None)},
         lambda v: L.lod_reset(v['x'], v['y']), ['x'])
    case('lod_reset_target', {'x': (arr((5, 2), 34), None)}, lambda v: L.lod_reset(v['x'], target_lod=[0, 4, 5]), ['x'])
    case('lod_append', {'x': (arr((5, 2), 36), [[2, 3]])}, lambda v: L.lod_append(v['x'], [0, 1, 2, 3, 4, 5]), ['x'])
    case('lod_append_nolod', {'x': (arr((5, 2), 36), None)}, lambda v: L.lod_append(v['x'], [0, 2, 5]), ['x'])
    return CASES


def data_var(fluid, name, value, lod):
    L = fluid.layers
    return L.data(name=name, shape=list(value.shape[1:]) or [1], dtype=str(value.dtype),
                  lod_level=len(lod) if lod else 0, append_batch_size=True) if value.ndim > 1 else \
        L.data(name=name, shape=[-1], dtype=str(value.dtype), lod_level=len(lod) if lod else 0,
               append_batch_size=False)


def feed_of(fluid, inputs):
    feed = {}
    for name, (value, lod) in inputs.items():
        t = fluid.LoDTensor()
        t.set(value, fluid.CPUPlace())
        if lod:
            t.set_recursive_sequence_lengths(lod)
        feed[name] = t
    return feed


def build(fluid, CASES, name, w_shape=None):
    L = fluid.layers
    inputs, builder, grads = CASES[name]
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        vs = {n: data_var(fluid, n, value, lod) for n, (value, lod) in inputs.items()}
        for n in grads:
            if n in vs:
                vs[n].stop_gradient = False
        out = builder(vs)
        fetch = [out]
        if isinstance(out, tuple):
            out, fetch = out[0], list(out)
        grad_vars = []
        if grads and w_shape is not None:
            w = L.data(name='proj_w', shape=list(w_shape), dtype='float32', append_batch_size=False)
            loss = L.reduce_sum(L.elementwise_mul(L.cast(out, 'float32'), w))
            grad_vars = fluid.backward.gradients([loss], [main.global_block().var(n) for n in grads])
    return main, startup, fetch, grad_vars


def run_case(fluid, CASES, name):
    """What the case computes with `fluid`: its inputs, parameters, outputs (values, shapes, LoD) and gradients."""
    place = fluid.CPUPlace()
    inputs, _, grads = CASES[name]
    main, startup, fetch, _ = build(fluid, CASES, name)
    exe = fluid.Executor(place)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        params = {}
        for p in sorted(v.name for v in main.global_block().all_parameters()):
            value = arr(np.array(scope.find_var(p).get_tensor()).shape, 100 + len(params))
            scope.find_var(p).get_tensor().set(value, place)
            params[p] = value
        res = exe.run(main, feed=feed_of(fluid, inputs), fetch_list=fetch, return_numpy=False)
    record = {'inputs': {n: {'value': v.tolist(), 'dtype': str(v.dtype), 'lod': lod}
                         for n, (v, lod) in inputs.items()},
              'params': {n: v.tolist() for n, v in params.items()},
              'outputs': [{'value': np.array(r).tolist(), 'shape': list(np.array(r).shape),
                           'dtype': str(np.array(r).dtype), 'lod': r.recursive_sequence_lengths()} for r in res]}
    if grads:
        out_shape = np.array(res[0]).shape
        w = arr(out_shape, 999)
        main, startup, fetch, grad_vars = build(fluid, CASES, name, out_shape)
        with fluid.scope_guard(scope):
            feed = feed_of(fluid, inputs)
            feed['proj_w'] = w
            gres = exe.run(main, feed=feed, fetch_list=grad_vars, return_numpy=False)
        record['proj_w'] = w.tolist()
        record['grads'] = {n: np.array(g).tolist() for n, g in zip(grads, gres)}
    return record
