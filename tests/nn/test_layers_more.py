"""What the golden cases (tests/api/test_nn_golden.py) cannot compare with real Paddle: the random layers and
functions by their properties (dropout2d / dropout3d drop whole channels, alpha_dropout keeps the moments,
gumbel_softmax and rrelu), scaled_dot_product_attention (a CUDA kernel in Paddle) against numpy, SyncBatchNorm
(which Paddle's CPU build cannot run) against BatchNorm2D, the initializers, and the declined names."""
from __future__ import annotations

import math

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn as nn
import paddle_exec.nn.functional as F
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope


def build(fn, seed=0):
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = seed
    with unique_name.guard(), static.program_guard(main, startup):
        result = fn()
    return main, startup, result


def run(main, startup, feed, fetch):
    scope = Scope()
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def _rng(seed=0):
    return np.random.default_rng(seed)


# --- random functions --------------------------------------------------------------------------------------------

@pytest.mark.parametrize('rank', [4, 5])
def test_dropout2d_and_3d_drop_whole_channels_and_rescale(rank):
    shape = (8, 16, 3, 4) if rank == 4 else (8, 16, 2, 3, 2)
    x = np.ones(shape, np.float32)

    def net():
        v = static.data('x', list(shape), 'float32')
        layer = nn.Dropout2D(0.25) if rank == 4 else nn.Dropout3D(0.25)
        return layer(v), (F.dropout2d if rank == 4 else F.dropout3d)(v, 0.25, training=False)
    main, startup, (train, infer) = build(net)
    (got, same), _ = run(main, startup, {'x': x}, [train, infer])
    per_channel = got.reshape(8, 16, -1)
    assert np.all(per_channel.min(axis=2) == per_channel.max(axis=2))      # a channel is kept or dropped whole
    assert set(np.unique(got)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.1 < np.mean(got == 0) < 0.4
    np.testing.assert_array_equal(same, x)


def test_alpha_dropout_keeps_mean_and_variance_of_a_standard_input():
    x = _rng(1).standard_normal((200, 500)).astype(np.float32)

    def net():
        v = static.data('x', [200, 500], 'float32')
        return F.alpha_dropout(v, 0.2), nn.AlphaDropout(0.2).eval()(v)
    main, startup, (out, same) = build(net)
    (got, kept), _ = run(main, startup, {'x': x}, [out, same])
    assert abs(got.mean()) < 0.02 and abs(got.std() - 1) < 0.03
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.2) * (1 + 0.2 * alpha_p ** 2)) ** -0.5
    dropped = np.isclose(got, a * alpha_p - a * alpha_p * 0.2)       # every dropped element becomes a * alpha_p + b
    assert 0.17 < np.mean(dropped) < 0.23
    np.testing.assert_array_equal(kept, x)


def test_gumbel_softmax_and_rrelu_functions():
    x = _rng(2).standard_normal((5, 7)).astype(np.float32)

    def net():
        v = static.data('x', [5, 7], 'float32')
        return F.gumbel_softmax(v, temperature=0.3), F.gumbel_softmax(v, hard=True, axis=0), F.rrelu(v), \
            nn.RReLU()(v)
    main, startup, outs = build(net)
    (soft, hard, rr, layer_rr), _ = run(main, startup, {'x': x}, list(outs))
    np.testing.assert_allclose(soft.sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(hard.sum(axis=0), np.ones(7))
    for got in (rr, layer_rr):
        slope = got[x < 0] / x[x < 0]
        assert slope.min() >= 1 / 8 - 1e-6 and slope.max() <= 1 / 3 + 1e-6
        np.testing.assert_array_equal(got[x >= 0], x[x >= 0])


# --- attention --------------------------------------------------------------------------------------------------

def ref_attention(q, k, v, mask=None, causal=False):
    qt, kt, vt = (a.transpose(0, 2, 1, 3).astype(np.float64) for a in (q, k, v))
    scores = qt @ kt.transpose(0, 1, 3, 2) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + (np.where(mask, 0.0, -1e9) if mask.dtype == bool else mask)
    if causal:
        scores = scores + np.triu(np.full(scores.shape[-2:], -1e9), 1)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w /= w.sum(axis=-1, keepdims=True)
    return (w @ vt).transpose(0, 2, 1, 3)


def test_scaled_dot_product_attention_matches_numpy():
    rng = _rng(3)
    q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((2, 4, 2, 3), (2, 5, 2, 3), (2, 5, 2, 3)))
    mask = rng.uniform(size=(2, 2, 4, 5)) > 0.3

    def net():
        vs = [static.data(n, list(a.shape), 'float32') for n, a in (('q', q), ('k', k), ('v', v))]
        m = static.data('m', [2, 2, 4, 5], 'bool')
        fm = static.data('fm', [2, 2, 4, 5], 'float32')
        return (F.scaled_dot_product_attention(*vs), F.scaled_dot_product_attention(*vs, attn_mask=m),
                F.scaled_dot_product_attention(*vs, attn_mask=fm),
                F.scaled_dot_product_attention(vs[0], vs[0], vs[0], is_causal=True))
    main, startup, outs = build(net)
    fmask = rng.uniform(-1, 0, (2, 2, 4, 5)).astype(np.float32)
    got, _ = run(main, startup, {'q': q, 'k': k, 'v': v, 'm': mask, 'fm': fmask}, list(outs))
    np.testing.assert_allclose(got[0], ref_attention(q, k, v), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], ref_attention(q, k, v, mask), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], ref_attention(q, k, v, fmask), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[3], ref_attention(q, q, q, causal=True), rtol=1e-5, atol=1e-6)


# --- SyncBatchNorm ----------------------------------------------------------------------------------------------

def test_sync_batch_norm_appends_batch_norm_and_matches_batch_norm_2d():
    x = _rng(4).standard_normal((4, 3, 2, 5)).astype(np.float32)

    def net():
        v = static.data('x', [4, 3, 2, 5], 'float32')
        model = nn.Sequential(nn.Conv2D(3, 3, 1), nn.BatchNorm2D(3))
        converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
        return v, converted, nn.SyncBatchNorm(3)(v), nn.BatchNorm2D(3)(v)
    main, startup, (v, converted, sync_out, bn_out) = build(net)
    assert isinstance(converted[1], nn.SyncBatchNorm)
    assert [op.type for op in main.global_block().ops].count('batch_norm') == 2
    (a, b), _ = run(main, startup, {'x': x}, [sync_out, bn_out])
    np.testing.assert_allclose(a, b, rtol=1e-6)


# --- initializers -----------------------------------------------------------------------------------------------

# fluid 1.8.5's Bilinear() on a [2, 1, 4, 4] conv2d_transpose filter (its formula divides with / under Python 3)
PADDLE_BILINEAR_4x4 = np.array([[0.0625, 0.28125, 0.375, 0.15625], [0.1875, 0.65625, 0.75, 0.21875],
                                [0.1875, 0.46875, 0.375, 0.09375], [0.0625, 0.09375, 0.0, -0.03125]], np.float32)


def test_bilinear_initializer_reproduces_paddles_values():
    def net():
        x = fluid.data('x', [1, 2, 3, 3], 'float32')
        for init in (fluid.initializer.Bilinear(), fluid.initializer.BilinearInitializer()):
            fluid.layers.conv2d_transpose(x, 2, filter_size=4, bias_attr=False, groups=2,
                                          param_attr=fluid.ParamAttr(initializer=init))
    main, startup, _ = build(net)
    _, scope = run(main, startup, {'x': np.zeros((1, 2, 3, 3), np.float32)}, [])
    for name in ('conv2d_transpose_0.w_0', 'conv2d_transpose_1.w_0'):
        w = np.asarray(scope.find_var(name).get_tensor())
        np.testing.assert_array_equal(w[0, 0], PADDLE_BILINEAR_4x4)
        np.testing.assert_array_equal(w[1, 0], PADDLE_BILINEAR_4x4)
    assert nn.initializer.Bilinear is fluid.initializer.BilinearInitializer


def test_dirac_orthogonal_initializers_and_calculate_gain():
    x = _rng(5).standard_normal((2, 4, 5, 5)).astype(np.float32)

    def net():
        v = static.data('x', [2, 4, 5, 5], 'float32')
        conv = nn.Conv2D(4, 4, 3, padding=1, bias_attr=False,
                         weight_attr=paddle.ParamAttr(initializer=nn.initializer.Dirac()))
        grouped = nn.Conv2D(4, 8, 3, padding=1, groups=2, bias_attr=False,
                            weight_attr=paddle.ParamAttr(initializer=nn.initializer.Dirac(groups=2)))
        ortho = nn.Linear(6, 3, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Orthogonal(gain=2.0)))
        return conv(v), grouped(v), ortho
    main, startup, (same, grouped, ortho) = build(net, seed=3)
    (got, got2), scope = run(main, startup, {'x': x}, [same, grouped])
    np.testing.assert_allclose(got, x, rtol=1e-6)                 # Dirac: the convolution passes its input
    np.testing.assert_allclose(got2[:, [0, 1, 4, 5]], x, rtol=1e-6)
    np.testing.assert_array_equal(got2[:, [2, 3, 6, 7]], 0)
    w = np.asarray(scope.find_var(ortho.weight.name).get_tensor()).astype(np.float64)
    np.testing.assert_allclose(w.T @ w, 4.0 * np.eye(3), atol=1e-5)
    gain = nn.initializer.calculate_gain
    assert gain('tanh') == 5.0 / 3 and gain('relu') == math.sqrt(2.0) and gain('conv3d_transpose') == 1
    assert gain('leaky_relu', 0.2) == math.sqrt(2.0 / 1.04) and gain('selu') == 0.75
    with pytest.raises(ValueError, match='not suppported'):
        gain('softmax')


# --- declined names -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name', ['elu_', 'hardtanh_', 'leaky_relu_', 'relu_', 'softmax_', 'tanh_',
                                  'thresholded_relu_'])
def test_in_place_activations_append_the_out_of_place_op_with_paddles_warning(name):
    # Paddle 2.6.2 in static mode: F.relu_ warns and appends `relu` (hardtanh_ appends brelu there, hardtanh here)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', [2, 3], 'float32')
        with pytest.warns(UserWarning, match=r'In static graph mode, %s\(\) is the same as %s\(\)' % (name, name[:-1])):
            out = getattr(F, name)(x)
        base = getattr(F, name[:-1])(x)
    assert main.global_block().ops[-1].type == main.global_block().ops[-2].type
    assert out.shape == base.shape


def test_sparse_attention_is_declined_with_the_reason():
    assert not hasattr(F, 'sparse_attention')
    with pytest.raises(AttributeError, match='CUDA-only.*scaled_dot_product_attention'):
        F.sparse_attention  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_function'"):
        F.no_such_function
