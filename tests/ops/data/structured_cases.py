"""The structured-loss and decoder cases (linear_chain_crf, crf_decoding, chunk_eval, edit_distance, warpctc,
ctc_greedy_decoder) recorded with Paddle 1.8.5 (record_structured_ops.py -> structured_ops_pd18.json) and replayed
with paddle_exec (tests/ops/test_structured_ops.py). Same format and runner as sequence_cases.py: a case is
name -> (inputs {var: (array, LoD as recursive sequence lengths or None)}, build(vars) -> output Variable or a
tuple of them, names of the inputs or parameters to differentiate through the first output). Each recorded case
also keeps the compile-time lod_level of its outputs.
"""
import numpy as np
import sequence_cases
from sequence_cases import arr


def ints(shape, seed, low, high, dtype='int64'):
    return arr(shape, seed, dtype, low, high)


def cases(fluid) -> dict:
    L = fluid.layers
    CASES = {}

    def case(name, inputs, build, grads=()):
        CASES[name] = (inputs, build, grads)

    def crf(v, length=None, name='x'):
        return L.linear_chain_crf(v[name], v['lab'], param_attr=fluid.ParamAttr(name='crfw'), length=length)

    def decode(v, label=None, length=None, name='x'):
        crf(v, length, name)
        return L.crf_decoding(v[name], param_attr=fluid.ParamAttr(name='crfw'), label=label, length=length)

    # --- linear_chain_crf: LoD and padded, empty sequences, a long sequence (normalisation), float64
    case('crf_lod', {'x': (arr((7, 5), 1), [[3, 0, 4]]), 'lab': (ints((7, 1), 2, 0, 5), [[3, 0, 4]])},
         lambda v: crf(v), ['x', 'crfw'])
    case('crf_lod_one_row_seqs', {'x': (arr((4, 3), 3), [[1, 2, 1]]), 'lab': (ints((4, 1), 4, 0, 3), [[1, 2, 1]])},
         lambda v: crf(v), ['x', 'crfw'])
    case('crf_lod_long', {'x': (arr((60, 6), 5) * 4, [[45, 15]]), 'lab': (ints((60, 1), 6, 0, 6), [[45, 15]])},
         lambda v: crf(v), ['x', 'crfw'])
    case('crf_lod_f64', {'x': (arr((6, 4), 7, 'float64'), [[2, 4]]), 'lab': (ints((6, 1), 8, 0, 4), [[2, 4]])},
         lambda v: crf(v), ['x', 'crfw'])
    case('crf_padded', {'e': (arr((3, 4, 5), 9), None), 'lab': (ints((3, 4, 1), 10, 0, 5), None),
                        'len': (np.array([[4], [0], [2]], 'int64'), None)},
         lambda v: crf(v, v['len'], 'e'), ['e', 'crfw'])
    case('crf_padded_label2d', {'e': (arr((2, 3, 4), 11), None), 'lab': (ints((2, 3), 12, 0, 4), None),
                                'len': (np.array([3, 1], 'int64'), None)},
         lambda v: crf(v, v['len'], 'e'), ['e', 'crfw'])
    case('crf_bad_label', {'x': (arr((3, 3), 13), [[3]]), 'lab': (np.array([[0], [3], [1]], 'int64'), [[3]])},
         lambda v: crf(v))
    # --- crf_decoding: LoD, with a label, padded (with and without label), and after training names
    x74 = arr((9, 4), 14) * 3
    lab74 = ints((9, 1), 15, 0, 4)
    case('decode_lod', {'x': (x74, [[4, 0, 5]]), 'lab': (lab74, [[4, 0, 5]])}, lambda v: decode(v))
    case('decode_lod_label', {'x': (x74, [[4, 0, 5]]), 'lab': (lab74, [[4, 0, 5]])},
         lambda v: decode(v, label=v['lab']))
    case('decode_lod_tags10', {'x': (arr((12, 10), 16) * 3, [[7, 5]]), 'lab': (ints((12, 1), 17, 0, 10), [[7, 5]])},
         lambda v: decode(v))
    pe = arr((3, 4, 5), 18) * 3
    plab = ints((3, 4, 1), 19, 0, 5)
    plen = np.array([[4], [0], [2]], 'int64')
    case('decode_padded', {'e': (pe, None), 'lab': (plab, None), 'len': (plen, None)},
         lambda v: decode(v, length=v['len'], name='e'))
    case('decode_padded_label', {'e': (pe, None), 'lab': (plab, None), 'len': (plen, None)},
         lambda v: decode(v, label=v['lab'], length=v['len'], name='e'))
    # --- chunk_eval over LoD sequences (the padded forms are in tests/golden/api/fluid_losses_cases.py)
    tags = np.array([[0], [1], [4], [2], [3], [3], [4], [0], [1], [1], [2], [4]], 'int64')
    guess = np.array([[0], [1], [4], [2], [3], [4], [4], [0], [1], [0], [2], [4]], 'int64')
    for scheme, n_types in (('IOB', 2), ('IOE', 2), ('IOBES', 1), ('plain', 4)):
        case('chunk_lod_' + scheme, {'inf': (guess, [[5, 0, 7]]), 'lab': (tags, [[5, 0, 7]])},
             lambda v, s=scheme, n=n_types: L.chunk_eval(v['inf'], v['lab'], chunk_scheme=s, num_chunk_types=n))
    case('chunk_lod_excluded', {'inf': (guess, [[5, 7]]), 'lab': (tags, [[5, 7]])},
         lambda v: L.chunk_eval(v['inf'], v['lab'], chunk_scheme='IOB', num_chunk_types=2,
                                excluded_chunk_types=[1]))
    case('chunk_lod_mismatch', {'inf': (guess, [[6, 6]]), 'lab': (tags, [[5, 7]])},
         lambda v: L.chunk_eval(v['inf'], v['lab'], chunk_scheme='IOB', num_chunk_types=2))
    # --- edit_distance over LoD sequences, ignored tokens through sequence_erase
    hyp = np.array([[1], [0], [2], [3], [4], [0], [0], [5], [5]], 'int64')
    ref = np.array([[1], [2], [2], [0], [3], [1], [4], [5]], 'int64')
    case('edit_lod', {'h': (hyp, [[3, 4, 0, 2]]), 'r': (ref, [[2, 2, 3, 1]])},
         lambda v: L.edit_distance(v['h'], v['r'], normalized=False))
    case('edit_lod_normalized', {'h': (hyp, [[3, 4, 0, 2]]), 'r': (ref, [[2, 2, 3, 1]])},
         lambda v: L.edit_distance(v['h'], v['r'], normalized=True))
    case('edit_lod_ignored', {'h': (hyp, [[3, 4, 0, 2]]), 'r': (ref, [[2, 2, 3, 1]])},
         lambda v: L.edit_distance(v['h'], v['r'], normalized=False, ignored_tokens=[0, 5]))
    case('edit_lod_empty_ref', {'h': (hyp, [[3, 4, 2]]), 'r': (ref[:5], [[2, 0, 3]])},
         lambda v: L.edit_distance(v['h'], v['r'], normalized=True))
    # --- warpctc: LoD (norm_by_times or not, another blank, an infeasible sequence, repeated labels), padded
    lx = arr((11, 5), 20) * 2
    llab = np.array([[1], [2], [3], [3], [1], [4], [4], [2]], 'int32')
    case('ctc_lod', {'x': (lx, [[4, 1, 6]]), 'lab': (llab[:6], [[2, 3, 1]])},
         lambda v: L.warpctc(v['x'], v['lab']), ['x'])
    case('ctc_lod_norm', {'x': (lx, [[4, 1, 6]]), 'lab': (llab[:6], [[2, 3, 1]])},
         lambda v: L.warpctc(v['x'], v['lab'], norm_by_times=True), ['x'])
    case('ctc_lod_blank4_repeats', {'x': (lx, [[5, 6]]), 'lab': (llab[2:8] - 1, [[3, 3]])},
         lambda v: L.warpctc(v['x'], v['lab'], blank=4), ['x'])
    case('ctc_lod_long', {'x': (arr((50, 7), 21) * 3, [[30, 20]]), 'lab': (ints((12, 1), 22, 1, 7, 'int32'), [[7, 5]])},
         lambda v: L.warpctc(v['x'], v['lab'], norm_by_times=True), ['x'])
    px = arr((5, 3, 5), 23) * 2

    def ctc_padded(v, norm):
        return L.warpctc(v['x'], v['lab'], norm_by_times=norm, input_length=v['xl'], label_length=v['ll'])

    pinputs = {'x': (px, None), 'lab': (np.array([[1, 2, 3], [4, 4, 0], [2, 0, 0]], 'int32'), None),
               'xl': (np.array([5, 4, 3], 'int64'), None), 'll': (np.array([3, 1, 1], 'int64'), None)}
    case('ctc_padded', pinputs, lambda v: ctc_padded(v, False), ['x'])
    case('ctc_padded_norm', pinputs, lambda v: ctc_padded(v, True), ['x'])
    # --- ctc_greedy_decoder (top_k + ctc_align): LoD, padded, every sequence empty
    gx = arr((9, 4), 24)
    case('greedy_lod', {'x': (gx, [[4, 0, 5]])}, lambda v: L.ctc_greedy_decoder(v['x'], blank=0))
    case('greedy_lod_blank3', {'x': (gx, [[4, 5]])}, lambda v: L.ctc_greedy_decoder(v['x'], blank=3))
    case('greedy_padded', {'x': (arr((3, 4, 4), 25), None), 'len': (np.array([[4], [0], [3]], 'int64'), None)},
         lambda v: L.ctc_greedy_decoder(v['x'], blank=0, input_length=v['len'], padding_value=-1))
    blank_rows = np.tile(np.array([[0.9, 0.05, 0.05]], 'float32'), (3, 1))
    case('greedy_all_blank', {'x': (blank_rows, [[2, 1]])}, lambda v: L.ctc_greedy_decoder(v['x'], blank=0))
    return CASES


def run_case(fluid, CASES, name):
    """sequence_cases.run_case, plus the compile-time lod_level of each output."""
    record = sequence_cases.run_case(fluid, CASES, name)
    _, _, fetch, _ = sequence_cases.build(fluid, CASES, name)
    for out, var in zip(record['outputs'], fetch):
        out['lod_level'] = int(var.lod_level)
    return record
