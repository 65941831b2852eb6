"""GRU kernels with Paddle 1.8's CPU semantics: the `gru` op (fluid.layers.dynamic_gru) over the rows of a LoD
tensor, and the `gru_unit` op (one step, fluid.layers.gru_unit).

Layout (math/gru_compute.cc). Input x [T, 3F] is the already projected input: update gate u, reset gate r and
candidate c pre-activations. The weight [F, 3F] is one buffer read as two matrices: its first 2F*F values are the
gate weight [F, 2F] (u and r), the last F*F the state weight [F, F] (c); they are NOT the column blocks W[:, :2F]
and W[:, 2F:]. Per step, with the bias [1, 3F] added to every row and h_{-1} = H0 (or nothing):
    [g_u, g_r] += h_{t-1} W_gate;  u = act_gate(g_u), r = act_gate(g_r)
    rh = r * h_{t-1}  (0 without a previous state);  g_c += rh W_state;  c = act(g_c)
    h_t = h_{t-1} - u h_{t-1} + u c       (origin_mode: u h_{t-1} + c - u c)
The gru op runs it over time-step batches (recurrent.py `batch_index`), one numba call for the whole recurrence;
outputs Hidden (row order), BatchGate (activated gates), BatchResetHiddenPrev (rh) and BatchHidden (batch order).

Gradient (GRUGradKernel, GRUUnitGradFunctor): per step, last first, with dh the step's hidden gradient (what later
steps sent back included):
    du = dh (c - h_{t-1}) (origin_mode: dh (h_{t-1} - c)); dh_{t-1} += dh (1 - u) (origin_mode: dh u)
    dc = act'(dh u) (origin_mode: act'(dh (1 - u)))
    d rh = dc W_state^T, dW_state += rh^T dc        -- only when a previous state and its gradient exist
    dr = act_gate'(d rh * h_{t-1}), dh_{t-1} += d rh * r, du = act_gate'(du)
    dh_{t-1} += [du, dr] W_gate^T, dW_gate += h_{t-1}^T [du, dr]   -- likewise
At step 0 the previous state is H0 and its gradient H0@GRAD: when the program has H0 but wants no gradient for it,
Paddle 1.8 skips step 0's weight gradients and its reset-gate gradient (both products are guarded by "previous
state and its gradient"); that is reproduced. dInput is the gate gradient in row order, dBias its column sums.
The weight gradients of the steps t > 0 are summed after the recurrence, one product each over all their rows
(rh and dc are contiguous in batch order from step 1 on; the previous states are stacked), not one per step.

gru_unit (gru_unit_op.h) is one such step over a plain [N, 3F] batch, HiddenPrev always present, with Eigen's
plain sigmoid / tanh; its gradient always computes every product.
"""
from __future__ import annotations

import math

import numpy as np

from .blas import gemm
from .jit import kernel_jit
from .recurrent import act, act_grad, batch_index, gather_rows, scatter_rows

__all__ = ['gru_forward', 'gru_backward', 'gru_unit_forward', 'gru_unit_backward', 'split_weight']

_jit = kernel_jit(error_model='numpy')
_F = np.float32        # float32 literals keep float32 gate math in float32 (recurrent.py `act`)


@_jit
def split_weight(weight):
    """(gate weight [F, 2F], state weight [F, F]): views of the weight's one buffer (module docstring)."""
    f = weight.shape[0]
    flat = weight.reshape(-1)
    return flat[:2 * f * f].reshape((f, 2 * f)), flat[2 * f * f:].reshape((f, f))


@_jit
def _gates(g, prev, has_prev, rh, act_gate):
    f = rh.shape[1]
    for r in range(g.shape[0]):
        for j in range(f):
            u = act(g[r, j], act_gate)
            rg = act(g[r, f + j], act_gate)
            g[r, j] = u
            g[r, f + j] = rg
            rh[r, j] = prev[r, j] * rg if has_prev else _F(0.0)


@_jit
def _output(g, prev, has_prev, h, act_node, origin_mode):
    f = h.shape[1]
    for r in range(g.shape[0]):
        for j in range(f):
            c = act(g[r, 2 * f + j], act_node)
            g[r, 2 * f + j] = c
            u = g[r, j]
            p = prev[r, j] if has_prev else _F(0.0)
            if origin_mode:
                h[r, j] = u * p + c - u * c
            else:
                h[r, j] = p - u * p + u * c


@_jit
def gru_forward(fns, x, offsets, weight, bias, h0, has_h0, is_reverse, act_gate, act_node, origin_mode):
    """(hidden in row order, batch_gate, batch_reset_hidden_prev, batch_hidden)."""
    n_rows = x.shape[0]
    f = x.shape[1] // 3
    w_gate, w_state = split_weight(weight)
    starts, rows, order = batch_index(offsets, is_reverse)
    gate = gather_rows(x, rows)
    for i in range(n_rows):
        for j in range(3 * f):
            gate[i, j] += bias[0, j]
    n_seq = order.shape[0]
    h0_ord = np.empty((n_seq, f), x.dtype)
    if has_h0:
        for p in range(n_seq):
            h0_ord[p, :] = h0[order[p], :]
    batch_h = np.empty((n_rows, f), x.dtype)
    batch_rh = np.empty((n_rows, f), x.dtype)
    for t in range(starts.shape[0] - 1):
        bs, be = starts[t], starts[t + 1]
        b = be - bs
        g = gate[bs:be]
        if t > 0:
            prev = batch_h[starts[t - 1]:starts[t - 1] + b]
            has_prev = True
        else:
            prev = h0_ord[:b]
            has_prev = has_h0
        if has_prev:
            gemm(fns, False, False, 1.0, prev, w_gate, 1.0, g[:, :2 * f])
        _gates(g, prev, has_prev, batch_rh[bs:be], act_gate)
        if has_prev:
            gemm(fns, False, False, 1.0, batch_rh[bs:be], w_state, 1.0, g[:, 2 * f:])
        _output(g, prev, has_prev, batch_h[bs:be], act_node, origin_mode)
    return scatter_rows(batch_h, rows, n_rows), gate, batch_rh, batch_h


@_jit
def _state_grad(g, prev, has_prev, dprev, want_dprev, dh, dg, act_node, origin_mode):
    f = dh.shape[1]
    for r in range(g.shape[0]):
        for j in range(f):
            u = g[r, j]
            c = g[r, 2 * f + j]
            p = prev[r, j] if has_prev else _F(0.0)
            d = dh[r, j]
            if origin_mode:
                dg[r, j] = d * (p - c)
                if want_dprev:
                    dprev[r, j] += d * u
                dg[r, 2 * f + j] = act_grad(d * (_F(1.0) - u), c, act_node)
            else:
                dg[r, j] = d * (c - p)
                if want_dprev:
                    dprev[r, j] += d * (_F(1.0) - u)
                dg[r, 2 * f + j] = act_grad(d * u, c, act_node)


@_jit
def _reset_grad(g, prev, has_prev, dprev, want_dprev, drh, dg, act_gate):
    f = drh.shape[1]
    for r in range(g.shape[0]):
        for j in range(f):
            u = g[r, j]
            rg = g[r, f + j]
            p = prev[r, j] if has_prev else _F(0.0)
            d_r = drh[r, j] * p
            if want_dprev:
                dprev[r, j] += drh[r, j] * rg
            dg[r, j] = act_grad(dg[r, j], u, act_gate)
            dg[r, f + j] = act_grad(d_r, rg, act_gate)


@_jit
def gru_backward(fns, offsets, weight, h0, has_h0, want_dh0, batch_gate, batch_rh, batch_h, dhidden, is_reverse,
                 act_gate, act_node, origin_mode):
    """(dx, dweight, dbias [3F], dh0) of the gru op (module docstring)."""
    n_rows = dhidden.shape[0]
    f = dhidden.shape[1]
    w_gate, w_state = split_weight(weight)
    starts, rows, order = batch_index(offsets, is_reverse)
    n_seq = order.shape[0]
    batch_dh = gather_rows(dhidden, rows)
    dgate = np.zeros((n_rows, 3 * f), dhidden.dtype)
    dweight = np.zeros(weight.shape, dhidden.dtype)
    dw_gate, dw_state = split_weight(dweight)
    h0_ord = np.empty((n_seq, f), dhidden.dtype)
    dh0_ord = np.zeros((n_seq, f), dhidden.dtype)
    if has_h0:
        for p in range(n_seq):
            h0_ord[p, :] = h0[order[p], :]
    drh = np.zeros((n_rows, f), dhidden.dtype)
    for t in range(starts.shape[0] - 2, -1, -1):
        bs, be = starts[t], starts[t + 1]
        b = be - bs
        g = batch_gate[bs:be]
        dg = dgate[bs:be]
        if t > 0:
            ps = starts[t - 1]
            prev = batch_h[ps:ps + b]
            dprev = batch_dh[ps:ps + b]
            has_prev = True
            has_dprev = True
        else:
            prev = h0_ord[:b]
            dprev = dh0_ord[:b]
            has_prev = has_h0
            has_dprev = has_h0 and want_dh0
        _state_grad(g, prev, has_prev, dprev, has_dprev, batch_dh[bs:be], dg, act_node, origin_mode)
        if has_prev and has_dprev:
            gemm(fns, False, True, 1.0, dg[:, 2 * f:], w_state, 0.0, drh[bs:be])
            if t == 0:
                gemm(fns, True, False, 1.0, batch_rh[bs:be], dg[:, 2 * f:], 1.0, dw_state)
        _reset_grad(g, prev, has_prev, dprev, has_dprev, drh[bs:be], dg, act_gate)
        if has_prev and has_dprev:
            gemm(fns, False, True, 1.0, dg[:, :2 * f], w_gate, 1.0, dprev)
            if t == 0:
                gemm(fns, True, False, 1.0, prev, dg[:, :2 * f], 1.0, dw_gate)
    # the weight gradients of the steps t > 0 as one product each (rows from step 1 on, in batch order): rh^T dg_c,
    # and the previous hidden states (the first rows of the step before, stacked) against dg_u,r
    if starts.shape[0] > 2:
        s1 = starts[1]
        gemm(fns, True, False, 1.0, batch_rh[s1:], dgate[s1:, 2 * f:], 1.0, dw_state)
        prev_h = np.empty((n_rows - s1, f), dhidden.dtype)
        for t in range(1, starts.shape[0] - 1):
            b = starts[t + 1] - starts[t]
            prev_h[starts[t] - s1:starts[t + 1] - s1] = batch_h[starts[t - 1]:starts[t - 1] + b]
        gemm(fns, True, False, 1.0, prev_h, dgate[s1:, :2 * f], 1.0, dw_gate)
    dx = scatter_rows(dgate, rows, n_rows)
    dbias = np.zeros(3 * f, dhidden.dtype)
    for i in range(n_rows):
        for j in range(3 * f):
            dbias[j] += dgate[i, j]
    dh0 = np.zeros((n_seq, f), dhidden.dtype)
    for p in range(n_seq):
        dh0[order[p], :] = dh0_ord[p, :]
    return dx, dweight, dbias, dh0


# --- gru_unit ----------------------------------------------------------------------------------------------------

@_jit
def _plain_act(x, code):
    """Eigen's functors (gru_unit): no clamping."""
    if code == 1:
        return 1.0 / (1.0 + math.exp(-x))
    if code == 2:
        return math.tanh(x)
    if code == 3:
        return x if x > 0 else 0.0 * x
    return x


@_jit
def gru_unit_forward(fns, x, h_prev, weight, bias, has_bias, act_gate, act_node, origin_mode):
    """(gate [N, 3F] activated, reset_hidden_prev [N, F], hidden [N, F])."""
    n = x.shape[0]
    f = h_prev.shape[1]
    w_gate, w_state = split_weight(weight)
    g = x.copy()
    if has_bias:
        for r in range(n):
            for j in range(3 * f):
                g[r, j] += bias[0, j]
    gemm(fns, False, False, 1.0, h_prev, w_gate, 1.0, g[:, :2 * f])
    rh = np.empty((n, f), x.dtype)
    for r in range(n):
        for j in range(f):
            g[r, j] = _plain_act(g[r, j], act_gate)
            g[r, f + j] = _plain_act(g[r, f + j], act_gate)
            rh[r, j] = g[r, f + j] * h_prev[r, j]
    gemm(fns, False, False, 1.0, rh, w_state, 1.0, g[:, 2 * f:])
    h = np.empty((n, f), x.dtype)
    for r in range(n):
        for j in range(f):
            c = _plain_act(g[r, 2 * f + j], act_node)
            g[r, 2 * f + j] = c
            u = g[r, j]
            p = h_prev[r, j]
            h[r, j] = c + u * (p - c) if origin_mode else u * (c - p) + p
    return g, rh, h


@_jit
def gru_unit_backward(fns, h_prev, weight, gate, rh, dh, act_gate, act_node, origin_mode):
    """(dx = dgate, dh_prev, dweight, dbias [3F])."""
    n = gate.shape[0]
    f = h_prev.shape[1]
    w_gate, w_state = split_weight(weight)
    dg = np.empty((n, 3 * f), gate.dtype)
    for r in range(n):
        for j in range(f):
            u = gate[r, j]
            c = gate[r, 2 * f + j]
            p = h_prev[r, j]
            d = dh[r, j]
            if origin_mode:
                dg[r, j] = act_grad(d * (p - c), u, act_gate)
                dg[r, 2 * f + j] = act_grad(d * (1.0 - u), c, act_node)
            else:
                dg[r, j] = act_grad(d * (c - p), u, act_gate)
                dg[r, 2 * f + j] = act_grad(d * u, c, act_node)
    drh = np.empty((n, f), gate.dtype)
    gemm(fns, False, True, 1.0, dg[:, 2 * f:], w_state, 0.0, drh)
    dh_prev = np.empty((n, f), gate.dtype)
    for r in range(n):
        for j in range(f):
            rg = gate[r, f + j]
            u = gate[r, j]
            dg[r, f + j] = act_grad(drh[r, j] * h_prev[r, j], rg, act_gate)
            dh_prev[r, j] = drh[r, j] * rg + dh[r, j] * (u if origin_mode else 1.0 - u)
    dweight = np.zeros(weight.shape, gate.dtype)
    dw_gate, dw_state = split_weight(dweight)
    gemm(fns, True, False, 1.0, rh, dg[:, 2 * f:], 0.0, dw_state)
    gemm(fns, True, False, 1.0, h_prev, dg[:, :2 * f], 0.0, dw_gate)
    gemm(fns, False, True, 1.0, dg[:, :2 * f], w_gate, 1.0, dh_prev)
    dbias = np.zeros(3 * f, gate.dtype)
    for r in range(n):
        for j in range(3 * f):
            dbias[j] += dg[r, j]
    return dg, dh_prev, dweight, dbias
