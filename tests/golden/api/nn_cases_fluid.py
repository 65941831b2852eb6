"""Golden cases of fluid 1.8 nn builders (recorded with paddlepaddle 1.8.5; see nn_golden.py for the protocol).

Every case takes (paddle, rng) and returns {'feeds', 'out', 'fetch', 'wrt'}; inputs are fed with fixed shapes.
"""
import numpy as np


def _x(fluid, rng, name, shape, grad=True, dtype='float32'):
    var = fluid.data(name, list(shape), dtype)
    var.stop_gradient = not grad
    return var, rng.uniform(-1, 1, shape).astype(dtype)


def _distinct(rng, shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.01 - n * 0.005).astype('float32')


# ---------------------------------------------------------------------------------------------------------------
# 3-D convolution and pooling, adaptive pooling

def case_conv3d(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (2, 4, 5, 6, 5))
    y = fluid.layers.conv3d(x, 6, [3, 2, 3], stride=[1, 2, 1], padding=[1, 0, 1], groups=2, act='tanh')
    z = fluid.layers.conv3d(x, 3, 2, padding='SAME', dilation=2, bias_attr=False)
    return {'feeds': {'x': xv}, 'out': [y, z], 'wrt': [x]}


def case_conv3d_ndhwc(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (2, 4, 5, 4, 3))
    y = fluid.layers.conv3d(x, 2, 2, stride=2, padding=[[0, 0], [1, 0], [0, 1], [1, 1], [0, 0]],
                            data_format='NDHWC')
    return {'feeds': {'x': xv}, 'out': [y], 'wrt': [x]}


def case_conv3d_transpose(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (2, 4, 3, 4, 3))
    y = fluid.layers.conv3d_transpose(x, 6, filter_size=[3, 2, 3], stride=[2, 1, 2], padding=[1, 0, 1], groups=2)
    z = fluid.layers.conv3d_transpose(x, 2, output_size=[6, 8, 7], stride=2, act='sigmoid')
    return {'feeds': {'x': xv}, 'out': [y, z], 'wrt': [x]}


def case_conv3d_transpose_ndhwc(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (1, 3, 2, 3, 4))
    y = fluid.layers.conv3d_transpose(x, 2, filter_size=2, stride=2, padding=[1, 0, 0, 1, 1, 1],
                                      data_format='NDHWC')
    return {'feeds': {'x': xv}, 'out': [y], 'wrt': [x]}


def case_pool3d(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    x = fluid.data('x', [2, 3, 6, 5, 7], 'float32')
    x.stop_gradient = False
    xv = _distinct(rng, (2, 3, 6, 5, 7))
    outs = [L.pool3d(x, 2, 'max', 2),
            L.pool3d(x, [3, 2, 3], 'avg', [2, 1, 2], [1, 0, 1]),
            L.pool3d(x, 3, 'avg', 2, 1, ceil_mode=True, exclusive=False),
            L.pool3d(x, 3, 'max', 2, [1, 0, 1, 1, 0, 1], ceil_mode=True),
            L.pool3d(x, 2, 'avg', 1, 'SAME'),
            L.pool3d(x, global_pooling=True, pool_type='avg')]
    return {'feeds': {'x': xv}, 'out': outs, 'wrt': [x]}


def case_pool3d_ndhwc(paddle, rng):
    fluid = paddle.fluid
    x = fluid.data('x', [2, 5, 4, 6, 3], 'float32')
    x.stop_gradient = False
    outs = [fluid.layers.pool3d(x, 2, 'max', 2, data_format='NDHWC'),
            fluid.layers.pool3d(x, [2, 3, 2], 'avg', [1, 2, 2], 'VALID', data_format='NDHWC')]
    return {'feeds': {'x': _distinct(rng, (2, 5, 4, 6, 3))}, 'out': outs, 'wrt': [x]}


def case_adaptive_pool(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    x = fluid.data('x', [2, 3, 7, 9], 'float32')
    v = fluid.data('v', [2, 2, 5, 7, 6], 'float32')
    x.stop_gradient = v.stop_gradient = False
    a = L.adaptive_pool2d(x, [3, 4], 'avg')
    b, mask = L.adaptive_pool2d(x, 4, 'max', require_index=True)
    c = L.adaptive_pool3d(v, [2, 3, 4], 'avg')
    d, mask3 = L.adaptive_pool3d(v, [3, 2, 4], 'max', require_index=True)
    return {'feeds': {'x': _distinct(rng, (2, 3, 7, 9)), 'v': _distinct(rng, (2, 2, 5, 7, 6))},
            'out': [a, b, c, d], 'fetch': [mask, mask3], 'wrt': [x, v]}


# ---------------------------------------------------------------------------------------------------------------
# normalisation

def case_data_norm(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (5, 4))
    xv[1, 0] = 0.0
    xv[3, 2] = 0.0
    a = fluid.layers.data_norm(x, name='plain')
    b = fluid.layers.data_norm(x, name='shifted', enable_scale_and_shift=True,
                               param_attr={'scale_w': 1.0, 'bias': 0.0})
    c = fluid.layers.data_norm(x, name='slots', slot_dim=2, act='tanh')
    init = {}
    for prefix in ('plain', 'shifted', 'slots'):
        init[prefix + '.batch_size'] = rng.uniform(2, 5, 4)
        init[prefix + '.batch_sum'] = rng.uniform(-1, 1, 4)
        init[prefix + '.batch_square_sum'] = rng.uniform(2, 5, 4)
    return {'feeds': {'x': xv}, 'out': [a, b, c], 'wrt': [x], 'init': init}


def case_spectral_norm_affine_channel(paddle, rng):
    fluid = paddle.fluid
    w, wv = _x(fluid, rng, 'w', (3, 4, 2))
    x, xv = _x(fluid, rng, 'x', (2, 3, 4, 2))
    s, sv = _x(fluid, rng, 's', (3,))
    b, bv = _x(fluid, rng, 'b', (3,))
    a = fluid.layers.spectral_norm(w, dim=0, power_iters=2)
    c = fluid.layers.spectral_norm(w, dim=1, power_iters=1)
    d = fluid.layers.affine_channel(x, s, b, act='relu')
    e = fluid.layers.affine_channel(fluid.layers.transpose(x, [0, 2, 3, 1]), s, b, data_layout='NHWC')
    return {'feeds': {'w': wv, 'x': xv, 's': sv, 'b': bv}, 'out': [a, c, d, e], 'wrt': [w, x, s, b]}


def case_inplace_abn(paddle, rng):
    fluid = paddle.fluid
    outs, feeds, xs = [], {}, []
    for i, act in enumerate([None, 'leaky_relu', 'elu']):
        x, feeds['x%d' % i] = _x(fluid, rng, 'x%d' % i, (3, 2, 4, 3))
        xs.append(x)
        h = fluid.layers.scale(x, 2.0)
        y = fluid.layers.inplace_abn(h, act=act, act_alpha=0.2 if act == 'leaky_relu' else 1.5)
        # a copy taken after the forward: Paddle's backward restores the in-placed variable to the input
        outs.append(fluid.layers.scale(y, 1.0))
    init = {'inplace_abn_%d.w_2' % i: np.ones(2) for i in range(3)}
    return {'feeds': feeds, 'out': outs, 'init': init, 'wrt': xs}


# ---------------------------------------------------------------------------------------------------------------
# resizing

def case_resize_trilinear_and_bicubic(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    v, vv = _x(fluid, rng, 'v', (2, 2, 3, 4, 5))
    x, xv = _x(fluid, rng, 'x', (2, 3, 5, 4))
    outs = [L.resize_trilinear(v, [5, 6, 3]), L.resize_trilinear(v, scale=1.7, align_corners=False),
            L.resize_trilinear(v, [4, 3, 7], align_corners=False, align_mode=0),
            L.resize_trilinear(L.transpose(v, [0, 2, 3, 4, 1]), [2, 5, 6], data_format='NDHWC'),
            L.interpolate(x, [7, 9], resample='BICUBIC'), L.interpolate(x, [3, 6], resample='BICUBIC',
                                                                         align_corners=False),
            L.interpolate(x, scale=1.5, resample='BICUBIC', align_corners=False),
            L.interpolate(v, [4, 5, 6], resample='TRILINEAR', align_corners=False, align_mode=1,
                          data_format='NCDHW'),
            L.image_resize_short(x, 7), L.image_resize_short(x, 3, resample='NEAREST')]
    return {'feeds': {'v': vv, 'x': xv}, 'out': outs, 'wrt': [v, x]}


# ---------------------------------------------------------------------------------------------------------------
# vision

def case_affine_grid_and_grid_sampler(paddle, rng):
    fluid = paddle.fluid
    theta, tv = _x(fluid, rng, 'theta', (2, 2, 3))
    x, xv = _x(fluid, rng, 'x', (2, 3, 4, 7))
    x2, x2v = _x(fluid, rng, 'x2', (2, 3, 3, 5))
    # Paddle 1.8's grid_sampler samples an output of the input's size; Paddle leaves H and W of affine_grid's
    # output unknown at compile time: the reshapes state them
    grid = fluid.layers.reshape(fluid.layers.affine_grid(theta, [2, 3, 4, 7]), [2, 4, 7, 2])
    shape = fluid.layers.assign(np.array([2, 3, 3, 5], dtype='int32'))
    grid2 = fluid.layers.reshape(fluid.layers.affine_grid(theta, shape), [2, 3, 5, 2])
    tv = (tv * 1.2).astype('float32')
    return {'feeds': {'theta': tv, 'x': xv, 'x2': x2v}, 'out': [grid, grid2, fluid.layers.grid_sampler(x, grid),
                                                                 fluid.layers.grid_sampler(x2, grid2)],
            'wrt': [theta, x, x2]}


def case_unfold_shuffle_space_temporal(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    x, xv = _x(fluid, rng, 'x', (4, 8, 4, 6))
    outs = [L.unfold(x, 3), L.unfold(x, [2, 3], strides=[2, 1], paddings=[1, 0, 0, 2], dilations=[1, 2]),
            L.shuffle_channel(x, 4), L.space_to_depth(x, 2), L.temporal_shift(x, 2),
            L.temporal_shift(x, 4, shift_ratio=0.2)]
    return {'feeds': {'x': xv}, 'out': outs, 'wrt': [x]}


# ---------------------------------------------------------------------------------------------------------------
# similarity, bilinear maps, padding

def case_cos_sim_bilinear_pad_like(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    x, xv = _x(fluid, rng, 'x', (4, 5))
    y, yv = _x(fluid, rng, 'y', (4, 5))
    y1, y1v = _x(fluid, rng, 'y1', (1, 5))
    z, zv = _x(fluid, rng, 'z', (4, 3))
    big, bv = _x(fluid, rng, 'big', (5, 7, 3), grad=False)
    small, sv = _x(fluid, rng, 'small', (3, 4, 3))
    outs = [L.cos_sim(x, y), L.cos_sim(x, y1), L.bilinear_tensor_product(x, z, 6, act='tanh'),
            L.bilinear_tensor_product(x, z, 2, bias_attr=False), L.pad_constant_like(big, small, 1.5)]
    return {'feeds': {'x': xv, 'y': yv, 'y1': y1v, 'z': zv, 'big': bv, 'small': sv}, 'out': outs,
            'wrt': [x, y, y1, z, small]}


def case_deformable_conv(paddle, rng):
    fluid = paddle.fluid
    x, xv = _x(fluid, rng, 'x', (2, 4, 5, 6))
    off, ov = _x(fluid, rng, 'off', (2, 2 * 2 * 9, 5, 3))
    m, mv = _x(fluid, rng, 'm', (2, 2 * 9, 5, 3))
    off1, o1v = _x(fluid, rng, 'off1', (2, 2 * 4, 4, 5))
    ov = (ov * 1.5).astype('float32')
    a = fluid.layers.deformable_conv(x, off, m, 4, 3, stride=[1, 2], padding=1, groups=2, deformable_groups=2,
                                     im2col_step=1)
    b = fluid.layers.deformable_conv(x, off1, None, 3, 2, modulated=False, bias_attr=False, im2col_step=1)
    return {'feeds': {'x': xv, 'off': ov, 'm': (mv + 1) / 2, 'off1': o1v}, 'out': [a, b],
            'wrt': [x, off, m, off1]}
