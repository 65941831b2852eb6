"""psroi_pool and prroi_pool (ops/position_sensitive.py) against the values Paddle 1.8.5 computed for the same
programs (psroi_pool: recorded from /work/pd18 as literals, the output and the gradient's sum and index-weighted
sum; prroi_pool: tests/golden/api/prroi_pool_pd18.json from record_prroi_pool.py, the output only, 1.8.5's CPU
backward not being a derivative), numpy references and finite differences."""
import json
import os

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


# --- prroi_pool ---------------------------------------------------------------------------------------------------

with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden', 'api',
                       'prroi_pool_pd18.json')) as _f:
    PR = json.load(_f)
PR_X = np.array(PR['x'], 'float32')
PR_ROIS = np.array(PR['rois'], 'float32')
PR_W = np.array(PR['w'], 'float32')


def _pr_run(x, weights, mode='lod', rois=PR_ROIS):
    dtype = str(x.dtype)
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        xv = fluid.data('x', list(x.shape), dtype)
        xv.stop_gradient = False
        rv = fluid.data('rois', [-1, 4], dtype, lod_level=1 if mode == 'lod' else 0)
        nums = fluid.data('nums', [2], 'int64') if mode == 'nums' else None
        out = fluid.layers.prroi_pool(xv, rv, 0.5, 2, 3, batch_roi_nums=nums)
        (grad,) = fluid.gradients([fluid.layers.reduce_sum(out * fluid.data('w', list(weights.shape), dtype))], [xv])
    if mode == 'lod':
        rois_t = fluid.LoDTensor()
        rois_t.set(rois.astype(dtype), PLACE)
        rois_t.set_recursive_sequence_lengths([[2, 1]])
        feed = {'x': x, 'rois': rois_t, 'w': weights}
    else:
        feed = {'x': x, 'rois': rois.astype(dtype), 'nums': np.array([2, 1], 'int64'), 'w': weights}
    return fluid.Executor(PLACE).run(main, feed=feed, fetch_list=[out, grad], scope=Scope())


@pytest.mark.parametrize('mode', ['lod', 'nums'])
def test_prroi_pool_matches_paddle_1_8(mode):
    out, _ = _pr_run(PR_X, PR_W, mode)
    np.testing.assert_allclose(out, PR['cases'][mode]['out'], rtol=1e-5, atol=1e-6)


def _bilinear(img, y, x):
    h, w = img.shape
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy in (y0, y0 + 1):
        for xx in (x0, x0 + 1):
            if 0 <= yy < h and 0 <= xx < w:
                total += img[yy, xx] * max(0.0, 1 - abs(y - yy)) * max(0.0, 1 - abs(x - xx))
    return total


def test_prroi_pool_is_the_bin_average_of_the_bilinear_image_and_its_gradient_the_derivative():
    x = PR_X.astype(np.float64)
    out, grad = _pr_run(x, PR_W.astype(np.float64))
    # roi 2 (image 1), channel 1, bin (1, 2): the midpoint rule on a fine grid approximates the exact integral
    x1, y1, x2, y2 = PR_ROIS[2] * 0.5
    bh, bw = (y2 - y1) / 2, (x2 - x1) / 3
    k = 200
    ys = y1 + bh * (1 + (np.arange(k) + 0.5) / k)
    xs = x1 + bw * (2 + (np.arange(k) + 0.5) / k)
    approx = np.mean([[_bilinear(x[1, 1], yy, xx) for xx in xs] for yy in ys])
    assert out[2, 1, 1, 2] == pytest.approx(approx, rel=1e-4)
    num = numeric_grad(lambda v: float(np.sum(_pr_run(v, PR_W.astype(np.float64))[0] * PR_W)), [x], 0)
    check_grad(grad, num, name='prroi_pool: d/dX')


# --- deformable_roi_pooling ---------------------------------------------------------------------------------------

with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden', 'api',
                       'deformable_roi_pooling_pd18.json')) as _f:
    DEF = json.load(_f)
DEF_ROIS = np.array(DEF['rois'], 'float32')


def _def_run(name, x, trans, weights):
    dtype = str(x.dtype)
    ps = name == 'ps'
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        xv = fluid.data('x', list(x.shape), dtype)
        xv.stop_gradient = False
        rois = fluid.data('rois', [-1, 4], dtype, lod_level=1)
        tv = fluid.data('trans', list(trans.shape), dtype)
        tv.stop_gradient = False
        out = fluid.layers.deformable_roi_pooling(xv, rois, tv, spatial_scale=0.5, group_size=[2, 2] if ps else [1, 1],
                                                  pooled_height=2, pooled_width=2, sample_per_part=3, trans_std=0.2,
                                                  position_sensitive=ps)
        loss = fluid.layers.reduce_sum(out * fluid.data('w', list(weights.shape), dtype))
        gx, gt = fluid.gradients([loss], [xv, tv])
    rois_t = fluid.LoDTensor()
    rois_t.set(DEF_ROIS.astype(dtype), PLACE)
    rois_t.set_recursive_sequence_lengths([[2, 1]])
    return fluid.Executor(PLACE).run(main, feed={'x': x, 'rois': rois_t, 'trans': trans, 'w': weights},
                                     fetch_list=[out, gx, gt], scope=Scope())


@pytest.mark.parametrize('name', ['plain', 'ps'])
def test_deformable_roi_pooling_matches_paddle_1_8(name):
    case = DEF['cases'][name]
    out, gx, gt = _def_run(name, *(np.array(case[k], 'float32') for k in ('x', 'trans', 'w')))
    np.testing.assert_allclose(out, case['out'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gx, case['gx'], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gt, case['gtrans'], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', ['plain', 'ps'])
def test_deformable_roi_pooling_gradients_are_the_finite_differences(name):
    case = DEF['cases'][name]
    x, trans, w = (np.array(case[k], np.float64) for k in ('x', 'trans', 'w'))
    _, gx, gt = _def_run(name, x, trans, w)

    def loss(xv, tv):
        return float(np.sum(_def_run(name, xv, tv, w)[0] * w))
    check_grad(gx, numeric_grad(loss, [x, trans], 0, eps=1e-6), name='deformable_roi_pooling: d/dInput')
    check_grad(gt, numeric_grad(loss, [x, trans], 1, eps=1e-6), rtol=1e-4, atol=1e-6,
               name='deformable_roi_pooling: d/dTrans')
