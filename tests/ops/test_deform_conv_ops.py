"""deformable_conv and deformable_conv_v1 through small programs: a numpy reference sampling every tap with
bilinear interpolation one element at a time, zero offsets giving a plain conv2d, and finite-difference gradients
for input, offset, mask and filter. Real Paddle's numbers: tests/api/test_nn_golden.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.kernels.test_conv import ref_conv2d
from tests.ops.test_nn_ops import OpProgram, append


def _rng(seed=0):
    return np.random.default_rng(seed)


def ref_deform(x, offset, mask, w, stride, pad, dil, groups, dg):
    n_, c_, h_, w_ = x.shape
    oc, cg, kh, kw = w.shape
    oh = (h_ + 2 * pad[0] - (dil[0] * (kh - 1) + 1)) // stride[0] + 1
    ow = (w_ + 2 * pad[1] - (dil[1] * (kw - 1) + 1)) // stride[1] + 1
    cols = np.zeros((n_, c_, kh, kw, oh, ow))
    for n, c, i, j, y, xo in np.ndindex(n_, c_, kh, kw, oh, ow):
        g = c // (c_ // dg)
        tap = i * kw + j
        h = y * stride[0] - pad[0] + i * dil[0] + offset[n, g * 2 * kh * kw + 2 * tap, y, xo]
        ww = xo * stride[1] - pad[1] + j * dil[1] + offset[n, g * 2 * kh * kw + 2 * tap + 1, y, xo]
        val = 0.0
        if -1 < h < h_ and -1 < ww < w_:
            h0, w0 = math.floor(h), math.floor(ww)
            for hh, wy in ((h0, 1 - (h - h0)), (h0 + 1, h - h0)):
                for wc, wx in ((w0, 1 - (ww - w0)), (w0 + 1, ww - w0)):
                    if 0 <= hh < h_ and 0 <= wc < w_:
                        val += x[n, c, hh, wc] * wy * wx
        if mask is not None:
            val *= mask[n, g * kh * kw + tap, y, xo]
        cols[n, c, i, j, y, xo] = val
    out = np.zeros((n_, oc, oh, ow))
    per = oc // groups
    for o in range(oc):
        g = o // per
        out[:, o] = np.einsum('ncij...,cij->n...', cols[:, g * cg:(g + 1) * cg], w[o])
    return out


def deform_program(x, offset, mask, w, attrs):
    feeds = {'x': x, 'off': offset, 'w': w}
    if mask is not None:
        feeds['m'] = mask

    def build(block, x, off, w, **extra):
        inputs = {'Input': [x], 'Offset': [off], 'Filter': [w]}
        if extra:
            inputs['Mask'] = [extra['m']]
        op_type = 'deformable_conv' if extra else 'deformable_conv_v1'
        return append(block, op_type, inputs, {'Output': 1}, attrs)['Output'][0]
    return OpProgram(build, feeds, tuple(feeds))


@pytest.mark.parametrize('modulated', [True, False])
def test_deformable_conv_matches_the_reference_and_finite_differences(modulated):
    rng = _rng(1)
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((4, 2, 3, 2))
    attrs = {'strides': [1, 2], 'paddings': [1, 0], 'dilations': [1, 1], 'groups': 2, 'deformable_groups': 2}
    oh, ow = 5, 3
    offset = rng.uniform(-1.3, 1.3, (2, 2 * 2 * 3 * 2, oh, ow))
    mask = rng.uniform(0.2, 1.0, (2, 2 * 3 * 2, oh, ow)) if modulated else None
    prog = deform_program(x, offset, mask, w, attrs)
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_deform(x, offset, mask, w, [1, 2], [1, 0], [1, 1], 2, 2), rtol=1e-10)
    assert tuple(prog.out.shape) == got.shape
    prog.check_grads(rtol=1e-4, atol=1e-6, eps=1e-6)


def test_zero_offsets_and_unit_mask_are_a_plain_convolution():
    rng = _rng(2)
    x, w = rng.standard_normal((1, 3, 5, 5)), rng.standard_normal((2, 3, 3, 3))
    offset, mask = np.zeros((1, 18, 5, 5)), np.ones((1, 9, 5, 5))
    prog = deform_program(x, offset, mask, w, {'paddings': [1, 1]})
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1), rtol=1e-10)
