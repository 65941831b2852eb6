"""paddle.nn.functional 2.6 losses (and pairwise_distance): forward values and gradients of sum(out * proj),
recorded with paddlepaddle 2.6.2 (record_api_cases.py). margin_cross_entropy is not here: Paddle has no CPU
kernel for it (tests/ops/test_loss_classification_ops.py checks it against numpy)."""
import numpy as np

API = 'static'
RTOL, ATOL = 2e-5, 2e-6


def _data(paddle, name, shape, dtype='float32'):
    # Paddle 2.6 marks an op's outputs stop_gradient when all its inputs are: inputs that get gradients must say
    # so before the ops are built
    var = paddle.static.data(name=name, shape=shape, dtype=dtype)
    var.stop_gradient = not dtype.startswith('float')
    return var


def _pair(paddle, rng, shape, **kw):
    x, y = _data(paddle, 'x', shape), _data(paddle, 'y', shape)
    feeds = {'x': rng.randn(*shape).astype('float32'), 'y': rng.randn(*shape).astype('float32')}
    return x, y, feeds


def case_l1_loss(paddle, rng):
    F = paddle.nn.functional
    x, y, feeds = _pair(paddle, rng, [4, 3])
    none, total, avg = F.l1_loss(x, y, 'none'), F.l1_loss(x, y, 'sum'), F.l1_loss(x, y)
    return {'fetch': [none, total, avg], 'feeds': feeds, 'out': none, 'wrt': [x, y]}


def case_soft_margin_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [5, 2]), _data(paddle, 'label', [5, 2], 'int64')
    out = F.soft_margin_loss(x, label, reduction='none')
    feeds = {'x': rng.randn(5, 2).astype('float32'), 'label': np.where(rng.rand(5, 2) > 0.5, 1, -1).astype('int64')}
    return {'fetch': [out, F.soft_margin_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_hinge_embedding_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [6, 3]), _data(paddle, 'label', [6, 3])
    out = F.hinge_embedding_loss(x, label, margin=0.7, reduction='none')
    feeds = {'x': rng.randn(6, 3).astype('float32'),
             'label': np.where(rng.rand(6, 3) > 0.5, 1.0, -1.0).astype('float32')}
    return {'fetch': [out, F.hinge_embedding_loss(x, label, reduction='sum')], 'feeds': feeds, 'out': out,
            'wrt': [x]}


def case_multi_label_soft_margin_loss(paddle, rng):
    F = paddle.nn.functional
    x, label, w = _data(paddle, 'x', [4, 5]), _data(paddle, 'label', [4, 5]), _data(paddle, 'w', [5])
    out = F.multi_label_soft_margin_loss(x, label, weight=w, reduction='none')
    feeds = {'x': rng.randn(4, 5).astype('float32'), 'label': (rng.rand(4, 5) > 0.5).astype('float32'),
             'w': rng.uniform(0.5, 2, 5).astype('float32')}
    return {'fetch': [out, F.multi_label_soft_margin_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_poisson_nll_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [4, 3]), _data(paddle, 'label', [4, 3])
    out = F.poisson_nll_loss(x, label, full=True, reduction='none')
    raw = F.poisson_nll_loss(paddle.exp(x), label, log_input=False, reduction='sum')
    feeds = {'x': rng.randn(4, 3).astype('float32'), 'label': rng.randint(0, 5, (4, 3)).astype('float32')}
    return {'fetch': [out, raw, F.poisson_nll_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_gaussian_nll_loss(paddle, rng):
    F = paddle.nn.functional
    x, label, var = _data(paddle, 'x', [4, 3]), _data(paddle, 'label', [4, 3]), _data(paddle, 'var', [4])
    out = F.gaussian_nll_loss(x, label, var, full=True, reduction='none')
    feeds = {'x': rng.randn(4, 3).astype('float32'), 'label': rng.randn(4, 3).astype('float32'),
             'var': rng.uniform(0.2, 2, 4).astype('float32')}
    return {'fetch': [out, F.gaussian_nll_loss(x, label, var)], 'feeds': feeds, 'out': out, 'wrt': [x, var]}


def case_margin_ranking_loss(paddle, rng):
    F = paddle.nn.functional
    x, y, feeds = _pair(paddle, rng, [6, 1])
    label = _data(paddle, 'label', [6, 1])
    feeds['label'] = np.where(rng.rand(6, 1) > 0.5, 1.0, -1.0).astype('float32')
    out = F.margin_ranking_loss(x, y, label, margin=0.2, reduction='none')
    return {'fetch': [out, F.margin_ranking_loss(x, y, label, reduction='sum'),
                      F.margin_ranking_loss(x, y, label, margin=0.1)], 'feeds': feeds, 'out': out, 'wrt': [x, y]}


def case_cosine_embedding_loss(paddle, rng):
    F = paddle.nn.functional
    x, y, feeds = _pair(paddle, rng, [5, 4])
    label = _data(paddle, 'label', [5], 'int64')
    feeds['label'] = np.array([1, -1, 1, -1, -1], 'int64')
    out = F.cosine_embedding_loss(x, y, label, margin=0.1, reduction='none')
    return {'fetch': [out, F.cosine_embedding_loss(x, y, label)], 'feeds': feeds, 'out': out, 'wrt': [x, y]}


def _triplet_feeds(paddle, rng, shape):
    names = ('a', 'p', 'n')
    vs = [_data(paddle, n, shape) for n in names]
    return vs, {n: rng.randn(*shape).astype('float32') for n in names}


def case_triplet_margin_loss(paddle, rng):
    F = paddle.nn.functional
    (a, p, n), feeds = _triplet_feeds(paddle, rng, [5, 4])
    out = F.triplet_margin_loss(a, p, n, margin=0.5, reduction='none')
    swapped = F.triplet_margin_loss(a, p, n, p=1, swap=True, reduction='sum')
    return {'fetch': [out, swapped], 'feeds': feeds, 'out': out, 'wrt': [a, p, n]}


def case_triplet_margin_loss_swap_l1(paddle, rng):
    F = paddle.nn.functional
    (a, p, n), feeds = _triplet_feeds(paddle, rng, [4, 3])
    out = F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True, reduction='none')
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [a, p, n]}


def case_triplet_margin_with_distance_loss(paddle, rng):
    F = paddle.nn.functional
    (a, p, n), feeds = _triplet_feeds(paddle, rng, [5, 3])
    out = F.triplet_margin_with_distance_loss(a, p, n, margin=1.5, reduction='none')
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [a, p, n]}


def case_multi_margin_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [4, 5]), _data(paddle, 'label', [4], 'int64')
    out = F.multi_margin_loss(x, label, p=2, margin=0.8, reduction='none')
    feeds = {'x': rng.randn(4, 5).astype('float32'), 'label': rng.randint(0, 5, 4).astype('int64')}
    return {'fetch': [out, F.multi_margin_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_multi_margin_loss_weighted(paddle, rng):
    F = paddle.nn.functional
    x, label, w = _data(paddle, 'x', [3, 4]), _data(paddle, 'label', [3], 'int64'), _data(paddle, 'w', [4])
    out = F.multi_margin_loss(x, label, weight=w, reduction='none')
    feeds = {'x': rng.randn(3, 4).astype('float32'), 'label': rng.randint(0, 4, 3).astype('int64'),
             'w': rng.uniform(0.5, 2, 4).astype('float32')}
    return {'fetch': [out, F.multi_margin_loss(x, label, weight=w)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_npair_loss(paddle, rng):
    F = paddle.nn.functional
    a, p = _data(paddle, 'a', [6, 4]), _data(paddle, 'p', [6, 4])
    labels = _data(paddle, 'labels', [6])
    out = F.npair_loss(a, p, labels, l2_reg=0.01)
    feeds = {'a': rng.randn(6, 4).astype('float32'), 'p': rng.randn(6, 4).astype('float32'),
             'labels': np.array([0, 1, 2, 1, 0, 3], 'float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [a, p]}


def case_nll_loss(paddle, rng):
    F = paddle.nn.functional
    x, label, w = _data(paddle, 'x', [6, 4]), _data(paddle, 'label', [6], 'int64'), _data(paddle, 'w', [4])
    out = F.nll_loss(x, label, weight=w, ignore_index=2, reduction='none')
    feeds = {'x': rng.randn(6, 4).astype('float32'), 'label': np.array([0, 3, 2, 1, 2, 3], 'int64'),
             'w': rng.uniform(0.5, 2, 4).astype('float32')}
    return {'fetch': [out, F.nll_loss(x, label, weight=w, ignore_index=2), F.nll_loss(x, label, reduction='sum')],
            'feeds': feeds, 'out': out, 'wrt': [x]}


def case_nll_loss_images(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [2, 3, 2, 2]), _data(paddle, 'label', [2, 2, 2], 'int64')
    x3, label3 = _data(paddle, 'x3', [2, 3, 4]), _data(paddle, 'label3', [2, 4], 'int64')
    out = F.nll_loss(x, label, reduction='none')
    out3 = F.nll_loss(x3, label3, reduction='none')
    feeds = {'x': rng.randn(2, 3, 2, 2).astype('float32'), 'label': rng.randint(0, 3, (2, 2, 2)).astype('int64'),
             'x3': rng.randn(2, 3, 4).astype('float32'), 'label3': rng.randint(0, 3, (2, 4)).astype('int64')}
    return {'fetch': [out, out3, F.nll_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_hsigmoid_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [4, 3]), _data(paddle, 'label', [4], 'int64')
    w = paddle.static.create_parameter([5, 3], 'float32', name='hs_w')
    b = paddle.static.create_parameter([5, 1], 'float32', name='hs_b', is_bias=True)
    out = F.hsigmoid_loss(x, label, 6, w, b)
    feeds = {'x': rng.randn(4, 3).astype('float32'), 'label': rng.randint(0, 6, 4).astype('int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x, w, b]}


def case_sigmoid_focal_loss(paddle, rng):
    F = paddle.nn.functional
    x, label, norm = _data(paddle, 'x', [4, 3]), _data(paddle, 'label', [4, 3]), _data(paddle, 'norm', [1])
    out = F.sigmoid_focal_loss(x, label, normalizer=norm, alpha=0.3, gamma=1.5, reduction='none')
    feeds = {'x': rng.randn(4, 3).astype('float32'), 'label': (rng.rand(4, 3) > 0.6).astype('float32'),
             'norm': np.array([2.5], 'float32')}
    return {'fetch': [out, F.sigmoid_focal_loss(x, label)], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_dice_loss(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [3, 4, 5]), _data(paddle, 'label', [3, 4, 1], 'int64')
    out = F.dice_loss(F.softmax(x), label)
    feeds = {'x': rng.randn(3, 4, 5).astype('float32'), 'label': rng.randint(0, 5, (3, 4, 1)).astype('int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_rnnt_loss(paddle, rng):
    F = paddle.nn.functional
    x = _data(paddle, 'x', [2, 4, 4, 5])
    label, il, ll = _data(paddle, 'label', [2, 3], 'int32'), _data(paddle, 'il', [2], 'int32'), \
        _data(paddle, 'll', [2], 'int32')
    out = F.rnnt_loss(x, label, il, ll, blank=0, fastemit_lambda=0.25, reduction='none')
    total = F.rnnt_loss(x, label, il, ll, blank=0, fastemit_lambda=0.25, reduction='sum')
    feeds = {'x': rng.randn(2, 4, 4, 5).astype('float32'), 'label': np.array([[1, 2, 3], [2, 4, 0]], 'int32'),
             'il': np.array([4, 3], 'int32'), 'll': np.array([3, 2], 'int32')}
    # the gradient of a reduced loss: Paddle 2.6.2's warprnnt_grad scales every sequence by the first sequence's
    # loss gradient (a bug paddle_exec does not copy), which agrees when the loss gradients are equal
    return {'fetch': [out, F.rnnt_loss(x, label, il, ll)], 'feeds': feeds, 'out': total, 'wrt': [x]}


def case_class_center_sample(paddle, rng):
    F = paddle.nn.functional
    paddle.static.default_main_program().random_seed = 42
    label = _data(paddle, 'label', [6], 'int64')
    remapped, sampled = F.class_center_sample(label, num_classes=20, num_samples=8)
    feeds = {'label': np.array([3, 17, 3, 8, 11, 17], 'int64')}
    return {'fetch': [remapped, sampled], 'feeds': feeds}


def case_pairwise_distance(paddle, rng):
    F = paddle.nn.functional
    x, y, feeds = _pair(paddle, rng, [4, 5])
    out = F.pairwise_distance(x, y, keepdim=True)
    return {'fetch': [out, F.pairwise_distance(x, y, p=float('inf')), F.pairwise_distance(x, y, p=1.5),
                      F.pairwise_distance(x, y, p=1, epsilon=0.0)], 'feeds': feeds, 'out': out, 'wrt': [x, y]}


def case_cross_entropy_weighted(paddle, rng):
    F = paddle.nn.functional
    x, label, w = _data(paddle, 'x', [6, 4]), _data(paddle, 'label', [6], 'int64'), _data(paddle, 'w', [4])
    out = F.cross_entropy(x, label, weight=w, reduction='none')
    feeds = {'x': rng.randn(6, 4).astype('float32'), 'label': np.array([0, 3, 2, 1, 2, 3], 'int64'),
             'w': rng.uniform(0.5, 2, 4).astype('float32')}
    return {'fetch': [out, F.cross_entropy(x, label, weight=w), F.cross_entropy(x, label, weight=w,
                                                                                ignore_index=2),
                      F.cross_entropy(x, label, weight=w, reduction='sum')],
            'feeds': feeds, 'out': out, 'wrt': [x]}


def case_cross_entropy_label_smoothing(paddle, rng):
    F = paddle.nn.functional
    x, label = _data(paddle, 'x', [5, 4]), _data(paddle, 'label', [5], 'int64')
    out = F.cross_entropy(x, label, label_smoothing=0.1, reduction='none')
    loss = paddle.nn.CrossEntropyLoss(label_smoothing=0.2)(x, label)
    feeds = {'x': rng.randn(5, 4).astype('float32'), 'label': rng.randint(0, 4, 5).astype('int64')}
    return {'fetch': [out, loss], 'feeds': feeds, 'out': out, 'wrt': [x]}

