"""Sequence kernels (kernels/sequence_pool.py, kernels/sequence.py) against plain numpy references written sequence
by sequence, on random LoDs with empty sequences, and every gradient kernel against central finite differences
(tests/kernels/gradcheck.py). Paddle 1.8.5's numbers for the same ops are checked in tests/ops/test_sequence_ops.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.kernels import sequence as KS
from paddle_exec.kernels import sequence_pool as KP
from tests.kernels.gradcheck import check_grad, numeric_grad, projection

RNG = np.random.default_rng(11)


def offsets_of(lengths) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


LENGTHS = [3, 0, 1, 4, 2]
OFF = offsets_of(LENGTHS)
X = RNG.standard_normal((OFF[-1], 3))


def seqs(x, offsets):
    return [x[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


# --- sequence_pool -------------------------------------------------------------------------------------------------

def ref_pool(x, offsets, mode, pad_value):
    out, index = [], []
    for s in seqs(x, offsets):
        if len(s) == 0:
            out.append(np.full(x.shape[1], pad_value))
            index.append(np.full(x.shape[1], -1))
            continue
        index.append(np.argmax(s, axis=0))
        out.append({'SUM': s.sum(0), 'AVERAGE': s.mean(0), 'SQRT': s.sum(0) / np.sqrt(len(s)), 'MAX': s.max(0),
                    'FIRST': s[0], 'LAST': s[-1]}[mode])
    return np.array(out), np.array(index)


@pytest.mark.parametrize('mode', sorted(KP.POOL_MODES))
def test_pool_matches_numpy(mode):
    out, index = KP.pool_forward(X, OFF, KP.POOL_MODES[mode], 0.25)
    want, want_index = ref_pool(X, OFF, mode, 0.25)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    if mode == 'MAX':
        np.testing.assert_array_equal(index, want_index)


@pytest.mark.parametrize('mode', sorted(KP.POOL_MODES))
def test_pool_gradient(mode):
    m = KP.POOL_MODES[mode]
    w = projection((len(LENGTHS), 3), 1)
    _, index = KP.pool_forward(X, OFF, m, 0.0)
    num = numeric_grad(lambda x: np.sum(KP.pool_forward(x, OFF, m, 0.0)[0] * w), [X], 0)
    check_grad(KP.pool_backward(w, OFF, m, index, X.shape[0]), num, name=mode)


def test_pool_max_keeps_the_first_of_equal_maxima():
    x = np.array([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]])
    out, index = KP.pool_forward(x, offsets_of([3]), KP.POOL_MODES['MAX'], 0.0)
    assert out.tolist() == [[1.0, 3.0]] and index.tolist() == [[0, 1]]


# --- sequence_softmax ----------------------------------------------------------------------------------------------

def test_softmax_matches_numpy_and_its_gradient():
    x = RNG.standard_normal(OFF[-1])
    want = np.concatenate([np.exp(s - s.max()) / np.exp(s - s.max()).sum() for s in seqs(x, OFF) if len(s)])
    out = KP.softmax_forward(x, OFF)
    np.testing.assert_allclose(out, want, rtol=1e-12)
    w = projection(x.shape, 2)
    num = numeric_grad(lambda v: np.sum(KP.softmax_forward(v, OFF) * w), [x], 0)
    check_grad(KP.softmax_backward(out, w, OFF), num)


# --- the context projection of sequence_conv -------------------------------------------------------------------------

def ref_context(x, offsets, start, length, padding):
    up = max(0, -start)
    col = np.zeros((x.shape[0], length * x.shape[1]))
    for i, s in enumerate(seqs(x, offsets)):
        base = offsets[i]
        for t in range(len(s)):
            for j in range(length):
                k = t + start + j
                if 0 <= k < len(s):
                    col[base + t, j * x.shape[1]:(j + 1) * x.shape[1]] = s[k]
                elif padding is not None:
                    row = up + k if k < 0 else up + (k - len(s))
                    col[base + t, j * x.shape[1]:(j + 1) * x.shape[1]] = padding[row]
    return col


@pytest.mark.parametrize('start, length, trainable', [(-1, 3, False), (-2, 4, False), (0, 2, False), (-2, 3, True),
                                                      (0, 3, True), (-1, 3, True), (1, 2, True)])
def test_context_projection_matches_numpy_and_its_gradients(start, length, trainable):
    padding = RNG.standard_normal((max(0, -start) + max(0, start + length - 1), 3)) if trainable else None
    col = KP.context_project(X, OFF, start, length, padding)
    np.testing.assert_allclose(col, ref_context(X, OFF, start, length, padding), rtol=1e-12)
    w = projection(col.shape, 3)
    dx, dpad = KP.context_project_backward(w, OFF, start, length, X.shape[0], padding.shape if trainable else None)
    check_grad(dx, numeric_grad(lambda x: np.sum(KP.context_project(x, OFF, start, length, padding) * w), [X], 0))
    if trainable:
        check_grad(dpad, numeric_grad(lambda p: np.sum(KP.context_project(X, OFF, start, length, p) * w),
                                      [padding], 0))


# --- expand / expand_as ----------------------------------------------------------------------------------------------

def test_expand_matches_numpy_and_its_gradient():
    x_off = offsets_of([2, 1, 0, 3])
    x = RNG.standard_normal((x_off[-1], 2))
    ref = offsets_of([1, 3, 2, 0])
    want = np.concatenate([np.tile(s, (r, 1)) for s, r in zip(seqs(x, x_off), np.diff(ref)) if r and len(s)])
    out, out_off = KS.expand_forward(x, x_off, ref)
    np.testing.assert_array_equal(out, want)
    assert out_off.tolist() == offsets_of([2, 1, 1, 1, 0, 0]).tolist()
    w = projection(out.shape, 4)
    check_grad(KS.expand_backward(w, x_off, ref, x.shape[0]),
               numeric_grad(lambda v: np.sum(KS.expand_forward(v, x_off, ref)[0] * w), [x], 0))


def test_expand_as_matches_numpy_and_its_gradient():
    x = RNG.standard_normal((4, 2))
    ref = offsets_of([2, 0, 3, 1])
    np.testing.assert_array_equal(KS.expand_as_forward(x, ref), np.repeat(x, [2, 0, 3, 1], axis=0))
    w = projection((6, 2), 5)
    check_grad(KS.expand_as_backward(w, ref, 4),
               numeric_grad(lambda v: np.sum(KS.expand_as_forward(v, ref) * w), [x], 0))


# --- concat ----------------------------------------------------------------------------------------------------------

def test_concat_matches_numpy_and_its_gradient():
    offs = [offsets_of([1, 0, 2]), offsets_of([2, 1, 0]), offsets_of([0, 1, 1])]
    xs = [RNG.standard_normal((o[-1], 2)) for o in offs]
    out, out_off = KS.concat_forward(xs, offs)
    want = np.concatenate([np.concatenate([seqs(x, o)[i] for x, o in zip(xs, offs)]) for i in range(3)])
    np.testing.assert_array_equal(out, want)
    assert out_off.tolist() == offsets_of([3, 2, 3]).tolist()
    w = projection(out.shape, 6)
    grads = KS.concat_backward(w, offs, [x.shape[0] for x in xs])
    for k in range(3):
        check_grad(grads[k], numeric_grad(lambda *v: np.sum(KS.concat_forward(list(v), offs)[0] * w), xs, k))


# --- pad / unpad -----------------------------------------------------------------------------------------------------

def test_pad_and_unpad_match_numpy_and_their_gradients():
    pad_value = np.array([7.0, 8.0, 9.0])
    out = KS.pad_forward(X, OFF, pad_value, 5).reshape(len(LENGTHS), 5, 3)
    for i, s in enumerate(seqs(X, OFF)):
        np.testing.assert_array_equal(out[i, :len(s)], s)
        np.testing.assert_array_equal(out[i, len(s):], np.tile(pad_value, (5 - len(s), 1)))
    back = KS.unpad_forward(out.reshape(len(LENGTHS), -1), OFF, 3)
    np.testing.assert_array_equal(back, X)
    w = projection((len(LENGTHS), 15), 7)
    check_grad(KS.pad_backward(w, OFF, 3), numeric_grad(lambda v: np.sum(KS.pad_forward(v, OFF, pad_value, 5) * w),
                                                        [X], 0))
    padded = RNG.standard_normal((len(LENGTHS), 15))
    w2 = projection(X.shape, 8)
    check_grad(KS.pad_forward(w2, OFF, np.zeros(1), 5),
               numeric_grad(lambda v: np.sum(KS.unpad_forward(v, OFF, 3) * w2), [padded], 0))


# --- reverse / slice -------------------------------------------------------------------------------------------------

def test_reverse_matches_numpy():
    want = np.concatenate([s[::-1] for s in seqs(X, OFF) if len(s)])
    np.testing.assert_array_equal(KS.reverse(X, OFF), want)
    np.testing.assert_array_equal(KS.reverse(KS.reverse(X, OFF), OFF), X)     # its own gradient


def test_slice_matches_numpy_and_its_gradient():
    start = np.array([1, 0, 0, 2, 0], np.int64)
    size = np.array([2, 0, 1, 2, 1], np.int64)
    out, out_off = KS.slice_forward(X, OFF, start, size)
    want = np.concatenate([s[a:a + n] for s, a, n in zip(seqs(X, OFF), start, size) if n])
    np.testing.assert_array_equal(out, want)
    assert out_off.tolist() == offsets_of(size).tolist()
    w = projection(out.shape, 9)
    check_grad(KS.slice_backward(w, OFF, start, size, X.shape[0]),
               numeric_grad(lambda v: np.sum(KS.slice_forward(v, OFF, start, size)[0] * w), [X], 0))


# --- int sequences: enumerate, erase; scatter; mask ------------------------------------------------------------------

def test_enumerate_and_erase_match_numpy():
    ids = np.array([5, 1, 2, 2, 7, 1, 3], np.int64)
    off = offsets_of([3, 0, 4])
    want = [[ids[t + j] if t + j < off[i + 1] else -1 for j in range(3)]
            for i in range(3) for t in range(off[i], off[i + 1])]
    assert KS.enumerate_forward(ids, off, 3, -1).tolist() == want
    out, out_off = KS.erase_forward(ids, off, np.array([1, 2]))
    assert out.tolist() == [5, 7, 3] and out_off.tolist() == [0, 1, 1, 3]


def test_scatter_matches_numpy_and_its_gradient():
    x = RNG.standard_normal((3, 5))
    ids = np.array([0, 4, 4, 2, 1, 0], np.int64)
    off = offsets_of([3, 0, 3])
    upd = RNG.standard_normal(6)
    want = x.copy()
    for i in range(3):
        for j in range(off[i], off[i + 1]):
            want[i, ids[j]] += upd[j]
    np.testing.assert_allclose(KS.scatter_forward(x, ids, upd, off), want, rtol=1e-12)
    w = projection(x.shape, 10)
    check_grad(KS.scatter_backward(w, ids, off),
               numeric_grad(lambda u: np.sum(KS.scatter_forward(x, ids, u, off) * w), [upd], 0))


def test_mask_matches_numpy():
    x = np.array([[2, 0], [3, 1]])
    want = np.arange(4) < x[..., None]
    np.testing.assert_array_equal(KS.mask_forward(x, 4, np.float32), want.astype(np.float32))


def test_absolute_offsets_map_a_level_to_rows():
    lod = (np.array([0, 2, 3]), np.array([0, 1, 3, 6]))
    assert KS.absolute_offsets(lod, 0).tolist() == [0, 3, 6]
    assert KS.absolute_offsets(lod, 1).tolist() == [0, 1, 3, 6]
