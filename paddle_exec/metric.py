"""paddle.metric: the `accuracy` builder and the metric classes of Paddle 2.x (Metric, Accuracy, Precision, Recall,
Auc) as they work with a static program.

`accuracy` appends a `top_k_v2` (paddle.topk) then an `accuracy` op. The classes keep their state on the host and
are updated with values fetched from the executor, as paddle.Model does in static mode; only Accuracy.compute
builds ops (argsort, slice, equal, cast), whose result is fetched and passed to update():

    acc = paddle.metric.Accuracy(topk=(1, 5))
    correct = acc.compute(prob, label)                      # a Variable: [N, 5] float32 hits
    for feed in batches:
        c, = exe.run(main, feed=feed, fetch_list=[correct])
        acc.update(c)
    print(acc.name(), acc.accumulate())

Precision / Recall count binary predictions (probabilities rounded as Paddle rounds them: floor(p + 0.5) and
numpy's rint respectively); Auc buckets the positive-class probability (column 1 of [N, 2] predictions) into
num_thresholds + 1 bins and integrates the ROC curve with trapezoids.
"""
from __future__ import annotations

import abc

import numpy as np

from .framework.variable import Variable
from .layers.checks import check_variable_and_dtype
from .layers.helper import LayerHelper
from .layers.indexing import slice as slice_layer
from .layers.metric import accuracy_op
from .static.metric import topk
from .tensor.manipulation import cast, reshape
from .tensor.math import equal
from .tensor.search import argmax, argsort

__all__ = ['Metric', 'Accuracy', 'Precision', 'Recall', 'Auc', 'accuracy']


def accuracy(input, label, k=1, correct=None, total=None, name=None) -> Variable:
    """paddle.metric.accuracy: the fraction of rows whose `label` is among the top `k` of `input` ([1] float32)."""
    helper = LayerHelper('accuracy', name=name)
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'accuracy')
    topk_out, topk_indices = topk(input, k=k)
    return accuracy_op(helper, topk_out, topk_indices, label, correct, total)


def _host_array(value, what: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    raise ValueError("The '%s' must be a numpy ndarray or Tensor." % what)


class Metric(metaclass=abc.ABCMeta):
    """The base of the metric classes: reset / update / accumulate / name, and compute (identity by default)
    which may build ops whose fetched results feed update()."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        raise NotImplementedError("function 'reset' not implemented in {}.".format(self.__class__.__name__))

    @abc.abstractmethod
    def update(self, *args):
        raise NotImplementedError("function 'update' not implemented in {}.".format(self.__class__.__name__))

    @abc.abstractmethod
    def accumulate(self):
        raise NotImplementedError("function 'accumulate' not implemented in {}.".format(self.__class__.__name__))

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError("function 'name' not implemented in {}.".format(self.__class__.__name__))

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k in `topk`."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.topk = topk
        self.maxk = max(topk)
        self._init_name(name)
        self.reset()

    def compute(self, pred, label, *args):
        """Builds the [N, maxk] float32 hits: whether each of the maxk best classes is the label."""
        pred = argsort(pred, descending=True)
        pred = slice_layer(pred, axes=[len(pred.shape) - 1], starts=[0], ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = reshape(label, (-1, 1))
        elif label.shape[-1] != 1:
            label = argmax(label, axis=-1, keepdim=True)
        return cast(equal(pred, label), dtype='float32')

    def update(self, correct, *args):
        correct = np.asarray(correct)
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = correct[..., :k].sum()
            accs.append(float(num_corrects) / num_samples)
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def _init_name(self, name):
        name = name or 'acc'
        self._name = ['{}_top{}'.format(name, k) for k in self.topk] if self.maxk != 1 else [name]

    def name(self):
        return self._name


class Precision(Metric):
    """Binary precision tp / (tp + fp); a prediction p counts as 1 when floor(p + 0.5) == 1."""

    def __init__(self, name='precision', *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        preds = _host_array(preds, 'preds')
        labels = _host_array(labels, 'labels')
        preds = np.floor(preds + 0.5).astype('int32')
        for i in range(labels.shape[0]):
            if preds[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fp += 1

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall tp / (tp + fn); predictions rounded with numpy's rint."""

    def __init__(self, name='recall', *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        preds = _host_array(preds, 'preds')
        labels = _host_array(labels, 'labels')
        preds = np.rint(preds).astype('int32')
        for i in range(labels.shape[0]):
            if labels[i] == 1:
                if preds[i] == labels[i]:
                    self.tp += 1
                else:
                    self.fn += 1

    def accumulate(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """Bucketed ROC AUC of [N, 2] probabilities (column 1: the positive class) against 0/1 labels."""

    def __init__(self, curve='ROC', num_thresholds=4095, name='auc', *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._stat_pos = np.zeros(num_thresholds + 1)
        self._stat_neg = np.zeros(num_thresholds + 1)
        self._name = name

    def update(self, preds, labels):
        labels = _host_array(labels, 'labels')
        preds = _host_array(preds, 'preds')
        for i, lbl in enumerate(labels):
            bin_idx = int(preds[i, 1] * self._num_thresholds)
            if bin_idx > self._num_thresholds:
                raise AssertionError('Auc: a probability above 1 (%r) has no bucket' % (preds[i, 1],))
            if lbl:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        tot_pos = tot_neg = auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            prev_pos, prev_neg = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, prev_neg, tot_pos, prev_pos)
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name
