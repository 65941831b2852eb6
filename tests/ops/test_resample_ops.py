"""The interpolations beyond 4-D bilinear / nearest: trilinear_interp (v1, v2), linear_interp_v2, bicubic_interp
(v1, v2) and nearest_interp_v2 on 5-D inputs, through small programs. The numpy reference builds, for each
spatial axis, the dense [out, in] interpolation matrix from Paddle's scalar formulas (written out here, one output
position at a time) and applies the matrices in turn; every grad op is checked against finite differences. Real
Paddle's numbers: tests/api/test_nn_golden.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.ops.test_nn_ops import OpProgram, append

F32 = np.float32


def _rng(seed=0):
    return np.random.default_rng(seed)


def _ratio(n_in, n_out, align_corners, scale):
    if n_out <= 1:
        return 0.0
    if align_corners:
        return float(F32(n_in - 1) / F32(n_out - 1))
    if scale > 0:
        return float(F32(1.0 / scale))
    return float(F32(n_in) / F32(n_out))


def linear_matrix(n_in, n_out, align_corners, align_mode, scale=0.0):
    a = np.zeros((n_out, n_in))
    r = _ratio(n_in, n_out, align_corners, scale)
    centre = align_mode == 0 and not align_corners
    for k in range(n_out):
        src = r * (k + 0.5) - 0.5 if centre else r * k
        low = max(int(src), 0)
        high = min(low + 1, n_in - 1)
        w_high = max(src, 0.0) - low
        a[k, low] += 1 - w_high
        a[k, high] += w_high
    return a


def cubic_matrix(n_in, n_out, align_corners, scale=0.0):
    a = np.zeros((n_out, n_in))
    r = _ratio(n_in, n_out, align_corners, scale)
    big_a = -0.75

    def near(x):
        return ((big_a + 2) * x - (big_a + 3)) * x * x + 1

    def far(x):
        return ((big_a * x - 5 * big_a) * x + 8 * big_a) * x - 4 * big_a
    for k in range(n_out):
        src = r * k if align_corners else r * (k + 0.5) - 0.5
        i = math.floor(src)
        t = src - i
        for tap, w in zip(range(-1, 3), (far(t + 1), near(t), near(1 - t), far(2 - t))):
            a[k, min(max(i + tap, 0), n_in - 1)] += w
    return a


def nearest_matrix(n_in, n_out, align_corners, scale=0.0):
    a = np.zeros((n_out, n_in))
    r = _ratio(n_in, n_out, align_corners, scale)
    for k in range(n_out):
        a[k, min(int(r * k + 0.5) if align_corners else int(r * k), n_in - 1)] = 1.0
    return a


def apply_matrices(x, mats):
    out = x
    for axis, m in enumerate(mats):
        out = np.moveaxis(np.tensordot(m, np.moveaxis(out, 2 + axis, 0), axes=(1, 0)), 0, 2 + axis)
    return out


def interp_program(op_type, x, attrs, wrt=('x',)):
    def build(block, x):
        return append(block, op_type, {'X': [x]}, {'Out': 1}, attrs)['Out'][0]
    return OpProgram(build, {'x': x}, wrt)


@pytest.mark.parametrize('align_corners,align_mode', [(True, 1), (False, 0), (False, 1)])
def test_trilinear_interp_v1(align_corners, align_mode):
    x = _rng(1).standard_normal((2, 2, 3, 4, 3))
    prog = interp_program('trilinear_interp', x, {'out_d': 5, 'out_h': 3, 'out_w': 6, 'align_corners': align_corners,
                                                  'align_mode': align_mode, 'interp_method': 'trilinear'})
    got, = prog.run([prog.out])
    mats = [linear_matrix(n, o, align_corners, align_mode) for n, o in zip((3, 4, 3), (5, 3, 6))]
    np.testing.assert_allclose(got, apply_matrices(x, mats), rtol=1e-6, atol=1e-7)
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads()


def test_trilinear_interp_v2_scale_ratio_and_channels_last():
    x = _rng(2).standard_normal((1, 3, 2, 4, 2))               # NDHWC: D=3, H=2, W=4, C=2
    prog = interp_program('trilinear_interp_v2', x, {'scale': [2.0, 1.5, 1.25], 'align_corners': False,
                                                     'align_mode': 1, 'data_layout': 'NHWC'})
    got, = prog.run([prog.out])
    mats = [linear_matrix(n, int(n * s), False, 1, s) for n, s in zip((3, 2, 4), (2.0, 1.5, 1.25))]
    want = apply_matrices(x.transpose(0, 4, 1, 2, 3), mats).transpose(0, 2, 3, 4, 1)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    prog.check_grads()


@pytest.mark.parametrize('op_type,align_corners', [('linear_interp_v2', True), ('linear_interp_v2', False),
                                                   ('linear_interp', False)])
def test_linear_interp(op_type, align_corners):
    x = _rng(3).standard_normal((2, 3, 5))
    prog = interp_program(op_type, x, {'out_w': 8, 'align_corners': align_corners, 'align_mode': 0})
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, apply_matrices(x, [linear_matrix(5, 8, align_corners, 0)]), rtol=1e-6,
                               atol=1e-7)
    prog.check_grads()


@pytest.mark.parametrize('op_type,align_corners', [('bicubic_interp', True), ('bicubic_interp_v2', False),
                                                   ('bicubic_interp_v2', True)])
def test_bicubic_interp(op_type, align_corners):
    x = _rng(4).standard_normal((1, 2, 5, 4))
    prog = interp_program(op_type, x, {'out_h': 7, 'out_w': 3, 'align_corners': align_corners})
    got, = prog.run([prog.out])
    mats = [cubic_matrix(5, 7, align_corners), cubic_matrix(4, 3, align_corners)]
    np.testing.assert_allclose(got, apply_matrices(x, mats), rtol=1e-6, atol=1e-7)
    prog.check_grads()


def test_nearest_interp_v2_on_volumes():
    x = _rng(5).standard_normal((1, 2, 3, 2, 4))
    prog = interp_program('nearest_interp_v2', x, {'out_d': 5, 'out_h': 3, 'out_w': 2, 'align_corners': False})
    got, = prog.run([prog.out])
    mats = [nearest_matrix(n, o, False) for n, o in zip((3, 2, 4), (5, 3, 2))]
    np.testing.assert_allclose(got, apply_matrices(x, mats), rtol=1e-12)
    prog.check_grads()


def test_interp_rank_and_size_checks_name_the_op():
    with pytest.raises(ValueError, match="trilinear_interp.*5-D"):
        interp_program('trilinear_interp', np.zeros((1, 1, 2, 2)), {'out_h': 3, 'out_w': 3})
    with pytest.raises(ValueError, match="bicubic_interp_v2.*must be positive"):
        interp_program('bicubic_interp_v2', np.zeros((1, 1, 2, 2)), {})
