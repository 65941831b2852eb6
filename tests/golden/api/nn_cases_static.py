"""Golden cases of Paddle 2.x nn names in static mode (recorded with paddlepaddle 2.6.2; see nn_golden.py).

Every case takes (paddle, rng) and returns {'feeds', 'out', 'fetch', 'wrt'}; inputs are fed with fixed shapes.
"""
import numpy as np


def _x(paddle, rng, name, shape, grad=True, dtype='float32'):
    var = paddle.static.data(name, list(shape), dtype)
    var.stop_gradient = not grad
    return var, rng.uniform(-1, 1, shape).astype(dtype)


def _distinct(rng, shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.01 - n * 0.005).astype('float32')


# ---------------------------------------------------------------------------------------------------------------
# convolutions

def case_conv1d(paddle, rng):
    F = paddle.nn.functional
    x, xv = _x(paddle, rng, 'x', (2, 4, 9))
    w, wv = _x(paddle, rng, 'w', (6, 2, 3))
    b, bv = _x(paddle, rng, 'b', (6,))
    y = F.conv1d(x, w, b, stride=2, padding=[1, 2], groups=2)
    z = F.conv1d(x, w[:, :, :2], None, padding='SAME', dilation=2, groups=2)
    xl, xlv = _x(paddle, rng, 'xl', (2, 7, 4))
    u = F.conv1d(xl, w, b, padding=1, groups=2, data_format='NLC')
    return {'feeds': {'x': xv, 'w': wv, 'b': bv, 'xl': xlv}, 'out': [y, z, u], 'wrt': [x, w, b, xl]}


def case_conv1d_transpose(paddle, rng):
    F = paddle.nn.functional
    x, xv = _x(paddle, rng, 'x', (2, 4, 5))
    w, wv = _x(paddle, rng, 'w', (4, 3, 3))
    b, bv = _x(paddle, rng, 'b', (6,))
    y = F.conv1d_transpose(x, w, b, stride=2, padding=1, output_padding=1, groups=2)
    z = F.conv1d_transpose(x, w, None, stride=2, output_size=[14], dilation=2)
    return {'feeds': {'x': xv, 'w': wv, 'b': bv}, 'out': [y, z], 'wrt': [x, w, b]}


def case_conv3d_functional(paddle, rng):
    F = paddle.nn.functional
    x, xv = _x(paddle, rng, 'x', (1, 4, 4, 5, 4))
    w, wv = _x(paddle, rng, 'w', (4, 2, 2, 3, 2))
    wt, wtv = _x(paddle, rng, 'wt', (4, 3, 2, 2, 3))
    b, bv = _x(paddle, rng, 'b', (4,))
    y = F.conv3d(x, w, b, stride=[1, 2, 1], padding=[1, 0, 1, 1, 0, 1], groups=2)
    z = F.conv3d_transpose(x, wt, None, stride=2, padding=1, output_padding=[1, 0, 1], groups=1)
    return {'feeds': {'x': xv, 'w': wv, 'wt': wtv, 'b': bv}, 'out': [y, z], 'wrt': [x, w, wt, b]}


def case_conv_layers(paddle, rng):
    nn = paddle.nn
    x1, x1v = _x(paddle, rng, 'x1', (2, 3, 8))
    x2, x2v = _x(paddle, rng, 'x2', (1, 2, 6, 5))
    x3, x3v = _x(paddle, rng, 'x3', (1, 2, 4, 5, 3))
    outs = [nn.Conv1D(3, 4, 3, padding=1, padding_mode='reflect')(x1),
            nn.Conv1DTranspose(3, 2, 3, stride=2)(x1),
            nn.Conv2D(2, 4, 3, padding=1, padding_mode='circular', groups=2)(x2),
            nn.Conv2DTranspose(2, 3, [2, 3], stride=[2, 1], padding=[1, 0])(x2),
            nn.Conv3D(2, 3, 2, padding=1, padding_mode='replicate', bias_attr=False)(x3),
            nn.Conv3DTranspose(2, 2, 3, stride=2, padding=1, data_format='NCDHW')(x3)]
    return {'feeds': {'x1': x1v, 'x2': x2v, 'x3': x3v}, 'out': outs, 'wrt': [x1, x2, x3]}


# ---------------------------------------------------------------------------------------------------------------
# pooling and unpooling

def case_pool1d(paddle, rng):
    F = paddle.nn.functional
    x = paddle.static.data('x', [2, 3, 11], 'float32')
    x.stop_gradient = False
    a = F.max_pool1d(x, 3, 2, padding=1)
    b, mask = F.max_pool1d(x, 2, return_mask=True)
    c = F.avg_pool1d(x, 4, 3, padding=[1, 2], exclusive=False)
    d = F.avg_pool1d(x, 3, ceil_mode=True)
    e = F.adaptive_avg_pool1d(x, 4)
    f, fmask = F.adaptive_max_pool1d(x, 5, return_mask=True)
    return {'feeds': {'x': _distinct(rng, (2, 3, 11))}, 'out': [a, b, c, d, e, f], 'fetch': [mask, fmask],
            'wrt': [x]}


def case_pool3d_functional(paddle, rng):
    F = paddle.nn.functional
    x = paddle.static.data('x', [2, 2, 6, 5, 7], 'float32')
    x.stop_gradient = False
    outs = [F.max_pool3d(x, 2, 2),
            F.max_pool3d(x, [3, 2, 3], [2, 1, 2], padding=1, ceil_mode=True),
            F.avg_pool3d(x, 3, 2, padding=[1, 0, 1], exclusive=True),
            F.avg_pool3d(x, 2, 2, divisor_override=3),
            F.adaptive_avg_pool3d(x, [3, None, 2])]
    m, mask = F.max_pool3d(x, 2, 2, padding=[0, 1, 0], return_mask=True)
    am, amask = F.adaptive_max_pool3d(x, [2, 3, 4], return_mask=True)
    return {'feeds': {'x': _distinct(rng, (2, 2, 6, 5, 7))}, 'out': outs + [m, am], 'fetch': [mask, amask],
            'wrt': [x]}


def case_pool_layers(paddle, rng):
    nn = paddle.nn
    x = paddle.static.data('x', [2, 3, 4, 6, 5], 'float32')
    v = paddle.static.data('v', [2, 3, 9], 'float32')
    x.stop_gradient = v.stop_gradient = False
    outs = [nn.MaxPool3D(2, 2, data_format='NCDHW')(x), nn.AvgPool3D(3, 1, padding=1)(x),
            nn.AdaptiveAvgPool3D(2)(x), nn.AdaptiveMaxPool3D([1, 2, 3])(x), nn.MaxPool1D(2)(v),
            nn.AvgPool1D(3, 2, padding=1)(v), nn.AdaptiveAvgPool1D(3)(v), nn.AdaptiveMaxPool1D(4)(v)]
    return {'feeds': {'x': _distinct(rng, (2, 3, 4, 6, 5)), 'v': _distinct(rng, (2, 3, 9))}, 'out': outs,
            'wrt': [x, v]}


def case_max_unpool(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    x1 = paddle.static.data('x1', [2, 3, 8], 'float32')
    x2 = paddle.static.data('x2', [2, 2, 6, 8], 'float32')
    x3 = paddle.static.data('x3', [1, 2, 4, 6, 4], 'float32')
    for v in (x1, x2, x3):
        v.stop_gradient = False
    p1, m1 = F.max_pool1d(x1, 2, return_mask=True)
    p2, m2 = F.max_pool2d(x2, 2, 2, return_mask=True)
    p3, m3 = F.max_pool3d(x3, 2, 2, return_mask=True)
    outs = [F.max_unpool1d(p1, m1, 2), F.max_unpool2d(p2, m2, 2, output_size=[7, 9]),
            nn.MaxUnPool2D(2, 2)(p2, m2), F.max_unpool3d(p3, m3, 2), nn.MaxUnPool3D(2)(p3, m3),
            nn.MaxUnPool1D(2, 2)(p1, m1)]
    return {'feeds': {'x1': _distinct(rng, (2, 3, 8)), 'x2': _distinct(rng, (2, 2, 6, 8)),
                      'x3': _distinct(rng, (1, 2, 4, 6, 4))}, 'out': outs, 'wrt': [x1, x2, x3]}


# ---------------------------------------------------------------------------------------------------------------
# normalisation

def case_norm_layers(paddle, rng):
    nn = paddle.nn
    x3, x3v = _x(paddle, rng, 'x3', (3, 4, 5))
    x4, x4v = _x(paddle, rng, 'x4', (2, 4, 3, 5))
    x5, x5v = _x(paddle, rng, 'x5', (2, 4, 3, 2, 3))
    outs = [nn.BatchNorm(4, act='relu')(x4), nn.BatchNorm3D(4)(x5), nn.BatchNorm3D(3, data_format='NDHWC')(x5),
            nn.InstanceNorm1D(4)(x3),
            nn.InstanceNorm2D(4)(x4), nn.InstanceNorm3D(4, weight_attr=False, bias_attr=False)(x5),
            nn.GroupNorm(2, 4)(x4), nn.GroupNorm(4, 4, bias_attr=False)(x4)]
    init = {}
    for layer in ('batch_norm_0', 'batch_norm3d_0', 'batch_norm3d_1'):
        init[layer + '.w_2'] = rng.uniform(0.5, 2, 4)
    init['batch_norm3d_1.w_2'] = rng.uniform(0.5, 2, 3)
    return {'feeds': {'x3': x3v, 'x4': x4v, 'x5': x5v}, 'out': outs, 'wrt': [x3, x4, x5], 'init': init}


def case_norm_layers_eval(paddle, rng):
    nn = paddle.nn
    x4, x4v = _x(paddle, rng, 'x4', (2, 4, 3, 5))
    bn, bn2d = nn.BatchNorm(4, is_test=True), nn.BatchNorm2D(4)
    bn2d.eval()
    init = {'batch_norm_0.w_2': rng.uniform(0.5, 2, 4), 'batch_norm2d_0.w_2': rng.uniform(0.5, 2, 4)}
    return {'feeds': {'x4': x4v}, 'out': [bn(x4), bn2d(x4)], 'wrt': [x4], 'init': init}


def case_local_response_norm_and_normalize(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    x3, x3v = _x(paddle, rng, 'x3', (2, 6, 5))
    x4, x4v = _x(paddle, rng, 'x4', (2, 5, 3, 4))
    x5, x5v = _x(paddle, rng, 'x5', (1, 3, 2, 3, 6))
    outs = [F.local_response_norm(x3, 3), F.local_response_norm(x3, 4, alpha=0.1, beta=0.5, k=2.0, data_format='NLC'),
            nn.LocalResponseNorm(5, alpha=0.2)(x4), F.local_response_norm(x4, 2, data_format='NHWC'),
            F.local_response_norm(x5, 3, alpha=0.3, data_format='NCDHW'),
            F.normalize(x4), F.normalize(x4, p=1, axis=-1), F.normalize(x3, p=3, axis=2),
            F.normalize(x5, p=float('inf'), axis=1)]
    return {'feeds': {'x3': x3v, 'x4': x4v, 'x5': x5v}, 'out': outs, 'wrt': [x3, x4, x5]}


def case_static_nn_norms(paddle, rng):
    snn = paddle.static.nn
    x, xv = _x(paddle, rng, 'x', (2, 4, 3, 3))
    d, dv = _x(paddle, rng, 'd', (5, 4))
    w, wv = _x(paddle, rng, 'w', (4, 3, 2))
    outs = [snn.instance_norm(x), snn.instance_norm(x, param_attr=paddle.ParamAttr(), bias_attr=paddle.ParamAttr()),
            snn.group_norm(x, 2, param_attr=paddle.ParamAttr(), bias_attr=paddle.ParamAttr(), act='relu'),
            snn.data_norm(d, name='dn2', enable_scale_and_shift=True, param_attr={'scale_w': 1.0, 'bias': 0.0}),
            snn.spectral_norm(w, dim=1, power_iters=3),
            snn.prelu(x, 'channel'), snn.prelu(paddle.transpose(x, [0, 2, 3, 1]), 'channel', data_format='NHWC'),
            snn.prelu(x, 'element')]
    init = {'dn2.batch_size': rng.uniform(2, 5, 4), 'dn2.batch_sum': rng.uniform(-1, 1, 4),
            'dn2.batch_square_sum': rng.uniform(2, 5, 4)}
    return {'feeds': {'x': xv, 'd': dv, 'w': wv}, 'out': outs, 'wrt': [x, d, w], 'init': init}


def case_spectral_norm_layer(paddle, rng):
    w, wv = _x(paddle, rng, 'w', (3, 4, 5))
    layer = paddle.nn.SpectralNorm([3, 4, 5], dim=1, power_iters=2)
    return {'feeds': {'w': wv}, 'out': [layer(w)], 'wrt': [w]}


# ---------------------------------------------------------------------------------------------------------------
# resizing

def case_interpolate_modes(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    x1, x1v = _x(paddle, rng, 'x1', (2, 3, 5))
    x2, x2v = _x(paddle, rng, 'x2', (2, 2, 4, 5))
    x3, x3v = _x(paddle, rng, 'x3', (1, 2, 3, 4, 3))
    outs = [F.interpolate(x1, size=[8], mode='linear', data_format='NCW'),
            F.interpolate(x1, scale_factor=1.6, mode='linear', align_corners=True, data_format='NCW'),
            F.interpolate(x1, size=[3], mode='linear', align_mode=1, data_format='NWC'),
            F.interpolate(x2, size=[7, 3], mode='bicubic'), F.interpolate(x2, scale_factor=[1.5, 2.0], mode='bicubic',
                                                                          align_corners=True),
            F.interpolate(x3, size=[5, 6, 4], mode='trilinear', data_format='NCDHW'),
            F.interpolate(x3, scale_factor=[2.0, 1.5, 1.2], mode='trilinear', align_mode=1, data_format='NCDHW'),
            F.interpolate(x3, size=[4, 7, 2], mode='nearest', data_format='NCDHW'),
            F.interpolate(x3, scale_factor=2, mode='nearest', data_format='NDHWC'),
            F.interpolate(x2, size=[3, 2], mode='area'), F.interpolate(x1, size=2, mode='area'),
            F.upsample(x2, size=[6, 9], mode='bilinear', align_corners=True),
            nn.Upsample(scale_factor=2, mode='trilinear', data_format='NCDHW')(x3),
            nn.UpsamplingBilinear2D(size=[5, 7])(x2), nn.UpsamplingNearest2D(scale_factor=[2, 3])(x2)]
    return {'feeds': {'x1': x1v, 'x2': x2v, 'x3': x3v}, 'out': outs, 'wrt': [x1, x2, x3]}


# ---------------------------------------------------------------------------------------------------------------
# vision

def case_grid_sample_modes(paddle, rng):
    F = paddle.nn.functional
    theta, tv = _x(paddle, rng, 'theta', (2, 2, 3))
    x, xv = _x(paddle, rng, 'x', (2, 2, 5, 6))
    tv = (tv * 1.3).astype('float32')
    # Paddle 2.6 leaves H and W of affine_grid's output unknown at compile time: the reshapes state them
    g1 = paddle.reshape(F.affine_grid(theta, [2, 2, 4, 7], align_corners=False), [2, 4, 7, 2])
    g2 = paddle.reshape(F.affine_grid(theta, [2, 2, 3, 5]), [2, 3, 5, 2])
    outs = [g1, g2]
    for grid in (g1, g2):
        for mode in ('bilinear', 'nearest'):
            for padding in ('zeros', 'border', 'reflection'):
                for align in (True, False):
                    outs.append(F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align))
    return {'feeds': {'theta': tv, 'x': xv}, 'out': outs, 'wrt': [theta, x]}


def case_vision_functions(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    x, xv = _x(paddle, rng, 'x', (4, 8, 4, 6))
    cols, cv = _x(paddle, rng, 'cols', (2, 12, 12))
    outs = [F.pixel_unshuffle(x, 2), F.pixel_unshuffle(paddle.transpose(x, [0, 2, 3, 1]), 2, data_format='NHWC'),
            F.channel_shuffle(x, 2), F.channel_shuffle(x, 3, data_format='NHWC'), F.temporal_shift(x, 2),
            F.temporal_shift(x, 2, 0.3, data_format='NHWC'), F.unfold(x, [2, 3], paddings=1),
            F.fold(cols, [4, 5], 2), F.fold(cols, [5, 7], [3, 2], strides=[1, 2], paddings=[0, 1],
                                            dilations=[1, 1]),
            nn.PixelShuffle(2)(x), nn.PixelUnshuffle(2)(x), nn.ChannelShuffle(2)(x), nn.Unfold([2, 2], strides=2)(x),
            nn.Fold([4, 5], 2)(cols)]
    return {'feeds': {'x': xv, 'cols': cv}, 'out': outs, 'wrt': [x, cols]}


# ---------------------------------------------------------------------------------------------------------------
# activations, dropout in eval mode, distances, bilinear maps, padding

def case_activation_layers(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    x, xv = _x(paddle, rng, 'x', (2, 6, 3, 4))
    v, vv = _x(paddle, rng, 'v', (3, 8))
    rrelu = nn.RReLU(0.1, 0.3)
    rrelu.eval()
    drop2, drop3, alpha = nn.Dropout2D(0.4), nn.Dropout3D(0.2), nn.AlphaDropout(0.3)
    for layer in (drop2, drop3, alpha):
        layer.eval()
    outs = [F.celu(x, 0.7), nn.CELU(1.5)(v), F.glu(v), nn.GLU(axis=1)(x), F.rrelu(v, training=False), rrelu(x),
            nn.Silu()(v), nn.Maxout(2)(x), nn.Softmax2D()(x), nn.PReLU()(x), nn.PReLU(6, init=0.1)(x),
            drop2(x), alpha(v), F.dropout2d(x, 0.3, training=False), F.alpha_dropout(v, 0.5, training=False),
            F.dropout(v, 0.3, axis=1, training=False, mode='downscale_in_infer'),
            drop3(paddle.reshape(x, [2, 6, 3, 2, 2]))]
    return {'feeds': {'x': xv, 'v': vv}, 'out': outs, 'wrt': [x, v]}


def case_distance_bilinear_padding(paddle, rng):
    F = paddle.nn.functional
    nn = paddle.nn
    a, av = _x(paddle, rng, 'a', (4, 6))
    b, bv = _x(paddle, rng, 'b', (4, 6))
    c, cv = _x(paddle, rng, 'c', (4, 3))
    x, xv = _x(paddle, rng, 'x', (2, 3, 4, 5))
    l, lv = _x(paddle, rng, 'l', (2, 3, 5))
    pads = paddle.static.data('pads', [4], 'int32')
    outs = [F.cosine_similarity(a, b), nn.CosineSimilarity(axis=0, eps=1e-6)(a, b),
            F.pairwise_distance(a, b), F.pairwise_distance(a, b, p=1.0, keepdim=True),
            nn.PairwiseDistance(p=3.0)(a, b), F.pairwise_distance(a, b, p=float('inf')),
            F.bilinear(a, c, paddle.static.create_parameter([5, 6, 3], 'float32', name='bw'), None),
            nn.Bilinear(6, 3, 4)(a, c),
            F.zeropad2d(x, [1, 0, 2, 1]), nn.ZeroPad2D(1)(x), nn.Pad2D([1, 2, 0, 1], mode='reflect')(x),
            nn.Pad1D(2, mode='replicate')(l), nn.Pad3D(1, mode='circular')(paddle.unsqueeze(x, 2)),
            paddle.reshape(F.pad(x, pads, mode='constant', value=0.5), [2, 3, 7, 8]),
            nn.Unflatten(1, [3, 1])(l)]
    return {'feeds': {'a': av, 'b': bv, 'c': cv, 'x': xv, 'l': lv, 'pads': np.array([1, 2, 3, 0], 'int32')},
            'out': outs, 'wrt': [a, b, c, x, l]}


def case_row_conv_and_bilinear_tensor_product(paddle, rng):
    snn = paddle.static.nn
    x, xv = _x(paddle, rng, 'x', (2, 5, 4))
    y, yv = _x(paddle, rng, 'y', (3, 4))
    z, zv = _x(paddle, rng, 'z', (3, 2))
    outs = [snn.row_conv(x, 2), snn.row_conv(x, 6, act='relu'), snn.bilinear_tensor_product(y, z, 3)]
    return {'feeds': {'x': xv, 'y': yv, 'z': zv}, 'out': outs, 'wrt': [x, y, z]}


# ---------------------------------------------------------------------------------------------------------------
# attention and Transformers

def case_multi_head_attention(paddle, rng):
    nn = paddle.nn
    q, qv = _x(paddle, rng, 'q', (2, 4, 8))
    kv, kvv = _x(paddle, rng, 'kv', (2, 5, 6))
    mask = paddle.static.data('mask', [2, 2, 4, 5], 'float32')
    bmask = paddle.static.data('bmask', [2, 1, 4, 4], 'int64')
    self_attn = nn.MultiHeadAttention(8, 2, need_weights=True)
    cross = nn.MultiHeadAttention(8, 2, kdim=6, vdim=6, bias_attr=False)
    out, weights = self_attn(q, attn_mask=bmask)
    static = cross.gen_cache(kv, kv, type=nn.MultiHeadAttention.StaticCache)
    cached, _ = cross(q, kv, kv, mask, static)
    k0, k0v = _x(paddle, rng, 'k0', (2, 2, 3, 4))
    v0, v0v = _x(paddle, rng, 'v0', (2, 2, 3, 4))
    incremental = self_attn.gen_cache(k0, v0, type=nn.MultiHeadAttention.Cache)
    step, _, new_cache = self_attn(q, cache=incremental)
    feeds = {'q': qv, 'kv': kvv, 'k0': k0v, 'v0': v0v, 'mask': rng.uniform(-2, 0, (2, 2, 4, 5)).astype('float32'),
             'bmask': (rng.uniform(size=(2, 1, 4, 4)) > 0.3).astype('int64')}
    return {'feeds': feeds, 'out': [out, weights, cross(q, kv, kv, mask), cached, step, new_cache.k],
            'wrt': [q, kv, k0, v0]}


def case_transformer(paddle, rng):
    nn = paddle.nn
    src, sv = _x(paddle, rng, 'src', (2, 5, 8))
    tgt, tv = _x(paddle, rng, 'tgt', (2, 3, 8))
    model = nn.Transformer(8, 2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16, dropout=0.0)
    tgt_mask = model.generate_square_subsequent_mask(3)
    pre = nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, activation='gelu', normalize_before=True)
    stack = nn.TransformerEncoder(pre, 2, nn.LayerNorm(8))
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 10, dropout=0.0, normalize_before=True), 2)
    memory = stack(src)
    return {'feeds': {'src': sv, 'tgt': tv}, 'out': [model(src, tgt, tgt_mask=tgt_mask), memory, dec(tgt, memory)],
            'wrt': [src, tgt]}


def case_deform_conv2d(paddle, rng):
    snn = paddle.static.nn
    x, xv = _x(paddle, rng, 'x', (1, 3, 6, 5))
    off, ov = _x(paddle, rng, 'off', (1, 2 * 9, 4, 3))
    m, mv = _x(paddle, rng, 'm', (1, 9, 4, 3))
    outs = [snn.deform_conv2d(x, off, m, 2, 3, dilation=[1, 1], stride=[1, 1], padding=0, weight_attr=None),
            snn.deform_conv2d(x, off, None, 4, [3, 3], bias_attr=False)]
    return {'feeds': {'x': xv, 'off': (ov * 2).astype('float32'), 'm': (mv + 1) / 2}, 'out': outs,
            'wrt': [x, off, m]}
