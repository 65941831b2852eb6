"""generate_mask_labels (ops/mask_labels.py, kernels/mask_labels.py) against the numbers Paddle 1.8.5 computed
(tests/golden/api/detection_targets.npz, recorded by record_detection_targets.py; GtSegms fed with its three LoD
levels), and the polygon rasteriser against an independent point-in-polygon reference."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.kernels import mask_labels as KM
from tests.kernels.test_detection_targets import GOLDEN, assert_matches, run_case

L = fluid.layers


def _masks(resolution):
    return lambda im, cls, crowd, segms, rois, labels: list(L.generate_mask_labels(
        im, cls, crowd, segms, rois, labels, num_classes=4, resolution=resolution))


@pytest.mark.parametrize('case,resolution', [('mask_labels', 8), ('mask_labels_no_fg', 6)])
def test_generate_mask_labels_matches_paddle(case, resolution):
    got, want = run_case(case, _masks(resolution))
    assert_matches(got, want)


def inside_polygon(px, py, poly):
    """Even-odd rule for the point (px, py)."""
    inside = False
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, 0)):
        if (y0 > py) != (y1 > py) and px < x0 + (py - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def test_poly_to_mask_against_point_in_polygon():
    """The rasteriser marks the pixels whose centres lie inside (COCO's rule), up to the pixels the boundary
    crosses near their centre: almost every pixel agrees with an even-odd test at the centre."""
    rng = np.random.RandomState(2)
    for _ in range(5):
        t = np.sort(rng.uniform(0, 2 * np.pi, 9))
        r = rng.uniform(5, 11, 9)
        poly = np.stack([16 + r * np.cos(t), 15 + r * np.sin(t)], 1).astype('float32')
        mask = KM.poly_to_mask(poly, 30, 32)
        ref = np.array([[inside_polygon(x, y, poly) for x in range(32)] for y in range(30)])
        assert mask.shape == (30, 32) and set(np.unique(mask)) <= {0, 1}
        assert (mask != ref).mean() < 0.03
        assert mask.sum() > 0.8 * ref.sum()


def test_poly_to_mask_of_a_rectangle_is_exact():
    rect = np.array([[2, 3], [9, 3], [9, 7], [2, 7]], 'float32')
    mask = KM.poly_to_mask(rect, 10, 12)
    want = np.zeros((10, 12), np.uint8)
    want[3:7, 2:9] = 1                  # pixel centres inside [2, 9) x [3, 7)
    np.testing.assert_array_equal(mask, want)


def test_mask_targets_take_the_best_overlapping_object_and_class_block():
    g = {k: GOLDEN['mask_labels.in.' + k] for k in ('im', 'cls', 'crowd', 'segms', 'rois', 'labels')}
    points = np.cumsum([0, 7, 5, 4, 6])
    objects = [[g['segms'][points[0]:points[1]]], [g['segms'][points[1]:points[2]], g['segms'][points[2]:points[3]]],
               [g['segms'][points[3]:points[4]]]]
    rois, has_mask, targets = KM.mask_targets_one_image(objects, g['cls'][:3, 0], g['crowd'][:3, 0], g['rois'][:5],
                                                       g['labels'][:5, 0], np.float32(1.1), 4, 8)
    assert list(has_mask[:, 0]) == [0, 1, 4]                      # the foreground RoIs
    for row, roi in enumerate([0, 1, 4]):
        cls = g['labels'][roi, 0]
        block = targets[row].reshape(4, 64)
        assert (np.delete(block, cls, 0) == -1).all() and set(np.unique(block[cls])) <= {0, 1}
    # RoI 0 covers object 0 (a single polygon): its mask is that polygon in the RoI's frame
    box = g['rois'][0] / np.float32(1.1)
    frame = (objects[0][0] - box[:2]) * 8 / np.maximum(box[2:] - box[:2], 1)
    np.testing.assert_array_equal(targets[0].reshape(4, 64)[1], KM.poly_to_mask(frame.astype('float32'), 8, 8).ravel())
