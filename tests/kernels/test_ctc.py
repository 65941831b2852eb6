"""CTC kernels (kernels/ctc.py) against brute force: the loss against -log of the summed probability of every
alignment (every path of classes over the time steps that collapses to the labels), the gradient against central
finite differences of the loss (tests/kernels/gradcheck.py), the loss-gradient scaling (norm_by_times) and the
greedy alignment against plain Python. LoD layout (rows of a sequence in a row) and the padded time-major layout
(row t * batch + b). Paddle 1.8.5's numbers for the ops are checked in tests/ops/test_structured_ops.py.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from paddle_exec.kernels import ctc as K
from tests.kernels.gradcheck import check_grad, numeric_grad

RNG = np.random.default_rng(3)
CLASSES = 4


def collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_loss(logits, labels, blank):
    """-log p(labels | logits): the softmax probabilities of every path that collapses to `labels`, summed."""
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    total = sum(np.prod([p[t, c] for t, c in enumerate(path)])
                for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0])
                if collapse(path, blank) == list(labels))
    return -np.log(total) if total > 0 else 0.0


def lod_run(x, offsets, labels, label_offsets, blank):
    """ctc_loss_and_grad on LoD rows: (loss [B], grad [max_T, B, C])."""
    lengths = np.diff(offsets)
    batch, max_t = lengths.shape[0], int(lengths.max())
    loss, grad = np.empty(batch), np.zeros((max_t * batch, x.shape[1]))
    K.ctc_loss_and_grad(x, offsets[:-1].copy(), 1, lengths, labels, label_offsets[:-1].copy(),
                        np.diff(label_offsets), blank, loss, grad)
    return loss, grad.reshape(max_t, batch, x.shape[1])


OFFSETS = np.array([0, 4, 5, 10], np.int64)
LABEL_OFFSETS = np.array([0, 2, 5, 7], np.int64)       # the middle sequence (1 step, 3 labels) is infeasible
X = RNG.standard_normal((10, CLASSES))


@pytest.mark.parametrize('blank', [0, 3])
def test_loss_is_minus_log_of_every_alignment(blank):
    labels = np.array([1, 2, 1, 2, 2, 1, 1], np.int64) if blank == 0 else np.array([0, 2, 1, 2, 2, 0, 0], np.int64)
    loss, grad = lod_run(X, OFFSETS, labels, LABEL_OFFSETS, blank)
    for b in range(3):
        x = X[OFFSETS[b]:OFFSETS[b + 1]]
        want = brute_loss(x, labels[LABEL_OFFSETS[b]:LABEL_OFFSETS[b + 1]], blank)
        np.testing.assert_allclose(loss[b], want, rtol=1e-10)
    assert loss[1] == 0.0 and not grad[:, 1].any()      # too short for its labels: warp-ctc's 0, no gradient


def test_empty_labels_and_repeats():
    x = RNG.standard_normal((4, 3))
    for labels in ([], [1, 1], [2]):
        loss, _ = lod_run(x, np.array([0, 4], np.int64), np.array(labels, np.int64),
                          np.array([0, len(labels)], np.int64), 0)
        np.testing.assert_allclose(loss[0], brute_loss(x, labels, 0), rtol=1e-10)


def test_gradient_matches_finite_differences():
    labels = np.array([1, 2, 3, 3, 1, 2, 2], np.int64)
    label_offsets = np.array([0, 2, 2, 7], np.int64)       # an empty label sequence, and repeats in the last
    offsets = np.array([0, 4, 6, 14], np.int64)
    x = RNG.standard_normal((14, CLASSES))
    _, grad = lod_run(x, offsets, labels, label_offsets, 0)
    for b in range(3):
        lo, hi = offsets[b], offsets[b + 1]

        def loss_b(xs, b=b, lo=lo, hi=hi):
            full = x.copy()
            full[lo:hi] = xs
            return lod_run(full, offsets, labels, label_offsets, 0)[0][b]

        check_grad(grad[:hi - lo, b], numeric_grad(loss_b, [x[lo:hi]], 0, eps=1e-5), rtol=1e-5, atol=1e-7,
                   name='sequence %d' % b)
        assert not grad[hi - lo:, b].any()


def test_padded_time_major_layout_matches_lod():
    max_t, batch = 5, 3
    lengths = np.array([5, 1, 5], np.int64)
    xp = RNG.standard_normal((max_t, batch, CLASSES))
    labels = np.array([[1, 2, 0], [3, 3, 1], [2, 2, 0]], np.int64)
    label_lengths = np.array([2, 3, 2], np.int64)
    loss, grad = np.empty(batch), np.zeros((max_t * batch, CLASSES))
    K.ctc_loss_and_grad(xp.reshape(-1, CLASSES), np.arange(batch, dtype=np.int64), batch, lengths, labels.reshape(-1),
                        np.arange(batch, dtype=np.int64) * 3, label_lengths, 0, loss, grad)
    rows = np.concatenate([xp[:n, b] for b, n in enumerate(lengths)])
    flat = np.concatenate([labels[b, :n] for b, n in enumerate(label_lengths)])
    lod_loss, lod_grad = lod_run(rows, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64), flat,
                                 np.concatenate([[0], np.cumsum(label_lengths)]).astype(np.int64), 0)
    np.testing.assert_allclose(loss, lod_loss, rtol=1e-12)
    np.testing.assert_allclose(grad.reshape(max_t, batch, CLASSES), lod_grad, rtol=1e-12)


@pytest.mark.parametrize('norm_by_times', [False, True])
def test_scale_grad_gathers_back_and_normalises(norm_by_times):
    offsets = np.array([0, 2, 2, 5], np.int64)
    lengths = np.diff(offsets)
    grad = RNG.standard_normal((3 * 3, 2))
    dloss = np.array([0.5, 2.0, -1.0])
    out = np.zeros((5, 2))
    K.ctc_scale_grad(grad, offsets[:-1].copy(), 1, lengths, dloss, norm_by_times, out)
    g3 = grad.reshape(3, 3, 2)
    want = np.concatenate([g3[:n, b] * dloss[b] / (n if norm_by_times else 1) for b, n in enumerate(lengths) if n])
    np.testing.assert_allclose(out, want, rtol=1e-12)


def ref_align(ids, blank, merge):
    out, prev = [], -1
    for token in ids:
        if token != blank and not (merge and token == prev):
            out.append(token)
        prev = token
    return out


@pytest.mark.parametrize('merge', [True, False])
def test_align_lod_and_padded(merge):
    ids = np.array([0, 2, 2, 0, 1, 1, 3, 3, 0, 3, 3], np.int64)
    starts, lengths = np.array([0, 4, 4], np.int64), np.array([4, 0, 7], np.int64)
    out, out_lengths = np.full(11, -9, np.int64), np.zeros(3, np.int64)
    written = K.ctc_align(ids, starts, lengths, 0, merge, out, 0, out_lengths)
    want = [ref_align(ids[s:s + n], 0, merge) for s, n in zip(starts, lengths)]
    assert out[:written].tolist() == sum(want, []) and out_lengths.tolist() == [len(w) for w in want]
    padded = np.full(3 * 7, -1, np.int64)
    K.ctc_align(ids, starts, lengths, 0, merge, padded, 7, out_lengths)
    for i, w in enumerate(want):
        assert padded[i * 7:i * 7 + 7].tolist() == w + [-1] * (7 - len(w))
