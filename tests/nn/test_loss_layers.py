"""The paddle.nn loss Layer classes give the numbers of their nn.functional losses (whose numbers against real
Paddle 2.6.2 are in tests/golden/api/static_losses.npz), HSigmoidLoss owns Paddle's parameters, PairwiseDistance,
rnnt_loss's gradient against finite differences, class_center_sample's sampling, and the argument checks."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn.functional as F
from paddle_exec.framework import unique_name
from paddle_exec.kernels.loss_rnnt import rnnt_loss_and_grad
from tests.kernels.gradcheck import check_grad, numeric_grad

nn = paddle.nn


def run(build, feeds):
    """Builds `build(**vars)` -> list of outputs in a fresh program fed `feeds`; returns the fetched values."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), unique_name.guard():
        vs = {n: paddle.static.data(n, list(a.shape), str(a.dtype)) for n, a in feeds.items()}
        outs = build(**vs)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        return exe.run(main, feed=feeds, fetch_list=list(outs))


RNG = np.random.default_rng(0)
X, Y = RNG.standard_normal((4, 3)).astype('float32'), RNG.standard_normal((4, 3)).astype('float32')
SIGN = np.where(RNG.uniform(size=(4, 3)) > 0.5, 1.0, -1.0).astype('float32')


@pytest.mark.parametrize('layer,functional,inputs', [
    (lambda: nn.L1Loss('sum'), lambda x, y: F.l1_loss(x, y, 'sum'), ('x', 'y')),
    (lambda: nn.SmoothL1Loss(delta=0.5), lambda x, y: F.smooth_l1_loss(x, y, delta=0.5), ('x', 'y')),
    (lambda: nn.SoftMarginLoss('none'), lambda x, s: F.soft_margin_loss(x, s, 'none'), ('x', 's')),
    (lambda: nn.HingeEmbeddingLoss(margin=0.3), lambda x, s: F.hinge_embedding_loss(x, s, 0.3), ('x', 's')),
    (lambda: nn.MultiLabelSoftMarginLoss(), lambda x, p: F.multi_label_soft_margin_loss(x, p), ('x', 'p')),
    (lambda: nn.PoissonNLLLoss(full=True), lambda x, p: F.poisson_nll_loss(x, p, full=True), ('x', 'p')),
    (lambda: nn.KLDivLoss('batchmean'), lambda x, p: F.kl_div(x, p, 'batchmean'), ('x', 'p')),
    (lambda: nn.TripletMarginLoss(p=1.0, swap=True), lambda x, y, z: F.triplet_margin_loss(x, y, z, p=1.0, swap=True),
     ('x', 'y', 'z')),
    (lambda: nn.TripletMarginWithDistanceLoss(margin=0.5),
     lambda x, y, z: F.triplet_margin_with_distance_loss(x, y, z, margin=0.5), ('x', 'y', 'z')),
    (lambda: nn.PairwiseDistance(p=3.0, keepdim=True), lambda x, y: F.pairwise_distance(x, y, 3.0, keepdim=True),
     ('x', 'y')),
])
def test_loss_layer_equals_its_functional(layer, functional, inputs):
    feeds = {'x': X, 'y': Y, 'z': -Y, 's': SIGN, 'p': np.abs(Y) / np.abs(Y).sum()}
    feeds = {k: feeds[k] for k in inputs}
    a, b = run(lambda **vs: [layer()(*[vs[k] for k in inputs]), functional(*[vs[k] for k in inputs])], feeds)
    np.testing.assert_array_equal(a, b)


def test_classification_and_ranking_loss_layers():
    label = np.array([0, 2, 1, 2], np.int64)
    w = np.array([1.0, 0.5, 2.0], np.float32)
    rank = np.where(RNG.uniform(size=(4, 1)) > 0.5, 1.0, -1.0).astype('float32')

    def build(x, y, label, w, rank, sign):
        logp = F.log_softmax(x)
        return [nn.NLLLoss(weight=w)(logp, label), F.nll_loss(logp, label, weight=w),
                nn.MultiMarginLoss(p=2, margin=0.5)(x, label), F.multi_margin_loss(x, label, p=2, margin=0.5),
                nn.MarginRankingLoss(0.1)(x[:, :1], y[:, :1], rank), F.margin_ranking_loss(x[:, :1], y[:, :1], rank,
                                                                                            0.1),
                nn.CosineEmbeddingLoss(0.2)(x, y, sign), F.cosine_embedding_loss(x, y, sign, 0.2),
                nn.GaussianNLLLoss()(x, y, paddle.exp(y)), F.gaussian_nll_loss(x, y, paddle.exp(y))]
    outs = run(build, {'x': X, 'y': Y, 'label': label, 'w': w, 'rank': rank,
                       'sign': np.array([1, -1, 1, -1], np.int64)})
    for a, b in zip(outs[::2], outs[1::2]):
        np.testing.assert_array_equal(a, b)


def test_hsigmoid_loss_layer_owns_paddles_parameters():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), unique_name.guard():
        x = paddle.static.data('x', [3, 4], 'float32')
        label = paddle.static.data('label', [3], 'int64')
        layer = nn.HSigmoidLoss(feature_size=4, num_classes=6)
        out = layer(x, label)
    assert tuple(layer.weight.shape) == (5, 4) and tuple(layer.bias.shape) == (5, 1)
    assert [op.type for op in main.global_block().ops] == ['hierarchical_sigmoid']
    assert tuple(out.shape) == (3, 1)
    with pytest.raises(ValueError, match='num_classes must not be less than 2'):
        nn.HSigmoidLoss(4, 1)


def test_rnnt_layer_and_gradient_against_finite_differences():
    rng = np.random.default_rng(1)
    acts = rng.standard_normal((2, 3, 3, 4))
    labels, t_lens, u_lens = np.array([[1, 2], [3, 0]]), np.array([3, 2]), np.array([2, 1])
    weights = np.array([0.7, -1.3])          # different loss gradients per sequence
    for lam in (0.0, 0.3):
        loss, grad = rnnt_loss_and_grad(acts, labels, t_lens, u_lens, 0, lam)

        def weighted(a):
            return float(np.sum(rnnt_loss_and_grad(a, labels, t_lens, u_lens, 0, lam)[0] * weights))
        numeric = numeric_grad(weighted, [acts], 0, eps=1e-6)
        analytic = grad * weights[:, None, None, None]
        if lam == 0.0:
            check_grad(analytic, numeric, rtol=1e-5, atol=1e-7)
        else:   # FastEmit scales the emission gradients only; the loss is unchanged
            assert np.allclose(loss, rnnt_loss_and_grad(acts, labels, t_lens, u_lens, 0, 0.0)[0])
            blank = np.zeros_like(acts, bool)
            blank[..., 0] = True
            check_grad(analytic[blank], numeric[blank], rtol=1e-5, atol=1e-7)
    out, = run(lambda x, y, il, ll: [nn.RNNTLoss(fastemit_lambda=0.0, reduction='sum')(x, y, il, ll)],
               {'x': acts.astype('float32'), 'y': labels.astype('int32'), 'il': t_lens.astype('int32'),
                'll': u_lens.astype('int32')})
    np.testing.assert_allclose(out, loss.sum(), rtol=1e-5)


def test_class_center_sample_keeps_positives_and_samples_negatives():
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = 7
    with paddle.static.program_guard(main, startup), unique_name.guard():
        label = paddle.static.data('label', [5], 'int64')
        remapped, sampled = F.class_center_sample(label, num_classes=12, num_samples=6)
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {'label': np.array([9, 2, 9, 5, 2], np.int64)}
    r1, s1 = exe.run(main, feed=feed, fetch_list=[remapped, sampled])
    r2, s2 = exe.run(main, feed=feed, fetch_list=[remapped, sampled])
    assert s1[:3].tolist() == [2, 5, 9] and len(set(s1.tolist())) == 6 and s1.max() < 12
    assert r1.tolist() == [2, 0, 2, 1, 0]
    assert np.array_equal(s1, s2) and np.array_equal(r1, r2)         # a fixed seed draws the same negatives
    with pytest.raises(ValueError, match='num_samples less than or equal to 12'):
        F.class_center_sample(label, num_classes=12, num_samples=13)


def test_functional_losses_check_their_arguments():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data('x', [4, 3], 'float32')
        y = paddle.static.data('y', [4, 2], 'float32')
        with pytest.raises(ValueError, match="'reduction' in L1Loss"):
            F.l1_loss(x, x, reduction='avg')
        with pytest.raises(ValueError, match="input's shape must equal to label's shape"):
            F.soft_margin_loss(x, y)
        with pytest.raises(ValueError, match='variance is of incorrect shape'):
            F.gaussian_nll_loss(x, x, y)
        with pytest.raises(ValueError, match='margin between positive samples'):
            F.triplet_margin_loss(x, x, x, margin=-1.0)
        with pytest.raises(ValueError, match='Expected 2 or more dimensions'):
            F.nll_loss(paddle.static.data('v', [4], 'float32'), paddle.static.data('l', [4], 'int64'))
        with pytest.raises(ValueError, match='one card'):
            F.margin_cross_entropy(x, paddle.static.data('c', [4], 'int64'), group=object())
        with pytest.raises(ValueError, match='interval of'):
            nn.CosineEmbeddingLoss(margin=2)


def test_cross_entropy_soft_labels_with_class_weights_against_numpy():
    # Paddle 2.6.2 fails on this combination (a matmul shape error), so the reference is the formula:
    # loss_i = -sum_c p_ic log softmax(x_i)_c, times sum_c p_ic w_c; 'mean' divides by the total weight
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3)).astype('float32')
    p = rng.uniform(size=(4, 3)).astype('float32')
    p /= p.sum(axis=1, keepdims=True)
    w = np.array([0.5, 1.0, 2.0], np.float32)
    none, mean = run(lambda x, p, w: [F.cross_entropy(x, p, weight=w, soft_label=True, reduction='none'),
                                      F.cross_entropy(x, p, weight=w, soft_label=True)], {'x': x, 'p': p, 'w': w})
    logp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    per_sample = -(p * logp).sum(axis=1) * (p @ w)
    np.testing.assert_allclose(none.ravel(), per_sample, rtol=1e-5)
    np.testing.assert_allclose(mean, per_sample.sum() / (p @ w).sum(), rtol=1e-5)


def test_margin_cross_entropy_functional_against_numpy():
    # Paddle 2.6.2 has no CPU kernel for margin_cross_entropy; the reference is ArcFace's formula
    rng = np.random.default_rng(5)
    cos = rng.uniform(-0.9, 0.9, (4, 6)).astype('float32')
    label = np.array([1, 0, 5, 3], np.int64)
    loss, softmax, mean = run(lambda x, y: [*F.margin_cross_entropy(x, y, margin1=1.0, margin2=0.3, margin3=0.1,
                                                                    scale=16.0, return_softmax=True,
                                                                    reduction=None),
                                            F.margin_cross_entropy(x, y, margin2=0.3, scale=16.0)],
                              {'x': cos, 'y': label})
    z = cos.astype(np.float64).copy()
    rows = np.arange(4)
    z[rows, label] = np.cos(np.arccos(z[rows, label]) + 0.3) - 0.1
    z *= 16.0
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    np.testing.assert_allclose(loss.ravel(), -logp[rows, label], rtol=1e-5)
    np.testing.assert_allclose(softmax, np.exp(logp), rtol=1e-5, atol=1e-7)
    z2 = cos.astype(np.float64).copy()
    z2[rows, label] = np.cos(np.arccos(z2[rows, label]) + 0.3)
    z2 *= 16.0
    logp2 = z2 - z2.max(1, keepdims=True)
    logp2 -= np.log(np.exp(logp2).sum(1, keepdims=True))
    np.testing.assert_allclose(mean, np.mean(-logp2[rows, label]), rtol=1e-5)


def test_static_nn_nce_is_fluids_nce():
    assert paddle.static.nn.nce is fluid.layers.nce
    x = RNG.standard_normal((4, 3)).astype('float32')
    label = np.array([[1], [0], [4], [2]], np.int64)
    cost, = run(lambda x, label: [paddle.static.nn.nce(x, label, num_total_classes=5, num_neg_samples=2, seed=3)],
                {'x': x, 'label': label})
    assert cost.shape == (4, 1) and np.all(np.isfinite(cost)) and np.all(cost > 0)
