"""roi_perspective_transform (ops/perspective.py, kernels/perspective.py) against the numbers and input gradients
Paddle 1.8.5 computed (tests/golden/api/detection_targets.npz, recorded by record_detection_targets.py), a numpy
reference of the warp for an axis-aligned quad, and finite differences of its gradient."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.kernels import perspective as KP
from tests.kernels.gradcheck import check_grad, numeric_grad, projection
from tests.kernels.test_detection_targets import GOLDEN, assert_matches, run_case

L = fluid.layers


@pytest.mark.parametrize('case,th,tw,scale', [('perspective', 5, 6, 1.0), ('perspective_scaled', 4, 8, 0.8)])
def test_roi_perspective_transform_and_gradient_match_paddle(case, th, tw, scale):
    got, want = run_case(case, lambda x, r: list(L.roi_perspective_transform(x, r, th, tw, spatial_scale=scale)),
                         grads=('x',))
    assert_matches(got, want, rtol=1e-5, atol=1e-5)


def test_axis_aligned_quad_is_a_bilinear_resize():
    """A rectangle maps the output grid linearly onto its corners: every output pixel is the bilinear sample at
    (x0 + ow * (x1 - x0) / (tw' - 1), y0 + oh * (y3 - y0) / (th - 1))."""
    rng = np.random.RandomState(0)
    x = rng.rand(1, 1, 10, 12).astype('float32')
    quad = np.array([[2, 1, 9, 1, 9, 7, 2, 7]], 'float32')         # 7 wide, 6 high: width estimate 8 of 7 rows
    out, mask, matrix, _, _ = KP.roi_perspective_transform(x, quad, np.array([0, 1]), 7, 9, 1.0)
    assert mask[0, 0, :, :8].all() and not mask[0, 0, :, 8:].any()
    for oh in range(7):
        for ow in range(8):
            sx, sy = 2 + ow * 7 / 7, 1 + oh * 6 / 6
            x0, y0 = int(np.floor(sx)), int(np.floor(sy))
            x1, y1 = min(x0 + 1, 11), min(y0 + 1, 9)
            fx, fy = sx - x0, sy - y0
            want = ((1 - fx) * (1 - fy) * x[0, 0, y0, x0] + fx * (1 - fy) * x[0, 0, y0, x1]
                    + (1 - fx) * fy * x[0, 0, y1, x0] + fx * fy * x[0, 0, y1, x1])
            assert abs(out[0, 0, oh, ow] - want) < 1e-5, (oh, ow)


def test_roi_perspective_transform_gradient_finite_differences():
    x = GOLDEN['perspective.in.x'].astype('float64')
    rois = GOLDEN['perspective.in.r']
    offsets = np.array([0, 3, 4])
    proj = projection((4, 2, 5, 6), seed=1)

    def f(xx):
        return float(np.sum(KP.roi_perspective_transform(xx, rois, offsets, 5, 6, 1.0)[0] * proj))
    _, _, _, idx, wts = KP.roi_perspective_transform(x, rois, offsets, 5, 6, 1.0)
    dx = KP.roi_perspective_transform_grad(x.shape, x.dtype, proj, idx, wts)
    check_grad(dx, numeric_grad(f, [x], 0, eps=1e-3), rtol=1e-3, atol=1e-4)


def test_roi_perspective_transform_checks():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data('x', [None, 2, 10, 11], 'float32')
        r = fluid.data('r', [None, 8], 'float32', lod_level=1)
        with pytest.raises(TypeError, match="spatial_scale"):
            L.roi_perspective_transform(x, r, 4, 4, spatial_scale=1)
        with pytest.raises(ValueError, match='shape \\(num_rois, 8\\)'):
            L.roi_perspective_transform(x, fluid.data('r4', [None, 4], 'float32', lod_level=1), 4, 4)
