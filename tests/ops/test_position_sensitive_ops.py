"""psroi_pool (ops/position_sensitive.py) against the values Paddle 1.8.5 computed for the same program (recorded
from /work/pd18: the output, and the gradient's sum and index-weighted sum), a numpy reference and finite
differences."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.kernels.gradcheck import check_grad, numeric_grad

PLACE = fluid.CPUPlace()
X = np.random.RandomState(1).rand(2, 8, 6, 7).astype('float32')
ROIS = np.array([[1, 2, 9, 8], [0, 0, 13, 11], [4.6, 3.2, 7.7, 9.4]], 'float32')
WEIGHTS = np.arange(1, 1 + 3 * 2 * 2 * 2, dtype='float32').reshape(3, 2, 2, 2) / 10
# Paddle 1.8.5: psroi_pool(x, rois (LoD [[2, 1]]), output_channels=2, spatial_scale=0.5, pooled 2 x 2)
PADDLE_OUT = [[[[0.3993841, 0.4245681], [0.4678547, 0.3360476]], [[0.459849, 0.4714766], [0.6702418, 0.5040699]]],
              [[[0.4011652, 0.4058782], [0.4090884, 0.4317029]], [[0.5092786, 0.4438485], [0.6353327, 0.4564079]]],
              [[[0.5270515, 0.4220021], [0.4410848, 0.2295338]], [[0.4702048, 0.5345313], [0.6162229, 0.5132197]]]]
PADDLE_GRAD_SUM, PADDLE_GRAD_WEIGHTED_SUM = 30.00000001490116, 11101.40001925826


def _run(x, dtype='float32', weights=WEIGHTS):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        xv = fluid.data('x', list(x.shape), dtype)
        xv.stop_gradient = False
        rois = fluid.data('rois', [-1, 4], dtype, lod_level=1)
        out = fluid.layers.psroi_pool(xv, rois, output_channels=2, spatial_scale=0.5, pooled_height=2,
                                      pooled_width=2)
        w = fluid.data('w', list(weights.shape), dtype)
        (grad,) = fluid.gradients([fluid.layers.reduce_sum(out * w)], [xv])
    rois_t = fluid.LoDTensor()
    rois_t.set(ROIS.astype(dtype), PLACE)
    rois_t.set_recursive_sequence_lengths([[2, 1]])
    return fluid.Executor(PLACE).run(main, feed={'x': x, 'rois': rois_t, 'w': weights.astype(dtype)},
                                     fetch_list=[out, grad], scope=Scope())


def test_psroi_pool_matches_paddle_1_8():
    out, grad = _run(X)
    np.testing.assert_allclose(out, PADDLE_OUT, rtol=1e-5)
    assert grad.sum() == pytest.approx(PADDLE_GRAD_SUM, rel=1e-5)
    assert (grad * np.arange(grad.size).reshape(grad.shape)).sum() == pytest.approx(PADDLE_GRAD_WEIGHTED_SUM, rel=1e-5)


def _reference(x, rois, batch, channels, ph, pw, scale):
    out = np.zeros((len(rois), channels, ph, pw))
    for r, (roi, n) in enumerate(zip(rois, batch)):
        x1, y1, x2, y2 = [np.sign(v) * np.floor(abs(v) + 0.5) for v in roi]
        sw, sh, ew, eh = x1 * scale, y1 * scale, (x2 + 1) * scale, (y2 + 1) * scale
        bh, bw = max(eh - sh, 0.1) / ph, max(ew - sw, 0.1) / pw
        for i in range(ph):
            for j in range(pw):
                h0, h1 = [int(np.clip(f(bh * k + sh), 0, x.shape[2])) for f, k in ((np.floor, i), (np.ceil, i + 1))]
                w0, w1 = [int(np.clip(f(bw * k + sw), 0, x.shape[3])) for f, k in ((np.floor, j), (np.ceil, j + 1))]
                for c in range(channels):
                    patch = x[n, (c * ph + i) * pw + j, h0:h1, w0:w1]
                    out[r, c, i, j] = patch.mean() if patch.size else 0.0
    return out


def test_psroi_pool_against_numpy_and_finite_differences():
    x = X.astype(np.float64)
    weights = np.random.default_rng(0).standard_normal((3, 2, 2, 2))
    out, grad = _run(x, 'float64', weights)
    np.testing.assert_allclose(out, _reference(x, ROIS.astype(np.float64), [0, 0, 1], 2, 2, 2, 0.5), rtol=1e-12)
    num = numeric_grad(lambda xv: float(np.sum(_run(xv, 'float64', weights)[0] * weights)), [x], 0)
    check_grad(grad, num, name='psroi_pool: d/dX')


def test_psroi_pool_checks_the_channels():
    main = Program()
    with program_guard(main, Program()), pytest.raises(ValueError, match='output_channels x pooled_height'):
        fluid.layers.psroi_pool(fluid.data('x', [1, 6, 4, 4]), fluid.data('r', [-1, 4], lod_level=1), 2, 1.0, 2, 2)
