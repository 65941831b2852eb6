"""fluid.contrib.layers.search_pyramid_hash (ops/pyramid_hash.py, kernels/pyramid_hash.py): the hashes and draws
against known values, glibc and a plain Python reference (data/pyramid_hash_cases.py); the op against what Paddle
1.8.5 computed for the same programs (data/pyramid_hash_pd18.json, recorded by data/record_pyramid_hash.py) and the
reference; the in-place weight update against finite differences of the loss."""
import ctypes
import ctypes.util
import json
import os
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from paddle_exec.framework.errors import EnforceNotMet
from paddle_exec.kernels import features as KF
from paddle_exec.kernels import pyramid_hash as KP
from tests.kernels.gradcheck import check_grad, numeric_grad

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import pyramid_hash_cases as C  # noqa: E402

PLACE = fluid.CPUPlace()
with open(os.path.join(HERE, 'data', 'pyramid_hash_pd18.json')) as _f:
    PD18 = json.load(_f)


# --- hashes and draws ---------------------------------------------------------------------------------------------

def test_xxh32_known_values_and_the_reference():
    known = {b'': 0x02CC5D05, b'abc': 0x32D153FF, b'Nobody inspects the spammish repetition': 0xE2293B2F}
    for data, value in known.items():
        assert int(KF.xxh32(np.frombuffer(data, np.uint8).copy(), 0)) == value
        assert C.xxh32(data, 0) == value
    rng = np.random.default_rng(0)
    for n in range(0, 40):
        data = rng.integers(0, 256, n).astype(np.uint8)
        for seed in (0, 4, 2 ** 31 + 5):
            assert int(KF.xxh32(data, seed)) == C.xxh32(data.tobytes(), seed)


def test_rand_r_is_glibcs():
    state, py_state = 7, 7
    libc_path = ctypes.util.find_library('c')
    libc = ctypes.CDLL(libc_path) if libc_path else None
    c_state = ctypes.c_uint(7)
    for _ in range(50):
        value, state = KP.rand_r(state)
        ref, py_state = C.rand_r(py_state)
        assert int(value) == ref and int(state) == py_state
        if libc is not None and hasattr(libc, 'rand_r'):
            assert libc.rand_r(ctypes.byref(c_state)) == ref


def test_murmur3_and_bloom_filter_against_the_reference():
    rng = np.random.default_rng(1)
    for n in range(0, 40):
        data = rng.integers(0, 256, n).astype(np.uint8)
        h1, h2 = KP.murmur3_x64_128(data, 3)
        assert (int(h1), int(h2)) == C.murmur3_x64_128(data.tobytes(), 3)
    white, _ = C.filters()
    raw = white.reshape(-1).view(np.uint8)
    for key in C.WHITE_KEYS + [(1, 2), (7, 1, 5), (9, 12, 11)]:
        data = C.window_bytes(key)
        assert KP.bloom_get(raw, np.frombuffer(data, np.uint8).copy()) == int(C.bloom_get(white, data))
    assert all(C.bloom_get(white, C.window_bytes(k)) for k in C.WHITE_KEYS)


# --- the op against Paddle 1.8.5 and the reference ----------------------------------------------------------------

@pytest.mark.parametrize('case', sorted(C.CASES))
def test_matches_paddle_1_8(case):
    got, want = C.run(fluid, case), PD18[case]
    assert got['out_lod'] == want['out_lod']
    assert got['flags'] == want['flags']
    assert got['drop_lod'] == want['drop_lod']
    np.testing.assert_allclose(got['out'], want['out'], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got['w_after'], want['w_after'], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('case', sorted(C.CASES))
def test_reference_gives_paddles_numbers(case):
    c, want = C.CASES[case], PD18[case]
    white, black = C.filters() if c['filters'] else (None, None)
    out, lengths, flags, kept = C.reference(C.IDS, C.LENGTHS, C.weights(), C.NUM_EMB, C.SPACE_LEN, C.RAND_LEN,
                                            c['pyramid_layer'], c['drop'], c['is_training'], c['seed'], white, black)
    assert [0] + np.cumsum(lengths).tolist() == want['out_lod'][0]
    assert flags == want['flags']
    np.testing.assert_allclose(out, want['out'], rtol=1e-6, atol=1e-7)
    offsets = np.cumsum([0] + lengths)
    pooled = np.add.reduceat(out, offsets[:-1], axis=0)
    dout = np.repeat(2 * pooled, lengths, axis=0)
    w_after = C.reference_update(C.IDS, C.LENGTHS, C.weights(), dout, flags, kept, C.NUM_EMB, C.SPACE_LEN,
                                 C.RAND_LEN, c['pyramid_layer'], c['lr'])
    np.testing.assert_allclose(w_after.reshape(-1), want['w_after'], rtol=1e-5, atol=1e-6)


def test_weight_update_is_minus_lr_times_the_finite_difference_gradient():
    c = C.CASES['training']
    w0 = C.weights()
    _, lengths, flags, kept = C.reference(C.IDS, C.LENGTHS, w0, C.NUM_EMB, C.SPACE_LEN, C.RAND_LEN,
                                          c['pyramid_layer'], c['drop'], True, c['seed'])
    # each Out row gathers W at the hash places of its window: loss(W) = sum over sequences of |sum of rows|^2
    places = []
    kept_iter = iter(flags)
    for seq in C.windows(C.IDS, C.LENGTHS, c['pyramid_layer']):
        rows = []
        for win in seq:
            if next(kept_iter):
                rows.append(np.concatenate([np.arange(p, p + C.RAND_LEN) for p in
                                            (C.xxh32(C.window_bytes(win), j) % C.SPACE_LEN
                                             for j in range(0, C.NUM_EMB, C.RAND_LEN))]))
        places.append(rows)

    def loss(w):
        flat = w.reshape(-1)
        return sum(float(np.sum(sum(flat[r] for r in rows) ** 2)) for rows in places if rows)

    num = numeric_grad(loss, [w0.astype(np.float64)], 0)
    got = C.run(fluid, 'training')
    update = (w0.reshape(-1) - np.array(got['w_after'], np.float64)) / c['lr']
    check_grad(update.reshape(w0.shape), num, rtol=1e-3, atol=1e-4)


# --- builder, errors, module paths --------------------------------------------------------------------------------

def _program(x_needs_grad=False, **kwargs):
    args = dict(num_emb=8, space_len=40, pyramid_layer=3, rand_len=4, drop_out_percent=0.5, is_training=False,
                use_filter=False, white_list_len=0, black_list_len=0, seed=0, lr=0.1)
    args.update(kwargs)
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 1], dtype='int32', lod_level=1)
        x.stop_gradient = not x_needs_grad
        out = fluid.contrib.layers.nn.search_pyramid_hash(input=x, param_attr=fluid.ParamAttr(name='pyr_w'), **args)
        loss = fluid.layers.reduce_sum(fluid.layers.sequence_pool(out, 'sum'))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, out


def _feed():
    t = fluid.LoDTensor()
    t.set(np.array(C.IDS, np.int32).reshape(-1, 1), PLACE)
    t.set_recursive_sequence_lengths([C.LENGTHS])
    return t


def test_no_grad_op_and_no_update_unless_x_needs_a_gradient():
    for needs in (False, True):
        main, startup, out = _program(x_needs_grad=needs, is_training=True)
        types = [op.type for op in main.global_block().ops]
        assert ('pyramid_hash_grad' in types) == needs
        scope, exe = Scope(), fluid.Executor(PLACE)
        exe.run(startup, scope=scope)
        w0 = np.array(scope.find_var('pyr_w').get_tensor()).copy()
        exe.run(main, feed={'x': _feed()}, fetch_list=[out], scope=scope, return_numpy=False)
        w1 = np.array(scope.find_var('pyr_w').get_tensor())
        assert np.array_equal(w0, w1) != needs


def test_module_paths_and_parameters():
    assert fluid.contrib.search_pyramid_hash is fluid.contrib.layers.search_pyramid_hash
    assert fluid.contrib.layers.nn.search_pyramid_hash is fluid.contrib.layers.search_pyramid_hash
    main, _, out = _program(white_list_len=4, black_list_len=3, use_filter=True)
    params = {p.name: tuple(p.shape) for p in main.global_block().all_parameters()}
    assert params['pyr_w'] == (44, 1)
    assert sorted(params.values()) == [(3, 1), (4, 1), (44, 1)]
    assert tuple(out.shape) == (-1, 8) and out.lod_level == 1


def test_unloaded_filter_is_refused():
    main, startup, out = _program(white_list_len=4, use_filter=True)
    scope, exe = Scope(), fluid.Executor(PLACE)
    exe.run(startup, scope=scope)
    with pytest.raises(EnforceNotMet, match='white filter not load'):
        exe.run(main, feed={'x': _feed()}, fetch_list=[out], scope=scope, return_numpy=False)


def test_shape_errors():
    with pytest.raises(ValueError, match='should mod Attr'):
        _program(num_emb=6)
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data(name='x', shape=[None, 1], dtype='int32', lod_level=1)
        w = fluid.layers.create_parameter([10, 1], 'float32')
        helper_out = main.global_block().create_var(name='o', dtype='float32')
        with pytest.raises(ValueError, match='space_len \\+ rand_len'):
            main.global_block().append_op(type='pyramid_hash', inputs={'X': [x], 'W': [w]},
                                          outputs={'Out': [helper_out], 'DropPos': ['d'], 'X_Temp_Out': ['t']},
                                          attrs={'num_emb': 8, 'space_len': 40, 'rand_len': 4})
