"""group_norm, instance_norm, norm (l2_normalize), prelu, lrn and maxout through small programs, and their builders
(fluid.layers of Paddle 1.8; F.instance_norm / F.prelu / F.maxout of Paddle 2.x).

Forward values against numpy references written from Paddle's formulas (and a few literals recorded from
paddlepaddle 1.8.5), gradients against central finite differences in float64. Every output and gradient below was
also compared with paddlepaddle 1.8.5 side by side on a [2, 6, 3, 4] input (largest difference 1e-6).
"""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn.functional as F
from tests.ops.test_image_ops import build, ops_of, run
from tests.ops.test_nn_ops import OpProgram, append

L = fluid.layers
F32 = np.float32


def _rng(seed=0):
    return np.random.default_rng(seed)


def nn_op(op_type, feeds: dict, slots: dict, attrs, outputs, out_slot, wrt=()):
    def build_op(block, **vs):
        return append(block, op_type, {s: [vs[n]] for s, n in slots.items()}, {o: 1 for o in outputs},
                      attrs)[out_slot][0]
    return OpProgram(build_op, feeds, wrt)


# ---------------------------------------------------------------------------------------------------------------
# group_norm

def ref_group_norm(x, groups, scale, bias, eps, channel_last=False):
    xc = np.moveaxis(x, -1, 1) if channel_last else x
    n, c = xc.shape[:2]
    g = xc.reshape(n, groups, -1).astype(np.float64)
    mean, var = g.mean(-1), g.var(-1)
    y = ((g - mean[..., None]) / np.sqrt(var[..., None] + eps)).reshape(xc.shape)
    bshape = (1, c) + (1,) * (xc.ndim - 2)
    y = y * scale.reshape(bshape) + bias.reshape(bshape)
    return (np.moveaxis(y, 1, -1) if channel_last else y), mean, var


def gn_program(x, c, groups, layout='NCHW', with_params=True, wrt=('x', 's', 'b'), seed=0):
    rng = _rng(seed)
    feeds, slots = {'x': x}, {'X': 'x'}
    if with_params:
        feeds.update(s=rng.uniform(0.5, 1.5, c), b=rng.standard_normal(c))
        slots.update(Scale='s', Bias='b')
    return nn_op('group_norm', feeds, slots, {'groups': groups, 'epsilon': 1e-5, 'data_layout': layout},
                 ['Y', 'Mean', 'Variance'], 'Y', wrt=wrt if with_params else ('x',))


@pytest.mark.parametrize('shape,groups,layout', [((2, 6, 3, 4), 3, 'NCHW'), ((2, 3, 4, 6), 2, 'NHWC'),
                                                 ((3, 4, 5), 2, 'NCHW')])
def test_group_norm_forward_and_grad(shape, groups, layout):
    x = _rng(1).standard_normal(shape)
    c = shape[-1] if layout == 'NHWC' else shape[1]
    prog = gn_program(x, c, groups, layout)
    y, mean, var = prog.run([prog.out, prog.out.name.replace('y', 'mean'), prog.out.name.replace('y', 'variance')])
    want_y, want_mean, want_var = ref_group_norm(x, groups, prog.feeds['s'], prog.feeds['b'], 1e-5, layout == 'NHWC')
    np.testing.assert_allclose(y, want_y, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(var, want_var, rtol=1e-6)
    assert tuple(prog.out.shape) == shape
    prog.check_grads(rtol=1e-5, atol=1e-6)


def test_group_norm_without_scale_drops_the_mean_term_as_paddle_does():
    """Paddle's group_norm_grad (1.8.5 and 2.6.2, checked side by side) adds the -mean(dy) term only when Scale is
    wired; fluid.layers.group_norm has no Scale by default, so that is the gradient Paddle trains with."""
    x = _rng(2).standard_normal((2, 4, 3, 2))
    prog = gn_program(x, 4, 2, with_params=False)
    dx, = prog.run(['x@GRAD'])
    xhat = ref_group_norm(x, 2, np.ones(4), np.zeros(4), 1e-5)[0].reshape(2, 2, -1)
    g = (prog.proj / prog.proj.size).reshape(2, 2, -1)           # d mean(out * proj) / d out
    inv = 1 / np.sqrt(x.reshape(2, 2, -1).var(-1, keepdims=True) + 1e-5)
    paddle_dx = inv * (g - xhat * (g * xhat).mean(-1, keepdims=True))
    np.testing.assert_allclose(dx.reshape(2, 2, -1), paddle_dx, rtol=1e-6, atol=1e-9)
    exact = paddle_dx - inv * g.mean(-1, keepdims=True)
    assert not np.allclose(dx.reshape(2, 2, -1), exact, rtol=1e-3)


def test_group_norm_refuses_indivisible_groups():
    with pytest.raises(ValueError, match='must be divisible by groups'):
        gn_program(np.zeros((1, 6, 2, 2)), 6, 4)


# ---------------------------------------------------------------------------------------------------------------
# instance_norm

@pytest.mark.parametrize('with_params', [True, False])
def test_instance_norm_forward_saved_stats_and_grad(with_params):
    rng = _rng(3)
    x = rng.standard_normal((2, 3, 4, 5))
    feeds, slots = {'x': x}, {'X': 'x'}
    if with_params:
        feeds.update(s=rng.uniform(0.5, 1.5, 3), b=rng.standard_normal(3))
        slots.update(Scale='s', Bias='b')
    prog = nn_op('instance_norm', feeds, slots, {'epsilon': 1e-5}, ['Y', 'SavedMean', 'SavedVariance'], 'Y',
                 wrt=tuple(feeds))
    name = prog.out.name
    y, mean, inv_std = prog.run([name, name.replace('y', 'savedmean'), name.replace('y', 'savedvariance')])
    scale = feeds.get('s', np.ones(3))
    bias = feeds.get('b', np.zeros(3))
    want = ref_group_norm(x, 6 // 2, scale, bias, 1e-5)[0]
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(mean, x.reshape(6, -1).mean(1), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(inv_std, 1 / np.sqrt(x.reshape(6, -1).var(1) + 1e-5), rtol=1e-6)
    prog.check_grads(rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------------------------
# norm

@pytest.mark.parametrize('axis', [1, -1, 0])
def test_norm_forward_and_grad(axis):
    x = _rng(4).standard_normal((3, 4, 2))
    prog = nn_op('norm', {'x': x}, {'X': 'x'}, {'axis': axis, 'epsilon': 1e-10}, ['Out', 'Norm'], 'Out', wrt=('x',))
    out, norm = prog.run([prog.out, prog.out.name.replace('out', 'norm')])
    want_norm = np.sqrt((x * x).sum(axis, keepdims=True) + 1e-10)
    np.testing.assert_allclose(norm, want_norm, rtol=1e-7)
    np.testing.assert_allclose(out, x / want_norm, rtol=1e-7)
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# prelu

def away_from_zero(shape, seed):
    x = _rng(seed).uniform(0.1, 1.0, shape) * _rng(seed + 1).choice([-1.0, 1.0], shape)
    return x


@pytest.mark.parametrize('mode,alpha_shape,fmt', [('all', (1,), 'NCHW'), ('channel', (1, 3, 1, 1), 'NCHW'),
                                                  ('channel', (3,), 'NHWC'), ('element', (1, 3, 2, 3), 'NCHW')])
def test_prelu_forward_and_grad(mode, alpha_shape, fmt):
    x = away_from_zero((2, 3, 2, 3), 5)
    if fmt == 'NHWC':
        x = x.transpose(0, 2, 3, 1).copy()
    alpha = _rng(6).uniform(0.05, 0.5, alpha_shape)
    prog = nn_op('prelu', {'x': x, 'a': alpha}, {'X': 'x', 'Alpha': 'a'}, {'mode': mode, 'data_format': fmt},
                 ['Out'], 'Out', wrt=('x', 'a'))
    got, = prog.run([prog.out])
    if mode == 'channel':
        a = alpha.reshape((1, 1, 1, 3) if fmt == 'NHWC' else (1, 3, 1, 1))
    else:
        a = alpha.reshape((1,) * (4 - len(alpha_shape)) + alpha_shape) if mode == 'element' else alpha
    np.testing.assert_allclose(got, np.where(x > 0, x, a * x), rtol=1e-12)
    prog.check_grads()


def test_prelu_checks_the_alpha_size():
    with pytest.raises(ValueError, match="with mode 'channel' Alpha must have 3 elements"):
        nn_op('prelu', {'x': np.zeros((1, 3, 2)), 'a': np.zeros(2)}, {'X': 'x', 'Alpha': 'a'}, {'mode': 'channel'},
              ['Out'], 'Out')


# ---------------------------------------------------------------------------------------------------------------
# lrn

def ref_lrn(x, n, k, alpha, beta):
    c = x.shape[1]
    sq = x.astype(np.float64) ** 2
    mid = np.full(x.shape, k, np.float64)
    start = -((n - 1) // 2)
    for ch in range(c):
        for i in range(start, start + n):
            if 0 <= ch + i < c:
                mid[:, ch] += alpha * sq[:, ch + i]
    return x * mid ** -beta, mid


def test_lrn_matches_paddle_18_without_dividing_alpha_by_n():
    x = ((np.arange(8, dtype=F32).reshape(1, 4, 2, 1) - 3) / 2)
    prog = nn_op('lrn', {'x': x}, {'X': 'x'}, {'n': 3, 'k': 1.0, 'alpha': 0.5, 'beta': 0.75}, ['Out', 'MidOut'],
                 'Out')
    got, = prog.run([prog.out])
    # fluid.layers.lrn(x, n=3, k=1.0, alpha=0.5, beta=0.75) from paddlepaddle 1.8.5
    np.testing.assert_allclose(got.ravel(), [-0.8164966, -0.73778796, -0.2613499, 0., 0.2613499, 0.39079496,
                                             0.8164966, 0.7815899], rtol=2e-7)


@pytest.mark.parametrize('n,fmt', [(5, 'NCHW'), (3, 'NHWC')])
def test_lrn_forward_and_grad(n, fmt):
    x = _rng(7).standard_normal((2, 6, 3, 2))
    fed = x.transpose(0, 2, 3, 1).copy() if fmt == 'NHWC' else x
    prog = nn_op('lrn', {'x': fed}, {'X': 'x'}, {'n': n, 'k': 1.5, 'alpha': 0.3, 'beta': 0.75, 'data_format': fmt},
                 ['Out', 'MidOut'], 'Out', wrt=('x',))
    got, = prog.run([prog.out])
    want = ref_lrn(x, n, 1.5, 0.3, 0.75)[0]
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 1) if fmt == 'NHWC' else want, rtol=1e-7)
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# maxout

def distinct(shape, seed):
    n = int(np.prod(shape))
    return (_rng(seed).permutation(n).reshape(shape) * 0.01 - n * 0.005).astype(np.float64)


@pytest.mark.parametrize('axis', [1, 3])
def test_maxout_forward_and_grad(axis):
    x = distinct((2, 6, 3, 2) if axis == 1 else (2, 3, 2, 6), 8)
    prog = nn_op('maxout', {'x': x}, {'X': 'x'}, {'groups': 3, 'axis': axis}, ['Out'], 'Out', wrt=('x',))
    got, = prog.run([prog.out])
    xc = x if axis == 1 else x.transpose(0, 3, 1, 2)
    want = xc.reshape(2, 2, 3, *xc.shape[2:]).max(2)
    np.testing.assert_array_equal(got, want if axis == 1 else want.transpose(0, 2, 3, 1))
    prog.check_grads()


def test_maxout_grad_goes_to_the_first_tie():
    x = np.zeros((1, 2, 1, 1))
    prog = nn_op('maxout', {'x': x}, {'X': 'x'}, {'groups': 2}, ['Out'], 'Out', wrt=('x',))
    dx, = prog.run(['x@GRAD'])
    assert dx.ravel()[1] == 0 and dx.ravel()[0] != 0


# ---------------------------------------------------------------------------------------------------------------
# builders

def _x():
    return L.data('x', [-1, 4, 6, 6], append_batch_size=False)


def _startup_inits(startup):
    return {op.output('Out')[0]: (op.type, op.attrs.get('value')) for op in startup.global_block().ops}


def test_fluid_group_norm_has_no_parameters_by_default_as_paddle_18():
    main, startup, out = build(lambda: L.group_norm(_x(), groups=2))
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (op_type, ins, outs) == ('group_norm', {'X': ['x']}, {
        'Y': ['_generated_var_2'], 'Mean': ['_generated_var_0'], 'Variance': ['_generated_var_1']})
    assert (attrs['groups'], attrs['data_layout']) == (2, 'NCHW')
    assert main.global_block().all_parameters() == []
    main, startup, out = build(lambda: L.group_norm(_x(), groups=2, param_attr=True, bias_attr=True))
    assert [p.name for p in main.global_block().all_parameters()] == ['group_norm_0.w_0', 'group_norm_0.b_0']
    assert _startup_inits(startup) == {'group_norm_0.w_0': ('fill_constant', 1.0),
                                       'group_norm_0.b_0': ('fill_constant', 0.0)}


def test_fluid_instance_norm_parameters_and_values():
    def net():
        return L.instance_norm(L.data('x', [2, 3, 4, 5], append_batch_size=False))
    main, startup, out = build(net)
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (ins, outs) == ({'X': ['x'], 'Scale': ['instance_norm_0.w_0'], 'Bias': ['instance_norm_0.b_0']},
                           {'Y': ['instance_norm_0.tmp_2'], 'SavedMean': ['instance_norm_0.tmp_0'],
                            'SavedVariance': ['instance_norm_0.tmp_1']})
    assert _startup_inits(startup) == {'instance_norm_0.w_0': ('fill_constant', 1.0),
                                       'instance_norm_0.b_0': ('fill_constant', 0.0)}
    x = _rng(9).standard_normal((2, 3, 4, 5)).astype(F32)
    got, = run(main, startup, {'x': x}, [out])
    np.testing.assert_allclose(got, ref_group_norm(x, 6 // 2, np.ones(3), np.zeros(3), 1e-5)[0], rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize('mode,shape', [('all', (1,)), ('channel', (1, 4, 1, 1)), ('element', (1, 4, 6, 6))])
def test_fluid_prelu_parameter(mode, shape):
    main, startup, out = build(lambda: L.prelu(_x(), mode))
    (op_type, ins, outs, attrs), = ops_of(main)
    assert (ins, outs, attrs['mode']) == ({'X': ['x'], 'Alpha': ['prelu_0.w_0']}, {'Out': ['prelu_0.tmp_0']}, mode)
    param, = main.global_block().all_parameters()
    assert tuple(param.shape) == shape
    assert _startup_inits(startup) == {'prelu_0.w_0': ('fill_constant', 0.25)}


def test_fluid_l2_normalize_lrn_maxout_programs():
    main, _, _ = build(lambda: L.l2_normalize(_x(), axis=1))
    assert ops_of(main)[0][:3] == ('norm', {'X': ['x']}, {'Out': ['l2_normalize_0.tmp_0'],
                                                          'Norm': ['l2_normalize_0.tmp_1']})
    assert (ops_of(main)[0][3]['axis'], ops_of(main)[0][3]['epsilon']) == (1, 1e-12)
    main, _, _ = build(lambda: L.lrn(_x()))
    op_type, ins, outs, attrs = ops_of(main)[0]
    assert outs == {'Out': ['lrn_0.tmp_1'], 'MidOut': ['lrn_0.tmp_0']}
    assert {k: attrs[k] for k in ('n', 'k', 'alpha', 'beta', 'data_format')} == {
        'n': 5, 'k': 1.0, 'alpha': 1e-4, 'beta': 0.75, 'data_format': 'NCHW'}
    main, _, out = build(lambda: L.maxout(_x(), groups=2, axis=1))
    assert ops_of(main)[0][3]['groups'] == 2 and tuple(out.shape) == (-1, 2, 6, 6)
    with pytest.raises(ValueError, match='Attr\\(axis\\) should be 1 when data format is NCHW'):
        build(lambda: L.maxout(_x(), groups=2, axis=2))


def test_functional_prelu_maxout_instance_norm():
    def net():
        x = paddle.static.data('x', [2, 4, 3, 3])
        w = paddle.static.data('w', [4])
        return F.prelu(x, w), F.maxout(x, 2, axis=1), F.instance_norm(x)
    main, startup, (p, m, i) = build(net)
    types = [(op[0], op[3].get('mode'), op[3].get('data_format')) for op in ops_of(main)]
    assert types == [('prelu', 'channel', 'NCHW'), ('maxout', None, None), ('instance_norm', None, None)]
    assert 'Scale' not in ops_of(main)[2][1]
    x = away_from_zero((2, 4, 3, 3), 10).astype(F32)
    w = np.array([0.1, 0.2, 0.3, 0.4], F32)
    got_p, got_m = run(main, startup, {'x': x, 'w': w}, [p, m])
    np.testing.assert_allclose(got_p, np.where(x > 0, x, w.reshape(1, 4, 1, 1) * x), rtol=1e-7)
    np.testing.assert_array_equal(got_m, x.reshape(2, 2, 2, 3, 3).max(2))


# ---------------------------------------------------------------------------------------------------------------
# conv2d_transpose

def ref_conv2d_transpose(x, w, stride, pads, dil, groups, out_hw):
    """Each input pixel scatters its filter-weighted copy into the output (pads = top, bottom, left, right)."""
    n, c_in, h, wd = x.shape
    cig, cog, kh, kw = c_in // groups, w.shape[1], w.shape[2], w.shape[3]
    out = np.zeros((n, cog * groups) + tuple(out_hw))
    for g in range(groups):
        for ic in range(cig):
            for oc in range(cog):
                for ki in range(kh):
                    for kj in range(kw):
                        for i in range(h):
                            oi = i * stride[0] - pads[0] + ki * dil[0]
                            if not 0 <= oi < out_hw[0]:
                                continue
                            for j in range(wd):
                                oj = j * stride[1] - pads[2] + kj * dil[1]
                                if 0 <= oj < out_hw[1]:
                                    weight = w[g * cig + ic, oc, ki, kj]
                                    out[:, g * cog + oc, oi, oj] += x[:, g * cig + ic, i, j] * weight
    return out


CONV_T_CASES = [
    # x shape, w shape, attrs, (top, bottom, left, right) as resolved, output (h, w)
    ((2, 4, 3, 4), (4, 3, 3, 3), {'strides': [2, 2], 'paddings': [1, 1]}, (1, 1, 1, 1), (5, 7)),
    ((1, 4, 3, 3), (4, 3, 2, 3), {'strides': [1, 2], 'paddings': [1, 0, 2, 1], 'dilations': [2, 2], 'groups': 2},
     (1, 0, 2, 1), (4, 6)),
    ((1, 2, 3, 3), (2, 2, 3, 3), {'strides': [2, 2], 'paddings': [1, 1], 'output_size': [6, 6]}, (1, 1, 1, 1),
     (6, 6)),
    ((1, 2, 3, 3), (2, 2, 3, 3), {'strides': [2, 2], 'paddings': [1, 1], 'output_padding': [1, 0]}, (1, 1, 1, 1),
     (6, 5)),
    ((1, 2, 3, 4), (2, 1, 3, 3), {'strides': [2, 2], 'padding_algorithm': 'SAME'}, (1, 1, 0, 1), (5, 8)),
]


@pytest.mark.parametrize('xs,ws,attrs,pads,out_hw', CONV_T_CASES)
def test_conv2d_transpose_forward_and_grad(xs, ws, attrs, pads, out_hw):
    rng = _rng(11)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    prog = nn_op('conv2d_transpose', {'x': x, 'w': w}, {'Input': 'x', 'Filter': 'w'}, attrs, ['Output'], 'Output',
                 wrt=('x', 'w'))
    got, = prog.run([prog.out])
    dil = [1, 1] if attrs.get('padding_algorithm') == 'SAME' else attrs.get('dilations', [1, 1])
    want = ref_conv2d_transpose(x, w, attrs['strides'], pads, dil, attrs.get('groups', 1), out_hw)
    assert tuple(prog.out.shape) == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    prog.check_grads()


def test_conv2d_transpose_channels_last_and_depthwise():
    rng = _rng(12)
    x, w = rng.standard_normal((1, 3, 3, 4)), rng.standard_normal((3, 1, 3, 3))
    nchw = nn_op('depthwise_conv2d_transpose', {'x': x, 'w': w}, {'Input': 'x', 'Filter': 'w'},
                 {'strides': [2, 1], 'groups': 3}, ['Output'], 'Output')
    np.testing.assert_allclose(nchw.run([nchw.out])[0], ref_conv2d_transpose(x, w, [2, 1], (0, 0, 0, 0), [1, 1], 3,
                                                                             (7, 6)), rtol=1e-10)
    nhwc = nn_op('conv2d_transpose', {'x': x.transpose(0, 2, 3, 1).copy(), 'w': w}, {'Input': 'x', 'Filter': 'w'},
                 {'strides': [2, 1], 'groups': 3, 'data_format': 'NHWC'}, ['Output'], 'Output', wrt=('x', 'w'))
    np.testing.assert_allclose(nhwc.run([nhwc.out])[0], nchw.run([nchw.out])[0].transpose(0, 2, 3, 1), rtol=1e-12)
    nhwc.check_grads()


def test_conv2d_transpose_output_size_must_fit_the_stride():
    with pytest.raises(ValueError, match='output_size \\[8, 8\\] must be within \\[5, 7\\)'):
        nn_op('conv2d_transpose', {'x': np.zeros((1, 2, 3, 3)), 'w': np.zeros((2, 2, 3, 3))},
              {'Input': 'x', 'Filter': 'w'}, {'strides': [2, 2], 'paddings': [1, 1], 'output_size': [8, 8]},
              ['Output'], 'Output')


def test_fluid_conv2d_transpose_program_matches_paddle_18():
    main, startup, out = build(lambda: L.conv2d_transpose(_x(), 3, output_size=[12, 12], stride=2, padding=1))
    types = [op[0] for op in ops_of(main)]
    assert types == ['conv2d_transpose', 'elementwise_add']
    op_type, ins, outs, attrs = ops_of(main)[0]
    assert (ins, outs) == ({'Input': ['x'], 'Filter': ['conv2d_transpose_0.w_0']},
                           {'Output': ['conv2d_transpose_0.tmp_0']})
    assert {k: attrs[k] for k in ('output_size', 'strides', 'paddings', 'dilations', 'groups', 'padding_algorithm')} \
        == {'output_size': [12, 12], 'strides': [2, 2], 'paddings': [1, 1], 'dilations': [1, 1], 'groups': 1,
            'padding_algorithm': 'EXPLICIT'}
    # filter_size derived from output_size: (12 - 5 * 2 + 2 - 1) // 1 + 1 = 4
    params = {p.name: tuple(p.shape) for p in main.global_block().all_parameters()}
    assert params == {'conv2d_transpose_0.w_0': (4, 3, 4, 4), 'conv2d_transpose_0.b_0': (3,)}
    inits = {op.output('Out')[0]: op for op in startup.global_block().ops}
    # Xavier uniform, limit sqrt(6 / (fan_in + fan_out)) = 0.2314550 as Paddle 1.8.5 records it
    assert inits['conv2d_transpose_0.w_0'].type == 'uniform_random'
    assert abs(inits['conv2d_transpose_0.w_0'].attrs['max'] - 0.2314550280570984) < 1e-7
    assert tuple(out.shape) == (-1, 3, 12, 12)
    main, _, out = build(lambda: L.conv2d_transpose(_x(), 4, filter_size=3, groups=4, use_cudnn=False))
    assert ops_of(main)[0][0] == 'depthwise_conv2d_transpose' and tuple(out.shape) == (-1, 4, 8, 8)


def test_functional_conv2d_transpose_program_and_values():
    def net():
        x = paddle.static.data('x', [1, 4, 3, 3])
        w = paddle.static.data('w', [4, 2, 3, 3])
        b = paddle.static.data('b', [2])
        return F.conv2d_transpose(x, w, b, stride=2, padding=1, output_padding=1)
    main, startup, out = build(net)
    op_type, ins, outs, attrs = ops_of(main)[0]
    assert (op_type, attrs['output_padding'], attrs['output_size']) == ('conv2d_transpose', [1, 1], [])
    assert tuple(out.shape) == (1, 2, 6, 6)
    rng = _rng(13)
    x, w, b = (rng.standard_normal(s).astype(F32) for s in ((1, 4, 3, 3), (4, 2, 3, 3), (2,)))
    got, = run(main, startup, {'x': x, 'w': w, 'b': b}, [out])
    want = ref_conv2d_transpose(x, w, [2, 2], (1, 1, 1, 1), [1, 1], 1, (6, 6)) + b.reshape(1, 2, 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
