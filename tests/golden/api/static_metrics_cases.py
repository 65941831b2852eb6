"""paddle.metric 2.6 classes (Accuracy with its compute ops, Precision, Recall, Auc) over a few batches of
predictions; recorded with paddlepaddle 2.6.2 (record_api_cases.py)."""
import numpy as np

API = 'static'
RTOL, ATOL = 1e-6, 1e-7


def _batches(rng, n=3):
    return [(rng.rand(8, 5).astype('float32'), rng.randint(0, 5, (8, 1)).astype('int64')) for _ in range(n)]


def case_accuracy(paddle, rng):
    pred = paddle.static.data('pred', [-1, 5], 'float32')
    label = paddle.static.data('label', [-1, 1], 'int64')
    metric = paddle.metric.Accuracy(topk=(1, 3))
    correct = metric.compute(pred, label)
    batches = _batches(rng)

    def after(runs):
        out = {}
        for i, (values,) in enumerate(runs):
            out['update%d' % i] = np.array(metric.update(values))
        out['accumulate'] = np.array(metric.accumulate())
        metric.reset()
        out['after_reset'] = np.array(metric.accumulate())
        return out
    return {'fetch': [correct], 'feeds': [{'pred': p, 'label': l} for p, l in batches], 'after': after}


def case_accuracy_one_hot_labels(paddle, rng):
    pred = paddle.static.data('pred', [-1, 5], 'float32')
    label = paddle.static.data('label', [-1, 5], 'float32')
    metric = paddle.metric.Accuracy()
    correct = metric.compute(pred, label)
    feeds = [{'pred': p, 'label': np.eye(5, dtype='float32')[l[:, 0]]} for p, l in _batches(rng, 2)]

    def after(runs):
        for (values,) in runs:
            metric.update(values)
        return {'accumulate': np.array(metric.accumulate())}
    return {'fetch': [correct], 'feeds': feeds, 'after': after}


def case_precision_recall_auc(paddle, rng):
    m = paddle.metric
    precision, recall, auc = m.Precision(), m.Recall(), m.Auc(num_thresholds=255)
    values = {}
    for i in range(3):
        probs = rng.rand(16).astype('float32')
        labels = (rng.rand(16) > 0.5).astype('int64')
        precision.update(probs, labels)
        recall.update(probs, labels)
        auc.update(np.stack([1 - probs, probs], axis=1), labels)
        values['step%d' % i] = np.array([precision.accumulate(), recall.accumulate(), auc.accumulate()])
    values['names'] = np.array([len(precision.name()), len(recall.name()), len(auc.name())])
    return {'values': values}


def case_ctr_metric_bundle(paddle, rng):
    pred = paddle.static.data('pred', [-1, 1], 'float32')
    label = paddle.static.data('label', [-1, 1], 'float32')
    sums = paddle.static.ctr_metric_bundle(pred, label)
    feeds = [{'pred': rng.rand(6, 1).astype('float32'), 'label': (rng.rand(6, 1) > 0.5).astype('float32')}
             for _ in range(3)]
    return {'fetch': list(sums), 'feeds': feeds}


def case_ctr_metric_bundle_weighted(paddle, rng):
    pred = paddle.static.data('pred', [-1, 1], 'float32')
    label = paddle.static.data('label', [-1, 1], 'float32')
    weight = paddle.static.data('weight', [1, 1], 'float32')
    sums = paddle.static.ctr_metric_bundle(pred, label, ins_tag_weight=weight)
    feeds = [{'pred': rng.rand(4, 1).astype('float32'), 'label': (rng.rand(4, 1) > 0.5).astype('float32'),
              'weight': np.array([[w]], 'float32')} for w in (1.0, 0.0, 1.0)]
    return {'fetch': list(sums), 'feeds': feeds}
