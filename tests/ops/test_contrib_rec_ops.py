"""fluid.contrib's recommendation layers (ops/contrib_rec.py): tdm_child, shuffle_batch, fused_embedding_seq_pool and
sequence_topk_avg_pooling against the values Paddle 1.8.5 computed for the same programs (recorded from
/work/pd18 as literals), numpy references and finite-difference gradients."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.kernels.gradcheck import check_grad, numeric_grad

PLACE = fluid.CPUPlace()


def _run(build, feed, fetch_names=(), return_numpy=True):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        fetch = build()
    scope, exe = Scope(), fluid.Executor(PLACE)
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=list(fetch) + list(fetch_names), scope=scope,
                   return_numpy=return_numpy)


def _lod(array, lengths):
    t = fluid.LoDTensor()
    t.set(array, PLACE)
    t.set_recursive_sequence_lengths([lengths])
    return t


# --- tdm_child ----------------------------------------------------------------------------------------------------

TREE = np.array([[0, 0, 0, 1, 2], [0, 1, 0, 3, 4], [0, 1, 0, 5, 6], [3, 2, 1, 0, 0], [4, 2, 1, 0, 0],
                 [5, 2, 2, 0, 0], [6, 2, 2, 0, 0]], 'int32')


def test_tdm_child_matches_paddle_1_8():
    def build():
        x = fluid.data('x', [-1, 3], 'int32')
        attr = fluid.ParamAttr(name='tree', initializer=fluid.initializer.NumpyArrayInitializer(TREE))
        return fluid.contrib.layers.tdm_child(x, 7, 2, param_attr=attr)
    child, mask = _run(build, {'x': np.array([[0, 1, 2], [3, 4, 6]], 'int32')})
    # Paddle 1.8.5
    assert child.tolist() == [[[0, 0], [3, 4], [5, 6]], [[0, 0], [0, 0], [0, 0]]]
    assert mask.tolist() == [[[0, 0], [1, 1], [1, 1]], [[0, 0], [0, 0], [0, 0]]]
    assert child.dtype == np.int32


# --- shuffle_batch ------------------------------------------------------------------------------------------------

def test_shuffle_batch_permutes_rows_and_routes_gradients_back():
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    w = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)

    def build():
        xv = fluid.data('x', [6, 4], 'float32')
        xv.stop_gradient = False
        out = fluid.contrib.layers.shuffle_batch(xv, seed=3)
        loss = fluid.layers.reduce_sum(out * fluid.layers.assign(w))
        return [out, fluid.gradients([loss], [xv])[0]]
    out, grad = _run(build, {'x': x})
    order = (out[:, 0] // 4).astype(int)
    assert sorted(order.tolist()) == list(range(6)) and order.tolist() != list(range(6))
    np.testing.assert_array_equal(out, x[order])
    want = np.zeros_like(w)
    want[order] = w
    np.testing.assert_allclose(grad, want)
    again, _ = _run(build, {'x': x})
    np.testing.assert_array_equal(again, out)        # the same seed, the same order


# --- fused_embedding_seq_pool -------------------------------------------------------------------------------------

W = (np.arange(6 * 3, dtype='float32').reshape(6, 3) - 5) / 4
IDS = np.array([[1], [2], [5], [0], [1], [4], [2]], 'int64')


@pytest.mark.parametrize('is_sparse', [False, True])
def test_fused_embedding_seq_pool_matches_paddle_1_8(is_sparse):
    def build():
        ids = fluid.data('ids', [-1, 1], 'int64', lod_level=1)
        attr = fluid.ParamAttr(name='emb', initializer=fluid.initializer.NumpyArrayInitializer(W))
        e = fluid.contrib.layers.fused_embedding_seq_pool(ids, [6, 3], is_sparse=is_sparse, padding_idx=2,
                                                          param_attr=attr)
        loss = fluid.layers.reduce_sum(e * fluid.layers.assign(np.arange(1, 10, dtype='float32').reshape(3, 3)))
        fluid.backward.append_backward(loss)
        return [e]
    out, grad = _run(build, {'ids': _lod(IDS, [3, 1, 3])}, ['emb@GRAD'], return_numpy=False)
    # Paddle 1.8.5 (is_sparse=False)
    np.testing.assert_allclose(np.array(out), [[2.0, 2.5, 3.0], [-1.25, -1.0, -0.75], [1.25, 1.75, 2.25]])
    dense = grad.to_dense() if is_sparse else np.array(grad)
    np.testing.assert_allclose(dense, [[4, 5, 6], [8, 10, 12], [0, 0, 0], [0, 0, 0], [7, 8, 9], [1, 2, 3]])


def test_fused_embedding_seq_pool_gradient_is_the_finite_difference():
    weights = np.random.default_rng(1).standard_normal((3, 3))

    def loss(w):
        out = _run(lambda: [_pool_of(w)], {'ids': _lod(IDS, [3, 1, 3])})[0]
        return float(np.sum(out * weights))

    def _pool_of(w):
        ids = fluid.data('ids', [-1, 1], 'int64', lod_level=1)
        attr = fluid.ParamAttr(name='emb', initializer=fluid.initializer.NumpyArrayInitializer(w))
        return fluid.contrib.layers.fused_embedding_seq_pool(ids, [6, 3], padding_idx=2, param_attr=attr,
                                                             dtype='float64')

    def build():
        e = _pool_of(W.astype(np.float64))
        fluid.backward.append_backward(fluid.layers.reduce_sum(e * fluid.data('w', [3, 3], 'float64')))
        return []
    (analytic,) = _run(build, {'ids': _lod(IDS, [3, 1, 3]), 'w': weights}, ['emb@GRAD'])
    check_grad(analytic, numeric_grad(loss, [W.astype(np.float64)], 0), name='fused_embedding_seq_pool: d/dW')


# --- sequence_topk_avg_pooling ------------------------------------------------------------------------------------

ROWS, COLS, TOPKS = [2, 3], [4, 2], [1, 3]
N_X = sum(2 * r * c for r, c in zip(ROWS, COLS))
X_TOPK = np.random.RandomState(0).permutation(N_X).astype('float32').reshape(-1, 1) / 7
# Paddle 1.8.5, channel_num=2, topks [1, 3]; the gradient of sum(out * w), w = arange(1, 21).reshape(5, 4) / 10
TOPK_OUT = [[3.142857074737549, 2.5238094329833984, 3.5714285373687744, 2.904762029647827],
            [3.4285714626312256, 2.2857141494750977, 3.857142925262451, 3.0],
            [0.8571428656578064, 0.4761904776096344, 3.2857143878936768, 1.2380952835083008],
            [2.7142856121063232, 1.7619047164916992, 3.0, 1.0],
            [1.2857142686843872, 0.7619047164916992, 2.142857074737549, 1.2857142686843872]]
TOPK_GRAD = [0.0, 0.1666666716337204, 0.06666667014360428, 0.06666667014360428, 0.0, 0.20000000298023224,
             0.699999988079071, 0.20000000298023224, 0.13333334028720856, 0.4333333373069763, 0.13333334028720856, 0.0,
             0.2666666805744171, 0.9666666984558105, 0.2666666805744171, 0.0, 1.2333333492279053, 0.3333333432674408,
             0.46666666865348816, 1.7666666507720947, 2.299999952316284, 0.5999999642372131, 1.5, 0.4000000059604645,
             0.5333333611488342, 2.0333333015441895, 2.566666603088379, 0.6666666865348816]


def _topk_program(dtype='float32', weights=None):
    x = fluid.data('x', [-1, 1], dtype, lod_level=1)
    row = fluid.data('row', [-1, 1], 'float32', lod_level=1)
    col = fluid.data('col', [-1, 1], 'float32', lod_level=1)
    x.stop_gradient = False
    out = fluid.contrib.layers.sequence_topk_avg_pooling(x, row, col, topks=TOPKS, channel_num=2)
    w = fluid.layers.assign(np.arange(1, 21, dtype=dtype).reshape(5, 4) / 10) if weights is None else \
        fluid.data('w', [5, 4], dtype)
    loss = fluid.layers.reduce_sum(out * w)
    return out, fluid.gradients([loss], [x])[0]


def _topk_feed(x, weights=None):
    return {**({} if weights is None else {'w': weights}), 'x': _lod(x, [2 * r * c for r, c in zip(ROWS, COLS)]),
            'row': _lod(np.zeros((5, 1), 'float32'), ROWS),
            'col': _lod(np.zeros((6, 1), 'float32'), COLS)}


def test_sequence_topk_avg_pooling_matches_paddle_1_8():
    out, grad = _run(lambda: list(_topk_program()), _topk_feed(X_TOPK), return_numpy=False)
    np.testing.assert_allclose(np.array(out), TOPK_OUT, rtol=1e-6)
    assert out.recursive_sequence_lengths() == [ROWS]
    np.testing.assert_allclose(np.array(grad).ravel(), TOPK_GRAD, rtol=1e-6)


def test_sequence_topk_avg_pooling_against_numpy_and_finite_differences():
    x = X_TOPK.astype(np.float64)
    weights = np.random.default_rng(2).standard_normal((5, 4))
    want, r0, start = np.zeros((5, 4)), 0, 0
    for rows, cols in zip(ROWS, COLS):
        block = x[start:start + 2 * rows * cols, 0].reshape(2, rows, cols)
        for c in range(2):
            for r in range(rows):
                top = np.sort(block[c, r])[::-1]
                for k_idx, k in enumerate(TOPKS):
                    want[r0 + r, c * 2 + k_idx] = top[:k].sum() / k
        r0, start = r0 + rows, start + 2 * rows * cols
    out, grad = _run(lambda: list(_topk_program('float64', weights)), _topk_feed(x, weights), return_numpy=False)
    np.testing.assert_allclose(np.array(out), want, rtol=1e-12)
    grad = np.array(grad)

    def loss(xv):
        out = _run(lambda: [_topk_program('float64', weights)[0]], _topk_feed(xv, weights), return_numpy=False)[0]
        return float(np.sum(np.array(out) * weights))
    check_grad(grad, numeric_grad(loss, [x], 0, eps=1e-6), name='sequence_topk_avg_pooling: d/dX')
