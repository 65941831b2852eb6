"""The image ops (pad, pad2d, pad3d, bilinear_interp / nearest_interp and their _v2 forms, pixel_shuffle) through
small programs, and the builders that append them (fluid.layers 1.8 and paddle.nn.functional 2.x).

Forward values are compared with numpy (np.pad, explicit loops written from Paddle's formulas) and with literals
recorded from paddlepaddle 1.8.5 (fluid.layers.resize_*) and 2.6.2 (F.interpolate); every grad op is checked
against central finite differences in float64 (`OpProgram.check_grads`).
"""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn.functional as F
from paddle_exec.framework import unique_name
from tests.ops.test_nn_ops import OpProgram, append

L = fluid.layers
F32, F64 = np.float32, np.float64


def _rng(seed=0):
    return np.random.default_rng(seed)


def one_op(op_type, x, attrs, wrt=(), extra=None, out_slot='Out'):
    """A program of one `op_type` on the fed `x` (plus fed `extra` inputs: slot -> (name, array))."""
    extra = extra or {}
    feeds = {'x': x, **{name: a for name, a in extra.values()}}

    def build(block, x, **others):
        inputs = {'X': [x], **{slot: [others[name]] for slot, (name, _) in extra.items()}}
        return append(block, op_type, inputs, {out_slot: 1}, attrs)[out_slot][0]
    return OpProgram(build, feeds, wrt)


def raw_op(op_type, feeds: dict, inputs: dict, attrs: dict, out_slot='Out'):
    """Runs one op whose output shape is only known at run time; returns (compile-time shape, value)."""
    from paddle_exec.layers.io import data_v2

    def net():
        vs = {n: data_v2(n, list(a.shape), a.dtype) for n, a in feeds.items()}
        block = fluid.default_main_program().global_block()
        return append(block, op_type, {slot: [vs[n]] for slot, n in inputs.items()}, {out_slot: 1}, attrs)[out_slot][0]
    main, startup, out = build(net)
    return tuple(out.shape), run(main, startup, feeds, [out])[0]


def ops_of(main):
    """[(type, {slot: names}, {slot: names}, attrs)] of a program's non-feed ops, empty slots dropped."""
    out = []
    for op in main.global_block().ops:
        ins = {k: v for k, v in op.inputs.items() if v}
        outs = {k: v for k, v in op.outputs.items() if v}
        out.append((op.type, ins, outs, dict(op.attrs)))
    return out


def build(fn):
    main, startup = fluid.Program(), fluid.Program()
    with unique_name.guard(), fluid.program_guard(main, startup):
        result = fn()
    return main, startup, result


def run(main, startup, feed, fetch):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


# ---------------------------------------------------------------------------------------------------------------
# pad

def test_pad_matches_numpy_and_infers_the_shape():
    x = _rng().standard_normal((2, 3, 4)).astype(F32)
    prog = one_op('pad', x, {'paddings': [0, 1, 2, 0, 1, 3], 'pad_value': 1.5})
    got, = prog.run([prog.out])
    want = np.pad(x, [(0, 1), (2, 0), (1, 3)], constant_values=1.5)
    assert tuple(prog.out.shape) == want.shape
    np.testing.assert_array_equal(got, want)


def test_pad_grad_matches_finite_differences():
    one_op('pad', _rng(1).standard_normal((2, 3)), {'paddings': [1, 0, 2, 1]}, wrt=('x',)).check_grads()


def test_pad_refuses_paddings_of_the_wrong_length():
    with pytest.raises(ValueError, match="the size of Attr\\(paddings\\) should be equal to 2 \\* the rank"):
        one_op('pad', np.zeros((2, 3), F32), {'paddings': [1, 1]})


# ---------------------------------------------------------------------------------------------------------------
# pad2d / pad3d

_NP_MODE = {'constant': 'constant', 'reflect': 'reflect', 'edge': 'edge', 'replicate': 'edge', 'circular': 'wrap'}


@pytest.mark.parametrize('mode', ['constant', 'reflect', 'edge'])
@pytest.mark.parametrize('fmt', ['NCHW', 'NHWC'])
def test_pad2d_matches_numpy(mode, fmt):
    x = _rng(2).standard_normal((2, 3, 4, 5)).astype(F32)
    t, b, lft, r = 1, 2, 3, 0
    fed = x.transpose(0, 2, 3, 1).copy() if fmt == 'NHWC' else x
    prog = one_op('pad2d', fed, {'paddings': [t, b, lft, r], 'mode': mode, 'pad_value': -2.0, 'data_format': fmt})
    got, = prog.run([prog.out])
    kw = {'constant_values': -2.0} if mode == 'constant' else {}
    want = np.pad(x, [(0, 0), (0, 0), (t, b), (lft, r)], mode=_NP_MODE[mode], **kw)
    if fmt == 'NHWC':
        want = want.transpose(0, 2, 3, 1)
    assert tuple(prog.out.shape) == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('mode', ['constant', 'reflect', 'edge'])
def test_pad2d_grad_matches_finite_differences(mode):
    x = _rng(3).standard_normal((1, 2, 3, 4))
    one_op('pad2d', x, {'paddings': [2, 1, 3, 2], 'mode': mode}, wrt=('x',)).check_grads()


def test_pad2d_paddings_tensor_wins_over_the_attribute():
    x = _rng(4).standard_normal((1, 2, 3, 4)).astype(F32)
    pads = np.array([0, 1, 2, 0], np.int32)
    shape, got = raw_op('pad2d', {'x': x, 'p': pads}, {'X': 'x', 'Paddings': 'p'}, {'paddings': [], 'mode': 'edge'})
    assert shape == (1, 2, -1, -1)
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (0, 1), (2, 0)], mode='edge'))


def test_pad2d_reflect_needs_paddings_smaller_than_the_input():
    with pytest.raises(ValueError, match='reflect paddings \\(3, 0\\) must be smaller than the input size 3'):
        one_op('pad2d', np.zeros((1, 1, 3, 3), F32), {'paddings': [3, 0, 0, 0], 'mode': 'reflect'})


@pytest.mark.parametrize('mode', ['constant', 'reflect', 'replicate', 'circular'])
def test_pad3d_matches_numpy_and_its_grad_finite_differences(mode):
    x = _rng(5).standard_normal((1, 2, 3, 3, 4))
    pads = [1, 2, 0, 2, 2, 1]          # left, right, top, bottom, front, back
    prog = one_op('pad3d', x, {'paddings': pads, 'mode': mode, 'value': 0.25}, wrt=('x',))
    got, = prog.run([prog.out])
    kw = {'constant_values': 0.25} if mode == 'constant' else {}
    want = np.pad(x, [(0, 0), (0, 0), (2, 1), (0, 2), (1, 2)], mode=_NP_MODE[mode], **kw)
    np.testing.assert_allclose(got, want, rtol=0, atol=0)
    prog.check_grads()


def test_pad3d_channels_last():
    x = _rng(6).standard_normal((1, 2, 3, 4, 2)).astype(F32)
    prog = one_op('pad3d', x, {'paddings': [1, 0, 0, 1, 1, 1], 'mode': 'reflect', 'data_format': 'NDHWC'})
    got, = prog.run([prog.out])
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (1, 1), (0, 1), (1, 0), (0, 0)], mode='reflect'))


# ---------------------------------------------------------------------------------------------------------------
# interpolation

X34 = (np.arange(12, dtype=F32).reshape(1, 1, 3, 4) ** 1.5) / 7

# fluid.layers.resize_* on X34, recorded from paddlepaddle 1.8.5
PADDLE18 = {
    ('bilinear', (5, 3), True, 1): [[0., 0.27345908, 0.7423075], [0.5714286, 1.0609181, 1.6940295],
                                    [1.1428572, 1.848377, 2.6457515], [2.1876726, 3.017859, 3.928795],
                                    [3.2324882, 4.187341, 5.2118387]],
    ('bilinear', (5, 3), False, 0): [[0.02380953, 0.27345908, 0.6859331], [0.50171757, 0.9034263, 1.4334481],
                                     [1.2185795, 1.848377, 2.55472], [2.4893904, 3.2517557, 4.079562],
                                     [3.3365972, 4.187341, 5.096122]],
    ('bilinear', (5, 7), False, 1): [
        [0., 0.08163266, 0.180172, 0.32943138, 0.50070286, 0.6939866, 0.7423075],
        [0.68571436, 0.8741392, 1.0734441, 1.3053894, 1.5536512, 1.8182294, 1.884374],
        [1.5607835, 1.8398683, 2.1254642, 2.4305935, 2.7476757, 3.0767105, 3.158969],
        [2.814562, 3.1520424, 3.49498, 3.8542895, 4.223852, 4.6036673, 4.6986213],
        [3.2324882, 3.5894337, 3.9514854, 4.328855, 4.715911, 5.1126533, 5.2118387]],
    ('nearest', (5, 7), True, 1): [
        [0., 0.14285715, 0.14285715, 0.40406102, 0.40406102, 0.7423075, 0.7423075],
        [1.1428572, 1.5971915, 1.5971915, 2.0995626, 2.0995626, 2.6457515, 2.6457515],
        [1.1428572, 1.5971915, 1.5971915, 2.0995626, 2.0995626, 2.6457515, 2.6457515],
        [3.2324882, 3.857143, 3.857143, 4.5175395, 4.5175395, 5.2118387, 5.2118387],
        [3.2324882, 3.857143, 3.857143, 4.5175395, 4.5175395, 5.2118387, 5.2118387]],
    ('nearest', (5, 7), False, 1): [
        [0., 0., 0.14285715, 0.14285715, 0.40406102, 0.40406102, 0.7423075],
        [0., 0., 0.14285715, 0.14285715, 0.40406102, 0.40406102, 0.7423075],
        [1.1428572, 1.1428572, 1.5971915, 1.5971915, 2.0995626, 2.0995626, 2.6457515],
        [1.1428572, 1.1428572, 1.5971915, 1.5971915, 2.0995626, 2.0995626, 2.6457515],
        [3.2324882, 3.2324882, 3.857143, 3.857143, 4.5175395, 4.5175395, 5.2118387]],
}


def interp_attrs(method, out_hw, align_corners, align_mode, layout='NCHW', scale=None, v2=False):
    attrs = {'interp_method': method, 'align_corners': align_corners, 'align_mode': align_mode,
             'data_layout': layout, 'out_h': out_hw[0], 'out_w': out_hw[1]}
    if scale is not None:
        attrs['scale'] = scale
    return attrs


@pytest.mark.parametrize('key', list(PADDLE18))
def test_interp_v1_matches_paddle_18(key):
    method, out_hw, align_corners, align_mode = key
    prog = one_op('%s_interp' % method, X34, interp_attrs(*key))
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == (1, 1) + out_hw
    # the literals are printed to 8 digits; the kernel matched Paddle bit for bit on the full-precision values
    np.testing.assert_allclose(got[0, 0], np.array(PADDLE18[key], F32), rtol=1e-7, atol=1e-7)


def ref_bilinear(x, oh, ow, align_corners, align_mode, ratios=None):
    """Paddle's bilinear formula in float64, one output element at a time."""
    n, c, h, w = x.shape

    def axis(i, size_in, size_out, ratio):
        if ratio is None:
            ratio = 0.0 if size_out <= 1 else ((size_in - 1) / (size_out - 1) if align_corners
                                                else size_in / size_out)
        if align_mode == 0 and not align_corners:
            src = max(ratio * (i + 0.5) - 0.5, 0.0)
        else:
            src = ratio * i
        lo = int(src)
        return lo, min(lo + 1, size_in - 1), src - lo

    out = np.zeros((n, c, oh, ow))
    for k in range(oh):
        y0, y1, ly = axis(k, h, oh, None if ratios is None else ratios[0])
        for m in range(ow):
            x0, x1, lx = axis(m, w, ow, None if ratios is None else ratios[1])
            out[:, :, k, m] = ((1 - ly) * (1 - lx) * x[:, :, y0, x0] + ly * (1 - lx) * x[:, :, y1, x0]
                               + (1 - ly) * lx * x[:, :, y0, x1] + ly * lx * x[:, :, y1, x1])
    return out


@pytest.mark.parametrize('align_corners,align_mode', [(True, 1), (False, 0), (False, 1)])
@pytest.mark.parametrize('out_hw', [(9, 4), (3, 11)])
def test_bilinear_interp_matches_the_formula_and_its_grad(align_corners, align_mode, out_hw):
    x = _rng(7).standard_normal((2, 2, 5, 6))
    prog = one_op('bilinear_interp', x, interp_attrs('bilinear', out_hw, align_corners, align_mode), wrt=('x',))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_bilinear(x, *out_hw, align_corners, align_mode), rtol=1e-6, atol=1e-6)
    prog.check_grads()


@pytest.mark.parametrize('align_corners', [True, False])
def test_nearest_interp_grad_matches_finite_differences(align_corners):
    x = _rng(8).standard_normal((1, 2, 4, 3))
    one_op('nearest_interp', x, interp_attrs('nearest', (7, 5), align_corners, 1), wrt=('x',)).check_grads()


def test_interp_channels_last_is_the_transposed_nchw_result():
    x = _rng(9).standard_normal((2, 3, 5, 4)).astype(F32)
    nchw = one_op('bilinear_interp', x, interp_attrs('bilinear', (7, 6), False, 0))
    nhwc = one_op('bilinear_interp', x.transpose(0, 2, 3, 1).copy(),
                  interp_attrs('bilinear', (7, 6), False, 0, layout='NHWC'))
    assert tuple(nhwc.out.shape) == (2, 7, 6, 3)
    np.testing.assert_array_equal(nhwc.run([nhwc.out])[0], nchw.run([nchw.out])[0].transpose(0, 2, 3, 1))


def test_interp_v1_scale_attribute_and_runtime_size_inputs():
    x = X34
    scaled = one_op('nearest_interp', x, {'interp_method': 'nearest', 'scale': 1.7, 'align_corners': False})
    assert tuple(scaled.out.shape) == (1, 1, 5, 6)          # int(3 * 1.7), int(4 * 1.7)
    by_size = one_op('nearest_interp', x, interp_attrs('nearest', (5, 6), False, 1))
    np.testing.assert_array_equal(scaled.run([scaled.out])[0], by_size.run([by_size.out])[0])
    # an OutSize tensor overrides the attributes at run time
    shape, got = raw_op('bilinear_interp', {'x': x, 'sz': np.array([5, 3], np.int32)}, {'X': 'x', 'OutSize': 'sz'},
                        interp_attrs('bilinear', (2, 2), True, 1))
    assert shape == (1, 1, -1, -1)
    np.testing.assert_allclose(got[0, 0], PADDLE18[('bilinear', (5, 3), True, 1)], rtol=1e-7, atol=1e-7)
    # a Scale tensor too
    shape, got = raw_op('nearest_interp', {'x': x, 's': np.array([1.7], F32)}, {'X': 'x', 'Scale': 's'},
                        {'interp_method': 'nearest', 'align_corners': False})
    np.testing.assert_array_equal(got, by_size.run([by_size.out])[0])


# F.interpolate on x = [0, 1, 2, 3, 4] (shape [1, 1, 5, 1]) recorded from paddlepaddle 2.6.2: with scale_factor
# the v2 ops use the ratio 1 / scale, with size in / out
PADDLE26_V2 = {
    ('nearest', 'scale'): [0., 0., 1., 1., 2., 2., 3., 4.],
    ('nearest', 'size'): [0., 0., 1., 1., 2., 3., 3., 4.],
    ('bilinear', 'size'): [0., 0.4375, 1.0625, 1.6875, 2.3125, 2.9375, 3.5625, 4.],
    ('bilinear', 'scale'): [0., 0.3823529, 0.9705882, 1.5588233, 2.1470587, 2.7352939, 3.3235292, 3.9117646],
}


@pytest.mark.parametrize('key', list(PADDLE26_V2))
def test_interp_v2_ratio_follows_the_scale(key):
    method, by = key
    x = np.arange(5, dtype=F32).reshape(1, 1, 5, 1)
    attrs = {'interp_method': method, 'align_corners': False, 'align_mode': 0}
    attrs.update({'scale': [1.7, 1.0]} if by == 'scale' else {'out_h': 8, 'out_w': 1})
    prog = one_op('%s_interp_v2' % method, x, attrs)
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == (1, 1, 8, 1)
    # Paddle 2.6 sums the bilinear source index in float (2.4 and 1.8 in double): one float32 ulp apart
    np.testing.assert_allclose(got.ravel(), PADDLE26_V2[key], rtol=0, atol=3e-7)


def test_interp_v2_grad_with_a_scale_matches_finite_differences():
    x = _rng(10).standard_normal((1, 1, 5, 4))
    one_op('bilinear_interp_v2', x, {'interp_method': 'bilinear', 'scale': [1.7, 1.3], 'align_corners': False,
                                     'align_mode': 0}, wrt=('x',)).check_grads()


# ---------------------------------------------------------------------------------------------------------------
# pixel_shuffle

def ref_pixel_shuffle(x, r):
    n, c, h, w = x.shape
    out = np.zeros((n, c // (r * r), h * r, w * r), x.dtype)
    for ch in range(c):
        oc, i, j = ch // (r * r), (ch % (r * r)) // r, ch % r
        out[:, oc, i::r, j::r] = x[:, ch]
    return out


def test_pixel_shuffle_matches_numpy_and_its_grad():
    x = _rng(11).standard_normal((2, 8, 2, 3))
    prog = one_op('pixel_shuffle', x, {'upscale_factor': 2}, wrt=('x',))
    got, = prog.run([prog.out])
    assert tuple(prog.out.shape) == (2, 2, 4, 6)
    np.testing.assert_array_equal(got, ref_pixel_shuffle(x, 2))
    prog.check_grads()


def test_pixel_shuffle_channels_last_and_bad_channels():
    x = _rng(12).standard_normal((1, 9, 2, 2)).astype(F32)
    prog = one_op('pixel_shuffle', x.transpose(0, 2, 3, 1).copy(), {'upscale_factor': 3, 'data_format': 'NHWC'})
    np.testing.assert_array_equal(prog.run([prog.out])[0], ref_pixel_shuffle(x, 3).transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match='should divide the number of channel'):
        one_op('pixel_shuffle', np.zeros((1, 8, 2, 2), F32), {'upscale_factor': 3})


# ---------------------------------------------------------------------------------------------------------------
# builders: what Paddle 1.8.5 (fluid.layers) and 2.6.2 (paddle.nn.functional) append

def _x():
    return L.data('x', [-1, 4, 6, 6], append_batch_size=False)


def test_fluid_pad_and_pad2d_programs_match_paddle_18():
    main, _, out = build(lambda: L.pad(L.data('x2', [-1, 10], append_batch_size=False), [0, 1, 2, 3], 1.5))
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (op_type, ins, outs) == ('pad', {'X': ['x2']}, {'Out': ['pad_0.tmp_0']})
    assert (attrs['paddings'], attrs['pad_value']) == ([0, 1, 2, 3], 1.5)
    assert tuple(out.shape) == (-1, 15)
    main, _, out = build(lambda: L.pad2d(_x(), paddings=[1, 2, 0, 1], mode='reflect'))
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (op_type, ins, outs) == ('pad2d', {'X': ['x']}, {'Out': ['pad2d_0.tmp_0']})
    assert {k: attrs[k] for k in ('data_format', 'mode', 'pad_value', 'paddings')} == {
        'data_format': 'NCHW', 'mode': 'reflect', 'pad_value': 0.0, 'paddings': [1, 2, 0, 1]}
    assert tuple(out.shape) == (-1, 4, 9, 7)


@pytest.mark.parametrize('call,op_type,attrs,shape', [
    (lambda x: L.resize_bilinear(x, out_shape=[12, 9]), 'bilinear_interp',
     {'align_corners': True, 'align_mode': 1, 'out_h': 12, 'out_w': 9, 'scale': 0.0}, (-1, 4, 12, 9)),
    (lambda x: L.resize_bilinear(x, scale=1.5, align_corners=False, align_mode=0), 'bilinear_interp',
     {'align_corners': False, 'align_mode': 0, 'out_h': -1, 'out_w': -1, 'scale': 1.5}, (-1, 4, 9, 9)),
    (lambda x: L.resize_nearest(x, out_shape=[3, 9]), 'nearest_interp',
     {'align_corners': True, 'align_mode': 1, 'out_h': 3, 'out_w': 9, 'interp_method': 'nearest'}, (-1, 4, 3, 9)),
    (lambda x: L.image_resize(x, out_shape=[3, 9], data_format='NHWC'), 'bilinear_interp',
     {'data_layout': 'NHWC', 'out_h': 3, 'out_w': 9}, (-1, 3, 9, 6)),
])
def test_fluid_resize_programs_match_paddle_18(call, op_type, attrs, shape):
    main, _, out = build(lambda: call(_x()))
    (got_type, ins, outs, got_attrs), = ops_of(main)
    assert (got_type, ins, outs) == (op_type, {'X': ['x']}, {'Out': ['%s_0.tmp_0' % op_type]})
    assert {k: got_attrs[k] for k in attrs} == attrs
    assert got_attrs['out_d'] == -1
    assert tuple(out.shape) == shape


def test_fluid_resize_with_variable_sizes_runs():
    def net():
        x = L.data('x', [1, 1, 3, 4], append_batch_size=False)
        h = L.data('h', [1], dtype='int32', append_batch_size=False)
        return L.resize_bilinear(x, out_shape=[h, 3])
    main, startup, out = build(net)
    types = [op.type for op in main.global_block().ops]
    assert types == ['fill_constant', 'bilinear_interp']
    interp = main.global_block().ops[-1]
    assert interp.input('SizeTensor') == ['h', 'bilinear_interp_0.tmp_0']
    assert (interp.attrs['out_h'], interp.attrs['out_w']) == (-1, 3)
    got, = run(main, startup, {'x': X34, 'h': np.array([5], np.int32)}, [out])
    np.testing.assert_allclose(got[0, 0], PADDLE18[('bilinear', (5, 3), True, 1)], rtol=1e-7, atol=1e-7)


def test_fluid_builder_errors_use_paddles_wording():
    with pytest.raises(ValueError, match='One of out_shape and scale must not be None.'):
        build(lambda: L.resize_bilinear(_x()))
    with pytest.raises(ValueError, match='align_mode can only be 0 or 1'):
        build(lambda: L.resize_bilinear(_x(), out_shape=[2, 2], align_mode=2))
    with pytest.raises(TypeError, match='upscale factor must be int type'):
        build(lambda: L.pixel_shuffle(_x(), 2.0))


def _x2():
    return paddle.static.data('x', [-1, 4, 6, 6])


def test_functional_pad_builds_unsqueeze_pad3d_squeeze_as_paddle_2():
    main, _, out = build(lambda: F.pad(_x2(), [1, 2, 0, 1], mode='reflect'))
    assert [(t, i, o) for t, i, o, _ in ops_of(main)] == [
        ('unsqueeze2', {'X': ['x']}, {'Out': ['unsqueeze2_0.tmp_0'], 'XShape': ['unsqueeze2_0.tmp_1']}),
        ('pad3d', {'X': ['unsqueeze2_0.tmp_0']}, {'Out': ['pad3d_0.tmp_0']}),
        ('squeeze2', {'X': ['pad3d_0.tmp_0']}, {'Out': ['squeeze_0.tmp_0'], 'XShape': ['squeeze_0.tmp_1']})]
    attrs = ops_of(main)[1][3]
    assert {k: attrs[k] for k in ('data_format', 'mode', 'paddings', 'value')} == {
        'data_format': 'NCDHW', 'mode': 'reflect', 'paddings': [1, 2, 0, 1, 0, 0], 'value': 0.0}
    assert tuple(out.shape) == (-1, 4, 7, 9)
    main, _, out = build(lambda: F.pad(paddle.static.data('x2', [-1, 10]), [0, 1, 2, 3]))
    assert [op[0] for op in ops_of(main)] == ['pad']


@pytest.mark.parametrize('mode', ['constant', 'reflect', 'replicate', 'circular'])
@pytest.mark.parametrize('fmt', ['NCHW', 'NHWC'])
def test_functional_pad_values(mode, fmt):
    x = _rng(13).standard_normal((2, 3, 4, 5)).astype(F32)
    main, startup, out = build(lambda: F.pad(paddle.static.data('x', list(x.shape)), [2, 1, 0, 2], mode=mode,
                                             value=0.5, data_format=fmt))
    got, = run(main, startup, {'x': x}, [out])
    spatial = [(0, 2), (2, 1)]
    pads = [(0, 0), (0, 0)] + spatial if fmt == 'NCHW' else [(0, 0)] + spatial + [(0, 0)]
    kw = {'constant_values': 0.5} if mode == 'constant' else {}
    np.testing.assert_array_equal(got, np.pad(x, pads, mode=_NP_MODE[mode], **kw))


@pytest.mark.parametrize('call,op_type,attrs,shape', [
    (lambda x: F.interpolate(x, size=[12, 9], mode='bilinear'), 'bilinear_interp_v2',
     {'align_corners': False, 'align_mode': 0, 'out_h': 12, 'out_w': 9, 'scale': []}, (-1, 4, 12, 9)),
    (lambda x: F.interpolate(x, scale_factor=1.5, mode='bilinear', align_corners=True), 'bilinear_interp_v2',
     {'align_corners': True, 'out_h': -1, 'out_w': -1, 'scale': [1.5, 1.5]}, (-1, 4, 9, 9)),
    (lambda x: F.interpolate(x, scale_factor=[2, 3]), 'nearest_interp_v2',
     {'align_corners': False, 'interp_method': 'nearest', 'scale': [2.0, 3.0]}, (-1, 4, 12, 18)),
    (lambda x: F.upsample(x, size=[3, 9], data_format='NHWC'), 'nearest_interp_v2',
     {'data_layout': 'NHWC', 'out_h': 3, 'out_w': 9}, (-1, 3, 9, 6)),
])
def test_functional_interpolate_programs_match_paddle_2(call, op_type, attrs, shape):
    main, _, out = build(lambda: call(_x2()))
    (got_type, ins, outs, got_attrs), = ops_of(main)
    assert (got_type, ins, outs) == (op_type, {'X': ['x']}, {'Out': ['%s_0.tmp_0' % op_type]})
    assert {k: got_attrs[k] for k in attrs} == attrs
    assert tuple(out.shape) == shape


def test_functional_interpolate_errors():
    with pytest.raises(ValueError, match='align_corners option can only be set with the interpolating modes'):
        build(lambda: F.interpolate(_x2(), size=[3, 3], align_corners=True))
    with pytest.raises(ValueError, match='Only one of size or scale_factor should be defined.'):
        build(lambda: F.interpolate(_x2(), size=[3, 3], scale_factor=2))


def test_functional_pixel_shuffle_program_and_values():
    main, startup, out = build(lambda: F.pixel_shuffle(_x2(), 2))
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (op_type, outs, attrs['upscale_factor'], attrs['data_format']) == (
        'pixel_shuffle', {'Out': ['pixel_shuffle_0.tmp_0']}, 2, 'NCHW')
    x = _rng(14).standard_normal((1, 4, 6, 6)).astype(F32)
    np.testing.assert_array_equal(run(main, startup, {'x': x}, [out])[0], ref_pixel_shuffle(x, 2))
