"""The recurrent building blocks against Paddle 1.8.5: DynamicRNN (step_input, static_input, memory with shape or
init + need_reorder, update_memory, several outputs), StaticRNN (memory from init and from shape/batch_ref), While
with gradients (while_loop), and the rank-table ops (lod_rank_table, lod_tensor_to_array, array_to_lod_tensor,
reorder_lod_tensor_by_rank, shrink_memory, max_sequence_len), forward and gradients: every case of
tests/ops/data/rnn_block_cases.py run through paddle_exec and compared with what 1.8.5 computed
(tests/ops/data/rnn_blocks_pd18.json, written by record_rnn_blocks.py). Then numpy references and
finite-difference checks of the gradients through the loops (tests/kernels/gradcheck.py).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from tests.kernels.gradcheck import check_grad, numeric_grad

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'data'))
import rnn_block_cases  # noqa: E402
import sequence_cases  # noqa: E402

with open(os.path.join(HERE, 'data', 'rnn_blocks_pd18.json')) as _f:
    RECORDED = json.load(_f)
CASES = rnn_block_cases.cases(fluid)
L = fluid.layers
# Paddle 1.8.5's while_loop gradients are wrong (zeros for the loop variable's initial value, a partial sum for
# the other input: its body assigns the new values over the loop variables); 2.6.2's and paddle_exec's are the
# derivative: test_while_loop_gradient_matches_paddle_2_6 compares with 2.6.2's numbers and finite differences
GRADIENTS_WRONG_IN_PADDLE_1_8 = {'while_loop_gradient'}
WHILE_LOOP_GRADIENT_PD26 = {
    'x': [[-1.6685300e-01, 9.1930348e-03, 1.4148352e-03], [2.0435842e-02, -2.3269209e-01, -1.5310677e-04]],
    'y': [[0.59890145, -0.01685739, -0.02219955], [-0.13637725, 0.80507696, -0.00113424]]}


def test_every_case_was_recorded():
    assert sorted(CASES) == sorted(RECORDED)
    assert not [n for n in RECORDED if 'error' in RECORDED[n]]


@pytest.mark.parametrize('name', sorted(RECORDED))
def test_case_matches_paddle_1_8(name):
    want = RECORDED[name]
    got = sequence_cases.run_case(fluid, CASES, name)
    assert len(got['outputs']) == len(want['outputs'])
    for k, (g, w) in enumerate(zip(got['outputs'], want['outputs'])):
        assert g['shape'] == w['shape'], (name, k)
        assert g['dtype'] == w['dtype'], (name, k)
        assert g['lod'] == w['lod'], (name, k, 'output LoD')
        np.testing.assert_allclose(np.array(g['value'], np.float64), np.array(w['value'], np.float64), rtol=1e-5,
                                   atol=2e-6, err_msg='%s output %d' % (name, k))
    grads = want.get('grads', {})
    assert sorted(got.get('grads', {})) == sorted(grads)
    if name in GRADIENTS_WRONG_IN_PADDLE_1_8:
        return
    for var, w in grads.items():
        np.testing.assert_allclose(np.array(got['grads'][var], np.float64), np.array(w, np.float64), rtol=1e-4,
                                   atol=2e-6, err_msg='%s d/d%s' % (name, var))


# --- numpy references and finite differences ------------------------------------------------------------------------

def _dynamic_rnn_reference(x, lengths, s, w_x, w_h, w_s, b, h_init):
    """h_t = tanh(x_t w_x + h_{t-1} w_h + s w_s + b) per sequence, h_{-1} = h_init; the outputs in x's row order."""
    out = np.zeros((x.shape[0], w_x.shape[1]), np.float64)
    start = 0
    for k, n in enumerate(lengths):
        h = h_init[k]
        for t in range(n):
            h = np.tanh(x[start + t] @ w_x + h @ w_h + s[k] @ w_s + b)
            out[start + t] = h
        start += n
    return out


def _build_dynamic_rnn():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data('x', [-1, 3], 'float64', lod_level=1)
        s = fluid.data('s', [-1, 2], 'float64')
        h0 = fluid.data('h0', [-1, 4], 'float64')
        proj = fluid.data('proj', [-1, 4], 'float64')
        for v in (x, s, h0):
            v.stop_gradient = False
        drnn = L.DynamicRNN()
        with drnn.block():
            w = drnn.step_input(x)
            st = drnn.static_input(s)
            mem = drnn.memory(init=h0, need_reorder=True)
            h = L.fc([w, mem, st], 4, act='tanh')
            drnn.update_memory(mem, h)
            drnn.output(h)
        out = drnn()
        loss = L.reduce_sum(out * proj)
        fluid.backward.append_backward(loss)
    return main, startup, out


def test_dynamic_rnn_matches_numpy_and_finite_differences():
    rng = np.random.RandomState(11)
    lengths = [3, 1, 4]
    x = rng.standard_normal((8, 3))
    s = rng.standard_normal((3, 2))
    h0 = rng.standard_normal((3, 4)) * 0.5
    proj = rng.standard_normal((8, 4))
    main, startup, out = _build_dynamic_rnn()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        params = {n: np.array(scope.find_var(n).get_tensor()) for n in ('fc_0.w_0', 'fc_0.w_1', 'fc_0.w_2',
                                                                         'fc_0.b_0')}
        feed = {'x': fluid.create_lod_tensor(x, [lengths], fluid.CPUPlace()), 's': s, 'h0': h0, 'proj': proj}
        res = exe.run(main, feed=feed, fetch_list=[out, 'x@GRAD', 's@GRAD', 'h0@GRAD', 'fc_0.w_1@GRAD'],
                      return_numpy=False)
    assert res[0].recursive_sequence_lengths() == [lengths]
    got, dx, ds, dh0, dw = (np.array(r) for r in res)
    p = [params['fc_0.w_0'], params['fc_0.w_1'], params['fc_0.w_2'], params['fc_0.b_0']]
    np.testing.assert_allclose(got, _dynamic_rnn_reference(x, lengths, s, *p, h0), rtol=1e-10)

    def loss(x_, s_, h0_, w_h):
        return float(np.sum(_dynamic_rnn_reference(x_, lengths, s_, p[0], w_h, p[2], p[3], h0_) * proj))
    args = [x, s, h0, p[1]]
    for k, (g, name) in enumerate(zip((dx, ds, dh0, dw), ('x', 's', 'h0', 'w_h'))):
        check_grad(g, numeric_grad(loss, args, k, eps=1e-6), rtol=1e-5, atol=1e-7, name=name)


def test_static_rnn_matches_numpy_and_finite_differences():
    rng = np.random.RandomState(12)
    x = rng.standard_normal((5, 2, 3))
    h0 = rng.standard_normal((2, 4))
    proj = rng.standard_normal((5, 2, 4))
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 6
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        xv = fluid.data('x', [5, 2, 3], 'float64')
        hv = fluid.data('h0', [2, 4], 'float64')
        pv = fluid.data('proj', [5, 2, 4], 'float64')
        xv.stop_gradient = hv.stop_gradient = False
        rnn = L.StaticRNN()
        with rnn.step():
            w = rnn.step_input(xv)
            prev = rnn.memory(init=hv)
            h = L.fc([w, prev], 4, act='tanh')
            rnn.update_memory(prev, h)
            rnn.step_output(h)
        out = rnn()
        fluid.backward.append_backward(L.reduce_sum(out * pv))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        w_x, w_h, b = (np.array(scope.find_var(n).get_tensor()) for n in ('fc_0.w_0', 'fc_0.w_1', 'fc_0.b_0'))
        got, dx, dh0, dwh = exe.run(main, feed={'x': x, 'h0': h0, 'proj': proj},
                                    fetch_list=[out, 'x@GRAD', 'h0@GRAD', 'fc_0.w_1@GRAD'])

    def forward(x_, h0_, w_h):
        h, outs = h0_, []
        for t in range(x_.shape[0]):
            h = np.tanh(x_[t] @ w_x + h @ w_h + b)
            outs.append(h)
        return np.stack(outs)
    np.testing.assert_allclose(got, forward(x, h0, w_h), rtol=1e-10)
    args = [x, h0, w_h]
    for k, (g, name) in enumerate(zip((dx, dh0, dwh), ('x', 'h0', 'w_h'))):
        check_grad(g, numeric_grad(lambda *a: float(np.sum(forward(*a) * proj)), args, k, eps=1e-6), rtol=1e-5,
                   atol=1e-7,
                   name=name)


def test_while_gradient_counts_every_iteration():
    """While's gradient runs the grad block once per iteration, last first: d/dx of x^(2^3) through a*a thrice."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data('x', [1], 'float64')
        x.stop_gradient = False
        i = L.fill_constant([1], 'int64', 0)
        n = fluid.data('n', [1], 'int64')
        _, acc = L.while_loop(lambda i, a: L.less_than(i, n), lambda i, a: [L.increment(i, 1, in_place=False), a * a],
                              [i, x])
        fluid.backward.append_backward(L.mean(acc))
    exe = fluid.Executor(fluid.CPUPlace())
    for steps in (0, 1, 3):
        got, dx = exe.run(main, feed={'x': np.array([1.1]), 'n': np.array([steps], 'int64')},
                          fetch_list=[acc, 'x@GRAD'])
        p = 2 ** steps
        np.testing.assert_allclose(got, [1.1 ** p], rtol=1e-12)
        np.testing.assert_allclose(dx, [p * 1.1 ** (p - 1)], rtol=1e-12)


def test_rank_table_layers_reference():
    lengths = [2, 4, 1, 3]
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    main, startup = fluid.Program(), fluid.Program()
    CF = L.control_flow
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        xv = fluid.data('x', [-1, 2], 'float32', lod_level=1)
        table = CF.lod_rank_table(xv)
        array = CF.lod_tensor_to_array(xv, table)
        steps = [L.array_read(array, L.fill_constant([1], 'int64', t)) for t in range(4)]
        back = CF.array_to_lod_tensor(array, table)
        longest = CF.max_sequence_len(table)
    exe = fluid.Executor(fluid.CPUPlace())
    res = exe.run(main, feed={'x': fluid.create_lod_tensor(x, [lengths], fluid.CPUPlace())},
                  fetch_list=steps + [back, longest], return_numpy=False)
    starts = np.cumsum([0] + lengths)
    order = [1, 3, 0, 2]                      # by length, longest first
    for t in range(4):
        want = [x[starts[k] + t] for k in order if lengths[k] > t]
        np.testing.assert_array_equal(np.array(res[t]), np.array(want))
    np.testing.assert_array_equal(np.array(res[4]), x)
    assert res[4].recursive_sequence_lengths() == [lengths]
    assert np.array(res[5]).tolist() == [4]


def test_while_loop_gradient_matches_paddle_2_6():
    """The case Paddle 1.8.5 gets wrong: a = tanh(a * y) three times, d sum(a * w)/d(a0, y)."""
    inputs, _, _ = CASES['while_loop_gradient']
    x, y = inputs['x'][0].astype(np.float64), inputs['y'][0].astype(np.float64)
    got = sequence_cases.run_case(fluid, CASES, 'while_loop_gradient')
    w = np.array(got['proj_w'], np.float64)

    def loss(a, y_):
        for _ in range(3):
            a = np.tanh(a * y_)
        return float(np.sum(a * w))
    for var, want in WHILE_LOOP_GRADIENT_PD26.items():
        np.testing.assert_allclose(got['grads'][var], want, rtol=1e-5, atol=1e-7)
    check_grad(np.array(got['grads']['x']), numeric_grad(loss, [x, y], 0), rtol=1e-3, atol=1e-5, name='x')
    check_grad(np.array(got['grads']['y']), numeric_grad(loss, [x, y], 1), rtol=1e-3, atol=1e-5, name='y')
