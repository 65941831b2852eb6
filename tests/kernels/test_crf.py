"""Linear-chain CRF kernels (kernels/crf.py) against brute force: the cost against log Z and the score summed over
every tag sequence, Viterbi against the best of every tag sequence, and the gradients against central finite
differences of the cost (tests/kernels/gradcheck.py). LoD-style sequences with an empty one, and the padded form
(starts every max_len rows). Paddle 1.8.5's numbers for the ops are checked in tests/ops/test_structured_ops.py.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from paddle_exec.kernels import crf as K
from tests.kernels.gradcheck import check_grad, numeric_grad

RNG = np.random.default_rng(5)
TAGS = 3
LENGTHS = np.array([3, 0, 1, 4], np.int64)
STARTS = np.concatenate([[0], np.cumsum(LENGTHS)[:-1]]).astype(np.int64)
ROWS = int(LENGTHS.sum())
X = RNG.standard_normal((ROWS, TAGS))
W = RNG.standard_normal((TAGS + 2, TAGS))
LABEL = RNG.integers(0, TAGS, ROWS).astype(np.int64)


def score(x, w, tags) -> float:
    """a[s_1] + b[s_L] + sum x[k, s_k] + sum w[2 + s_(k-1), s_k]."""
    total = w[0, tags[0]] + w[1, tags[-1]] + sum(x[k, t] for k, t in enumerate(tags))
    return total + sum(w[2 + a, b] for a, b in zip(tags[:-1], tags[1:]))


def ref_costs(x, w, label, starts, lengths):
    out = []
    for st, n in zip(starts, lengths):
        if n == 0:
            out.append(0.0)
            continue
        xs = x[st:st + n]
        scores = [score(xs, w, tags) for tags in itertools.product(range(x.shape[1]), repeat=n)]
        out.append(np.logaddexp.reduce(scores) - score(xs, w, list(label[st:st + n])))
    return np.array(out)


def forward(x, w, label, starts=STARTS, lengths=LENGTHS):
    alpha, x_exps, w_exps = np.zeros_like(x), np.empty_like(x), np.empty_like(w)
    cost = np.empty(starts.shape[0], x.dtype)
    status, row = K.crf_forward(x, w, label, starts, lengths, alpha, x_exps, w_exps, cost)
    assert (status, row) == (K.OK, -1)
    return cost, alpha, x_exps, w_exps


def test_cost_is_log_partition_minus_score():
    cost, alpha, x_exps, w_exps = forward(X, W, LABEL)
    np.testing.assert_allclose(cost, ref_costs(X, W, LABEL, STARTS, LENGTHS), rtol=1e-10)
    np.testing.assert_allclose(w_exps, np.exp(W), rtol=1e-12)
    np.testing.assert_allclose(x_exps, np.exp(X - X.max(1, keepdims=True)), rtol=1e-12)
    for st, n in zip(STARTS, LENGTHS):          # every forward vector is normalised to sum 1
        if n:
            np.testing.assert_allclose(alpha[st:st + n].sum(1), 1.0, rtol=1e-12)


def test_long_sequences_stay_finite():
    x = RNG.standard_normal((400, 5)) * 30
    w = RNG.standard_normal((7, 5)) * 5
    label = RNG.integers(0, 5, 400).astype(np.int64)
    cost, *_ = forward(x, w, label, np.array([0], np.int64), np.array([400], np.int64))
    assert np.isfinite(cost).all() and cost[0] > 0


def test_padded_form_reads_every_max_len_rows():
    max_len = 4
    lengths = np.array([2, 0, 4], np.int64)
    x = RNG.standard_normal((3 * max_len, TAGS))
    label = RNG.integers(0, TAGS, 3 * max_len).astype(np.int64)
    starts = np.arange(3, dtype=np.int64) * max_len
    cost, alpha, *_ = forward(x, W, label, starts, lengths)
    np.testing.assert_allclose(cost, ref_costs(x, W, label, starts, lengths), rtol=1e-10)
    assert not alpha[2:4].any() and not alpha[4:8].any()     # padding rows keep their zeros


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_gradients_match_finite_differences(dtype):
    g = RNG.standard_normal(LENGTHS.shape[0])

    def total(x, w):
        cost, *_ = forward(x, w, LABEL)
        return float(np.dot(cost, g))

    x, w = X.astype(dtype), W.astype(dtype)
    _, alpha, x_exps, w_exps = forward(x, w, LABEL)
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    status, _ = K.crf_backward(x_exps, w_exps, alpha, LABEL, STARTS, LENGTHS, g.astype(dtype), dx, dw, True)
    assert status == K.OK
    tol = dict(rtol=1e-6, atol=1e-8) if dtype == np.float64 else dict(rtol=2e-3, atol=2e-4)
    check_grad(dx, numeric_grad(total, [X, W], 0, eps=1e-5), name='d cost / d emission', **tol)
    check_grad(dw, numeric_grad(total, [X, W], 1, eps=1e-5), name='d cost / d transition', **tol)


def test_transition_gradient_can_be_skipped():
    _, alpha, x_exps, w_exps = forward(X, W, LABEL)
    dx, dw = np.zeros_like(X), np.zeros_like(W)
    K.crf_backward(x_exps, w_exps, alpha, LABEL, STARTS, LENGTHS, np.ones(4), dx, dw, False)
    assert dx.any() and not dw.any()


def brute_viterbi(x, w):
    tags = range(x.shape[1])
    return list(max(itertools.product(tags, repeat=x.shape[0]), key=lambda t: score(x, w, t)))


@pytest.mark.parametrize('dtype', [np.float64, np.float32])
def test_viterbi_is_the_best_tag_sequence(dtype):
    x, w = X.astype(dtype), W.astype(dtype)
    path = np.full(ROWS, -7, np.int64)
    K.crf_viterbi(x, w, STARTS, LENGTHS, np.finfo(dtype).min, path)
    for st, n in zip(STARTS, LENGTHS):
        if n:
            assert path[st:st + n].tolist() == brute_viterbi(X[st:st + n], W)


def test_viterbi_ties_take_the_first_best_tag():
    # every tag sequence scores the same: Paddle's strict '>' keeps tag 0 everywhere
    x, w = np.zeros((5, 4), np.float32), np.zeros((6, 4), np.float32)
    path = np.full(5, -1, np.int64)
    K.crf_viterbi(x, w, np.array([0], np.int64), np.array([5], np.int64), np.finfo(np.float32).min, path)
    assert path.tolist() == [0] * 5


def test_errors_are_reported_as_codes():
    cost, alpha, x_exps, w_exps = np.empty(1), np.zeros((2, 2)), np.empty((2, 2)), np.empty((4, 2))
    one = (np.array([0], np.int64), np.array([2], np.int64))
    status, row = K.crf_forward(np.zeros((2, 2)), np.zeros((4, 2)), np.array([0, 2], np.int64), *one, alpha, x_exps,
                                w_exps, cost)
    assert (status, row) == (K.BAD_LABEL, 1)
    w = np.zeros((4, 2))
    w[0] = -np.inf                                        # no tag may start: nothing is left to normalise
    status, row = K.crf_forward(np.zeros((2, 2)), w, np.array([0, 1], np.int64), *one, alpha, x_exps, w_exps, cost)
    assert (status, row) == (K.ZERO_SUM, 0)
