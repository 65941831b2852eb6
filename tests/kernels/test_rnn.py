"""The recurrent kernels (kernels/lstm.py, kernels/gru.py, kernels/recurrent.py, kernels/blas.py) against plain numpy
references written from Paddle's formulas (one sequence, one time step at a time), and their gradients against
finite differences (tests/kernels/gradcheck.py). What Paddle 1.8.5 itself computes is checked in
tests/ops/test_rnn_ops.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.kernels import gru as KG
from paddle_exec.kernels import lstm as KL
from paddle_exec.kernels.blas import blas_functions, gemm
from paddle_exec.kernels.recurrent import act, act_grad, batch_index

from .gradcheck import check_grad, numeric_grad

FNS = blas_functions()
NO_BLAS = np.array([0, 0, 64], np.int64)
SIGMOID, TANH, RELU, IDENTITY = 1, 2, 3, 0


def np_act(x, code):
    x = np.asarray(x, np.float64)
    if code == SIGMOID:
        return 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 13.0)))
    if code == TANH:
        return 2.0 / (1.0 + np.exp(np.minimum(-2.0 * x, 40.0))) - 1.0
    if code == RELU:
        return np.maximum(x, 0.0)
    return x


# --- blas ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('fns', [FNS, NO_BLAS], ids=['blas', 'loops'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_gemm_every_transpose_against_numpy(fns, dtype):
    rng = np.random.RandomState(0)
    for ta in (False, True):
        for tb in (False, True):
            a = rng.rand(*((6, 4) if ta else (4, 6))).astype(dtype)
            b = rng.rand(*((5, 6) if tb else (6, 5))).astype(dtype)
            c = rng.rand(4, 5).astype(dtype)
            want = 1.5 * (a.T if ta else a) @ (b.T if tb else b) + 0.25 * c
            gemm(fns, ta, tb, 1.5, a, b, 0.25, c)
            np.testing.assert_allclose(c, want, rtol=1e-5)


def test_gemm_on_column_blocks_and_empty_shapes():
    rng = np.random.RandomState(1)
    g = rng.rand(4, 9)
    h = rng.rand(4, 3)
    w = rng.rand(3, 6)
    want = g.copy()
    want[:, 3:9] += h @ w
    gemm(FNS, False, False, 1.0, h, w, 1.0, g[:, 3:9])     # a column block: leading dimension 9
    np.testing.assert_allclose(g, want)
    c = np.ones((2, 3))
    gemm(FNS, False, False, 1.0, np.zeros((2, 0)), np.zeros((0, 3)), 0.0, c)
    assert np.all(c == 0)


def test_blas_addresses_were_found_and_checked():
    assert FNS[0] != 0 and FNS[1] != 0, 'numpy\'s BLAS should be found (threadpoolctl lists it)'


# --- activations and the batch order -----------------------------------------------------------------------------

def test_activations_and_their_gradients_follow_paddle():
    xs = np.array([-50.0, -2.0, -0.3, 0.0, 0.7, 5.0, 20.0])
    for code in (IDENTITY, SIGMOID, TANH, RELU):
        ys = np.array([act(x, code) for x in xs])
        np.testing.assert_allclose(ys, np_act(xs, code), rtol=1e-12, atol=1e-15)
        if code != RELU:
            # inside the clamps the gradient written with the output y is the derivative
            inner = xs[1:-2]
            num = (np_act(inner + 1e-6, code) - np_act(inner - 1e-6, code)) / 2e-6
            got = np.array([act_grad(1.0, act(x, code), code) for x in inner])
            np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-9)
    assert act(-50.0, SIGMOID) == pytest.approx(1.0 / (1.0 + np.exp(40.0)))      # clamped at -40


def test_batch_index_sorts_by_length_and_keeps_ties_in_order():
    starts, rows, order = batch_index(np.array([0, 4, 9, 12], np.int64), False)
    assert order.tolist() == [1, 0, 2]
    assert starts.tolist() == [0, 3, 6, 9, 11, 12]
    assert rows.tolist() == [4, 0, 9, 5, 1, 10, 6, 2, 11, 7, 3, 8]        # Paddle's sequence2batch example
    starts, rows, order = batch_index(np.array([0, 2, 2, 4], np.int64), True)
    assert order.tolist() == [0, 2, 1]                   # equal lengths stay in order, the empty one last
    assert rows.tolist() == [1, 3, 0, 2]


# --- lstm / lstmp -------------------------------------------------------------------------------------------------

def ref_lstm(x, offsets, w, bias, peepholes, h0, c0, reverse, acts, cell_clip=0.0, proj_w=None, proj_code=0,
             proj_clip=0.0):
    """Paddle's lstm / lstmp, one sequence and one step at a time (kernels/lstm.py docstring)."""
    gate_code, cell_code, cand_code = acts
    f = x.shape[1] // 4
    width = f if proj_w is None else proj_w.shape[1]
    b = bias.reshape(-1)
    ci, cf, co = (b[4 * f:5 * f], b[5 * f:6 * f], b[6 * f:7 * f]) if peepholes else (0.0, 0.0, 0.0)
    out = np.zeros((x.shape[0], width))
    cell = np.zeros((x.shape[0], f))
    for s in range(len(offsets) - 1):
        steps = list(range(offsets[s], offsets[s + 1]))
        if reverse:
            steps.reverse()
        h = None if h0 is None else h0[s]
        c = np.zeros(f) if c0 is None else c0[s]
        for k, row in enumerate(steps):
            g = x[row] + b[:4 * f] + (h @ w if h is not None else 0.0)
            cand = np_act(g[:f], cand_code)
            i = np_act(g[f:2 * f] + c * ci, gate_code)
            fg = np_act(g[2 * f:3 * f] + c * cf, gate_code)
            c = cand * i + c * fg
            if cell_clip > 0:
                c = np.clip(c, -cell_clip, cell_clip)
            o = np_act(g[3 * f:] + c * co, gate_code)
            h = o * np_act(c, cell_code)
            if proj_w is not None:
                h = np_act(h @ proj_w, proj_code)
                if proj_clip > 0:
                    h = np.clip(h, -proj_clip, proj_clip)
            out[row], cell[row] = h, c
    return out, cell


def _lstm_setup(seed, f=3, lengths=(2, 0, 3, 1), proj=None):
    rng = np.random.RandomState(seed)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = int(offsets[-1])
    width = f if proj is None else proj
    return dict(x=rng.uniform(-1, 1, (n, 4 * f)), offsets=offsets, w=rng.uniform(-1, 1, (width, 4 * f)),
                bias=rng.uniform(-1, 1, (1, 7 * f)), h0=rng.uniform(-1, 1, (len(lengths), width)),
                c0=rng.uniform(-1, 1, (len(lengths), f)),
                proj_w=rng.uniform(-1, 1, (f, proj)) if proj else np.zeros((f, 0)))


def _run_lstm(d, peepholes, use_h0, use_c0, reverse, acts, cell_clip=0.0, proj_code=0, proj_clip=0.0, fns=FNS):
    f = d['x'].shape[1] // 4
    check = d['bias'][0, 4 * f:].reshape(3, f) if peepholes else np.zeros((3, f))
    empty_h = np.zeros((0, d['w'].shape[0]))
    has_proj = d['proj_w'].shape[1] > 0
    return KL.lstm_forward(fns, d['x'], d['offsets'], d['w'], d['bias'], np.ascontiguousarray(check),
                           d['h0'] if use_h0 else empty_h, d['c0'] if use_c0 else np.zeros((0, f)), use_h0, use_c0,
                           reverse, cell_clip, acts[0], acts[1], acts[2], d['proj_w'], has_proj, proj_code,
                           proj_clip)


LSTM_SETTINGS = [  # peepholes, H0, C0, reverse, activations (gate, cell, candidate)
    (True, False, False, False, (SIGMOID, TANH, TANH)),
    (False, True, True, True, (SIGMOID, TANH, TANH)),
    (True, True, False, False, (TANH, IDENTITY, SIGMOID)),
    (True, False, True, True, (SIGMOID, TANH, IDENTITY)),
]


@pytest.mark.parametrize('fns', [FNS, NO_BLAS], ids=['blas', 'loops'])
@pytest.mark.parametrize('setting', LSTM_SETTINGS)
def test_lstm_forward_against_numpy(setting, fns):
    peepholes, use_h0, use_c0, reverse, acts = setting
    d = _lstm_setup(0)
    out, cell, gate, cell_act, _ = _run_lstm(d, peepholes, use_h0, use_c0, reverse, acts, fns=fns)
    want_out, want_cell = ref_lstm(d['x'], d['offsets'], d['w'], d['bias'], peepholes,
                                   d['h0'] if use_h0 else None, d['c0'] if use_c0 else None, reverse, acts)
    np.testing.assert_allclose(out, want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cell, want_cell, rtol=1e-10, atol=1e-12)
    assert gate.shape == d['x'].shape and cell_act.shape == cell.shape


@pytest.mark.parametrize('setting', LSTM_SETTINGS)
def test_lstm_gradient_against_finite_differences(setting):
    peepholes, use_h0, use_c0, reverse, acts = setting
    d = _lstm_setup(1)
    f = 3
    proj = np.random.RandomState(2).standard_normal((d['x'].shape[0], f))

    def loss(x, w, bias, h0, c0):
        e = dict(d, x=x, w=w, bias=bias, h0=h0, c0=c0)
        return float(np.sum(_run_lstm(e, peepholes, use_h0, use_c0, reverse, acts)[0] * proj))

    out, cell, gate, cell_act, hidden = _run_lstm(d, peepholes, use_h0, use_c0, reverse, acts)
    check = np.ascontiguousarray(d['bias'][0, 4 * f:].reshape(3, f)) if peepholes else np.zeros((3, f))
    dx, dw, dgate_bias, dcheck, dh0, dc0, _ = KL.lstm_backward(
        FNS, d['offsets'], d['w'], check, d['h0'] if use_h0 else np.zeros((0, f)),
        d['c0'] if use_c0 else np.zeros((0, f)), use_h0, use_c0, out, cell, gate, cell_act, np.zeros((0, f)), proj,
        reverse, 0.0, acts[0], acts[1], acts[2], d['proj_w'], False, 0, 0.0, True, True)
    args = [d['x'], d['w'], d['bias'], d['h0'], d['c0']]
    check_grad(dx, numeric_grad(loss, args, 0), name='dx')
    check_grad(dw, numeric_grad(loss, args, 1), name='dweight')
    dbias = numeric_grad(loss, args, 2).reshape(-1)
    check_grad(dgate_bias, dbias[:4 * f], name='dbias')
    if peepholes:
        check_grad(dcheck.reshape(-1), dbias[4 * f:], name='dpeepholes')
    if use_h0:
        check_grad(dh0, numeric_grad(loss, args, 3), name='dh0')
    if use_c0:
        check_grad(dc0, numeric_grad(loss, args, 4), name='dc0')


@pytest.mark.parametrize('clips', [(0.0, 0.0), (0.6, 0.4)])
def test_lstmp_forward_and_gradient(clips):
    cell_clip, proj_clip = clips
    d = _lstm_setup(3, f=3, proj=2)
    acts = (SIGMOID, TANH, TANH)
    f = 3
    d['x'] *= 2.0
    out, cell, gate, cell_act, hidden = _run_lstm(d, True, True, True, False, acts, cell_clip, TANH, proj_clip)
    want_out, want_cell = ref_lstm(d['x'], d['offsets'], d['w'], d['bias'], True, d['h0'], d['c0'], False, acts,
                                   cell_clip, d['proj_w'], TANH, proj_clip)
    np.testing.assert_allclose(out, want_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cell, want_cell, rtol=1e-10, atol=1e-12)
    proj = np.random.RandomState(4).standard_normal(out.shape)

    def loss(x, w, proj_w, h0):
        e = dict(d, x=x, w=w, proj_w=proj_w, h0=h0)
        return float(np.sum(_run_lstm(e, True, True, True, False, acts, cell_clip, TANH, proj_clip)[0] * proj))

    check = np.ascontiguousarray(d['bias'][0, 4 * f:].reshape(3, f))
    dx, dw, _, _, dh0, _, dproj_w = KL.lstm_backward(
        FNS, d['offsets'], d['w'], check, d['h0'], d['c0'], True, True, out, cell, gate, cell_act, hidden, proj,
        False, cell_clip, acts[0], acts[1], acts[2], d['proj_w'], True, TANH, proj_clip, True, True)
    args = [d['x'], d['w'], d['proj_w'], d['h0']]
    check_grad(dx, numeric_grad(loss, args, 0, eps=1e-6), rtol=1e-3, name='dx')
    check_grad(dw, numeric_grad(loss, args, 1, eps=1e-6), rtol=1e-3, name='dweight')
    check_grad(dproj_w, numeric_grad(loss, args, 2, eps=1e-6), rtol=1e-3, name='dproj_weight')
    check_grad(dh0, numeric_grad(loss, args, 3, eps=1e-6), rtol=1e-3, name='dh0')


# --- gru ----------------------------------------------------------------------------------------------------------

def ref_gru(x, offsets, w, bias, h0, reverse, gate_code, node_code, origin_mode):
    """Paddle's gru, one sequence and one step at a time (kernels/gru.py docstring)."""
    f = w.shape[0]
    w_gate = w.reshape(-1)[:2 * f * f].reshape(f, 2 * f)
    w_state = w.reshape(-1)[2 * f * f:].reshape(f, f)
    out = np.zeros((x.shape[0], f))
    for s in range(len(offsets) - 1):
        steps = list(range(offsets[s], offsets[s + 1]))
        if reverse:
            steps.reverse()
        h = None if h0 is None else h0[s]
        for row in steps:
            g = x[row] + bias.reshape(-1)
            prev = np.zeros(f) if h is None else h
            g[:2 * f] += prev @ w_gate
            u, r = np_act(g[:f], gate_code), np_act(g[f:2 * f], gate_code)
            c = np_act(g[2 * f:] + (r * prev) @ w_state, node_code)
            h = u * prev + c - u * c if origin_mode else prev - u * prev + u * c
            out[row] = h
    return out


GRU_SETTINGS = [  # H0, reverse, gate activation, activation, origin_mode
    (False, False, SIGMOID, TANH, False),
    (True, True, SIGMOID, TANH, True),
    (True, False, TANH, IDENTITY, False),
]


def _gru_setup(seed, f=3, lengths=(3, 1, 0, 2)):
    rng = np.random.RandomState(seed)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = int(offsets[-1])
    return dict(x=rng.uniform(-1, 1, (n, 3 * f)), offsets=offsets, w=rng.uniform(-1, 1, (f, 3 * f)),
                bias=rng.uniform(-1, 1, (1, 3 * f)), h0=rng.uniform(-1, 1, (len(lengths), f)))


def _run_gru(d, use_h0, reverse, gate_code, node_code, origin, fns=FNS):
    f = d['w'].shape[0]
    return KG.gru_forward(fns, d['x'], d['offsets'], d['w'], d['bias'], d['h0'] if use_h0 else np.zeros((0, f)),
                          use_h0, reverse, gate_code, node_code, origin)


@pytest.mark.parametrize('fns', [FNS, NO_BLAS], ids=['blas', 'loops'])
@pytest.mark.parametrize('setting', GRU_SETTINGS)
def test_gru_forward_against_numpy(setting, fns):
    use_h0, reverse, gate_code, node_code, origin = setting
    d = _gru_setup(5)
    hidden = _run_gru(d, use_h0, reverse, gate_code, node_code, origin, fns)[0]
    want = ref_gru(d['x'], d['offsets'], d['w'], d['bias'], d['h0'] if use_h0 else None, reverse, gate_code,
                   node_code, origin)
    np.testing.assert_allclose(hidden, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('setting', GRU_SETTINGS)
def test_gru_gradient_against_finite_differences(setting):
    use_h0, reverse, gate_code, node_code, origin = setting
    d = _gru_setup(6)
    f = 3
    proj = np.random.RandomState(7).standard_normal((d['x'].shape[0], f))

    def loss(x, w, bias, h0):
        return float(np.sum(_run_gru(dict(d, x=x, w=w, bias=bias, h0=h0), use_h0, reverse, gate_code, node_code,
                                     origin)[0] * proj))

    hidden, gate, reset_prev, batch_hidden = _run_gru(d, use_h0, reverse, gate_code, node_code, origin)
    dx, dw, db, dh0 = KG.gru_backward(FNS, d['offsets'], d['w'], d['h0'] if use_h0 else np.zeros((0, f)), use_h0,
                                      True, gate, reset_prev, batch_hidden, proj, reverse, gate_code, node_code,
                                      origin)
    args = [d['x'], d['w'], d['bias'], d['h0']]
    check_grad(dx, numeric_grad(loss, args, 0), name='dx')
    check_grad(dw, numeric_grad(loss, args, 1), name='dweight')
    check_grad(db, numeric_grad(loss, args, 2).reshape(-1), name='dbias')
    if use_h0:
        check_grad(dh0, numeric_grad(loss, args, 3), name='dh0')


def test_gru_without_h0_gradient_skips_step_zero_weight_gradient_as_paddle():
    d = _gru_setup(8, lengths=(1, 1))          # every sequence is one step: all weight gradient comes from step 0
    hidden, gate, reset_prev, batch_hidden = _run_gru(d, True, False, SIGMOID, TANH, False)
    dh = np.ones_like(hidden)
    with_dh0 = KG.gru_backward(FNS, d['offsets'], d['w'], d['h0'], True, True, gate, reset_prev, batch_hidden, dh,
                               False, SIGMOID, TANH, False)
    without = KG.gru_backward(FNS, d['offsets'], d['w'], d['h0'], True, False, gate, reset_prev, batch_hidden, dh,
                              False, SIGMOID, TANH, False)
    assert np.abs(with_dh0[1]).max() > 0 and np.all(without[1] == 0)


# --- units --------------------------------------------------------------------------------------------------------

def test_lstm_unit_forward_and_gradient():
    rng = np.random.RandomState(9)
    x, c_prev = rng.uniform(-1, 1, (3, 8)), rng.uniform(-1, 1, (3, 2))
    c, h = KL.lstm_unit_forward(x, c_prev, 0.5)
    sig = lambda v: 1 / (1 + np.exp(-v))
    i, f, o, g = sig(x[:, :2]), sig(x[:, 2:4] + 0.5), sig(x[:, 4:6]), np.tanh(x[:, 6:])
    np.testing.assert_allclose(c, f * c_prev + i * g, rtol=1e-12)
    np.testing.assert_allclose(h, o * np.tanh(f * c_prev + i * g), rtol=1e-12)
    wh, wc = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))

    def loss(x, c_prev):
        c, h = KL.lstm_unit_forward(x, c_prev, 0.5)
        return float(np.sum(h * wh) + np.sum(c * wc))

    dx, dc_prev = KL.lstm_unit_backward(x, c_prev, c, wh, wc, 0.5)
    check_grad(dx, numeric_grad(loss, [x, c_prev], 0), name='dx')
    check_grad(dc_prev, numeric_grad(loss, [x, c_prev], 1), name='dc_prev')


@pytest.mark.parametrize('origin', [False, True])
def test_gru_unit_forward_and_gradient(origin):
    rng = np.random.RandomState(10)
    f = 3
    x, h_prev = rng.uniform(-1, 1, (4, 3 * f)), rng.uniform(-1, 1, (4, f))
    w, bias = rng.uniform(-1, 1, (f, 3 * f)), rng.uniform(-1, 1, (1, 3 * f))
    gate, rh, h = KG.gru_unit_forward(FNS, x, h_prev, w, bias, True, SIGMOID, TANH, origin)
    for r in range(4):
        want = ref_gru(x[r:r + 1], np.array([0, 1]), w, bias, h_prev[r:r + 1], False, SIGMOID, TANH, origin)
        np.testing.assert_allclose(h[r], want[0], rtol=1e-10)
    proj = rng.standard_normal((4, f))

    def loss(x, h_prev, w, bias):
        return float(np.sum(KG.gru_unit_forward(FNS, x, h_prev, w, bias, True, SIGMOID, TANH, origin)[2] * proj))

    dx, dh_prev, dw, db = KG.gru_unit_backward(FNS, h_prev, w, gate, rh, proj, SIGMOID, TANH, origin)
    args = [x, h_prev, w, bias]
    check_grad(dx, numeric_grad(loss, args, 0), name='dx')
    check_grad(dh_prev, numeric_grad(loss, args, 1), name='dh_prev')
    check_grad(dw, numeric_grad(loss, args, 2), name='dweight')
    check_grad(db, numeric_grad(loss, args, 3).reshape(-1), name='dbias')


# --- the fast paths compute what the general loops compute ---------------------------------------------------------

@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_default_activation_cell_loops_match_the_general_loops_exactly(dtype):
    """_cell_forward_default / _cell_backward_default (sigmoid, tanh, tanh; a previous cell; no clip) against the
    general loops on the same numbers: with a zero previous cell the general forward (has_prev False) does the same
    arithmetic, and the general backward without dprev computes the same dg, dc and peephole sums."""
    rng = np.random.RandomState(11)
    b, f = 5, 7
    g0 = rng.uniform(-3, 3, (b, 4 * f)).astype(dtype)
    check = rng.uniform(-1, 1, (3, f)).astype(dtype)
    outs = []
    for has_prev in (True, False):                # True takes the default loop, False the general one
        g = g0.copy()
        c, c_act, h = (np.zeros((b, f), dtype) for _ in range(3))
        KL._cell_forward(g, np.zeros((b, f), dtype), has_prev, check, c, c_act, h, dtype(0.0), 1, 2, 2)
        outs.append((g, c, c_act, h))
    for fast, general in zip(*outs):
        np.testing.assert_array_equal(fast, general)
    g, c, c_act, _ = outs[0]
    dh = rng.randn(b, f).astype(dtype)
    prev_c = rng.randn(b, f).astype(dtype)
    dc0 = rng.randn(b, f).astype(dtype)
    grads = []
    for want_dprev in (True, False):              # True takes the default loop, False the general one
        dc, dprev = dc0.copy(), np.zeros((b, f), dtype)
        dcheck, dg = np.zeros((3, f), dtype), np.zeros((b, 4 * f), dtype)
        KL._cell_backward(g, dh, dc, prev_c, True, dprev, want_dprev, c, c_act, check, dcheck, dg, dtype(0.0),
                          1, 2, 2)
        grads.append((dc, dcheck, dg))
    for fast, general in zip(*grads):
        np.testing.assert_array_equal(fast, general)


def test_float32_gate_math_stays_float32():
    """act on a float32 value computes in float32 (expf, as Paddle's float kernels), float64 stays float64: numba
    hands both back as Python floats, so the values tell them apart."""
    x32 = np.float32(0.3)
    in_float32 = float(np.float32(1.0) / (np.float32(1.0) + np.exp(-x32)))
    in_float64 = 1.0 / (1.0 + np.exp(-0.3))
    assert in_float32 != in_float64
    assert act(x32, 1) == in_float32
    assert act(np.float64(0.3), 1) == in_float64
    assert act_grad(np.float32(2.0), x32, 1) == float(np.float32(2.0) * x32 * (np.float32(1.0) - x32))
