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


# --- tdm_sampler --------------------------------------------------------------------------------------------------

TRAVEL = np.array([[1, 3], [1, 4], [2, 5], [2, 0]], 'int32')        # leaf -> its ancestor in layers 0 and 1
LAYER = np.array([[1], [2], [3], [4], [5], [6]], 'int32')           # layer 0: nodes 1, 2; layer 1: nodes 3..6


def _tdm_sampler(output_list=False, output_positive=True, seed=1):
    def build():
        x = fluid.data('x', [-1, 1], 'int32')
        travel = fluid.ParamAttr(name='tr', initializer=fluid.initializer.NumpyArrayInitializer(TRAVEL))
        layer = fluid.ParamAttr(name='ly', initializer=fluid.initializer.NumpyArrayInitializer(LAYER))
        out = fluid.contrib.layers.tdm_sampler(x, [1, 2], [2, 4], 4, tree_travel_attr=travel, tree_layer_attr=layer,
                                               output_positive=output_positive, output_list=output_list, seed=seed)
        return [v for group in out for v in group] if output_list else list(out)
    return _run(build, {'x': np.array([[0], [1], [2], [3]], 'int32')})


def test_tdm_sampler_samples_the_ancestors_and_other_nodes_of_each_layer():
    out, labels, mask = _tdm_sampler()
    # Paddle 1.8.5 (seed 1) drew [[1, 2, 3, 4, 6], [1, 2, 4, 3, 5], [2, 1, 5, 3, 6], [2, 1, 0, 0, 0]] with these
    # labels and masks; the negatives are numpy's draws here, so their positions are checked, not their values
    assert labels.tolist() == [[1, 0, 1, 0, 0]] * 3 + [[1, 0, 0, 0, 0]]
    assert mask.tolist() == [[1, 1, 1, 1, 1]] * 3 + [[1, 1, 0, 0, 0]]
    np.testing.assert_array_equal(out[:, 0], TRAVEL[:, 0])
    np.testing.assert_array_equal(out[:3, 2], TRAVEL[:3, 1])
    np.testing.assert_array_equal(out[3, 2:], 0)                     # leaf 3 has no layer-1 ancestor
    for row in range(4):
        assert out[row, 1] in (1, 2) and out[row, 1] != out[row, 0]
    for row in range(3):
        negatives = set(out[row, 3:].tolist())
        assert len(negatives) == 2 and negatives <= {3, 4, 5, 6} and out[row, 2] not in negatives
    again = _tdm_sampler()
    np.testing.assert_array_equal(again[0], out)                   # the seed fixes the draws


def test_tdm_sampler_output_list_splits_by_layer():
    out0, out1, lab0, lab1, mask0, mask1 = _tdm_sampler(output_list=True, output_positive=False)
    assert out0.shape == (4, 1, 1) and out1.shape == (4, 2, 1)
    assert not lab0.any() and not lab1.any()
    assert mask1[:, :, 0].tolist() == [[1, 1]] * 3 + [[0, 0]]
    with pytest.raises(ValueError, match='must be less than the number of nodes'):
        fluid.contrib.layers.tdm_sampler(fluid.data('y', [-1, 1], 'int32'), [2, 2], [2, 4], 4)


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


# --- match_matrix_tensor ------------------------------------------------------------------------------------------

MM_X = np.array([[0.43599489, 0.02592623, 0.54966247], [0.4353224, 0.42036781, 0.33033481], [0.20464863, 0.61927098,
    0.29965466]], 'float32')
MM_Y = np.array([[0.55079788, 0.70814782, 0.29090473], [0.5108276, 0.89294696, 0.8962931], [0.12558532, 0.20724288,
    0.0514672], [0.44080985, 0.02987621, 0.45683321], [0.64914405, 0.27848729, 0.67625493]], 'float32')
MM_W = (np.arange(3 * 2 * 3, dtype='float32').reshape(3, 2, 3) - 8) / 10
# Paddle 1.8.5: match_matrix_tensor(x (LoD [[2, 1]]), y (LoD [[3, 2]]), 2); gradients of sum(out * w),
# w = arange(1, 17).reshape(16, 1) / 10
MM_OUT = [-0.07737005, -0.03681214, -0.0201632, -0.31226912, -0.37196374, -0.07857674, 0.39297095, 0.66120112,
    0.09646087, 0.23917927, 0.44641757, 0.05815845, -0.04954137, -0.0857351, 0.26309967, 0.45489055]
MM_GX = [[-1.81066632, 0.58999527, 2.99065638], [-3.20486951, 0.72010899, 4.64508724], [-3.98623037, 0.45899767,
    4.90422535]]
MM_GY = [[0.04067053, 0.28764075, 0.53461093], [0.01973606, 0.31065845, 0.60158074], [-0.00119845, 0.33367616,
    0.66855061], [0.036017, 0.35061774, 0.66521865], [0.03618199, 0.37325421, 0.71032655]]
MM_GW = [0.62814331, 0.59538263, 0.6720469, 1.29341722, 1.5533855, 1.36598611, 1.15438104, 0.63259971, 1.21015799,
    1.60728359, 1.15502203, 1.682181, 0.73322761, 0.58186233, 0.7813462, 1.42539501, 1.55514216, 1.50326633]


def _mm_program(dtype='float32', weights=None):
    x = fluid.data('x', [-1, 3], dtype, lod_level=1)
    y = fluid.data('y', [-1, 3], dtype, lod_level=1)
    x.stop_gradient = y.stop_gradient = False
    attr = fluid.ParamAttr(name='mw', initializer=fluid.initializer.NumpyArrayInitializer(MM_W.astype(dtype)))
    out, tmp = fluid.contrib.layers.match_matrix_tensor(x, y, 2, param_attr=attr, dtype=dtype)
    w = fluid.layers.assign(np.arange(1, 17, dtype='float32').reshape(16, 1) / 10) if weights is None else \
        fluid.data('w', [16, 1], dtype)
    loss = fluid.layers.reduce_sum(out * w)
    gx, gy = fluid.gradients([loss], [x, y])
    fluid.backward.append_backward(loss)
    return [out, tmp, gx, gy]


def _mm_feed(x, y, weights=None):
    return {**({} if weights is None else {'w': weights}), 'x': _lod(x, [2, 1]), 'y': _lod(y, [3, 2])}


def test_match_matrix_tensor_matches_paddle_1_8():
    out, tmp, gx, gy, gw = _run(_mm_program, _mm_feed(MM_X, MM_Y), ['mw@GRAD'], return_numpy=False)
    np.testing.assert_allclose(np.array(out).ravel(), MM_OUT, rtol=1e-5, atol=1e-7)
    assert out.recursive_sequence_lengths() == [[12, 4]]
    assert np.array(tmp).shape == (18, 1)
    for got, want in ((gx, MM_GX), (gy, MM_GY), (gw, MM_GW)):
        np.testing.assert_allclose(np.array(got).ravel(), np.ravel(want), rtol=1e-5, atol=1e-6)


def test_match_matrix_tensor_gradients_are_the_finite_differences():
    x, y = MM_X.astype(np.float64), MM_Y.astype(np.float64)
    weights = np.random.default_rng(3).standard_normal((16, 1))
    _, _, gx, gy = _run(lambda: _mm_program('float64', weights), _mm_feed(x, y, weights), return_numpy=False)

    def loss(xv, yv):
        out = _run(lambda: _mm_program('float64', weights)[:1], _mm_feed(xv, yv, weights), return_numpy=False)[0]
        return float(np.sum(np.array(out) * weights))
    check_grad(np.array(gx), numeric_grad(loss, [x, y], 0), name='match_matrix_tensor: d/dX')
    check_grad(np.array(gy), numeric_grad(loss, [x, y], 1), name='match_matrix_tensor: d/dY')


# --- rank_attention -----------------------------------------------------------------------------------------------

def _rank_attention_reference(x, offset, param, max_rank):
    """Paddle's GPU kernel, loop by loop: Out[i] = sum_k X[row_k] @ RankParam block (rank_i - 1, rank_k - 1)."""
    d = x.shape[1]
    out = np.zeros((x.shape[0], param.shape[1]))
    for i, row in enumerate(offset):
        for k in range(max_rank):
            own, other, idx = row[0] - 1, row[2 * k + 1] - 1, row[2 * k + 2]
            if own < 0 or other < 0:
                continue
            start = (own * max_rank + other) * d
            out[i] += x[idx] @ param[start:start + d]
    return out


def test_rank_attention_against_the_gpu_kernels_loops_and_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 2))
    # instance ranks 1, 2, 3, 0 (absent); slot k holds the instance of rank k + 1 (-1: no such instance)
    offset = np.array([[1, 1, 0, 2, 1, 3, 2], [2, 1, 0, 2, 1, 3, 2], [3, 1, 0, 2, 1, -1, 0], [0, 1, 0, 2, 1, 3, 2]],
                      'int32')
    param = rng.standard_normal((2 * 3 * 3, 3))
    weights = rng.standard_normal((4, 3))

    def build(p):
        xv = fluid.data('x', [4, 2], 'float64')
        ro = fluid.data('ro', [4, 7], 'int32')
        attr = fluid.ParamAttr(name='rp', initializer=fluid.initializer.NumpyArrayInitializer(p))
        out = fluid.contrib.layers.rank_attention(xv, ro, [18, 3], attr, max_rank=3)
        fluid.backward.append_backward(fluid.layers.reduce_sum(out * fluid.data('w', [4, 3], 'float64')))
        return [out]
    feed = {'x': x, 'ro': offset, 'w': weights}
    out, grad = _run(lambda: build(param), feed, ['rp@GRAD'])
    np.testing.assert_allclose(out, _rank_attention_reference(x, offset, param, 3), rtol=1e-12)
    assert not out[3].any()

    def loss(p):
        return float(np.sum(_run(lambda: build(p), feed)[0] * weights))
    check_grad(grad, numeric_grad(loss, [param], 0), name='rank_attention: d/dRankParam')
