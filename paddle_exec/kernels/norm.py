"""Normalisation and dropout kernels with PaddlePaddle's semantics (``batch_norm``, ``layer_norm``, ``dropout``).

batch_norm (Paddle 1.8 ``batch_norm_op.cc``, CPU), checked against paddlepaddle 1.8.5:

- training: batch mean and BIASED batch variance (divide by ``N * H * W``); ``Y = (x - mean) / sqrt(var + eps)
  * scale + bias``; ``MeanOut = Mean * momentum + mean * (1 - momentum)`` and ``VarianceOut = Variance * momentum +
  var * (1 - momentum)`` with the same biased variance; ``SavedMean = mean``; ``SavedVariance`` holds the INVERSE
  standard deviation ``1 / sqrt(var + eps)``, not the variance.
- ``is_test`` or ``use_global_stats``: normalise with the running ``Mean``/``Variance``; the running statistics
  pass through unchanged and ``SavedMean``/``SavedVariance`` are zeros (Paddle leaves them uninitialised).
- backward (training): ``dBias = sum(dy)``, ``dScale = sum(dy * xhat)``, ``dX = scale * inv_std / m * (m * dy -
  dBias - xhat * dScale)``, ``m = N * H * W``. With global statistics ``dX = scale * inv_std * dy`` (the running
  stats are constants), ``dScale``/``dBias`` as above with the running mean and inverse std.
- ``data_layout`` "NCHW" (also ``[N, C]`` and any ``[N, C, ...]``) or "NHWC" (channels last, any rank >= 2).

layer_norm: ``x`` is viewed as ``[left, right]``, ``left = prod(shape[:begin_norm_axis])``; ``Mean`` and
``Variance`` (biased, without epsilon) have ``left`` elements; ``Scale``/``Bias`` (optional) have ``right``.

dropout (Paddle 1.8 ``dropout_op.h``, CPU): per element in flat order, ``u = uniform_float(engine)``, ``mask = 0
if u < dropout_prob else 1``; the engine is C++ ``std::minstd_rand`` seeded with the ``seed`` attribute
(``fix_seed``) and ``u = float(engine() - 1) / 2**31`` (libstdc++'s ``generate_canonical<float>``), reproduced
here bit for bit, so a fixed seed gives Paddle 1.8's exact mask. Without a seed a random one is drawn.
"""
import numpy as np

from .jit import kernel_jit

__all__ = [
    'batch_norm_forward', 'batch_norm_backward', 'layer_norm_forward', 'layer_norm_backward',
    'dropout_forward', 'dropout_backward', 'dropout_mask',
]

_jit = kernel_jit(error_model='numpy')
# reductions: reassociation lets LLVM vectorise the float64 accumulations (10x on a [32, 32, 28, 28] batch)
_jit_reduce = kernel_jit(error_model='numpy', fastmath={'reassoc', 'nsz', 'contract'})


# ----------------------------------------------------------------------------------------------------------------
# batch_norm

def _bn_view(x, data_layout):
    """A 3-D view ``[A, C, B]`` of x with the channel in the middle."""
    if x.ndim < 2:
        raise ValueError('batch_norm input must have rank >= 2, got shape %s' % (x.shape,))
    if data_layout in ('NCHW', 'NCL', 'NC', 'AnyLayout'):
        return x.reshape(x.shape[0], x.shape[1], -1)
    if data_layout in ('NHWC', 'NLC'):
        return x.reshape(-1, x.shape[-1], 1)
    raise ValueError("data_layout must be 'NCHW' or 'NHWC', got %r" % (data_layout,))


def _relu_act(act) -> bool:
    """batch_norm's fused activation: None, or 'relu' (the one fused_batch_norm_act takes on CPU here)."""
    if act not in (None, 'relu'):
        raise ValueError("batch_norm fuses act 'relu' only, got %r" % (act,))
    return act == 'relu'


@_jit_reduce
def _bn_stats(x3):
    a_, c_, b_ = x3.shape
    mean = np.zeros(c_, dtype=np.float64)
    var = np.zeros(c_, dtype=np.float64)
    for a in range(a_):
        for c in range(c_):
            s = 0.0
            for b in range(b_):
                s += x3[a, c, b]
            mean[c] += s
    m = a_ * b_
    for c in range(c_):
        mean[c] /= m
    for a in range(a_):
        for c in range(c_):
            s = 0.0
            mu = mean[c]
            for b in range(b_):
                d = x3[a, c, b] - mu
                s += d * d
            var[c] += s
    for c in range(c_):
        var[c] /= m
    return mean, var


@_jit
def _bn_apply(x3, mean, inv_std, scale, bias, relu):
    """Y; with `relu`, relu(Y) as each value is written (fused_batch_norm_act), Y rounded to its dtype first."""
    a_, c_, b_ = x3.shape
    y = np.empty_like(x3)
    for a in range(a_):
        for c in range(c_):
            k = scale[c] * inv_std[c]
            off = bias[c] - mean[c] * k
            for b in range(b_):
                y[a, c, b] = x3[a, c, b] * k + off
                if relu:
                    v = y[a, c, b]
                    y[a, c, b] = v if v > 0 else 0
    return y


@_jit_reduce
def _bn_grad(x3, dy3, mean, inv_std, scale, global_stats, relu_y, relu):
    """(dX, dScale, dBias); with `relu`, of relu(batch_norm(x)): dY masked where the forward's output `relu_y` is
    not positive (relu_grad), inside both passes, so the masked gradient is never stored."""
    a_, c_, b_ = x3.shape
    dbias = np.zeros(c_, dtype=np.float64)
    dscale = np.zeros(c_, dtype=np.float64)
    for a in range(a_):
        for c in range(c_):
            mu = mean[c]
            sb = 0.0
            ss = 0.0
            for b in range(b_):
                g = dy3[a, c, b]
                if relu and relu_y[a, c, b] <= 0:
                    g = 0.0
                sb += g
                ss += g * (x3[a, c, b] - mu)
            dbias[c] += sb
            dscale[c] += ss
    for c in range(c_):
        dscale[c] *= inv_std[c]
    dx = np.empty_like(x3)
    m = a_ * b_
    for a in range(a_):
        for c in range(c_):
            k = scale[c] * inv_std[c]
            mu = mean[c]
            if global_stats:
                for b in range(b_):
                    dx[a, c, b] = k * dy3[a, c, b]
            else:
                db = dbias[c] / m
                ds = dscale[c] * inv_std[c] / m
                for b in range(b_):
                    g = dy3[a, c, b]
                    if relu and relu_y[a, c, b] <= 0:
                        g = 0.0
                    dx[a, c, b] = k * (g - db - (x3[a, c, b] - mu) * ds)
    return dx, dscale, dbias


def batch_norm_forward(x, scale, bias, mean, variance, momentum=0.9, epsilon=1e-5, is_test=False,
                       use_global_stats=False, data_layout='NCHW', act=None):
    """Paddle op ``batch_norm`` (X, Scale, Bias, Mean, Variance -> Y, MeanOut, VarianceOut, SavedMean,
    SavedVariance); see the module docstring.

    ``scale``, ``bias``, ``mean``, ``variance``: ``[C]``. Returns ``(y, mean_out, variance_out, saved_mean,
    saved_inv_std)``; ``mean_out``/``variance_out`` are new arrays (Paddle writes them in place of Mean and
    Variance: the caller stores them back). All outputs have x's dtype. ``act='relu'``: Y is relu(Y), applied as
    each value is written (``fused_batch_norm_act``).
    """
    relu = _relu_act(act)
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x3 = _bn_view(x, data_layout)
    c = x3.shape[1]
    scale = np.asarray(scale, dtype=dt).reshape(c)
    bias = np.asarray(bias, dtype=dt).reshape(c)
    mean = np.asarray(mean, dtype=dt).reshape(c)
    variance = np.asarray(variance, dtype=dt).reshape(c)
    if is_test or use_global_stats:
        inv_std = 1.0 / np.sqrt(variance.astype(np.float64) + epsilon)
        y = _bn_apply(x3, mean.astype(np.float64), inv_std, scale, bias, relu)
        zeros = np.zeros(c, dtype=dt)
        return y.reshape(x.shape), mean.copy(), variance.copy(), zeros, zeros.copy()
    bmean, bvar = _bn_stats(x3)
    inv_std = 1.0 / np.sqrt(bvar + epsilon)
    y = _bn_apply(x3, bmean, inv_std, scale, bias, relu)
    mean_out = (mean * dt.type(momentum) + bmean.astype(dt) * dt.type(1.0 - momentum)).astype(dt)
    var_out = (variance * dt.type(momentum) + bvar.astype(dt) * dt.type(1.0 - momentum)).astype(dt)
    return y.reshape(x.shape), mean_out, var_out, bmean.astype(dt), inv_std.astype(dt)


def batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, epsilon=1e-5, use_global_stats=False,
                        mean=None, variance=None, data_layout='NCHW', act=None, y=None):
    """Paddle op ``batch_norm_grad`` (X, Scale, SavedMean, SavedVariance, Y@GRAD -> X@GRAD, Scale@GRAD,
    Bias@GRAD).

    ``saved_inv_std`` is Paddle's ``SavedVariance`` (an inverse std). With ``use_global_stats`` (or ``is_test``)
    pass the running ``mean`` and ``variance`` instead: they are used as constants. Returns ``(dx, dscale,
    dbias)`` in x's dtype. ``act='relu'``: the gradient of relu(batch_norm(x)), the relu's mask read from the
    forward's output ``y`` (``fused_batch_norm_act_grad``).
    """
    relu = _relu_act(act)
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x3 = _bn_view(x, data_layout)
    dy3 = _bn_view(np.ascontiguousarray(dy, dtype=dt), data_layout)
    y3 = _bn_view(np.ascontiguousarray(y, dtype=dt), data_layout) if relu else dy3
    for name, value, view in (('Y@GRAD', dy, dy3), ('Y', y, y3)):
        if view.shape != x3.shape:          # the loops index it by X's shape
            raise ValueError('%s must have the shape of X %s, got %s' % (name, x.shape, np.shape(value)))
    c = x3.shape[1]
    scale = np.asarray(scale, dtype=dt).reshape(c)
    if use_global_stats:
        if mean is None or variance is None:
            raise ValueError('batch_norm_grad with use_global_stats needs the running Mean and Variance')
        mu = np.asarray(mean, dtype=np.float64).reshape(c)
        inv_std = 1.0 / np.sqrt(np.asarray(variance, dtype=np.float64).reshape(c) + epsilon)
    else:
        mu = np.asarray(saved_mean, dtype=np.float64).reshape(c)
        inv_std = np.asarray(saved_inv_std, dtype=np.float64).reshape(c)
    dx, dscale, dbias = _bn_grad(x3, dy3, mu, inv_std, scale, bool(use_global_stats), y3, relu)
    return dx.reshape(x.shape), dscale.astype(dt), dbias.astype(dt)


# ----------------------------------------------------------------------------------------------------------------
# layer_norm

@_jit_reduce
def _ln_fwd(x2, scale, bias, eps, has_scale, has_bias):
    left, right = x2.shape
    y = np.empty_like(x2)
    mean = np.empty(left, dtype=x2.dtype)
    var = np.empty(left, dtype=x2.dtype)
    for i in range(left):
        s = 0.0
        for j in range(right):
            s += x2[i, j]
        mu = s / right
        s = 0.0
        for j in range(right):
            d = x2[i, j] - mu
            s += d * d
        v = s / right
        mean[i] = mu
        var[i] = v
        inv = 1.0 / np.sqrt(v + eps)
        for j in range(right):
            t = (x2[i, j] - mu) * inv
            if has_scale:
                t = t * scale[j]
            if has_bias:
                t = t + bias[j]
            y[i, j] = t
    return y, mean, var


@_jit_reduce
def _ln_bwd(x2, dy2, mean, var, scale, eps, has_scale):
    left, right = x2.shape
    dx = np.empty_like(x2)
    dscale = np.zeros(right, dtype=np.float64)
    dbias = np.zeros(right, dtype=np.float64)
    for i in range(left):
        mu = np.float64(mean[i])
        inv = 1.0 / np.sqrt(np.float64(var[i]) + eps)
        s1 = 0.0  # sum(g)
        s2 = 0.0  # sum(g * xhat)
        for j in range(right):
            xh = (x2[i, j] - mu) * inv
            dbias[j] += dy2[i, j]
            dscale[j] += dy2[i, j] * xh
            g = dy2[i, j] * scale[j] if has_scale else np.float64(dy2[i, j])
            s1 += g
            s2 += g * xh
        s1 /= right
        s2 /= right
        for j in range(right):
            xh = (x2[i, j] - mu) * inv
            g = dy2[i, j] * scale[j] if has_scale else np.float64(dy2[i, j])
            dx[i, j] = inv * (g - s1 - xh * s2)
    return dx, dscale, dbias


def _ln_view(x, begin_norm_axis):
    if not 0 <= begin_norm_axis < x.ndim:
        raise ValueError('begin_norm_axis must be in [0, %d), got %d' % (x.ndim, begin_norm_axis))
    left = int(np.prod(x.shape[:begin_norm_axis], dtype=np.int64))
    return x.reshape(left, -1)


def layer_norm_forward(x, scale=None, bias=None, begin_norm_axis=1, epsilon=1e-5):
    """Paddle op ``layer_norm`` (X, Scale?, Bias? -> Y, Mean, Variance).

    Normalises over the dims from ``begin_norm_axis`` on; ``scale``/``bias`` (None = absent) have
    ``prod(x.shape[begin_norm_axis:])`` elements. Returns ``(y, mean, variance)``, mean/variance of shape
    ``[left]`` (variance biased, without epsilon).
    """
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x2 = _ln_view(x, begin_norm_axis)
    right = x2.shape[1]
    s = np.asarray(scale, dtype=dt).reshape(right) if scale is not None else np.ones(1, dt)
    b = np.asarray(bias, dtype=dt).reshape(right) if bias is not None else np.zeros(1, dt)
    y, mean, var = _ln_fwd(x2, s, b, float(epsilon), scale is not None, bias is not None)
    return y.reshape(x.shape), mean, var


def layer_norm_backward(x, mean, variance, dy, scale=None, begin_norm_axis=1, epsilon=1e-5):
    """Paddle op ``layer_norm_grad`` (X, Mean, Variance, Scale?, Y@GRAD -> X@GRAD, Scale@GRAD, Bias@GRAD).

    ``mean``/``variance`` are the forward outputs. Returns ``(dx, dscale, dbias)``, each in x's dtype;
    ``dscale`` and ``dbias`` are ``[right]`` vectors (the caller drops them when Scale/Bias are absent).
    """
    x = np.ascontiguousarray(x)
    dt = x.dtype
    x2 = _ln_view(x, begin_norm_axis)
    right = x2.shape[1]
    dy2 = np.ascontiguousarray(dy, dtype=dt).reshape(x2.shape)
    s = np.asarray(scale, dtype=dt).reshape(right) if scale is not None else np.ones(1, dt)
    dx, dscale, dbias = _ln_bwd(x2, dy2, np.asarray(mean).reshape(-1), np.asarray(variance).reshape(-1), s,
                                float(epsilon), scale is not None)
    return dx.reshape(x.shape), dscale.astype(dt), dbias.astype(dt)


# ----------------------------------------------------------------------------------------------------------------
# dropout

_MINSTD_M = 2147483647


@_jit
def _minstd_mask(n, seed, p):
    mask = np.empty(n, dtype=np.uint8)
    state = np.int64(seed)
    inv = np.float32(1.0 / 2147483648.0)
    below_one = np.float32(0.99999994)
    for i in range(n):
        state = (state * 48271) % 2147483647
        u = np.float32(state - 1) * inv
        if u >= np.float32(1.0):
            u = below_one
        mask[i] = 0 if u < p else 1
    return mask


@_jit
def _dropout_apply(x, mask, denom):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = x[i] / denom if mask[i] else 0
    return out


def _denominator(dt, p, upscale):
    # Paddle divides by static_cast<T>(1.0f - dropout_prob) (upscale_in_train); downgrade_in_infer keeps x
    return dt.type(np.float32(1.0) - np.float32(p)) if upscale else dt.type(1.0)


def dropout_mask(shape, dropout_prob, seed=None):
    """Paddle 1.8's dropout mask (uint8, 1 = kept) for ``shape``: ``std::minstd_rand(seed)`` draws, one per element
    in flat order, an element is dropped when its uniform float is ``< dropout_prob`` (float32 compare).

    ``seed=None`` draws a random seed (Paddle without ``fix_seed``).
    """
    if seed is None:
        seed = int(np.random.randint(1, _MINSTD_M))
    s = (int(seed) % (1 << 64)) % _MINSTD_M  # C++: seed converted to uint_fast32_t (64 bits), then mod m
    if s == 0:
        s = 1
    n = int(np.prod(shape, dtype=np.int64))
    return _minstd_mask(n, s, np.float32(dropout_prob)).reshape(shape)


def dropout_forward(x, dropout_prob=0.5, is_test=False, dropout_implementation='downgrade_in_infer', seed=None):
    """Paddle op ``dropout`` (X -> Out, Mask).

    ``dropout_implementation``: "downgrade_in_infer" (fluid default; train ``out = x * mask``, test ``out = x * (1 -
    p)``) or "upscale_in_train" (train ``out = x * mask / (1 - p)``, all zero when ``p == 1``; test ``out = x``).
    ``seed``: Paddle's ``seed`` attribute with ``fix_seed=True`` (None = random). Returns ``(out, mask)``; mask is
    uint8 of x's shape, None when ``is_test`` (Paddle does not write it).
    """
    x = np.ascontiguousarray(x)
    dt = x.dtype
    p = float(dropout_prob)
    upscale = _check_impl(dropout_implementation)
    if is_test:
        out = x.copy() if upscale else x * dt.type(np.float32(1.0) - np.float32(p))
        return out, None
    mask = dropout_mask(x.shape, p, seed)
    out = _dropout_apply(x.reshape(-1), mask.reshape(-1), _denominator(dt, p, upscale))
    return out.reshape(x.shape), mask


def dropout_backward(dout, mask, dropout_prob=0.5, dropout_implementation='downgrade_in_infer'):
    """Paddle op ``dropout_grad`` (Mask, Out@GRAD -> X@GRAD): ``dout * mask`` (upscale_in_train: ``/ (1 - p)``,
    zero when ``p == 1``)."""
    dout = np.ascontiguousarray(dout)
    dt = dout.dtype
    p = float(dropout_prob)
    upscale = _check_impl(dropout_implementation)
    if upscale and p == 1.0:
        return np.zeros_like(dout)
    mask = np.ascontiguousarray(mask, dtype=np.uint8)
    return _dropout_apply(dout.reshape(-1), mask.reshape(-1), _denominator(dt, p, upscale)).reshape(dout.shape)


def _check_impl(impl):
    if impl not in ('downgrade_in_infer', 'upscale_in_train'):
        raise ValueError("dropout_implementation must be 'downgrade_in_infer' or 'upscale_in_train', got %r"
                         % (impl,))
    return impl == 'upscale_in_train'


# ----------------------------------------------------------------------------------------------------------------
# group_norm, instance_norm, norm (l2_normalize), lrn, prelu (Paddle 1.8 CPU kernels)
#
# - group_norm: channels split into `groups`; per (sample, group) the mean and the biased variance over the
#   group's channels and spatial positions; Y = (x - mean) / sqrt(var + eps) * scale[c] + bias[c]; Mean and
#   Variance are [N, groups] (the variance itself). The gradient op reads Y, not X: x_hat = (y - bias) / scale
#   (0 where scale is 0), as Paddle's group_norm_grad does. Without a Scale input Paddle's gradient (1.8.5 and
#   2.6.2 alike) drops the -mean(dy) term of dx: reproduced, since that is what Paddle trains with (fluid's
#   group_norm has no Scale unless param_attr is given).
# - instance_norm: group_norm with one channel per group; SavedMean / SavedVariance are [N * C], the latter the
#   INVERSE standard deviation (as batch_norm's).
# - both gradients: dx = inv_std * (g - mean(g) - x_hat * mean(g * x_hat)), g = dy * scale, over the group.
# - norm: Norm = sqrt(sum(x^2, axis) + eps) (keeping the axis), Out = x / Norm.
# - lrn: MidOut = k + alpha * sum of x^2 over the channels [c - (n-1)/2, c - (n-1)/2 + n) (alpha is not divided
#   by n), Out = x * MidOut^-beta; its gradient is dOut * MidOut^-beta - 2 alpha beta x sum over the windows
#   holding the channel of dOut * Out / MidOut.
# - prelu: x > 0 ? x : alpha * x with alpha per tensor ('all'), channel or element; dAlpha sums x * dOut over
#   the non-positive elements.

__all__ += ['group_norm_forward', 'group_norm_backward', 'instance_norm_forward', 'instance_norm_backward',
            'norm_forward', 'norm_backward', 'lrn_forward', 'lrn_backward', 'prelu_forward', 'prelu_backward']


@_jit_reduce
def _gn_fwd(x4, scale, bias, eps):
    n_, g_, cg, s_ = x4.shape
    y = np.empty_like(x4)
    mean = np.empty((n_, g_), dtype=x4.dtype)
    var = np.empty((n_, g_), dtype=x4.dtype)
    m = cg * s_
    for n in range(n_):
        for g in range(g_):
            acc = 0.0
            acc2 = 0.0
            for c in range(cg):
                for s in range(s_):
                    v = np.float64(x4[n, g, c, s])
                    acc += v
                    acc2 += v * v
            mu = acc / m
            va = max(acc2 / m - mu * mu, 0.0)
            mean[n, g] = mu
            var[n, g] = va
            inv = 1.0 / np.sqrt(va + eps)
            for c in range(cg):
                ch = g * cg + c
                for s in range(s_):
                    y[n, g, c, s] = (x4[n, g, c, s] - mu) * inv * scale[ch] + bias[ch]
    return y, mean, var


@_jit_reduce
def _gn_bwd(xhat4, dy4, scale, inv_std, with_mean_term):
    n_, g_, cg, s_ = xhat4.shape
    dx = np.empty_like(xhat4)
    dscale = np.zeros(g_ * cg, dtype=np.float64)
    dbias = np.zeros(g_ * cg, dtype=np.float64)
    m = cg * s_
    for n in range(n_):
        for g in range(g_):
            sum_g = 0.0
            sum_gx = 0.0
            for c in range(cg):
                ch = g * cg + c
                for s in range(s_):
                    d = np.float64(dy4[n, g, c, s])
                    xh = np.float64(xhat4[n, g, c, s])
                    dscale[ch] += d * xh
                    dbias[ch] += d
                    gv = d * scale[ch]
                    sum_g += gv
                    sum_gx += gv * xh
            mean_g = sum_g / m if with_mean_term else 0.0
            mean_gx = sum_gx / m
            inv = np.float64(inv_std[n, g])
            for c in range(cg):
                ch = g * cg + c
                for s in range(s_):
                    gv = np.float64(dy4[n, g, c, s]) * scale[ch]
                    dx[n, g, c, s] = inv * (gv - mean_g - np.float64(xhat4[n, g, c, s]) * mean_gx)
    return dx, dscale, dbias


def _nc_rest(x, channel_last):
    """x as [N, C, S] (a channels-last input is moved to channels-first)."""
    x = np.ascontiguousarray(np.moveaxis(x, -1, 1)) if channel_last else np.ascontiguousarray(x)
    return x.reshape(x.shape[0], x.shape[1], -1), x.shape


def _param(v, c, dt, default):
    return np.full(c, default, dt) if v is None else np.asarray(v, dtype=dt).reshape(c)


def group_norm_forward(x, scale=None, bias=None, groups=1, epsilon=1e-5, channel_last=False):
    """Paddle op ``group_norm``: returns ``(y, mean [N, groups], variance [N, groups])``."""
    x3, nchw_shape = _nc_rest(x, channel_last)
    n, c, s = x3.shape
    if groups <= 0 or c % groups:
        raise ValueError('group_norm: the channels (%d) must be divisible by groups (%d)' % (c, groups))
    y, mean, var = _gn_fwd(x3.reshape(n, groups, c // groups, s), _param(scale, c, x.dtype, 1),
                           _param(bias, c, x.dtype, 0), float(epsilon))
    y = y.reshape(nchw_shape)
    return (np.ascontiguousarray(np.moveaxis(y, 1, -1)) if channel_last else y), mean, var


def group_norm_backward(y, variance, dy, scale=None, bias=None, groups=1, epsilon=1e-5, channel_last=False):
    """Paddle op ``group_norm_grad`` (Y, Variance, Scale?, Bias?, Y@GRAD): returns ``(dx, dscale, dbias)``."""
    y3, nchw_shape = _nc_rest(y, channel_last)
    d3, _ = _nc_rest(np.asarray(dy, dtype=y.dtype), channel_last)
    n, c, s = y3.shape
    sc, bi = _param(scale, c, y.dtype, 1), _param(bias, c, y.dtype, 0)
    safe = np.where(sc != 0, sc, 1).astype(y.dtype)
    xhat = np.where(sc[:, None] != 0, (y3 - bi[:, None]) / safe[:, None], 0).astype(y.dtype)
    inv_std = (1.0 / np.sqrt(np.asarray(variance, np.float64).reshape(n, groups) + epsilon))
    # Paddle (1.8 to 2.6) accumulates the mean term only when Scale is given: without it the gradient lacks
    # -mean(dy), as Paddle computes it (kept for parity; see the module notes)
    dx, dscale, dbias = _gn_bwd(xhat.reshape(n, groups, c // groups, s), d3.reshape(n, groups, c // groups, s),
                                sc.astype(np.float64), inv_std, scale is not None)
    dx = dx.reshape(nchw_shape)
    if channel_last:
        dx = np.ascontiguousarray(np.moveaxis(dx, 1, -1))
    return dx, dscale.astype(y.dtype), dbias.astype(y.dtype)


def instance_norm_forward(x, scale=None, bias=None, epsilon=1e-5):
    """Paddle op ``instance_norm``: returns ``(y, saved_mean [N*C], saved_inv_std [N*C])``."""
    x3, shape = _nc_rest(x, False)
    n, c, s = x3.shape
    y, mean, var = _gn_fwd(x3.reshape(n, c, 1, s), _param(scale, c, x.dtype, 1), _param(bias, c, x.dtype, 0),
                           float(epsilon))
    inv_std = (1.0 / np.sqrt(var.astype(np.float64) + epsilon)).astype(x.dtype)
    return y.reshape(shape), mean.reshape(-1), inv_std.reshape(-1)


def instance_norm_backward(x, saved_mean, saved_inv_std, dy, scale=None):
    """Paddle op ``instance_norm_grad``: returns ``(dx, dscale, dbias)``."""
    x3, shape = _nc_rest(x, False)
    n, c, s = x3.shape
    mean = np.asarray(saved_mean, np.float64).reshape(n, c, 1)
    inv = np.asarray(saved_inv_std, np.float64).reshape(n, c)
    xhat = ((x3 - mean) * inv[:, :, None]).astype(x.dtype)
    d3 = np.ascontiguousarray(dy, dtype=x.dtype).reshape(n, c, 1, s)
    dx, dscale, dbias = _gn_bwd(xhat.reshape(n, c, 1, s), d3, _param(scale, c, np.float64, 1), inv, True)
    return dx.reshape(shape), dscale.astype(x.dtype), dbias.astype(x.dtype)


def _axis_view(x, axis):
    """x as [pre, n, post] around `axis`."""
    axis = axis % x.ndim
    pre = int(np.prod(x.shape[:axis], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(pre, x.shape[axis], -1)


@_jit_reduce
def _l2_fwd(x3, eps):
    pre, n_, post = x3.shape
    out = np.empty_like(x3)
    norm = np.empty((pre, 1, post), dtype=x3.dtype)
    for i in range(pre):
        for k in range(post):
            acc = 0.0
            for j in range(n_):
                v = np.float64(x3[i, j, k])
                acc += v * v
            nv = x3.dtype.type(np.sqrt(acc + eps))
            norm[i, 0, k] = nv
            for j in range(n_):
                out[i, j, k] = x3[i, j, k] / nv
    return out, norm


@_jit_reduce
def _l2_bwd(x3, norm3, dy3):
    pre, n_, post = x3.shape
    dx = np.empty_like(x3)
    for i in range(pre):
        for k in range(post):
            nv = np.float64(norm3[i, 0, k])
            dot = 0.0
            for j in range(n_):
                dot += np.float64(x3[i, j, k]) * np.float64(dy3[i, j, k])
            for j in range(n_):
                dx[i, j, k] = dy3[i, j, k] / nv - x3[i, j, k] * dot / (nv * nv * nv)
    return dx


def norm_forward(x, axis=1, epsilon=1e-10):
    """Paddle op ``norm``: returns ``(out, norm)``, norm keeping a size-1 ``axis``."""
    out, norm = _l2_fwd(_axis_view(x, axis), float(epsilon))
    shape = list(x.shape)
    shape[axis % x.ndim] = 1
    return out.reshape(x.shape), norm.reshape(shape)


def norm_backward(x, norm, dout, axis=1):
    x3 = _axis_view(x, axis)
    dx = _l2_bwd(x3, np.ascontiguousarray(norm).reshape(x3.shape[0], 1, -1),
                 np.ascontiguousarray(dout, dtype=x.dtype).reshape(x3.shape))
    return dx.reshape(x.shape)


@_jit
def _lrn_fwd(x3, n, k, alpha, beta):
    b_, c_, s_ = x3.shape
    start = -((n - 1) // 2)
    mid = np.empty_like(x3)
    out = np.empty_like(x3)
    for b in range(b_):
        for c in range(c_):
            for s in range(s_):
                acc = np.float64(k)
                for i in range(start, start + n):
                    ch = c + i
                    if ch >= 0 and ch < c_:
                        v = np.float64(x3[b, ch, s])
                        acc += alpha * v * v
                mid[b, c, s] = acc
                out[b, c, s] = x3[b, c, s] * np.float64(mid[b, c, s]) ** (-beta)
    return out, mid


@_jit
def _lrn_bwd(x3, out3, mid3, dout3, n, alpha, beta):
    b_, c_, s_ = x3.shape
    start = -((n - 1) // 2)
    dx = np.empty_like(x3)
    ratio = -2.0 * alpha * beta
    for b in range(b_):
        for s in range(s_):
            for i in range(c_):
                acc = 0.0
                # the channels c whose window [c + start, c + start + n) holds i
                for c in range(i - start - n + 1, i - start + 1):
                    if c >= 0 and c < c_:
                        acc += np.float64(dout3[b, c, s]) * out3[b, c, s] / mid3[b, c, s]
                dx[b, i, s] = (np.float64(dout3[b, i, s]) * np.float64(mid3[b, i, s]) ** (-beta)
                               + ratio * x3[b, i, s] * acc)
    return dx


def _lrn_view(x, channel_last):
    return _nc_rest(x, channel_last)


def lrn_forward(x, n=5, k=1.0, alpha=1e-4, beta=0.75, channel_last=False):
    """Paddle op ``lrn``: returns ``(out, mid_out)``."""
    x3, shape = _lrn_view(x, channel_last)
    out, mid = _lrn_fwd(x3, int(n), float(k), float(alpha), float(beta))
    out, mid = out.reshape(shape), mid.reshape(shape)
    if channel_last:
        out, mid = (np.ascontiguousarray(np.moveaxis(a, 1, -1)) for a in (out, mid))
    return out, mid


def lrn_backward(x, out, mid, dout, n=5, alpha=1e-4, beta=0.75, channel_last=False):
    x3, shape = _lrn_view(x, channel_last)
    o3, _ = _lrn_view(out, channel_last)
    m3, _ = _lrn_view(mid, channel_last)
    d3, _ = _lrn_view(np.asarray(dout, dtype=x.dtype), channel_last)
    dx = _lrn_bwd(x3, o3, m3, d3, int(n), float(alpha), float(beta)).reshape(shape)
    return np.ascontiguousarray(np.moveaxis(dx, 1, -1)) if channel_last else dx


@_jit
def _prelu_fwd(x3, alpha3):
    # x3 [N, C, S]; alpha3 broadcasts as [1 or N?, 1 or C, 1 or S]
    n_, c_, s_ = x3.shape
    out = np.empty_like(x3)
    ac, as_ = alpha3.shape[1], alpha3.shape[2]
    for n in range(n_):
        for c in range(c_):
            for s in range(s_):
                v = x3[n, c, s]
                out[n, c, s] = v if v > 0 else alpha3[0, c if ac > 1 else 0, s if as_ > 1 else 0] * v
    return out


@_jit
def _prelu_bwd(x3, alpha3, dout3):
    n_, c_, s_ = x3.shape
    dx = np.empty_like(x3)
    ac, as_ = alpha3.shape[1], alpha3.shape[2]
    dalpha = np.zeros(alpha3.shape, dtype=np.float64)
    for n in range(n_):
        for c in range(c_):
            for s in range(s_):
                v = x3[n, c, s]
                d = dout3[n, c, s]
                ci = c if ac > 1 else 0
                si = s if as_ > 1 else 0
                if v > 0:
                    dx[n, c, s] = d
                else:
                    dx[n, c, s] = alpha3[0, ci, si] * d
                    dalpha[0, ci, si] += np.float64(v) * d
    return dx, dalpha


def _prelu_views(x, alpha, mode, channel_last):
    """x as [N, C, S] (channels first for 'channel') and alpha as [1, C or 1, S or 1]."""
    x = np.ascontiguousarray(x)
    n = x.shape[0] if x.ndim > 0 else 1
    if mode == 'all':
        return x.reshape(n, 1, -1), np.asarray(alpha, x.dtype).reshape(1, 1, 1)
    if mode == 'element':
        return x.reshape(n, 1, -1), np.ascontiguousarray(alpha, dtype=x.dtype).reshape(1, 1, -1)
    if mode == 'channel':
        if channel_last:
            c = x.shape[-1]
            return x.reshape(-1, 1, c), np.ascontiguousarray(alpha, dtype=x.dtype).reshape(1, 1, c)
        return x.reshape(n, x.shape[1], -1), np.ascontiguousarray(alpha, dtype=x.dtype).reshape(1, -1, 1)
    raise ValueError("prelu: mode must be 'all', 'channel' or 'element', got %r" % (mode,))


def prelu_forward(x, alpha, mode='all', channel_last=False):
    x3, a3 = _prelu_views(x, alpha, mode, channel_last)
    return _prelu_fwd(x3, a3).reshape(x.shape)


def prelu_backward(x, alpha, dout, mode='all', channel_last=False):
    """Paddle op ``prelu_grad``: returns ``(dx, dalpha)`` (dalpha shaped like alpha)."""
    x3, a3 = _prelu_views(x, alpha, mode, channel_last)
    d3 = np.ascontiguousarray(dout, dtype=x3.dtype).reshape(x3.shape)
    dx, dalpha = _prelu_bwd(x3, a3, d3)
    return dx.reshape(np.shape(x)), dalpha.astype(x3.dtype).reshape(np.shape(alpha))
