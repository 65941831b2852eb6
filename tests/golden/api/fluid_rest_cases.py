"""Cases for the rest of fluid 1.8's layers (issue 12, S5), recorded with Paddle 1.8.5 by record_fluid_rest.py into
fluid_rest_pd18.json and replayed on paddle_exec by tests/api/test_fluid_rest_golden.py.

The protocol is the sequence ops' (tests/ops/data/sequence_cases.py, whose `run_case` both sides use): a case is
name -> (inputs {var: (array, LoD as recursive sequence lengths or None)}, build(vars) -> output Variable or a
tuple whose first item is differentiated, names of the inputs or parameters to differentiate). Gradients are
those of sum(out * w) for a fixed random w of out's shape. The file stays Python 3.8 compatible.
"""
import numpy as np


def arr(shape, seed, dtype='float32', low=None, high=None):
    rng = np.random.RandomState(seed)
    if low is not None:
        return rng.randint(low, high, shape).astype(dtype)
    return (rng.rand(*shape) * 2 - 1).astype(dtype)


def distinct(shape, seed):
    n = int(np.prod(shape))
    return (np.random.RandomState(seed).permutation(n).reshape(shape) * 0.1 - n * 0.05).astype('float32')


def cases(fluid) -> dict:
    L = fluid.layers
    CASES = {}

    def case(name, inputs, build, grads=()):
        CASES[name] = (inputs, build, grads)

    # --- activations, comparisons, norms ---
    case('soft_relu', {'x': (arr((4, 5), 1) * 3, None)}, lambda v: L.soft_relu(v['x'], threshold=1.5), ['x'])
    case('soft_relu_default', {'x': (arr((3, 4), 2) * 5, None)}, lambda v: L.soft_relu(v['x']), ['x'])
    case('elementwise_equal', {'x': (arr((3, 4), 3, 'int64', 0, 3), None), 'y': (arr((3, 4), 4, 'int64', 0, 3), None)},
         lambda v: L.elementwise_equal(v['x'], v['y']))
    case('clip_by_norm', {'x': (arr((3, 4), 5), None)}, lambda v: L.clip_by_norm(v['x'], max_norm=1.0))
    case('clip_by_norm_small', {'x': (arr((3, 4), 5) * 0.1, None)}, lambda v: L.clip_by_norm(v['x'], max_norm=1.0))

    # --- cropping and expanding ---
    case('expand_as', {'x': (arr((2, 3), 6), None), 't': (arr((4, 6), 7), None)},
         lambda v: L.expand_as(v['x'], v['t']), ['x'])
    case('crop', {'x': (arr((4, 5, 6), 8), None)}, lambda v: L.crop(v['x'], shape=[2, 3, 4], offsets=[1, 1, 2]),
         ['x'])
    case('crop_y', {'x': (arr((4, 5, 6), 9), None), 'y': (arr((3, 2, 4), 10), None)},
         lambda v: L.crop(v['x'], shape=v['y'], offsets=[0, 2, 1]), ['x'])
    case('crop_tensor', {'x': (arr((4, 5, 6), 11), None)},
         lambda v: L.crop_tensor(v['x'], shape=[-1, 3, 4], offsets=[0, 1, 2]), ['x'])
    case('crop_tensor_vars', {'x': (arr((4, 5, 6), 12), None)},
         lambda v: L.crop_tensor(v['x'], shape=[2, L.fill_constant([1], 'int32', 3), 4],
                                 offsets=[1, L.fill_constant([1], 'int32', 2), 0]), ['x'])
    case('crop_tensor_shape_var', {'x': (arr((4, 5, 6), 13), None)},
         lambda v: L.crop_tensor(v['x'], shape=L.assign(np.array([3, 2, 5], 'int32')), offsets=[1, 0, 1]), ['x'])

    # --- selection ---
    case('index_sample', {'x': (arr((3, 5), 14), None), 'i': (arr((3, 4), 15, 'int64', 0, 5), None)},
         lambda v: L.index_sample(v['x'], v['i']), ['x'])
    case('multiplex', {'a': (arr((4, 3), 16), None), 'b': (arr((4, 3), 17), None), 'c': (arr((4, 3), 18), None),
                       'ids': (np.array([[2], [0], [1], [2]], 'int32'), None)},
         lambda v: L.multiplex([v['a'], v['b'], v['c']], v['ids']), ['a', 'b', 'c'])
    case('fsp_matrix', {'x': (arr((2, 3, 4, 5), 19), None), 'y': (arr((2, 2, 4, 5), 20), None)},
         lambda v: L.fsp_matrix(v['x'], v['y']), ['x', 'y'])
    case('shard_index', {'x': (np.array([[0], [6], [7], [13], [14], [19]], 'int64'), None)},
         lambda v: L.shard_index(v['x'], index_num=20, nshards=3, shard_id=1))
    case('shard_index_ignore', {'x': (np.array([[1], [4], [5], [8]], 'int64'), None)},
         lambda v: L.shard_index(v['x'], index_num=9, nshards=2, shard_id=0, ignore_value=-5))
    probs = np.random.RandomState(23).rand(5, 4).astype('float32')
    case('sampling_id', {'x': (probs / probs.sum(1, keepdims=True), None)},
         lambda v: L.sampling_id(v['x'], seed=7))
    case('sampling_id_range', {'x': (probs / probs.sum(1, keepdims=True), None)},
         lambda v: L.sampling_id(v['x'], min=0.2, max=0.9, seed=123))
    for axis, indexes in ((1, [0, 2]), (2, [1]), (3, [0, 3])):
        case('similarity_focus_axis%d' % axis, {'x': (distinct((2, 3, 4, 5), 24 + axis), None)},
             lambda v, a=axis, i=indexes: L.similarity_focus(v['x'], a, i))

    def hash_op(x, hash_size, num_hash):
        # Paddle 1.8.5's fluid.layers.hash raises TypeError (it calls check_type with a list of dtype names), so
        # the op is appended as the layer would append it
        block = fluid.default_main_program().global_block()
        out = block.create_var(name='hash_out', dtype=x.dtype, lod_level=x.lod_level)
        block.append_op(type='hash', inputs={'X': [x]}, outputs={'Out': [out]},
                        attrs={'num_hash': num_hash, 'mod_by': hash_size})
        return out

    case('hash_int64', {'x': (arr((4, 2), 28, 'int64', 0, 1000), None)}, lambda v: hash_op(v['x'], 1000, 3))
    case('hash_int32', {'x': (arr((3, 5), 29, 'int32', 0, 100000), None)}, lambda v: hash_op(v['x'], 77, 2))
    case('hash_lod', {'x': (arr((5, 1), 30, 'int64', 0, 50), [[2, 3]])}, lambda v: hash_op(v['x'], 500, 4))
    tags = np.array([[1], [5], [3], [2], [5]], 'int64')

    def instag(v, is_lod=True, empty=0):
        return tuple(L.filter_by_instag(v['ins'], v['tag'], v['want'], is_lod, out_val_if_empty=empty))

    case('filter_by_instag', {'ins': (arr((6, 3), 31), [[2, 1, 3]]), 'tag': (tags, [[2, 1, 2]]),
                              'want': (np.array([5, 7], 'int64'), None)}, instag, ['ins'])
    case('filter_by_instag_rows', {'ins': (arr((3, 2), 32), None), 'tag': (tags, [[2, 1, 2]]),
                                   'want': (np.array([3], 'int64'), None)},
         lambda v: instag(v, is_lod=False), ['ins'])
    case('filter_by_instag_empty', {'ins': (arr((3, 2), 33), None), 'tag': (tags, [[2, 1, 2]]),
                                    'want': (np.array([9], 'int64'), None)},
         lambda v: instag(v, is_lod=False, empty=4))

    # --- tensor arrays ---
    def array_to_tensor(v, axis, stack):
        arr_ = L.create_array('float32')
        for k, name in enumerate(('a', 'b', 'c')):
            L.array_write(v[name], L.fill_constant([1], 'int64', k), array=arr_)
        return L.tensor_array_to_tensor(arr_, axis=axis, use_stack=stack)

    three = {'a': (arr((2, 3), 34), None), 'b': (arr((2, 3), 35), None), 'c': (arr((2, 3), 36), None)}
    case('tensor_array_concat', dict(three), lambda v: array_to_tensor(v, 1, False))
    case('tensor_array_stack', dict(three), lambda v: array_to_tensor(v, 0, True))
    return CASES
