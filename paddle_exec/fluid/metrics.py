"""fluid.metrics: Paddle 1.8's Python-side metric accumulators. They hold plain numbers on the host and are
updated with values fetched from the executor, so they are independent of the graph:

    acc_metric = fluid.metrics.Accuracy()
    for data in reader():
        acc_val, = exe.run(main, feed=feeder.feed(data), fetch_list=[acc])      # fluid.layers.accuracy
        acc_metric.update(value=acc_val, weight=len(data))
    print(acc_metric.eval())

Accuracy (weighted mean of batch accuracies), Precision / Recall (binary predictions rounded to 0/1),
ChunkEvaluator (precision, recall, F1 from chunk counts), EditDistance (average distance and instance error
rate), Auc (the bucketed ROC AUC of fluid.layers.auc, computed on the host from [N, 2] probabilities), and
CompositeMetric (several metrics updated together). `reset()` zeroes every public state as Paddle's does.

DetectionMAP is the exception, as in Paddle: it builds graph ops when constructed (two detection_map ops, the
second accumulating into persistable states `map_eval_N_M_accum_*` while `..._has_state` is 1), and
`get_map_var()` gives the batch and accumulated mAP variables to fetch; `reset(executor)` runs a program setting
has_state back to 0.
"""
from __future__ import annotations

import copy

import numpy as np

from ..framework import unique_name
from ..framework.program import Program, program_guard
from ..initializer import ConstantInitializer
from ..kernels.metric import auc_value
from ..layers.casting import cast
from ..layers.creation import fill_constant
from ..layers.detection import detection_map
from ..layers.helper import LayerHelper
from ..layers.manipulation import concat

__all__ = ['MetricBase', 'CompositeMetric', 'Precision', 'Recall', 'Accuracy', 'ChunkEvaluator', 'EditDistance',
           'Auc', 'DetectionMAP']


def _is_numpy_(var) -> bool:
    return isinstance(var, (np.ndarray, np.generic))


def _is_number_(var) -> bool:
    # Paddle's check, kept as is: a Python int/float, np.int64, or a [1] ndarray (a fetched scalar)
    return isinstance(var, (int, float, np.int64)) or (isinstance(var, np.ndarray) and var.shape == (1,))


def _is_number_or_matrix_(var) -> bool:
    return _is_number_(var) or isinstance(var, np.ndarray)


class MetricBase:
    """The base of the accumulators: a name and public (non-underscore) states that reset() zeroes."""

    def __init__(self, name=None):
        self._name = str(name) if name is not None else self.__class__.__name__

    def __str__(self):
        return self._name

    def _states(self) -> dict:
        return {attr: value for attr, value in self.__dict__.items() if not attr.startswith('_')}

    def reset(self) -> None:
        for attr, value in self._states().items():
            if isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, .0)
            elif isinstance(value, (np.ndarray, np.generic)):
                setattr(self, attr, np.zeros_like(value))
            else:
                setattr(self, attr, None)

    def get_config(self) -> dict:
        return {'name': self._name, 'states': copy.deepcopy(self._states())}

    def update(self, preds, labels):
        raise NotImplementedError('Should not use it directly, please extend it.')

    def eval(self):
        raise NotImplementedError('Should not use it directly, please extend it.')


class CompositeMetric(MetricBase):
    """Several metrics updated with the same (preds, labels); eval() returns their results in order."""

    def __init__(self, name=None):
        super().__init__(name)
        self._metrics = []

    def add_metric(self, metric: MetricBase) -> None:
        if not isinstance(metric, MetricBase):
            raise ValueError('SubMetric should be inherit from MetricBase.')
        self._metrics.append(metric)

    def update(self, preds, labels) -> None:
        for m in self._metrics:
            m.update(preds, labels)

    def eval(self) -> list:
        return [m.eval() for m in self._metrics]


def _binary_rows(preds, labels) -> tuple[np.ndarray, np.ndarray]:
    """(predictions rounded to int, labels), one per sample, after Paddle's type checks."""
    if not _is_numpy_(preds):
        raise ValueError("The 'preds' must be a numpy ndarray.")
    if not _is_numpy_(labels):
        raise ValueError("The 'labels' must be a numpy ndarray.")
    n = labels.shape[0]
    return np.rint(preds).astype('int32').reshape(n, -1)[:, 0], np.asarray(labels).reshape(n, -1)[:, 0]


class Precision(MetricBase):
    """tp / (tp + fp) of binary predictions (rounded to 0 / 1)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0  # true positive
        self.fp = 0  # false positive

    def update(self, preds, labels) -> None:
        pred, label = _binary_rows(preds, labels)
        positive = pred == 1
        self.tp += int(np.sum(positive & (pred == label)))
        self.fp += int(np.sum(positive & (pred != label)))

    def eval(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else .0


class Recall(MetricBase):
    """tp / (tp + fn) of binary predictions (rounded to 0 / 1)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.tp = 0  # true positive
        self.fn = 0  # false negative

    def update(self, preds, labels) -> None:
        pred, label = _binary_rows(preds, labels)
        positive = label == 1
        self.tp += int(np.sum(positive & (pred == label)))
        self.fn += int(np.sum(positive & (pred != label)))

    def eval(self) -> float:
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else .0


class Accuracy(MetricBase):
    """The weighted mean of batch accuracies: update(value=batch accuracy, weight=batch size)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.value = .0
        self.weight = .0

    def update(self, value, weight) -> None:
        if not _is_number_or_matrix_(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number_(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        if weight < 0:
            raise ValueError("The 'weight' can not be negative")
        self.value += value * weight
        self.weight += weight

    def eval(self):
        if self.weight == 0:
            raise ValueError('There is no data in Accuracy Metrics. Please check layers.accuracy output has added '
                             'to Accuracy.')
        return self.value / self.weight


class ChunkEvaluator(MetricBase):
    """(precision, recall, F1) from accumulated chunk counts (the outputs of fluid.layers.chunk_eval)."""

    def __init__(self, name=None):
        super().__init__(name)
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks) -> None:
        for what, value in (('num_infer_chunks', num_infer_chunks), ('num_label_chunks', num_label_chunks),
                            ('num_correct_chunks', num_correct_chunks)):
            if not _is_number_or_matrix_(value):
                raise ValueError("The '%s' must be a number(int) or a numpy ndarray." % what)
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def eval(self) -> tuple:
        # true division, not float(): the counts may be [1] arrays (fetched values), which float() rejects on
        # numpy 2; the results keep their type, as in Paddle
        precision = self.num_correct_chunks / self.num_infer_chunks if self.num_infer_chunks else 0
        recall = self.num_correct_chunks / self.num_label_chunks if self.num_label_chunks else 0
        f1_score = 2 * precision * recall / (precision + recall) if self.num_correct_chunks else 0
        return precision, recall, f1_score


class EditDistance(MetricBase):
    """(average edit distance, fraction of sequences with a non-zero distance)."""

    def __init__(self, name):
        super().__init__(name)
        self.total_distance = .0
        self.seq_num = 0
        self.instance_error = 0

    def update(self, distances, seq_num) -> None:
        if not _is_numpy_(distances):
            raise ValueError("The 'distances' must be a numpy ndarray.")
        if not _is_number_(seq_num):
            raise ValueError("The 'seq_num' must be a number(int, float).")
        seq_right_count = np.sum(distances == 0)
        self.seq_num += seq_num
        self.instance_error += seq_num - seq_right_count
        self.total_distance += np.sum(distances)

    def eval(self) -> tuple:
        if self.seq_num == 0:
            raise ValueError('There is no data in EditDistance Metric. Please check layers.edit_distance output has '
                             'been added to EditDistance.')
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


class Auc(MetricBase):
    """The bucketed ROC AUC of fluid.layers.auc on the host: update(preds [N, 2] probabilities, labels [N, 1])."""

    def __init__(self, name, curve='ROC', num_thresholds=4095):
        super().__init__(name=name)
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._stat_pos = np.zeros(num_thresholds + 1, np.float64)
        self._stat_neg = np.zeros(num_thresholds + 1, np.float64)

    def update(self, preds, labels) -> None:
        if not _is_numpy_(labels):
            raise ValueError("The 'labels' must be a numpy ndarray.")
        if not _is_numpy_(preds):
            raise ValueError("The 'predictions' must be a numpy ndarray.")
        labels = np.asarray(labels).reshape(len(labels), -1)[:, 0]
        bins = (np.asarray(preds)[:len(labels), 1] * self._num_thresholds).astype(np.int64)
        if bins.size and (bins.max() > self._num_thresholds or bins.min() < 0):
            raise ValueError('Auc.update: the predicted probabilities must be in [0, 1]')
        positive = labels != 0
        self._stat_pos += np.bincount(bins[positive], minlength=self._num_thresholds + 1)
        self._stat_neg += np.bincount(bins[~positive], minlength=self._num_thresholds + 1)

    def eval(self) -> float:
        return auc_value(self._stat_pos, self._stat_neg, self._num_thresholds)


def build_detection_map(input, gt_label, gt_box, gt_difficult, class_num, background_label, overlap_threshold,
                        evaluate_difficult, ap_version, states: list, has_state):
    """The ops of Paddle's DetectionMAP: the label table, this batch's mAP and the accumulating mAP (reading and
    writing `states` while `has_state` is 1), and has_state set to 1. Returns (cur_map, accum_map)."""
    gt_label = cast(x=gt_label, dtype=gt_box.dtype)
    if gt_difficult is not None:
        gt_difficult = cast(x=gt_difficult, dtype=gt_box.dtype)
        label = concat([gt_label, gt_difficult, gt_box], axis=1)
    else:
        label = concat([gt_label, gt_box], axis=1)
    cur_map = detection_map(input, label, class_num, background_label, overlap_threshold=overlap_threshold,
                            evaluate_difficult=evaluate_difficult, ap_version=ap_version)
    accum_map = detection_map(input, label, class_num, background_label, overlap_threshold=overlap_threshold,
                              evaluate_difficult=evaluate_difficult, has_state=has_state, input_states=states,
                              out_states=states, ap_version=ap_version)
    fill_constant(shape=has_state.shape, value=1, dtype=has_state.dtype, out=has_state)
    return cur_map, accum_map


def reset_has_state(executor, has_state, reset_program=None) -> None:
    """Runs a program setting `has_state` to 0, so the next accumulating detection_map starts afresh."""
    reset_program = Program() if reset_program is None else reset_program
    with program_guard(main_program=reset_program):
        block = reset_program.current_block()
        var = block.create_var(name=has_state.name, shape=has_state.shape, dtype=has_state.dtype, type=has_state.type,
                               lod_level=has_state.lod_level, persistable=has_state.persistable)
        fill_constant(shape=var.shape, value=0, dtype=var.dtype, out=var)
    executor.run(reset_program)


class DetectionMAP:
    """Paddle 1.8's fluid.metrics.DetectionMAP: mAP of the detections `input` ([label, score, box] rows, LoD per
    image) against ground truth (gt_label, optional gt_difficult, gt_box), per batch and accumulated."""

    def __init__(self, input, gt_label, gt_box, gt_difficult=None, class_num=None, background_label=0,
                 overlap_threshold=0.5, evaluate_difficult=True, ap_version='integral'):
        self.helper = LayerHelper('map_eval')
        states = [self._create_state(dtype='int32', shape=None, suffix='accum_pos_count'),
                  self._create_state(dtype='float32', shape=None, suffix='accum_true_pos'),
                  self._create_state(dtype='float32', shape=None, suffix='accum_false_pos')]
        var = self._create_state(dtype='int32', shape=[1], suffix='has_state')
        self.helper.set_variable_initializer(var, initializer=ConstantInitializer(value=int(0)))
        self.has_state = var
        self.cur_map, self.accum_map = build_detection_map(
            input, gt_label, gt_box, gt_difficult, class_num, background_label, overlap_threshold,
            evaluate_difficult, ap_version, states, self.has_state)

    def _create_state(self, suffix, dtype, shape):
        return self.helper.create_variable(name='_'.join([unique_name.generate(self.helper.name), suffix]),
                                           persistable=True, dtype=dtype, shape=shape)

    def get_map_var(self):
        """(this mini-batch's mAP, the mAP accumulated since the last reset) Variables."""
        return self.cur_map, self.accum_map

    def reset(self, executor, reset_program=None) -> None:
        reset_has_state(executor, self.has_state, reset_program)
