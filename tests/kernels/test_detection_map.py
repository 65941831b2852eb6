"""detection_map's kernels (kernels/detection_map.py) on cases worked by hand, and fluid.metrics.DetectionMAP's reset.
Paddle 1.8.5's numbers over several batches (both APs, difficult boxes, accumulated states and their LoD) are
checked by tests/ops/test_lod_models.py (lod_detection_map_exe)."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.kernels import detection_map as K

# one image, class 1: two ground-truth boxes; detections (by score) hit box 0, hit box 0 again, hit box 1, and one
# of class 2, which the image does not have
GT = np.array([[1, 0.1, 0.1, 0.4, 0.4], [1, 0.5, 0.5, 0.9, 0.9]], np.float32)
DET = np.array([[1, 0.8, 0.12, 0.1, 0.4, 0.42], [2, 0.6, 0.5, 0.5, 0.9, 0.9], [1, 0.9, 0.1, 0.1, 0.4, 0.4],
                [1, 0.7, 0.5, 0.52, 0.9, 0.9]], np.float32)
ONE = np.array([0, 2], np.int64), np.array([0, 4], np.int64)


def records(gt=GT, det=DET, difficult=False, evaluate_difficult=True):
    n = DET.shape[0]
    label, score, tp = np.empty(n, np.int64), np.empty(n, np.float32), np.empty(n, np.int64)
    count = K.match_detections(gt, ONE[0], difficult, det, ONE[1], evaluate_difficult, np.float32(0.5), label, score,
                               tp)
    return label[:count].tolist(), score[:count].tolist(), tp[:count].tolist()


def test_matching_order_and_flags():
    label, score, tp = records()
    assert label == [1, 1, 1, 2]
    np.testing.assert_allclose(score, [0.9, 0.8, 0.7, 0.6])          # class 1 by score, then class 2 as given
    assert tp == [1, 0, 1, 0]                                          # the second hit on box 0 is a false positive


def test_difficult_boxes_leave_their_detections_uncounted():
    gt = np.concatenate([GT[:, :1], np.array([[1], [0]], np.float32), GT[:, 1:]], axis=1)
    label, _, tp = records(gt, difficult=True, evaluate_difficult=False)
    assert label == [1, 2] and tp == [1, 0]                              # only the detection of box 1 (and class 2)
    assert K.positive_counts(gt, True, False) == {1: 1}
    assert K.positive_counts(gt, True, True) == {1: 2}


@pytest.mark.parametrize('ap_type,want', [('integral', 1 * 0.5 + (2 / 3) * 0.5), ('11point', (6 * 1 + 5 * 2 / 3) / 11)])
def test_average_precision(ap_type, want):
    scores, flags = np.array([0.9, 0.8, 0.7], np.float32), np.array([1, 0, 1])
    m = K.average_precision({1: 2}, {1: (scores, flags)}, {1: (scores, 1 - flags)}, ap_type, 0)
    np.testing.assert_allclose(m, want, rtol=1e-6)
    # a class with positives but no detections counts with AP 0
    m2 = K.average_precision({1: 2, 3: 1}, {1: (scores, flags)}, {1: (scores, 1 - flags)}, ap_type, 0)
    np.testing.assert_allclose(m2, want / 2, rtol=1e-6)


def test_detection_map_metric_accumulates_until_reset():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        det = fluid.layers.data(name='det', shape=[6], dtype='float32', lod_level=1)
        gt_label = fluid.layers.data(name='gt_label', shape=[1], dtype='int32', lod_level=1)
        gt_box = fluid.layers.data(name='gt_box', shape=[4], dtype='float32', lod_level=1)
        metric = fluid.metrics.DetectionMAP(det, gt_label, gt_box, class_num=3, overlap_threshold=0.5)
        cur, accum = metric.get_map_var()
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    scope = fluid.Scope()

    def feed(dets):
        return {'det': fluid.create_lod_tensor(dets, [[dets.shape[0]]], place),
                'gt_label': fluid.create_lod_tensor(GT[:, :1].astype('int32'), [[2]], place),
                'gt_box': fluid.create_lod_tensor(GT[:, 1:], [[2]], place)}

    with fluid.scope_guard(scope):
        exe.run(startup)
        good, bad = DET[2:3], DET[1:2]
        first = exe.run(main, feed=feed(good), fetch_list=[cur, accum])
        second = exe.run(main, feed=feed(bad), fetch_list=[cur, accum])
        metric.reset(exe)
        third = exe.run(main, feed=feed(bad), fetch_list=[cur, accum])
    assert [float(v[0]) for v in first] == [0.5, 0.5]                   # one of two boxes found, precision 1
    # the second batch finds nothing of its two class-1 boxes: 1 of 4 boxes found so far, at precision 1
    assert float(second[0][0]) == 0.0 and float(second[1][0]) == 0.25
    assert [float(v[0]) for v in third] == [0.0, 0.0]                   # reset: the accumulation starts again
