"""LSTM kernels with Paddle 1.8's CPU semantics: the `lstm` and `lstmp` ops (fluid.layers.dynamic_lstm /
dynamic_lstmp) over the rows of a LoD tensor, and the `lstm_unit` op (one step, fluid.layers.lstm_unit).

One numba call runs a whole recurrence: the sequences are reordered into time-step batches (recurrent.py
`batch_index`), and each step is one matrix product through the BLAS (blas.py `gemm`) and a loop over its rows.

lstm (math/detail/lstm_kernel.h). Input x [T, 4F] is the already projected input; its columns are the candidate,
input, forget and output gate pre-activations, in that order. Per step, with W [F, 4F] and the bias's first 4F
values added to every row:
    g = x_t + b + h_{t-1} W                     (h_{-1} W skipped without H0)
    cand = act_cand(g_c)
    i = act_gate(g_i + c_{t-1} * check_i)       f = act_gate(g_f + c_{t-1} * check_f)
    c_t = cand * i + c_{t-1} * f                (clipped to [-cell_clip, cell_clip] when cell_clip > 0)
    o = act_gate(g_o + c_t * check_o)
    h_t = o * act_cell(c_t)
with the peephole weights check_i, check_f, check_o the bias's values 4F:7F (use_peepholes; 0 otherwise) and
c_{-1} = C0 or 0. Outputs: Hidden and Cell in the input's row order, BatchGate (the activated gates, batch order)
and BatchCellPreAct (act_cell(c_t), batch order), which the gradient reads back.

Gradient (LSTMGradKernel). Only Hidden's gradient flows: Paddle 1.8 zero-fills the cell gradient (its
"TODO(qingqing) support the case output cell has gradient"), so Cell@GRAD is never read. Per step, last first:
    do = act_gate'(dh * act_cell(c))
    dc += act_cell'(dh * o) + do * check_o       (dc of a clipped cell, |c| >= cell_clip, is 0)
    dcand = act_cand'(dc * i), di = act_gate'(dc * cand), df = act_gate'(dc * c_{t-1})
    dc_{t-1} = di * check_i + df * check_f + dc * f
    dcheck_i += di * c_{t-1}, dcheck_f += df * c_{t-1} (only where c_{t-1} exists), dcheck_o += do * c_t
    dh_{t-1} += dg W^T, dW += h_{t-1}^T dg     (at step 0: dW += H0^T dg, dH0 = dg W^T, when H0 is given)
dInput is dg in row order; dBias[:4F] = the column sums of dg, dBias[4F:] the peephole sums. The recurrence only
needs dh_{t-1} step by step; dW's terms of the steps t > 0 are summed after it as one product (the previous outputs
of all those rows stacked in batch order, against their dg), a larger and faster GEMM than one per step.

Speed. The gate math is most of a forward step: it stays in the input's float type (recurrent.py `act`), and the
default activations (sigmoid gates, tanh cell and candidate, no clip) run a copy of the cell loops with the
activations fixed at compile time (`_cell_forward_default`, `_cell_backward_default`: same arithmetic, same numbers,
no branch per element).

lstmp (lstmp_op.h) adds a projection: the recurrence runs on r_t = proj(h_t W_proj) (W_proj [F, P], W [P, 4F],
H0 [N, P]), clipped to [-proj_clip, proj_clip] when proj_clip > 0. As in Paddle 1.8's kernel, `proj` is the
*cell* activation whenever proj_activation is not identity (the kernel tests proj_activation but applies
cell_activation; its gradient does the same). Outputs: Projection (row order), Cell (row order), BatchHidden,
BatchGate, BatchCellPreAct (batch order).

lstm_unit (lstm_unit_op.h, one step of the LSTM of Caffe2): X [N, 4D] holds i, f, o, g; with plain sigmoid/tanh,
    c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g);  h = sigmoid(o) * tanh(c)
"""
from __future__ import annotations

import math

import numpy as np

from .blas import gemm
from .jit import kernel_jit
from .recurrent import act, act_grad, batch_index, gather_rows, scatter_rows

__all__ = ['lstm_forward', 'lstm_backward', 'lstm_unit_forward', 'lstm_unit_backward']

_jit = kernel_jit(error_model='numpy')
_F = np.float32        # float32 literals keep float32 gate math in float32 (recurrent.py `act`)


@_jit
def _typed(value, like):
    """value as a scalar of like's dtype (a float64 clip would turn float32 gate math into float64)."""
    a = np.empty(1, like.dtype)
    a[0] = value
    return a[0]


@_jit
def _cell_forward_default(g, prev_c, check, c, c_act, h):
    """_cell_forward for the default activations (sigmoid gates, tanh cell and candidate) with a previous cell
    and no clip: the same arithmetic with the activations known when compiling, so that the loop carries no
    branch on them (about 1.3x faster, the gate math being most of a forward step)."""
    f = c.shape[1]
    check_i, check_f, check_o = check[0], check[1], check[2]
    for r in range(g.shape[0]):
        gr, pr, cr, ar, hr = g[r], prev_c[r], c[r], c_act[r], h[r]
        for j in range(f):
            pc = pr[j]
            cand = act(gr[j], 2)
            ig = act(gr[f + j] + pc * check_i[j], 1)
            fg = act(gr[2 * f + j] + pc * check_f[j], 1)
            state = cand * ig + pc * fg
            og = act(gr[3 * f + j] + state * check_o[j], 1)
            sa = act(state, 2)
            gr[j] = cand
            gr[f + j] = ig
            gr[2 * f + j] = fg
            gr[3 * f + j] = og
            cr[j] = state
            ar[j] = sa
            hr[j] = og * sa


@_jit
def _cell_forward(g, prev_c, has_prev, check, c, c_act, h, clip, act_gate, act_cell, act_cand):
    """One step of the gate math over the rows of g [b, 4F] (in place: g becomes the activated gates)."""
    if act_gate == 1 and act_cell == 2 and act_cand == 2 and has_prev and not clip > 0.0:
        _cell_forward_default(g, prev_c, check, c, c_act, h)
        return
    b = g.shape[0]
    f = c.shape[1]
    for r in range(b):
        for j in range(f):
            pc = prev_c[r, j] if has_prev else _F(0.0)
            cand = act(g[r, j], act_cand)
            ig = act(g[r, f + j] + pc * check[0, j], act_gate)
            fg = act(g[r, 2 * f + j] + pc * check[1, j], act_gate)
            state = cand * ig + pc * fg
            if clip > 0.0:
                state = min(max(state, -clip), clip)
            og = act(g[r, 3 * f + j] + state * check[2, j], act_gate)
            sa = act(state, act_cell)
            g[r, j] = cand
            g[r, f + j] = ig
            g[r, 2 * f + j] = fg
            g[r, 3 * f + j] = og
            c[r, j] = state
            c_act[r, j] = sa
            h[r, j] = og * sa


@_jit
def _cell_backward_default(g, dh, dc, prev_c, dprev_c, c, c_act, check, dcheck, dg):
    """_cell_backward for the default activations with a previous cell, its gradient wanted and no clip: the same
    arithmetic without branches in the loop (as _cell_forward_default)."""
    f = c.shape[1]
    check_i, check_f, check_o = check[0], check[1], check[2]
    dcheck_i, dcheck_f, dcheck_o = dcheck[0], dcheck[1], dcheck[2]
    for r in range(g.shape[0]):
        gr, dhr, dcr, pr, dpr, cr, ar, dgr = g[r], dh[r], dc[r], prev_c[r], dprev_c[r], c[r], c_act[r], dg[r]
        for j in range(f):
            cand = gr[j]
            ig = gr[f + j]
            fg = gr[2 * f + j]
            og = gr[3 * f + j]
            state = cr[j]
            sa = ar[j]
            pc = pr[j]
            d_o = act_grad(dhr[j] * sa, og, 1)
            ds = dcr[j] + act_grad(dhr[j] * og, sa, 2) + d_o * check_o[j]
            dcr[j] = ds
            d_cand = act_grad(ds * ig, cand, 2)
            d_i = act_grad(ds * cand, ig, 1)
            d_f = act_grad(ds * pc, fg, 1)
            dgr[j] = d_cand
            dgr[f + j] = d_i
            dgr[2 * f + j] = d_f
            dgr[3 * f + j] = d_o
            dpr[j] = d_i * check_i[j] + d_f * check_f[j] + ds * fg
            dcheck_i[j] += d_i * pc
            dcheck_f[j] += d_f * pc
            dcheck_o[j] += d_o * state


@_jit
def _cell_backward(g, dh, dc, prev_c, has_prev, dprev_c, want_dprev, c, c_act, check, dcheck, dg, clip,
                   act_gate, act_cell, act_cand):
    """One step of the gate gradients over the rows of g (dc holds what later steps sent back and is updated)."""
    if act_gate == 1 and act_cell == 2 and act_cand == 2 and has_prev and want_dprev and not clip > 0.0:
        _cell_backward_default(g, dh, dc, prev_c, dprev_c, c, c_act, check, dcheck, dg)
        return
    b = g.shape[0]
    f = c.shape[1]
    for r in range(b):
        for j in range(f):
            cand = g[r, j]
            ig = g[r, f + j]
            fg = g[r, 2 * f + j]
            og = g[r, 3 * f + j]
            state = c[r, j]
            sa = c_act[r, j]
            pc = prev_c[r, j] if has_prev else _F(0.0)
            d_o = act_grad(dh[r, j] * sa, og, act_gate)
            if clip > 0.0 and (state >= clip or state <= -clip):
                ds = _F(0.0)
            else:
                ds = dc[r, j] + act_grad(dh[r, j] * og, sa, act_cell) + d_o * check[2, j]
            dc[r, j] = ds
            d_cand = act_grad(ds * ig, cand, act_cand)
            d_i = act_grad(ds * cand, ig, act_gate)
            d_f = act_grad(ds * pc, fg, act_gate)
            dg[r, j] = d_cand
            dg[r, f + j] = d_i
            dg[r, 2 * f + j] = d_f
            dg[r, 3 * f + j] = d_o
            if want_dprev:
                dprev_c[r, j] = d_i * check[0, j] + d_f * check[1, j] + ds * fg
            if has_prev:
                dcheck[0, j] += d_i * pc
                dcheck[1, j] += d_f * pc
            dcheck[2, j] += d_o * state


@_jit
def _project(h, proj_w, out, proj_code, clip, fns):
    gemm(fns, False, False, 1.0, h, proj_w, 0.0, out)
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            v = act(out[r, j], proj_code)
            if clip > 0.0:
                v = min(max(v, -clip), clip)
            out[r, j] = v


@_jit
def lstm_forward(fns, x, offsets, weight, bias, check, h0, c0, has_h0, has_c0, is_reverse, cell_clip, act_gate,
                 act_cell, act_cand, proj_w, has_proj, proj_code, proj_clip):
    """The lstm op (has_proj False) or the lstmp op. check [3, F] holds the peephole weights (zeros without).
    Returns (out, cell, batch_gate, batch_cell_act, batch_hidden): out is Hidden (or Projection) and cell in row
    order, the rest in batch order (batch_hidden is the unprojected h; the lstm op does not output it)."""
    n_rows = x.shape[0]
    f = x.shape[1] // 4
    width = proj_w.shape[1] if has_proj else f
    starts, rows, order = batch_index(offsets, is_reverse)
    cell_clip = _typed(cell_clip, x)
    gate = gather_rows(x, rows)
    for i in range(n_rows):
        for j in range(4 * f):
            gate[i, j] += bias[0, j]
    n_seq = order.shape[0]
    h0_ord = np.empty((n_seq, width), x.dtype)
    c0_ord = np.empty((n_seq, f), x.dtype)
    for p in range(n_seq):
        if has_h0:
            h0_ord[p, :] = h0[order[p], :]
        if has_c0:
            c0_ord[p, :] = c0[order[p], :]
    batch_h = np.empty((n_rows, f), x.dtype)
    batch_c = np.empty((n_rows, f), x.dtype)
    batch_act = np.empty((n_rows, f), x.dtype)
    batch_out = np.empty((n_rows, width), x.dtype) if has_proj else batch_h
    for t in range(starts.shape[0] - 1):
        bs, be = starts[t], starts[t + 1]
        b = be - bs
        g = gate[bs:be]
        if t > 0:
            ps = starts[t - 1]
            gemm(fns, False, False, 1.0, batch_out[ps:ps + b], weight, 1.0, g)
            prev_c = batch_c[ps:ps + b]
            has_prev = True
        else:
            if has_h0:
                gemm(fns, False, False, 1.0, h0_ord[:b], weight, 1.0, g)
            prev_c = c0_ord[:b]
            has_prev = has_c0
        _cell_forward(g, prev_c, has_prev, check, batch_c[bs:be], batch_act[bs:be], batch_h[bs:be], cell_clip,
                      act_gate, act_cell, act_cand)
        if has_proj:
            _project(batch_h[bs:be], proj_w, batch_out[bs:be], proj_code, proj_clip, fns)
    out = scatter_rows(batch_out, rows, n_rows)
    cell = scatter_rows(batch_c, rows, n_rows)
    return out, cell, gate, batch_act, batch_h


@_jit
def lstm_backward(fns, offsets, weight, check, h0, c0, has_h0, has_c0, out, cell, batch_gate, batch_act,
                  batch_hidden, dout, is_reverse, cell_clip, act_gate, act_cell, act_cand, proj_w, has_proj,
                  proj_code, proj_clip, want_dh0, want_dc0):
    """Gradients of lstm / lstmp (module docstring): (dx, dweight, dgate_bias [4F], dcheck [3, F], dh0, dc0,
    dproj_w). dout is the gradient of Hidden (or Projection), row order."""
    n_rows = out.shape[0]
    f = cell.shape[1]
    width = out.shape[1]
    starts, rows, order = batch_index(offsets, is_reverse)
    cell_clip = _typed(cell_clip, out)
    n_seq = order.shape[0]
    batch_out = gather_rows(out, rows)
    batch_dout = gather_rows(dout, rows)
    batch_c = gather_rows(cell, rows)
    batch_dc = np.zeros((n_rows, f), out.dtype)
    dgate = np.empty((n_rows, 4 * f), out.dtype)
    dweight = np.zeros(weight.shape, out.dtype)
    dcheck = np.zeros((3, f), out.dtype)
    dproj_w = np.zeros(proj_w.shape, out.dtype)
    dh = np.empty((n_rows, f), out.dtype) if has_proj else batch_dout
    h0_ord = np.empty((n_seq, width), out.dtype)
    c0_ord = np.empty((n_seq, f), out.dtype)
    dh0_ord = np.zeros((n_seq, width), out.dtype)
    dc0_ord = np.zeros((n_seq, f), out.dtype)
    for p in range(n_seq):
        if has_h0:
            h0_ord[p, :] = h0[order[p], :]
        if has_c0:
            c0_ord[p, :] = c0[order[p], :]
    for t in range(starts.shape[0] - 2, -1, -1):
        bs, be = starts[t], starts[t + 1]
        b = be - bs
        if has_proj:
            dr = batch_dout[bs:be]
            r_out = batch_out[bs:be]
            for r in range(b):
                for j in range(width):
                    v = dr[r, j]
                    y = r_out[r, j]
                    if proj_clip > 0.0 and not (-proj_clip < y < proj_clip):
                        v = 0.0
                    dr[r, j] = act_grad(v, y, proj_code)
            gemm(fns, False, True, 1.0, dr, proj_w, 0.0, dh[bs:be])
            gemm(fns, True, False, 1.0, batch_hidden[bs:be], dr, 1.0, dproj_w)
        g = batch_gate[bs:be]
        dg = dgate[bs:be]
        if t > 0:
            ps = starts[t - 1]
            _cell_backward(g, dh[bs:be], batch_dc[bs:be], batch_c[ps:ps + b], True, batch_dc[ps:ps + b], True,
                           batch_c[bs:be], batch_act[bs:be], check, dcheck, dg, cell_clip, act_gate, act_cell,
                           act_cand)
            gemm(fns, False, True, 1.0, dg, weight, 1.0, batch_dout[ps:ps + b])
        else:
            _cell_backward(g, dh[bs:be], batch_dc[bs:be], c0_ord[:b], has_c0, dc0_ord[:b], has_c0 and want_dc0,
                           batch_c[bs:be], batch_act[bs:be], check, dcheck, dg, cell_clip, act_gate, act_cell,
                           act_cand)
            if has_h0:
                gemm(fns, True, False, 1.0, h0_ord[:b], dg, 1.0, dweight)
                if want_dh0:
                    gemm(fns, False, True, 1.0, dg, weight, 0.0, dh0_ord[:b])
    # dweight = sum over steps t > 0 of h_{t-1}^T dg_t, as one product: the previous outputs of every step's rows
    # (the first rows of the step before) stacked in batch order against dgate's rows from step 1 on
    if starts.shape[0] > 2:
        s1 = starts[1]
        prev_out = np.empty((n_rows - s1, width), out.dtype)
        for t in range(1, starts.shape[0] - 1):
            b = starts[t + 1] - starts[t]
            prev_out[starts[t] - s1:starts[t + 1] - s1] = batch_out[starts[t - 1]:starts[t - 1] + b]
        gemm(fns, True, False, 1.0, prev_out, dgate[s1:], 1.0, dweight)
    dx = scatter_rows(dgate, rows, n_rows)
    dbias = np.zeros(4 * f, out.dtype)
    for i in range(n_rows):
        for j in range(4 * f):
            dbias[j] += dgate[i, j]
    dh0 = np.zeros((n_seq, width), out.dtype)
    dc0 = np.zeros((n_seq, f), out.dtype)
    for p in range(n_seq):
        dh0[order[p], :] = dh0_ord[p, :]
        dc0[order[p], :] = dc0_ord[p, :]
    return dx, dweight, dbias, dcheck, dh0, dc0, dproj_w


# --- lstm_unit ---------------------------------------------------------------------------------------------------

@_jit
def _sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


@_jit
def _tanh(x):
    return 2.0 * _sigmoid(2.0 * x) - 1.0


@_jit
def lstm_unit_forward(x, c_prev, forget_bias):
    n, d = c_prev.shape
    c = np.empty((n, d), x.dtype)
    h = np.empty((n, d), x.dtype)
    for r in range(n):
        for j in range(d):
            i = _sigmoid(x[r, j])
            f = _sigmoid(x[r, d + j] + forget_bias)
            o = _sigmoid(x[r, 2 * d + j])
            g = _tanh(x[r, 3 * d + j])
            cv = f * c_prev[r, j] + i * g
            c[r, j] = cv
            h[r, j] = o * _tanh(cv)
    return c, h


@_jit
def lstm_unit_backward(x, c_prev, c, dh, dc, forget_bias):
    """(dx, dc_prev); dh or dc may be empty (0 rows): no gradient from that output."""
    n, d = c_prev.shape
    dx = np.empty(x.shape, x.dtype)
    dc_prev = np.empty((n, d), x.dtype)
    has_dh = dh.shape[0] == n
    has_dc = dc.shape[0] == n
    for r in range(n):
        for j in range(d):
            i = _sigmoid(x[r, j])
            f = _sigmoid(x[r, d + j] + forget_bias)
            o = _sigmoid(x[r, 2 * d + j])
            g = _tanh(x[r, 3 * d + j])
            tc = _tanh(c[r, j])
            hd = dh[r, j] if has_dh else 0.0
            term = (dc[r, j] if has_dc else 0.0) + hd * o * (1.0 - tc * tc)
            dc_prev[r, j] = term * f
            dx[r, j] = term * g * i * (1.0 - i)
            dx[r, d + j] = term * c_prev[r, j] * f * (1.0 - f)
            dx[r, 2 * d + j] = hd * tc * o * (1.0 - o)
            dx[r, 3 * d + j] = term * i * (1.0 - g * g)
    return dx, dc_prev
