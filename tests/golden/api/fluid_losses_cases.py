"""fluid.layers 1.8 losses and sequence metrics: forward values and gradients (of sum(out * proj)) recorded with
paddlepaddle 1.8.5 (record_api_cases.py). Sampling losses use a fixed seed: paddle_exec draws what Paddle draws.
Python 3.8 compatible."""
import numpy as np

API = 'fluid'
RTOL, ATOL = 1e-5, 1e-6


def _data(L, name, shape, dtype='float32'):
    return L.data(name=name, shape=shape, dtype=dtype, append_batch_size=False)


def case_rank_loss(paddle, rng):
    L = paddle.fluid.layers
    label, left, right = _data(L, 'label', [6, 1]), _data(L, 'left', [6, 1]), _data(L, 'right', [6, 1])
    out = L.rank_loss(label, left, right)
    feeds = {'label': np.array([[0.], [1.], [0.5], [1.], [0.], [0.3]], 'float32'),
             'left': rng.randn(6, 1).astype('float32'), 'right': rng.randn(6, 1).astype('float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [left, right]}


def case_margin_rank_loss(paddle, rng):
    L = paddle.fluid.layers
    label, left, right = _data(L, 'label', [8, 1]), _data(L, 'left', [8, 1]), _data(L, 'right', [8, 1])
    out = L.margin_rank_loss(label, left, right, margin=0.3)
    feeds = {'label': np.where(rng.rand(8, 1) > 0.5, 1.0, -1.0).astype('float32'),
             'left': rng.randn(8, 1).astype('float32'), 'right': rng.randn(8, 1).astype('float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [left, right]}


def case_bpr_loss(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [5, 7]), _data(L, 'label', [5, 1], 'int64')
    out = L.bpr_loss(x, label)
    feeds = {'x': rng.randn(5, 7).astype('float32'), 'label': rng.randint(0, 7, (5, 1)).astype('int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_npair_loss(paddle, rng):
    L = paddle.fluid.layers
    anchor, positive, labels = _data(L, 'anchor', [6, 4]), _data(L, 'positive', [6, 4]), _data(L, 'labels', [6])
    out = L.npair_loss(anchor, positive, labels, l2_reg=0.01)
    feeds = {'anchor': rng.randn(6, 4).astype('float32'), 'positive': rng.randn(6, 4).astype('float32'),
             'labels': np.array([0, 1, 2, 1, 0, 3], 'float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [anchor, positive]}


def _nce_spec(paddle, rng, **kw):
    L = paddle.fluid.layers
    num_true = kw.pop('num_true', 1)
    x, label = _data(L, 'x', [5, 6]), _data(L, 'label', [5, num_true], 'int64')
    out = L.nce(input=x, label=label, num_total_classes=12, **kw)
    block = paddle.fluid.default_main_program().global_block()
    op = [o for o in block.ops if o.type == 'nce'][0]
    samples = block.var(op.output('SampleLabels')[0])
    params = [p for p in block.all_parameters() if not p.stop_gradient]
    feeds = {'x': rng.randn(5, 6).astype('float32'), 'label': rng.randint(0, 12, (5, num_true)).astype('int64')}
    return {'fetch': [out, samples], 'feeds': feeds, 'out': out, 'wrt': [x] + params}


def case_nce_uniform(paddle, rng):
    return _nce_spec(paddle, rng, num_neg_samples=4, seed=7)


def case_nce_log_uniform_two_true(paddle, rng):
    return _nce_spec(paddle, rng, num_neg_samples=3, seed=11, sampler='log_uniform', num_true=2, bias_attr=False)


def case_nce_custom_dist_weighted(paddle, rng):
    L = paddle.fluid.layers
    dist = rng.uniform(0.1, 1.0, 12)
    dist = list(dist / dist.sum())
    x, label = _data(L, 'x', [5, 6]), _data(L, 'label', [5, 1], 'int64')
    weight = _data(L, 'w', [5, 1])
    out = L.nce(input=x, label=label, num_total_classes=12, sample_weight=weight, num_neg_samples=5, seed=3,
                sampler='custom_dist', custom_dist=dist)
    block = paddle.fluid.default_main_program().global_block()
    samples = block.var([o for o in block.ops if o.type == 'nce'][0].output('SampleLabels')[0])
    feeds = {'x': rng.randn(5, 6).astype('float32'), 'label': rng.randint(0, 12, (5, 1)).astype('int64'),
             'w': rng.uniform(0.5, 2, (5, 1)).astype('float32')}
    tables = [p.name for p in block.all_parameters() if p.stop_gradient]
    params = [p for p in block.all_parameters() if not p.stop_gradient]
    return {'fetch': [out, samples], 'feeds': feeds, 'out': out, 'wrt': [x] + params, 'keep_params': tables}


def case_hsigmoid_default_tree(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [6, 5]), _data(L, 'label', [6, 1], 'int64')
    out = L.hsigmoid(input=x, label=label, num_classes=7)
    params = paddle.fluid.default_main_program().global_block().all_parameters()
    feeds = {'x': rng.randn(6, 5).astype('float32'), 'label': rng.randint(0, 7, (6, 1)).astype('int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x] + list(params)}


def case_hsigmoid_custom_tree(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [4, 5]), _data(L, 'label', [4, 1], 'int64')
    table, code = _data(L, 'table', [4, 3], 'int64'), _data(L, 'code', [4, 3], 'int64')
    out = L.hsigmoid(input=x, label=label, num_classes=5, path_table=table, path_code=code, is_custom=True,
                     bias_attr=False)
    params = paddle.fluid.default_main_program().global_block().all_parameters()
    feeds = {'x': rng.randn(4, 5).astype('float32'), 'label': np.array([[0], [1], [2], [3]], 'int64'),
             'table': np.array([[0, 1, 3], [0, 2, -1], [1, 4, -1], [0, 1, 2]], 'int64'),
             'code': np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]], 'int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x] + list(params)}


def case_sampled_softmax(paddle, rng):
    L = paddle.fluid.layers
    logits, label = _data(L, 'logits', [4, 20]), _data(L, 'label', [4, 1], 'int64')
    out = L.sampled_softmax_with_cross_entropy(logits, label, num_samples=6, seed=5)
    block = paddle.fluid.default_main_program().global_block()
    op = [o for o in block.ops if o.type == 'sample_logits'][0]
    samples, probs = block.var(op.output('Samples')[0]), block.var(op.output('Probabilities')[0])
    feeds = {'logits': rng.randn(4, 20).astype('float32'), 'label': rng.randint(0, 20, (4, 1)).astype('int64')}
    return {'fetch': [out, samples, probs], 'feeds': feeds, 'out': out, 'wrt': [logits]}


def case_sampled_softmax_customized(paddle, rng):
    L = paddle.fluid.layers
    logits, label = _data(L, 'logits', [3, 10]), _data(L, 'label', [3, 1], 'int64')
    samples, probs = _data(L, 'samples', [3, 5], 'int64'), _data(L, 'probs', [3, 5])
    out = L.sampled_softmax_with_cross_entropy(logits, label, num_samples=4, use_customized_samples=True,
                                               customized_samples=samples, customized_probabilities=probs)
    lab = rng.randint(0, 10, (3, 1)).astype('int64')
    smp = np.concatenate([lab, np.tile(np.array([[1, 4, 7, int(lab[0, 0])]], 'int64'), (3, 1))], axis=1)
    feeds = {'logits': rng.randn(3, 10).astype('float32'), 'label': lab, 'samples': smp,
             'probs': rng.uniform(0.05, 0.5, (3, 5)).astype('float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [logits]}


def case_center_loss(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [6, 4]), _data(L, 'label', [6, 1], 'int64')
    out = L.center_loss(x, label, num_classes=3, alpha=0.2, param_attr=paddle.fluid.ParamAttr(name='centers'))
    feeds = [{'x': rng.randn(6, 4).astype('float32'), 'label': rng.randint(0, 3, (6, 1)).astype('int64')}
             for _ in range(3)]
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_center_loss_no_update(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [5, 3]), _data(L, 'label', [5, 1], 'int64')
    out = L.center_loss(x, label, num_classes=4, alpha=0.5, param_attr=paddle.fluid.ParamAttr(name='centers'),
                        update_center=False)
    feeds = [{'x': rng.randn(5, 3).astype('float32'), 'label': rng.randint(0, 4, (5, 1)).astype('int64')}
             for _ in range(2)]
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_teacher_student_sigmoid_loss(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [8, 1]), _data(L, 'label', [8, 1])
    out = L.teacher_student_sigmoid_loss(x, label, soft_max_up_bound=3.0, soft_max_lower_bound=-3.0)
    feeds = {'x': np.array([[0.5], [-1.2], [2.0], [0.1], [-0.7], [1.5], [5.0], [-4.0]], 'float32'),
             'label': np.array([[-2.], [-1.], [0.3], [1.7], [0.0], [1.0], [0.5], [-1.]], 'float32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_sigmoid_focal_loss(paddle, rng):
    L = paddle.fluid.layers
    x, label, fg = _data(L, 'x', [6, 4]), _data(L, 'label', [6, 1], 'int32'), _data(L, 'fg', [1], 'int32')
    out = L.sigmoid_focal_loss(x, label, fg, gamma=1.5, alpha=0.3)
    feeds = {'x': rng.randn(6, 4).astype('float32'), 'label': np.array([[0], [1], [4], [-1], [2], [3]], 'int32'),
             'fg': np.array([3], 'int32')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_dice_loss(paddle, rng):
    L = paddle.fluid.layers
    x, label = _data(L, 'x', [4, 3, 5]), _data(L, 'label', [4, 3, 1], 'int64')
    out = L.dice_loss(L.softmax(x), label)
    feeds = {'x': rng.randn(4, 3, 5).astype('float32'), 'label': rng.randint(0, 5, (4, 3, 1)).astype('int64')}
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [x]}


def case_edit_distance_padded(paddle, rng):
    L = paddle.fluid.layers
    hyp, ref = _data(L, 'hyp', [4, 6], 'int64'), _data(L, 'ref', [4, 5], 'int64')
    hl, rl = _data(L, 'hl', [4], 'int64'), _data(L, 'rl', [4], 'int64')
    dist, num = L.edit_distance(hyp, ref, normalized=False, input_length=hl, label_length=rl)
    ndist, _ = L.edit_distance(hyp, ref, normalized=True, input_length=hl, label_length=rl)
    feeds = {'hyp': rng.randint(0, 4, (4, 6)).astype('int64'), 'ref': rng.randint(0, 4, (4, 5)).astype('int64'),
             'hl': np.array([6, 3, 0, 4], 'int64'), 'rl': np.array([5, 5, 2, 1], 'int64')}
    return {'fetch': [dist, num, ndist], 'feeds': feeds}


def case_chunk_eval_padded(paddle, rng):
    L = paddle.fluid.layers
    inf, lab = _data(L, 'inf', [3, 8], 'int64'), _data(L, 'lab', [3, 8], 'int64')
    length = _data(L, 'len', [3], 'int64')
    iob = L.chunk_eval(inf, lab, chunk_scheme='IOB', num_chunk_types=3, seq_length=length)
    iobes = L.chunk_eval(inf, lab, chunk_scheme='IOBES', num_chunk_types=2, seq_length=length,
                         excluded_chunk_types=[0])
    feeds = {'inf': rng.randint(0, 7, (3, 8)).astype('int64'), 'lab': rng.randint(0, 7, (3, 8)).astype('int64'),
             'len': np.array([8, 5, 7], 'int64')}
    feeds['inf'][0] = feeds['lab'][0]
    return {'fetch': list(iob) + list(iobes), 'feeds': feeds}


def case_mean_iou(paddle, rng):
    L = paddle.fluid.layers
    pred, label = _data(L, 'pred', [4, 6], 'int64'), _data(L, 'label', [4, 6], 'int64')
    miou, wrong, correct = L.mean_iou(pred, label, num_classes=5)
    lab = rng.randint(0, 4, (4, 6)).astype('int64')          # class 4 never appears
    prd = np.where(rng.rand(4, 6) > 0.4, lab, rng.randint(0, 4, (4, 6))).astype('int64')
    return {'fetch': [miou, wrong, correct], 'feeds': {'pred': prd, 'label': lab}}
