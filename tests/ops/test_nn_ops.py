"""The nn family's ops through small programs: conv2d / depthwise_conv2d, pool2d, max_pool2d_with_index,
batch_norm, layer_norm, dropout.

Forward values are compared with the numpy references of tests/kernels (written independently of the kernels);
every grad op is checked against central finite differences of the same program's loss, `mean(out * proj)` with a
fixed random projection, run in float64. `OpProgram` is shared with test_loss_ops.py and test_embedding_ops.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.backward import append_backward
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, Scope, program_guard, unique_name
from paddle_exec.framework.dtype import VarType
from paddle_exec.layers import math as M
from paddle_exec.layers.io import data_v2
from tests.kernels.gradcheck import check_grad, numeric_grad
from tests.kernels.test_conv import ref_adaptive_avg, ref_conv2d, ref_pool2d
from tests.kernels.test_norm import ref_batch_norm_train, ref_layer_norm, ref_minstd_mask

F64 = np.float64


# ---------------------------------------------------------------------------------------------------------------
# harness

def append(block, op_type, inputs, outputs, attrs=None):
    """Appends a raw op; `outputs` maps slot -> number of output variables. Returns {slot: [Variable]}."""
    outs = {slot: [block.create_var(name=unique_name.generate('%s.%s' % (op_type, slot.lower())))
                   for _ in range(n)] for slot, n in outputs.items()}
    block.append_op(op_type, inputs, outs, attrs or {})
    return outs


class OpProgram:
    """`build(block, **vars)` -> the Variable to differentiate, in a program fed `feeds` (name -> array; exact
    shapes). Names in `wrt` get gradients of `loss = mean(out * proj)`, `proj` a fixed random array."""

    def __init__(self, build, feeds: dict, wrt=(), seed: int = 0):
        # C order: numeric_grad perturbs a flat view of each array
        self.feeds = {k: np.ascontiguousarray(v) for k, v in feeds.items()}
        self.wrt = list(wrt)
        self.main, startup = Program(), Program()
        with unique_name.guard(), program_guard(self.main, startup):
            block = self.main.global_block()
            vs = {n: data_v2(n, list(a.shape), a.dtype) for n, a in self.feeds.items()}
            for n in self.wrt:
                vs[n].stop_gradient = False
            self.out = build(block, **vs)
            self.proj = np.random.default_rng(seed).standard_normal(self.out.shape).astype(
                np.dtype(str(self.out.dtype).split('.')[-1].lower().replace('fp', 'float')))
            proj = data_v2('proj@test', list(self.proj.shape), self.proj.dtype)
            self.loss = M.mean(M.elementwise_mul(self.out, proj))
            if self.wrt:
                append_backward(self.loss)
        self.exe = Executor(CPUPlace())
        self.scope = Scope()
        self.exe.run(startup, scope=self.scope)

    def run(self, fetch, feeds=None, return_numpy=True):
        feed = {**self.feeds, **(feeds or {}), 'proj@test': self.proj}
        names = [f if isinstance(f, str) else f.name for f in fetch]
        return self.exe.run(self.main, feed=feed, fetch_list=names, scope=self.scope, return_numpy=return_numpy)

    def loss_value(self, **feeds) -> float:
        return float(self.run([self.loss], feeds)[0][0])

    def check_grads(self, rtol=1e-5, atol=1e-7, eps=1e-5):
        """Every `wrt` gradient of the program against finite differences of its own loss."""
        grads = self.run([n + '@GRAD' for n in self.wrt])
        names = list(self.wrt)
        for name, analytic in zip(names, grads):
            def loss_at(value, name=name):
                return self.loss_value(**{name: value})
            numeric = numeric_grad(loss_at, [self.feeds[name]], 0, eps=eps)
            check_grad(analytic, numeric, rtol=rtol, atol=atol, name=name + '@GRAD')


def _rng(seed=0):
    return np.random.default_rng(seed)


def distinct(shape, seed=0):
    """Values spaced at least 0.01 apart: max pooling stays differentiable under finite differences."""
    n = int(np.prod(shape))
    return (_rng(seed).permutation(n).reshape(shape) * 0.01 - n * 0.005).astype(F64)


# ---------------------------------------------------------------------------------------------------------------
# conv2d / depthwise_conv2d

def conv_program(x, w, attrs, op_type='conv2d', wrt=()):
    def build(block, x, w):
        return append(block, op_type, {'Input': [x], 'Filter': [w]}, {'Output': 1}, attrs)['Output'][0]
    return OpProgram(build, {'x': x, 'w': w}, wrt)


def _pads4(paddings, algorithm, hw, ksize, strides):
    from paddle_exec.kernels.conv import resolve_paddings
    return resolve_paddings(paddings, algorithm, hw, ksize, strides)


CONV_CASES = [
    # (x shape NCHW, filter shape, strides, paddings, dilations, groups, padding_algorithm, data_format)
    ((2, 3, 7, 6), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, 'EXPLICIT', 'NCHW'),
    ((2, 4, 8, 7), (6, 2, 3, 2), [2, 1], [1, 2, 0, 1], [1, 2], 2, 'EXPLICIT', 'NCHW'),
    ((1, 2, 9, 9), (3, 2, 3, 3), [2, 2], [0, 0], [1, 1], 1, 'SAME', 'NCHW'),
    ((1, 2, 9, 8), (3, 2, 2, 3), [1, 2], [5, 5], [1, 1], 1, 'VALID', 'NCHW'),
    ((2, 3, 6, 5), (4, 3, 3, 3), [1, 1], [1, 1], [1, 1], 1, 'EXPLICIT', 'NHWC'),
]


@pytest.mark.parametrize('xs,ws,strides,pads,dil,groups,algo,fmt', CONV_CASES)
def test_conv2d_forward_matches_numpy(xs, ws, strides, pads, dil, groups, algo, fmt):
    rng = _rng(1)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    x_fed = x.transpose(0, 2, 3, 1).copy() if fmt == 'NHWC' else x
    attrs = {'strides': strides, 'paddings': pads, 'dilations': dil, 'groups': groups, 'padding_algorithm': algo,
             'data_format': fmt}
    prog = conv_program(x_fed, w, attrs)
    got, = prog.run([prog.out])
    full = _pads4(pads, algo, xs[2:], ws[2:], strides)
    want = ref_conv2d(x, w, strides, full, [1, 1] if algo == 'SAME' else dil, groups)
    if fmt == 'NHWC':
        want = want.transpose(0, 2, 3, 1)
    assert tuple(prog.out.shape) == want.shape        # compile-time shape inference agrees with the run
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('case', [CONV_CASES[1], CONV_CASES[2], CONV_CASES[4]])
def test_conv2d_grad_matches_finite_differences(case):
    xs, ws, strides, pads, dil, groups, algo, fmt = case
    rng = _rng(2)
    x = rng.standard_normal(xs)
    if fmt == 'NHWC':
        x = x.transpose(0, 2, 3, 1).copy()
    w = rng.standard_normal(ws)
    attrs = {'strides': strides, 'paddings': pads, 'dilations': dil, 'groups': groups, 'padding_algorithm': algo,
             'data_format': fmt}
    conv_program(x, w, attrs, wrt=('x', 'w')).check_grads()


def test_depthwise_conv2d_is_a_grouped_conv():
    rng = _rng(3)
    x, w = rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((6, 1, 3, 3))
    attrs = {'groups': 3, 'paddings': [1, 1]}
    prog = conv_program(x, w, attrs, 'depthwise_conv2d', wrt=('x', 'w'))
    got, = prog.run([prog.out])
    np.testing.assert_allclose(got, ref_conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 3), rtol=1e-10)
    prog.check_grads()


def test_conv2d_filter_grad_only_when_input_needs_none():
    rng = _rng(4)
    prog = conv_program(rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 2, 3, 3)), {}, wrt=('w',))
    grad_op = [op for op in prog.main.global_block().ops if op.type == 'conv2d_grad'][0]
    assert grad_op.output('Input@GRAD') in ([], ['@EMPTY@'])
    prog.check_grads()


def test_conv2d_shape_keeps_unknown_batch_and_checks_channels():
    main = Program()
    with program_guard(main, Program()):
        x = data_v2('x', [-1, 3, 9, 9], 'float32')
        w = data_v2('w', [4, 3, 3, 3], 'float32')
        out = append(main.global_block(), 'conv2d', {'Input': [x], 'Filter': [w]}, {'Output': 1},
                     {'strides': [2, 2], 'padding_algorithm': 'SAME'})['Output'][0]
        assert out.shape == (-1, 4, 5, 5)
        bad = data_v2('bad', [4, 2, 3, 3], 'float32')
        with pytest.raises(ValueError, match="conv2d.*input channels"):
            append(main.global_block(), 'conv2d', {'Input': [x], 'Filter': [bad]}, {'Output': 1})


def test_conv2d_refuses_the_mkldnn_bias_input():
    rng = _rng(5)

    def build(block, x, w, b):
        return append(block, 'conv2d', {'Input': [x], 'Filter': [w], 'Bias': [b]}, {'Output': 1})['Output'][0]
    with pytest.raises(NotImplementedError, match='Bias'):
        prog = OpProgram(build, {'x': rng.standard_normal((1, 1, 3, 3)), 'w': rng.standard_normal((1, 1, 1, 1)),
                                 'b': np.zeros(1)})
        prog.run([prog.out])


def test_conv2d_refuses_the_fused_relu_attribute():
    prog = conv_program(np.ones((1, 2, 3, 3)), np.ones((2, 1, 1, 1)), {'groups': 2,
                                                                       'fuse_relu_before_depthwise_conv': True},
                        'depthwise_conv2d')
    with pytest.raises(NotImplementedError, match='fuse_relu_before_depthwise_conv'):
        prog.run([prog.out])


# ---------------------------------------------------------------------------------------------------------------
# pool2d

def pool_program(x, attrs, wrt=()):
    def build(block, x):
        return append(block, 'pool2d', {'X': [x]}, {'Out': 1}, attrs)['Out'][0]
    return OpProgram(build, {'x': x}, wrt)


POOL_CASES = [
    # (ksize, type, strides, paddings, ceil_mode, exclusive)
    ([2, 2], 'max', [2, 2], [0, 0], False, True),
    ([3, 3], 'avg', [2, 2], [1, 1], False, True),
    ([3, 3], 'avg', [2, 2], [1, 1], True, False),
    ([3, 2], 'max', [1, 2], [1, 0, 0, 1], True, True),
]


@pytest.mark.filterwarnings('ignore::RuntimeWarning')     # the last case has an empty window: -FLT_MAX
@pytest.mark.parametrize('ksize,kind,strides,pads,ceil_mode,exclusive', POOL_CASES)
def test_pool2d_forward_matches_numpy(ksize, kind, strides, pads, ceil_mode, exclusive):
    x = _rng(6).standard_normal((2, 3, 7, 6)).astype(np.float32)
    prog = pool_program(x, {'ksize': ksize, 'pooling_type': kind, 'strides': strides, 'paddings': pads,
                            'ceil_mode': ceil_mode, 'exclusive': exclusive})
    got, = prog.run([prog.out])
    full = _pads4(pads, 'EXPLICIT', (7, 6), ksize, strides)
    want = ref_pool2d(x, ksize, kind, strides, full, ceil_mode, exclusive)
    assert tuple(prog.out.shape) == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_pool2d_global_adaptive_and_nhwc():
    x = _rng(7).standard_normal((2, 3, 5, 7))
    g = pool_program(x, {'ksize': [1, 1], 'pooling_type': 'avg', 'global_pooling': True})
    np.testing.assert_allclose(g.run([g.out])[0], x.mean(axis=(2, 3), keepdims=True), rtol=1e-12)
    a = pool_program(x, {'ksize': [2, 3], 'pooling_type': 'avg', 'adaptive': True})
    assert a.out.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(a.run([a.out])[0], ref_adaptive_avg(x, (2, 3)), rtol=1e-12)
    nhwc = pool_program(x.transpose(0, 2, 3, 1).copy(), {'ksize': [2, 2], 'strides': [2, 2], 'data_format': 'NHWC'})
    want = ref_pool2d(x, [2, 2], 'max', [2, 2], (0, 0, 0, 0)).transpose(0, 2, 3, 1)
    assert nhwc.out.shape == want.shape
    np.testing.assert_allclose(nhwc.run([nhwc.out])[0], want)


@pytest.mark.parametrize('case', POOL_CASES[:3] + [([3, 2], 'max', [1, 2], [1, 0, 0, 1], False, True)])
def test_pool2d_grad_matches_finite_differences(case):
    ksize, kind, strides, pads, ceil_mode, exclusive = case
    pool_program(distinct((1, 2, 7, 6)), {'ksize': ksize, 'pooling_type': kind, 'strides': strides, 'paddings': pads,
                                          'ceil_mode': ceil_mode, 'exclusive': exclusive}, wrt=('x',)).check_grads()


def test_pool2d_max_grad_goes_to_the_first_tie():
    x = np.zeros((1, 1, 2, 2))
    prog = pool_program(x, {'ksize': [2, 2], 'strides': [2, 2]}, wrt=('x',))
    dx, = prog.run(['x@GRAD'])
    np.testing.assert_array_equal(dx[0, 0] != 0, [[True, False], [False, False]])


# ---------------------------------------------------------------------------------------------------------------
# max_pool2d_with_index

def maxpool_index_program(x, attrs, wrt=()):
    holder = {}

    def build(block, x):
        outs = append(block, 'max_pool2d_with_index', {'X': [x]}, {'Out': 1, 'Mask': 1}, attrs)
        holder['mask'] = outs['Mask'][0]
        return outs['Out'][0]
    prog = OpProgram(build, {'x': x}, wrt)
    prog.mask = holder['mask']
    return prog


def test_max_pool2d_with_index_forward_mask_and_grad():
    x = distinct((2, 2, 5, 6), seed=8)
    prog = maxpool_index_program(x, {'ksize': [2, 3], 'strides': [2, 2], 'paddings': [1, 1]}, wrt=('x',))
    out, mask = prog.run([prog.out, prog.mask])
    want = ref_pool2d(x, [2, 3], 'max', [2, 2], (1, 1, 1, 1))
    np.testing.assert_allclose(out, want)
    assert mask.dtype == np.int32 and prog.mask.dtype == VarType.INT32
    flat = x.reshape(2, 2, -1)
    np.testing.assert_allclose(np.take_along_axis(flat, mask.reshape(2, 2, -1).astype(np.int64), 2).reshape(out.shape),
                               out)
    prog.check_grads()


def test_max_pool2d_with_index_adaptive():
    x = distinct((1, 2, 5, 7), seed=9)
    prog = maxpool_index_program(x, {'ksize': [2, 3], 'adaptive': True}, wrt=('x',))
    out, = prog.run([prog.out])
    assert out.shape == (1, 2, 2, 3)
    np.testing.assert_allclose(out[0, 0, 0, 0], x[0, 0, 0:3, 0:3].max())
    np.testing.assert_allclose(out[0, 1, 1, 2], x[0, 1, 2:5, 4:7].max())
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# batch_norm

def bn_program(x, c, attrs, wrt=(), momentum_tensor=None, seed=10):
    rng = _rng(seed)
    feeds = {'x': x, 'scale': rng.uniform(0.5, 1.5, c).astype(x.dtype), 'bias': rng.standard_normal(c).astype(x.dtype),
             'mean': rng.standard_normal(c).astype(x.dtype), 'var': rng.uniform(0.5, 2.0, c).astype(x.dtype)}
    if momentum_tensor is not None:
        feeds['mom'] = np.array([momentum_tensor], x.dtype)
    holder = {}

    def build(block, x, scale, bias, mean, var, mom=None):
        inputs = {'X': [x], 'Scale': [scale], 'Bias': [bias], 'Mean': [mean], 'Variance': [var]}
        if mom is not None:
            inputs['MomentumTensor'] = [mom]
        saved = {s: [block.create_var(name='bn.' + s)] for s in ('SavedMean', 'SavedVariance', 'Y')}
        block.append_op('batch_norm', inputs, {'MeanOut': [mean], 'VarianceOut': [var], **saved}, attrs)
        holder.update(saved)
        return saved['Y'][0]
    prog = OpProgram(build, feeds, wrt)
    prog.saved = holder
    return prog


@pytest.mark.parametrize('shape,layout', [((4, 3, 5, 2), 'NCHW'), ((6, 5), 'NCHW'), ((3, 4, 2, 5), 'NHWC')])
def test_batch_norm_training_forward_and_running_stats(shape, layout):
    x = _rng(11).standard_normal(shape).astype(np.float32) * 2 + 1
    c = shape[1] if layout == 'NCHW' else shape[-1]
    prog = bn_program(x, c, {'momentum': 0.8, 'epsilon': 1e-3, 'data_layout': layout})
    f = prog.feeds
    y, mean_out, var_out, saved_mean, saved_inv = prog.run(['bn.Y', 'mean', 'var', 'bn.SavedMean',
                                                             'bn.SavedVariance'])
    want = ref_batch_norm_train(x, f['scale'], f['bias'], f['mean'], f['var'], 0.8, 1e-3, layout)
    for got, ref in zip((y, mean_out, var_out, saved_mean, saved_inv), want):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


def test_batch_norm_momentum_tensor_overrides_the_attribute():
    x = _rng(12).standard_normal((4, 3)).astype(np.float32)
    prog = bn_program(x, 3, {'momentum': 0.9}, momentum_tensor=0.5)
    f = prog.feeds
    mean_out, = prog.run(['mean'])
    np.testing.assert_allclose(mean_out, f['mean'] * 0.5 + x.mean(axis=0) * 0.5, rtol=1e-5)


def test_batch_norm_running_stats_update_in_place_across_runs():
    """MeanOut/VarianceOut are the persistable Mean/Variance: each run starts from the previous run's values."""
    main, startup = Program(), Program()
    scope = Scope()
    with unique_name.guard(), program_guard(main, startup):
        from paddle_exec.layers.norm import batch_norm
        x = data_v2('x', [4, 2], 'float32')
        batch_norm(x, momentum=0.5)
    op = [o for o in main.global_block().ops if o.type == 'batch_norm'][0]
    assert op.output('MeanOut') == op.input('Mean') == ['batch_norm_0.w_1']
    exe = Executor(CPUPlace())
    exe.run(startup, scope=scope)
    xv = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.float32)
    for _ in range(2):
        exe.run(main, feed={'x': xv}, scope=scope)
    mean = np.array(scope.find_var('batch_norm_0.w_1').get_tensor())
    np.testing.assert_allclose(mean, xv.mean(0) * 0.75, rtol=1e-6)     # 0 -> m/2 -> m/2/2 + m/2


@pytest.mark.parametrize('attrs', [{'is_test': True}, {'use_global_stats': True}])
def test_batch_norm_global_stats_forward(attrs):
    x = _rng(13).standard_normal((3, 4, 2, 2)).astype(np.float32)
    prog = bn_program(x, 4, {'epsilon': 1e-5, **attrs})
    f = prog.feeds
    y, mean_out, var_out = prog.run(['bn.Y', 'mean', 'var'])
    shape = (1, 4, 1, 1)
    want = (x - f['mean'].reshape(shape)) / np.sqrt(f['var'].reshape(shape) + 1e-5) * f['scale'].reshape(shape) \
        + f['bias'].reshape(shape)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(mean_out, f['mean'])     # running statistics pass through
    np.testing.assert_array_equal(var_out, f['var'])


def test_batch_norm_refuses_the_fused_relu_attribute():
    prog = bn_program(np.ones((2, 3), np.float32), 3, {'fuse_with_relu': True})
    with pytest.raises(NotImplementedError, match='fuse_with_relu'):
        prog.run(['bn.Y'])


def test_batch_norm_trainable_statistics_in_test_mode_use_the_batch():
    x = _rng(14).standard_normal((5, 3)).astype(np.float32)
    prog = bn_program(x, 3, {'is_test': True, 'trainable_statistics': True})
    f = prog.feeds
    y, = prog.run(['bn.Y'])
    want = ref_batch_norm_train(x, f['scale'], f['bias'], f['mean'], f['var'], 0.9, 1e-5, 'NCHW')[0]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('shape,layout,attrs', [((4, 3, 2, 3), 'NCHW', {}), ((3, 2, 2, 4), 'NHWC', {}),
                                                ((4, 3, 2), 'NCHW', {'use_global_stats': True})])
def test_batch_norm_grad_matches_finite_differences(shape, layout, attrs):
    x = _rng(15).standard_normal(shape)
    c = shape[1] if layout == 'NCHW' else shape[-1]
    prog = bn_program(x, c, {'data_layout': layout, 'epsilon': 1e-3, **attrs}, wrt=('x', 'scale', 'bias'))
    grad_op = [op for op in prog.main.global_block().ops if op.type == 'batch_norm_grad'][0]
    assert bool(grad_op.input('Mean')) == bool(attrs)          # running stats read only with global statistics
    prog.check_grads(rtol=1e-4, atol=1e-7)


# ---------------------------------------------------------------------------------------------------------------
# layer_norm

def ln_program(x, axis, with_scale, with_bias, eps=1e-5, wrt=()):
    rng = _rng(16)
    right = int(np.prod(x.shape[axis:]))
    feeds = {'x': x}
    if with_scale:
        feeds['scale'] = rng.uniform(0.5, 1.5, right)
    if with_bias:
        feeds['bias'] = rng.standard_normal(right)

    def build(block, x, scale=None, bias=None):
        inputs = {'X': [x]}
        if scale is not None:
            inputs['Scale'] = [scale]
        if bias is not None:
            inputs['Bias'] = [bias]
        outs = append(block, 'layer_norm', inputs, {'Y': 1, 'Mean': 1, 'Variance': 1},
                      {'begin_norm_axis': axis, 'epsilon': eps})
        block.program.ln_outs = outs
        return outs['Y'][0]
    return OpProgram(build, feeds, [w for w in wrt if w in feeds])


@pytest.mark.parametrize('shape,axis,with_scale,with_bias', [((4, 6), 1, True, True), ((3, 4, 5), 2, True, False),
                                                             ((3, 4, 5), 1, False, False), ((2, 3, 2, 2), 1, False,
                                                                                            True)])
def test_layer_norm_forward_and_grad(shape, axis, with_scale, with_bias):
    x = _rng(17).standard_normal(shape)
    prog = ln_program(x, axis, with_scale, with_bias, wrt=('x', 'scale', 'bias'))
    outs = prog.main.ln_outs
    y, mean, var = prog.run([outs['Y'][0], outs['Mean'][0], outs['Variance'][0]])
    want = ref_layer_norm(x, prog.feeds.get('scale'), prog.feeds.get('bias'), axis, 1e-5)
    for got, ref in zip((y, mean, var), want):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
    assert outs['Mean'][0].shape == (int(np.prod(shape[:axis])),)
    prog.check_grads()


# ---------------------------------------------------------------------------------------------------------------
# dropout

def dropout_program(x, attrs, wrt=(), seed_tensor=None):
    feeds = {'x': x}
    if seed_tensor is not None:
        feeds['seed'] = np.array([seed_tensor], np.int32)
    holder = {}

    def build(block, x, seed=None):
        inputs = {'X': [x]}
        if seed is not None:
            inputs['Seed'] = [seed]
        outs = append(block, 'dropout', inputs, {'Out': 1, 'Mask': 1}, attrs)
        holder['mask'] = outs['Mask'][0]
        return outs['Out'][0]
    prog = OpProgram(build, feeds, wrt)
    prog.mask = holder['mask']
    return prog


@pytest.mark.parametrize('impl', ['downgrade_in_infer', 'upscale_in_train'])
def test_dropout_fixed_seed_mask_is_paddles(impl):
    x = _rng(18).standard_normal((3, 7)).astype(np.float32)
    prog = dropout_program(x, {'dropout_prob': 0.35, 'fix_seed': True, 'seed': 123, 'dropout_implementation': impl})
    out, mask = prog.run([prog.out, prog.mask])
    want_mask = ref_minstd_mask(x.size, 123, 0.35).reshape(x.shape)
    np.testing.assert_array_equal(mask, want_mask)
    scale = np.float32(1) / (np.float32(1) - np.float32(0.35)) if impl == 'upscale_in_train' else 1
    np.testing.assert_allclose(out, x * want_mask * scale, rtol=1e-6)
    assert prog.mask.dtype == VarType.UINT8
    np.testing.assert_array_equal(prog.run([prog.mask])[0], mask)     # fix_seed: the same mask every run


def test_dropout_without_seed_draws_a_new_mask_each_run():
    prog = dropout_program(np.ones((50, 40), np.float32), {'dropout_prob': 0.5})
    first, second = prog.run([prog.mask])[0], prog.run([prog.mask])[0]
    assert 0.3 < first.mean() < 0.7
    assert (first != second).any()


def test_dropout_seed_tensor_wins_over_the_attribute():
    x = np.ones((4, 5), np.float32)
    prog = dropout_program(x, {'dropout_prob': 0.5, 'fix_seed': True, 'seed': 1}, seed_tensor=77)
    np.testing.assert_array_equal(prog.run([prog.mask])[0], ref_minstd_mask(20, 77, 0.5).reshape(4, 5))


@pytest.mark.parametrize('impl,factor', [('downgrade_in_infer', np.float32(0.75)), ('upscale_in_train', 1.0)])
def test_dropout_test_mode(impl, factor):
    x = _rng(19).standard_normal((3, 4))
    prog = dropout_program(x, {'dropout_prob': 0.25, 'is_test': True, 'dropout_implementation': impl}, wrt=('x',))
    out, dx = prog.run([prog.out, 'x@GRAD'])
    np.testing.assert_allclose(out, x * factor, rtol=1e-7)
    prog.check_grads()          # Paddle 2.x differentiates the inference formula


@pytest.mark.parametrize('impl', ['downgrade_in_infer', 'upscale_in_train'])
def test_dropout_grad_matches_finite_differences(impl):
    x = _rng(20).standard_normal((4, 6))
    prog = dropout_program(x, {'dropout_prob': 0.4, 'fix_seed': True, 'seed': 5, 'dropout_implementation': impl},
                           wrt=('x',))
    prog.check_grads()


def test_dropout_probability_out_of_range():
    with pytest.raises(ValueError, match="dropout.*dropout_prob"):
        dropout_program(np.ones((2, 2), np.float32), {'dropout_prob': 1.5})
